// complete_graph and window_graph: exact edge sets and order, corner cases, argument checks.
#include "edgewise/graph/patterns.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

using Pairs = std::vector<std::pair<Index, Index>>;

TEST(CompleteGraph, HasEveryOrderedPairOnceGroupedByTarget) {
  const Index n = 7;
  const Graph g = complete_graph(n);
  ASSERT_EQ(g.num_nodes(), n);
  ASSERT_EQ(g.num_edges(), n * n);
  const Pairs pairs = g.edge_pairs();
  const std::set<std::pair<Index, Index>> unique(pairs.begin(), pairs.end());
  EXPECT_EQ(unique.size(), static_cast<std::size_t>(n * n));
  for (Index e = 0; e < n * n; ++e) {
    EXPECT_EQ(g.target(e), e / n);
    EXPECT_EQ(g.source(e), e % n);
  }
  for (Index i = 0; i < n; ++i) {
    EXPECT_EQ(g.in_degree(i), n);
    EXPECT_EQ(g.out_degree(i), n);
  }
}

TEST(CompleteGraph, SmallSizes) {
  EXPECT_EQ(complete_graph(0).num_edges(), 0);
  EXPECT_EQ(complete_graph(0).num_nodes(), 0);
  EXPECT_EQ(complete_graph(1).edge_pairs(), (Pairs{{0, 0}}));
  EXPECT_EQ(complete_graph(2).edge_pairs(), (Pairs{{0, 0}, {1, 0}, {0, 1}, {1, 1}}));
}

TEST(WindowGraph, HandCheckedEdges) {
  // Position i attends to i - 1, i, i + 1 where they exist.
  const Pairs expected = {{0, 0}, {1, 0},          //
                          {0, 1}, {1, 1}, {2, 1},  //
                          {1, 2}, {2, 2}, {3, 2},  //
                          {2, 3}, {3, 3}, {4, 3},  //
                          {3, 4}, {4, 4}};
  EXPECT_EQ(window_graph(5, 1).edge_pairs(), expected);
}

TEST(WindowGraph, EdgeSetAndCountMatchTheDefinition) {
  for (Index n : {1, 2, 5, 16, 33}) {
    for (Index radius : {0, 1, 2, 3, 7, 15}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", radius = " + std::to_string(radius));
      const Graph g = window_graph(n, radius);
      Index expected_edges = 0;
      for (Index i = 0; i < n; ++i) expected_edges += std::min(n - 1, i + radius) - std::max<Index>(0, i - radius) + 1;
      ASSERT_EQ(g.num_edges(), expected_edges);
      const Pairs pairs = g.edge_pairs();
      const std::set<std::pair<Index, Index>> unique(pairs.begin(), pairs.end());
      EXPECT_EQ(unique.size(), pairs.size());
      for (const auto& [j, i] : pairs) EXPECT_LE(std::abs(i - j), radius) << j << " -> " << i;
    }
  }
}

TEST(WindowGraph, RadiusZeroGivesOnlySelfLoops) {
  const Graph g = window_graph(6, 0);
  EXPECT_EQ(g.edge_pairs(), (Pairs{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}));
}

TEST(WindowGraph, LargeRadiusGivesTheCompleteGraph) {
  const Pairs complete = complete_graph(6).edge_pairs();
  EXPECT_EQ(window_graph(6, 5).edge_pairs(), complete);
  EXPECT_EQ(window_graph(6, 6).edge_pairs(), complete);
  EXPECT_EQ(window_graph(6, 1000).edge_pairs(), complete);
  EXPECT_EQ(window_graph(6, std::numeric_limits<Index>::max()).edge_pairs(), complete);
  EXPECT_EQ(window_graph(0, 3).num_nodes(), 0);
}

TEST(Generators, RejectNegativeAndOversizedArguments) {
  EXPECT_THROW(complete_graph(-1), ArgumentError);
  EXPECT_THROW(window_graph(-3, 1), ArgumentError);
  EXPECT_THROW(window_graph(4, -1), ArgumentError);
  // Too many edges is reported before any edge list is allocated.
  EXPECT_THROW(complete_graph(100000), ArgumentError);
  EXPECT_THROW(window_graph(std::numeric_limits<Index>::max(), 0), ArgumentError);
  try {
    window_graph(10, -2);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& error) {
    EXPECT_NE(std::string(error.what()).find("negative radius -2"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace edgewise
