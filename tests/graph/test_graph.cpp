// Graph builders: argument checks, CSR by destination and its by-source transpose against the edge
// list, and the builder options.
#include "edgewise/graph/graph.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/random.hpp"
#include "support/random_graph.hpp"

namespace edgewise {
namespace {

using Pairs = std::vector<std::pair<Index, Index>>;
using testing::random_pairs;

// The message of the GraphError thrown by `build`, or "" when none is thrown.
template <typename Build>
std::string graph_error_message(Build&& build) {
  try {
    build();
  } catch (const GraphError& error) {
    return error.what();
  }
  return "";
}

// Checks both indices against the edge list: each edge once per index, at the right node.
void expect_indices_match_edges(const Graph& g) {
  const Index n = g.num_nodes(), m = g.num_edges();
  ASSERT_EQ(static_cast<Index>(g.in_offsets().size()), n + 1);
  ASSERT_EQ(static_cast<Index>(g.out_offsets().size()), n + 1);
  ASSERT_EQ(static_cast<Index>(g.in_sources().size()), m);
  ASSERT_EQ(static_cast<Index>(g.edge_positions().size()), m);
  ASSERT_EQ(static_cast<Index>(g.out_targets().size()), m);
  ASSERT_EQ(static_cast<Index>(g.out_positions().size()), m);
  EXPECT_EQ(g.in_offsets().front(), 0);
  EXPECT_EQ(g.in_offsets().back(), m);
  EXPECT_EQ(g.out_offsets().front(), 0);
  EXPECT_EQ(g.out_offsets().back(), m);

  std::vector<int> edge_seen(static_cast<std::size_t>(m), 0);  // per CSR position
  std::vector<NodeId> edge_at(static_cast<std::size_t>(m), -1);
  for (Index e = 0; e < m; ++e) {
    const NodeId p = g.edge_positions()[e];
    ASSERT_GE(p, 0);
    ASSERT_LT(p, m);
    ++edge_seen[p];
    edge_at[p] = static_cast<NodeId>(e);
  }
  EXPECT_TRUE(std::all_of(edge_seen.begin(), edge_seen.end(), [](int c) { return c == 1; }));
  for (Index i = 0; i < n; ++i) {
    ASSERT_LE(g.in_offsets()[i], g.in_offsets()[i + 1]);
    for (Index p = g.in_offsets()[i]; p < g.in_offsets()[i + 1]; ++p) {
      EXPECT_EQ(g.target(edge_at[p]), i) << "position " << p;
      EXPECT_EQ(g.in_sources()[p], g.source(edge_at[p])) << "position " << p;
    }
  }

  std::vector<int> position_seen(static_cast<std::size_t>(m), 0);
  for (Index j = 0; j < n; ++j) {
    ASSERT_LE(g.out_offsets()[j], g.out_offsets()[j + 1]);
    for (Index s = g.out_offsets()[j]; s < g.out_offsets()[j + 1]; ++s) {
      const NodeId p = g.out_positions()[s];
      ASSERT_GE(p, 0);
      ASSERT_LT(p, m);
      ++position_seen[p];
      const NodeId e = edge_at[p];
      EXPECT_EQ(g.source(e), j) << "slot " << s;
      EXPECT_EQ(g.in_sources()[p], j) << "slot " << s;
      EXPECT_EQ(g.out_targets()[s], g.target(e)) << "slot " << s;
    }
  }
  EXPECT_TRUE(std::all_of(position_seen.begin(), position_seen.end(), [](int c) { return c == 1; }));

  const Pairs pairs = g.edge_pairs();
  for (Index i = 0; i < n; ++i) {
    EXPECT_EQ(g.in_degree(i), std::count_if(pairs.begin(), pairs.end(), [i](const auto& p) { return p.second == i; }));
    EXPECT_EQ(g.out_degree(i), std::count_if(pairs.begin(), pairs.end(), [i](const auto& p) { return p.first == i; }));
  }
}

TEST(GraphBuilder, RejectsNegativeIdsNamingThePair) {
  const Pairs edges = {{0, 1}, {2, -1}};
  const std::string message = graph_error_message([&] { Graph::from_pairs(3, edges); });
  EXPECT_NE(message.find("edge 1 (2 -> -1)"), std::string::npos) << message;
  EXPECT_NE(message.find("[0, 3)"), std::string::npos) << message;
}

TEST(GraphBuilder, RejectsOutOfRangeIdsNamingThePair) {
  const std::vector<Index> sources = {0, 1, 5}, targets = {1, 2, 0};
  const std::string message = graph_error_message([&] { Graph::from_edges(5, sources, targets); });
  EXPECT_NE(message.find("edge 2 (5 -> 0)"), std::string::npos) << message;

  const Pairs target_out_of_range = {{4, 7}};
  const std::string target_message = graph_error_message([&] { Graph::from_pairs(5, target_out_of_range); });
  EXPECT_NE(target_message.find("(4 -> 7)"), std::string::npos) << target_message;
}

TEST(GraphBuilder, RejectsMismatchedLengthsAndNegativeNodeCount) {
  const std::vector<Index> sources = {0, 1, 2}, targets = {1, 2};
  const std::string message = graph_error_message([&] { Graph::from_edges(3, sources, targets); });
  EXPECT_NE(message.find("3 sources but 2 targets"), std::string::npos) << message;

  const std::string negative = graph_error_message([] { Graph::from_pairs(-2, Pairs{}); });
  EXPECT_NE(negative.find("negative node count -2"), std::string::npos) << negative;
}

TEST(GraphBuilder, EmptyGraphs) {
  const Graph none;
  EXPECT_EQ(none.num_nodes(), 0);
  EXPECT_EQ(none.num_edges(), 0);
  expect_indices_match_edges(none);

  const Graph isolated = Graph::from_pairs(4, Pairs{});
  EXPECT_EQ(isolated.num_edges(), 0);
  expect_indices_match_edges(isolated);
  for (Index i = 0; i < 4; ++i) {
    EXPECT_EQ(isolated.in_degree(i), 0);
    EXPECT_EQ(isolated.out_degree(i), 0);
  }
}

TEST(GraphBuilder, KeepsTheCallersEdgeOrder) {
  const Pairs edges = {{2, 0}, {0, 1}, {1, 1}, {2, 0}, {0, 2}};
  const Graph g = Graph::from_pairs(3, edges);
  EXPECT_EQ(g.edge_pairs(), edges);
  EXPECT_EQ(g.source(3), 2);
  EXPECT_EQ(g.target(4), 2);
  expect_indices_match_edges(g);
}

TEST(GraphBuilder, IndicesMatchEdgesOnRandomGraphs) {
  SplitMix64 rng(7);
  for (const auto& [n, m] : std::vector<std::pair<Index, Index>>{{1, 3}, {5, 0}, {10, 30}, {50, 400}, {200, 150}}) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m));
    const Pairs edges = random_pairs(n, m, rng);
    const Graph g = Graph::from_pairs(n, edges);
    EXPECT_EQ(g.edge_pairs(), edges);
    expect_indices_match_edges(g);
  }
}

