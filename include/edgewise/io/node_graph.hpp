/// \file
/// A node-classification graph read from its files (edge list, labels, features) or built in memory:
/// the graph attention runs on, its node features and labels, and the options it was read with.
///
///   NodeGraph data = read_node_graph({.edges = "edges.txt", .labels = "labels.txt",
///                                     .features = "features.txt"}, {.features = {.format = FeatureFormat::sparse}});
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <utility>

#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"
#include "edgewise/io/edge_list.hpp"
#include "edgewise/io/node_features.hpp"
#include "edgewise/io/node_labels.hpp"

namespace edgewise {

/// How a graph's files are read and its node features made.
struct NodeInputOptions {
  NodeIds ids = NodeIds::integer;  ///< of the edge list, the labels and the features
  bool directed = false;  ///< Read the edge list as directed (see EdgeListOptions::directed).
  bool add_self_loops = true;  ///< Give every node a self-loop, so attention includes the node itself.
  /// dim 0: inferred when read. max_degree and walk_steps apply to FeatureFormat::structural only;
  /// a spec given whole replaces their defaults.
  FeatureSpec features = {.format = FeatureFormat::structural,
                          .dim = 0,
                          .max_degree = StructuralFeatureOptions{}.max_degree,
                          .walk_steps = StructuralFeatureOptions{}.walk_steps,
                          .sampled_walks = StructuralFeatureOptions{}.sampled_walks};
  /// Divides each nonzero feature row by its L1 norm (PyTorch Geometric's NormalizeFeatures in the GAT
  /// recipe), so that nodes with long word lists do not get larger inputs.
  bool normalize_rows = false;
  /// The graph attention runs on: false, the edges (with add_self_loops' self-loops); true, one
  /// self-loop per node and nothing else, so that every layer attends to the node itself only and the
  /// network is an MLP on the node features (a baseline). Structural features are still computed from
  /// the edges. Needs add_self_loops.
  bool self_loops_only = false;
};

/// JSON form that model files and graph stores record: node_ids, directed, add_self_loops,
/// self_loops_only and a features object (format, dim, max_degree, walk_steps, sampled_walks,
/// normalize_rows).
/// from_json throws for a missing field (self_loops_only, absent from files written before it
/// existed, defaults to false) and ArgumentError for an unknown node id type or feature format.
/// @{
void to_json(nlohmann::json& j, const NodeInputOptions& input);
void from_json(const nlohmann::json& j, NodeInputOptions& input);
/// @}

/// Whether features of this format are row-normalized unless said otherwise: the bag-of-words formats
/// (sparse, musae_json).
bool normalizes_rows_by_default(FeatureFormat format);

/// Members left out of a designated initializer are empty.
struct NodeGraphFiles {
  std::filesystem::path edges = {};  ///< The edge list; required.
  std::filesystem::path labels = {};    ///< empty: no labels
  FileColumn label_node_column = Index{0};  ///< The labels file's node column: index or header name.
  FileColumn label_column = Index{1};       ///< The labels file's label column: index or header name.
  std::filesystem::path features = {};  ///< empty: structural features, which options.features must then ask for
  Header header = Header::detect;  ///< Whether each file's first record is a header (node_index.hpp has the rule).
};

/// A graph read from files, with its features and labels.
struct NodeGraph {
  NodeIndex nodes;  ///< Node names by id, for every node of the three files.
  Graph graph;             ///< the graph attention runs on (input.self_loops_only: self-loops only)
  SharedRows<float> features;  ///< [N, input.features.dim], normalized as input says; copies share it
  NodeLabels labels;       ///< every node unlabeled without a labels file
  NodeInputOptions input;  ///< the options it was read with, features.dim resolved
  Index edge_list_nodes = 0;  ///< nodes named by the edge list: ids >= this came from the labels or features only
  Index edge_list_edges = 0;  ///< distinct edges of the edge list
  /// With string ids and Header::detect, a line for each file whose first record was taken for a
  /// header because nothing else names what it names ("edges.csv: 'node_1,node_2'"), to report: the
  /// rule guesses where integer ids tell.
  std::vector<std::string> guessed_headers = {};
};

/// The edge list and the labels (when there is a labels file) of a graph, as read_node_graph reads
/// them, and the guessed headers it would report.
struct NodeTables {
  EdgeList edges;     ///< Numbers the nodes of both files.
  Index edge_list_nodes = 0;  ///< The nodes the edge list named; the labels may have added more.
  NodeLabels labels;  ///< Empty without a labels file.
  std::vector<std::string> guessed_headers;  ///< As NodeGraph::guessed_headers.
};
/// Reads them; throws what read_edge_list and read_node_labels throw.
NodeTables read_node_tables(const NodeGraphFiles& files, const NodeInputOptions& options);

/// Reads the edge list, then the labels and the features, which may add nodes that have no edges (as
/// isolated nodes with a self-loop), then builds the graph and computes or normalizes the features;
/// with options.self_loops_only, the graph kept is then the self-loops alone. Throws ArgumentError
/// when the features file and options.features.format disagree (a file with the structural format, or
/// no file with another), for self_loops_only without add_self_loops, and what the readers throw.
NodeGraph read_node_graph(const NodeGraphFiles& files, const NodeInputOptions& options);

/// The structural features a graph of `input`'s options gets from `graph`'s links alone, [N,
/// input.features.dim], row-normalized where input says: what reading the graph computes, for a graph
/// that holds some of its links only (the training links of link prediction).
Matrix<float> structural_feature_rows(const Graph& graph, const NodeInputOptions& input);

/// The same nodes, names, labels and input options as `data`, with a graph of `edges` alone: both
/// directions of each pair, and self-loops as data.input says. Structural features are computed
/// again from that graph, so that nothing of the edges left out reaches them; features read from a
/// file are shared. What link prediction trains on: the graph without its held-out links. Throws
/// GraphError for a node outside the graph.
NodeGraph with_edges(const NodeGraph& data, std::span<const std::pair<Index, Index>> edges);

/// A graph built in memory (Graph::from_pairs, from_boost, a generator) with its features [N, dim] and
/// labels: labels.classes holds one class id per node (-1: unlabeled) of labels.class_names, or is
/// empty for a graph without labels. The features are a Matrix, taken over, or rows in a caller's
/// buffer (SharedRows), which the graph then reads in place, without a copy. Nodes are named by their
/// ids ("0" .. "N-1"), and `input` says the features are dense rows of that width, not normalized. The
/// graph is used as given: build it with the self-loops and reverse edges that attention needs.
/// Throws ArgumentError when the features do not have one row per node or are not finite, the labels
/// one entry per node, or a class id is not below the number of class names.
NodeGraph make_node_graph(Graph graph, SharedRows<float> features, NodeLabels labels = {});

}  // namespace edgewise
