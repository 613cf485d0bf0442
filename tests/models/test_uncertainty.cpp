// Uncertainty: the spread calibration, the class calibration and their scores worked by hand, their
// edge cases, and split-conformal intervals and sets covering what they promise on rows drawn with a
// known error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <random>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/models/uncertainty.hpp"
#include "support/matrices.hpp"

namespace edgewise {
namespace {

using testing::kMissing;

TEST(SpreadCalibrationTest, FitsOffsetScaleAndScoresByHandUnderTheLikelihood) {
  // Spreads 1, 1, 3 (median 1), errors 2, 4, 4. The offset b is the multiple of the median from 1/64
  // to 4 whose widths w = spread + b, scaled, give the smallest NLL: mean log w + log scale, with
  // scale^2 = mean (error / w)^2. By hand: 1.2707 at b = 1, 1.2453 at 2, 1.2316 at 4.
  const std::vector<float> targets{2, 4, kMissing, 4}, predictions{0, 0, 100, 0}, spread{1, 1, 50, 3};
  const SpreadCalibration calibration = fit_spread_calibration(targets, predictions, spread, SpreadFit::nll);
  EXPECT_DOUBLE_EQ(calibration.offset, 4);
  const double scale = std::sqrt((4.0 / 25 + 16.0 / 25 + 16.0 / 49) / 3);
  EXPECT_NEAR(calibration.scale, scale, 1e-7);
  EXPECT_EQ(calibration.scores, (std::vector<float>{0.4f, 4.0f / 7, 0.8f}));
  EXPECT_NEAR(calibration.sigma(1), 5 * scale, 1e-7);
  // n = 3: coverage 0.5 takes the ceil(4 * 0.5) = 2nd score, 0.75 the 3rd.
  EXPECT_NEAR(calibration.half_width(1, 0.5), 20.0 / 7, 1e-6);
  EXPECT_NEAR(calibration.half_width(1, 0.75), 4, 1e-6);
  EXPECT_NEAR(calibration.half_width(3, 0.75), 5.6, 1e-6);
}

TEST(SpreadCalibrationTest, RefusesCoveragesItCannotGive) {
  const SpreadCalibration calibration = fit_spread_calibration(std::vector<float>{2, 4, 4},
                                                               std::vector<float>{0, 0, 0}, std::vector<float>{1, 1, 3});
  for (const double coverage : {0.0, 1.0, -0.5, std::nan("")})
    EXPECT_THROW(calibration.half_width(1, coverage), ArgumentError) << coverage;
  try {
    calibration.half_width(1, 0.8);
    FAIL() << "0.8 needs 4 rows";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("needs at least 4 calibration rows; the model was calibrated on 3"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(
      fit_spread_calibration(std::vector<float>{1, kMissing}, std::vector<float>{0, 0}, std::vector<float>{1, 1}),
      ArgumentError);
  EXPECT_THROW(fit_spread_calibration(std::vector<float>{1, 2}, std::vector<float>{0}, std::vector<float>{1, 1}),
               ArgumentError);
}

TEST(SpreadCalibrationTest, MembersThatAgreeGetOneWidthFromTheErrors) {
  const std::vector<float> targets{3, -4}, predictions{0, 0}, spread{0, 0};
  const SpreadCalibration by_likelihood = fit_spread_calibration(targets, predictions, spread, SpreadFit::nll);
  EXPECT_NEAR(by_likelihood.sigma(0), std::sqrt(12.5), 1e-6);  // z-scaling: mean z^2 = 1
  // The CRPS's minimum: 2 phi(3 / s) + 2 phi(4 / s) = 2 / sqrt(pi), solved by SciPy's brentq.
  const SpreadCalibration by_crps = fit_spread_calibration(targets, predictions, spread, SpreadFit::crps);
  EXPECT_NEAR(by_crps.sigma(0), 4.217306172285828, 1e-6);
}

// The CRPS of N(0, sigma^2) at y from its definition, the integral of (F(x) - [x >= y])^2 over x, by
// Simpson's rule: no closed form involved.
double integrated_crps(double y, double sigma) {
  const auto simpson = [](auto f, double a, double b) {
    constexpr int kSteps = 2000;
    const double h = (b - a) / kSteps;
    double sum = f(a) + f(b);
    for (int k = 1; k < kSteps; ++k) sum += (k % 2 == 1 ? 4 : 2) * f(a + k * h);
    return sum * h / 3;
  };
  const auto cdf = [sigma](double x) { return 0.5 * std::erfc(-x / (sigma * std::numbers::sqrt2)); };
  const double far = 12 * sigma + std::abs(y);
  return simpson([&](double x) { return cdf(x) * cdf(x); }, -far, y) +
         simpson([&](double x) { return (1 - cdf(x)) * (1 - cdf(x)); }, y, far);
}

TEST(SpreadCalibrationTest, TheCrpsFitMinimizesTheIntegratedScore) {
  const std::vector<float> targets{0.3f, -1.2f, 2.5f, 0.1f, -0.4f, 4.0f}, predictions(6, 0.0f),
      spread{0.5f, 1.0f, 0.8f, 0.2f, 0.6f, 1.5f};
  const SpreadCalibration calibration = fit_spread_calibration(targets, predictions, spread, SpreadFit::crps);
  const auto total = [&](double offset, double scale) {
    double sum = 0;
    for (std::size_t i = 0; i < targets.size(); ++i) sum += integrated_crps(targets[i], scale * (spread[i] + offset));
    return sum;
  };
  const double best = total(calibration.offset, calibration.scale);
  for (const double factor : {0.99, 1.01})
    EXPECT_GT(total(calibration.offset, factor * calibration.scale), best + 1e-6) << factor;
  // No other offset of the grid (multiples of the median spread, 0.7) scores lower at any scale: the
  // score is convex in the scale, so a golden-section search finds each offset's lowest.
  for (double multiple = 1.0 / 64; multiple <= 4; multiple *= 2) {
    const auto at = [&](double log_scale) { return total(multiple * 0.7, std::exp(log_scale)); };
    const double golden = (std::sqrt(5.0) - 1) / 2;
    double low = std::log(0.01), high = std::log(100.0);
    for (int step = 0; step < 50; ++step) {
      const double left = high - golden * (high - low), right = low + golden * (high - low);
      if (at(left) < at(right))
        high = right;
      else
        low = left;
    }
    EXPECT_GE(at((low + high) / 2), best - 1e-6) << multiple;
  }
}

// Errors with a heavy tail (Student's t, 3 degrees of freedom): the likelihood's standard deviation
// matches the tail, so central Gaussian intervals hold more than their share; the CRPS's holds
// closer to it at every level.
TEST(SpreadCalibrationTest, TheCrpsFitFollowsEveryLevelOfAHeavyTailedError) {
  std::mt19937 random(7);
  std::student_t_distribution<double> noise(3);
  std::uniform_real_distribution<double> spread_of(0.5, 2);
  const auto draw = [&](std::size_t n, std::vector<float>& targets, std::vector<float>& spread) {
    targets.resize(n);
    spread.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      spread[i] = static_cast<float>(spread_of(random));
      targets[i] = static_cast<float>(spread[i] * noise(random));
    }
  };
  std::vector<float> targets, spread;
  draw(2000, targets, spread);
  const std::vector<float> zeros(targets.size(), 0.0f);
  const SpreadCalibration by_crps = fit_spread_calibration(targets, zeros, spread, SpreadFit::crps);
  const SpreadCalibration by_likelihood = fit_spread_calibration(targets, zeros, spread, SpreadFit::nll);
  EXPECT_LT(by_crps.sigma(1), 0.9 * by_likelihood.sigma(1));
  draw(20000, targets, spread);
  const auto miscalibration = [&](const SpreadCalibration& calibration) {
    std::vector<float> sigma;
    for (const float raw : spread) sigma.push_back(static_cast<float>(calibration.sigma(raw)));
    const std::vector<float> fresh_zeros(targets.size(), 0.0f);
    return score_uncertainty(targets, fresh_zeros, sigma, fresh_zeros, fresh_zeros).miscalibration_area;
  };
  // Over draws, about 0.02-0.04 against 0.08-0.12.
  EXPECT_LT(miscalibration(by_crps), miscalibration(by_likelihood) - 0.03);
  EXPECT_LT(miscalibration(by_crps), 0.05);
}

TEST(SpreadCalibrationTest, JsonRoundTripsAndRefusesBrokenValues) {
  const SpreadCalibration calibration = fit_spread_calibration(std::vector<float>{2, 4, 4},
                                                               std::vector<float>{0, 0, 0}, std::vector<float>{1, 1, 3});
  const auto read = nlohmann::json(calibration).get<SpreadCalibration>();
  EXPECT_EQ(read.offset, calibration.offset);
  EXPECT_EQ(read.scale, calibration.scale);
  EXPECT_EQ(read.scores, calibration.scores);
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"offset", 0}, {"scale", -1}, {"scores", {2, 1}}, {"scores", {-1}}}) {
    nlohmann::json broken = calibration;
    broken[key] = value;
    EXPECT_THROW(broken.get<SpreadCalibration>(), ModelFormatError) << key << ' ' << value;
  }
}

