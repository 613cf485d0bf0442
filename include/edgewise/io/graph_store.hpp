/// \file
/// The binary graph store (.ewg): a node-classification graph converted once from its text files (or
/// generated), then memory-mapped by every later run, with no parse. It holds the graph attention runs
/// on as CSR by destination, the node features (dense float32 rows or CSR), labels and class names,
/// node names (none when the nodes are named 0 .. N-1) and the input options it was read with.
///
///   write_graph_store("g.ewg", source);             // once
///   GraphStore store = GraphStore::open("g.ewg");   // maps it; checks the header, layout and checksums
///   InEdges edges = store.in_edges();               // views of the mapped file
///
/// The file is versioned and checksummed like a model file; a truncated, foreign, corrupted or newer
/// file is refused with a StoreFormatError (core/error.hpp) naming it and the reason.
///
/// Layout (little-endian): a 56-byte preamble (the magic "EWGSTORE", the format version as uint32, 4
/// zero bytes, the JSON header's length as uint64 and its SHA-256), the JSON header, then the binary
/// sections, each starting at a multiple of 4096 bytes so that the views are aligned for any type:
///
///   in_offsets      int64 [N + 1]        CSR by destination
///   in_sources      int32 [E]
///   features        float32 [N, dim]     dense layout, row-major
///   feature_offsets int64 [N + 1]        sparse layout: CSR by node
///   feature_columns int32 [non-zeros]
///   feature_values  float32 [non-zeros]
///   labels          int64 [N]            optional: class ids, -1 unlabeled
///   node_name_ends  int64 [N]            optional (absent when the nodes are named "0" .. "N-1"):
///   node_names      uint8 [bytes]        every name back to back, name i ending at node_name_ends[i]
///   part_nodes      int32 [N]            part stores only (StorePart): each row's node in the whole graph
///   sent_offsets    int64 [parts + 1]    part stores only: CSR of sent_rows by receiving part
///   sent_rows       int64 [sent]         part stores only
///
/// The header lists each section's name, dtype, shape, byte offset and size, and the XXH3-128 digest of each
/// 64 MiB chunk of it, so that opening verifies the chunks in parallel; beside them N, E, the feature
/// layout and width, the class names, whether nodes are named by id, the edge-list counts of the
/// NodeGraph and the NodeInputOptions, in the JSON form model files use.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"
#include "edgewise/io/node_graph.hpp"

namespace edgewise {

/// File extension of graph stores; `--graph` takes any name, this is what the tools write.
inline constexpr std::string_view kGraphStoreExtension = ".ewg";

/// The format version write_graph_store writes. Version 3 added part stores (StorePart); open reads
/// versions 2 and 3. Version 1 listed SHA-256 chunk digests, which took most of the time to open a
/// store; open refuses it, asking for a rebuild.
inline constexpr std::uint32_t kGraphStoreFormatVersion = 3;

/// What a part store holds beyond any store: which part of which whole graph its rows are. `edgewise
/// graph partition --stores` writes one a part, so that each process of a distributed training maps
/// only its own nodes and their halo (graph/partition.hpp's GraphPart, whose rows it keeps): the store's
/// nodes are those rows, its in-edges the own nodes' in-edges (halo rows have none), its labels the own
/// nodes' (halo rows are unlabeled) and its names the rows' names in the whole graph.
struct StorePart {
  int part = 0;   ///< this part's number
  int parts = 1;  ///< the number of parts
  Index owned = 0;                 ///< rows [0, owned) are own nodes, the rest the halo
  std::vector<Index> halo_counts;  ///< [parts]: halo rows each part owns, as GraphPart::halo_counts
  std::span<const NodeId> nodes;   ///< [rows]: each row's node id in the whole graph
  /// The own rows each other part holds in its halo (GraphPart::sent_rows), as CSR by that part:
  /// part q's are sent_rows[sent_offsets[q] .. sent_offsets[q + 1]).
  /// @{
  std::span<const Index> sent_offsets;  // [parts + 1]
  std::span<const Index> sent_rows;
  /// @}
  Index whole_nodes = 0;           ///< N of the whole graph
  Index whole_edges = 0;           ///< E of the whole graph
  std::string whole_fingerprint;   ///< GraphStore::fingerprint of the whole graph's store
};

/// Features in CSR by node, as views: node i's non-zeros are columns[offsets[i] ..] with values[..].
struct SparseFeatureRows {
  std::span<const Index> offsets;         ///< [N + 1]
  std::span<const std::int32_t> columns;  ///< [non-zeros], each in [0, dim)
  std::span<const float> values;          ///< [non-zeros]
};

/// What write_graph_store writes. Dense features come from `dense_rows`, which fills rows first ..
/// first + count - 1 into `out` ([count, feature_dim], row-major), so they are streamed to the file
/// and never held whole; sparse features are given as views instead. Labels and names are optional.
struct GraphStoreSource {
  InEdges in_edges;       ///< the graph attention runs on, self-loops and reverse edges included
  Index feature_dim = 0;  ///< width of every feature row
  std::function<void(Index first, Index count, float* out)> dense_rows = {};  ///< set for dense features
  std::optional<SparseFeatureRows> sparse_rows = std::nullopt;                ///< set for sparse features instead
  std::span<const Index> labels = {};         ///< [N] class ids, -1 unlabeled; empty: no labels
  std::vector<std::string> class_names = {};  ///< by class id
  const NodeIndex* node_names = nullptr;      ///< null: the nodes are named "0" .. "N-1"
  NodeInputOptions input = {};                ///< how the graph and features were made
  /// NodeGraph::edge_list_nodes and edge_list_edges, recorded so that to_node_graph gives them back;
  /// -1: N and E (a graph that was not read from an edge list).
  /// @{
  Index edge_list_nodes = -1;
  Index edge_list_edges = -1;
  /// @}
  const StorePart* part = nullptr;  ///< set for a part store
};

/// Writes `source` to `path` atomically (a temporary file renamed into place), refusing an existing
/// file unless overwrite allows it. Dense rows are asked for in blocks of at most 64k rows (16 MiB),
/// written and hashed as they come, so memory stays flat whatever the size of the features. Throws
/// ArgumentError on inconsistent sizes (in-edges that are not a CSR, labels not [N], a class id out of
/// range, a sparse column out of range, node names not [N], both or neither feature kind) and on a
/// feature that is not finite, and Error when the file exists and overwrite is refuse or cannot be
/// written; the target is then left as it was.
void write_graph_store(const std::filesystem::path& path, const GraphStoreSource& source,
                       Overwrite overwrite = Overwrite::refuse);

/// A graph store mapped into memory, read-only. The views it returns live as long as it does. Movable,
/// not copyable; safe to read from many threads.
class GraphStore {
 public:
  /// Maps `path` and validates it: header, format version, section layout against the file size,
  /// and the XXH3-128 digest of every chunk. Throws StoreFormatError naming the file and what is wrong
  /// (also when it cannot be read).
  static GraphStore open(const std::filesystem::path& path);
  /// A store held in memory (a copy of `bytes`), validated as open does; `name` stands for the file
  /// in messages. For stores that arrive other than as files, and for fuzzing the reader.
  static GraphStore from_bytes(std::string_view bytes, const std::filesystem::path& name);

