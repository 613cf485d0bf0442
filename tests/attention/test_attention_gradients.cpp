// Finite-difference checks of GraphAttention's backward in double precision: the input and every
// parameter, for every score function, both normalizations, with and without edge features,
// concatenated and averaged heads, at 1 and 2 threads, and with attention and value dropout (a
// fixed mask per evaluation).
// tests/attention/test_kernels.cpp shows the same check rejecting a wrong softmax backward.
#include <gtest/gtest.h>

#include <tuple>

#include "attention/test_graphs.hpp"
#include "edgewise/attention/graph_attention.hpp"
#include "edgewise/core/parallel.hpp"
#include "support/gradcheck.hpp"

namespace edgewise {
namespace {

using testing::gradient_error;
using testing::random_matrix;

struct Errors {
  double input = 0;
  double parameters = 0;
};

// loss = sum(R .* y) for a fixed random R, so dy = R.
Errors check_gradients(const GraphAttentionOptions& options, bool training) {
  const Graph g = testing::irregular_graph();
  Parameters<double> params;
  GraphAttention<double> layer(params, "att", options);
  SplitMix64 rng(21);
  layer.reset_parameters(rng);
  if (options.bias) params.value(params.find("att.b_out")) = random_matrix(1, layer.out_dim(), rng);
  Matrix<double> x = random_matrix(g.num_nodes(), options.in_dim, rng);
  const Matrix<double> edge_features = random_matrix(g.num_edges(), std::max<Index>(options.edge_dim, 1), rng);
  const Matrix<double> r = random_matrix(g.num_nodes(), layer.out_dim(), rng);
  const Matrix<double>* edges = options.edge_dim > 0 ? &edge_features : nullptr;

  const auto loss = [&] {
    SplitMix64 dropout_rng(99);  // the same mask at every evaluation
    const Mode mode = training ? Mode::train(dropout_rng) : Mode::inference();
    return layer.forward(g, x, edges, mode).cwiseProduct(r).sum();
  };
  loss();
  params.zero_grad();
  const Matrix<double> dx = layer.backward(r);
  const Vector<double> analytic = params.grads();

  // A step of 1e-5: at 1e-6, rounding in the loss and in the vectorized exp, exact to an ulp but not
  // smooth at that scale, moves the difference quotient by about 1e-9, the tolerance itself for
  // gradients near 1e-3. Ten times the step cuts that error about thirtyfold.
  constexpr double kStep = 1e-5;
  Errors errors;
  errors.input = gradient_error("x", x.data(), dx.data(), x.size(), loss, kStep);
  errors.parameters =
      gradient_error("parameters", params.values().data(), analytic.data(), params.size(), loss, kStep);
  return errors;
}

class AttentionGradientTest
    : public ::testing::TestWithParam<std::tuple<ScoreFunction, Normalization, bool /*edge features*/>> {};

TEST_P(AttentionGradientTest, MatchesFiniteDifferences) {
  const auto [score, normalization, with_edge_features] = GetParam();
  GraphAttentionOptions o;
  o.in_dim = 5;
  o.heads = 2;
  o.head_dim = 3;
  o.out_dim = 4;
  o.score = score;
  o.normalization = normalization;
  o.edge_dim = with_edge_features ? 3 : 0;
  for (const int threads : {1, 2})
    for (const bool concat : {true, false}) {
      set_num_threads(threads);
      o.concat_heads = concat;
      const Errors e = check_gradients(o, false);
      set_num_threads(0);
      EXPECT_LT(e.input, 1e-6) << (concat ? "concat, " : "mean, ") << threads << " threads";
      EXPECT_LT(e.parameters, 1e-6) << (concat ? "concat, " : "mean, ") << threads << " threads";
    }
}

INSTANTIATE_TEST_SUITE_P(
    AllScores, AttentionGradientTest,
    ::testing::Combine(::testing::Values(ScoreFunction::scaled_dot, ScoreFunction::dot, ScoreFunction::additive,
                                         ScoreFunction::gatv2, ScoreFunction::bilinear),
                       ::testing::Values(Normalization::softmax, Normalization::relu), ::testing::Bool()),
    [](const auto& test) {
      return to_string(std::get<0>(test.param)) + "_" + to_string(std::get<1>(test.param)) +
             (std::get<2>(test.param) ? "_edge_features" : "");
    });

// The kernels are compiled separately for head widths 8, 16, 32 and 64 (the width above, 3, takes
// the general path): the same check at two of them, for every score function.
TEST(AttentionGradientTest, MatchesFiniteDifferencesAtCompiledHeadWidths) {
  for (const ScoreFunction score : {ScoreFunction::scaled_dot, ScoreFunction::dot, ScoreFunction::additive,
                                    ScoreFunction::gatv2, ScoreFunction::bilinear})
    for (const Index head_dim : {8, 16}) {
      GraphAttentionOptions o;
      o.in_dim = 5;
      o.heads = 2;
      o.head_dim = head_dim;
      o.out_dim = 4;
      o.score = score;
      o.edge_dim = 3;
      const Errors e = check_gradients(o, false);
      EXPECT_LT(e.input, 1e-6) << to_string(score) << ", d = " << head_dim;
      EXPECT_LT(e.parameters, 1e-6) << to_string(score) << ", d = " << head_dim;
    }
}

TEST(AttentionGradientTest, WithAttentionDropout) {
  GraphAttentionOptions o;
  o.in_dim = 4;
  o.heads = 3;
  o.head_dim = 2;
  o.edge_dim = 2;
  o.attention_dropout = 0.4;
  for (const ScoreFunction score : {ScoreFunction::scaled_dot, ScoreFunction::additive, ScoreFunction::gatv2}) {
    o.score = score;
    const Errors e = check_gradients(o, true);
    EXPECT_LT(e.input, 1e-6) << to_string(score);
    EXPECT_LT(e.parameters, 1e-6) << to_string(score);
  }
}

TEST(AttentionGradientTest, WithValueDropout) {
  GraphAttentionOptions o;
  o.in_dim = 4;
  o.heads = 3;
  o.head_dim = 2;
  o.value_dropout = 0.5;
  for (const ScoreFunction score :
       {ScoreFunction::scaled_dot, ScoreFunction::additive, ScoreFunction::gatv2, ScoreFunction::bilinear}) {
    o.score = score;
    for (const double attention_dropout : {0.0, 0.4}) {
      o.attention_dropout = attention_dropout;
      const Errors e = check_gradients(o, true);
      EXPECT_LT(e.input, 1e-6) << to_string(score) << " attention dropout " << attention_dropout;
      EXPECT_LT(e.parameters, 1e-6) << to_string(score) << " attention dropout " << attention_dropout;
    }
  }
}

TEST(AttentionGradientTest, WithoutOutputProjectionOrBias) {
  GraphAttentionOptions o;
  o.in_dim = 4;
  o.heads = 2;
  o.head_dim = 3;
  o.output_projection = false;
  for (const bool bias : {true, false}) {
    o.bias = bias;
    const Errors e = check_gradients(o, false);
    EXPECT_LT(e.input, 1e-6);
    EXPECT_LT(e.parameters, 1e-6);
  }
}

TEST(AttentionGradientTest, ParameterOnlyBackwardAccumulatesTheSameGradients) {
  const Graph g = testing::irregular_graph();
  GraphAttentionOptions o;
  o.in_dim = 6;
  o.heads = 2;
  o.head_dim = 3;
  o.score = ScoreFunction::additive;
  Parameters<double> params;
  GraphAttention<double> layer(params, "att", o);
  SplitMix64 rng(5);
  layer.reset_parameters(rng);
  const Matrix<double> x = random_matrix(g.num_nodes(), o.in_dim, rng);
  const Matrix<double> dy = random_matrix(g.num_nodes(), layer.out_dim(), rng);

  layer.forward(g, x, nullptr);
  params.zero_grad();
  layer.backward(dy);
  const Vector<double> full = params.grads();
  layer.forward(g, x, nullptr);
  params.zero_grad();
  layer.backward_parameters(dy);
  EXPECT_EQ(params.grads(), full);
}

}  // namespace
}  // namespace edgewise