TEST(UncertaintyScoresTest, WorkedByHand) {
  // Row 1: error 1, sigma 1; row 2: error -2, sigma 2; row 3 unlabelled.
  const std::vector<float> targets{1, 0, kMissing}, predictions{0, 2, 5}, sigma{1, 2, 1};
  const std::vector<float> lower{-1, 1, 0}, upper{1.5, 2, 0};
  const UncertaintyScores scores = score_uncertainty(targets, predictions, sigma, lower, upper);
  EXPECT_EQ(scores.count, 2);
  const double log_2pi = std::log(2 * std::numbers::pi);
  EXPECT_NEAR(scores.nll, ((0.5 * log_2pi + 0.5) + (0.5 * (log_2pi + std::log(4.0)) + 0.5)) / 2, 1e-12);
  EXPECT_DOUBLE_EQ(scores.coverage, 0.5);  // 1 lies in [-1, 1.5]; 0 not in [1, 2]
  EXPECT_DOUBLE_EQ(scores.mean_width, 1.75);
  // Two bins of one row each: |sigma - |error|| / sigma = 0 and 0.
  EXPECT_DOUBLE_EQ(scores.ence, 0);
  EXPECT_DOUBLE_EQ(scores.spearman, 1);
}

// Errors 0 and 2 at sigma 1 (z 0 and 2): every level takes in the first row, and levels from
// erf(2 / sqrt 2) = 0.9545 on the second. One bin a row with two rows: RMV = sigma, RMSE = |error|.
TEST(UncertaintyScoresTest, CalibrationCurveByHand) {
  const std::vector<float> targets{1, 3, kMissing}, predictions{1, 1, 0}, sigma{1, 1, 1};
  const CalibrationCurve curve = calibration_curve(targets, predictions, sigma);
  ASSERT_EQ(curve.expected.size(), 101u);
  ASSERT_EQ(curve.observed.size(), 101u);
  EXPECT_DOUBLE_EQ(curve.expected[50], 0.5);
  EXPECT_DOUBLE_EQ(curve.observed[0], 0.5);
  EXPECT_DOUBLE_EQ(curve.observed[95], 0.5);
  EXPECT_DOUBLE_EQ(curve.observed[96], 1.0);
  EXPECT_EQ(curve.bin_rmv, (std::vector<double>{1, 1}));
  EXPECT_EQ(curve.bin_rmse, (std::vector<double>{0, 2}));
  EXPECT_EQ(curve.abs_error, (std::vector<double>{0, 2}));
  EXPECT_THROW(calibration_curve(targets, predictions, std::vector<float>{1, 0, 1}), ArgumentError);
}

