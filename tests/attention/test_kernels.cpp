// Edge softmax corner cases, the fused softmax attention and its backward against the separate
// kernels, the kernels' argument checks, and a demonstration that the gradient check catches a wrong
// backward.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <utility>

#include "edgewise/attention/kernels.hpp"
#include "support/gradcheck.hpp"
#include "test_graphs.hpp"

namespace edgewise {
namespace {

// A [rows, cols] matrix of values uniform in [-2, 2).
Matrix<double> random_matrix(SplitMix64& rng, Index rows, Index cols) {
  Matrix<double> m(rows, cols);
  for (Index k = 0; k < m.size(); ++k) m.data()[k] = rng.uniform(-2, 2);
  return m;
}

// Node 0 has three in-edges, node 1 one, node 2 none.
Graph small_graph() { return Graph::from_pairs(3, std::vector<std::pair<Index, Index>>{{1, 0}, {2, 0}, {0, 0}, {0, 1}}); }

TEST(EdgeSoftmaxTest, StaysFiniteForHugeScores) {
  const Graph g = small_graph();
  for (const float magnitude : {1e4f, -1e4f, 3e38f}) {
    // scores are in CSR order: node 0's three edges, then node 1's.
    const std::vector<float> scores = {magnitude, -magnitude, magnitude * 0.5f, magnitude};
    std::vector<float> alpha(4);
    edge_softmax_forward(alpha.data(), g, scores.data(), 1);
    for (const float a : alpha) EXPECT_TRUE(std::isfinite(a)) << magnitude;
    EXPECT_NEAR(alpha[0] + alpha[1] + alpha[2], 1.0f, 1e-6f);
    EXPECT_EQ(alpha[3], 1.0f);
  }
}

TEST(EdgeSoftmaxTest, MatchesHandComputedWeights) {
  const Graph g = small_graph();
  const std::vector<double> scores = {0.0, std::log(2.0), std::log(3.0), -5.0};
  std::vector<double> alpha(4);
  edge_softmax_forward(alpha.data(), g, scores.data(), 1);
  EXPECT_NEAR(alpha[0], 1.0 / 6.0, 1e-15);
  EXPECT_NEAR(alpha[1], 2.0 / 6.0, 1e-15);
  EXPECT_NEAR(alpha[2], 3.0 / 6.0, 1e-15);
  EXPECT_EQ(alpha[3], 1.0);
}

TEST(EdgeReluTest, DividesByInDegree) {
  const Graph g = small_graph();
  const std::vector<double> scores = {0.6, -1.0, 0.3, 2.0};
  std::vector<double> alpha(4);
  edge_relu_forward(alpha.data(), g, scores.data(), 1);
  EXPECT_DOUBLE_EQ(alpha[0], 0.2);
  EXPECT_DOUBLE_EQ(alpha[1], 0.0);
  EXPECT_DOUBLE_EQ(alpha[2], 0.1);
  EXPECT_DOUBLE_EQ(alpha[3], 2.0);
}

// loss = sum_p r[p] * softmax(s)[p]; the analytic gradient from edge_softmax_backward passes the
// finite-difference check, and the common mistake of dropping the "- sum alpha * dalpha" term fails it.
TEST(EdgeSoftmaxTest, GradientCheckPassesForTheRightBackwardAndFailsForAWrongOne) {
  const Graph g = small_graph();
  const Index heads = 2;
  SplitMix64 rng(8);
  std::vector<double> scores(8), r(8), alpha(8), dscores(8);
  for (Index k = 0; k < 8; ++k) {
    scores[k] = rng.uniform(-2, 2);
    r[k] = rng.uniform(-1, 1);
  }
  const auto loss = [&] {
    std::vector<double> a(8);
    edge_softmax_forward(a.data(), g, scores.data(), heads);
    double sum = 0;
    for (Index k = 0; k < 8; ++k) sum += r[k] * a[k];
    return sum;
  };
  edge_softmax_forward(alpha.data(), g, scores.data(), heads);
  edge_softmax_backward(dscores.data(), g, alpha.data(), r.data(), heads);
  EXPECT_LT(testing::gradient_error("softmax", scores.data(), dscores.data(), 8, loss), 1e-7);

  std::vector<double> wrong(8);
  for (Index k = 0; k < 8; ++k) wrong[k] = alpha[k] * r[k];
  EXPECT_GT(testing::gradient_error("wrong softmax", scores.data(), wrong.data(), 8, loss, 1e-6, 1.0), 0.1);
}

// Fused forward over scores given entirely as a bias (the score function returns 0).
template <typename Scalar>
struct ZeroScore {
  template <int D>
  Scalar operator()(Index, Index, Index, detail::HeadWidth<D>) const {
    return Scalar(0);
  }
  template <int D>
  void prefetch(Index, Index, detail::HeadWidth<D>) const {}
};

TEST(SoftmaxAttendTest, StaysFiniteForHugeScoresAndLeavesNodesWithoutInEdgesAtZero) {
  const Graph g = small_graph();
  for (const float magnitude : {1e4f, -1e4f, 3e38f}) {
    const std::vector<float> bias = {magnitude, -magnitude, magnitude * 0.5f, magnitude};
    const std::vector<float> v = {1.0f, 2.0f, 4.0f};  // one value per node, d = 1
    std::vector<float> out(3, -1.0f), weights(4), sum(3), alpha(4);
    softmax_attend_forward(RowView<float>{out.data(), 1}, weights.data(), sum.data(), g,
                           RowView<const float>{v.data(), 1}, 1, 1, ZeroScore<float>{}, bias.data());
    for (const float o : out) EXPECT_TRUE(std::isfinite(o)) << magnitude;
    EXPECT_EQ(out[2], 0.0f);  // node 2 has no in-edges
    EXPECT_EQ(out[1], 1.0f);  // node 1's single in-edge comes from node 0
    softmax_weights(alpha.data(), g, weights.data(), sum.data(), 1);
    EXPECT_NEAR(alpha[0] + alpha[1] + alpha[2], 1.0f, 1e-6f);
    EXPECT_EQ(alpha[3], 1.0f);
  }
}

TEST(SoftmaxAttendTest, MatchesHandComputedWeights) {
  const Graph g = small_graph();
  // Node 0's in-edges in CSR order come from nodes 1, 2, 0 with weights 1/6, 2/6, 3/6.
  const std::vector<double> bias = {0.0, std::log(2.0), std::log(3.0), -5.0};
  const std::vector<double> v = {6.0, 12.0, 18.0};
  std::vector<double> out(3), weights(4), sum(3);
  softmax_attend_forward(RowView<double>{out.data(), 1}, weights.data(), sum.data(), g,
                         RowView<const double>{v.data(), 1}, 1, 1, ZeroScore<double>{}, bias.data());
  EXPECT_NEAR(out[0], 12.0 / 6.0 + 2.0 * 18.0 / 6.0 + 3.0 * 6.0 / 6.0, 1e-13);
  EXPECT_NEAR(out[1], 6.0, 1e-15);
  EXPECT_EQ(out[2], 0.0);
  // exp(score - the node's max score): node 0's max is log 3; node 1 has one edge.
  const std::vector<double> expected_weights = {1.0 / 3.0, 2.0 / 3.0, 1.0, 1.0};
  for (std::size_t p = 0; p < weights.size(); ++p) EXPECT_NEAR(weights[p], expected_weights[p], 1e-15) << p;
  EXPECT_NEAR(sum[0], 2.0, 1e-15);
  EXPECT_EQ(sum[1], 1.0);
  EXPECT_EQ(sum[2], 0.0);
}

// On a graph with isolated nodes, single in-edges and a duplicated edge, the one-pass kernel gives
// the weights and aggregate of the three separate kernels, for every score function, at head widths
// held at run time and at those the kernels are compiled for, and at the shapes whose rows of 64 it
// keeps in registers.
class SoftmaxAttendWidthTest : public ::testing::TestWithParam<std::pair<Index, Index>> {};

// Random projections of one head shape on the irregular graph, and the three score functions over them.
struct ScoreInputs {
  ScoreInputs(const Graph& g, Index head_count, Index d, std::uint64_t seed) : heads(head_count) {
    SplitMix64 rng(seed);
    const Index n = g.num_nodes();
    q = random_matrix(rng, n, heads * d);
    k = random_matrix(rng, n, heads * d);
    v = random_matrix(rng, n, heads * d);
    terms = random_matrix(rng, n, 2 * heads);
    att = random_matrix(rng, heads, d);
    bias = random_matrix(rng, g.num_edges(), heads);
    src = terms.leftCols(heads);
    dst = terms.rightCols(heads);
  }
  // Calls check(score, name) for each score function.
  template <typename Check>
  void each_score(Check&& check) const {
    check(DotScore<double>{read_rows(q), read_rows(k), 0.5}, "dot");
    check(AdditiveScore<double>{src.data(), dst.data(), heads, 0.2}, "additive");
    check(Gatv2Score<double>{read_rows(q), read_rows(k), att.data(), 0.2}, "gatv2");
  }

