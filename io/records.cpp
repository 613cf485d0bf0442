#include "records.hpp"

#include <cmath>

namespace edgewise::detail {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::vector<std::string_view> split_at(std::string_view text, char delimiter) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(delimiter, start);
    fields.push_back(trim_whitespace(text.substr(start, end - start)));
    if (end == std::string_view::npos) return fields;
    start = end + 1;
  }
}

}  // namespace

std::vector<std::string_view> split_at_blanks(std::string_view text) {
  std::vector<std::string_view> tokens;
  std::size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && is_blank(text[pos])) ++pos;
    const std::size_t start = pos;
    while (pos < text.size() && !is_blank(text[pos])) ++pos;
    if (pos > start) tokens.push_back(text.substr(start, pos - start));
  }
  return tokens;
}

std::string_view without_byte_order_mark(std::string_view text) {
  constexpr std::string_view bom = "\xEF\xBB\xBF";
  if (text.starts_with(bom)) text.remove_prefix(bom.size());
  return text;
}

std::vector<std::string_view> split_fields(std::string_view line, std::optional<char> delimiter) {
  if (delimiter) return split_at(line, *delimiter);
  return line.find(',') != std::string_view::npos ? split_at(line, ',') : split_at_blanks(line);
}

bool is_integer(std::string_view token) {
  if (token.starts_with('-')) token.remove_prefix(1);
  return !token.empty() && std::ranges::all_of(token, [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<std::uint64_t> non_negative_integer(std::string_view token, std::uint64_t limit) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || end != token.data() + token.size() || value > limit) return std::nullopt;
  return value;
}

template <typename T>
NumberError parse_finite(std::string_view token, T& value) {
  if (token.size() > 1 && token.front() == '+' && token[1] != '-' && token[1] != '+') token.remove_prefix(1);
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error == std::errc::result_out_of_range) return NumberError::out_of_range;
  if (error != std::errc() || end != token.data() + token.size()) return NumberError::not_a_number;
  if (!std::isfinite(value)) return NumberError::not_finite;
  return NumberError::none;
}

template NumberError parse_finite<float>(std::string_view, float&);
template NumberError parse_finite<double>(std::string_view, double&);

std::uint64_t node_value(std::string_view token, const Where& where) {
  if (token.empty()) fail(where, token, "empty node id");
  if (!is_integer(token)) fail(where, token, "node id is not an integer");
  if (token.starts_with('-')) fail(where, token, "negative node id");
  const auto value = non_negative_integer(token, std::numeric_limits<std::uint64_t>::max());
  if (!value) fail(where, token, "node id above 2^64 - 1");
  return *value;
}

// The name a node token stands for: integer ids by their decimal value, string ids as written.
std::string node_name(std::string_view token, NodeIds ids, const Where& where) {
  if (ids == NodeIds::string) {
    if (token.empty()) fail(where, token, "empty node id");
    return std::string(token);
  }
  return std::to_string(node_value(token, where));
}

}  // namespace edgewise::detail
