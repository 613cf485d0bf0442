// FeaturedBatch: feature rows stacked in the order of the joined graphs, rebuilt in place for the
// next batch, and graphs of different feature widths refused.
#include "edgewise/graph/featured_graph.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/graph/patterns.hpp"

namespace edgewise {
namespace {

// A complete graph of n nodes whose node rows hold `value` and whose edge rows hold -value.
FeaturedGraph filled(Index n, float value, Index node_dim = 2, Index edge_dim = 1, Index graph_dim = 3) {
  FeaturedGraph g{complete_graph(n), {}, {}, {}};
  g.node_features = Matrix<float>::Constant(n, node_dim, value);
  g.edge_features = Matrix<float>::Constant(g.graph.num_edges(), edge_dim, -value);
  g.graph_features = Matrix<float>::Constant(1, graph_dim, 10 * value);
  return g;
}

TEST(FeaturedBatchTest, StacksFeatureRowsInTheOrderOfTheGraphs) {
  const FeaturedGraph a = filled(2, 1.0f), b = filled(3, 2.0f);
  const std::vector<const FeaturedGraph*> graphs = {&a, &b};
  FeaturedBatch batch;
  batch.assemble(graphs);
  EXPECT_EQ(batch.batch.num_graphs(), 2);
  ASSERT_EQ(batch.node_features.rows(), 5);
  EXPECT_TRUE((batch.node_features.topRows(2).array() == 1.0f).all());
  EXPECT_TRUE((batch.node_features.bottomRows(3).array() == 2.0f).all());
  const Index a_edges = a.graph.num_edges();
  ASSERT_EQ(batch.edge_features.rows(), a_edges + b.graph.num_edges());
  EXPECT_TRUE((batch.edge_features.topRows(a_edges).array() == -1.0f).all());
  EXPECT_TRUE((batch.edge_features.bottomRows(b.graph.num_edges()).array() == -2.0f).all());
  ASSERT_EQ(batch.graph_features.rows(), 2);
  EXPECT_EQ(batch.graph_features(0, 0), 10.0f);
  EXPECT_EQ(batch.graph_features(1, 2), 20.0f);
}

TEST(FeaturedBatchTest, ReassemblingReplacesThePreviousBatch) {
  const FeaturedGraph a = filled(4, 1.0f), b = filled(1, 5.0f);
  FeaturedBatch batch;
  batch.assemble(std::vector<const FeaturedGraph*>{&a});
  batch.assemble(std::vector<const FeaturedGraph*>{&b});
  EXPECT_EQ(batch.batch.num_graphs(), 1);
  EXPECT_EQ(batch.node_features.rows(), 1);
  EXPECT_EQ(batch.node_features(0, 1), 5.0f);
  EXPECT_EQ(batch.graph_features.rows(), 1);
}

TEST(FeaturedBatchTest, RefusesGraphsOfDifferentFeatureWidths) {
  const FeaturedGraph a = filled(2, 1.0f), wide = filled(2, 1.0f, 3);
  FeaturedBatch batch;
  EXPECT_THROW(batch.assemble(std::vector<const FeaturedGraph*>{&a, &wide}), ArgumentError);
}

}  // namespace
}  // namespace edgewise
