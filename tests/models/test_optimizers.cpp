// Optimizers: Adam's first steps against the formulas, Adam's L2 against AdamW's decoupled decay,
// the learning-rate setter, gradient-norm clipping, and convergence on a small quadratic.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "edgewise/core/error.hpp"
#include "edgewise/models/optimizers.hpp"

namespace edgewise {
namespace {

// One [1, n] parameter with the given values.
Parameters<double> row_parameter(std::initializer_list<double> values) {
  Parameters<double> params;
  const ParameterHandle h = params.add("w", 1, static_cast<Index>(values.size()));
  std::copy(values.begin(), values.end(), params.value(h).data());
  return params;
}

void set_grads(Parameters<double>& params, std::initializer_list<double> grads) {
  std::copy(grads.begin(), grads.end(), params.grads().data());
}

// At t = 1 the bias corrections make m̂ = g and v̂ = g², so each value moves by lr g / (|g| + eps).
TEST(AdamTest, FirstStepMovesByLearningRateTimesSign) {
  Parameters<double> params = row_parameter({1.0, -2.0, 0.5});
  set_grads(params, {0.1, -5.0, 3e-3});
  Adam<double> adam(params, {.lr = 0.01});
  adam.step();
  const double eps = 1e-8;
  EXPECT_NEAR(params.values()(0), 1.0 - 0.01 * 0.1 / (0.1 + eps), 1e-15);
  EXPECT_NEAR(params.values()(1), -2.0 + 0.01 * 5.0 / (5.0 + eps), 1e-15);
  EXPECT_NEAR(params.values()(2), 0.5 - 0.01 * 3e-3 / (3e-3 + eps), 1e-15);
  EXPECT_EQ(adam.steps(), 1);
}

// Three steps of a scalar parameter with changing gradients, written out from the formulas.
TEST(AdamTest, FollowsBiasCorrectedMoments) {
  Parameters<double> params = row_parameter({0.3});
  const AdamOptions o{.lr = 0.1, .beta1 = 0.8, .beta2 = 0.9, .eps = 1e-3};
  Adam<double> adam(params, o);
  double w = 0.3, m = 0.0, v = 0.0;
  for (const double g : {0.5, -0.2, 1.5}) {
    set_grads(params, {g});
    adam.step();
    const auto t = static_cast<double>(adam.steps());
    m = o.beta1 * m + (1 - o.beta1) * g;
    v = o.beta2 * v + (1 - o.beta2) * g * g;
    w -= o.lr / (1 - std::pow(o.beta1, t)) * m / (std::sqrt(v / (1 - std::pow(o.beta2, t))) + o.eps);
    EXPECT_NEAR(params.values()(0), w, 1e-15) << "step " << t;
  }
}

// With zero loss gradient, Adam's L2 term g = wd w is normalized away (a step of about lr), while
// AdamW only shrinks w by the factor 1 - lr wd.
TEST(AdamTest, L2DecayDiffersFromDecoupledDecay) {
  const AdamOptions o{.lr = 0.1, .weight_decay = 0.01};
  Parameters<double> l2 = row_parameter({2.0, -4.0});
  Parameters<double> decoupled = row_parameter({2.0, -4.0});
  Adam<double> adam(l2, o);
  AdamW<double> adamw(decoupled, o);
  adam.step();
  adamw.step();
  const double eps = 1e-8;  // g = 0.01 w: 0.02 and -0.04
  EXPECT_NEAR(l2.values()(0), 2.0 - 0.1 * 0.02 / (0.02 + eps), 1e-15);
  EXPECT_NEAR(l2.values()(1), -4.0 + 0.1 * 0.04 / (0.04 + eps), 1e-15);
  EXPECT_DOUBLE_EQ(decoupled.values()(0), 2.0 * (1 - 0.1 * 0.01));
  EXPECT_DOUBLE_EQ(decoupled.values()(1), -4.0 * (1 - 0.1 * 0.01));
}

TEST(AdamTest, WithoutDecayAdamWEqualsAdam) {
  Parameters<double> a = row_parameter({1.0, 2.0});
  Parameters<double> b = row_parameter({1.0, 2.0});
  Adam<double> adam(a, {.lr = 0.05});
  AdamW<double> adamw(b, {.lr = 0.05});
  for (int i = 0; i < 3; ++i) {
    set_grads(a, {0.3, -0.7});
    set_grads(b, {0.3, -0.7});
    adam.step();
    adamw.step();
  }
  EXPECT_EQ(a.values(), b.values());
}

TEST(AdamTest, LearningRateCanBeChanged) {
  Parameters<double> params = row_parameter({1.0});
  Adam<double> adam(params, {.lr = 0.1});
  adam.set_learning_rate(0.0);
  EXPECT_EQ(adam.learning_rate(), 0.0);
  set_grads(params, {1.0});
  adam.step();
  EXPECT_EQ(params.values()(0), 1.0);
  adam.set_learning_rate(0.5);
  adam.step();
  EXPECT_LT(params.values()(0), 1.0);
  EXPECT_THROW(adam.set_learning_rate(-1.0), ArgumentError);
}

TEST(AdamTest, RejectsBadOptionsAndGrownParameters) {
  Parameters<double> params = row_parameter({1.0});
  EXPECT_THROW(Adam<double>(params, {.beta1 = 1.0}), ArgumentError);
  EXPECT_THROW(Adam<double>(params, {.eps = 0.0}), ArgumentError);
  Adam<double> adam(params);
  params.add("late", 1, 1);
  EXPECT_THROW(adam.step(), ArgumentError);
}

// f(w) = ½ Σ a_i (w_i - c_i)² with curvatures spread over two orders of magnitude.
TEST(AdamTest, MinimizesQuadratic) {
  const Vector<double> a = (Vector<double>(4) << 0.1, 1.0, 3.0, 10.0).finished();
  const Vector<double> c = (Vector<double>(4) << 1.0, -2.0, 0.5, 3.0).finished();
  Parameters<double> params;
  params.add("w", 4, 1);
  Adam<double> adam(params, {.lr = 0.1});
  const int steps = 2000;
  for (int t = 0; t < steps; ++t) {
    params.grads() = a.cwiseProduct(params.values() - c);
    adam.set_learning_rate(0.1 * (1.0 - static_cast<double>(t) / steps));  // linear decay to 0
    adam.step();
  }
  EXPECT_LT((params.values() - c).cwiseAbs().maxCoeff(), 1e-3) << params.values().transpose();
}

TEST(ClipGradNormTest, ScalesToMaxNormAndReturnsOriginalNorm) {
  Parameters<double> params = row_parameter({0.0, 0.0});
  params.add("b", 2, 1);
  set_grads(params, {3.0, 0.0, 0.0, 4.0});
  EXPECT_DOUBLE_EQ(clip_grad_norm(params, 1.0), 5.0);
  EXPECT_NEAR(params.grads().norm(), 1.0, 1e-15);
  EXPECT_DOUBLE_EQ(params.grads()(0), 0.6);
  EXPECT_DOUBLE_EQ(params.grads()(3), 0.8);
}

TEST(ClipGradNormTest, LeavesSmallAndNonFiniteGradientsAlone) {
  Parameters<double> params = row_parameter({0.0, 0.0});
  set_grads(params, {0.3, 0.4});
  EXPECT_DOUBLE_EQ(clip_grad_norm(params, 1.0), 0.5);
  EXPECT_EQ(params.grads()(0), 0.3);
  set_grads(params, {std::numeric_limits<double>::infinity(), 1.0});
  EXPECT_TRUE(std::isinf(clip_grad_norm(params, 1.0)));
  EXPECT_EQ(params.grads()(1), 1.0);
  EXPECT_THROW(clip_grad_norm(params, 0.0), ArgumentError);
}

TEST(OptimizerFloatTest, AdamWAndClippingRunInFloat) {
  Parameters<float> params;
  const ParameterHandle h = params.add("w", 1, 2);
  params.value(h) << 1.0f, -1.0f;
  params.grad(h) << 30.0f, 40.0f;
  EXPECT_FLOAT_EQ(static_cast<float>(clip_grad_norm(params, 5.0)), 50.0f);
  AdamW<float> adamw(params, {.lr = 0.01, .weight_decay = 0.1});
  adamw.step();
  EXPECT_NEAR(params.value(h)(0, 0), 1.0f * (1 - 0.001f) - 0.01f, 1e-6f);
  EXPECT_NEAR(params.value(h)(0, 1), -1.0f * (1 - 0.001f) - 0.01f, 1e-6f);
}

}  // namespace
}  // namespace edgewise
