/// \file
/// Readers for graphs stored as text files, for node classification: edge lists, node labels and node
/// features, in the layouts of SNAP, MUSAE and Planetoid exports (docs/graph_files.md has examples).
///
/// Files name their nodes with integers or strings; edgewise numbers them densely, 0 .. n-1, in order
/// of first appearance. One NodeIndex holds that numbering: the edge list creates it, the label and
/// feature readers look nodes up in it (and may add nodes to it), and outputs name nodes through it.
/// Read every file before building the graph, since later files may add nodes:
///
///   EdgeList edges = read_edge_list(dir / "edges.txt");
///   NodeLabels labels = read_node_labels(dir / "labels.txt", edges.nodes);
///   NodeFeatures features = read_node_features(dir / "features.txt", edges.nodes);
///   Graph graph = edges.to_graph();
///
/// Text files hold one record a line, LF or CRLF; blank lines and lines whose first non-blank
/// character is '#' or '%' are skipped; a UTF-8 byte order mark is ignored. Fields are separated by
/// commas on a line that has one, else by runs of spaces and tabs, unless an explicit delimiter is
/// given. Fields split at a comma or an explicit delimiter (a TSV's tab) are read as RFC 4180 has
/// them, as csv.hpp's reader does: a field that starts with '"' runs to the closing quote, may hold
/// delimiters and line breaks, and writes a quote as "" (MUSAE's page names). Every ParseError names
/// the file, the 1-based line, the column (1-based field) where one is at fault, and the offending
/// token.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "edgewise/core/names.hpp"
#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

/// Dense node ids by name and back. The names are kept back to back in one buffer and found through
/// an open-addressing table of ids, about 20 bytes a node beside the names' characters: a graph of
/// millions of nodes keeps its names in a fraction of its edges' memory.
class NodeIndex {
 public:
  /// The number of nodes numbered so far.
  Index size() const { return static_cast<Index>(name_ends_.size()); }

  /// The id of `name`, numbering it next if it is new. Throws GraphError beyond 2^31 - 1 nodes.
  Index add(std::string_view name);
  /// The id of `name`, or nullopt if it has none.
  std::optional<Index> find(std::string_view name) const;
  /// The name of node `id`; throws std::out_of_range for an id not in [0, size()).
  std::string_view name(Index id) const;
  /// Every name, indexed by id (a copy).
  std::vector<std::string> names() const;

 private:
  std::size_t slot_of(std::string_view name) const;
  void grow_table();

  std::string text_;                    // every name, back to back
  std::vector<std::size_t> name_ends_;  // [size()]: where each name ends in text_
  std::vector<NodeId> slots_;           // a power of two, at most half full: an id, or -1 when empty
};

/// How node names are written. Integer names must lie in [0, 2^64 - 1] and are compared by value
/// ("007" and "7" are one node, named "7"); string names are compared as written, after trimming.
enum class NodeIds { integer, string };

/// The names model files and command lines use.
inline constexpr std::pair<NodeIds, std::string_view> kNodeIdsNames[] = {{NodeIds::integer, "integer"},
                                                                          {NodeIds::string, "string"}};

/// Whether the first record is a header. `detect` takes it for one when one of its node fields is
/// text other than an integer ("id_1,id_2", "id,target"), which only works with integer ids: with
/// string ids, `detect` reads no header.
enum class Header { detect, present, absent };

/// What a label or feature file may say about a node that the index does not have yet.
enum class UnknownNodes {
  error,  ///< ParseError naming the file and line
  add,    ///< number it next, as a node without edges
};

/// How read_edge_list reads a file.
struct EdgeListOptions {
  NodeIds ids = NodeIds::integer;  ///< How nodes are named.
  Header header = Header::detect;  ///< Whether the first record is a header.
  std::optional<char> delimiter = std::nullopt;  ///< separates fields exactly (each trimmed); nullopt: see the top
  bool directed = false;                         ///< false: "u v" joins u and v both ways, and "v u" repeats it
};

/// How EdgeList::to_graph builds the graph.
struct EdgeListBuildOptions {
  bool add_self_loops = true;  ///< one i -> i for each node that has none, so attention sees the node itself
};