// The same arrays in every index: what assign() must rebuild whatever the graph held before.
void expect_same_graph(const Graph& a, const Graph& b) {
  EXPECT_EQ(a.num_nodes(), b.num_nodes());
  EXPECT_EQ(a.edge_pairs(), b.edge_pairs());
  EXPECT_TRUE(std::ranges::equal(a.in_offsets(), b.in_offsets()));
  EXPECT_TRUE(std::ranges::equal(a.in_sources(), b.in_sources()));
  EXPECT_TRUE(std::ranges::equal(a.edge_positions(), b.edge_positions()));
  EXPECT_TRUE(std::ranges::equal(a.out_offsets(), b.out_offsets()));
  EXPECT_TRUE(std::ranges::equal(a.out_targets(), b.out_targets()));
  EXPECT_TRUE(std::ranges::equal(a.out_positions(), b.out_positions()));
}

TEST(GraphBuilder, AssignRebuildsInPlaceAsFromEdges) {
  SplitMix64 rng(11);
  Graph reused;
  // Larger and smaller graphs in turn, so that buffers both grow and shrink.
  for (const auto& [n, m] : std::vector<std::pair<Index, Index>>{{50, 400}, {3, 2}, {1, 0}, {0, 0}, {80, 300}, {10, 30}}) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m));
    const Pairs edges = random_pairs(n, m, rng);
    std::vector<NodeId> sources, targets;
    for (const auto& [s, t] : edges) {
      sources.push_back(static_cast<NodeId>(s));
      targets.push_back(static_cast<NodeId>(t));
    }
    reused.assign(n, sources, targets);
    expect_same_graph(reused, Graph::from_pairs(n, edges));
    expect_indices_match_edges(reused);
  }
}

TEST(GraphBuilder, AssignRejectsWhatFromEdgesRejects) {
  Graph g;
  const std::vector<NodeId> sources = {0, 1, 5}, targets = {1, 2, 0};
  const std::string message = graph_error_message([&] { g.assign(5, sources, targets); });
  EXPECT_NE(message.find("edge 2 (5 -> 0)"), std::string::npos) << message;
  const std::vector<NodeId> short_targets = {1, 2};
  const std::string lengths = graph_error_message([&] { g.assign(5, sources, short_targets); });
  EXPECT_NE(lengths.find("3 sources but 2 targets"), std::string::npos) << lengths;
}

// A block of neighbour sampling: edges lead into the first nodes only, the others are sources.
TEST(GraphBuilder, AssignWithTargetsKeepsThemAndRejectsAnEdgeIntoAnotherNode) {
  Graph g;
  EXPECT_EQ(Graph::from_pairs(3, Pairs{{0, 1}}).num_targets(), 3);
  const std::vector<NodeId> sources = {2, 3, 0}, targets = {0, 1, 1};
  g.assign(4, sources, targets, 2);
  EXPECT_EQ(g.num_nodes(), 4);
  EXPECT_EQ(g.num_targets(), 2);
  EXPECT_EQ(g.in_degree(1), 2);
  g.assign(4, sources, targets);
  EXPECT_EQ(g.num_targets(), 4);
  const std::vector<NodeId> into_source = {2};
  const std::string message = graph_error_message([&] { g.assign(4, std::vector<NodeId>{0}, into_source, 2); });
  EXPECT_NE(message.find("leads into node 2, not one of the first 2 nodes"), std::string::npos) << message;
  EXPECT_NE(graph_error_message([&] { g.assign(4, sources, targets, 5); }).find("5 targets of 4 nodes"), std::string::npos);
}

