#include "edgewise/io/csv.hpp"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <system_error>

#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "records.hpp"

namespace edgewise {
namespace {

// One record as it appears in the text: its fields, the line it starts on and its raw text.
struct CsvRecord {
  std::vector<std::string> fields;
  std::size_t first_line = 0;
  std::string_view text;
};

// Thrown by a parser over a partial text (`complete` false) that reached its end inside a record:
// the caller appends more text and reads the record again.
struct TextEnded {};

// A single pass over the text that yields records and tracks the physical line number.
class CsvParser {
 public:
  CsvParser(std::string_view text, const std::string& source, const CsvOptions& options, bool complete = true,
            std::size_t first_line = 1)
      : text_(text), source_(source), options_(options), complete_(complete), line_(first_line) {}

  // Moves to the start of the next record, skipping comments and blank lines; false at the end.
  bool next_record_start() {
    while (pos_ < text_.size() || !complete_) {
      if (pos_ >= text_.size()) throw TextEnded{};
      if (options_.comment_prefix.size() > text_.size() - pos_ && !complete_) throw TextEnded{};
      if (!is_blank_line() && !is_comment_line()) return true;
      skip_line();
    }
    return false;
  }

  std::size_t position() const { return pos_; }
  std::size_t line() const { return line_; }

  CsvRecord read_record() {
    CsvRecord record;
    record.first_line = line_;
    const std::size_t start = pos_;
    do {
      record.fields.push_back(peek() == '"' ? read_quoted_field(start) : read_plain_field());
    } while (consume_delimiter());
    record.text = text_.substr(start, pos_ - start);
    consume_line_end();
    return record;
  }

 private:
  char peek(std::size_t ahead = 0) const {
    if (pos_ + ahead < text_.size()) return text_[pos_ + ahead];
    if (!complete_) throw TextEnded{};
    return '\0';
  }
  bool at_end() const {
    if (pos_ < text_.size()) return false;
    if (!complete_) throw TextEnded{};
    return true;
  }

  // At the end of a record: "\n", "\r\n", a "\r" that ends the text, or the end of the text.
  bool at_line_end() const {
    if (at_end() || peek() == '\n') return true;
    return peek() == '\r' && (peek(1) == '\n' || pos_ + 1 == text_.size());
  }

  bool is_blank_line() const { return options_.skip_blank_lines && at_line_end(); }

  bool is_comment_line() const {
    return !options_.comment_prefix.empty() && text_.substr(pos_).starts_with(options_.comment_prefix);
  }

  void skip_line() {
    const std::size_t newline = text_.find('\n', pos_);
    if (newline == std::string_view::npos && !complete_) throw TextEnded{};
    pos_ = newline == std::string_view::npos ? text_.size() : newline + 1;
    ++line_;
  }

  void consume_line_end() {
    if (peek() == '\r') ++pos_;
    if (peek() == '\n') {
      ++pos_;
      ++line_;
    }
  }

  bool consume_delimiter() {
    if (at_end() || peek() != options_.delimiter) return false;
    ++pos_;
    return true;
  }

