// GraphBatch: offsets, node -> graph index, edge order, and the batched CSR against the
// block-diagonal union of the graphs' own CSRs.
#include "edgewise/graph/batch.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/random.hpp"
#include "support/joined_graphs.hpp"
#include "support/random_graph.hpp"

namespace edgewise {
namespace {

using Pairs = std::vector<std::pair<Index, Index>>;

Graph random_graph(Index num_nodes, Index num_edges, SplitMix64& rng) {
  return Graph::from_pairs(num_nodes, testing::random_pairs(num_nodes, num_edges, rng));
}

// Molecule-sized graphs, with an empty graph and an edgeless one among them.
std::vector<Graph> mixed_graphs() {
  SplitMix64 rng(3);
  std::vector<Graph> graphs;
  graphs.push_back(random_graph(5, 9, rng));
  graphs.push_back(Graph());
  graphs.push_back(random_graph(1, 2, rng));
  graphs.push_back(Graph::from_pairs(3, Pairs{}));
  for (int g = 0; g < 6; ++g) graphs.push_back(random_graph(25, 60, rng));
  return graphs;
}

TEST(GraphBatch, OffsetsAndNodeGraph) {
  const std::vector<Graph> graphs = mixed_graphs();
  const GraphBatch batch = testing::join_graphs(graphs);
  const Index num_graphs = static_cast<Index>(graphs.size());
  ASSERT_EQ(batch.num_graphs(), num_graphs);
  ASSERT_EQ(static_cast<Index>(batch.node_offsets().size()), num_graphs + 1);
  ASSERT_EQ(static_cast<Index>(batch.edge_offsets().size()), num_graphs + 1);
  EXPECT_EQ(batch.node_offsets().front(), 0);
  EXPECT_EQ(batch.edge_offsets().front(), 0);
  for (Index g = 0; g < num_graphs; ++g) {
    EXPECT_EQ(batch.node_offsets()[g + 1] - batch.node_offsets()[g], graphs[g].num_nodes()) << "graph " << g;
    EXPECT_EQ(batch.edge_offsets()[g + 1] - batch.edge_offsets()[g], graphs[g].num_edges()) << "graph " << g;
    for (Index i = batch.node_offsets()[g]; i < batch.node_offsets()[g + 1]; ++i) EXPECT_EQ(batch.node_graph()[i], g);
  }
  EXPECT_EQ(batch.num_nodes(), batch.node_offsets().back());
  EXPECT_EQ(batch.num_edges(), batch.edge_offsets().back());
  EXPECT_EQ(static_cast<Index>(batch.node_graph().size()), batch.num_nodes());
}

TEST(GraphBatch, EdgesAreTheGraphsEdgesShiftedInOrder) {
  const std::vector<Graph> graphs = mixed_graphs();
  const GraphBatch batch = testing::join_graphs(graphs);
  const Graph& joined = batch.graph();
  for (std::size_t g = 0; g < graphs.size(); ++g) {
    const Index node_offset = batch.node_offsets()[g], edge_offset = batch.edge_offsets()[g];
    for (Index e = 0; e < graphs[g].num_edges(); ++e) {
      EXPECT_EQ(joined.source(edge_offset + e), node_offset + graphs[g].source(e)) << "graph " << g << " edge " << e;
      EXPECT_EQ(joined.target(edge_offset + e), node_offset + graphs[g].target(e)) << "graph " << g << " edge " << e;
    }
  }
}

TEST(GraphBatch, CsrIsTheBlockDiagonalUnion) {
  const std::vector<Graph> graphs = mixed_graphs();
  const GraphBatch batch = testing::join_graphs(graphs);
  const Graph& joined = batch.graph();
  for (std::size_t g = 0; g < graphs.size(); ++g) {
    const Graph& part = graphs[g];
    const Index node_offset = batch.node_offsets()[g], edge_offset = batch.edge_offsets()[g];
    for (Index i = 0; i < part.num_nodes(); ++i) {
      const Index bi = node_offset + i;
      ASSERT_EQ(joined.in_degree(bi), part.in_degree(i));
      ASSERT_EQ(joined.out_degree(bi), part.out_degree(i));
      // Positions in the batch are the part's positions shifted by the edges before the part.
      EXPECT_EQ(joined.in_offsets()[bi], edge_offset + part.in_offsets()[i]);
      EXPECT_EQ(joined.out_offsets()[bi], edge_offset + part.out_offsets()[i]);
      for (Index p = 0; p < part.in_degree(i); ++p) {
        const Index bp = joined.in_offsets()[bi] + p, pp = part.in_offsets()[i] + p;
        EXPECT_EQ(joined.in_sources()[bp], node_offset + part.in_sources()[pp]);
      }
      for (Index s = 0; s < part.out_degree(i); ++s) {
        const Index bs = joined.out_offsets()[bi] + s, ps = part.out_offsets()[i] + s;
        EXPECT_EQ(joined.out_targets()[bs], node_offset + part.out_targets()[ps]);
        EXPECT_EQ(joined.out_positions()[bs], edge_offset + part.out_positions()[ps]);
      }
    }
    for (Index e = 0; e < part.num_edges(); ++e)
      EXPECT_EQ(joined.edge_positions()[edge_offset + e], edge_offset + part.edge_positions()[e]) << "edge " << e;
  }
}

TEST(GraphBatch, SingleGraphIsUnchanged) {
  SplitMix64 rng(5);
  const std::vector<Graph> graphs = {random_graph(12, 30, rng)};
  const GraphBatch batch = testing::join_graphs(graphs);
  EXPECT_EQ(batch.num_graphs(), 1);
  EXPECT_EQ(batch.graph().num_nodes(), 12);
  EXPECT_EQ(batch.graph().edge_pairs(), graphs[0].edge_pairs());
  EXPECT_TRUE(std::ranges::equal(batch.graph().edge_positions(), graphs[0].edge_positions()));
}

TEST(GraphBatch, EmptyBatch) {
  const GraphBatch joined = GraphBatch::join(std::span<const Graph* const>());
  const GraphBatch constructed;
  for (const GraphBatch* batch : {&joined, &constructed}) {
    EXPECT_EQ(batch->num_graphs(), 0);
    EXPECT_EQ(batch->num_nodes(), 0);
    EXPECT_EQ(batch->num_edges(), 0);
    ASSERT_EQ(batch->node_offsets().size(), 1u);
    EXPECT_EQ(batch->node_offsets()[0], 0);
    ASSERT_EQ(batch->edge_offsets().size(), 1u);
    EXPECT_EQ(batch->edge_offsets()[0], 0);
  }
}

// The arguments of GraphBatch::assign that describe `graphs`: their offsets and shifted edges.
struct BatchEdges {
  std::vector<Index> node_offsets{0}, edge_offsets{0};
  std::vector<NodeId> sources, targets;