/// The edges of a file, numbered by `nodes`. Duplicates are merged: `edges` holds each distinct edge
/// once, as first written (undirected: one direction per pair). Self-loops are kept; columns after
/// the first two (weights) are ignored.
struct EdgeList {
  std::string source;  ///< The file name (or the source given to parse_edge_list), for messages.
  NodeIndex nodes;  ///< The numbering of the nodes, including those of the `nodes` argument.
  std::vector<std::pair<NodeId, NodeId>> edges;  ///< (source, target) ids, each distinct edge once.
  bool directed = false;  ///< As read with EdgeListOptions::directed.

  /// The graph on every node of `nodes`, including nodes that other files added and that have no
  /// edges. Undirected lists give both directions of each edge; the edge order is `edges`, then the
  /// reverse edges, then the added self-loops (Graph's option order).
  Graph to_graph(const EdgeListBuildOptions& options = {}) const;
  /// The same graph, built while handing back the memory of `edges`, which is empty afterwards: for
  /// large files, where the list and the graph would not fit side by side.
  Graph take_graph(const EdgeListBuildOptions& options = {});
};

/// Reads an edge list. `nodes` may already number some names (from a node list, to keep its ids);
/// new names are numbered after them. Throws ParseError for a line with fewer than two fields, an
/// empty id, an integer id that is not an integer, negative or above 2^64 - 1, and a file without
/// any edge (empty, or only comments and a header); Error when the file cannot be read.
EdgeList read_edge_list(const std::filesystem::path& path, const EdgeListOptions& options = {}, NodeIndex nodes = {});
/// read_edge_list on text held in memory; `source` names it in messages.
EdgeList parse_edge_list(std::string_view text, std::string source, const EdgeListOptions& options = {},
                         NodeIndex nodes = {});

/// A column of a labels file: its 0-based index, or the name the file's header gives it.
using FileColumn = std::variant<Index, std::string>;

/// How read_node_labels reads a file.
struct LabelOptions {
  NodeIds ids = NodeIds::integer;  ///< How nodes are named.
  Header header = Header::detect;  ///< Whether the first record is a header; a column named here implies one.
  std::optional<char> delimiter = std::nullopt;  ///< As in EdgeListOptions.
  FileColumn node_column = Index{0};   ///< MUSAE's ENGB_target.csv: 5, or "new_id"
  FileColumn label_column = Index{1};  ///< MUSAE's ENGB_target.csv: 2, or "mature"
  UnknownNodes unknown_nodes = UnknownNodes::error;  ///< Nodes the index does not have yet.
};

/// Labels as classes 0 .. num_classes() - 1. Class order is stable: numeric when every label is an
/// integer (labels 3, 10, 7 give classes 0, 1, 2 for 3, 7, 10), else by first appearance.
struct NodeLabels {
  std::vector<Index> classes;            ///< [N]: the class of each node, -1 where unlabeled
  std::vector<std::string> class_names;  ///< [num_classes]: each class's label (integers by value)
  std::vector<std::size_t> class_lines = {};  ///< [num_classes]: each label's first line; empty if not read

  /// The number of distinct labels.
  Index num_classes() const { return static_cast<Index>(class_names.size()); }
  /// The number of nodes with a label.
  Index num_labeled() const;
  /// Covers nodes added to the index after the labels were read: they are unlabeled.
  void extend_to(Index num_nodes);
};

/// Reads `node label` records; nodes without a record, or with an empty label field ("5," in a CSV),
/// are unlabeled. The same label twice for a node is accepted. Throws ParseError for a record
/// without the two columns, a node the index does not have (unless options.unknown_nodes is add), a
/// node given two different labels, and the id errors of read_edge_list.
NodeLabels read_node_labels(const std::filesystem::path& path, NodeIndex& nodes, const LabelOptions& options = {});
/// read_node_labels on text held in memory; `source` names it in messages.
NodeLabels parse_node_labels(std::string_view text, std::string source, NodeIndex& nodes,
                             const LabelOptions& options = {});

