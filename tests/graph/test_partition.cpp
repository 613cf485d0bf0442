// partition_graph (METIS) and graph_part: parts cover every node, follow the graph's communities, and
// a part's rows, in-edges, halo and sent rows agree with the whole graph and with the other parts.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/random.hpp"
#include "edgewise/graph/partition.hpp"

namespace edgewise {
namespace {

// Two 6-cliques, both directions of every edge, joined by the edge 0 -> 6 alone.
Graph two_cliques() {
  std::vector<std::pair<Index, Index>> edges;
  for (Index clique : {0, 6})
    for (Index i = 0; i < 6; ++i)
      for (Index j = 0; j < 6; ++j)
        if (i != j) edges.emplace_back(clique + i, clique + j);
  edges.emplace_back(0, 6);
  return Graph::from_pairs(12, edges);
}

// 300 random directed edges over 80 nodes, with self-loops; nodes 70-79 have no in-edges.
Graph random_graph() {
  SplitMix64 rng(5);
  std::vector<std::pair<Index, Index>> edges;
  for (int e = 0; e < 300; ++e)
    edges.emplace_back(static_cast<Index>(rng.uniform() * 80), static_cast<Index>(rng.uniform() * 70));
  return Graph::from_pairs(80, edges, {.add_self_loops = false});
}

TEST(PartitionTest, FollowsCommunities) {
  const Graph graph = two_cliques();
  const std::vector<std::int32_t> owner = partition_graph(graph.in_edges(), 2);
  ASSERT_EQ(owner.size(), 12U);
  for (Index i = 1; i < 6; ++i) {
    EXPECT_EQ(owner[i], owner[0]);
    EXPECT_EQ(owner[6 + i], owner[6]);
  }
  EXPECT_NE(owner[0], owner[6]);
  EXPECT_EQ(cut_edges(graph.in_edges(), owner), 1);
  EXPECT_EQ(partition_graph(graph.in_edges(), 2), owner) << "the same graph and seed give the same parts";
}

TEST(PartitionTest, OnePartAndOddCounts) {
  const Graph graph = two_cliques();
  EXPECT_EQ(partition_graph(graph.in_edges(), 1), std::vector<std::int32_t>(12, 0));
  EXPECT_THROW(partition_graph(graph.in_edges(), 0), ArgumentError);
  EXPECT_THROW(partition_graph(graph.in_edges(), 13), ArgumentError);
  // No edges: every part still gets a node.
  const std::vector<std::int32_t> owner = partition_graph(Graph::from_pairs(5, {}).in_edges(), 5);
  EXPECT_EQ(std::set<std::int32_t>(owner.begin(), owner.end()).size(), 5U);
}

TEST(PartitionTest, PartsAgreeWithTheGraphAndEachOther) {
  const Graph graph = random_graph();
  constexpr int kParts = 3;
  const std::vector<std::int32_t> owner = partition_graph(graph.in_edges(), kParts);
  std::vector<GraphPart> parts;
  for (int p = 0; p < kParts; ++p) parts.push_back(graph_part(graph.in_edges(), owner, p, kParts));
  Index owned = 0;
  for (const GraphPart& part : parts) {
    owned += part.owned;
    EXPECT_GT(part.owned, 0);
    EXPECT_EQ(part.graph.num_nodes(), part.rows());
    // Own rows: the part's nodes, ascending.
    for (Index r = 0; r < part.owned; ++r) {
      EXPECT_EQ(owner[part.nodes[r]], part.part);
      if (r > 0) {
        EXPECT_LT(part.nodes[r - 1], part.nodes[r]);
      }
    }
    // The halo: the in-neighbours of own nodes owned elsewhere, by owner then id.
    std::set<NodeId> expected_halo;
    for (Index r = 0; r < part.owned; ++r)
      for (Index e = graph.in_offsets()[part.nodes[r]]; e < graph.in_offsets()[part.nodes[r] + 1]; ++e)
        if (owner[graph.in_sources()[e]] != part.part) expected_halo.insert(graph.in_sources()[e]);
    std::vector<std::pair<std::int32_t, NodeId>> halo;
    for (const NodeId j : expected_halo) halo.emplace_back(owner[j], j);
    std::sort(halo.begin(), halo.end());
    ASSERT_EQ(part.rows() - part.owned, static_cast<Index>(halo.size()));
    for (std::size_t h = 0; h < halo.size(); ++h) EXPECT_EQ(part.nodes[part.owned + static_cast<Index>(h)], halo[h].second);
    for (int p = 0; p < kParts; ++p)
      EXPECT_EQ(part.halo_counts[p], std::count_if(halo.begin(), halo.end(), [&](const auto& h) { return h.first == p; }));
    // Every own node's in-edges in the whole graph's order; none for halo rows.
    for (Index r = 0; r < part.rows(); ++r) {
      const NodeId i = part.nodes[r];
      const Index degree = r < part.owned ? graph.in_degree(i) : 0;
      ASSERT_EQ(part.graph.in_degree(r), degree);
      for (Index k = 0; k < degree; ++k)
        EXPECT_EQ(part.nodes[part.graph.in_sources()[part.graph.in_offsets()[r] + k]],
                  graph.in_sources()[graph.in_offsets()[i] + k]);
    }
  }
  EXPECT_EQ(owned, graph.num_nodes());
  const std::vector<PartSizes> sizes = part_sizes(graph.in_edges(), owner, kParts);
  for (const GraphPart& part : parts) {
    EXPECT_EQ(sizes[part.part].nodes, part.owned);
    EXPECT_EQ(sizes[part.part].in_edges, part.graph.num_edges());
    EXPECT_EQ(sizes[part.part].halo, part.rows() - part.owned);
  }
  // What part p sends part s is, in order, the halo rows s holds from p.
  for (const GraphPart& from : parts)
    for (const GraphPart& to : parts) {
      if (from.part == to.part) {
        EXPECT_TRUE(from.sent_rows[from.part].empty());
        continue;
      }
      std::vector<NodeId> sent, held;
      for (const Index r : from.sent_rows[to.part]) sent.push_back(from.nodes[r]);
      for (Index r = to.owned; r < to.rows(); ++r)
        if (owner[to.nodes[r]] == from.part) held.push_back(to.nodes[r]);
      EXPECT_EQ(sent, held) << "from part " << from.part << " to part " << to.part;
    }
}

TEST(PartitionTest, RefusesOwnersThatDoNotFit) {
  const Graph graph = two_cliques();
  EXPECT_THROW(graph_part(graph.in_edges(), std::vector<std::int32_t>(11, 0), 0, 1), ArgumentError);
  EXPECT_THROW(graph_part(graph.in_edges(), std::vector<std::int32_t>(12, 2), 0, 2), ArgumentError);
  EXPECT_THROW(graph_part(graph.in_edges(), std::vector<std::int32_t>(12, 0), 2, 2), ArgumentError);
  EXPECT_THROW(part_sizes(graph.in_edges(), std::vector<std::int32_t>(12, 2), 2), ArgumentError);
}

}  // namespace
}  // namespace edgewise
