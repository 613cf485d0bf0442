/// \file
/// CSV tables of molecule properties, in the convention of Chemprop and MoleculeNet files: one
/// header line naming the columns (a SMILES column and one column per target), one molecule per row.
///
/// Quoting follows RFC 4180: a field that starts with '"' runs to the next lone '"', may contain
/// delimiters and line breaks, and writes a quote as "". Records end with LF or CRLF; a file need not
/// end with a line break. Fields are kept exactly as written (trailing spaces included: ESOL's SMILES
/// column has them), so callers trim where a value must not carry them.
///
/// Every error names the source and the 1-based physical line, so a bad row can be found in an editor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace edgewise {

/// How read_csv reads a table (RFC 4180 quoting; LF or CRLF line ends).
struct CsvOptions {
  char delimiter = ',';  ///< Field separator.
  bool has_header = true;       ///< false: columns are selected by 0-based index only
  std::string comment_prefix;   ///< lines starting with it are skipped ("#"); empty: no comments
  bool skip_blank_lines = true;  ///< lines that are empty or only "\r"
};

/// Where a field came from, for error messages.
struct FieldContext {
  std::string source;  ///< The file or display name.
  std::size_t line = 0;  ///< 1-based physical line.
  std::string column;  ///< The column's name (see CsvTable::column_name).
};

/// A table of text fields, parsed but not interpreted.
struct CsvTable {
  std::string source;                          ///< file name, or the display name given by the caller
  std::vector<std::string> header;             ///< empty when read without a header
  std::size_t header_line = 0;                 ///< 1-based line of the header; 0 without one
  std::vector<std::vector<std::string>> rows;  ///< every row has num_columns() fields
  std::vector<std::size_t> line_numbers;       ///< 1-based physical line where each row starts

  /// The number of data rows (the header excluded).
  std::size_t num_rows() const { return rows.size(); }
  /// The header's width, or the first row's when there is no header.
  std::size_t num_columns() const;

  /// The index of the column with this exact name. Throws ArgumentError naming the source, the header's
  /// line, the missing column and the available ones, or when the name is ambiguous or the table has
  /// no header; ParseError when the file is empty (no header and no rows).
  std::size_t column_index(std::string_view name) const;
  /// Returns index if the table has such a column; throws ArgumentError otherwise (ParseError for an
  /// empty file).
  std::size_t check_column(std::size_t index) const;
  /// The header name, or "column <index>" without a header.
  std::string column_name(std::size_t index) const;

  /// Where cell (row, column) came from, for error messages.
  FieldContext context(std::size_t row, std::size_t column) const;
  /// parse_number() of one cell.
  std::optional<double> number(std::size_t row, std::size_t column) const;
};

/// Reads a whole table. Throws ParseError for malformed input (a row whose field count differs from the
/// header's, an unterminated quote, text after a closing quote) and Error when the file cannot be read.
CsvTable read_csv(const std::filesystem::path& path, const CsvOptions& options = {});
/// read_csv from text in memory; `source` names it in messages.
CsvTable parse_csv(std::string_view text, std::string source, const CsvOptions& options = {});

/// Bytes [begin, end) of a CSV file, both at line starts, whose first line is first_line (1-based).
struct CsvByteRange {
  std::uint64_t begin = 0;     ///< the first byte, at a line start
  std::uint64_t end = 0;       ///< one past the last byte, at a line start or the file's end
  std::size_t first_line = 1;  ///< the 1-based line number of the line at begin
};

/// Part `part` of `parts` (0-based) of the bytes from data_start (a line start, after the header) to
/// the end of the file: equal byte shares, each moved to the first line start at or after it, so
/// that the parts tile the data lines. first_line is left at 1: the lines before a part are counted
/// by whoever reads the parts before it (count_lines). Throws Error when the file cannot be read.
CsvByteRange csv_part(const std::filesystem::path& path, std::uint64_t data_start, int part, int parts);

/// The number of line feeds in bytes [begin, end) of the file.
std::uint64_t count_lines(const std::filesystem::path& path, std::uint64_t begin, std::uint64_t end);

/// Reads a CSV file a record at a time, for inputs too large to hold in memory: it keeps one block
/// of the file (1 MB) and the record being read, and checks rows as read_csv does.
class CsvReader {
 public:
  /// Opens the file and reads the header (with options.has_header). Throws Error when the file
  /// cannot be read, ParseError for a malformed header.
  explicit CsvReader(const std::filesystem::path& path, const CsvOptions& options = {});

  /// The header, without rows: for column_index, check_column and context.
  const CsvTable& columns() const { return columns_; }

  /// Reads the next row into `fields`, and the 1-based line where it starts; false at the end of the
  /// file (or of the range). Throws ParseError as read_csv does.
  bool next(std::vector<std::string>& fields, std::size_t& line);

  /// The byte offset in the file where the next record's text starts (after the header, at first).
  std::uint64_t offset() const { return consumed_ + pos_; }

  /// Reads only the rows that start in `range` from now on: from range.begin (which is a line start
  /// at or after offset(), and is then on line range.first_line) up to range.end. Throws ParseError
  /// when a record starting in the range runs past range.end, which a quoted line break can do: the
  /// range's end would then cut it.
  void restrict_to(const CsvByteRange& range);

 private:
  void read_more();

  std::ifstream in_;
  CsvOptions options_;
  CsvTable columns_;
  std::string buffer_;
  std::uint64_t consumed_ = 0;  ///< the file offset of buffer_[0]
  std::uint64_t end_ = std::numeric_limits<std::uint64_t>::max();  ///< restrict_to's end
  std::size_t pos_ = 0;   ///< where the next record's text starts in buffer_
  std::size_t line_ = 1;  ///< its line
  bool complete_ = false;  ///< buffer_ holds the rest of the file
  std::optional<std::size_t> width_;
};

/// The field without leading and trailing spaces, tabs, carriage returns and line feeds.
std::string_view trim_whitespace(std::string_view field);

/// Names as a message lists them: 'a', 'b', 'c'.
template <typename Names>
std::string quoted_list(const Names& names) {
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "'" : ", '") + std::string(name) + "'";
  return list;
}

/// A numeric cell: nullopt when the field is empty or only whitespace (a missing label), else the
/// value. Throws ParseError naming source, line, column and value for text that is not a number, for
/// out-of-range values, and for "nan" or "inf", which are never valid targets.
std::optional<double> parse_number(std::string_view field, const FieldContext& context);

}  // namespace edgewise