/// How node features are stored.
enum class FeatureFormat {
  dense,       ///< node, then dim values
  sparse,      ///< node, then feature indices (value 1) or index:value pairs; absent indices are 0
  musae_json,  ///< {"node": [feature index, ...], ...}: binary features
  structural,  ///< computed from the graph by structural_features, not read
};

/// The names model files use.
inline constexpr std::pair<FeatureFormat, std::string_view> kFeatureFormatNames[] = {
    {FeatureFormat::dense, "dense"},
    {FeatureFormat::sparse, "sparse"},
    {FeatureFormat::musae_json, "musae_json"},
    {FeatureFormat::structural, "structural"},
};

/// The name used in docs and model files ("dense", "sparse", "musae_json", "structural"), and back;
/// feature_format_from_name throws ArgumentError for an unknown name.
/// @{
std::string feature_format_name(FeatureFormat format);
FeatureFormat feature_format_from_name(std::string_view name);
/// @}

/// What a model needs to know to featurize nodes the same way again.
struct FeatureSpec {
  FeatureFormat format = FeatureFormat::sparse;  ///< How the features were read or computed.
  Index dim = 0;  ///< The number of feature columns.
  Index max_degree = 0;  ///< structural only
  Index walk_steps = 0;  ///< structural only
};

/// How read_node_features reads a file.
struct FeatureOptions {
  FeatureFormat format = FeatureFormat::sparse;  ///< dense, sparse or musae_json.
  Index dim = 0;  ///< 0: inferred (dense: the values on the first record; else the largest index + 1)
  NodeIds ids = NodeIds::integer;  ///< How nodes are named.
  /// Text formats only. Fields after the node are split further at spaces and tabs, so that
  /// "node<TAB>3 17 42" holds three indices whatever the delimiter.
  Header header = Header::detect;
  std::optional<char> delimiter = std::nullopt;  ///< As in EdgeListOptions.
  std::size_t skip_fields = 0;  ///< fields between the node and its values (Cora's nodes.tsv: 1, its label)
  UnknownNodes unknown_nodes = UnknownNodes::error;  ///< Nodes the index does not have yet.
  /// The most values the dense [nodes, dim] feature matrix may hold: 2^30, 4 GiB of floats. Guards
  /// against a stray huge index in a sparse file asking for more memory than the machine has.
  Index max_values = Index{1} << 30;
};

/// Node features with the settings that produced them.
struct NodeFeatures {
  Matrix<float> values;  ///< [N, spec.dim]; zero rows for nodes the file does not list
  FeatureSpec spec;  ///< How to produce the same features again.

  /// Covers nodes added to the index after the features were read, with zero rows.
  void extend_to(Index num_nodes);
};

/// Reads node features in options.format (dense, sparse or musae_json). A repeated sparse index sets
/// the same entry again (MUSAE lists repeat some). Throws ParseError for a node the index does not
/// have (unless options.unknown_nodes is add), a node listed twice, a value that is not a finite
/// number, an index that is not a non-negative integer or not below options.dim, a dense record with
/// another number of values, features that need more than options.max_values values, malformed
/// JSON, and the id errors of read_edge_list; ArgumentError for the structural format or a negative
/// dim.
NodeFeatures read_node_features(const std::filesystem::path& path, NodeIndex& nodes,
                                const FeatureOptions& options = {});
/// read_node_features on text held in memory; `source` names it in messages.
NodeFeatures parse_node_features(std::string_view text, std::string source, NodeIndex& nodes,
                                 const FeatureOptions& options = {});

/// The sizes of structural_features.
struct StructuralFeatureOptions {
  Index max_degree = 32;  ///< one-hot over degrees 0 .. max_degree; higher degrees share the last column
  Index walk_steps = 16;  ///< random_walk_encoding columns
};

/// Features for a graph that has none, [N, max_degree + 1 + walk_steps]: the one-hot in-degree (edges
/// from other nodes; self-loops are not counted) followed by random_walk_encoding(graph, walk_steps),
/// which sees the graph as given, self-loops included. Throws ArgumentError on negative options.
NodeFeatures structural_features(const Graph& graph, const StructuralFeatureOptions& options = {});

}  // namespace edgewise
