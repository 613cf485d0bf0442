/// \file
/// The uniform random workload used to compare attention layers across libraries
/// (recipe: shared/peers/README.md, "The uniform random workload"). It is reproduced bit for bit
/// from SplitMix64 streams, so the same N, E and F give the same graph and features everywhere.
#pragma once

#include <vector>

#include "edgewise/core/tensor.hpp"
#include "edgewise/datasets/checksum.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

/// The uniform random graph and features of uniform_random_workload.
struct UniformWorkload {
  std::vector<Index> sources;  ///< [E], as drawn: self-loops and duplicates kept
  std::vector<Index> targets;  ///< [E]
  Matrix<float> features;      ///< [N, F], uniform in [-1, 1)
  Graph graph;                 ///< built from sources/targets without options, edges in drawn order
};

/// Edges from stream seed 1 (for each edge: source = next() % N, then target = next() % N) and
/// features from stream seed 2, row-major: float(next() >> 40) * 2^-24 * 2 - 1.
/// Throws ArgumentError on a negative count, on edges without nodes, or on N beyond int32.
UniformWorkload uniform_random_workload(Index nodes, Index edges, Index feature_dim);

}  // namespace edgewise
