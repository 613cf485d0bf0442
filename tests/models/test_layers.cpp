// Layers: finite-difference checks of every backward in double precision on loss = sum(R .* y) for
// a fixed random R (so dy = R), a demonstration that the check rejects a wrong backward, known
// activation values, and Dropout's masks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/models/layers.hpp"
#include "support/gradcheck.hpp"

namespace edgewise {
namespace {

using testing::gradient_error;
using testing::random_matrix;

constexpr double kTolerance = 1e-6;
// Rounding noise in a central difference is about 1e-16 |loss| / step; with losses of a few units,
// a step of 1e-5 keeps it near 1e-10 (with the default 1e-6 the FeedForward checks reach 6e-7,
// close to the tolerance), while the truncation error step² f''' / 6 stays near 1e-11.
constexpr double kStep = 1e-5;

using Forward = std::function<const Matrix<double>&(const Matrix<double>&)>;
using Backward = std::function<const Matrix<double>&(const Matrix<double>&)>;

struct Errors {
  double input = 0;
  double parameters = 0;
};

// Worst relative errors of dx and of every parameter gradient in params, for loss = sum(R .* y).
Errors check_gradients(Parameters<double>& params, Matrix<double>& x, const Forward& forward, const Backward& backward,
                       SplitMix64& rng) {
  const Matrix<double>& y = forward(x);
  const Matrix<double> r = random_matrix(y.rows(), y.cols(), rng);
  const auto loss = [&] { return forward(x).cwiseProduct(r).sum(); };
  loss();
  params.zero_grad();
  const Matrix<double> dx = backward(r);
  const Vector<double> analytic = params.grads();

  Errors errors;
  errors.input = gradient_error("x", x.data(), dx.data(), x.size(), loss, kStep);
  if (params.size() > 0)
    errors.parameters =
        gradient_error("parameters", params.values().data(), analytic.data(), params.size(), loss, kStep);
  return errors;
}

// Uniform entries in ±[0.1, 1): away from the kink at 0 of the ReLU family.
Matrix<double> away_from_zero(Index rows, Index cols, SplitMix64& rng) {
  Matrix<double> m = random_matrix(rows, cols, rng);
  for (Index k = 0; k < m.size(); ++k) m.data()[k] = std::copysign(0.1 + 0.9 * std::abs(m.data()[k]), m.data()[k]);
  return m;
}

void randomize(Parameters<double>& params, SplitMix64& rng) {
  for (Index k = 0; k < params.size(); ++k) params.values()(k) = rng.uniform(-1.0, 1.0);
}

TEST(LinearTest, GradientsMatchFiniteDifferences) {
  for (const bool bias : {true, false}) {
    SplitMix64 rng(1);
    Parameters<double> params;
    Linear<double> linear(params, "linear", 5, 3, bias);
    randomize(params, rng);
    Matrix<double> x = random_matrix(7, 5, rng);
    const Errors e = check_gradients(
        params, x, [&](const Matrix<double>& in) -> const Matrix<double>& { return linear.forward(in); },
        [&](const Matrix<double>& dy) -> const Matrix<double>& { return linear.backward(dy); }, rng);
    EXPECT_LT(e.input, kTolerance) << "bias " << bias;
    EXPECT_LT(e.parameters, kTolerance) << "bias " << bias;
  }
}

TEST(LinearTest, ComputesXWPlusB) {
  Parameters<double> params;
  Linear<double> linear(params, "linear", 2, 3);
  params.value(params.find("linear.weight")) << 1, 2, 3, 4, 5, 6;
  params.value(params.find("linear.bias")) << 0.5, -0.5, 1;
  Matrix<double> x(1, 2);
  x << 1, -1;
  Matrix<double> expected(1, 3);
  expected << -2.5, -3.5, -2;
  EXPECT_EQ(linear.forward(x), expected);
}

TEST(LinearTest, ResetGivesGlorotWeightsAndZeroBias) {
  Parameters<double> params;
  Linear<double> linear(params, "linear", 20, 30);
  params.values().setOnes();
  SplitMix64 rng(3);
  linear.reset_parameters(rng);
  const auto w = params.value(params.find("linear.weight"));
  EXPECT_LE(w.cwiseAbs().maxCoeff(), std::sqrt(6.0 / 50.0));
  EXPECT_GT(w.cwiseAbs().maxCoeff(), 0.5 * std::sqrt(6.0 / 50.0));
  EXPECT_TRUE(params.value(params.find("linear.bias")).isZero());
}

TEST(LinearTest, BackwardAccumulatesParameterGradients) {
  SplitMix64 rng(4);
  Parameters<double> params;
  Linear<double> linear(params, "linear", 3, 2);
  randomize(params, rng);
  const Matrix<double> x = random_matrix(4, 3, rng);
  const Matrix<double> dy = random_matrix(4, 2, rng);
  linear.forward(x);
  linear.backward(dy);
  const Vector<double> once = params.grads();
  linear.backward(dy);
  EXPECT_TRUE(params.grads().isApprox(2.0 * once));
}

TEST(LinearTest, RejectsMismatchedShapes) {
  Parameters<double> params;
  Linear<double> linear(params, "linear", 3, 2);
  const Matrix<double> narrow = Matrix<double>::Zero(4, 2), x = Matrix<double>::Zero(4, 3);
  EXPECT_THROW(linear.forward(narrow), ArgumentError);
  linear.forward(x);
  EXPECT_THROW(linear.backward(x), ArgumentError);
  EXPECT_THROW(Linear<double>(params, "empty", 0, 2), ArgumentError);
}

// The check is only worth something if it fails on a wrong backward: here dx = dy W instead of dy Wᵀ
// (a square W, so the shapes agree), and a correct gradient off by one part in 10^4.
TEST(GradientCheckTest, RejectsWrongBackward) {
  SplitMix64 rng(5);
  Parameters<double> params;
  Linear<double> linear(params, "linear", 4, 4);
  randomize(params, rng);
  Matrix<double> x = random_matrix(3, 4, rng);
  const Matrix<double> r = random_matrix(3, 4, rng);
  const auto loss = [&] { return linear.forward(x).cwiseProduct(r).sum(); };
  const Matrix<double> w = params.value(params.find("linear.weight"));

  const Matrix<double> untransposed = r * w;
  const double silent = 10.0;  // the expected failures need no report
  EXPECT_GT(gradient_error("dy W", x.data(), untransposed.data(), x.size(), loss, kStep, silent), 1e-2);
  const Matrix<double> off = r * w.transpose() * (1.0 + 1e-4);
  EXPECT_GT(gradient_error("dy Wᵀ (1 + 1e-4)", x.data(), off.data(), x.size(), loss, kStep, silent), 1e-5);
  const Matrix<double> right = r * w.transpose();
  EXPECT_LT(gradient_error("dy Wᵀ", x.data(), right.data(), x.size(), loss, kStep), kTolerance);
}

// dx of a parameter-free layer by central differences.
template <typename Layer>
double activation_error(Layer& layer, Matrix<double> x, SplitMix64& rng) {
  Parameters<double> none;
  return check_gradients(
             none, x, [&](const Matrix<double>& in) -> const Matrix<double>& { return layer.forward(in); },
             [&](const Matrix<double>& dy) -> const Matrix<double>& { return layer.backward(dy); }, rng)
      .input;
}

TEST(ActivationTest, GradientsMatchFiniteDifferences) {
  SplitMix64 rng(6);
  ReLU<double> relu;
  ELU<double> elu;
  ELU<double> elu_half(0.5);
  GELU<double> gelu;
  EXPECT_LT(activation_error(relu, away_from_zero(6, 5, rng), rng), kTolerance);
  EXPECT_LT(activation_error(elu, away_from_zero(6, 5, rng), rng), kTolerance);
  EXPECT_LT(activation_error(elu_half, away_from_zero(6, 5, rng), rng), kTolerance);
  EXPECT_LT(activation_error(gelu, 3.0 * random_matrix(6, 5, rng), rng), kTolerance);
}

TEST(ActivationTest, KnownValues) {
  Matrix<double> x(1, 3);
  x << -2, 0, 1;
  ReLU<double> relu;
  ELU<double> elu;
  GELU<double> gelu;
  EXPECT_EQ(relu.forward(x), (Matrix<double>(1, 3) << 0, 0, 1).finished());
  EXPECT_TRUE(elu.forward(x).isApprox((Matrix<double>(1, 3) << std::exp(-2.0) - 1.0, 0, 1).finished()));
  // Exact GELU: x Φ(x), with Φ(1) = 0.841344746068543 and Φ(-2) = 0.022750131948179.
  const Matrix<double>& g = gelu.forward(x);
  EXPECT_NEAR(g(0, 0), -2.0 * 0.022750131948179, 1e-14);
  EXPECT_EQ(g(0, 1), 0.0);
  EXPECT_NEAR(g(0, 2), 0.841344746068543, 1e-14);
}

// GELU's forward runs in chunks through Gelu::values; every element must equal Gelu::value bit for
// bit, on sizes around chunk and SIMD widths, with values where erf saturates and signed zeros.
TEST(ActivationTest, GeluForwardEqualsTheScalarFormulaBitForBit) {
  SplitMix64 rng(21);
  GELU<float> gelu;
  const activation::Gelu scalar;
  for (const Index cols : {1, 7, 16, 17, 4095, 4097, 9000}) {
    Matrix<float> x(2, cols);
    for (Index k = 0; k < x.size(); ++k)
      x.data()[k] = static_cast<float>((static_cast<double>(rng.next() >> 11) * 0x1.0p-53 * 2.0 - 1.0) * 12.0);
    x(0, 0) = -0.0f;
    const Matrix<float>& y = gelu.forward(x);
    for (Index k = 0; k < x.size(); ++k) {
      const float expected = scalar.value(x.data()[k]);
      ASSERT_EQ(std::memcmp(&y.data()[k], &expected, sizeof(float)), 0)
          << "x = " << x.data()[k] << ": " << y.data()[k] << " vs " << expected;
    }
  }
}

// In float, GELU runs on Eigen's vectorized erf and exp: its values and slopes stay within float
// rounding of the double formulas, and the backward pass matches derivative() bit for bit.
TEST(ActivationTest, FloatGeluMatchesDoubleAndItsBackwardMatchesTheScalarSlope) {
  SplitMix64 rng(22);
  GELU<float> gelu;
  GELU<double> reference;
  const activation::Gelu scalar;
  Matrix<double> x(3, 37);
  for (Index k = 0; k < x.size(); ++k) x.data()[k] = (static_cast<double>(rng.next() >> 11) * 0x1.0p-53 * 2.0 - 1.0) * 6.0;
  const Matrix<float> x_float = x.cast<float>();
  const Matrix<float> y = gelu.forward(x_float);
  const Matrix<double> x_widened = x_float.cast<double>();
  const Matrix<double> expected = reference.forward(x_widened);
  EXPECT_LT((y.cast<double>() - expected).cwiseAbs().maxCoeff(), 2e-6);

  const Matrix<float> dy = Matrix<float>::Ones(3, 37) * 0.5f;
  const Matrix<float> dx = gelu.backward(dy);
  const Matrix<double> dx_expected = reference.backward(dy.cast<double>());
  EXPECT_LT((dx.cast<double>() - dx_expected).cwiseAbs().maxCoeff(), 2e-6);
  for (Index k = 0; k < x.size(); ++k) {
    const float expected_slope = 0.5f * scalar.derivative(x_float.data()[k], y.data()[k]);
    ASSERT_EQ(std::memcmp(&dx.data()[k], &expected_slope, sizeof(float)), 0) << "x = " << x_float.data()[k];
  }
}

// In float, ELU runs on Eigen's vectorized exp, or a polynomial near 0: within float rounding of
// the double formula, relative to the value near 0, and forward equals the scalar value() bit for
// bit, on both sides of 0 and in saturation. Backward blends its two slopes 16 lanes at a time (82
// elements: whole blocks and a tail), and equals dy times derivative() bit for bit.
TEST(ActivationTest, FloatEluMatchesDoubleAndTheScalarFormula) {
  SplitMix64 rng(23);
  ELU<float> elu(0.7);
  ELU<double> reference(0.7);
  const activation::Elu scalar{0.7};
  Matrix<float> x(2, 41);
  for (Index k = 0; k < x.size(); ++k)
    x.data()[k] = static_cast<float>((static_cast<double>(rng.next() >> 11) * 0x1.0p-53 * 2.0 - 1.0) * 20.0);
  const float near_zero[] = {-1e-30f, -1e-7f, -1e-3f, -0.2499f, -0.25f, -0.2501f, -1.0f, -0.0f};
  std::copy(std::begin(near_zero), std::end(near_zero), x.data());
  const Matrix<float> y = elu.forward(x);
  const Matrix<double> x_widened = x.cast<double>();
  const Matrix<double> expected = reference.forward(x_widened);
  EXPECT_LT((y.cast<double>() - expected).cwiseAbs().maxCoeff(), 1e-6);
  for (Index k = 0; k < x.size(); ++k) {
    if (x.data()[k] < 0 && x.data()[k] > -1) {
      EXPECT_NEAR(y.data()[k] / expected.data()[k], 1.0, 3e-7) << "x = " << x.data()[k];
    }
  }
  for (Index k = 0; k < x.size(); ++k) {
    const float expected_value = scalar.value(x.data()[k]);
    ASSERT_EQ(std::memcmp(&y.data()[k], &expected_value, sizeof(float)), 0) << "x = " << x.data()[k];
  }

  x(0, 10) = 1e-45f;  // the smallest subnormal is positive: slope 1
  x(0, 11) = 0.0f;
  const Matrix<float> y_again = elu.forward(x);
  Matrix<float> dy(2, 41);
  for (Index k = 0; k < dy.size(); ++k) dy.data()[k] = static_cast<float>(k % 7) - 2.5f;
  const Matrix<float> dx = elu.backward(dy);
  for (Index k = 0; k < x.size(); ++k) {
    const float expected_slope = dy.data()[k] * scalar.derivative(x.data()[k], y_again.data()[k]);
    ASSERT_EQ(std::memcmp(&dx.data()[k], &expected_slope, sizeof(float)), 0) << "x = " << x.data()[k];
  }
  EXPECT_EQ(dx(0, 10), dy(0, 10));
}

TEST(DropoutTest, TrainingGradientMatchesFiniteDifferencesWithFixedMask) {
  SplitMix64 rng(7);
  Dropout<double> dropout(0.4);
  Parameters<double> none;
  Matrix<double> x = random_matrix(8, 6, rng);
  const Errors e = check_gradients(
      none, x,
      [&](const Matrix<double>& in) -> const Matrix<double>& {
        SplitMix64 mask_rng(11);  // the same key, so the same mask, at every evaluation
        return dropout.forward(in, Mode::train(mask_rng));
      },
      [&](const Matrix<double>& dy) -> const Matrix<double>& { return dropout.backward(dy); }, rng);
  EXPECT_LT(e.input, kTolerance);
}

TEST(DropoutTest, InferenceIsIdentity) {
  SplitMix64 rng(8);
  Dropout<double> dropout(0.5);
  const Matrix<double> x = random_matrix(5, 4, rng);
  EXPECT_EQ(&dropout.forward(x), &x);
  EXPECT_EQ(&dropout.backward(x), &x);
  Dropout<double> no_rate(0.0);
  EXPECT_EQ(&no_rate.forward(x, Mode::train(rng)), &x);
}

TEST(DropoutTest, TrainingKeepsOneMinusPScaled) {
  const double p = 0.3;
  SplitMix64 rng(9);
  Dropout<double> dropout(p);
  const Matrix<double> x = Matrix<double>::Constant(200, 100, 2.0);
  const Matrix<double>& y = dropout.forward(x, Mode::train(rng));
  Index kept = 0;
  for (Index k = 0; k < y.size(); ++k) {
    if (y.data()[k] == 0.0) continue;
    ++kept;
    ASSERT_DOUBLE_EQ(y.data()[k], 2.0 / (1.0 - p));
  }
  // 20000 Bernoulli(0.7) draws: the standard deviation of the kept fraction is 0.0032.
  EXPECT_NEAR(static_cast<double>(kept) / static_cast<double>(x.size()), 1.0 - p, 0.015);

  const Matrix<double> dy = Matrix<double>::Ones(200, 100);
  const Matrix<double>& dx = dropout.backward(dy);
  for (Index k = 0; k < dx.size(); ++k) ASSERT_EQ(dx.data()[k] == 0.0, y.data()[k] == 0.0) << k;
}

TEST(DropoutTest, MaskDependsOnKeyNotThreadCount) {
  const Matrix<double> x = Matrix<double>::Ones(300, 257);  // many chunks of parallel_for
  const auto mask_with_threads = [&](int threads, std::uint64_t seed) {
    set_num_threads(threads);
    Dropout<double> dropout(0.5);
    SplitMix64 rng(seed);
    return Matrix<double>(dropout.forward(x, Mode::train(rng)));
  };
  const Matrix<double> one_thread = mask_with_threads(1, 10);
  const Matrix<double> two_threads = mask_with_threads(2, 10);
  const Matrix<double> other_key = mask_with_threads(2, 12);
  set_num_threads(0);
  EXPECT_EQ(one_thread, two_threads);
  EXPECT_NE(one_thread, other_key);
}

TEST(DropoutTest, SparseInputGetsTheDenseMask) {
  SplitMix64 values(4);
  Matrix<double> x = testing::random_matrix(40, 30, values);
  for (Index k = 0; k < x.size(); ++k)
    if (k % 3 != 0) x.data()[k] = 0.0;  // a third non-zero, as bag-of-words rows are
  const SparseMatrix<double> sparse = x.sparseView();
  Dropout<double> dense_dropout(0.4), sparse_dropout(0.4);
  SplitMix64 rng_a(8), rng_b(8);
  const Matrix<double> dense_y = dense_dropout.forward(x, Mode::train(rng_a));
  const SparseMatrix<double>& sparse_y = sparse_dropout.forward(sparse, Mode::train(rng_b));
  EXPECT_EQ(Matrix<double>(sparse_y.toDense()), dense_y);
  const auto kept = (dense_y.array() != 0.0).count();
  EXPECT_EQ(sparse_y.nonZeros(), kept) << "the kept entries only";
  EXPECT_LT(kept, sparse.nonZeros());
  EXPECT_TRUE(sparse_y.isCompressed());
  EXPECT_EQ(&sparse_dropout.forward(sparse, Mode::inference()), &sparse) << "inference passes x through";
}

// Rows that are nodes of a larger graph (a sampled batch) draw the masks those nodes draw there, in
// forward, backward and the sparse forward alike.
TEST(DropoutTest, RowsWithNodeIdsDrawTheMasksOfThoseNodes) {
  SplitMix64 values(5);
  const Matrix<double> x = testing::random_matrix(8, 6, values);
  const std::vector<std::int32_t> ids = {6, 0, 3};
  Matrix<double> picked(3, 6);
  for (Index r = 0; r < 3; ++r) picked.row(r) = x.row(ids[static_cast<std::size_t>(r)]);
  Dropout<double> whole(0.5), part(0.5), sparse_part(0.5);
  SplitMix64 rng_whole(2), rng_part(2), rng_sparse(2);
  const Matrix<double> all = whole.forward(x, Mode::train(rng_whole));
  const Matrix<double> some = part.forward(picked, Mode::train(rng_part, ids));
  const Matrix<double> some_sparse =
      sparse_part.forward(SparseMatrix<double>(picked.sparseView()), Mode::train(rng_sparse, ids)).toDense();
  const Matrix<double> dall = whole.backward(Matrix<double>::Ones(8, 6));
  const Matrix<double> dsome = part.backward(Matrix<double>::Ones(3, 6));
  Index dropped = 0;
  for (Index r = 0; r < 3; ++r) {
    const Index node = ids[static_cast<std::size_t>(r)];
    EXPECT_EQ(some.row(r), all.row(node)) << "row " << r;
    EXPECT_EQ(some_sparse.row(r), all.row(node)) << "row " << r;
    EXPECT_EQ(dsome.row(r), dall.row(node)) << "row " << r;
    dropped += (dsome.row(r).array() == 0.0).count();
  }
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, 18);
  EXPECT_THROW(part.forward(x, Mode::train(rng_part, ids)), ArgumentError) << "fewer ids than rows";
}

TEST(DropoutTest, RejectsBadArguments) {
  EXPECT_THROW(Dropout<double>(1.0), ArgumentError);
  EXPECT_THROW(Dropout<double>(-0.1), ArgumentError);
  Dropout<double> dropout(0.5);
  const Matrix<double> x = Matrix<double>::Ones(2, 2);
  EXPECT_THROW(dropout.forward(x, Mode{true, nullptr, {}}), ArgumentError);
}

// Rows of whole, aligned packets (dim a multiple of 16 floats or 8 doubles here, so 16 and not 6)
// take a path of their own, forward and backward; the gradients must hold on both paths.
TEST(LayerNormTest, GradientsMatchFiniteDifferences) {
  for (const auto& [dim, seed] : {std::pair<Index, std::uint64_t>{6, 13}, std::pair<Index, std::uint64_t>{16, 15}}) {
    SCOPED_TRACE("dim " + std::to_string(dim));
    SplitMix64 rng(seed);
    Parameters<double> params;
    LayerNorm<double> norm(params, "norm", dim);
    randomize(params, rng);
    Matrix<double> x = 2.0 * random_matrix(5, dim, rng);
    const Errors e = check_gradients(
        params, x, [&](const Matrix<double>& in) -> const Matrix<double>& { return norm.forward(in); },
        [&](const Matrix<double>& dy) -> const Matrix<double>& { return norm.backward(dy); }, rng);
    EXPECT_LT(e.input, kTolerance);
    EXPECT_LT(e.parameters, kTolerance);
  }
}

TEST(LayerNormTest, NormalizesEachRow) {
  SplitMix64 rng(14);
  Parameters<double> params;
  LayerNorm<double> norm(params, "norm", 16);
  const Matrix<double> x = 5.0 * random_matrix(4, 16, rng).array() + 3.0;
  const Matrix<double>& y = norm.forward(x);
  for (Index r = 0; r < y.rows(); ++r) {
    EXPECT_NEAR(y.row(r).mean(), 0.0, 1e-12);
    const double variance = y.row(r).squaredNorm() / 16.0;
    const double input_variance = (x.row(r).array() - x.row(r).mean()).square().mean();
    EXPECT_NEAR(variance, input_variance / (input_variance + 1e-5), 1e-12);
  }
}

// The whole-packet paths, forward and backward, give the very bits of the row expressions they
// stand for, which trained models were saved with.
TEST(LayerNormTest, RowsOfWholePacketsGiveTheRowExpressionsBits) {
  SplitMix64 rng(16);
  for (const Index dim : {16, 48, 64, 128}) {
    Parameters<float> params;
    LayerNorm<float> norm(params, "norm", dim);
    for (Index k = 0; k < params.size(); ++k) params.values()(k) = static_cast<float>(rng.uniform(-1.0, 1.0));
    const Matrix<float> x = (3.0 * random_matrix(7, dim, rng).array() + 1.0).cast<float>();
    const Matrix<float> y = norm.forward(x);
    const Matrix<float> dy = random_matrix(7, dim, rng).cast<float>();
    const Matrix<float> dx = norm.backward(dy);
    const auto gamma = params.value(params.find("norm.gamma")).row(0);
    const auto beta = params.value(params.find("norm.beta")).row(0);
    const auto scalar_dim = static_cast<float>(dim);
    const auto row_bytes = sizeof(float) * static_cast<std::size_t>(dim);
    for (Index r = 0; r < x.rows(); ++r) {
      Eigen::RowVectorXf normalized = x.row(r).array() - x.row(r).mean();
      const float rstd = 1.0f / std::sqrt(normalized.squaredNorm() / scalar_dim + 1e-5f);
      normalized *= rstd;
      const Eigen::RowVectorXf expected = normalized.cwiseProduct(gamma) + beta;
      EXPECT_EQ(std::memcmp(y.row(r).data(), expected.data(), row_bytes), 0) << "forward, dim " << dim << ", row " << r;
      Eigen::RowVectorXf g = dy.row(r).cwiseProduct(gamma);
      const float mean_g = g.sum() / scalar_dim;
      const float mean_g_xhat = g.dot(normalized) / scalar_dim;
      g.array() = rstd * (g.array() - mean_g - normalized.array() * mean_g_xhat);
      EXPECT_EQ(std::memcmp(dx.row(r).data(), g.data(), row_bytes), 0) << "backward, dim " << dim << ", row " << r;
    }
  }
}

struct FeedForwardCase {
  Activation activation;
  double dropout;
};

class FeedForwardGradientTest : public ::testing::TestWithParam<FeedForwardCase> {};

TEST_P(FeedForwardGradientTest, MatchesFiniteDifferences) {
  const FeedForwardCase c = GetParam();
  SplitMix64 rng(15);
  Parameters<double> params;
  FeedForward<double> block(params, "ff",
                            {.dim = 4, .hidden_dim = 6, .activation = c.activation, .dropout = c.dropout});
  randomize(params, rng);
  Matrix<double> x = random_matrix(5, 4, rng);
  const Errors e = check_gradients(
      params, x,
      [&](const Matrix<double>& in) -> const Matrix<double>& {
        SplitMix64 mask_rng(16);  // a fixed dropout mask per evaluation
        return block.forward(in, Mode::train(mask_rng));
      },
      [&](const Matrix<double>& dy) -> const Matrix<double>& { return block.backward(dy); }, rng);
  EXPECT_LT(e.input, kTolerance);
  EXPECT_LT(e.parameters, kTolerance);
}

INSTANTIATE_TEST_SUITE_P(Activations, FeedForwardGradientTest,
                         ::testing::Values(FeedForwardCase{Activation::relu, 0.0},
                                           FeedForwardCase{Activation::gelu, 0.0},
                                           FeedForwardCase{Activation::elu, 0.0},
                                           FeedForwardCase{Activation::relu, 0.3},
                                           FeedForwardCase{Activation::gelu, 0.3}));

TEST(FeedForwardTest, RegistersParametersAndDefaultsHiddenWidth) {
  Parameters<double> params;
  FeedForward<double> block(params, "ff", {.dim = 3});
  EXPECT_EQ(block.options().hidden_dim, 12);
  EXPECT_EQ(params.slot(params.find("ff.linear1.weight")).cols, 12);
  EXPECT_EQ(params.slot(params.find("ff.linear2.weight")).cols, 3);
  EXPECT_GE(params.find("ff.linear2.bias").slot, 0);
  EXPECT_EQ(params.size(), 3 * 12 + 12 + 12 * 3 + 3);
  EXPECT_THROW(FeedForward<double>(params, "bad", {.dim = 0}), ArgumentError);
  EXPECT_THROW((FeedForward<double>(params, "bad", {.dim = 2, .dropout = 1.0})), ArgumentError);
}

TEST(FeedForwardTest, ZeroBranchIsIdentity) {
  SplitMix64 rng(17);
  Parameters<double> params;
  FeedForward<double> block(params, "ff", {.dim = 4, .activation = Activation::relu});
  const Matrix<double> x = random_matrix(3, 4, rng);
  EXPECT_EQ(block.forward(x), x);  // all parameters are still zero
}

TEST(FeedForwardTest, FloatAgreesWithDouble) {
  Parameters<double> params;
  Parameters<float> params_float;
  FeedForward<double> block(params, "ff", {.dim = 8, .activation = Activation::gelu});
  FeedForward<float> block_float(params_float, "ff", {.dim = 8, .activation = Activation::gelu});
  SplitMix64 rng(18), rng_float(18);
  block.reset_parameters(rng);
  block_float.reset_parameters(rng_float);
  const Matrix<double> x = random_matrix(6, 8, rng);
  const Matrix<float> x_float = x.cast<float>();
  EXPECT_TRUE(block_float.forward(x_float).cast<double>().isApprox(block.forward(x), 1e-5));
  const Matrix<double> dy = random_matrix(6, 8, rng);
  const Matrix<float> dy_float = dy.cast<float>();
  EXPECT_TRUE(block_float.backward(dy_float).cast<double>().isApprox(block.backward(dy), 1e-5));
  EXPECT_TRUE(params_float.grads().cast<double>().isApprox(params.grads(), 1e-5));
}

}  // namespace
}  // namespace edgewise
