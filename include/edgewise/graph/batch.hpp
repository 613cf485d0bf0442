/// \file
/// GraphBatch: many graphs joined block-diagonally into one Graph, so that a batch of small graphs
/// (molecules) runs through the attention kernels in one call.
///
/// Graph g's node i becomes batch node node_offsets[g] + i, and its edge e becomes batch edge
/// edge_offsets[g] + e: the batch's edge order is graph 0's edges in its edge order, then graph 1's,
/// and so on, so per-graph node and edge features are batched by concatenating their rows. Each
/// node's in-edges keep their per-graph CSR order, so the batch's CSR is the block-diagonal union of
/// the graphs' CSRs.
#pragma once

#include <span>
#include <vector>

#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

/// Many graphs joined block-diagonally into one Graph; see the file's description for the
/// numbering of nodes and edges.
class GraphBatch {
 public:
  /// An empty batch: no graphs, no nodes.
  GraphBatch() = default;

  /// Joins the graphs in order. O(N + E) time with a fixed number of allocations for the whole batch.
  /// Throws ArgumentError on a null pointer, GraphError when the batch exceeds Graph's size limits.
  static GraphBatch join(std::span<const Graph* const> graphs);

  /// Rebuilds the batch in place, reusing its memory, from the node and edge offsets of its graphs
  /// ([G + 1] each, starting at 0) and its edges in batch node ids, graph 0's first: the batch join()
  /// gives for graphs with these edges. Used to assemble batches without per-graph objects. Throws
  /// ArgumentError on malformed offsets and GraphError on an edge outside its graph's nodes.
  void assign(std::span<const Index> node_offsets, std::span<const Index> edge_offsets,
              std::span<const NodeId> sources, std::span<const NodeId> targets);

  /// The joined graph.
  const Graph& graph() const { return graph_; }
  /// G, the number of graphs joined.
  Index num_graphs() const { return static_cast<Index>(node_offsets_.size()) - 1; }
  /// The total number of nodes and edges.
  /// @{
  Index num_nodes() const { return graph_.num_nodes(); }
  Index num_edges() const { return graph_.num_edges(); }
  /// @}

  /// node_graph: [N], the graph each batch node came from.
  std::span<const NodeId> node_graph() const { return node_graph_; }
  /// node_offsets, edge_offsets: [G + 1]; graph g owns batch nodes node_offsets[g] .. node_offsets[g+1]
  /// and batch edges edge_offsets[g] .. edge_offsets[g+1].
  /// @{
  std::span<const Index> node_offsets() const { return node_offsets_; }
  std::span<const Index> edge_offsets() const { return edge_offsets_; }
  /// @}

 private:
  Graph graph_;
  std::vector<NodeId> node_graph_;
  std::vector<Index> node_offsets_{0};
  std::vector<Index> edge_offsets_{0};
};

}  // namespace edgewise