TEST(UncertaintyScoresTest, MiscalibrationAreaOfExactPredictionsIsOneHalf) {
  // Every target at its prediction lies inside every interval: observed 1 against expected p.
  const std::vector<float> zero(5, 0.0f), one(5, 1.0f);
  EXPECT_NEAR(score_uncertainty(zero, zero, one, zero, zero).miscalibration_area, 0.5, 1e-12);
  EXPECT_THROW(score_uncertainty(zero, zero, zero, zero, zero), ArgumentError);  // sigma 0
}

TEST(UncertaintyScoresTest, SpearmanAveragesTiedRanks) {
  EXPECT_NEAR(spearman_correlation(std::vector<double>{1, 2, 2, 3}, std::vector<double>{1, 2, 3, 4}),
              4.5 / std::sqrt(22.5), 1e-12);
  EXPECT_DOUBLE_EQ(spearman_correlation(std::vector<double>{3, 2, 1}, std::vector<double>{1, 5, 9}), -1);
  EXPECT_TRUE(std::isnan(spearman_correlation(std::vector<double>{1, 1}, std::vector<double>{1, 2})));
}

// Errors drawn as spread * N(0, 1) with the spread known up to a factor: calibrated on 1,000 rows,
// 90 % intervals cover about 90 % of 20,000 fresh rows, sigma ranks the errors, the scores show a
// calibrated model, and the intervals are narrower on average than one width for every row.
TEST(UncertaintyScoresTest, ConformalIntervalsCoverFreshRowsAndFollowTheSpread) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<float> spread_of(0.2f, 2.0f);
  std::normal_distribution<float> noise;
  const auto draw = [&](std::size_t n, std::vector<float>& targets, std::vector<float>& spread) {
    targets.resize(n);
    spread.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      spread[i] = spread_of(random);
      targets[i] = 3 * spread[i] * noise(random);  // the members' spread is a third of the error's sd
    }
  };
  std::vector<float> targets, spread;
  draw(1000, targets, spread);
  const SpreadCalibration calibration = fit_spread_calibration(targets, std::vector<float>(1000, 0.0f), spread);
  draw(20000, targets, spread);
  std::vector<float> predictions(targets.size(), 0.0f), sigma, lower, upper, fixed_lower, fixed_upper;
  for (const float raw : spread) {
    sigma.push_back(static_cast<float>(calibration.sigma(raw)));
    const auto half = static_cast<float>(calibration.half_width(raw, 0.9));
    lower.push_back(-half);
    upper.push_back(half);
  }
  const UncertaintyScores scores = score_uncertainty(targets, predictions, sigma, lower, upper);
  EXPECT_NEAR(scores.coverage, 0.9, 0.015);
  EXPECT_GT(scores.spearman, 0.3);
  EXPECT_LT(scores.miscalibration_area, 0.03);
  EXPECT_LT(scores.ence, 0.15);
  // One width for every row (plain split conformal) at the same coverage is wider on average.
  std::vector<float> calibration_errors;
  draw(1000, calibration_errors, spread);
  for (float& error : calibration_errors) error = std::abs(error);
  std::ranges::sort(calibration_errors);
  const float fixed = calibration_errors[static_cast<std::size_t>(std::ceil(1001 * 0.9)) - 1];
  EXPECT_LT(scores.mean_width, 2 * fixed);
}

