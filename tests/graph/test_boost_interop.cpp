// Boost.Graph round trips: directed, bidirectional and undirected adjacency lists keep the edge
// multiset, parallel edges and self-loops included.
#include "edgewise/graph/boost_interop.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "edgewise/core/random.hpp"
#include "support/random_graph.hpp"

namespace edgewise {
namespace {

using Pairs = std::vector<std::pair<Index, Index>>;
using Undirected = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
using Bidirectional = boost::adjacency_list<boost::listS, boost::vecS, boost::bidirectionalS>;

Pairs sorted(Pairs pairs) {
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

using testing::random_pairs;

template <typename BoostGraph>
Pairs boost_edge_pairs(const BoostGraph& g) {
  Pairs pairs;
  for (auto [edge, end] = boost::edges(g); edge != end; ++edge)
    pairs.emplace_back(static_cast<Index>(boost::source(*edge, g)), static_cast<Index>(boost::target(*edge, g)));
  return pairs;
}

TEST(BoostInterop, DirectedRoundTripKeepsTheEdgeMultiset) {
  const Pairs edges = random_pairs(20, 70, 1);
  const Graph graph = Graph::from_pairs(20, edges);
  const BoostDigraph boost_graph = to_boost(graph);
  EXPECT_EQ(boost::num_vertices(boost_graph), 20u);
  EXPECT_EQ(sorted(boost_edge_pairs(boost_graph)), sorted(edges));
  const Graph back = from_boost(boost_graph);
  EXPECT_EQ(back.num_nodes(), 20);
  EXPECT_EQ(sorted(back.edge_pairs()), sorted(edges));
}

TEST(BoostInterop, BidirectionalRoundTripKeepsTheEdgeMultiset) {
  const Pairs edges = random_pairs(9, 40, 2);
  const Graph graph = Graph::from_pairs(12, edges);  // nodes 9..11 isolated
  const Graph back = from_boost(to_boost<Bidirectional>(graph));
  EXPECT_EQ(back.num_nodes(), 12);
  EXPECT_EQ(sorted(back.edge_pairs()), sorted(edges));
}

TEST(BoostInterop, DirectedEdgesMapOneToOne) {
  BoostDigraph boost_graph(4);
  boost::add_edge(0, 1, boost_graph);
  boost::add_edge(2, 1, boost_graph);
  boost::add_edge(0, 1, boost_graph);
  boost::add_edge(3, 3, boost_graph);
  const Graph graph = from_boost(boost_graph);
  EXPECT_EQ(graph.num_nodes(), 4);
  EXPECT_EQ(sorted(graph.edge_pairs()), (Pairs{{0, 1}, {0, 1}, {2, 1}, {3, 3}}));
}

TEST(BoostInterop, UndirectedEdgesBecomeBothDirections) {
  Undirected boost_graph(5);
  boost::add_edge(0, 1, boost_graph);
  boost::add_edge(3, 1, boost_graph);
  boost::add_edge(3, 1, boost_graph);  // parallel
  boost::add_edge(2, 2, boost_graph);  // self-loop: one edge
  const Graph graph = from_boost(boost_graph);
  EXPECT_EQ(graph.num_nodes(), 5);
  EXPECT_EQ(sorted(graph.edge_pairs()), (Pairs{{0, 1}, {1, 0}, {1, 3}, {1, 3}, {2, 2}, {3, 1}, {3, 1}}));
}

TEST(BoostInterop, UndirectedRoundTripKeepsTheEdgeMultiset) {
  Undirected original(15);
  for (const auto& [u, v] : random_pairs(15, 50, 3))
    boost::add_edge(static_cast<std::size_t>(u), static_cast<std::size_t>(v), original);
  const Graph graph = from_boost(original);
  const Undirected back = to_boost<Undirected>(graph);
  EXPECT_EQ(boost::num_vertices(back), 15u);
  // Undirected edges compared as (smaller, larger) pairs.
  const auto normalized = [](Pairs pairs) {
    for (auto& [u, v] : pairs)
      if (u > v) std::swap(u, v);
    return sorted(std::move(pairs));
  };
  EXPECT_EQ(normalized(boost_edge_pairs(back)), normalized(boost_edge_pairs(original)));
  EXPECT_EQ(sorted(from_boost(back).edge_pairs()), sorted(graph.edge_pairs()));
}

TEST(BoostInterop, UndirectedTargetRejectsAsymmetricGraphs) {
  // 0 -> 1 twice but 1 -> 0 once.
  const Graph graph = Graph::from_pairs(3, Pairs{{0, 1}, {1, 0}, {0, 1}, {2, 2}});
  try {
    to_boost<Undirected>(graph);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& error) {
    EXPECT_NE(std::string(error.what()).find("0 -> 1 and 1 -> 0"), std::string::npos) << error.what();
  }
  const Graph one_way = Graph::from_pairs(3, Pairs{{2, 1}});
  EXPECT_THROW(to_boost<Undirected>(one_way), ArgumentError);
}

TEST(BoostInterop, OptionsApplyOnConversion) {
  BoostDigraph boost_graph(3);
  boost::add_edge(0, 1, boost_graph);
  boost::add_edge(0, 1, boost_graph);
  const Graph graph = from_boost(boost_graph, {.add_self_loops = true, .symmetrize = true, .drop_duplicates = true});
  EXPECT_EQ(graph.edge_pairs(), (Pairs{{0, 1}, {1, 0}, {0, 0}, {1, 1}, {2, 2}}));
}

}  // namespace
}  // namespace edgewise
