// Readout: sum, mean, max and mean-and-sum pooling against hand-computed rows on a batch of three graphs (one of
// them without nodes), attention weights that sum to one within each graph, and every kind's
// backward against central differences.
#include "edgewise/models/readout.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/graph/batch.hpp"
#include "edgewise/graph/patterns.hpp"
#include "support/gradcheck.hpp"
#include "support/joined_graphs.hpp"

namespace edgewise {
namespace {

// Graphs of 2, 0 and 3 nodes.
GraphBatch three_graphs() {
  const std::vector<Graph> graphs = {complete_graph(2), complete_graph(0), complete_graph(3)};
  return testing::join_graphs(graphs);
}

Matrix<double> node_rows() {
  Matrix<double> h(5, 2);
  h << 1, -2,  //
      3, 4,    //
      0, 1,    //
      -1, 5,   //
      2, 0;
  return h;
}

Matrix<double> pool(ReadoutKind kind) {
  Parameters<double> params;
  Readout<double> readout(params, "readout", 2, kind);
  const GraphBatch batch = three_graphs();
  const Matrix<double> h = node_rows();
  return readout.forward(batch, h);
}

TEST(ReadoutTest, PoolsEachGraphsRowsAndAnEmptyGraphToZeros) {
  Matrix<double> sum(3, 2), mean(3, 2), max(3, 2);
  sum << 4, 2, 0, 0, 1, 6;
  mean << 2, 1, 0, 0, 1.0 / 3, 2;
  max << 3, 4, 0, 0, 2, 5;
  EXPECT_TRUE(pool(ReadoutKind::sum).isApprox(sum));
  EXPECT_TRUE(pool(ReadoutKind::mean).isApprox(mean));
  EXPECT_TRUE(pool(ReadoutKind::max).isApprox(max));
  Matrix<double> mean_sum(3, 4);
  mean_sum << 2, 1, 4 / 25.0, 2 / 25.0, 0, 0, 0, 0, 1.0 / 3, 2, 1 / 25.0, 6 / 25.0;
  EXPECT_TRUE(pool(ReadoutKind::mean_sum).isApprox(mean_sum));
}

TEST(ReadoutTest, AttentionWeightsSumToOneWithinEachGraph) {
  Parameters<double> params;
  Readout<double> readout(params, "readout", 2, ReadoutKind::attention);
  SplitMix64 rng(3);
  readout.reset_parameters(rng);
  const GraphBatch batch = three_graphs();
  // Each graph's nodes share one row, so weights that sum to one pool the graph to that row.
  Matrix<double> h(5, 2);
  h << 1, -2,  //
      1, -2,   //
      3, 4,    //
      3, 4,    //
      3, 4;
  const Matrix<double> y = readout.forward(batch, h);
  EXPECT_TRUE(y.row(0).isApprox(h.row(0), 1e-12));
  EXPECT_TRUE(y.row(1).isZero());
  EXPECT_TRUE(y.row(2).isApprox(h.row(2), 1e-12));
}

TEST(ReadoutTest, BackwardMatchesCentralDifferences) {
  for (const ReadoutKind kind : {ReadoutKind::sum, ReadoutKind::mean, ReadoutKind::max, ReadoutKind::attention,
                                 ReadoutKind::mean_sum}) {
    SCOPED_TRACE(to_string(kind));
    Parameters<double> params;
    Readout<double> readout(params, "readout", 2, kind);
    SplitMix64 rng(11);
    readout.reset_parameters(rng);
    const GraphBatch batch = three_graphs();
    Matrix<double> h = node_rows();
    const Matrix<double> r = testing::random_matrix(3, readout_width(kind, 2), rng);  // loss = sum(r .* y)
    const auto loss = [&] { return (readout.forward(batch, h).array() * r.array()).sum(); };
    loss();
    params.zero_grad();
    const Matrix<double> dh = readout.backward(r);
    EXPECT_LT(testing::gradient_error("dh", h.data(), dh.data(), h.size(), loss), 1e-6);
    if (params.size() > 0) {
      const Vector<double> analytic = params.grads();
      EXPECT_LT(testing::gradient_error("gate", params.values().data(), analytic.data(), params.size(), loss), 1e-6);
    }
  }
}

TEST(ReadoutTest, NamesRoundTripAndUnknownNamesAreRefused) {
  for (const ReadoutKind kind : {ReadoutKind::sum, ReadoutKind::mean, ReadoutKind::max, ReadoutKind::attention,
                                 ReadoutKind::mean_sum})
    EXPECT_EQ(parse_readout(to_string(kind)), kind);
  EXPECT_THROW(parse_readout("median"), ArgumentError);
}

}  // namespace
}  // namespace edgewise
