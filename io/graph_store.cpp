#include "edgewise/io/graph_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <nlohmann/json.hpp>
#include <system_error>
#include <utility>

#include "edgewise/core/checksum.hpp"
#include "edgewise/core/names.hpp"
#include "edgewise/core/parallel.hpp"
#include "mapped_file.hpp"

namespace edgewise {
namespace {

static_assert(std::endian::native == std::endian::little, "graph stores are written in little-endian order");

// The preamble: magic, format version (uint32), 4 zero bytes, header length (uint64), header SHA-256.
constexpr std::array<char, 8> kMagic = {'E', 'W', 'G', 'S', 'T', 'O', 'R', 'E'};
constexpr std::uint64_t kVersionAt = 8, kHeaderLengthAt = 16, kHeaderDigestAt = 24, kPreambleBytes = 56;
constexpr std::uint64_t kAlignment = 4096;
constexpr std::uint64_t kChunkBytes = std::uint64_t{64} << 20;
// Each chunk's XXH3-128 digest, in hex, under this key of its section's entry.
constexpr const char* kDigestKey = "xxh3_128";
constexpr std::size_t kDigestDigits = 32;
constexpr std::uint64_t kMaxHeaderBytes = std::uint64_t{256} << 20;
// Verification hashes and checks a chunk in blocks that stay in the core's cache between the two.
constexpr std::uint64_t kVerifyBlockBytes = 256 << 10;
// Dense rows are asked for in blocks of this many bytes (64k rows of 64 floats).
constexpr std::uint64_t kRowBlockBytes = 16 << 20;
constexpr Index kMaxNodes = std::numeric_limits<NodeId>::max();
constexpr std::string_view kFormatName = "edgewise graph store";
// Version 2 is version 3 without part stores.
constexpr std::uint32_t kOldestReadVersion = 2;

enum class Dtype { int64, int32, float32, uint8 };
constexpr std::pair<Dtype, std::string_view> kDtypeNames[] = {
    {Dtype::int64, "int64"}, {Dtype::int32, "int32"}, {Dtype::float32, "float32"}, {Dtype::uint8, "uint8"}};

std::uint64_t dtype_size(Dtype dtype) {
  switch (dtype) {
    case Dtype::int64:
      return 8;
    case Dtype::int32:
    case Dtype::float32:
      return 4;
    case Dtype::uint8:
      return 1;
  }
  return 1;
}

std::string dtype_name(Dtype dtype) { return name_of(kDtypeNames, dtype); }

// What the verification pass checks in a section besides its digests.
enum class Content {
  raw,      // nothing
  offsets,  // non-decreasing, each in [0, high]
  ids,      // each in [low, high)
  finite,   // float32 values that are not infinite or NaN
};

std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

std::uint64_t chunk_count(std::uint64_t bytes) { return (bytes + kChunkBytes - 1) / kChunkBytes; }

std::string shape_text(const std::vector<std::uint64_t>& shape) { return "[" + join(shape, ", ") + "]"; }

std::string errno_text(int error) { return std::generic_category().message(error); }

// The first i in [0, n) for which bad(i), or -1; blocks of items are tested in parallel.
template <typename Bad>
Index first_bad(Index n, Bad&& bad) {
  constexpr Index kBlock = Index{1} << 16;
  const Index blocks = (n + kBlock - 1) / kBlock;
  std::vector<Index> found(static_cast<std::size_t>(blocks), -1);
  parallel_for_blocks(n, kBlock, [&](Index begin, Index end) {
    bool any = false;
    for (Index i = begin; i < end; ++i) any |= bad(i);
    if (!any) return;
    for (Index i = begin; i < end; ++i)
      if (bad(i)) {
        found[static_cast<std::size_t>(begin / kBlock)] = i;
        return;
      }
  });
  for (const Index i : found)
    if (i >= 0) return i;
  return -1;
}

bool is_finite(float value) { return (std::bit_cast<std::uint32_t>(value) & 0x7f800000u) != 0x7f800000u; }

// ---------------------------------------------------------------------------------------------------
// Writing

[[noreturn]] void write_error(const std::string& path, const std::string& reason) {
  throw ArgumentError("write_graph_store: " + path + ": " + reason);
}

void pwrite_all(int fd, const void* data, std::uint64_t size, std::uint64_t offset, const std::string& path) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = ::pwrite(fd, bytes, std::min<std::uint64_t>(size, 1u << 30), static_cast<off_t>(offset));
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) throw Error(path + ": write failed: " + errno_text(errno));
    bytes += written;
    size -= static_cast<std::uint64_t>(written);
    offset += static_cast<std::uint64_t>(written);
  }
}

// Appends one section's bytes at its place in the file, hashing each 64 MiB chunk as it fills.
class SectionWriter {
 public:
  SectionWriter(int fd, const std::string& path, std::uint64_t offset) : fd_(fd), path_(path), position_(offset) {}

  void append(const void* data, std::uint64_t size) {
    pwrite_all(fd_, data, size, position_, path_);
    position_ += size;
    const auto* bytes = static_cast<const char*>(data);
    while (size > 0) {
      if (!hash_) hash_ = std::make_unique<Xxh3Digest>();
      const std::uint64_t take = std::min(size, kChunkBytes - in_chunk_);
      hash_->update(bytes, take);
      bytes += take;
      size -= take;
      in_chunk_ += take;
      if (in_chunk_ == kChunkBytes) close_chunk();
    }
  }

  std::vector<std::string> finish() {
    if (in_chunk_ > 0) close_chunk();
    return std::move(digests_);
  }

 private:
  void close_chunk() {
    digests_.push_back(hash_->hex_digest());
    hash_.reset();
    in_chunk_ = 0;
  }

  int fd_;
  const std::string& path_;
  std::uint64_t position_;
  std::uint64_t in_chunk_ = 0;
  std::unique_ptr<Xxh3Digest> hash_;
  std::vector<std::string> digests_;
};

// Bytes held in memory: the chunks are hashed in parallel, then written in one go.
std::vector<std::string> write_view(int fd, const std::string& path, std::uint64_t offset, const void* data,
                                    std::uint64_t size) {
  const auto* bytes = static_cast<const char*>(data);
  std::vector<std::string> digests(chunk_count(size));
  parallel_for_rethrowing(
      static_cast<Index>(digests.size()),
      [&](Index c) {
        const std::uint64_t begin = static_cast<std::uint64_t>(c) * kChunkBytes;
        digests[static_cast<std::size_t>(c)] = xxh3_hex(bytes + begin, std::min(kChunkBytes, size - begin));
      },
      1);
  pwrite_all(fd, data, size, offset, path);
  return digests;
}

// A section as planned: where it goes, and how its bytes are produced.
struct PlannedSection {
  std::string name;
  Dtype dtype;
  std::vector<std::uint64_t> shape;
  std::function<std::vector<std::string>(int fd, const std::string& path, std::uint64_t offset)> write;
  std::uint64_t offset = 0;
  std::vector<std::string> digests = {};

