#include "edgewise/datasets/sbm.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <vector>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

struct EdgeCounts {
  Index within = 0;
  Index across = 0;
};

EdgeCounts count_edges(const SbmGraph& sbm) {
  EdgeCounts counts;
  for (const auto& [u, v] : sbm.edges) (sbm.labels[u] == sbm.labels[v] ? counts.within : counts.across) += 1;
  return counts;
}

// The fraction of nodes whose features lie closest to their own class's mean feature vector.
double nearest_mean_accuracy(const SbmGraph& sbm, Index classes) {
  Matrix<double> means = Matrix<double>::Zero(classes, sbm.features.cols());
  std::vector<Index> sizes(static_cast<std::size_t>(classes), 0);
  for (Index i = 0; i < sbm.features.rows(); ++i) {
    means.row(sbm.labels[i]) += sbm.features.row(i).cast<double>();
    ++sizes[sbm.labels[i]];
  }
  for (Index c = 0; c < classes; ++c) means.row(c) /= static_cast<double>(sizes[c]);
  Index correct = 0;
  for (Index i = 0; i < sbm.features.rows(); ++i) {
    Index nearest = 0;
    (means.rowwise() - sbm.features.row(i).cast<double>()).rowwise().squaredNorm().minCoeff(&nearest);
    correct += nearest == sbm.labels[i];
  }
  return static_cast<double>(correct) / static_cast<double>(sbm.features.rows());
}

TEST(StochasticBlockModel, SameSeedSameGraph) {
  const SbmOptions options = {.nodes = 500, .communities = 5, .p_in = 0.05, .p_out = 0.01, .feature_dim = 4, .seed = 7};
  const SbmGraph a = stochastic_block_model(options);
  const SbmGraph b = stochastic_block_model(options);
  EXPECT_EQ(a.edges, b.edges);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.features, b.features);

  SbmOptions other = options;
  other.seed = 8;
  const SbmGraph c = stochastic_block_model(other);
  EXPECT_NE(a.edges, c.edges);
  EXPECT_NE(a.features, c.features);
}

TEST(StochasticBlockModel, SizesAndBlocks) {
  const SbmGraph sbm = stochastic_block_model({.nodes = 10, .communities = 3, .feature_dim = 5});
  EXPECT_EQ(sbm.labels, (std::vector<Index>{0, 0, 0, 1, 1, 1, 2, 2, 2, 2}));
  EXPECT_EQ(sbm.features.rows(), 10);
  EXPECT_EQ(sbm.features.cols(), 5);
  EXPECT_EQ(sbm.graph.num_nodes(), 10);
}

TEST(StochasticBlockModel, EdgesAreDistinctOrderedPairsAndTheGraphHasBothDirections) {
  const SbmGraph sbm = stochastic_block_model({.nodes = 300, .communities = 3, .p_in = 0.1, .p_out = 0.02, .seed = 1});
  std::set<std::pair<Index, Index>> distinct;
  for (const auto& [u, v] : sbm.edges) {
    EXPECT_LT(u, v);
    EXPECT_GE(u, 0);
    EXPECT_LT(v, 300);
    distinct.emplace(u, v);
  }
  EXPECT_EQ(distinct.size(), sbm.edges.size());

  const Graph& graph = sbm.graph;
  const auto edges = static_cast<Index>(sbm.edges.size());
  ASSERT_EQ(graph.num_edges(), 2 * edges + 300);
  for (Index e = 0; e < edges; ++e) {
    EXPECT_EQ(graph.source(e), sbm.edges[e].first);
    EXPECT_EQ(graph.target(e + edges), sbm.edges[e].first);
    EXPECT_EQ(graph.source(e + edges), sbm.edges[e].second);
  }
  for (Index i = 0; i < 300; ++i) EXPECT_EQ(graph.source(2 * edges + i), graph.target(2 * edges + i));

  const SbmGraph bare = stochastic_block_model({.nodes = 300, .communities = 3, .add_self_loops = false, .seed = 1});
  EXPECT_EQ(bare.graph.num_edges(), 2 * static_cast<Index>(bare.edges.size()));
}