TEST(GraphBuilder, FromInEdgesKeepsTheCsrAndOrdersEdgesByIt) {
  SplitMix64 rng(12);
  const Pairs edges = random_pairs(40, 200, rng);
  const Graph original = Graph::from_pairs(40, edges);
  const Graph copy = Graph::from_in_edges(original.in_edges());
  EXPECT_TRUE(std::ranges::equal(copy.in_offsets(), original.in_offsets()));
  EXPECT_TRUE(std::ranges::equal(copy.in_sources(), original.in_sources()));
  for (Index e = 0; e < copy.num_edges(); ++e) EXPECT_EQ(copy.edge_positions()[e], e);
  expect_indices_match_edges(copy);
}

TEST(GraphBuilder, FromInEdgesRejectsBrokenOffsetsAndSources) {
  const std::vector<NodeId> sources = {1, 0, 2};
  const std::vector<Index> good = {0, 1, 3, 3}, not_from_zero = {1, 1, 3, 3}, short_end = {0, 1, 2, 2},
                           decreasing = {0, 2, 1, 3};
  EXPECT_EQ(Graph::from_in_edges({good, sources}).num_edges(), 3);
  for (const auto* offsets : {&not_from_zero, &short_end})
    EXPECT_NE(graph_error_message([&] { Graph::from_in_edges({*offsets, sources}); }).find("from 0 to the number"),
              std::string::npos);
  EXPECT_NE(graph_error_message([&] { Graph::from_in_edges({decreasing, sources}); }).find("decrease at node 1"),
            std::string::npos);
  const std::vector<NodeId> out_of_range = {1, 0, 3};
  EXPECT_NE(graph_error_message([&] { Graph::from_in_edges({good, out_of_range}); }).find("(3 -> 1)"),
            std::string::npos);
}

TEST(GraphOptions, AddSelfLoopsAppendsMissingLoopsInNodeOrder) {
  const Pairs edges = {{0, 1}, {2, 2}, {1, 0}};
  const Graph g = Graph::from_pairs(4, edges, {.add_self_loops = true});
  const Pairs expected = {{0, 1}, {2, 2}, {1, 0}, {0, 0}, {1, 1}, {3, 3}};
  EXPECT_EQ(g.edge_pairs(), expected);
  expect_indices_match_edges(g);
}

TEST(GraphOptions, SymmetrizeAppendsMissingReversesInEdgeOrder) {
  // 0 -> 1 already has its reverse; the self-loop is its own reverse; 2 -> 3 appears twice but is
  // reversed once.
  const Pairs edges = {{0, 1}, {2, 3}, {1, 0}, {3, 4}, {4, 4}, {2, 3}};
  const Graph g = Graph::from_pairs(5, edges, {.symmetrize = true});
  Pairs expected = edges;
  expected.insert(expected.end(), {{3, 2}, {4, 3}});
  EXPECT_EQ(g.edge_pairs(), expected);
  expect_indices_match_edges(g);
}

TEST(GraphOptions, DropDuplicatesKeepsFirstOccurrences) {
  const Pairs edges = {{1, 2}, {0, 0}, {1, 2}, {2, 1}, {0, 0}, {3, 1}};
  const Graph g = Graph::from_pairs(4, edges, {.drop_duplicates = true});
  const Pairs expected = {{1, 2}, {0, 0}, {2, 1}, {3, 1}};
  EXPECT_EQ(g.edge_pairs(), expected);
  expect_indices_match_edges(g);
}

TEST(GraphOptions, AllOptionsApplyInDocumentedOrder) {
  const Pairs edges = {{0, 1}, {0, 1}, {2, 2}};
  const Graph g = Graph::from_pairs(3, edges, {.add_self_loops = true, .symmetrize = true, .drop_duplicates = true});
  const Pairs expected = {{0, 1}, {2, 2}, {1, 0}, {0, 0}, {1, 1}};
  EXPECT_EQ(g.edge_pairs(), expected);
  expect_indices_match_edges(g);
}

TEST(GraphOptions, SymmetrizedRandomGraphsHaveEveryReverse) {
  SplitMix64 rng(11);
  const Graph g = Graph::from_pairs(30, random_pairs(30, 80, rng), {.symmetrize = true, .drop_duplicates = true});
  const Pairs pairs = g.edge_pairs();
  for (const auto& [s, t] : pairs) {
    EXPECT_EQ(std::count(pairs.begin(), pairs.end(), std::pair<Index, Index>{s, t}), 1);
    EXPECT_EQ(std::count(pairs.begin(), pairs.end(), std::pair<Index, Index>{t, s}), 1);
  }
  expect_indices_match_edges(g);
}

}  // namespace
}  // namespace edgewise
