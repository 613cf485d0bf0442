#include "edgewise/datasets/sbm.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/core/random.hpp"

namespace edgewise {
namespace {

using Edges = std::vector<std::pair<Index, Index>>;

void check_options(const SbmOptions& options) {
  const auto fail = [](const std::string& why) { throw ArgumentError("stochastic_block_model: " + why); };
  if (options.nodes < 0 || options.nodes > std::numeric_limits<NodeId>::max())
    fail("nodes must lie in [0, 2^31 - 1], got " + std::to_string(options.nodes));
  if (options.communities < 1 || (options.nodes > 0 && options.communities > options.nodes))
    fail("communities must lie in [1, nodes], got " + std::to_string(options.communities));
  for (const double p : {options.p_in, options.p_out})
    if (!(p >= 0.0 && p <= 1.0)) fail("edge probabilities must lie in [0, 1], got " + std::to_string(p));
  if (options.feature_dim < 0) fail("negative feature_dim " + std::to_string(options.feature_dim));
  if (!(options.feature_noise >= 0.0 && std::isfinite(options.feature_noise)))
    fail("feature_noise must be finite and non-negative, got " + std::to_string(options.feature_noise));
}

Index block_start(Index block, const SbmOptions& options) { return block * options.nodes / options.communities; }

// Calls visit(k) for each k in 0 .. count - 1 independently with probability p, in increasing order.
// The gaps between visited k are geometric, so the cost is one draw per visit, not per candidate.
template <typename Visit>
void sample_bernoulli(std::uint64_t count, double p, SplitMix64& rng, Visit&& visit) {
  if (p <= 0.0) return;
  if (p >= 1.0) {
    for (std::uint64_t k = 0; k < count; ++k) visit(k);
    return;
  }
  const double log_miss = std::log1p(-p);
  std::uint64_t k = 0;
  while (true) {
    const double gap = std::floor(std::log1p(-rng.uniform()) / log_miss);
    if (gap >= static_cast<double>(count - k)) return;
    k += static_cast<std::uint64_t>(gap);
    visit(k);
    ++k;
  }
}

// The pairs u < v of the block [first, first + size), numbered row by row: (0, 1), (0, 2), ...,
// (0, size - 1), (1, 2), ... relative to first.
void sample_within(Index first, Index size, double p, SplitMix64& rng, Edges& edges) {
  Index row = 0;
  std::uint64_t row_start = 0;  // the number of the pair (row, row + 1)
  const auto count = static_cast<std::uint64_t>(size) * static_cast<std::uint64_t>(size - 1) / 2;
  sample_bernoulli(count, p, rng, [&](std::uint64_t k) {
    while (k >= row_start + static_cast<std::uint64_t>(size - 1 - row)) {
      row_start += static_cast<std::uint64_t>(size - 1 - row);
      ++row;
    }
    edges.emplace_back(first + row, first + row + 1 + static_cast<Index>(k - row_start));
  });
}

void sample_between(Index first_a, Index size_a, Index first_b, Index size_b, double p, SplitMix64& rng, Edges& edges) {
  const auto columns = static_cast<std::uint64_t>(size_b);
  sample_bernoulli(static_cast<std::uint64_t>(size_a) * columns, p, rng, [&](std::uint64_t k) {
    edges.emplace_back(first_a + static_cast<Index>(k / columns), first_b + static_cast<Index>(k % columns));
  });
}

Edges sample_edges(const SbmOptions& options, SplitMix64& rng) {
  Edges edges;
  for (Index a = 0; a < options.communities; ++a) {
    const Index first_a = block_start(a, options), size_a = block_start(a + 1, options) - first_a;
    sample_within(first_a, size_a, options.p_in, rng, edges);
    for (Index b = a + 1; b < options.communities; ++b) {
      const Index first_b = block_start(b, options), size_b = block_start(b + 1, options) - first_b;
      sample_between(first_a, size_a, first_b, size_b, options.p_out, rng, edges);
    }
  }
  return edges;
}

std::vector<Index> block_labels(const SbmOptions& options) {
  std::vector<Index> labels(static_cast<std::size_t>(options.nodes));
  for (Index c = 0; c < options.communities; ++c)
    for (Index i = block_start(c, options); i < block_start(c + 1, options); ++i) labels[i] = c;
  return labels;
}

Matrix<float> draw_features(const SbmOptions& options, const std::vector<Index>& labels, SplitMix64& rng) {
  Matrix<double> means(options.communities, options.feature_dim);
  for (Index k = 0; k < means.size(); ++k) means.data()[k] = rng.normal();
  Matrix<float> features(options.nodes, options.feature_dim);
  for (Index i = 0; i < options.nodes; ++i)
    for (Index f = 0; f < options.feature_dim; ++f)
      features(i, f) = static_cast<float>(means(labels[i], f) + options.feature_noise * rng.normal());
  return features;
}

Graph both_directions(Index nodes, const Edges& edges, bool add_self_loops) {
  std::vector<Index> sources(2 * edges.size()), targets(2 * edges.size());
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const auto [u, v] = edges[e];
    sources[e] = targets[edges.size() + e] = u;
    targets[e] = sources[edges.size() + e] = v;
  }
  return Graph::from_edges(nodes, sources, targets, {.add_self_loops = add_self_loops});
}

}  // namespace

SbmGraph stochastic_block_model(const SbmOptions& options) {
  check_options(options);
  SplitMix64 seeds(options.seed);
  SplitMix64 edge_rng(seeds.next());
  SplitMix64 feature_rng(seeds.next());
  SbmGraph sbm;
  sbm.edges = sample_edges(options, edge_rng);
  sbm.labels = block_labels(options);
  sbm.features = draw_features(options, sbm.labels, feature_rng);
  sbm.graph = both_directions(options.nodes, sbm.edges, options.add_self_loops);
  return sbm;
}

}  // namespace edgewise
