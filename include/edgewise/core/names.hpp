/// \file
/// Names of enum values, written once per enum as a table of (value, name) pairs: the name of a
/// value, the value of a name, and the list of names that command-line options offer. Model files
/// store these names, so a table's names never change. Also lists of names joined into one text and
/// split out of one.
///
///   inline constexpr std::pair<Readout, std::string_view> kReadoutNames[] = {{Readout::sum, "sum"}, ...};
///   value_named(kReadoutNames, "mean", "readout");  // Readout::mean
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"

namespace edgewise {

/// A table of an enum's values and their names.
template <typename Enum, std::size_t N>
using NameTable = std::pair<Enum, std::string_view>[N];

/// Every name of the table, in its order.
template <typename Enum, std::size_t N>
std::vector<std::string> names_in(const NameTable<Enum, N>& table) {
  std::vector<std::string> names;
  for (const auto& [value, name] : table) names.emplace_back(name);
  return names;
}

/// The name of `value`. Throws std::logic_error for a value the table lacks: a table left
/// incomplete when the enum grew, a bug.
template <typename Enum, std::size_t N>
std::string name_of(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& [known, name] : table)
    if (known == value) return std::string(name);
  throw std::logic_error("a value of an enum has no name in its table");
}

/// The items with `separator` between them, numbers written by std::to_string: join(ids, ",") is "1,2,3".
template <typename Range>
std::string join(const Range& items, std::string_view separator) {
  std::string text;
  for (std::string_view between; const auto& item : items) {
    text += between;
    between = separator;
    if constexpr (std::is_arithmetic_v<std::remove_cvref_t<decltype(item)>>)
      text += std::to_string(item);
    else
      text += item;
  }
  return text;
}

/// `text` without the blanks (spaces, tabs, line ends) around it.
inline std::string_view trimmed(std::string_view text) {
  constexpr std::string_view blanks = " \t\r\n\v\f";
  const std::size_t begin = text.find_first_not_of(blanks);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(blanks) - begin + 1);
}

/// "a,b, c" -> {"a", "b", "c"}: the comma-separated items, spaces and tabs around each trimmed; blank
/// items are dropped.
inline std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  while (true) {
    const std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    const std::size_t first = item.find_first_not_of(" \t");
    if (first != std::string_view::npos)
      items.emplace_back(item.substr(first, item.find_last_not_of(" \t") - first + 1));
    if (comma == std::string_view::npos) return items;
    text.remove_prefix(comma + 1);
  }
}

/// The value named `name`. Throws ArgumentError "unknown <what> '<name>' (expected one of a, b, c)".
template <typename Enum, std::size_t N>
Enum value_named(const NameTable<Enum, N>& table, std::string_view name, std::string_view what) {
  for (const auto& [value, known] : table)
    if (known == name) return value;
  throw ArgumentError("unknown " + std::string(what) + " '" + std::string(name) + "' (expected one of " +
                      join(names_in(table), ", ") + ")");
}

}  // namespace edgewise