  std::string read_plain_field() {
    const std::size_t start = pos_;
    while (!at_line_end() && peek() != options_.delimiter) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  // Reads "..." with "" for a quote; line breaks inside belong to the field.
  std::string read_quoted_field(std::size_t record_start) {
    const std::size_t opening_line = line_;
    ++pos_;
    std::string field;
    while (true) {
      if (at_end()) {
        throw ParseError(source_, opening_line, std::string(first_line_of(record_start)), "unterminated quoted field");
      }
      const char c = text_[pos_++];
      if (c == '"') {
        if (peek() != '"') break;
        ++pos_;
      } else if (c == '\n') {
        ++line_;
      }
      field.push_back(c);
    }
    if (!at_line_end() && peek() != options_.delimiter) {
      throw ParseError(source_, line_, std::string(first_line_of(record_start)),
                       std::string("unexpected character '") + peek() + "' after a closing quote");
    }
    return field;
  }

  std::string_view first_line_of(std::size_t start) const {
    std::string_view line = text_.substr(start, text_.find('\n', start) - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    return line;
  }

  std::string_view text_;
  const std::string& source_;
  const CsvOptions& options_;
  bool complete_ = true;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

void check_field_count(const CsvRecord& record, std::size_t expected, const std::string& source) {
  if (record.fields.size() == expected) return;
  throw ParseError(source, record.first_line, std::string(record.text),
                   "expected " + std::to_string(expected) + " fields, found " + std::to_string(record.fields.size()));
}

[[noreturn]] void throw_not_a_number(const FieldContext& context, std::string_view field, const std::string& why) {
  throw ParseError(context.source, context.line, std::string(field), "column '" + context.column + "': " + why);
}

// A table without a header and rows has no columns to choose from: the file was empty.
void check_not_empty(const CsvTable& table) {
  if (table.header.empty() && table.rows.empty())
    throw ParseError(table.source, 1, "", "empty file: expected a header line naming the columns, then rows");
}

// "file:line" of the header, for messages about its columns.
std::string header_place(const CsvTable& table) {
  return table.header_line > 0 ? table.source + ":" + std::to_string(table.header_line) : table.source;
}

}  // namespace

std::size_t CsvTable::num_columns() const {
  if (!header.empty()) return header.size();
  return rows.empty() ? 0 : rows.front().size();
}

std::size_t CsvTable::column_index(std::string_view name) const {
  check_not_empty(*this);
  if (header.empty()) {
    throw ArgumentError(source + ": no header row, so column '" + std::string(name) +
                        "' cannot be found by name; select columns by 0-based index");
  }
  std::optional<std::size_t> found;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] != name) continue;
    if (found)
      throw ArgumentError(header_place(*this) + ": column '" + std::string(name) + "' appears more than once in the header");
    found = i;
  }
  if (!found) {
    throw ArgumentError(header_place(*this) + ": no column '" + std::string(name) +
                        "'; available columns: " + quoted_list(header));
  }
  return *found;
}

std::size_t CsvTable::check_column(std::size_t index) const {
  check_not_empty(*this);
  if (index < num_columns()) return index;
  throw ArgumentError(source + ": column index " + std::to_string(index) + " is out of range; the table has " +
                      std::to_string(num_columns()) + " columns");
}

std::string CsvTable::column_name(std::size_t index) const {
  return index < header.size() ? header[index] : "column " + std::to_string(index);
}

FieldContext CsvTable::context(std::size_t row, std::size_t column) const {
  return {source, line_numbers.at(row), column_name(column)};
}

std::optional<double> CsvTable::number(std::size_t row, std::size_t column) const {
  return parse_number(rows.at(row).at(column), context(row, column));
}

CsvTable parse_csv(std::string_view text, std::string source, const CsvOptions& options) {
  CsvTable table;
  table.source = std::move(source);
  CsvParser parser(detail::without_byte_order_mark(text), table.source, options);
  if (options.has_header && parser.next_record_start()) {
    CsvRecord header = parser.read_record();
    table.header = std::move(header.fields);
    table.header_line = header.first_line;
  }
  std::optional<std::size_t> width;
  if (options.has_header) width = table.header.size();
  while (parser.next_record_start()) {
    CsvRecord record = parser.read_record();
    if (!width) width = record.fields.size();
    check_field_count(record, *width, table.source);
    table.rows.push_back(std::move(record.fields));
    table.line_numbers.push_back(record.first_line);
  }
  return table;
}

CsvReader::CsvReader(const std::filesystem::path& path, const CsvOptions& options)
    : in_(path, std::ios::binary), options_(options) {
  if (!in_) throw Error(path.string() + ": cannot open for reading: " + std::generic_category().message(errno));
  columns_.source = path.string();
  read_more();
  const std::string_view text(buffer_);
  pos_ = text.size() - detail::without_byte_order_mark(text).size();
  if (!options_.has_header) return;
  std::vector<std::string> header;
  std::size_t line = 0;
  if (next(header, line)) {
    columns_.header = std::move(header);
    columns_.header_line = line;
  }
  width_ = columns_.header.size();
}

bool CsvReader::next(std::vector<std::string>& fields, std::size_t& line) {
  while (true) {
    if (offset() >= end_) return false;
    CsvParser parser(std::string_view(buffer_).substr(pos_), columns_.source, options_, complete_, line_);
    try {
      if (!parser.next_record_start()) return false;
      if (offset() + parser.position() >= end_) return false;  // blank or comment lines up to the end
      CsvRecord record = parser.read_record();
      if (end_ != std::numeric_limits<std::uint64_t>::max() && offset() + parser.position() > end_)
        throw ParseError(columns_.source, record.first_line, std::string(record.text).substr(0, 80),
                         "a record runs over the end of this process's share of the file (a line break inside "
                         "a quoted field?); read the file with one process");
      if (width_) check_field_count(record, *width_, columns_.source);
      if (!width_) width_ = record.fields.size();
      fields = std::move(record.fields);
      line = record.first_line;
      pos_ += parser.position();
      line_ = parser.line();
      return true;
    } catch (const TextEnded&) {
      read_more();
    }
  }
}

void CsvReader::restrict_to(const CsvByteRange& range) {
  if (range.begin > offset()) {
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(range.begin));
    if (!in_) throw Error(columns_.source + ": cannot seek to byte " + std::to_string(range.begin));
    buffer_.clear();
    pos_ = 0;
    consumed_ = range.begin;
    line_ = range.first_line;
    complete_ = false;
    read_more();
  }
  end_ = range.end;
}