  std::uint64_t bytes() const {
    std::uint64_t count = dtype_size(dtype);
    for (const std::uint64_t extent : shape) count *= extent;
    return count;
  }
};

template <typename T>
PlannedSection view_section(std::string name, Dtype dtype, std::vector<std::uint64_t> shape,
                            std::span<const T> values) {
  return {std::move(name), dtype, std::move(shape), [values](int fd, const std::string& path, std::uint64_t offset) {
            return write_view(fd, path, offset, values.data(), values.size_bytes());
          }};
}

Index checked_nodes(const std::string& path, const GraphStoreSource& source) {
  const InEdges& edges = source.in_edges;
  if (edges.offsets.empty()) write_error(path, "the in-edge offsets are empty (they need N + 1 entries)");
  const Index n = edges.num_nodes(), e = edges.num_edges();
  if (n > kMaxNodes) write_error(path, std::to_string(n) + " nodes, more than 2^31 - 1");
  if (edges.offsets[0] != 0 || edges.offsets[static_cast<std::size_t>(n)] != e)
    write_error(path, "the in-edge offsets do not run from 0 to E = " + std::to_string(e));
  const auto& offsets = edges.offsets;
  const Index bad_offset = first_bad(n, [&](Index i) { return offsets[i + 1] < offsets[i]; });
  if (bad_offset >= 0) write_error(path, "the in-edge offsets decrease after node " + std::to_string(bad_offset));
  const auto& sources = edges.sources;
  const Index bad_source = first_bad(e, [&](Index i) { return sources[i] < 0 || sources[i] >= n; });
  if (bad_source >= 0)
    write_error(path, "in-edge " + std::to_string(bad_source) + " has source " +
                          std::to_string(sources[static_cast<std::size_t>(bad_source)]) + ", not a node id in [0, " +
                          std::to_string(n) + ")");
  return n;
}

void check_sparse(const std::string& path, const SparseFeatureRows& rows, Index n, Index dim) {
  const auto& offsets = rows.offsets;
  const auto nonzeros = static_cast<Index>(rows.columns.size());
  if (static_cast<Index>(offsets.size()) != n + 1 || offsets.front() != 0 || offsets.back() != nonzeros ||
      rows.values.size() != rows.columns.size())
    write_error(path, "the sparse feature rows need N + 1 offsets from 0 to the number of columns and of values");
  if (first_bad(n, [&](Index i) { return offsets[i + 1] < offsets[i]; }) >= 0)
    write_error(path, "the sparse feature offsets decrease");
  const auto& columns = rows.columns;
  const Index bad_column = first_bad(nonzeros, [&](Index i) { return columns[i] < 0 || columns[i] >= dim; });
  if (bad_column >= 0)
    write_error(path, "sparse feature column " + std::to_string(columns[static_cast<std::size_t>(bad_column)]) +
                          " is not in [0, " + std::to_string(dim) + ")");
  const auto& values = rows.values;
  if (first_bad(nonzeros, [&](Index i) { return !is_finite(values[i]); }) >= 0)
    write_error(path, "a sparse feature value is not a finite number");
}

// A part's rows, halo and sent rows as GraphPart has them.
void check_part(const std::string& path, const StorePart& part, Index n, const InEdges& in_edges) {
  const auto parts = static_cast<std::size_t>(part.parts);
  if (part.parts < 1 || part.part < 0 || part.part >= part.parts)
    write_error(path, "part " + std::to_string(part.part) + " of " + std::to_string(part.parts));
  if (static_cast<Index>(part.nodes.size()) != n || part.owned < 0 || part.owned > n || part.whole_nodes < n)
    write_error(path, "the part's rows are not its " + std::to_string(n) + " nodes, own ones first, of a larger graph");
  Index halo = 0;
  for (const Index count : part.halo_counts) halo += count;
  if (part.halo_counts.size() != parts || halo != n - part.owned || part.halo_counts[static_cast<std::size_t>(part.part)] != 0)
    write_error(path, "the halo counts do not count the halo rows by owning part");
  if (in_edges.offsets[static_cast<std::size_t>(part.owned)] != in_edges.num_edges())
    write_error(path, "a halo row has in-edges");
  if (part.sent_offsets.size() != parts + 1 || part.sent_offsets.front() != 0 ||
      part.sent_offsets.back() != static_cast<Index>(part.sent_rows.size()))
    write_error(path, "the sent rows' offsets need parts + 1 entries from 0 to the number of sent rows");
  const auto own = static_cast<std::size_t>(part.part);
  if (part.sent_offsets[own] != part.sent_offsets[own + 1])
    write_error(path, "part " + std::to_string(part.part) + " sends rows to itself");
  const Index whole = part.whole_nodes;
  if (first_bad(n, [&](Index i) { return part.nodes[i] < 0 || part.nodes[i] >= whole; }) >= 0)
    write_error(path, "a row's node is not in the whole graph");
  const auto sent = static_cast<Index>(part.sent_rows.size());
  if (first_bad(sent, [&](Index i) { return part.sent_rows[i] < 0 || part.sent_rows[i] >= part.owned; }) >= 0)
    write_error(path, "a sent row is not an own row");
}

void check_source(const std::string& path, const GraphStoreSource& source, Index n) {
  if (static_cast<bool>(source.dense_rows) == source.sparse_rows.has_value())
    write_error(path, "give the features either as dense rows or as sparse rows, not both or neither");
  if (source.feature_dim < 0 || source.feature_dim > kMaxNodes)
    write_error(path, "feature width " + std::to_string(source.feature_dim) + " is not in [0, 2^31 - 1]");
  if (source.sparse_rows) check_sparse(path, *source.sparse_rows, n, source.feature_dim);
  const auto classes = static_cast<Index>(source.class_names.size());
  const auto& labels = source.labels;
  if (!labels.empty() && static_cast<Index>(labels.size()) != n)
    write_error(path, std::to_string(labels.size()) + " labels for " + std::to_string(n) + " nodes");
  const Index bad_label =
      first_bad(static_cast<Index>(labels.size()), [&](Index i) { return labels[i] < -1 || labels[i] >= classes; });
  if (bad_label >= 0)
    write_error(path, "node " + std::to_string(bad_label) + " has class " +
                          std::to_string(labels[static_cast<std::size_t>(bad_label)]) +
                          ", not -1 or a class id below " + std::to_string(classes));
  if (source.node_names && source.node_names->size() != n)
    write_error(path, std::to_string(source.node_names->size()) + " node names for " + std::to_string(n) + " nodes");
  if (source.part) check_part(path, *source.part, n, source.in_edges);
}

// Whether the names are "0" .. "N-1", which the store then leaves out.
bool named_by_id(const NodeIndex* names) {
  if (!names) return true;
  const Index n = names->size();
  return first_bad(n, [&](Index i) {
           char text[24];
           const auto end = std::to_chars(text, text + sizeof text, i).ptr;
           return names->name(i) != std::string_view(text, static_cast<std::size_t>(end - text));
         }) < 0;
}