// How much of fresh rows conformal intervals hold, over draws of the calibration rows: by hand where
// the bound is the largest score (Beta(n, 1), whose quantiles are p^(1/n)), against SciPy's
// beta(103, 11).ppf for 113 rows, and as often as it says over simulated calibrations.
TEST(UncertaintyScoresTest, ConformalCoverageRangeOverDrawsOfTheCalibrationRows) {
  const auto [low, high] = conformal_coverage_range(9, 0.9);
  EXPECT_NEAR(low, std::pow(0.05, 1.0 / 9), 1e-12);
  EXPECT_NEAR(high, std::pow(0.95, 1.0 / 9), 1e-12);
  const auto [low113, high113] = conformal_coverage_range(113, 0.9);
  EXPECT_NEAR(low113, 0.8545157392896856, 1e-9);
  EXPECT_NEAR(high113, 0.9444452531844493, 1e-9);

  // Scores |N(0, 1)| of 50 calibration rows: the interval holds erf(bound / sqrt 2) of fresh rows.
  const auto [least, most] = conformal_coverage_range(50, 0.9);
  std::mt19937_64 random(11);
  std::normal_distribution<float> noise;
  constexpr int kCalibrations = 4000;
  int inside = 0;
  for (int c = 0; c < kCalibrations; ++c) {
    std::vector<float> scores(50);
    for (float& score : scores) score = std::abs(noise(random));
    std::ranges::sort(scores);
    const double held = std::erf(conformal_quantile(scores, 0.9) / std::numbers::sqrt2);
    inside += held >= least && held <= most ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(inside) / kCalibrations, 0.9, 0.015);

  EXPECT_THROW(conformal_coverage_range(8, 0.9), ArgumentError);
  EXPECT_THROW(conformal_coverage_range(100, 1.0), ArgumentError);
  EXPECT_THROW(conformal_coverage_range(100, 0.9, 1.0), ArgumentError);
}

