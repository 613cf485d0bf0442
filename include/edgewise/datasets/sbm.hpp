/// \file
/// Stochastic block model: a random graph with planted communities and class-correlated features,
/// for testing node classification where the right answer is known.
///
/// The nodes are split into `communities` contiguous blocks of near-equal size (block c holds nodes
/// floor(c * N / k) .. floor((c + 1) * N / k) - 1), and each node's label is its block. Each unordered
/// pair of distinct nodes is joined with probability p_in inside a block and p_out across blocks. The
/// features of a node are its block's mean vector, drawn once per block from N(0, I), plus
/// N(0, feature_noise^2 I) noise, so that feature_noise sets how separable the classes are.
///
/// Sampling skips geometrically over each block pair's candidate pairs (Batagelj and Brandes, 2005):
/// O(N + k^2 + E) time, so N = 100,000 at average degree 10 takes well under a second.
/// Edges, block means and noise come from SplitMix64 streams derived from `seed`: the same options give
/// the same graph on every platform.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

/// Settings of stochastic_block_model.
struct SbmOptions {
  Index nodes = 1000;  ///< N.
  Index communities = 4;  ///< k, the number of blocks and of classes.
  double p_in = 0.02;    ///< edge probability for two nodes of one block
  double p_out = 0.002;  ///< edge probability for two nodes of different blocks
  Index feature_dim = 16;  ///< Width of the node features.
  double feature_noise = 1.0;  ///< standard deviation of the noise around the block mean
  bool add_self_loops = true;  ///< as EdgeList::to_graph does, for attention
  std::uint64_t seed = 0;  ///< Seeds the edges, block means and noise.
};

/// A stochastic block model graph with labels and features.
struct SbmGraph {
  std::vector<std::pair<Index, Index>> edges;  ///< undirected, u < v, each pair once, by block pair
  std::vector<Index> labels;                   ///< [N]: the block of each node
  Matrix<float> features;                      ///< [N, feature_dim]
  Graph graph;  ///< both directions of every edge (edges, then their reverses), then the self-loops
};

/// Throws ArgumentError unless 1 <= communities <= nodes (or nodes = 0), nodes fits in int32, both
/// probabilities lie in [0, 1], feature_dim >= 0 and feature_noise is finite and >= 0.
SbmGraph stochastic_block_model(const SbmOptions& options);

}  // namespace edgewise