// Dense rows in blocks, each checked to be finite before it is written.
std::vector<std::string> write_dense_rows(int fd, const std::string& path, std::uint64_t offset,
                                          const GraphStoreSource& source, Index n) {
  const Index dim = source.feature_dim;
  SectionWriter writer(fd, path, offset);
  if (dim == 0) return writer.finish();
  const Index block = std::clamp<Index>(static_cast<Index>(kRowBlockBytes / sizeof(float)) / dim, 1, Index{1} << 16);
  std::vector<float> rows(static_cast<std::size_t>(std::min(block, n) * dim));
  for (Index first = 0; first < n; first += block) {
    const Index count = std::min(block, n - first);
    source.dense_rows(first, count, rows.data());
    const Index bad = first_bad(count * dim, [&](Index i) { return !is_finite(rows[static_cast<std::size_t>(i)]); });
    if (bad >= 0)
      write_error(path, "feature " + std::to_string(bad % dim) + " of node " + std::to_string(first + bad / dim) +
                            " is not a finite number");
    writer.append(rows.data(), static_cast<std::uint64_t>(count * dim) * sizeof(float));
  }
  return writer.finish();
}

// The names back to back, streamed through a buffer, and where each ends.
std::vector<std::string> write_name_bytes(int fd, const std::string& path, std::uint64_t offset,
                                          const NodeIndex& names) {
  SectionWriter writer(fd, path, offset);
  std::string buffer;
  for (Index i = 0; i < names.size(); ++i) {
    buffer += names.name(i);
    if (buffer.size() >= kRowBlockBytes) {
      writer.append(buffer.data(), buffer.size());
      buffer.clear();
    }
  }
  writer.append(buffer.data(), buffer.size());
  return writer.finish();
}

std::vector<std::string> write_name_ends(int fd, const std::string& path, std::uint64_t offset,
                                         const NodeIndex& names) {
  SectionWriter writer(fd, path, offset);
  std::vector<Index> ends;
  Index end = 0;
  for (Index i = 0; i < names.size(); ++i) {
    ends.push_back(end += static_cast<Index>(names.name(i).size()));
    if (ends.size() * sizeof(Index) >= kRowBlockBytes) {
      writer.append(ends.data(), ends.size() * sizeof(Index));
      ends.clear();
    }
  }
  writer.append(ends.data(), ends.size() * sizeof(Index));
  return writer.finish();
}

std::uint64_t name_bytes(const NodeIndex& names) {
  std::uint64_t bytes = 0;
  for (Index i = 0; i < names.size(); ++i) bytes += names.name(i).size();
  return bytes;
}

std::vector<PlannedSection> plan_sections(const GraphStoreSource& source, Index n, bool by_id) {
  const auto nodes = static_cast<std::uint64_t>(n);
  std::vector<PlannedSection> sections;
  sections.push_back(view_section("in_offsets", Dtype::int64, {nodes + 1}, source.in_edges.offsets));
  sections.push_back(
      view_section("in_sources", Dtype::int32, {source.in_edges.sources.size()}, source.in_edges.sources));
  if (source.sparse_rows) {
    const SparseFeatureRows& rows = *source.sparse_rows;
    sections.push_back(view_section("feature_offsets", Dtype::int64, {nodes + 1}, rows.offsets));
    sections.push_back(view_section("feature_columns", Dtype::int32, {rows.columns.size()}, rows.columns));
    sections.push_back(view_section("feature_values", Dtype::float32, {rows.values.size()}, rows.values));
  } else {
    sections.push_back({"features",
                        Dtype::float32,
                        {nodes, static_cast<std::uint64_t>(source.feature_dim)},
                        [&source, n](int fd, const std::string& path, std::uint64_t offset) {
                          return write_dense_rows(fd, path, offset, source, n);
                        }});
  }
  if (!source.labels.empty()) sections.push_back(view_section("labels", Dtype::int64, {nodes}, source.labels));
  if (!by_id) {
    const NodeIndex& names = *source.node_names;
    sections.push_back(
        {"node_name_ends", Dtype::int64, {nodes}, [&names](int fd, const std::string& path, std::uint64_t offset) {
           return write_name_ends(fd, path, offset, names);
         }});
    sections.push_back({"node_names",
                        Dtype::uint8,
                        {name_bytes(names)},
                        [&names](int fd, const std::string& path, std::uint64_t offset) {
                          return write_name_bytes(fd, path, offset, names);
                        }});
  }
  if (const StorePart* part = source.part) {
    sections.push_back(view_section("part_nodes", Dtype::int32, {nodes}, part->nodes));
    sections.push_back(view_section("sent_offsets", Dtype::int64, {part->sent_offsets.size()}, part->sent_offsets));
    sections.push_back(view_section("sent_rows", Dtype::int64, {part->sent_rows.size()}, part->sent_rows));
  }
  return sections;
}

nlohmann::json section_entries(const std::vector<PlannedSection>& sections) {
  nlohmann::json entries = nlohmann::json::array();
  for (const PlannedSection& section : sections) {
    std::vector<std::string> digests = section.digests;
    digests.resize(chunk_count(section.bytes()), std::string(kDigestDigits, '0'));  // placeholders of the same length
    entries.push_back({{"name", section.name},
                       {"dtype", dtype_name(section.dtype)},
                       {"shape", section.shape},
                       {"offset", section.offset},
                       {"bytes", section.bytes()},
                       {kDigestKey, digests}});
  }
  return entries;
}

nlohmann::json part_fields(const StorePart& part) {
  return {{"part", part.part},
          {"parts", part.parts},
          {"owned", part.owned},
          {"halo_counts", part.halo_counts},
          {"whole", {{"num_nodes", part.whole_nodes}, {"num_edges", part.whole_edges}, {"sha256", part.whole_fingerprint}}}};
}

nlohmann::json header_fields(const GraphStoreSource& source, Index n, bool by_id) {
  const Index e = source.in_edges.num_edges();
  const bool sparse = source.sparse_rows.has_value();
  nlohmann::json fields = {{"format", kFormatName},
          {"num_nodes", n},
          {"num_edges", e},
          {"features",
           {{"layout", sparse ? "sparse" : "dense"},
            {"dim", source.feature_dim},
            {"nonzeros", sparse ? static_cast<Index>(source.sparse_rows->values.size()) : n * source.feature_dim}}},
          {"labels", !source.labels.empty()},
          {"classes", source.class_names},
          {"named_by_id", by_id},
          {"edge_list_nodes", source.edge_list_nodes >= 0 ? source.edge_list_nodes : n},
          {"edge_list_edges", source.edge_list_edges >= 0 ? source.edge_list_edges : e},
          {"input", source.input},
          {"chunk_bytes", kChunkBytes}};
  if (source.part) fields["part"] = part_fields(*source.part);
  return fields;
}

