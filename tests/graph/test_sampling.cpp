// Neighbour sampling: the blocks' nesting and edges against the graph, fan-out caps, every neighbour
// with fan-out -1, uniform draws, and determinism.
#include "edgewise/graph/sampling.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/random.hpp"
#include "support/random_graph.hpp"

namespace edgewise {
namespace {

using testing::random_node_graph;

// A node's in-neighbours other than itself, as a set of global ids.
std::set<NodeId> other_in_neighbors(const Graph& graph, NodeId node) {
  std::set<NodeId> result;
  for (Index p = graph.in_offsets()[node]; p < graph.in_offsets()[node + 1]; ++p)
    if (graph.in_sources()[p] != node) result.insert(graph.in_sources()[p]);
  return result;
}

// Each local target's sources in a block, as global ids (the self-loop included).
std::map<NodeId, std::multiset<NodeId>> block_in_edges(const SampledBlocks& batch, Index layer) {
  std::map<NodeId, std::multiset<NodeId>> result;
  for (const auto& [source, target] : batch.blocks[layer].edge_pairs())
    result[batch.nodes[target]].insert(batch.nodes[source]);
  return result;
}

std::vector<NodeId> first_nodes(Index count) {
  std::vector<NodeId> nodes(static_cast<std::size_t>(count));
  for (Index i = 0; i < count; ++i) nodes[i] = static_cast<NodeId>(i * 3);
  return nodes;
}

TEST(NeighborSampler, BlocksNestAndLeadIntoTheEarlierHop) {
  const Graph graph = random_node_graph(300, 900, 1);
  NeighborSampler sampler(graph.in_edges(), {4, 3});
  SampledBlocks batch;
  sampler.sample(first_nodes(10), 7, batch);
  ASSERT_EQ(batch.blocks.size(), 2u);
  ASSERT_EQ(batch.hop_sizes.size(), 3u);
  EXPECT_EQ(batch.hop_sizes.front(), 10);
  EXPECT_EQ(batch.hop_sizes.back(), static_cast<Index>(batch.nodes.size()));
  EXPECT_EQ(std::set<NodeId>(batch.nodes.begin(), batch.nodes.end()).size(), batch.nodes.size());
  for (Index k = 0; k < 2; ++k) {
    const Graph& block = batch.blocks[k];
    EXPECT_EQ(block.num_nodes(), batch.hop_sizes[2 - k]);
    for (const auto& [source, target] : block.edge_pairs()) EXPECT_LT(target, batch.hop_sizes[1 - k]);
  }
  // The last layer's block is the first layer's, cut to the edges into the seeds.
  auto outer = block_in_edges(batch, 0);
  const auto inner = block_in_edges(batch, 1);
  for (const auto& [node, sources] : inner) EXPECT_EQ(outer[node], sources);
  EXPECT_EQ(batch.num_edges(), batch.blocks[0].num_edges());
}

TEST(NeighborSampler, SamplesAtMostTheFanoutOfTrueNeighboursPlusTheSelfLoop) {
  const Graph graph = random_node_graph(200, 2000, 2);
  NeighborSampler sampler(graph.in_edges(), {5, 2});
  SampledBlocks batch;
  sampler.sample(first_nodes(20), 3, batch);
  const auto edges = block_in_edges(batch, 0);
  for (Index local = 0; local < batch.hop_sizes[1]; ++local) {
    const NodeId node = batch.nodes[local];
    const Index fanout = local < batch.hop_sizes[0] ? 5 : 2;
    const std::set<NodeId> truth = other_in_neighbors(graph, node);
    std::multiset<NodeId> sources = edges.at(node);
    ASSERT_EQ(sources.count(node), 1u) << "the self-loop of node " << node;
    sources.erase(node);
    EXPECT_EQ(static_cast<Index>(sources.size()), std::min<Index>(fanout, static_cast<Index>(truth.size())));
    EXPECT_EQ(std::set<NodeId>(sources.begin(), sources.end()).size(), sources.size()) << "drawn twice";
    for (const NodeId source : sources) EXPECT_TRUE(truth.count(source)) << source << " -> " << node;
  }
}

TEST(NeighborSampler, FanoutAllGivesEveryInEdge) {
  const Graph graph = random_node_graph(100, 300, 3);
  NeighborSampler sampler(graph.in_edges(), {kAllNeighbors, kAllNeighbors});
  SampledBlocks batch;
  sampler.sample(first_nodes(5), 0, batch);
  const auto edges = block_in_edges(batch, 0);
  for (Index local = 0; local < batch.hop_sizes[1]; ++local) {
    const NodeId node = batch.nodes[local];
    std::multiset<NodeId> truth;
    for (Index p = graph.in_offsets()[node]; p < graph.in_offsets()[node + 1]; ++p) truth.insert(graph.in_sources()[p]);
    EXPECT_EQ(edges.at(node), truth) << "node " << node;
  }
}

TEST(NeighborSampler, WithoutSelfLoopsDrawsFromEveryInEdgeAsGiven) {
  const Graph graph = Graph::from_pairs(4, std::vector<std::pair<Index, Index>>{{1, 0}, {2, 0}, {0, 0}});
  NeighborSampler sampler(graph.in_edges(), {kAllNeighbors}, /*self_loops=*/false);
  SampledBlocks batch;
  sampler.sample(std::vector<NodeId>{0}, 0, batch);
  EXPECT_EQ(block_in_edges(batch, 0).at(0), (std::multiset<NodeId>{0, 1, 2}));
}

TEST(NeighborSampler, ANodeWithoutInEdgesKeepsItsSelfLoopOnly) {
  const Graph graph = Graph::from_pairs(3, std::vector<std::pair<Index, Index>>{{0, 1}});
  NeighborSampler sampler(graph.in_edges(), {3});
  SampledBlocks batch;
  sampler.sample(std::vector<NodeId>{0, 1}, 0, batch);
  const auto edges = block_in_edges(batch, 0);
  EXPECT_EQ(edges.at(0), (std::multiset<NodeId>{0}));
  EXPECT_EQ(edges.at(1), (std::multiset<NodeId>{0, 1}));
}

// Node 0 with `degree` in-neighbours: over many batch seeds, each is drawn fanout / degree of the time.
void expect_uniform_draws(Index degree, Index fanout) {
  std::vector<std::pair<Index, Index>> star;
  for (Index j = 1; j <= degree; ++j) star.emplace_back(j, 0);
  const Graph graph = Graph::from_pairs(degree + 1, star, {.add_self_loops = true});
  NeighborSampler sampler(graph.in_edges(), {fanout});
  SampledBlocks batch;
  std::vector<Index> drawn(static_cast<std::size_t>(degree) + 1, 0);
  const Index batches = 20000;
  for (Index b = 0; b < batches; ++b) {
    sampler.sample(std::vector<NodeId>{0}, static_cast<std::uint64_t>(b), batch);
    for (const auto& [source, target] : batch.blocks[0].edge_pairs())
      if (source != target) ++drawn[batch.nodes[source]];
  }
  const double expected = static_cast<double>(batches * fanout) / static_cast<double>(degree);
  for (Index j = 1; j <= degree; ++j)  // about 5 standard deviations
    EXPECT_NEAR(static_cast<double>(drawn[j]), expected, 5 * std::sqrt(expected)) << "neighbour " << j;
}

TEST(NeighborSampler, DrawsUniformlyByRejectionOnHighDegrees) { expect_uniform_draws(40, 5); }

TEST(NeighborSampler, DrawsUniformlyByShufflingOnLowDegrees) { expect_uniform_draws(8, 5); }

TEST(NeighborSampler, DependsOnTheBatchSeedAndNodeOnly) {
  const Graph graph = random_node_graph(500, 3000, 4);
  NeighborSampler sampler(graph.in_edges(), {6, 4});
  SampledBlocks a, b, c;
  std::vector<NodeId> seeds = first_nodes(30);
  sampler.sample(seeds, 11, a);
  sampler.sample(seeds, 11, b);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.blocks[0].edge_pairs(), b.blocks[0].edge_pairs());
  // Seeds in another order: the same neighbours of every seed.
  std::reverse(seeds.begin(), seeds.end());
  sampler.sample(seeds, 11, c);
  const auto first = block_in_edges(a, 1), reversed = block_in_edges(c, 1);
  EXPECT_EQ(first, reversed);
  sampler.sample(seeds, 12, c);
  EXPECT_NE(block_in_edges(c, 1), reversed) << "another batch seed draws other neighbours";
}

TEST(NeighborSampler, RejectsBadSeedsAndFanoutsAndStaysUsable) {
  const Graph graph = random_node_graph(50, 100, 5);
  EXPECT_THROW(NeighborSampler(graph.in_edges(), {}), ArgumentError);
  EXPECT_THROW(NeighborSampler(graph.in_edges(), {3, 0}), ArgumentError);
  EXPECT_THROW(NeighborSampler(graph.in_edges(), {-2}), ArgumentError);
  NeighborSampler sampler(graph.in_edges(), {3});
  SampledBlocks batch;
  EXPECT_THROW(sampler.sample(std::vector<NodeId>{1, 50}, 0, batch), ArgumentError);
  EXPECT_THROW(sampler.sample(std::vector<NodeId>{1, 2, 1}, 0, batch), ArgumentError);
  sampler.sample(std::vector<NodeId>{1, 2}, 0, batch);
  EXPECT_EQ(batch.hop_sizes.front(), 2);
  EXPECT_EQ(batch.nodes[0], 1);
  EXPECT_EQ(batch.nodes[1], 2);
}

}  // namespace
}  // namespace edgewise