Matrix<float> rows_of(std::initializer_list<std::initializer_list<float>> rows) {
  Matrix<float> m(static_cast<Index>(rows.size()), static_cast<Index>(rows.begin()->size()));
  Index r = 0;
  for (const auto& row : rows) {
    Index c = 0;
    for (const float value : row) m(r, c++) = value;
    ++r;
  }
  return m;
}

TEST(ClassCalibrationTest, TemperatureScalingWorkedByHand) {
  // p^(1/T) renormalized: at T = 1/2, (0.5, 0.25, 0.25) squares to (0.25, 0.0625, 0.0625), 2/3 and 1/6.
  Matrix<float> probabilities = rows_of({{0.5f, 0.25f, 0.25f}, {0, 0.5f, 0.5f}});
  const ClassCalibration sharper{.temperature = 0.5};
  sharper.apply(probabilities);
  EXPECT_NEAR(probabilities(0, 0), 2.0 / 3, 1e-6);
  EXPECT_NEAR(probabilities(0, 1), 1.0 / 6, 1e-6);
  EXPECT_EQ(probabilities(1, 0), 0);  // a probability of 0 stays 0
  EXPECT_NEAR(probabilities(1, 1), 0.5, 1e-6);
}

TEST(ClassCalibrationTest, FitsTheTemperatureThatMatchesTheAccuracy) {
  // Four rows at (0.9, 0.1), three labelled 0 and one 1, and an unlabelled row: the NLL is least where
  // the calibrated top probability equals the accuracy, 0.75: 9^(1/T) = 3, T = 2. The scores are
  // 1 - 0.75 for the three right rows and 1 - 0.25 for the wrong one.
  const Matrix<float> probabilities = rows_of({{0.9f, 0.1f}, {0.9f, 0.1f}, {0.9f, 0.1f}, {0.9f, 0.1f}, {0.2f, 0.8f}});
  const std::vector<Index> labels{0, 0, 1, 0, -1};
  const ClassCalibration calibration = fit_class_calibration(probabilities, labels);
  EXPECT_NEAR(calibration.temperature, 2, 1e-3);
  ASSERT_EQ(calibration.scores.size(), 4u);
  EXPECT_NEAR(calibration.scores[0], 0.25, 1e-4);
  EXPECT_NEAR(calibration.scores[2], 0.25, 1e-4);
  EXPECT_NEAR(calibration.scores[3], 0.75, 1e-4);
  // Coverage 0.6 takes the ceil(5 * 0.6) = 3rd score, 0.25: classes of probability >= 0.75 enter.
  // Coverage 0.8 takes the 4th, 0.75: every class of probability >= 0.25. Coverage 0.9 needs a 5th.
  EXPECT_NEAR(calibration.set_threshold(0.6), 0.75, 1e-4);
  EXPECT_NEAR(calibration.set_threshold(0.8), 0.25, 1e-4);
  EXPECT_THROW((void)calibration.set_threshold(0.9), ArgumentError);
  EXPECT_EQ(conformal_rows_needed(0.9), 9u);
}

