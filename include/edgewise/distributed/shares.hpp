/// \file
/// How a command's work is divided among the processes mpirun starts: each reads a share of the
/// input file's lines, and rank 0 writes every share's output in rank order, so that the output is the
/// one-process output byte for byte.
#pragma once

#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "edgewise/io/csv.hpp"

namespace edgewise::distributed {

/// The rows of a CSV file one process reads: from start.begin (a line start, on line
/// start.first_line; start.end is the file's end), pass over `skip` records, then read `rows` records.
struct RowShare {
  CsvByteRange start;  ///< where the share's bytes begin, and the file's end
  std::uint64_t skip = 0;  ///< records to pass over first
  std::uint64_t rows = std::numeric_limits<std::uint64_t>::max();  ///< records to read then
};

/// This process's rows of the data of `path` (read with `options`), whose header `reader` has read.
/// The file is cut into equal byte shares at line starts; each process counts the records of its own,
/// and then takes the rows from the first multiple of `window` at or after its share's first row
/// (global row numbers) up to the next process's: whole windows, as one process would see them. The
/// rest of the file in a one-process run. Collective: every process must call it. Throws ParseError
/// when a record runs over a share's end (a line break inside quotes).
RowShare my_rows(const std::filesystem::path& path, const CsvOptions& options, const CsvReader& reader,
                 std::uint64_t window);

/// Output and messages written in shares: rank 0 hands its own to `write` and stderr as they come;
/// the others keep theirs (a temporary file, a string) until gather().
class ShareWriter {
 public:
  /// `write` takes rank 0's output text (rank 0 alone calls it).
  explicit ShareWriter(std::function<void(std::string_view)> write);
  ~ShareWriter();
  ShareWriter(const ShareWriter&) = delete;
  ShareWriter& operator=(const ShareWriter&) = delete;

  /// Output text, in input order within this process's share.
  void write(std::string_view text);
  /// A line for stderr, in the same order.
  void message(std::string_view text);
  /// Collective: rank 0 writes and prints every other rank's share after its own, in rank order.
  void gather();

 private:
  std::function<void(std::string_view)> write_;
  std::FILE* kept_ = nullptr;  // ranks above 0: their output until gather()
  std::string messages_;       // ranks above 0: their messages until gather()
};

}  // namespace edgewise::distributed
