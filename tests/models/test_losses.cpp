// Losses: values computed by hand, masks and ignored rows, stability at large logits, the
// no-entry case, and gradients against central differences in double precision.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/models/losses.hpp"
#include "support/gradcheck.hpp"
#include "support/matrices.hpp"

namespace edgewise {
namespace {

using testing::gradient_error;
using testing::random_matrix;

using testing::kNan;
using testing::matrix;

TEST(MseLossTest, HandComputedWithMissingLabel) {
  const Matrix<double> pred = matrix(2, 2, {1, 2, 3, 4});
  const MaskedTargets<double> labels = mask_from_nan(matrix(2, 2, {0, 2, 5, kNan}));
  EXPECT_EQ(labels.mask, matrix(2, 2, {1, 1, 1, 0}));
  EXPECT_EQ(labels.target, matrix(2, 2, {0, 2, 5, 0}));

  Matrix<double> dpred;
  // (1² + 0² + 2²) / 3 present entries.
  EXPECT_DOUBLE_EQ(mse_loss(dpred, pred, labels.target, &labels.mask), 5.0 / 3.0);
  EXPECT_TRUE(dpred.isApprox(matrix(2, 2, {2.0 / 3.0, 0, -4.0 / 3.0, 0})));
  EXPECT_EQ(dpred(1, 1), 0.0);
}

TEST(MseLossTest, UnmaskedNanTargetThrows) {
  Matrix<double> dpred;
  const Matrix<double> target = matrix(1, 2, {1, kNan});
  EXPECT_THROW(mse_loss(dpred, matrix(1, 2, {0, 0}), target), ArgumentError);
  const Matrix<double> mask_keeping_nan = matrix(1, 2, {0, 1});
  EXPECT_THROW(mse_loss(dpred, matrix(1, 2, {0, 0}), target, &mask_keeping_nan), ArgumentError);
}

TEST(MseLossTest, NoPresentEntryGivesZeroLossAndGradient) {
  Matrix<double> dpred;
  const Matrix<double> ones = Matrix<double>::Ones(2, 3), none = Matrix<double>::Zero(2, 3);
  EXPECT_EQ(mse_loss(dpred, ones, ones, &none), 0.0);
  EXPECT_EQ(dpred, none);
  EXPECT_EQ(mse_loss(dpred, Matrix<double>(0, 3), Matrix<double>(0, 3)), 0.0);
}

TEST(MseLossTest, RejectsMismatchedShapes) {
  Matrix<double> dpred;
  const Matrix<double> wide = Matrix<double>::Zero(2, 3), tall = Matrix<double>::Zero(3, 2);
  EXPECT_THROW(mse_loss(dpred, wide, tall), ArgumentError);
  const Matrix<double> mask = Matrix<double>::Ones(2, 2);
  EXPECT_THROW(mse_loss(dpred, wide, wide, &mask), ArgumentError);
}

TEST(CrossEntropyLossTest, TwoClassesByHand) {
  const double e = std::numbers::e;
  const Matrix<double> logits = matrix(3, 2, {1, 2, 0, 0, 5, -5});
  const std::vector<Index> targets = {1, 0, -1};  // the last row is ignored
  Matrix<double> dpred;
  // Row 0: log(e¹ + e²) - 2 = log(1 + 1/e); row 1: log 2.
  EXPECT_NEAR(cross_entropy_loss(dpred, logits, targets), (std::log(1.0 + 1.0 / e) + std::log(2.0)) / 2.0, 1e-15);
  // (softmax - one-hot) / 2 present rows.
  const Matrix<double> expected = matrix(3, 2, {1.0 / (1.0 + e) / 2.0, -1.0 / (1.0 + e) / 2.0, -0.25, 0.25, 0, 0});
  EXPECT_TRUE(dpred.isApprox(expected, 1e-14)) << dpred;

  const Vector<double> mask = (Vector<double>(3) << 1, 0, 1).finished();  // drops row 1 as well
  EXPECT_NEAR(cross_entropy_loss(dpred, logits, targets, &mask), std::log(1.0 + 1.0 / e), 1e-15);
  EXPECT_TRUE(dpred.row(0).isApprox(2.0 * expected.row(0), 1e-14));
  EXPECT_TRUE(dpred.bottomRows(2).isZero());
}

TEST(CrossEntropyLossTest, LargeLogitsStayFinite) {
  const Matrix<double> logits = matrix(2, 2, {1000, -1000, -1000, 1000});
  const std::vector<Index> targets = {1, 1};
  Matrix<double> dpred;
  EXPECT_DOUBLE_EQ(cross_entropy_loss(dpred, logits, targets), 1000.0);  // (2000 + 0) / 2
  EXPECT_TRUE(dpred.isApprox(matrix(2, 2, {0.5, -0.5, 0, 0})));
}

TEST(CrossEntropyLossTest, NoPresentRowAndBadTargets) {
  Matrix<double> dpred;
  const Matrix<double> logits = Matrix<double>::Ones(2, 3);
  const std::vector<Index> ignored = {-1, -1};
  EXPECT_EQ(cross_entropy_loss(dpred, logits, ignored), 0.0);
  EXPECT_TRUE(dpred.isZero() && dpred.rows() == 2 && dpred.cols() == 3);
  const std::vector<Index> out_of_range = {0, 3};
  EXPECT_THROW(cross_entropy_loss(dpred, logits, out_of_range), ArgumentError);
  const std::vector<Index> too_few = {0};
  EXPECT_THROW(cross_entropy_loss(dpred, logits, too_few), ArgumentError);
}

TEST(BceWithLogitsLossTest, ZeroLogitCostsLog2) {
  Matrix<double> dpred;
  EXPECT_DOUBLE_EQ(bce_with_logits_loss(dpred, matrix(1, 3, {0, 0, 0}), matrix(1, 3, {0, 1, 0.5})), std::log(2.0));
  EXPECT_TRUE(dpred.isApprox(matrix(1, 3, {0.5 / 3, -0.5 / 3, 0})));
}

TEST(BceWithLogitsLossTest, LargeLogitsStayFinite) {
  Matrix<double> dpred;
  const double loss = bce_with_logits_loss(dpred, matrix(1, 4, {1000, -1000, 1000, -1000}), matrix(1, 4, {0, 1, 1, 0}));
  EXPECT_DOUBLE_EQ(loss, 500.0);  // (1000 + 1000 + 0 + 0) / 4
  EXPECT_TRUE(dpred.allFinite());
  EXPECT_TRUE(dpred.isApprox(matrix(1, 4, {0.25, -0.25, 0, 0})));
}

TEST(BceWithLogitsLossTest, MaskExcludesEntries) {
  Matrix<double> dpred;
  const Matrix<double> mask = matrix(2, 2, {1, 0, 0, 0});
  EXPECT_DOUBLE_EQ(bce_with_logits_loss(dpred, matrix(2, 2, {0, 1000, 3, -2}), matrix(2, 2, {1, 0, 0, 1}), &mask),
                   std::log(2.0));
  EXPECT_EQ(dpred, matrix(2, 2, {-0.5, 0, 0, 0}));
  const Matrix<double> none = Matrix<double>::Zero(2, 2);
  EXPECT_EQ(bce_with_logits_loss(dpred, matrix(2, 2, {0, 1, 2, 3}), none, &none), 0.0);
  EXPECT_EQ(dpred, none);
}

// Every fourth entry masked out.
Matrix<double> sparse_mask(Index rows, Index cols) {
  Matrix<double> mask = Matrix<double>::Ones(rows, cols);
  for (Index k = 0; k < mask.size(); k += 4) mask.data()[k] = 0.0;
  return mask;
}

TEST(LossGradientTest, MatchFiniteDifferences) {
  SplitMix64 rng(1);
  Matrix<double> pred = 3.0 * random_matrix(5, 3, rng);
  const Matrix<double> mask = sparse_mask(5, 3);
  const Matrix<double> regression_target = random_matrix(5, 3, rng);
  const Matrix<double> binary_target = (random_matrix(5, 3, rng).array() > 0).cast<double>();
  Matrix<double> dpred, scratch;

  mse_loss(dpred, pred, regression_target, &mask);
  EXPECT_LT(gradient_error("mse", pred.data(), dpred.data(), pred.size(),
                           [&] { return mse_loss(scratch, pred, regression_target, &mask); }),
            1e-6);
  bce_with_logits_loss(dpred, pred, binary_target, &mask);
  EXPECT_LT(gradient_error("bce", pred.data(), dpred.data(), pred.size(),
                           [&] { return bce_with_logits_loss(scratch, pred, binary_target, &mask); }),
            1e-6);
  const std::vector<Index> classes = {2, -1, 0, 1, 2};
  const Vector<double> row_mask = (Vector<double>(5) << 1, 1, 1, 0, 1).finished();
  cross_entropy_loss(dpred, pred, classes, &row_mask);
  EXPECT_LT(gradient_error("cross entropy", pred.data(), dpred.data(), pred.size(),
                           [&] { return cross_entropy_loss(scratch, pred, classes, &row_mask); }),
            1e-6);
}

TEST(GaussianNllLossTest, HandComputedWithMissingLabel) {
  // Means 1 and 3 against targets 0 and 5; raw variances log(e - 1) (softplus 1) and 0 (log 2).
  const double raw_one = std::log(std::numbers::e - 1);
  const Matrix<double> pred = matrix(2, 4, {1, 7, raw_one, 0, 3, 2, 0, 0});
  const MaskedTargets<double> labels = mask_from_nan(matrix(2, 2, {0, kNan, 5, kNan}));
  Matrix<double> dpred;
  const double v1 = 1 + 1e-6, v2 = std::log(2.0) + 1e-6;
  const double expected = (0.5 * (std::log(v1) + 1 / v1) + 0.5 * (std::log(v2) + 4 / v2)) / 2;
  EXPECT_NEAR(gaussian_nll_loss(dpred, pred, labels.target, &labels.mask), expected, 1e-12);
  EXPECT_NEAR(dpred(0, 0), 1 / v1 / 2, 1e-12);
  EXPECT_NEAR(dpred(1, 0), -2 / v2 / 2, 1e-12);
  EXPECT_EQ(dpred(0, 1), 0.0);  // missing label: neither its mean
  EXPECT_EQ(dpred(0, 3), 0.0);  // nor its variance moves
  EXPECT_NEAR(variance_of_output(raw_one), v1, 1e-12);
  EXPECT_NEAR(variance_of_output(-800), 1e-6, 1e-12);  // softplus without overflow
  EXPECT_NEAR(variance_of_output(800), 800 + 1e-6, 1e-9);
  EXPECT_THROW(gaussian_nll_loss(dpred, matrix(2, 2, {1, 2, 3, 4}), labels.target, &labels.mask), ArgumentError);
}

// beta-NLL: each target's term and both its derivatives times variance^beta, the weight held constant.
TEST(GaussianNllLossTest, BetaWeightsEachTargetByItsVariance) {
  SplitMix64 rng(4);
  const Matrix<double> pred = random_matrix(5, 6, rng), target = random_matrix(5, 3, rng);
  Matrix<double> plain, weighted;
  const Matrix<double>* all_present = nullptr;
  for (Index r = 0; r < 5; ++r)
    for (Index t = 0; t < 3; ++t) {
      const Matrix<double> one_pred = (Matrix<double>(1, 2) << pred(r, t), pred(r, 3 + t)).finished();
      const Matrix<double> one_target = Matrix<double>::Constant(1, 1, target(r, t));
      const double weight = std::sqrt(variance_of_output(pred(r, 3 + t)));
      EXPECT_NEAR(gaussian_nll_loss(weighted, one_pred, one_target, all_present, 0.5),
                  weight * gaussian_nll_loss(plain, one_pred, one_target), 1e-12);
      EXPECT_NEAR(weighted(0, 0), weight * plain(0, 0), 1e-12);
      EXPECT_NEAR(weighted(0, 1), weight * plain(0, 1), 1e-12);
    }
  // beta 1 moves a mean as the squared error does: by its error (half mse_loss's derivative).
  const Matrix<double> one_pred = matrix(1, 2, {2, 0.3});
  gaussian_nll_loss(weighted, one_pred, matrix(1, 1, {-1}), all_present, 1.0);
  EXPECT_NEAR(weighted(0, 0), 3.0, 1e-12);
}

TEST(EvidentialLossTest, HandComputedWithMissingLabel) {
  // gamma 1 against target 0; raw nu, alpha, beta chosen so that nu = 1, alpha = 2, beta = 1 (less
  // the 1e-6 each carries), so Omega = 4 and the Student-t term's argument is nu e^2 + Omega = 5.
  const double raw_one = std::log(std::numbers::e - 1);
  const Matrix<double> pred = matrix(1, 8, {1, 9, raw_one, 0, raw_one, 0, raw_one, 0});
  const MaskedTargets<double> labels = mask_from_nan(matrix(1, 2, {0, kNan}));
  Matrix<double> dpred;
  const double nll = 0.5 * std::log(std::numbers::pi) - 2 * std::log(4.0) + 2.5 * std::log(5.0) + std::lgamma(2.0) -
                     std::lgamma(2.5);
  const double regularized = nll + 0.2 * 1 * (2 * 1 + 2);  // |error| (2 nu + alpha)
  EXPECT_NEAR(evidential_loss(dpred, pred, labels.target, &labels.mask, 0.0), nll, 1e-5);
  EXPECT_NEAR(evidential_loss(dpred, pred, labels.target, &labels.mask, 0.2), regularized, 1e-5);
  EXPECT_NEAR(dpred(0, 0), 2.5 * 2 * 1 / 5.0 + 0.2 * 4, 1e-5);  // d/d gamma
  EXPECT_EQ(dpred(0, 1), 0.0);  // a missing label moves none of its outputs
  EXPECT_EQ(dpred(0, 7), 0.0);
  // Total variance beta (1 + nu) / (nu (alpha - 1)) = 2.
  EXPECT_NEAR(evidential_variance(raw_one, raw_one, raw_one), 2.0, 1e-5);
  EXPECT_THROW(evidential_loss(dpred, matrix(1, 4, {1, 2, 3, 4}), labels.target, &labels.mask, 0.2), ArgumentError);
}

// The Gaussian and evidential losses' gradients, over three targets with one label missing.
TEST(DistributionLossTest, GradientsMatchCentralDifferences) {
  const auto check = [](const char* name, Index outputs, const auto& loss) {
    SplitMix64 rng(9);
    Matrix<double> pred = random_matrix(5, 3 * outputs, rng);  // perturbed in place
    const Matrix<double> target = random_matrix(5, 3, rng);
    Matrix<double> mask = Matrix<double>::Ones(5, 3);
    mask(1, 2) = 0;
    Matrix<double> dpred, scratch;
    loss(dpred, pred, target, mask);
    EXPECT_LT(gradient_error(name, pred.data(), dpred.data(), pred.size(),
                             [&] { return loss(scratch, pred, target, mask); }),
              1e-6);
  };
  check("gaussian nll", 2, [](auto& d, const auto& p, const auto& t, const auto& m) {
    return gaussian_nll_loss(d, p, t, &m);
  });
  check("evidential", 4, [](auto& d, const auto& p, const auto& t, const auto& m) {
    return evidential_loss(d, p, t, &m, 0.2);
  });
}

TEST(OutputDistributionTest, OutputsPerTarget) {
  EXPECT_EQ(outputs_per_target(OutputDistribution::point), 1);
  EXPECT_EQ(outputs_per_target(OutputDistribution::gaussian), 2);
  EXPECT_EQ(outputs_per_target(OutputDistribution::evidential), 4);
}

TEST(LossFloatTest, AgreesWithDouble) {
  SplitMix64 rng(2);
  const Matrix<double> pred = random_matrix(4, 3, rng);
  const Matrix<double> target = (random_matrix(4, 3, rng).array() > 0).cast<double>();
  const Matrix<float> pred_float = pred.cast<float>(), target_float = target.cast<float>();
  Matrix<double> dpred;
  Matrix<float> dpred_float;
  EXPECT_NEAR(bce_with_logits_loss(dpred_float, pred_float, target_float), bce_with_logits_loss(dpred, pred, target),
              1e-6);
  EXPECT_TRUE(dpred_float.cast<double>().isApprox(dpred, 1e-6));
  EXPECT_NEAR(mse_loss(dpred_float, pred_float, target_float), mse_loss(dpred, pred, target), 1e-6);
  const std::vector<Index> classes = {0, 1, 2, 1};
  EXPECT_NEAR(cross_entropy_loss(dpred_float, pred_float, classes), cross_entropy_loss(dpred, pred, classes), 1e-6);
  const MaskedTargets<float> masked = mask_from_nan(Matrix<float>(Matrix<float>::Constant(1, 2, std::nanf(""))));
  EXPECT_TRUE(masked.mask.isZero() && masked.target.isZero());
}

}  // namespace
}  // namespace edgewise
