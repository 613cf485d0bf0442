// Catching the exception a call throws, for checks on its message and fields.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "edgewise/core/error.hpp"

namespace edgewise::testing {

// The exception of type Exception that `call` throws; a test failure, and a blank exception, if
// it throws none.
template <typename Exception, typename Call>
Exception thrown_by(Call&& call) {
  try {
    call();
  } catch (const Exception& e) {
    return e;
  }
  ADD_FAILURE() << "no exception thrown";
  return Exception("", 0, "", "");
}

// The message of the ArgumentError that `call` throws; empty, and a test failure, if none.
template <typename Call>
std::string argument_error_of(Call&& call) {
  try {
    call();
  } catch (const ArgumentError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ArgumentError thrown";
  return "";
}

}  // namespace edgewise::testing
