/// \file
/// A graph with its node and edge feature rows, and batches of them for minibatch training.
#pragma once

#include <span>

#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/batch.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

/// One graph with its node, edge and whole-graph features, as models take it.
struct FeaturedGraph {
  Graph graph;  ///< The structure.
  Matrix<float> node_features;  ///< [nodes, node_dim]
  Matrix<float> edge_features;  ///< [edges, edge_dim] in the graph's edge order; [edges, 0] for none
  Matrix<float> graph_features;  ///< [1, graph_dim] describing the whole graph; [1, 0] or empty for none
};

/// Graphs joined block-diagonally with their feature rows stacked in the same order.
struct FeaturedBatch {
  GraphBatch batch;  ///< The joined structure.
  Matrix<float> node_features;  ///< [N, node_dim]
  Matrix<float> edge_features;  ///< [E, edge_dim]
  Matrix<float> graph_features;  ///< [G, graph_dim]

  /// Rebuilds the batch from `graphs`, reusing the feature buffers' memory where it suffices.
  /// Throws ArgumentError when the graphs disagree on feature widths.
  void assemble(std::span<const FeaturedGraph* const> graphs);
};

}  // namespace edgewise
