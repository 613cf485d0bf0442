/// \file
/// What the readers of graphs stored as text files share (edge_list.hpp, node_labels.hpp,
/// node_features.hpp, for node classification, in the layouts of SNAP, MUSAE and Planetoid exports;
/// docs/graph_files.md has examples): the numbering of nodes by name and the rules of the text.
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
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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

/// Whether the first record is a header. With integer ids, `detect` takes it for one when one of its
/// node fields is text other than an integer ("id_1,id_2", "id,target"). String ids cannot tell a
/// header by type, so `detect` takes the first record for one when what it names appears nowhere
/// else: in an edge list, two new nodes that no other record names; in labels, a node the index
/// lacks whose id and label no other record repeats; in features, a value field that does not start
/// as a number does. EdgeList::header and NodeLabels::header say when it did.
enum class Header { detect, present, absent };

/// What a label or feature file may say about a node that the index does not have yet.
enum class UnknownNodes {
  error,  ///< ParseError naming the file and line
  add,    ///< number it next, as a node without edges
};

}  // namespace edgewise
