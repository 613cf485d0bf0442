// Splits of a graph's links for link prediction: parts by undirected pair, negatives that are no link.
#include "edgewise/splits/link_split.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

// Every pair of a ring of n nodes and its chords to the node two further on: 2n links.
std::vector<NodePair> ring_with_chords(Index n) {
  std::vector<NodePair> links;
  for (Index i = 0; i < n; ++i) {
    links.emplace_back(std::min(i, (i + 1) % n), std::max(i, (i + 1) % n));
    links.emplace_back(std::min(i, (i + 2) % n), std::max(i, (i + 2) % n));
  }
  return links;
}

TEST(UndirectedLinksTest, OrdersPairsAndLeavesOutSelfPairsAndRepeats) {
  const std::vector<NodePair> edges = {{3, 1}, {1, 3}, {2, 2}, {0, 4}, {1, 3}, {4, 0}, {2, 5}};
  const UndirectedLinks links = undirected_links(edges);
  EXPECT_EQ(links.pairs, (std::vector<NodePair>{{1, 3}, {0, 4}, {2, 5}}));
  EXPECT_EQ(links.self_pairs, 1);
  EXPECT_EQ(links.repeats, 3);
}

TEST(LinkSetTest, KnowsAPairEitherWayRound) {
  LinkSet set(std::vector<NodePair>{{1, 3}, {0, 4}});
  EXPECT_TRUE(set.contains(3, 1));
  EXPECT_TRUE(set.contains(0, 4));
  EXPECT_FALSE(set.contains(1, 4));
  set.insert(4, 1);
  EXPECT_TRUE(set.contains(1, 4));
  set.forget_inserted();
  EXPECT_FALSE(set.contains(1, 4));
  EXPECT_TRUE(set.contains(1, 3));
}

// A star of 10 leaves around node 0, the link 11-12, and nodes 13-19 with no link: drawn by their
// links, non-links never touch a node without one.
TEST(DrawNonLinksTest, ByDegreeLeaveOutNodesWithoutLinks) {
  std::vector<NodePair> links;
  for (Index leaf = 1; leaf <= 10; ++leaf) links.emplace_back(0, leaf);
  links.emplace_back(11, 12);
  LinkSet excluded(links);
  SplitMix64 rng(5);
  const std::vector<NodePair> drawn = draw_degree_weighted_non_links(40, links, excluded, rng);
  ASSERT_EQ(drawn.size(), 40u);
  std::set<NodePair> distinct(drawn.begin(), drawn.end());
  EXPECT_EQ(distinct.size(), 40u);
  const LinkSet given(links);
  for (const auto& [a, b] : drawn) {
    EXPECT_LT(b, 13) << a << "-" << b;
    EXPECT_FALSE(given.contains(a, b)) << a << "-" << b << " is a link";
  }
  LinkSet none(std::vector<NodePair>{});
  EXPECT_THROW(draw_degree_weighted_non_links(1, {}, none, rng), ArgumentError);
  EXPECT_THROW(draw_non_links(1, 1, none, rng), ArgumentError);
}

TEST(SplitLinksTest, PartsAreDisjointAndNegativesAreNoLinks) {
  const std::vector<NodePair> links = ring_with_chords(50);  // 100 links
  const LinkSplit split = split_links(links, 50, 0.85, 0.05, 7);
  EXPECT_EQ(split.train.size(), 85u);
  EXPECT_EQ(split.val.size(), 5u);
  EXPECT_EQ(split.test.size(), 10u);
  std::set<NodePair> seen;
  for (const auto* part : {&split.train, &split.val, &split.test})
    for (const NodePair& link : *part) EXPECT_TRUE(seen.insert(link).second) << "a link in two parts";
  EXPECT_EQ(seen, std::set<NodePair>(links.begin(), links.end()));
  EXPECT_EQ(split.val_negatives.size(), split.val.size());
  EXPECT_EQ(split.test_negatives.size(), split.test.size());
  std::set<NodePair> negatives;
  for (const auto* part : {&split.val_negatives, &split.test_negatives})
    for (const auto& [a, b] : *part) {
      EXPECT_LT(a, b);
      EXPECT_GE(a, 0);
      EXPECT_LT(b, 50);
      EXPECT_FALSE(seen.contains({a, b})) << a << "-" << b << " is a link";
      EXPECT_TRUE(negatives.insert({a, b}).second) << a << "-" << b << " drawn twice";
    }
}

TEST(SplitLinksTest, TheSeedFixesLinksAndNegatives) {
  const std::vector<NodePair> links = ring_with_chords(40);
  const LinkSplit a = split_links(links, 40, 0.8, 0.1, 3), b = split_links(links, 40, 0.8, 0.1, 3);
  const LinkSplit c = split_links(links, 40, 0.8, 0.1, 4);
  EXPECT_EQ(a.test, b.test);
  EXPECT_EQ(a.test_negatives, b.test_negatives);
  EXPECT_NE(a.test, c.test);
  EXPECT_NE(a.val_negatives, c.val_negatives);
}

TEST(SplitLinksTest, RefusesWhatIsNoLinkOrLeavesNoNegatives) {
  EXPECT_THROW(split_links(std::vector<NodePair>{{0, 5}}, 5, 0.8, 0.1, 0), ArgumentError);  // node 5 of 5
  EXPECT_THROW(split_links(std::vector<NodePair>{{2, 2}}, 5, 0.8, 0.1, 0), ArgumentError);
  EXPECT_THROW(split_links(ring_with_chords(10), 10, 1.5, 0.1, 0), ArgumentError);
  // Every pair of 5 nodes is a link: no negatives to draw.
  std::vector<NodePair> complete;
  for (Index a = 0; a < 5; ++a)
    for (Index b = a + 1; b < 5; ++b) complete.emplace_back(a, b);
  EXPECT_THROW(split_links(complete, 5, 0.6, 0.2, 0), ArgumentError);
}

}  // namespace
}  // namespace edgewise