// Places the sections after a header block of `header_block` bytes; returns the file's size.
std::uint64_t place_sections(std::vector<PlannedSection>& sections, std::uint64_t header_block) {
  std::uint64_t end = header_block;
  for (PlannedSection& section : sections) {
    section.offset = round_up(end, kAlignment);
    end = section.offset + section.bytes();
  }
  return end;
}

// The header's text. Digests all have 64 characters, so the text has the same length before the
// sections are written (placeholders) and after: the header block can be sized first.
std::string header_text(nlohmann::json fields, const std::vector<PlannedSection>& sections, std::uint64_t file_bytes) {
  fields["file_bytes"] = file_bytes;
  fields["sections"] = section_entries(sections);
  return fields.dump();
}

// Sizes the header block (offsets in the header change its length, which moves the offsets) and
// places the sections after it; returns the file's size.
std::uint64_t lay_out(const nlohmann::json& fields, std::vector<PlannedSection>& sections) {
  std::uint64_t header_block = kAlignment;
  while (true) {
    const std::uint64_t file_bytes = place_sections(sections, header_block);
    const std::uint64_t needed =
        round_up(kPreambleBytes + header_text(fields, sections, file_bytes).size(), kAlignment);
    if (needed <= header_block) return file_bytes;
    header_block = needed;
  }
}

std::string preamble(const std::string& header) {
  std::string bytes(kMagic.begin(), kMagic.end());
  const std::uint32_t version = kGraphStoreFormatVersion, reserved = 0;
  const std::uint64_t length = header.size();
  bytes.append(reinterpret_cast<const char*>(&version), 4);
  bytes.append(reinterpret_cast<const char*>(&reserved), 4);
  bytes.append(reinterpret_cast<const char*>(&length), 8);
  const std::string digest = sha256_hex(header.data(), header.size());
  const auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (std::size_t i = 0; i < digest.size(); i += 2)
    bytes += static_cast<char>(nibble(digest[i]) * 16 + nibble(digest[i + 1]));
  return bytes;
}

// A descriptor of the temporary file, closed on every path out.
class FileDescriptor {
 public:
  FileDescriptor(const std::string& temporary, const std::string& path)
      : fd_(::open(temporary.c_str(), O_WRONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw Error(path + ": cannot write: " + errno_text(errno));
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  void close(const std::string& path) {
    const int fd = std::exchange(fd_, -1);
    const bool synced = ::fsync(fd) == 0;
    const int error = errno;
    if (::close(fd) != 0 || !synced) throw Error(path + ": write failed: " + errno_text(synced ? errno : error));
  }

 private:
  int fd_;
};

}  // namespace

// AtomicFile appends only, and the header's digests are known only once the sections are written.
// So the sections and then the header go through a second descriptor of AtomicFile's temporary file,
// at offsets planned beforehand: the header block (preamble, JSON, zero padding) is sized from a
// header with placeholder digests of the same length, and written last. AtomicFile still owns the
// temporary file: it removes it on failure and renames it into place on commit.
void write_graph_store(const std::filesystem::path& path, const GraphStoreSource& source, Overwrite overwrite) {
  const std::string name = path.string();
  const Index n = checked_nodes(name, source);
  check_source(name, source, n);
  const bool by_id = named_by_id(source.node_names);
  std::vector<PlannedSection> sections = plan_sections(source, n, by_id);
  const nlohmann::json fields = header_fields(source, n, by_id);
  const std::uint64_t file_bytes = lay_out(fields, sections);
  const std::size_t header_length = header_text(fields, sections, file_bytes).size();

  AtomicFile file(name, overwrite);
  FileDescriptor fd(file.temporary_path(), name);
  for (PlannedSection& section : sections) section.digests = section.write(fd.get(), name, section.offset);
  const std::string header = header_text(fields, sections, file_bytes);
  EDGEWISE_CHECK(header.size() == header_length);
  const std::string block = preamble(header) + header;
  pwrite_all(fd.get(), block.data(), block.size(), 0, name);
  if (::ftruncate(fd.get(), static_cast<off_t>(file_bytes)) != 0)
    throw Error(name + ": write failed: " + errno_text(errno));
  fd.close(name);
  file.commit();
}

GraphStoreSource graph_store_source(const NodeGraph& graph) {
  GraphStoreSource source;
  source.in_edges = graph.graph.in_edges();
  source.feature_dim = graph.features.cols();
  source.dense_rows = [features = graph.features](Index first, Index count, float* out) {
    const Index values = count * features.cols();
    if (values > 0)
      std::memcpy(out, features.data() + first * features.cols(), static_cast<std::size_t>(values) * sizeof(float));
  };
  if (graph.labels.num_classes() > 0) source.labels = graph.labels.classes;
  source.class_names = graph.labels.class_names;
  source.node_names = &graph.nodes;
  source.input = graph.input;
  source.edge_list_nodes = graph.edge_list_nodes;
  source.edge_list_edges = graph.edge_list_edges;
  return source;
}

// ---------------------------------------------------------------------------------------------------
// Reading

namespace {

// A section as the header describes it, with what verification checks in it.
struct Section {
  std::string name;
  Dtype dtype = Dtype::uint8;
  std::vector<std::uint64_t> shape;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  std::vector<std::string> digests;  // of its chunks, in order
  Content content = Content::raw;
  std::int64_t low = 0, high = 0;  // offsets: values in [0, high]; ids: values in [low, high)
};

// An open store: its bytes, what its header says, and views of its sections.
struct StoreState {
  std::filesystem::path path;
  std::string name;  // path, for messages
  detail::MappedFile file;
  const char* bytes = nullptr;  // file's
  std::uint64_t size = 0;

  std::uint32_t version = 0;
  Index num_nodes = 0, num_edges = 0, feature_dim = 0, nonzeros = 0;
  bool sparse = false, by_id = true;
  Index edge_list_nodes = 0, edge_list_edges = 0;
  std::vector<std::string> class_names;
  NodeInputOptions input;
  std::string fingerprint;
  std::optional<StorePart> part;  // its spans set with the other views
  std::vector<Section> sections;

  InEdges in_edges;
  const float* dense = nullptr;
  SparseFeatureRows sparse_rows;
  std::span<const Index> labels;
  std::span<const Index> name_ends;
  const char* names = nullptr;

  [[noreturn]] void fail(const std::string& reason) const { throw StoreFormatError(name + ": " + reason); }

