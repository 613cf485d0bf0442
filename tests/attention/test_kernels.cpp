// Edge softmax corner cases, and a demonstration that the gradient check catches a wrong backward.
#include <gtest/gtest.h>

#include "edgewise/attention/kernels.hpp"
#include "support/gradcheck.hpp"

namespace edgewise {
namespace {

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

}  // namespace
}  // namespace edgewise