CsvByteRange csv_part(const std::filesystem::path& path, std::uint64_t data_start, int part, int parts) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open for reading: " + std::generic_category().message(errno));
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  // The first line start at or after data_start + share * k: the byte after the first line feed at or
  // after the byte before it.
  const auto line_start = [&](int k) -> std::uint64_t {
    const std::uint64_t nominal = data_start + (size - std::min(size, data_start)) * static_cast<std::uint64_t>(k) /
                                                   static_cast<std::uint64_t>(parts);
    if (k == 0 || nominal <= data_start) return std::min(data_start, size);
    if (k == parts || nominal >= size) return size;
    in.clear();
    in.seekg(static_cast<std::streamoff>(nominal - 1));
    std::uint64_t at = nominal - 1;
    for (char c = 0; in.get(c); ++at)
      if (c == '\n') return at + 1;
    return size;
  };
  return {.begin = line_start(part), .end = line_start(part + 1), .first_line = 1};
}

std::uint64_t count_lines(const std::filesystem::path& path, std::uint64_t begin, std::uint64_t end) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open for reading: " + std::generic_category().message(errno));
  in.seekg(static_cast<std::streamoff>(begin));
  std::vector<char> block(1 << 20);
  std::uint64_t lines = 0;
  for (std::uint64_t left = end > begin ? end - begin : 0; left > 0 && in;) {
    in.read(block.data(), static_cast<std::streamsize>(std::min<std::uint64_t>(left, block.size())));
    const auto got = static_cast<std::size_t>(in.gcount());
    lines += static_cast<std::uint64_t>(std::count(block.data(), block.data() + got, '\n'));
    left -= got;
    if (got == 0) break;
  }
  return lines;
}

void CsvReader::read_more() {
  constexpr std::size_t kBlockBytes = 1 << 20;
  consumed_ += pos_;
  buffer_.erase(0, pos_);
  pos_ = 0;
  const std::size_t kept = buffer_.size();
  buffer_.resize(kept + kBlockBytes);
  in_.read(buffer_.data() + kept, static_cast<std::streamsize>(kBlockBytes));
  buffer_.resize(kept + static_cast<std::size_t>(in_.gcount()));
  if (in_.bad()) throw Error(columns_.source + ": read error");
  complete_ = in_.eof() || in_.gcount() == 0;
}

CsvTable read_csv(const std::filesystem::path& path, const CsvOptions& options) {
  return parse_csv(read_file(path.string()), path.string(), options);
}

std::string_view trim_whitespace(std::string_view field) {
  constexpr std::string_view whitespace = " \t\r\n\f\v";
  const std::size_t first = field.find_first_not_of(whitespace);
  if (first == std::string_view::npos) return {};
  return field.substr(first, field.find_last_not_of(whitespace) - first + 1);
}

std::optional<double> parse_number(std::string_view field, const FieldContext& context) {
  std::string_view text = trim_whitespace(field);
  if (text.empty()) return std::nullopt;
  double value = 0;
  switch (detail::parse_finite(text, value)) {
    case detail::NumberError::none:
      return value;
    case detail::NumberError::out_of_range:
      throw_not_a_number(context, field, "number out of range");
    case detail::NumberError::not_a_number:
      throw_not_a_number(context, field, "not a number");
    case detail::NumberError::not_finite:
      throw_not_a_number(context, field, "not a finite number (nan and inf are not valid values)");
  }
  throw_not_a_number(context, field, "not a number");
}

}  // namespace edgewise