TEST(ClassCalibrationTest, RefusesTooFewRowsAndUnknownLabels) {
  const Matrix<float> probabilities = rows_of({{0.9f, 0.1f}, {0.4f, 0.6f}});
  EXPECT_THROW(fit_class_calibration(probabilities, std::vector<Index>{0, -1}), ArgumentError);
  EXPECT_THROW(fit_class_calibration(probabilities, std::vector<Index>{0, 2}), ArgumentError);
  EXPECT_THROW(fit_class_calibration(probabilities, std::vector<Index>{0}), ArgumentError);
}

TEST(ClassCalibrationTest, SetsHoldTheClassesAboveTheThresholdAndTheMostProbable) {
  const std::vector<float> row{0.2f, 0.5f, 0.3f};
  EXPECT_EQ(prediction_set(row, 0.25), (std::vector<Index>{1, 2}));
  EXPECT_EQ(prediction_set(row, 0.1), (std::vector<Index>{0, 1, 2}));
  EXPECT_EQ(prediction_set(row, 0.9), (std::vector<Index>{1}));  // never empty
}

TEST(ClassCalibrationTest, JsonRoundTripsAndRefusesBrokenValues) {
  const ClassCalibration calibration{.temperature = 1.5, .scores = {0.1f, 0.4f}};
  const ClassCalibration back = nlohmann::json(calibration).get<ClassCalibration>();
  EXPECT_EQ(back.temperature, 1.5);
  EXPECT_EQ(back.scores, calibration.scores);
  EXPECT_THROW((void)nlohmann::json({{"temperature", 0}, {"scores", {0.1}}}).get<ClassCalibration>(), ModelFormatError);
  EXPECT_THROW((void)nlohmann::json({{"temperature", 1}, {"scores", {0.4, 0.1}}}).get<ClassCalibration>(),
               ModelFormatError);
  EXPECT_THROW((void)nlohmann::json({{"temperature", 1}, {"scores", {1.5}}}).get<ClassCalibration>(), ModelFormatError);
}

TEST(ClassUncertaintyScoresTest, WorkedByHand) {
  // Rows (0.75, 0.25) labelled 0, 0, 0, 1: NLL (3 (-log 0.75) - log 0.25) / 4; Brier 2 (0.25^2) for a
  // right row and 2 (0.75^2) for the wrong one; one confidence bin whose accuracy equals its
  // confidence, so no calibration error. Sets at threshold 0.75 hold class 0 alone.
  const Matrix<float> probabilities = rows_of({{0.75f, 0.25f}, {0.75f, 0.25f}, {0.75f, 0.25f}, {0.75f, 0.25f}});
  const ClassUncertaintyScores scores = score_class_uncertainty(probabilities, std::vector<Index>{0, 0, 0, 1}, 0.75);
  EXPECT_EQ(scores.count, 4);
  EXPECT_NEAR(scores.nll, (-3 * std::log(0.75) - std::log(0.25)) / 4, 1e-6);
  EXPECT_NEAR(scores.brier, (3 * 0.125 + 1.125) / 4, 1e-6);
  EXPECT_NEAR(scores.ece, 0, 1e-6);
  EXPECT_DOUBLE_EQ(scores.coverage, 0.75);
  EXPECT_DOUBLE_EQ(scores.mean_set_size, 1);
  // Two bins: confidence 0.95 with accuracy 0 and 0.55 with accuracy 1: (0.95 + 0.45) / 2. At
  // threshold 0.4 the first set holds one class, the second both.
  const ClassUncertaintyScores binned =
      score_class_uncertainty(rows_of({{0.95f, 0.05f}, {0.45f, 0.55f}}), std::vector<Index>{1, 1}, 0.4);
  EXPECT_NEAR(binned.ece, 0.7, 1e-6);
  EXPECT_DOUBLE_EQ(binned.mean_set_size, 1.5);
  EXPECT_TRUE(std::isnan(score_class_uncertainty(probabilities, std::vector<Index>(4, -1), 0.5).nll));
}

