// LinkGraph: the kept edges as sorted CSR, its link test, and its draws of links and of nodes by
// their links.
#include "edgewise/graph/link_graph.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace edgewise {
namespace {

// A path 0 - 1 - 2 - 3 and the link 0 - 2, both directions given out of order, with self-loops.
Graph small_graph() {
  const std::vector<std::pair<Index, Index>> links = {{2, 1}, {0, 1}, {3, 2}, {0, 2}};
  return Graph::from_pairs(4, links, {.add_self_loops = true, .symmetrize = true});
}

TEST(LinkGraphTest, KeepsTheChosenLinksAndEverySelfLoopInSortedRows) {
  const Graph graph = small_graph();
  // Keeps every link but 0 - 2, whichever way round it is asked.
  const LinkGraph seen(graph.in_edges(), [](NodeId a, NodeId b) { return std::min(a, b) != 0 || std::max(a, b) != 2; });
  EXPECT_EQ(seen.num_nodes(), 4);
  EXPECT_EQ(seen.num_links(), 3);
  const InEdges edges = seen.in_edges();
  const std::vector<Index> offsets(edges.offsets.begin(), edges.offsets.end());
  const std::vector<NodeId> sources(edges.sources.begin(), edges.sources.end());
  EXPECT_EQ(offsets, (std::vector<Index>{0, 2, 5, 8, 10}));
  EXPECT_EQ(sources, (std::vector<NodeId>{0, 1, 0, 1, 2, 1, 2, 3, 2, 3}));
  EXPECT_TRUE(seen.linked(0, 1));
  EXPECT_TRUE(seen.linked(1, 0));
  EXPECT_TRUE(seen.linked(3, 2));
  EXPECT_FALSE(seen.linked(0, 2));
  EXPECT_FALSE(seen.linked(0, 3));
}

TEST(LinkGraphTest, DrawsEveryLinkAlikeAndNodesByTheirLinks) {
  const Graph graph = small_graph();
  const LinkGraph seen(graph.in_edges(), [](NodeId, NodeId) { return true; });
  SplitMix64 rng(7);
  std::map<std::pair<Index, Index>, int> links;
  std::map<NodeId, int> nodes;
  constexpr int kDraws = 40000;
  for (int i = 0; i < kDraws; ++i) {
    ++links[seen.draw_link(rng)];
    ++nodes[seen.draw_linked_node(rng)];
  }
  EXPECT_EQ(links.size(), 4U);
  for (const auto& [link, count] : links) {
    EXPECT_LT(link.first, link.second);
    EXPECT_TRUE(seen.linked(static_cast<NodeId>(link.first), static_cast<NodeId>(link.second)));
    EXPECT_NEAR(count, kDraws / 4, kDraws / 40);  // a quarter each, within 10 %
  }
  // Degrees 2, 2, 3, 1 of 8 link ends.
  const std::map<NodeId, double> share = {{0, 2 / 8.0}, {1, 2 / 8.0}, {2, 3 / 8.0}, {3, 1 / 8.0}};
  for (const auto& [node, count] : nodes) EXPECT_NEAR(count, kDraws * share.at(node), kDraws * 0.02) << node;
}

}  // namespace
}  // namespace edgewise
