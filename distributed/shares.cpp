#include "edgewise/distributed/shares.hpp"

#include <algorithm>
#include <cerrno>
#include <iostream>
#include <limits>
#include <system_error>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/distributed/processes.hpp"

namespace edgewise::distributed {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{4} << 20;

// Sends `text` to rank 0 in chunks, then an empty chunk to end it.
void send_text(std::string_view text) {
  for (std::size_t begin = 0; begin < text.size(); begin += kChunkBytes)
    distributed::send_to(0, text.data() + begin, std::min(kChunkBytes, text.size() - begin));
  distributed::send_to(0, nullptr, 0);
}

void send_file(std::FILE* file) {
  std::rewind(file);
  std::vector<char> chunk(kChunkBytes);
  while (const std::size_t got = std::fread(chunk.data(), 1, chunk.size(), file))
    distributed::send_to(0, chunk.data(), got);
  if (std::ferror(file)) throw Error("cannot read back this process's share of the output");
  distributed::send_to(0, nullptr, 0);
}

// Hands every chunk process `from` sends, up to the empty one, to `take`.
void receive_text(int from, const std::function<void(std::string_view)>& take) {
  std::string chunk;
  for (distributed::receive_from(from, chunk); !chunk.empty(); distributed::receive_from(from, chunk)) take(chunk);
}

}  // namespace

RowShare my_rows(const std::filesystem::path& path, const CsvOptions& options, const CsvReader& reader,
                 std::uint64_t window) {
  constexpr std::uint64_t kToTheEnd = std::numeric_limits<std::uint64_t>::max();
  if (!distributed::active()) return {.start = {.begin = reader.offset(), .end = kToTheEnd}};
  const CsvByteRange bytes = csv_part(path, reader.offset(), distributed::rank(), distributed::size());
  CsvReader counter(path, options);
  counter.restrict_to(bytes);
  std::uint64_t records = 0;
  std::vector<std::string> fields;
  for (std::size_t line = 0; counter.next(fields, line);) ++records;
  // Lines before the share: those of the lower ranks' shares, rank 0's counted from the file's start.
  const std::uint64_t counted_from = distributed::rank() == 0 ? 0 : bytes.begin;
  const std::uint64_t lines_before = distributed::sum_before(count_lines(path, counted_from, bytes.end));
  const std::uint64_t first_row = distributed::sum_before(records);
  const auto window_start = [window](std::uint64_t row) { return (row + window - 1) / window * window; };
  const bool last = distributed::rank() + 1 == distributed::size();
  const std::uint64_t begin = window_start(first_row);
  const std::uint64_t end = last ? std::max(begin, first_row + records) : window_start(first_row + records);
  return {.start = {.begin = bytes.begin, .end = kToTheEnd, .first_line = 1 + lines_before},
          .skip = begin - first_row,
          .rows = end > begin ? end - begin : 0};
}

ShareWriter::ShareWriter(std::function<void(std::string_view)> write) : write_(std::move(write)) {
  if (distributed::rank() == 0) return;
  kept_ = std::tmpfile();
  if (!kept_) throw Error("cannot create a temporary file for this process's share of the output: " +
                          std::generic_category().message(errno));
}

ShareWriter::~ShareWriter() {
  if (kept_) std::fclose(kept_);
}

void ShareWriter::write(std::string_view text) {
  if (!kept_) return write_(text);
  if (std::fwrite(text.data(), 1, text.size(), kept_) != text.size())
    throw Error("cannot write this process's share of the output to a temporary file: " +
                std::generic_category().message(errno));
}

void ShareWriter::message(std::string_view text) {
  if (kept_) {
    messages_ += text;
  } else {
    std::cerr << text;
  }
}

void ShareWriter::gather() {
  if (!distributed::active()) return;
  if (distributed::rank() > 0) {
    send_file(kept_);
    send_text(messages_);
    return;
  }
  for (int from = 1; from < distributed::size(); ++from) {
    receive_text(from, write_);
    receive_text(from, [](std::string_view text) { std::cerr << text; });
  }
}

}  // namespace edgewise::distributed
