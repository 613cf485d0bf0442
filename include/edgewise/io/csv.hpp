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
#include <filesystem>
#include <iosfwd>
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
  std::vector<std::vector<std::string>> rows;  ///< every row has num_columns() fields
  std::vector<std::size_t> line_numbers;       ///< 1-based physical line where each row starts

  /// The number of data rows (the header excluded).
  std::size_t num_rows() const { return rows.size(); }
  /// The header's width, or the first row's when there is no header.
  std::size_t num_columns() const;

  /// The index of the column with this exact name. Throws ArgumentError naming the source, the missing
  /// column and the available ones, or when the name is ambiguous or the table has no header.
  std::size_t column_index(std::string_view name) const;
  /// Returns index if the table has such a column; throws ArgumentError otherwise.
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
/// read_csv from a stream or from text in memory; `source` names it in messages.
/// @{
CsvTable read_csv(std::istream& in, std::string source, const CsvOptions& options = {});
CsvTable parse_csv(std::string_view text, std::string source, const CsvOptions& options = {});
/// @}

/// The field without leading and trailing spaces, tabs, carriage returns and line feeds.
std::string_view trim_whitespace(std::string_view field);

/// A numeric cell: nullopt when the field is empty or only whitespace (a missing label), else the
/// value. Throws ParseError naming source, line, column and value for text that is not a number, for
/// out-of-range values, and for "nan" or "inf", which are never valid targets.
std::optional<double> parse_number(std::string_view field, const FieldContext& context);

}  // namespace edgewise
