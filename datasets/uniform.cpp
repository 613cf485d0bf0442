#include "edgewise/datasets/uniform.hpp"

#include <limits>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/core/random.hpp"

namespace edgewise {
namespace {

constexpr std::uint64_t edge_stream_seed = 1;
constexpr std::uint64_t feature_stream_seed = 2;

void check_sizes(Index nodes, Index edges, Index feature_dim) {
  const std::string sizes = " (nodes " + std::to_string(nodes) + ", edges " + std::to_string(edges) +
                            ", feature_dim " + std::to_string(feature_dim) + ")";
  if (nodes < 0 || edges < 0 || feature_dim < 0)
    throw ArgumentError("uniform_random_workload: counts must be non-negative" + sizes);
  if (edges > 0 && nodes == 0) throw ArgumentError("uniform_random_workload: edges need at least one node" + sizes);
  if (nodes > std::numeric_limits<NodeId>::max())
    throw ArgumentError("uniform_random_workload: node ids must fit in int32" + sizes);
}

void draw_edges(UniformWorkload& workload, Index nodes, Index edges) {
  SplitMix64 rng(edge_stream_seed);
  const auto n = static_cast<std::uint64_t>(nodes);
  workload.sources.resize(static_cast<std::size_t>(edges));
  workload.targets.resize(static_cast<std::size_t>(edges));
  for (std::size_t e = 0; e < workload.sources.size(); ++e) {
    // Two statements, not one expression: the source is drawn before the target.
    workload.sources[e] = static_cast<Index>(rng.next() % n);
    workload.targets[e] = static_cast<Index>(rng.next() % n);
  }
}

// 24 random bits scaled to [0, 2) and shifted: every step is exact in float32.
Matrix<float> draw_features(Index nodes, Index feature_dim) {
  SplitMix64 rng(feature_stream_seed);
  Matrix<float> features(nodes, feature_dim);
  float* value = features.data();
  for (Index k = 0; k < features.size(); ++k)
    value[k] = static_cast<float>(rng.next() >> 40) * 0x1p-24f * 2.0f - 1.0f;
  return features;
}

}  // namespace

UniformWorkload uniform_random_workload(Index nodes, Index edges, Index feature_dim) {
  check_sizes(nodes, edges, feature_dim);
  UniformWorkload workload;
  draw_edges(workload, nodes, edges);
  workload.features = draw_features(nodes, feature_dim);
  workload.graph = Graph::from_edges(nodes, workload.sources, workload.targets);
  return workload;
}

}  // namespace edgewise
