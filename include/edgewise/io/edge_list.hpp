/// \file
/// Edge lists: a graph's edges as a text file (SNAP, MUSAE and Planetoid layouts), read into an
/// EdgeList numbered by a NodeIndex (node_index.hpp has the rules of the text).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"
#include "edgewise/io/node_index.hpp"

namespace edgewise {

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
  /// The fields of the first record when it was read as a header; empty otherwise. With string ids
  /// and Header::detect, a first record is taken for a header when no other record names either of
  /// its nodes and it holds neither of the `nodes` given; callers may want to say so.
  std::vector<std::string> header = {};

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

}  // namespace edgewise