// Labels drawn from known probabilities that the model reports too sharply (as p^3): the fitted
// temperature undoes the sharpening, and 90 % sets cover about 90 % of 20,000 fresh rows.
TEST(ClassUncertaintyScoresTest, CalibratedSetsCoverFreshRows) {
  std::mt19937_64 random(11);
  std::uniform_real_distribution<float> uniform;
  const auto draw = [&](Index n, Matrix<float>& reported, std::vector<Index>& labels) {
    reported.resize(n, 3);
    labels.resize(static_cast<std::size_t>(n));
    for (Index r = 0; r < n; ++r) {
      float p[3], sum = 0, sharp_sum = 0;
      for (float& value : p) sum += value = uniform(random) + 0.05f;
      for (const float value : p) sharp_sum += std::pow(value / sum, 3.0f);
      const float u = uniform(random) * sum;
      labels[static_cast<std::size_t>(r)] = u < p[0] ? 0 : u < p[0] + p[1] ? 1 : 2;
      for (Index k = 0; k < 3; ++k) reported(r, k) = std::pow(p[k] / sum, 3.0f) / sharp_sum;
    }
  };
  Matrix<float> reported;
  std::vector<Index> labels;
  draw(2000, reported, labels);
  const ClassCalibration calibration = fit_class_calibration(reported, labels);
  EXPECT_NEAR(calibration.temperature, 3, 0.4);
  draw(20000, reported, labels);
  const ClassUncertaintyScores before = score_class_uncertainty(reported, labels, 1);
  calibration.apply(reported);
  const ClassUncertaintyScores after = score_class_uncertainty(reported, labels, calibration.set_threshold(0.9));
  EXPECT_LT(after.nll, before.nll);
  EXPECT_LT(after.ece, 0.02);
  EXPECT_LT(after.ece, before.ece);
  EXPECT_NEAR(after.coverage, 0.9, 0.015);
  EXPECT_LT(after.mean_set_size, 3);
}

// Labels drawn with probability sigmoid(x / 2) from a model that reports sigmoid(x), twice as sure
// as it should be: Platt's fit halves the slope. A model that reports the true probabilities keeps
// the identity, as scaling fitted on half its rows does not help the other half.
TEST(BinaryCalibrationTest, UndoesOverconfidenceAndKeepsCalibratedProbabilities) {
  std::mt19937_64 random(5);
  std::normal_distribution<double> logit_of(0, 3);
  std::uniform_real_distribution<double> uniform;
  std::vector<float> targets, sure, honest;
  for (int i = 0; i < 4000; ++i) {
    const double x = logit_of(random);
    const double truth = 1 / (1 + std::exp(-x / 2));
    targets.push_back(uniform(random) < truth ? 1.0f : 0.0f);
    sure.push_back(static_cast<float>(1 / (1 + std::exp(-x))));
    honest.push_back(static_cast<float>(truth));
  }
  targets[7] = kMissing;  // unlabelled rows are skipped
  const BinaryCalibration fitted = fit_binary_calibration(targets, sure);
  EXPECT_NEAR(fitted.slope, 0.5, 0.05);
  EXPECT_NEAR(fitted.intercept, 0, 0.1);
  EXPECT_NEAR(fitted.apply(1 / (1 + std::exp(-4.0f))), 1 / (1 + std::exp(-4.0 * fitted.slope - fitted.intercept)), 1e-6);
  EXPECT_TRUE(fit_binary_calibration(targets, honest).is_identity());
}

TEST(BinaryCalibrationTest, FewRowsKeepTheIdentityAndBrokenValuesAreRefused) {
  EXPECT_TRUE(fit_binary_calibration(std::vector<float>{1, 0, 1}, std::vector<float>{0.9f, 0.1f, 0.2f}).is_identity());
  EXPECT_THROW(fit_binary_calibration(std::vector<float>{1, 0}, std::vector<float>{0.9f}), ArgumentError);
  const BinaryCalibration scaling{.slope = 0.5, .intercept = -1};
  const BinaryCalibration back = nlohmann::json(scaling).get<BinaryCalibration>();
  EXPECT_EQ(back.slope, 0.5);
  EXPECT_EQ(back.intercept, -1);
  EXPECT_THROW((void)nlohmann::json({{"slope", -1}, {"intercept", 0}}).get<BinaryCalibration>(), ModelFormatError);
  EXPECT_FLOAT_EQ(BinaryCalibration{}.apply(0.3f), 0.3f);
  const BinaryCalibration knots{.isotonic = {{0.2f, 0.1f}, {0.6f, 0.5f}}};
  EXPECT_EQ(nlohmann::json(knots).get<BinaryCalibration>().isotonic, knots.isotonic);
  EXPECT_THROW((void)nlohmann::json({{"isotonic", {{0.6, 0.1}, {0.2, 0.5}}}}).get<BinaryCalibration>(),
               ModelFormatError);
  EXPECT_THROW((void)nlohmann::json({{"isotonic", {{0.2, 0.1}, {0.6, 1.5}}}}).get<BinaryCalibration>(),
               ModelFormatError);
}