  Index heads;
  Matrix<double> q, k, v, terms, att, bias, src, dst;
};

TEST_P(SoftmaxAttendWidthTest, EqualsScoresThenSoftmaxThenAggregation) {
  const Graph g = testing::irregular_graph();
  const Index heads = GetParam().first, d = GetParam().second;
  const Index n = g.num_nodes(), e = g.num_edges();
  const ScoreInputs in(g, heads, d, 9);
  const Matrix<double>& v = in.v;
  const Matrix<double>& bias = in.bias;
  in.each_score([&](const auto& score, const std::string& name) {
    Matrix<double> scores(e, heads), alpha(e, heads), expected(n, heads * d);
    edge_scores_forward(scores.data(), g, heads, d, score);
    scores += bias;
    edge_softmax_forward(alpha.data(), g, scores.data(), heads);
    aggregate_forward(rows_of(expected), g, alpha.data(), read_rows(v), heads, d);

    Matrix<double> unnormalized(e, heads), out(n, heads * d), sum(n, heads), weights(e, heads);
    softmax_attend_forward(rows_of(out), unnormalized.data(), sum.data(), g, read_rows(v), heads, d, score,
                           bias.data());
    softmax_weights(weights.data(), g, unnormalized.data(), sum.data(), heads);
    EXPECT_LT((weights - alpha).cwiseAbs().maxCoeff(), 1e-14) << name;
    EXPECT_LT((out - expected).cwiseAbs().maxCoeff(), 1e-13) << name;
  });
}

INSTANTIATE_TEST_SUITE_P(HeadShapes, SoftmaxAttendWidthTest,
                         ::testing::Values(std::pair<Index, Index>{3, 4}, std::pair<Index, Index>{3, 8},
                                           std::pair<Index, Index>{3, 16}, std::pair<Index, Index>{3, 32},
                                           std::pair<Index, Index>{3, 64}, std::pair<Index, Index>{8, 8},
                                           std::pair<Index, Index>{4, 16}, std::pair<Index, Index>{2, 32},
                                           std::pair<Index, Index>{1, 64}, std::pair<Index, Index>{16, 4}));

// Under attention dropout, the one-pass kernel gives the bits of the separate kernels: scores (plus a
// bias, or none), softmax, the mask and the aggregation, for every score function and head shape.
TEST_P(SoftmaxAttendWidthTest, WithDropoutEqualsTheSeparateKernelsBitForBit) {
  const Graph g = testing::irregular_graph();
  const Index heads = GetParam().first, d = GetParam().second;
  const Index n = g.num_nodes(), e = g.num_edges();
  const ScoreInputs in(g, heads, d, 10);
  const Matrix<double>& v = in.v;
  const Matrix<double>& bias = in.bias;
  const auto keep_scale = [](Index i, Index j, Index h) { return (i + 2 * j + h) % 3 == 0 ? 0.0 : 1.5; };
  const auto check = [&](const auto& score, const double* edge_bias, const std::string& name) {
    Matrix<double> scores(e, heads), alpha(e, heads), keep(e, heads), expected(n, heads * d);
    edge_scores_forward(scores.data(), g, heads, d, score);
    if (edge_bias != nullptr) scores += bias;
    edge_softmax_forward(alpha.data(), g, scores.data(), heads);
    const auto offsets = g.in_offsets();
    const auto sources = g.in_sources();
    for (Index i = 0; i < n; ++i)
      for (Index p = offsets[i]; p < offsets[i + 1]; ++p)
        for (Index h = 0; h < heads; ++h) keep(p, h) = keep_scale(i, sources[p], h);
    const Matrix<double> used = alpha.cwiseProduct(keep);
    aggregate_forward(rows_of(expected), g, used.data(), read_rows(v), heads, d);

    Matrix<double> fused_alpha(e, heads), fused_keep(e, heads), fused_used(e, heads), out(n, heads * d);
    softmax_dropout_attend_forward(rows_of(out), fused_alpha.data(), fused_keep.data(), fused_used.data(), g,
                                   read_rows(v), heads, d, score, edge_bias, keep_scale);
    EXPECT_EQ(fused_alpha, alpha) << name;
    EXPECT_EQ(fused_keep, keep) << name;
    EXPECT_EQ(fused_used, used) << name;
    EXPECT_EQ(out, expected) << name;
  };
  for (const double* edge_bias : {static_cast<const double*>(nullptr), bias.data()}) {
    const std::string with = edge_bias != nullptr ? " with a bias" : "";
    in.each_score([&](const auto& score, const std::string& name) { check(score, edge_bias, name + with); });
  }
}

// The backward sums over in-edges and out-edges (the aggregation's and dot products' gradients), at
// every head shape, against sums written out edge by edge.
TEST_P(SoftmaxAttendWidthTest, BackwardSumsEqualSumsEdgeByEdge) {
  const Graph g = testing::irregular_graph();
  const Index heads = GetParam().first, d = GetParam().second;
  const Index n = g.num_nodes(), e = g.num_edges(), w = heads * d;
  SplitMix64 rng(11);
  const Matrix<double> q = random_matrix(rng, n, w), k = random_matrix(rng, n, w), v = random_matrix(rng, n, w);
  const Matrix<double> dout = random_matrix(rng, n, w), alpha = random_matrix(rng, e, heads);
  const Matrix<double> dscores = random_matrix(rng, e, heads);
  const double scale = 0.25;
  Matrix<double> dalpha_ref = Matrix<double>::Zero(e, heads), dv_ref = Matrix<double>::Zero(n, w);
  Matrix<double> dq_ref = Matrix<double>::Zero(n, w), dk_ref = Matrix<double>::Zero(n, w);
  const auto offsets = g.in_offsets();
  const auto sources = g.in_sources();
  for (Index i = 0; i < n; ++i)
    for (Index p = offsets[i]; p < offsets[i + 1]; ++p) {
      const Index j = sources[p];
      for (Index h = 0; h < heads; ++h) {
        const auto cols = Eigen::seqN(h * d, d);
        dalpha_ref(p, h) = dout(i, cols).dot(v(j, cols));
        dv_ref(j, cols) += alpha(p, h) * dout(i, cols);
        dq_ref(i, cols) += scale * dscores(p, h) * k(j, cols);
        dk_ref(j, cols) += scale * dscores(p, h) * q(i, cols);
      }
    }
  Matrix<double> dalpha(e, heads), dv(n, w), dq(n, w), dk(n, w);
  aggregate_backward(dalpha.data(), rows_of(dv), g, alpha.data(), read_rows(v), read_rows(dout), heads, d);
  dot_scores_backward(rows_of(dq), rows_of(dk), g, read_rows(q), read_rows(k), dscores.data(), heads, d, scale);
  EXPECT_LT((dalpha - dalpha_ref).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((dv - dv_ref).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((dq - dq_ref).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((dk - dk_ref).cwiseAbs().maxCoeff(), 1e-12);
}

// The fused kernel's backward gives the bits of the three kernels it does in one pass, at a generic
// head shape and at the fixed ones of the float layers.
template <typename Scalar>
void expect_backward_bits_of_three_kernels(Index heads, Index d) {
  SCOPED_TRACE(std::to_string(heads) + " heads of " + std::to_string(d));
  const Graph g = testing::irregular_graph();
  const Index n = g.num_nodes(), e = g.num_edges();
  SplitMix64 rng(4);
  const auto random = [&] { return Matrix<Scalar>(random_matrix(rng, n, heads * d).cast<Scalar>()); };
  const Matrix<Scalar> q = random(), k = random(), v = random(), dout = random();
  Matrix<Scalar> weights(e, heads), sum(n, heads), out(n, heads * d);
  const DotScore<Scalar> score{read_rows(q), read_rows(k), Scalar(0.5)};
  softmax_attend_forward(rows_of(out), weights.data(), sum.data(), g, read_rows(v), heads, d, score,
                         static_cast<const Scalar*>(nullptr));

  Matrix<Scalar> alpha(e, heads), dalpha(e, heads), dv(n, heads * d), expected_dscores(e, heads);
  softmax_weights(alpha.data(), g, weights.data(), sum.data(), heads);
  aggregate_backward(dalpha.data(), rows_of(dv), g, alpha.data(), read_rows(v), read_rows(dout), heads, d);
  edge_softmax_backward(expected_dscores.data(), g, alpha.data(), dalpha.data(), heads);

  Matrix<Scalar> composed_alpha(e, heads), dscores(e, heads), composed_dv(n, heads * d);
  softmax_attend_backward(dscores.data(), rows_of(composed_dv), composed_alpha.data(), g, weights.data(), sum.data(),
                          read_rows(v), read_rows(dout), heads, d);
  EXPECT_EQ(composed_alpha, alpha);
  EXPECT_EQ(dscores, expected_dscores);
  EXPECT_EQ(composed_dv, dv);
}

TEST(SoftmaxAttendTest, BackwardEqualsWeightsThenAggregationThenSoftmaxBackward) {
  expect_backward_bits_of_three_kernels<double>(2, 3);
  for (const auto& [heads, d] : {std::pair<Index, Index>{2, 3}, {4, 16}, {8, 8}, {1, 64}, {16, 4}})
    expect_backward_bits_of_three_kernels<float>(heads, d);
}

// Kernels refuse arguments that would corrupt memory: no heads, rows narrower than the heads, and an
// output sharing memory with an input. Column blocks of one matrix are not shared memory.
TEST(KernelContractTest, RefusesBadShapesAndAliasingAndAcceptsColumnBlocks) {
  const Graph g = small_graph();
  const Index heads = 2, d = 2;
  Matrix<float> alpha = Matrix<float>::Constant(g.num_edges(), heads, 0.5f);
  Matrix<float> v = Matrix<float>::Ones(g.num_nodes(), heads * d), out(g.num_nodes(), heads * d);
  EXPECT_NO_THROW(aggregate_forward(rows_of(out), g, alpha.data(), read_rows(v), heads, d));
  EXPECT_THROW(aggregate_forward(rows_of(out), g, alpha.data(), read_rows(v), 0, d), std::logic_error);
  EXPECT_THROW(aggregate_forward(rows_of(out), g, alpha.data(), read_rows(v), heads + 1, d), std::logic_error)
      << "rows of 4 cannot hold 3 heads of 2";
  EXPECT_THROW(aggregate_forward(rows_of(v), g, alpha.data(), read_rows(v), heads, d), std::logic_error);
  EXPECT_THROW(edge_softmax_backward(alpha.data(), g, alpha.data(), alpha.data(), heads), std::logic_error)
      << "dscores may alias dalpha but not alpha";

  Matrix<float> both(g.num_nodes(), 2 * heads * d), grads(g.num_nodes(), 2 * heads * d);
  both.setOnes();
  const std::vector<float> dscores(static_cast<std::size_t>(g.num_edges() * heads), 1.0f);
  EXPECT_NO_THROW(dot_scores_backward(rows_of(grads, 0), rows_of(grads, heads * d), g, read_rows(both, 0),
                                      read_rows(both, heads * d), dscores.data(), heads, d, 1.0f));
  EXPECT_THROW(dot_scores_backward(rows_of(grads, 0), rows_of(grads, 1), g, read_rows(both, 0),
                                   read_rows(both, heads * d), dscores.data(), heads, d, 1.0f),
               std::logic_error)
      << "column blocks that share columns";
}

}  // namespace
}  // namespace edgewise