  explicit BatchEdges(const std::vector<Graph>& graphs) {
    for (const Graph& g : graphs) {
      for (Index e = 0; e < g.num_edges(); ++e) {
        sources.push_back(static_cast<NodeId>(node_offsets.back() + g.source(e)));
        targets.push_back(static_cast<NodeId>(node_offsets.back() + g.target(e)));
      }
      node_offsets.push_back(node_offsets.back() + g.num_nodes());
      edge_offsets.push_back(edge_offsets.back() + g.num_edges());
    }
  }
};

TEST(GraphBatch, AssignGivesTheJoinedBatch) {
  SplitMix64 rng(8);
  GraphBatch reused;
  std::vector<std::vector<Graph>> batches = {mixed_graphs(), {}, {random_graph(4, 6, rng)}, mixed_graphs()};
  batches[3].push_back(random_graph(40, 100, rng));
  for (std::size_t b = 0; b < batches.size(); ++b) {
    SCOPED_TRACE("batch " + std::to_string(b));
    const BatchEdges edges(batches[b]);
    reused.assign(edges.node_offsets, edges.edge_offsets, edges.sources, edges.targets);
    const GraphBatch joined = testing::join_graphs(batches[b]);
    EXPECT_EQ(reused.graph().edge_pairs(), joined.graph().edge_pairs());
    EXPECT_TRUE(std::ranges::equal(reused.graph().edge_positions(), joined.graph().edge_positions()));
    EXPECT_TRUE(std::ranges::equal(reused.graph().out_positions(), joined.graph().out_positions()));
    EXPECT_TRUE(std::ranges::equal(reused.node_graph(), joined.node_graph()));
    EXPECT_TRUE(std::ranges::equal(reused.node_offsets(), joined.node_offsets()));
    EXPECT_TRUE(std::ranges::equal(reused.edge_offsets(), joined.edge_offsets()));
    EXPECT_EQ(reused.num_nodes(), joined.num_nodes());
  }
}

TEST(GraphBatch, AssignRejectsEdgesThatLeaveTheirGraph) {
  const std::vector<Graph> graphs = {Graph::from_pairs(2, Pairs{{0, 1}}), Graph::from_pairs(2, Pairs{{1, 0}})};
  BatchEdges edges(graphs);
  edges.targets[1] = 1;  // graph 1's edge into graph 0's node 1
  GraphBatch batch;
  EXPECT_THROW(batch.assign(edges.node_offsets, edges.edge_offsets, edges.sources, edges.targets), GraphError);
  const std::vector<Index> too_few_edges = {0, 1, 1};
  EXPECT_THROW(batch.assign(edges.node_offsets, too_few_edges, edges.sources, edges.targets), ArgumentError);
}

TEST(GraphBatch, RejectsNullGraphs) {
  const Graph g = Graph::from_pairs(2, Pairs{{0, 1}});
  const std::vector<const Graph*> pointers = {&g, nullptr};
  try {
    GraphBatch::join(std::span<const Graph* const>(pointers));
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& error) {
    EXPECT_NE(std::string(error.what()).find("graph 1 is null"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace edgewise
