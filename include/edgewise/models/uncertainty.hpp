/// \file
/// How far to trust a regression prediction: a raw spread per prediction (the ensemble members'
/// disagreement), calibrated on held-out rows into a standard deviation (z-scaling) and into
/// split-conformal intervals whose width follows the spread, and the scores that say how good the
/// calibration is on labelled rows. Pure and deterministic; values are computed in double.
///
///   SpreadCalibration calibration = fit_spread_calibration(val_targets, val_predictions, val_spread);
///   double sigma = calibration.sigma(spread);                 // a standard deviation
///   double half = calibration.half_width(spread, 0.9);        // a 90 % interval: prediction ± half
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// Where a model's raw spread comes from.
enum class SpreadMethod {
  none,      ///< no spread: predictions only
  ensemble,  ///< the standard deviation of the ensemble members' predictions
  /// Mean-variance estimation: each network also predicts a variance, trained by the Gaussian
  /// likelihood; the spread is the members' total standard deviation, the root of their mean
  /// variance plus the variance of their means.
  mve,
};

/// The names command lines and model files use.
inline constexpr std::pair<SpreadMethod, std::string_view> kSpreadMethodNames[] = {
    {SpreadMethod::none, "none"}, {SpreadMethod::ensemble, "ensemble"}, {SpreadMethod::mve, "mve"}};

/// The calibration of one task's raw spread, fitted on rows the model did not train on.
///
/// A prediction's width is w = raw + offset: the offset keeps a width where the members happen to
/// agree. Its standard deviation is scale * w, and its split-conformal interval of coverage c is
/// prediction ± q_c * w, where q_c is the ceil((n + 1) c)-th smallest of the n calibration rows'
/// scores |error| / w. For rows exchangeable with the calibration rows, that interval holds the
/// target with probability at least c (Lei et al. 2018, normalized conformal regression).
struct SpreadCalibration {
  /// Added to the raw spread: of the multiples 1/64, 1/32, ..., 4 of the calibration rows' median
  /// raw spread, the one whose scaled widths give those rows the smallest Gaussian NLL.
  double offset = 0;
  double scale = 1;  ///< z-scaling: the factor on the width that minimizes the Gaussian NLL there
  std::vector<float> scores = {};  ///< the calibration rows' |error| / width, ascending

  /// The calibrated standard deviation of a prediction with this raw spread.
  double sigma(double raw) const { return scale * (raw + offset); }
  /// Half the width of the split-conformal interval of `coverage` around a prediction with this
  /// raw spread. Throws ArgumentError for a coverage outside (0, 1), or one that needs more
  /// calibration rows than there were (ceil((n + 1) coverage) > n).
  double half_width(double raw, double coverage) const;
  /// The calibration rows an interval of `coverage` needs: ceil(coverage / (1 - coverage)).
  static std::size_t rows_needed(double coverage);
};

/// Fits a task's calibration on its labelled rows (NaN targets are skipped): the offset, the scale
/// and the scores, from targets, predictions and raw spreads of equal length. Throws ArgumentError
/// when fewer than two rows are labelled, or when the lengths differ.
SpreadCalibration fit_spread_calibration(std::span<const float> targets, std::span<const float> predictions,
                                         std::span<const float> raw_spread);

/// JSON form in model files: {"offset", "scale", "scores"}. from_json throws ModelFormatError for a
/// negative or non-finite offset or scale, or scores that are not finite, non-negative and ascending.
/// @{
void to_json(nlohmann::json& j, const SpreadCalibration& calibration);
void from_json(const nlohmann::json& j, SpreadCalibration& calibration);
/// @}

/// How well standard deviations and intervals describe the errors of one task's labelled rows.
struct UncertaintyScores {
  Index count = 0;  ///< labelled rows scored
  /// Mean Gaussian negative log-likelihood, 0.5 log(2 pi sigma^2) + error^2 / (2 sigma^2).
  double nll = 0;
  /// Area between the observed and the expected fraction of targets inside the central Gaussian
  /// intervals of every level from 0 to 1 (steps of 0.01, trapezoids): 0 when calibrated, at
  /// most 0.5.
  double miscalibration_area = 0;
  /// Expected normalized calibration error over 10 bins of rows by sigma, equal in count: the mean
  /// of |RMV - RMSE| / RMV, RMV the root mean variance of a bin (Levi et al. 2022).
  double ence = 0;
  /// Spearman rank correlation of sigma and |error| (average ranks for ties): whether a wider
  /// sigma marks a larger error. NaN when either is constant.
  double spearman = 0;
  double coverage = 0;    ///< fraction of targets within [lower, upper]
  double mean_width = 0;  ///< mean of upper - lower
};

/// Scores a task's rows: targets (NaN: unlabelled, skipped), predictions, standard deviations and
/// interval bounds, all of one length. Throws ArgumentError when the lengths differ, or a labelled
/// row's sigma is not positive and finite.
UncertaintyScores score_uncertainty(std::span<const float> targets, std::span<const float> predictions,
                                    std::span<const float> sigma, std::span<const float> lower,
                                    std::span<const float> upper);

/// Spearman's rank correlation of two sequences of equal length, ties given their average rank;
/// NaN for fewer than two values or a constant sequence.
double spearman_correlation(std::span<const double> x, std::span<const double> y);

}  // namespace edgewise