  GraphStore(GraphStore&&) noexcept;             ///< Takes over the mapping.
  GraphStore& operator=(GraphStore&&) noexcept;  ///< Takes over the mapping.
  ~GraphStore();                                 ///< Unmaps the file.

  /// The file it was opened from.
  const std::filesystem::path& path() const;
  /// The format version it was written in.
  std::uint32_t format_version() const;
  /// Its size in bytes.
  std::uint64_t file_size() const;
  /// N and E.
  /// @{
  Index num_nodes() const;
  Index num_edges() const;
  /// @}
  /// The graph's in-edges, viewing the mapped file.
  InEdges in_edges() const;
  /// Lets the kernel take the mapped in-edges' pages out of this process's memory (they stay in the
  /// page cache, and the views stay valid: a page is read again when next touched), for a caller that
  /// has copied what it needs of them, as link training copies the training links.
  void release_edge_pages() const;

  /// Width of the feature rows.
  Index feature_dim() const;
  /// The sparse features; nullopt when they are stored dense.
  std::optional<SparseFeatureRows> sparse_features() const;
  /// The rows of `nodes` into `out` ([nodes.size(), feature_dim], row-major), from either layout.
  /// Throws ArgumentError for a node id outside [0, N).
  void gather_features(std::span<const NodeId> nodes, float* out) const;
  /// Every row's features, [N, feature_dim], from either layout (sparse ones densified).
  Matrix<float> feature_matrix() const;

  /// Class ids [N], -1 unlabeled; empty when the store has no labels.
  std::span<const Index> labels() const;
  /// Class names by id.
  const std::vector<std::string>& class_names() const;
  /// The name of node `id`: its stored name, or its id in decimal when the store has no names (a part
  /// store's id in the whole graph). Throws
  /// std::out_of_range for an id outside [0, N), as NodeIndex::name does.
  std::string node_name(Index id) const;
  /// Whether the nodes are named by their ids, "0" .. "N-1".
  bool named_by_id() const;
  /// How the graph and its features were made.
  const NodeInputOptions& input() const;
  /// NodeGraph::edge_list_nodes and edge_list_edges of the graph it was written from (N and E for a
  /// graph that was not read from an edge list).
  /// @{
  Index edge_list_nodes() const;
  Index edge_list_edges() const;
  /// @}
  /// What part of a whole graph the store holds; null for a store of a whole graph.
  const StorePart* part() const;
  /// A digest of the whole store, for checkpoints and model files to tell which graph they saw: the
  /// SHA-256 of its JSON header, which holds the digest of every chunk of every section (hex).
  const std::string& fingerprint() const;

  /// The whole graph in memory, as read_node_graph would give it, for full-batch training: the graph
  /// (its edge order is the CSR order), the features as a dense matrix (sparse ones densified), the
  /// labels (every node unlabeled when the store has none), the node names ("0" .. "N-1" for a store
  /// named by id), the input options, and edge_list_nodes and edge_list_edges as recorded. Throws
  /// StoreFormatError when two nodes share a name, and ArgumentError for a part store or when
  /// N x feature_dim exceeds 2^32 values (16 GiB), which gather_features reads a block at a time instead.
  NodeGraph to_node_graph() const;

 private:
  struct Mapping;
  explicit GraphStore(std::unique_ptr<Mapping> mapping);
  std::unique_ptr<Mapping> mapping_;
};

/// The store's NodeGraph contents as a GraphStoreSource viewing `graph` (which must outlive it).
GraphStoreSource graph_store_source(const NodeGraph& graph);

}  // namespace edgewise