  template <typename T>
  const T* at(const Section& section) const {
    return reinterpret_cast<const T*>(bytes + section.offset);
  }
};

using Mapping = StoreState;

void set_file(Mapping& m, detail::MappedFile file) {
  m.file = std::move(file);
  m.bytes = m.file.data();
  m.size = m.file.size();
}

std::uint64_t read_u64(const char* at) {
  std::uint64_t value = 0;
  std::memcpy(&value, at, 8);
  return value;
}

// The preamble, and the JSON header's text after it, checked against its digest.
std::string_view checked_header(Mapping& m) {
  const std::size_t compared = static_cast<std::size_t>(std::min<std::uint64_t>(m.size, kMagic.size()));
  if (m.size == 0) m.fail("the file is empty: not an edgewise graph store");
  if (std::memcmp(m.bytes, kMagic.data(), compared) != 0)
    m.fail("not an edgewise graph store (it does not start with \"EWGSTORE\")");
  if (m.size < kPreambleBytes)
    m.fail("truncated in the preamble: expected at least " + std::to_string(kPreambleBytes) + " bytes, the file has " +
           std::to_string(m.size));
  std::uint32_t version = 0;
  std::memcpy(&version, m.bytes + kVersionAt, 4);
  if (version > kGraphStoreFormatVersion)
    m.fail("graph store format version " + std::to_string(version) +
           " was written by a newer edgewise (this one reads up to version " +
           std::to_string(kGraphStoreFormatVersion) + ")");
  if (version == 0) m.fail("unknown graph store format version 0 (corrupted bytes?)");
  if (version < kOldestReadVersion)
    m.fail("graph store format version " + std::to_string(version) +
           " (SHA-256 chunk digests) is no longer read: build the store again with `edgewise graph build`");
  const std::uint64_t length = read_u64(m.bytes + kHeaderLengthAt);
  if (length > kMaxHeaderBytes)
    m.fail("the header length " + std::to_string(length) + " is implausible (corrupted bytes?)");
  if (m.size < kPreambleBytes + length)
    m.fail("truncated in the JSON header: expected at least " + std::to_string(kPreambleBytes + length) +
           " bytes, the file has " + std::to_string(m.size));
  const std::string_view header(m.bytes + kPreambleBytes, length);
  m.fingerprint = sha256_hex(header.data(), header.size());
  if (m.fingerprint != to_hex(m.bytes + kHeaderDigestAt, 32))
    m.fail("checksum mismatch in the JSON header: the file is corrupted");
  return header;
}

std::uint64_t unsigned_field(const nlohmann::json& j, const char* key) {
  const nlohmann::json& value = j.at(key);
  if (!value.is_number_unsigned()) throw std::invalid_argument(std::string(key) + " is not a non-negative integer");
  return value.get<std::uint64_t>();
}

Index count_field(const nlohmann::json& j, const char* key, Index most) {
  const std::uint64_t value = unsigned_field(j, key);
  if (value > static_cast<std::uint64_t>(most))
    throw std::invalid_argument(std::string(key) + " = " + std::to_string(value) + " is too large");
  return static_cast<Index>(value);
}

Section section_entry(const nlohmann::json& j) {
  Section section;
  section.name = j.at("name").get<std::string>();
  section.dtype = value_named(kDtypeNames, j.at("dtype").get<std::string>(), "dtype");
  for (const nlohmann::json& extent : j.at("shape")) {
    if (!extent.is_number_unsigned()) throw std::invalid_argument("section " + section.name + ": a bad shape");
    section.shape.push_back(extent.get<std::uint64_t>());
  }
  section.offset = unsigned_field(j, "offset");
  section.bytes = unsigned_field(j, "bytes");
  section.digests = j.at(kDigestKey).get<std::vector<std::string>>();
  return section;
}

// A part store's part, without its sections' views; checked as GraphPart holds it.
StorePart part_entry(const nlohmann::json& j, Index rows) {
  constexpr Index kMaxParts = Index{1} << 20;
  StorePart part;
  part.parts = static_cast<int>(count_field(j, "parts", kMaxParts));
  part.part = static_cast<int>(count_field(j, "part", kMaxParts));
  part.owned = count_field(j, "owned", rows);
  const nlohmann::json& whole = j.at("whole");
  part.whole_nodes = count_field(whole, "num_nodes", kMaxNodes);
  part.whole_edges = count_field(whole, "num_edges", Index{1} << 48);
  part.whole_fingerprint = whole.at("sha256").get<std::string>();
  Index halo = 0;
  for (const nlohmann::json& count : j.at("halo_counts")) {
    if (!count.is_number_unsigned() || count.get<std::uint64_t>() > static_cast<std::uint64_t>(rows))
      throw std::invalid_argument("a halo count is not a row count");
    part.halo_counts.push_back(count.get<Index>());
    halo += part.halo_counts.back();
  }
  if (part.parts < 1 || part.part >= part.parts || part.halo_counts.size() != static_cast<std::size_t>(part.parts) ||
      part.halo_counts[static_cast<std::size_t>(part.part)] != 0 || halo != rows - part.owned || part.whole_nodes < rows)
    throw std::invalid_argument("part " + std::to_string(part.part) + " of " + std::to_string(part.parts) +
                                " does not hold its rows as own nodes, then the halo of the other parts");
  return part;
}

// The store's sizes and options from the header (the sections are checked afterwards).
void read_fields(Mapping& m, const nlohmann::json& header) {
  if (!header.is_object() || header.value("format", "") != kFormatName)
    m.fail("not an edgewise graph store (its JSON header does not say \"format\": \"" + std::string(kFormatName) +
           "\")");
  // Bounds keep every product of sizes below 2^63.
  constexpr Index kMaxCount = Index{1} << 48;
  m.num_nodes = count_field(header, "num_nodes", kMaxNodes);
  m.num_edges = count_field(header, "num_edges", kMaxCount);
  const nlohmann::json& features = header.at("features");
  const std::string layout = features.at("layout").get<std::string>();
  if (layout != "dense" && layout != "sparse") throw std::invalid_argument("unknown feature layout '" + layout + "'");
  m.sparse = layout == "sparse";
  m.feature_dim = count_field(features, "dim", kMaxNodes);
  m.nonzeros = count_field(features, "nonzeros", kMaxCount);
  m.class_names = header.at("classes").get<std::vector<std::string>>();
  m.by_id = header.at("named_by_id").get<bool>();
  m.edge_list_nodes = count_field(header, "edge_list_nodes", kMaxCount);
  m.edge_list_edges = count_field(header, "edge_list_edges", kMaxCount);
  header.at("input").get_to(m.input);
  if (unsigned_field(header, "chunk_bytes") != kChunkBytes)
    throw std::invalid_argument("chunk_bytes is not " + std::to_string(kChunkBytes));
  for (const nlohmann::json& entry : header.at("sections")) m.sections.push_back(section_entry(entry));
  if (header.contains("part")) {
    if (m.version < 3) throw std::invalid_argument("a part of a cut graph in a version 2 store");
    m.part = part_entry(header.at("part"), m.num_nodes);
  }
}

const Section* find_section(const Mapping& m, std::string_view name) {
  for (const Section& section : m.sections)
    if (section.name == name) return &section;
  return nullptr;
}

// A section as a store of the header's sizes must hold it, with the rule verification checks in it.
Section rule(std::string name, Dtype dtype, std::vector<std::uint64_t> shape, Content content, std::int64_t low,
             std::int64_t high) {
  return {std::move(name), dtype, std::move(shape), 0, 0, {}, content, low, high};
}

// The sections of a store of the header's sizes. The non-zeros of sparse features and the bytes of
// the node names are taken from the header's features.nonzeros and node_names section.
std::vector<Section> expected_sections(const Mapping& m, bool labels) {
  const auto n = static_cast<std::uint64_t>(m.num_nodes), e = static_cast<std::uint64_t>(m.num_edges);
  const auto nonzeros = static_cast<std::uint64_t>(m.nonzeros);
  const auto nodes = static_cast<std::int64_t>(n);
  std::vector<Section> rules = {rule("in_offsets", Dtype::int64, {n + 1}, Content::offsets, 0, m.num_edges),
                                rule("in_sources", Dtype::int32, {e}, Content::ids, 0, nodes)};
  if (m.sparse) {
    rules.push_back(rule("feature_offsets", Dtype::int64, {n + 1}, Content::offsets, 0, m.nonzeros));
    rules.push_back(rule("feature_columns", Dtype::int32, {nonzeros}, Content::ids, 0, m.feature_dim));
    rules.push_back(rule("feature_values", Dtype::float32, {nonzeros}, Content::finite, 0, 0));
  } else {
    rules.push_back(
        rule("features", Dtype::float32, {n, static_cast<std::uint64_t>(m.feature_dim)}, Content::finite, 0, 0));
  }
  if (labels)
    rules.push_back(
        rule("labels", Dtype::int64, {n}, Content::ids, -1, static_cast<std::int64_t>(m.class_names.size())));
  if (!m.by_id) {
    const Section* found = find_section(m, "node_names");
    const std::uint64_t bytes = found && found->shape.size() == 1 ? found->shape[0] : 0;
    rules.push_back(rule("node_name_ends", Dtype::int64, {n}, Content::offsets, 0,
                         static_cast<std::int64_t>(std::min(bytes, std::uint64_t{1} << 62))));
    rules.push_back(rule("node_names", Dtype::uint8, {bytes}, Content::raw, 0, 0));
  }
  if (m.part) {
    const Section* found = find_section(m, "sent_rows");
    const std::uint64_t sent = found && found->shape.size() == 1 ? found->shape[0] : 0;
    rules.push_back(rule("part_nodes", Dtype::int32, {n}, Content::ids, 0, m.part->whole_nodes));
    rules.push_back(rule("sent_offsets", Dtype::int64, {static_cast<std::uint64_t>(m.part->parts) + 1},
                         Content::offsets, 0, static_cast<std::int64_t>(std::min(sent, std::uint64_t{1} << 62))));
    rules.push_back(rule("sent_rows", Dtype::int64, {sent}, Content::ids, 0, m.part->owned));
  }
  return rules;
}

// A section's size and place: bytes as its shape says, aligned, one digest a chunk.
void check_section_size(const Mapping& m, const Section& section) {
  std::uint64_t bytes = dtype_size(section.dtype);
  for (const std::uint64_t extent : section.shape)
    if (__builtin_mul_overflow(bytes, extent, &bytes)) m.fail("section " + section.name + " has an impossible shape");
  if (section.bytes != bytes)
    m.fail("section " + section.name + " holds " + std::to_string(section.bytes) + " bytes, its shape needs " +
           std::to_string(bytes));
  if (section.offset % kAlignment != 0)
    m.fail("section " + section.name + " starts at byte " + std::to_string(section.offset) + ", not a multiple of " +
           std::to_string(kAlignment));
  if (section.digests.size() != chunk_count(section.bytes))
    m.fail("section " + section.name + " lists " + std::to_string(section.digests.size()) + " chunk digests for " +
           std::to_string(chunk_count(section.bytes)) + " chunks");
}

// The header's sections are exactly the expected ones, each of the expected dtype and shape; each
// takes its rule for verification.
void check_section_kinds(Mapping& m, bool labels) {
  const std::vector<Section> rules = expected_sections(m, labels);
  for (Section& section : m.sections) {
    const auto expected =
        std::find_if(rules.begin(), rules.end(), [&](const Section& r) { return r.name == section.name; });
    if (expected == rules.end()) m.fail("unexpected section '" + section.name + "'");
    if (section.dtype != expected->dtype || section.shape != expected->shape)
      m.fail("section " + section.name + " is " + dtype_name(section.dtype) + " " + shape_text(section.shape) +
             ", expected " + dtype_name(expected->dtype) + " " + shape_text(expected->shape) + " for " +
             std::to_string(m.num_nodes) + " nodes and " + std::to_string(m.num_edges) + " edges");
    check_section_size(m, section);
    section.content = expected->content;
    section.low = expected->low;
    section.high = expected->high;
  }
  for (const Section& expected : rules) {
    const auto count =
        std::count_if(m.sections.begin(), m.sections.end(), [&](const Section& s) { return s.name == expected.name; });
    if (count != 1) m.fail("section " + expected.name + (count == 0 ? " is missing" : " appears twice"));
  }
}

// Every section within the file, after the header, and nothing after the last one.
void check_extent(const Mapping& m, std::uint64_t header_end, std::uint64_t file_bytes) {
  std::uint64_t end = header_end;
  for (const Section& section : m.sections) {
    if (section.offset < header_end || section.offset > (std::uint64_t{1} << 62) ||
        section.bytes > (std::uint64_t{1} << 62))
      m.fail("section " + section.name + " starts at byte " + std::to_string(section.offset) +
             ", inside the header or beyond any file");
    end = std::max(end, section.offset + section.bytes);
  }
  if (end != file_bytes)
    m.fail("the header says the file has " + std::to_string(file_bytes) + " bytes, its sections end at byte " +
           std::to_string(end));
  if (m.size < file_bytes) {
    std::string cut;
    for (const Section& section : m.sections)
      if (section.offset + section.bytes > m.size && cut.empty()) cut = " (in section " + section.name + ")";
    m.fail("truncated: expected " + std::to_string(file_bytes) + " bytes, the file has " + std::to_string(m.size) +
           cut);
  }
  if (m.size > file_bytes) m.fail(std::to_string(m.size - file_bytes) + " unexpected bytes after the last section");
}

// Whether any of values[begin, end) breaks the section's rule. Bounds are copied into locals and the
// loops have no early exit, so that they vectorize: they run over every byte of the file.
template <typename T>
bool any_bad(const T* values, std::uint64_t begin, std::uint64_t end, Content content, std::int64_t low,
             std::int64_t high) {
  bool bad = false;
  if constexpr (std::is_same_v<T, float>) {
    const auto* bits = reinterpret_cast<const std::uint32_t*>(values);
    for (std::uint64_t i = begin; i < end; ++i) bad |= (bits[i] & 0x7f800000u) == 0x7f800000u;
  } else if (content == Content::offsets) {
    if (begin == 0 && end > 0) bad |= values[0] < 0;
    for (std::uint64_t i = std::max<std::uint64_t>(begin, 1); i < end; ++i) bad |= values[i] < values[i - 1];
    for (std::uint64_t i = begin; i < end; ++i) bad |= values[i] > high;
  } else {
    for (std::uint64_t i = begin; i < end; ++i) bad |= (values[i] < low) | (values[i] >= high);
  }
  return bad;
}

// The first entry of values[begin, end) that breaks the rule, described.
template <typename T>
std::string first_bad_entry(const T* values, std::uint64_t begin, std::uint64_t end, Content content, std::int64_t low,
                            std::int64_t high) {
  std::uint64_t i = begin;
  while (i + 1 < end && !any_bad(values, i, i + 1, content, low, high)) ++i;
  std::string what = "entry " + std::to_string(i) + " is ";
  if constexpr (std::is_same_v<T, float>) {
    return what + "not a finite number";
  } else {
    const auto value = static_cast<std::int64_t>(values[i]);
    what += std::to_string(value);
    if (content == Content::ids) return what + ", outside [" + std::to_string(low) + ", " + std::to_string(high) + ")";
    if (value < 0 || value > high) return what + ", outside [0, " + std::to_string(high) + "]";
    return what + ", below the entry before it";
  }
}

template <typename T>
std::optional<std::string> check_elements(const Mapping& m, const Section& section, std::uint64_t begin,
                                          std::uint64_t end) {
  const T* values = m.at<T>(section);
  if (!any_bad(values, begin, end, section.content, section.low, section.high)) return std::nullopt;
  return first_bad_entry(values, begin, end, section.content, section.low, section.high);
}

std::optional<std::string> check_block(const Mapping& m, const Section& section, std::uint64_t begin,
                                       std::uint64_t end) {
  const std::uint64_t size = dtype_size(section.dtype);
  if (section.content == Content::raw) return std::nullopt;
  if (section.content == Content::finite) return check_elements<float>(m, section, begin / size, end / size);
  if (section.dtype == Dtype::int64) return check_elements<std::int64_t>(m, section, begin / size, end / size);
  return check_elements<std::int32_t>(m, section, begin / size, end / size);
}

// One chunk: its digest and its contents, block by block so that both read the block from cache.
void verify_chunk(const Mapping& m, const Section& section, std::uint64_t chunk) {
  const std::uint64_t begin = chunk * kChunkBytes, end = std::min(begin + kChunkBytes, section.bytes);
  Xxh3Digest hash;
  std::optional<std::string> problem;
  for (std::uint64_t block = begin; block < end; block += kVerifyBlockBytes) {
    const std::uint64_t block_end = std::min(block + kVerifyBlockBytes, end);
    hash.update(m.bytes + section.offset + block, block_end - block);
    if (!problem) problem = check_block(m, section, block, block_end);
  }
  if (hash.hex_digest() != section.digests[chunk])
    m.fail("checksum mismatch in section " + section.name + " (chunk " + std::to_string(chunk + 1) + " of " +
           std::to_string(section.digests.size()) + ", bytes " + std::to_string(section.offset + begin) + " to " +
           std::to_string(section.offset + end) + " of the file): the file is corrupted");
  if (problem) m.fail("section " + section.name + ": " + *problem);
}

void verify_sections(const Mapping& m) {
  std::vector<std::pair<const Section*, std::uint64_t>> chunks;
  for (const Section& section : m.sections)
    for (std::uint64_t c = 0; c < section.digests.size(); ++c) chunks.emplace_back(&section, c);
  parallel_for_rethrowing(
      static_cast<Index>(chunks.size()),
      [&](Index i) {
        const auto& [section, chunk] = chunks[static_cast<std::size_t>(i)];
        verify_chunk(m, *section, chunk);
      },
      1);
}

// A part's views, and what its rows' order promises: own nodes ascending, halo rows without in-edges,
// no rows sent to the part itself.
void set_part_views(const Mapping& m, StorePart& part) {
  const Section& sent = *find_section(m, "sent_rows");
  part.nodes = {m.at<NodeId>(*find_section(m, "part_nodes")), static_cast<std::size_t>(m.num_nodes)};
  part.sent_offsets = {m.at<Index>(*find_section(m, "sent_offsets")), static_cast<std::size_t>(part.parts) + 1};
  part.sent_rows = {m.at<Index>(sent), static_cast<std::size_t>(sent.shape[0])};
  if (part.sent_offsets.front() != 0 || part.sent_offsets.back() != static_cast<Index>(sent.shape[0]))
    m.fail("section sent_offsets does not run from 0 to the " + std::to_string(sent.shape[0]) + " sent rows");
  const auto own = static_cast<std::size_t>(part.part);
  if (part.sent_offsets[own] != part.sent_offsets[own + 1]) m.fail("part " + std::to_string(part.part) + " sends rows to itself");
  if (m.in_edges.offsets[static_cast<std::size_t>(part.owned)] != m.num_edges) m.fail("a halo row has in-edges");
  for (Index r = 1; r < part.owned; ++r)
    if (part.nodes[r] <= part.nodes[r - 1]) m.fail("section part_nodes: own row " + std::to_string(r) + " is out of order");
}

// Views of the sections; the offsets' ends, which the chunk checks do not see whole.
void set_views(Mapping& m) {
  const auto n = static_cast<std::size_t>(m.num_nodes);
  const Section& offsets = *find_section(m, "in_offsets");
  const Section& sources = *find_section(m, "in_sources");
  m.in_edges = {{m.at<Index>(offsets), n + 1}, {m.at<NodeId>(sources), static_cast<std::size_t>(m.num_edges)}};
  if (m.in_edges.offsets.front() != 0 || m.in_edges.offsets.back() != m.num_edges)
    m.fail("section in_offsets does not run from 0 to E = " + std::to_string(m.num_edges));
  if (m.sparse) {
    const Section& columns = *find_section(m, "feature_columns");
    const std::size_t nonzeros = columns.shape[0];
    m.sparse_rows = {{m.at<Index>(*find_section(m, "feature_offsets")), n + 1},
                     {m.at<std::int32_t>(columns), nonzeros},
                     {m.at<float>(*find_section(m, "feature_values")), nonzeros}};
    if (m.sparse_rows.offsets.front() != 0 || m.sparse_rows.offsets.back() != static_cast<Index>(nonzeros))
      m.fail("section feature_offsets does not run from 0 to the " + std::to_string(nonzeros) + " non-zeros");
  } else {
    m.dense = m.at<float>(*find_section(m, "features"));
  }
  if (const Section* labels = find_section(m, "labels")) m.labels = {m.at<Index>(*labels), n};
  if (!m.by_id) {
    const Section& names = *find_section(m, "node_names");
    m.name_ends = {m.at<Index>(*find_section(m, "node_name_ends")), n};
    m.names = m.bytes + names.offset;
    if (n > 0 && m.name_ends.back() != static_cast<Index>(names.bytes))
      m.fail("section node_name_ends does not end at the " + std::to_string(names.bytes) + " bytes of node_names");
  }
  if (m.part) set_part_views(m, *m.part);
}

void parse(Mapping& m) {
  const std::string_view header_bytes = checked_header(m);
  std::memcpy(&m.version, m.bytes + kVersionAt, 4);
  std::uint64_t file_bytes = 0;
  bool labels = false;
  try {
    const nlohmann::json header = nlohmann::json::parse(header_bytes);
    read_fields(m, header);
    labels = header.at("labels").get<bool>();
    file_bytes = unsigned_field(header, "file_bytes");
  } catch (const StoreFormatError&) {
    throw;
  } catch (const std::exception& e) {  // nlohmann's errors, and ArgumentError for an unknown name
    m.fail(std::string("malformed JSON header: ") + e.what());
  }
  check_section_kinds(m, labels);
  check_extent(m, kPreambleBytes + header_bytes.size(), file_bytes);
  m.file.will_need();  // verification reads every page
  verify_sections(m);
  set_views(m);
}

}  // namespace

struct GraphStore::Mapping : StoreState {};

GraphStore::GraphStore(std::unique_ptr<Mapping> mapping) : mapping_(std::move(mapping)) {}
GraphStore::GraphStore(GraphStore&&) noexcept = default;
GraphStore& GraphStore::operator=(GraphStore&&) noexcept = default;
GraphStore::~GraphStore() = default;

GraphStore GraphStore::open(const std::filesystem::path& path) {
  auto mapping = std::make_unique<Mapping>();
  mapping->path = path;
  mapping->name = path.string();
  set_file(*mapping, detail::MappedFile::open(path));
  parse(*mapping);
  return GraphStore(std::move(mapping));
}

GraphStore GraphStore::from_bytes(std::string_view bytes, const std::filesystem::path& name) {
  auto mapping = std::make_unique<Mapping>();
  mapping->path = name;
  mapping->name = name.string();
  set_file(*mapping, detail::MappedFile::copy_of(bytes));
  parse(*mapping);
  return GraphStore(std::move(mapping));
}

const std::filesystem::path& GraphStore::path() const { return mapping_->path; }
std::uint32_t GraphStore::format_version() const { return mapping_->version; }
std::uint64_t GraphStore::file_size() const { return mapping_->size; }
Index GraphStore::num_nodes() const { return mapping_->num_nodes; }
Index GraphStore::num_edges() const { return mapping_->num_edges; }
InEdges GraphStore::in_edges() const { return mapping_->in_edges; }

void GraphStore::release_edge_pages() const {
  const InEdges& edges = mapping_->in_edges;
  mapping_->file.dont_need(edges.offsets.data(), edges.offsets.size_bytes());
  mapping_->file.dont_need(edges.sources.data(), edges.sources.size_bytes());
}
Index GraphStore::feature_dim() const { return mapping_->feature_dim; }

std::optional<SparseFeatureRows> GraphStore::sparse_features() const {
  if (!mapping_->sparse) return std::nullopt;
  return mapping_->sparse_rows;
}

void GraphStore::gather_features(std::span<const NodeId> nodes, float* out) const {
  const Index n = num_nodes(), dim = feature_dim();
  for (const NodeId node : nodes)
    if (node < 0 || node >= n)
      throw ArgumentError("gather_features: node " + std::to_string(node) + " is not in [0, " + std::to_string(n) +
                          ")");
  const Mapping& m = *mapping_;
  parallel_for_blocks(static_cast<Index>(nodes.size()), 1024, [&](Index begin, Index end) {
    for (Index i = begin; i < end; ++i) {
      float* row = out + i * dim;
      const Index node = nodes[static_cast<std::size_t>(i)];
      if (!m.sparse) {
        if (dim > 0) std::memcpy(row, m.dense + node * dim, static_cast<std::size_t>(dim) * sizeof(float));
        continue;
      }
      std::fill(row, row + dim, 0.0f);
      for (Index k = m.sparse_rows.offsets[node]; k < m.sparse_rows.offsets[node + 1]; ++k)
        row[m.sparse_rows.columns[k]] = m.sparse_rows.values[k];
    }
  });
}

Matrix<float> GraphStore::feature_matrix() const {
  std::vector<NodeId> all(static_cast<std::size_t>(num_nodes()));
  std::iota(all.begin(), all.end(), NodeId{0});
  Matrix<float> features(num_nodes(), feature_dim());
  gather_features(all, features.data());
  return features;
}

std::span<const Index> GraphStore::labels() const { return mapping_->labels; }
const std::vector<std::string>& GraphStore::class_names() const { return mapping_->class_names; }

std::string GraphStore::node_name(Index id) const {
  if (id < 0 || id >= num_nodes())
    throw std::out_of_range("node " + std::to_string(id) + " is not in [0, " + std::to_string(num_nodes()) + ")");
  if (mapping_->by_id) return std::to_string(mapping_->part ? Index{mapping_->part->nodes[id]} : id);
  const Index begin = id == 0 ? 0 : mapping_->name_ends[id - 1];
  return {mapping_->names + begin, static_cast<std::size_t>(mapping_->name_ends[id] - begin)};
}

bool GraphStore::named_by_id() const { return mapping_->by_id; }
const NodeInputOptions& GraphStore::input() const { return mapping_->input; }
Index GraphStore::edge_list_nodes() const { return mapping_->edge_list_nodes; }
Index GraphStore::edge_list_edges() const { return mapping_->edge_list_edges; }
const std::string& GraphStore::fingerprint() const { return mapping_->fingerprint; }
const StorePart* GraphStore::part() const { return mapping_->part ? &*mapping_->part : nullptr; }

NodeGraph GraphStore::to_node_graph() const {
  if (const StorePart* part = this->part())
    throw ArgumentError(mapping_->name + ": part " + std::to_string(part->part) + " of " + std::to_string(part->parts) +
                        " of a cut graph, not a whole graph; train on the parts with `mpirun -np " +
                        std::to_string(part->parts) + "` and --graph their folder");
  const Index n = num_nodes();
  // A store may hold more features than memory does, sparse ones above all.
  constexpr Index kMaxValues = Index{1} << 32;
  if (feature_dim() > 0 && n > kMaxValues / feature_dim())
    throw ArgumentError(mapping_->name + ": " + std::to_string(n) + " x " + std::to_string(feature_dim()) +
                        " features are more than to_node_graph copies into memory (2^32 values); read them with "
                        "gather_features");
  NodeGraph data;
  for (Index id = 0; id < n; ++id) {
    const Index added = data.nodes.add(node_name(id));
    if (added != id)
      mapping_->fail("nodes " + std::to_string(added) + " and " + std::to_string(id) + " share the name '" +
                     node_name(id) + "'");
  }
  data.graph = Graph::from_in_edges(in_edges());
  data.features = feature_matrix();
  const std::span<const Index> stored = labels();
  data.labels.classes.assign(stored.begin(), stored.end());
  data.labels.class_names = class_names();
  data.labels.extend_to(n);
  data.input = input();
  data.edge_list_nodes = edge_list_nodes();
  data.edge_list_edges = edge_list_edges();
  return data;
}

}  // namespace edgewise
