/// \file
/// Cutting a graph into parts for distributed training, and one part as a process sees it.
///
/// partition_graph assigns every node to one of P parts with METIS (multilevel k-way), balancing both
/// the nodes and the in-edges of each part, so that each process holds about N / P nodes and does
/// about E / P of the attention work, while few edges cross between parts.
///
/// A process then works on graph_part(graph, owner, p): its own nodes, and the halo, the nodes of
/// other parts with an edge into one of its own. Attention at an own node reads only its in-neighbours,
/// so a layer computed on the part gives every own node exactly its row of the whole graph's layer,
/// once the halo rows of the layer's input hold their owners' values.
///
///   std::vector<std::int32_t> owner = partition_graph(graph.in_edges(), 4);
///   GraphPart part = graph_part(graph.in_edges(), owner, rank, 4);   // rows: own nodes, then the halo
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "edgewise/graph/graph.hpp"

namespace edgewise {

/// The part of every node, [N] in [0, parts), from METIS's k-way partitioning of the graph with its
/// edge directions ignored, balanced on nodes and on in-edges (up to METIS's 3 % imbalance each).
/// The same graph, part count and seed give the same parts. parts == 1 puts every node in part 0.
/// Throws ArgumentError when parts < 1 or parts > N, or when the graph has 2^31 or more edges once
/// symmetrized (METIS's 32-bit indices).
std::vector<std::int32_t> partition_graph(const InEdges& graph, int parts, std::uint64_t seed = 0);

/// One part of a graph. Its rows are the part's own nodes (ascending ids), then its halo: the nodes
/// of other parts with an edge into an own node, by owning part and then id. Its graph holds every
/// in-edge of the own nodes, in the whole graph's order, and no in-edge of a halo node.
struct GraphPart {
  int part = 0;   ///< this part's number
  int parts = 1;  ///< the number of parts
  Graph graph;    ///< over the rows: own nodes first, then the halo
  std::vector<NodeId> nodes;  ///< [rows]: each row's node id in the whole graph
  Index owned = 0;            ///< rows [0, owned) are own nodes, the rest the halo
  /// [parts]: how many halo rows each part owns (rows owned + sum of earlier counts onwards); 0 for
  /// this part.
  std::vector<Index> halo_counts;
  /// [parts]: the own rows each other part holds in its halo, in that part's halo order; empty for
  /// this part.
  std::vector<std::vector<Index>> sent_rows;

  /// Rows of the graph: own and halo.
  Index rows() const { return static_cast<Index>(nodes.size()); }
};

/// Part `part` of the graph of `graph`'s in-edges cut by `owner` ([N], each in [0, parts)). Throws ArgumentError on an owner
/// vector of the wrong size or with a part outside [0, parts).
GraphPart graph_part(const InEdges& graph, std::span<const std::int32_t> owner, int part, int parts);

/// What one part of a cut holds (graph_part's sizes, without building the part).
struct PartSizes {
  Index nodes = 0;     ///< own nodes
  Index in_edges = 0;  ///< in-edges of the own nodes
  Index halo = 0;      ///< nodes of other parts with an edge into an own node
};

/// The sizes of every part of `owner`'s cut, [parts], in one pass over the edges. Throws
/// ArgumentError as graph_part does.
std::vector<PartSizes> part_sizes(const InEdges& in_edges, std::span<const std::int32_t> owner, int parts);

/// The number of edges whose ends lie in different parts.
Index cut_edges(const InEdges& in_edges, std::span<const std::int32_t> owner);

}  // namespace edgewise
