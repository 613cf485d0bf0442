/// \file
/// Integer fields of the JSON headers that files bring in (model files, graph stores, checkpoints).
/// nlohmann::json converts a floating-point number to an integer type with a cast, which is
/// undefined behaviour for a value outside the type's range (a damaged or crafted file's 1e300):
/// these fields refuse floating-point numbers as a wrong type instead.
#pragma once

#include <nlohmann/json.hpp>

namespace edgewise {

/// Throws nlohmann::json::type_error when `j`, or an element of it at any depth, is a
/// floating-point number.
inline void check_no_floats(const nlohmann::json& j) {
  if (j.is_number_float()) throw nlohmann::json::type_error::create(302, "expected an integer, found a float", &j);
  if (j.is_structured())
    for (const nlohmann::json& element : j) check_no_floats(element);
}

/// j.get_to(value) for an integer, or a container of integers, that refuses floating-point numbers.
template <typename T>
void get_integer_to(const nlohmann::json& j, T& value) {
  check_no_floats(j);
  j.get_to(value);
}

}  // namespace edgewise
