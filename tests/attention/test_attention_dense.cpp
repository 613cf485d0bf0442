// The edgewise layer against the dense O(N^2) attention, in float, on complete and sparse graphs.
#include <gtest/gtest.h>

#include <tuple>

#include "attention/dense_reference.hpp"
#include "attention/test_graphs.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"

namespace edgewise {
namespace {

using testing::DenseMatrix;
using testing::irregular_graph;

Graph complete(Index n) {
  std::vector<std::pair<Index, Index>> pairs;
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j) pairs.emplace_back(j, i);
  return Graph::from_pairs(n, pairs);
}

Matrix<float> random_features(Index rows, Index cols, std::uint64_t seed) {
  SplitMix64 rng(seed);
  Matrix<float> m(rows, cols);
  for (Index k = 0; k < m.size(); ++k) m.data()[k] = static_cast<float>(rng.uniform(-1.0, 1.0));
  return m;
}

// Largest |a - b| over all entries.
double max_difference(const Matrix<float>& a, const DenseMatrix& b) {
  return (a.cast<double>() - b).cwiseAbs().maxCoeff();
}

struct Case {
  GraphAttentionOptions options;
  Graph graph;
};

// Runs the layer and the dense reference on the same parameters; returns the output difference and
// checks the reported per-edge weights against the dense weights divided by edge multiplicity.
double compare_with_dense(const Case& c, std::uint64_t seed) {
  Parameters<float> params;
  GraphAttention<float> layer(params, "att", c.options);
  SplitMix64 rng(seed);
  layer.reset_parameters(rng);
  if (c.options.bias) params.value(params.find("att.b_out")).setRandom();
  const Matrix<float> x = random_features(c.graph.num_nodes(), c.options.in_dim, seed + 1);
  const Matrix<float>& y = layer.forward(c.graph, x, nullptr);
  const testing::DenseAttention ref = testing::dense_attention(layer, params, "att", c.graph, x.cast<double>());

  const DenseMatrix count = testing::multiplicity(c.graph);
  const Matrix<float> alpha = layer.attention_weights();
  for (Index e = 0; e < c.graph.num_edges(); ++e)
    for (Index h = 0; h < c.options.heads; ++h) {
      const Index i = c.graph.target(e), j = c.graph.source(e);
      EXPECT_NEAR(alpha(e, h), ref.weights[h](i, j) / count(i, j), 1e-5) << "edge " << e << " head " << h;
    }
  return max_difference(y, ref.output);
}

class CompleteGraphTest : public ::testing::TestWithParam<std::tuple<Index, Index>> {};

TEST_P(CompleteGraphTest, EqualsDenseScaledDotProductAttention) {
  const auto [heads, head_dim] = GetParam();
  GraphAttentionOptions o;
  o.in_dim = 16;
  o.heads = heads;
  o.head_dim = head_dim;
  o.out_dim = 8;
  const double difference = compare_with_dense({o, complete(20)}, 7 + static_cast<std::uint64_t>(heads * head_dim));
  EXPECT_LT(difference, 1e-5) << "H=" << heads << " d=" << head_dim;
}

// Widths on both sides of the vector lengths (8 and 16 floats) and of their multiples.
INSTANTIATE_TEST_SUITE_P(HeadShapes, CompleteGraphTest,
                         ::testing::Combine(::testing::Values(1, 2, 4),
                                            ::testing::Values(1, 7, 8, 9, 16, 31, 32, 33, 63, 64, 65)));

class SparseGraphTest : public ::testing::TestWithParam<std::tuple<ScoreFunction, Normalization, bool>> {};

TEST_P(SparseGraphTest, EqualsDenseAttentionMaskedOffTheAdjacency) {
  const auto [score, normalization, concat] = GetParam();
  for (const Index head_dim : {1, 8, 9, 16, 31, 32, 63, 64, 65}) {
    GraphAttentionOptions o;
    o.in_dim = 6;
    o.heads = 3;
    o.head_dim = head_dim;
    o.score = score;
    o.normalization = normalization;
    o.concat_heads = concat;
    EXPECT_LT(compare_with_dense({o, irregular_graph()}, 11), 1e-5) << "d=" << head_dim;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllScores, SparseGraphTest,
    ::testing::Combine(::testing::Values(ScoreFunction::scaled_dot, ScoreFunction::dot, ScoreFunction::additive,
                                         ScoreFunction::gatv2, ScoreFunction::bilinear),
                       ::testing::Values(Normalization::softmax, Normalization::relu), ::testing::Bool()),
    [](const auto& test) {
      return to_string(std::get<0>(test.param)) + "_" + to_string(std::get<1>(test.param)) +
             (std::get<2>(test.param) ? "_concat" : "_mean");
    });

TEST(GraphAttentionTest, WithoutOutputProjectionEqualsDense) {
  GraphAttentionOptions o;
  o.in_dim = 5;
  o.heads = 2;
  o.head_dim = 4;
  o.output_projection = false;
  EXPECT_LT(compare_with_dense({o, irregular_graph()}, 3), 1e-5);
}

TEST(GraphAttentionTest, NodesWithoutInEdgesGetTheBiasAndSingleInEdgesWeightOne) {
  GraphAttentionOptions o;
  o.in_dim = 4;
  o.heads = 2;
  o.head_dim = 3;
  Parameters<float> params;
  GraphAttention<float> layer(params, "att", o);
  SplitMix64 rng(5);
  layer.reset_parameters(rng);
  auto bias = params.value(params.find("att.b_out"));
  bias.setRandom();
  const Graph g = irregular_graph();
  const Matrix<float> y = layer.forward(g, random_features(12, 4, 9), nullptr);
  for (const Index isolated : {10, 11}) EXPECT_TRUE(y.row(isolated).isApprox(bias.row(0))) << isolated;
  const Matrix<float> alpha = layer.attention_weights();
  for (Index e = 0; e < g.num_edges(); ++e) {
    if (g.in_degree(g.target(e)) != 1) continue;
    EXPECT_EQ(alpha.row(e), Eigen::RowVector2f(1, 1)) << "edge " << e;
  }
}

TEST(GraphAttentionTest, GraphWithoutEdgesGivesFiniteOutput) {
  GraphAttentionOptions o;
  o.in_dim = 3;
  for (const ScoreFunction score : {ScoreFunction::scaled_dot, ScoreFunction::additive, ScoreFunction::gatv2}) {
    o.score = score;
    Parameters<float> params;
    GraphAttention<float> layer(params, "att", o);
    SplitMix64 rng(1);
    layer.reset_parameters(rng);
    const Graph g = Graph::from_pairs(5, {});
    const Matrix<float> x = random_features(5, 3, 2);  // must outlive backward
    const Matrix<float>& y = layer.forward(g, x, nullptr);
    EXPECT_TRUE(y.allFinite());
    EXPECT_EQ(y.cwiseAbs().maxCoeff(), 0.0f);  // zero bias at initialization
    const Matrix<float>& dx = layer.backward(Matrix<float>::Ones(5, layer.out_dim()));
    EXPECT_TRUE(dx.allFinite());
  }
}

// With only self-loops every node aggregates its own value, so the output shows the value dropout
// mask: each entry is zero or the value scaled by 1 / (1 - p); inference leaves the values whole.
TEST(GraphAttentionTest, ValueDropoutZeroesOrScalesEachValue) {
  GraphAttentionOptions o;
  o.in_dim = 6;
  o.heads = 4;
  o.head_dim = 8;
  o.score = ScoreFunction::additive;
  o.output_projection = false;
  o.bias = false;
  o.value_dropout = 0.25;
  Parameters<float> params;
  GraphAttention<float> layer(params, "att", o);
  SplitMix64 rng(5);
  layer.reset_parameters(rng);
  const Index n = 200;
  std::vector<std::pair<Index, Index>> loops;
  for (Index i = 0; i < n; ++i) loops.emplace_back(i, i);
  const Graph g = Graph::from_pairs(n, loops);
  const Matrix<float> x = random_features(n, 6, 8);
  const Matrix<float> values = x * params.value(params.find("att.w_in"));
  EXPECT_TRUE(layer.forward(g, x, nullptr).isApprox(values));

  const Matrix<float> y = layer.forward(g, x, nullptr, Mode::train(rng));
  Index dropped = 0;
  for (Index k = 0; k < y.size(); ++k) {
    if (y.data()[k] == 0.0f) {
      ++dropped;
    } else {
      EXPECT_NEAR(y.data()[k], values.data()[k] / 0.75f, 1e-5f) << "entry " << k;
    }
  }
  const double fraction = static_cast<double>(dropped) / static_cast<double>(y.size());
  EXPECT_NEAR(fraction, 0.25, 0.03) << dropped << " of " << y.size() << " dropped";
}

TEST(GraphAttentionTest, ResultsDoNotDependOnTheThreadCount) {
  GraphAttentionOptions o;
  o.in_dim = 8;
  o.edge_dim = 3;
  o.value_dropout = 0.2;
  const Graph g = irregular_graph();
  const Matrix<float> x = random_features(12, 8, 4);
  const Matrix<float> edges = random_features(g.num_edges(), 3, 5);
  const auto run = [&](int threads, ScoreFunction score, double attention_dropout) {
    set_num_threads(threads);
    o.score = score;
    o.attention_dropout = attention_dropout;
    Parameters<float> params;
    GraphAttention<float> layer(params, "att", o);
    SplitMix64 rng(3);
    layer.reset_parameters(rng);
    const Matrix<float> y = layer.forward(g, x, &edges, Mode::train(rng));
    const Matrix<float> dx = layer.backward(y);
    set_num_threads(0);
    return std::tuple{y, dx, Vector<float>(params.grads())};
  };
  // Without attention dropout the layer runs the fused kernel; with it, the separate ones.
  for (const double attention_dropout : {0.0, 0.3})
    for (const ScoreFunction score : {ScoreFunction::scaled_dot, ScoreFunction::additive, ScoreFunction::gatv2}) {
      const auto one = run(1, score, attention_dropout), two = run(2, score, attention_dropout);
      EXPECT_EQ(std::get<0>(one), std::get<0>(two)) << attention_dropout;
      EXPECT_EQ(std::get<1>(one), std::get<1>(two)) << attention_dropout;
      EXPECT_EQ(std::get<2>(one), std::get<2>(two)) << attention_dropout;
    }
}

TEST(GraphAttentionTest, RejectsMismatchedShapes) {
  GraphAttentionOptions o;
  o.in_dim = 4;
  o.edge_dim = 2;
  Parameters<float> params;
  GraphAttention<float> layer(params, "att", o);
  const Graph g = irregular_graph();
  EXPECT_THROW(layer.forward(g, random_features(12, 5, 1), nullptr), ArgumentError);
  const Matrix<float> x = random_features(12, 4, 1);
  EXPECT_THROW(layer.forward(g, x, nullptr), ArgumentError);
  o.heads = 0;
  EXPECT_THROW(GraphAttention<float>(params, "bad", o), ArgumentError);
  EXPECT_THROW(parse_score_function("cosine"), ArgumentError);
}

}  // namespace
}  // namespace edgewise