TEST(StochasticBlockModel, EdgeDensitiesMatchTheProbabilities) {
  const double p_in = 0.05, p_out = 0.005;
  const SbmGraph sbm =
      stochastic_block_model({.nodes = 2000, .communities = 4, .p_in = p_in, .p_out = p_out, .seed = 3});
  const EdgeCounts counts = count_edges(sbm);
  const double within_pairs = 4 * 500.0 * 499.0 / 2.0;  // 499,000: expect 24,950 edges, sd 154
  const double across_pairs = 6 * 500.0 * 500.0;        // 1,500,000: expect 7,500 edges, sd 86
  EXPECT_NEAR(static_cast<double>(counts.within) / within_pairs, p_in, 0.03 * p_in);
  EXPECT_NEAR(static_cast<double>(counts.across) / across_pairs, p_out, 0.05 * p_out);
}

TEST(StochasticBlockModel, ExtremeProbabilities) {
  const SbmGraph full = stochastic_block_model({.nodes = 12, .communities = 3, .p_in = 1.0, .p_out = 0.0});
  const EdgeCounts full_counts = count_edges(full);
  EXPECT_EQ(full_counts.within, 3 * 6);
  EXPECT_EQ(full_counts.across, 0);

  const SbmGraph bipartite = stochastic_block_model({.nodes = 6, .communities = 2, .p_in = 0.0, .p_out = 1.0});
  EXPECT_EQ(count_edges(bipartite).across, 9);
  EXPECT_EQ(count_edges(bipartite).within, 0);

  const SbmGraph empty = stochastic_block_model({.nodes = 0, .communities = 1});
  EXPECT_TRUE(empty.edges.empty());
  EXPECT_EQ(empty.graph.num_nodes(), 0);
}

TEST(StochasticBlockModel, FeaturesCorrelateWithClasses) {
  const SbmOptions options = {.nodes = 2000, .communities = 5, .feature_dim = 16, .feature_noise = 0.5, .seed = 11};
  EXPECT_GT(nearest_mean_accuracy(stochastic_block_model(options), 5), 0.99);

  SbmOptions noisy = options;
  noisy.feature_noise = 20.0;
  const double noisy_accuracy = nearest_mean_accuracy(stochastic_block_model(noisy), 5);
  EXPECT_LT(noisy_accuracy, 0.5);

  SbmOptions exact = options;
  exact.feature_noise = 0.0;
  const SbmGraph sbm = stochastic_block_model(exact);
  EXPECT_EQ(sbm.features.row(0), sbm.features.row(399));  // both in block 0
  EXPECT_NE(sbm.features.row(0), sbm.features.row(400));  // block 1
}

TEST(StochasticBlockModel, LargeSparseGraphIsFast) {
  const auto start = std::chrono::steady_clock::now();
  const SbmGraph sbm = stochastic_block_model(
      {.nodes = 100'000, .communities = 10, .p_in = 8e-4, .p_out = 2.22e-5, .feature_dim = 16, .seed = 5});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Expected edges: 10 * C(10000, 2) * 8e-4 = 399,996 within blocks and 45 * 10^8 * 2.22e-5 = 99,900
  // across, an average degree of 10.
  const double average_degree = 2.0 * static_cast<double>(sbm.edges.size()) / 100'000.0;
  EXPECT_NEAR(average_degree, 10.0, 0.1);
  EXPECT_EQ(sbm.graph.num_nodes(), 100'000);
  std::printf("n = 100000, average degree %.2f: %.3f s\n", average_degree, seconds);
}

TEST(StochasticBlockModel, RejectsInvalidOptions) {
  EXPECT_THROW(stochastic_block_model({.nodes = -1}), ArgumentError);
  EXPECT_THROW(stochastic_block_model({.nodes = 10, .communities = 0}), ArgumentError);
  EXPECT_THROW(stochastic_block_model({.nodes = 10, .communities = 11}), ArgumentError);
  EXPECT_THROW(stochastic_block_model({.p_in = 1.5}), ArgumentError);
  EXPECT_THROW(stochastic_block_model({.p_out = -0.1}), ArgumentError);
  EXPECT_THROW(stochastic_block_model({.feature_dim = -1}), ArgumentError);
  EXPECT_THROW(stochastic_block_model({.feature_noise = -1.0}), ArgumentError);
  EXPECT_THROW(stochastic_block_model({.nodes = Index{1} << 31}), ArgumentError);
}

}  // namespace
}  // namespace edgewise