// Between knots the calibrated probability is on the straight line; beyond them, the end's value.
TEST(BinaryCalibrationTest, IsotonicKnotsAreJoinedByStraightLines) {
  const BinaryCalibration knots{.isotonic = {{0.2f, 0.1f}, {0.6f, 0.5f}, {0.8f, 0.9f}}};
  EXPECT_FLOAT_EQ(knots.apply(0.4f), 0.3f);
  EXPECT_FLOAT_EQ(knots.apply(0.7f), 0.7f);
  EXPECT_FLOAT_EQ(knots.apply(0.6f), 0.5f);
  EXPECT_FLOAT_EQ(knots.apply(0.05f), 0.1f);
  EXPECT_FLOAT_EQ(knots.apply(0.95f), 0.9f);
  EXPECT_FALSE(knots.is_identity());
}

// A model whose probabilities, however sure, are right only between 10 % and 90 % of the time (the
// truth is 0.1 + 0.8 p, bounded as no slope and intercept on the logit are) is calibrated by
// isotonic regression rather than Platt's: its knots rise, lie on the truth within sampling noise,
// and score fresh rows almost as well as the truth does.
TEST(BinaryCalibrationTest, IsotonicRegressionFollowsAShapePlattCannot) {
  std::mt19937_64 random(8);
  std::uniform_real_distribution<double> uniform;
  std::normal_distribution<double> logit_of(0, 3);  // a sure model: most probabilities near 0 or 1
  const auto truth = [](double p) { return 0.1 + 0.8 * p; };
  const auto draw = [&](int rows, std::vector<float>& targets, std::vector<float>& reported) {
    for (int i = 0; i < rows; ++i) {
      const double p = 1 / (1 + std::exp(-logit_of(random)));
      reported.push_back(static_cast<float>(p));
      targets.push_back(uniform(random) < truth(p) ? 1.0f : 0.0f);
    }
  };
  std::vector<float> targets, reported, fresh_targets, fresh;
  draw(4000, targets, reported);
  draw(4000, fresh_targets, fresh);
  const BinaryCalibration fitted = fit_binary_calibration(targets, reported);
  ASSERT_FALSE(fitted.isotonic.empty());  // chosen over Platt's by the fit on half the rows
  for (const auto& [p, calibrated] : fitted.isotonic) EXPECT_NEAR(calibrated, truth(p), 0.08) << "at " << p;
  for (std::size_t k = 1; k < fitted.isotonic.size(); ++k) EXPECT_GT(fitted.isotonic[k].second, fitted.isotonic[k - 1].second);
  const auto nll = [&](const auto& calibrate) {
    double total = 0;
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      const double q = calibrate(fresh[i]);
      total -= std::log(fresh_targets[i] > 0 ? q : 1 - q);
    }
    return total / static_cast<double>(fresh.size());
  };
  // On fresh rows: within 0.01 of the true probabilities' NLL, most of the way there from the
  // reported probabilities'.
  const double calibrated = nll([&](float p) { return fitted.apply(p); }), best = nll(truth);
  const double as_reported = nll([](float p) { return std::clamp(p, 1e-6f, 1 - 1e-6f); });
  EXPECT_LT(calibrated, best + 0.01);
  EXPECT_LT(calibrated - best, 0.2 * (as_reported - best));
}

}  // namespace
}  // namespace edgewise
