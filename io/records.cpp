#include "records.hpp"

#include <algorithm>
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

// A quoted field's text with each "" read as one quote.
std::string without_doubled_quotes(std::string_view raw) {
  std::string text;
  text.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    text.push_back(raw[i]);
    if (raw[i] == '"') ++i;
  }
  return text;
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

RecordReader::RecordReader(std::string_view text, std::optional<char> delimiter, const std::string& source,
                           std::size_t first_line, bool more_follows)
    : text_(first_line == 1 ? without_byte_order_mark(text) : text),
      delimiter_(delimiter),
      source_(source),
      more_follows_(more_follows),
      skipped_(text.size() - text_.size()),
      line_(first_line - 1) {}

bool RecordReader::next(Record& record) {
  while (pos_ < text_.size()) {
    const std::size_t start = pos_, start_line = line_;
    const std::string_view content = trim_whitespace(next_line());
    if (content.empty() || content.front() == '#' || content.front() == '%') continue;
    record.line = line_;
    const bool has_comma = content.find(',') != std::string_view::npos;
    const std::optional<char> delimiter = delimiter_ ? delimiter_ : has_comma ? std::optional<char>(',') : std::nullopt;
    if (!delimiter || content.find('"') == std::string_view::npos) {
      record.fields = split_fields(content, delimiter_);
      return true;
    }
    pos_ = static_cast<std::size_t>(content.data() - text_.data());
    line_ = record.line;
    if (read_quoted_record(*delimiter, record)) return true;
    pos_ = start;
    line_ = start_line;
    return false;
  }
  return false;
}

std::string_view RecordReader::next_line() {
  const std::size_t end = std::min(text_.find('\n', pos_), text_.size());
  const std::string_view line = text_.substr(pos_, end - pos_);
  pos_ = end + 1;
  ++line_;
  return line;
}

// The fields of the record at pos_, whose first line holds a quote; false when a quoted field runs
// past the end of a block that more text follows.
bool RecordReader::read_quoted_record(char delimiter, Record& record) {
  record.fields.clear();
  record.unquoted.clear();
  while (true) {
    while (pos_ < text_.size() && text_[pos_] != delimiter && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '"') {
      if (!read_quoted_field(delimiter, record)) return false;
    } else {
      const std::size_t begin = pos_;
      while (pos_ < text_.size() && text_[pos_] != delimiter && text_[pos_] != '\n') ++pos_;
      record.fields.push_back(trim_whitespace(text_.substr(begin, pos_ - begin)));
    }
    if (pos_ >= text_.size() || text_[pos_] != delimiter) break;
    ++pos_;
  }
  pos_ = std::min(pos_ + 1, text_.size());  // past the line feed
  return true;
}

// A quoted field, as it reads ("" for a quote); line breaks inside it belong to the field.
bool RecordReader::read_quoted_field(char delimiter, Record& record) {
  const std::size_t opening_line = line_, field = record.fields.size();
  const std::size_t begin = ++pos_;
  bool doubled = false;
  while (true) {
    const std::size_t quote = text_.find('"', pos_);
    if (quote == std::string_view::npos) {
      if (more_follows_) return false;
      const std::string_view rest = text_.substr(begin - 1);
      fail({source_, opening_line, field + 1}, rest.substr(0, rest.find('\n')), "unterminated quoted field");
    }
    line_ += static_cast<std::size_t>(std::count(text_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                                 text_.begin() + static_cast<std::ptrdiff_t>(quote), '\n'));
    pos_ = quote + 1;
    if (pos_ >= text_.size() || text_[pos_] != '"') break;
    doubled = true;
    ++pos_;
  }
  const std::string_view raw = text_.substr(begin, pos_ - 1 - begin);
  record.fields.push_back(doubled ? std::string_view(record.unquoted.emplace_back(without_doubled_quotes(raw))) : raw);
  while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r') &&
         text_[pos_] != delimiter)
    ++pos_;
  if (pos_ < text_.size() && text_[pos_] != delimiter && text_[pos_] != '\n') {
    fail({source_, line_, field + 1}, text_.substr(pos_, 1), "text after a closing quote");
  }
  return true;
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
