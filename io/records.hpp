// Line records of the text files io reads (edge lists, labels, feature lists): splitting lines into
// fields, reading files in blocks, integers and the node ids written in them. Private to io.
#pragma once

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/io/csv.hpp"
#include "edgewise/io/node_index.hpp"

namespace edgewise::detail {

inline constexpr auto max_node_id = static_cast<std::uint64_t>(std::numeric_limits<NodeId>::max());
// Feature indices share the node id limit, which also keeps an inferred dimension allocatable.
inline constexpr auto max_feature_index = max_node_id;

// Where a record or one of its fields came from, for errors.
struct Where {
  const std::string& source;
  std::size_t line;
  std::size_t column = 0;  // 1-based field number; 0: the record as a whole

  // The same record's field `field` (0-based).
  Where at(std::size_t field) const { return {source, line, field + 1}; }
};

[[noreturn]] inline void fail(const Where& where, std::string_view token, std::string reason) {
  if (where.column > 0) reason = "column " + std::to_string(where.column) + ": " + reason;
  throw ParseError(where.source, where.line, std::string(token), std::move(reason));
}

// The text without a UTF-8 byte order mark at its start.
std::string_view without_byte_order_mark(std::string_view text);

// The tokens of a text between runs of blanks (spaces and tabs).
std::vector<std::string_view> split_at_blanks(std::string_view text);

// The fields of a line: split at `delimiter` (each field trimmed); without one, at commas when the
// line has any, else at runs of blanks. No quoting: RecordReader reads quoted fields.
std::vector<std::string_view> split_fields(std::string_view line, std::optional<char> delimiter);

struct Record {
  std::size_t line = 0;
  std::vector<std::string_view> fields;  // at least one
  std::deque<std::string> unquoted;      // quoted fields that held a doubled quote, as they read
};

// The records of a line-based file, without blank and comment lines. Fields split at a delimiter
// (an explicit one, or the comma of a line that has one) follow RFC 4180: a field that starts with
// '"' runs to the closing quote, may hold delimiters and line breaks, and writes a quote as "".
class RecordReader {
 public:
  // Lines are numbered on from first_line (a block of a file that starts further down). With
  // more_follows, the text is a block that the file continues after: a quoted field running past its
  // end stops the reading before that record, which resumes at consumed() with the next block.
  RecordReader(std::string_view text, std::optional<char> delimiter, const std::string& source,
               std::size_t first_line = 1, bool more_follows = false);

  // Reads the next record; false at the end of the text. Throws ParseError for an unterminated
  // quoted field or text after a closing quote.
  bool next(Record& record);

  // The number of the last line read.
  std::size_t line() const { return line_; }
  // The bytes of the text given to the constructor that the records read so far took.
  std::size_t consumed() const { return skipped_ + std::min(pos_, text_.size()); }

 private:
  std::string_view next_line();
  bool read_quoted_record(char delimiter, Record& record);
  bool read_quoted_field(char delimiter, Record& record);

  std::string_view text_;
  std::optional<char> delimiter_;
  const std::string& source_;
  bool more_follows_ = false;
  std::size_t skipped_ = 0;  // a byte order mark's bytes before text_
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
};

// Calls visit(record) for every record of a file, read in blocks of whole lines so that memory does
// not grow with the file.
template <typename Visit>
void for_each_record_in_file(const std::filesystem::path& path, std::optional<char> delimiter, Visit&& visit) {
  constexpr std::size_t kBlockBytes = 4 << 20;
  // A quoted field keeps its record's lines in memory until it ends; a missing closing quote must not
  // read a large file whole.
  constexpr std::size_t kLongestRecordBytes = std::size_t{64} << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open for reading: " + std::generic_category().message(errno));
  const std::string source = path.string();
  std::string block;
  std::size_t first_line = 1;
  Record record;
  while (in) {
    const std::size_t kept = block.size();
    block.resize(kept + kBlockBytes);
    in.read(block.data() + kept, static_cast<std::streamsize>(kBlockBytes));
    block.resize(kept + static_cast<std::size_t>(in.gcount()));
    if (in.bad()) throw Error(source + ": read error");
    // Whole lines only, but for the last block; the partial line waits for the next block.
    const bool more_follows = static_cast<bool>(in);
    const std::size_t end = more_follows ? block.rfind('\n') + 1 : block.size();
    RecordReader reader(std::string_view(block).substr(0, end), delimiter, source, first_line, more_follows);
    while (reader.next(record)) visit(record);
    first_line = reader.line() + 1;
    block.erase(0, reader.consumed());
    if (block.size() >= kLongestRecordBytes)
      fail({source, first_line}, "", "a record longer than 64 MiB: a line that long, or a quoted field without its closing quote");
  }
}

// Whether the token is an optionally negative run of digits.
bool is_integer(std::string_view token);

// A token of digits only, below `limit`; nullopt otherwise.
std::optional<std::uint64_t> non_negative_integer(std::string_view token, std::uint64_t limit);

// Why a token is not a finite number of type T.
enum class NumberError { none, out_of_range, not_a_number, not_finite };

// Parses a whole token as a finite float or double into value, allowing the leading '+' that
// spreadsheets and some tools write.
template <typename T>
NumberError parse_finite(std::string_view token, T& value);

// The value of an integer node id, any 64-bit unsigned integer (user ids of social networks need
// more than 32 bits); fails on an empty, non-integer, negative or too large one.
std::uint64_t node_value(std::string_view token, const Where& where);

// The name a node token stands for: integer ids by their decimal value, string ids as written.
std::string node_name(std::string_view token, NodeIds ids, const Where& where);

// Looks node tokens up in an index, adding or refusing unknown ones.
class NodeResolver {
 public:
  NodeResolver(NodeIndex& nodes, NodeIds ids, UnknownNodes unknown_nodes)
      : nodes_(nodes), ids_(ids), unknown_nodes_(unknown_nodes) {}

  Index operator()(std::string_view token, const Where& where) const {
    const std::string name = node_name(token, ids_, where);
    if (const std::optional<Index> id = nodes_.find(name)) return *id;
    if (unknown_nodes_ == UnknownNodes::error) fail(where, token, "node not in the graph");
    return nodes_.add(name);
  }

 private:
  NodeIndex& nodes_;
  NodeIds ids_;
  UnknownNodes unknown_nodes_;
};

// Whether the first record of a file is a header; node_columns are the fields holding node ids.
inline bool is_header(const Record& first, Header header, NodeIds ids, std::initializer_list<std::size_t> node_columns) {
  if (header != Header::detect) return header == Header::present;
  if (ids != NodeIds::integer) return false;
  return std::ranges::any_of(node_columns, [&](std::size_t column) {
    return column < first.fields.size() && !first.fields[column].empty() && !is_integer(first.fields[column]);
  });
}

}  // namespace edgewise::detail
