/// \file
/// R-MAT graphs (Chakrabarti, Zhan and Faloutsos, 2004), the Kronecker generator of Graph500, with
/// planted labels and features: large power-law graphs for testing and benchmarking node
/// classification at scale, where the right answer is known.
///
/// Each of edge_factor * 2^scale edges picks its endpoints by descending `scale` levels of the
/// adjacency matrix, choosing a quadrant with probabilities a (top left), b, c and d = 1 - a - b - c
/// at each level (unlike Graph500, which perturbs them a little at each level, they stay exact). Node
/// ids are not permuted, so the high bits of an id say which quadrants its edges
/// mostly fall in: a node's label is the top log2(classes) bits of its id, and nodes that share a label
/// are joined more often than others when a + d > 1/2, since each bit of the two ends agrees with
/// probability a + d (0.62 at the defaults; dropping duplicates brings the fraction of same-label edges
/// with 2 classes to about 0.57). The graph kept is the one attention runs on: every edge in both
/// directions, duplicates and self-loops of the draw dropped, then one self-loop per node.
///
/// Features are the label's mean vector, drawn once per class from N(0, I), plus N(0, feature_noise^2 I)
/// noise, computed on demand from (seed, node): features of any node range can be written to a store
/// without the whole matrix in memory. Everything derives from `seed` with SplitMix64 streams (one per
/// 2^16 drawn edges, one for the class means, one per node's noise), so the same options give the same
/// graph on every platform and at every thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

/// Settings of RmatGraph. Graph500's are the defaults.
struct RmatOptions {
  Index scale = 10;        ///< 2^scale nodes
  Index edge_factor = 16;  ///< edges drawn per node, before symmetrizing and dropping duplicates
  double a = 0.57;         ///< probability of the top-left quadrant
  double b = 0.19;         ///< top right
  double c = 0.19;         ///< bottom left; d = 1 - a - b - c
  Index classes = 4;       ///< a power of two, at most 2^scale
  Index feature_dim = 64;  ///< Width of the node features.
  double feature_noise = 2.0;  ///< standard deviation of the noise around the class mean
  std::uint64_t seed = 0;  ///< Seeds the edges, class means and noise.
};

/// An R-MAT graph, its CSR by destination built in memory, labels and features computed on demand.
///
/// Building runs in parallel and keeps no edge list: a first pass over the draws counts each node's
/// in-edges (both directions of every drawn edge, drawn self-loops dropped, plus a slot for its own
/// self-loop), a second draws the same edges again and places them, then each row is sorted, its
/// duplicates dropped, and the rows are moved together. The peak is 4 bytes for each direction of each
/// drawn edge plus 16 a node: 2.3 GB at scale 24, edge factor 16. The built graph keeps that array,
/// with the slots of the dropped duplicates (3 to 6% at Graph500's settings) unless they are most of it.
class RmatGraph {
 public:
  /// Throws ArgumentError, naming the value, unless 1 <= scale <= 30, edge_factor >= 1, a, b and c are
  /// in [0, 1] with a + b + c <= 1 (to 1e-9), classes is a power of two in [1, 2^scale], feature_dim >= 0
  /// and feature_noise is finite and >= 0, or when the edges could exceed 2^31 - 1: 2 * edge_factor *
  /// 2^scale + 2^scale must not (so scale 30 never fits, and scale 29 only at edge_factor 1).
  explicit RmatGraph(const RmatOptions& options);

  /// The options it was built with.
  const RmatOptions& options() const { return options_; }
  /// 2^scale.
  Index num_nodes() const { return static_cast<Index>(offsets_.size()) - 1; }
  /// In-edges of every node in increasing source order, the node's self-loop included.
  InEdges in_edges() const { return {offsets_, sources_}; }
  /// The planted class of `node`: its id's top log2(classes) bits. Throws ArgumentError unless
  /// 0 <= node < num_nodes().
  Index label(Index node) const;
  /// The features of nodes first .. first + count - 1 into `out`, row-major [count, feature_dim]: the
  /// same rows whatever the range, since each node's noise has its own stream. Parallel over nodes.
  /// Throws ArgumentError unless the nodes lie in [0, num_nodes()).
  void features(Index first, Index count, float* out) const;

 private:
  RmatOptions options_;
  std::vector<Index> offsets_;
  std::vector<NodeId> sources_;
  Matrix<float> class_means_;  // [classes, feature_dim]
};

}  // namespace edgewise
