/// \file
/// How far to trust a prediction, calibrated on held-out rows, and the scores that say how good the
/// calibration is on labelled rows. Pure and deterministic; values are computed in double.
///
/// Regression: a raw spread per prediction (the ensemble members' disagreement), calibrated into a
/// standard deviation and into split-conformal intervals whose width follows the spread.
///
///   SpreadCalibration calibration = fit_spread_calibration(val_targets, val_predictions, val_spread);
///   double sigma = calibration.sigma(spread);                 // a standard deviation
///   double half = calibration.half_width(spread, 0.9);        // a 90 % interval: prediction ± half
///
/// Classification: probabilities calibrated by temperature scaling (one class of several) or Platt
/// scaling or isotonic regression (a binary task), and split-conformal sets of classes.
///
///   ClassCalibration calibration = fit_class_calibration(val_probabilities, val_labels);
///   calibration.apply(probabilities);                         // calibrated, rows in place
///   double least = calibration.set_threshold(0.9);            // classes at least this probable
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
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
  /// Deep evidential regression: each network predicts the parameters of a prior on the target's
  /// mean and variance (evidential_loss); the spread is the members' total standard deviation as
  /// for mve, with each network's variance the prior's expected variance plus that of its mean.
  evidential,
  /// Monte-Carlo dropout: each network predicts each molecule several times with its dropout on
  /// (dropout_variances); the spread is the members' total standard deviation as for mve, with each
  /// network's variance that of its dropout predictions. Training is unchanged.
  dropout,
};

/// The names command lines and model files use.
inline constexpr std::pair<SpreadMethod, std::string_view> kSpreadMethodNames[] = {
    {SpreadMethod::none, "none"},
    {SpreadMethod::ensemble, "ensemble"},
    {SpreadMethod::mve, "mve"},
    {SpreadMethod::evidential, "evidential"},
    {SpreadMethod::dropout, "dropout"}};

/// What a spread's calibration makes smallest on its calibration rows, choosing the offset and the
/// scale (SpreadCalibration).
enum class SpreadFit {
  /// The continuous ranked probability score of the Gaussians (prediction, standard deviation)
  /// (Gneiting and Raftery 2007). It grows with |error| rather than its square, so a few large
  /// errors move the standard deviations less: intervals of every level hold close to their share.
  crps,
  /// The Gaussian negative log-likelihood (z-scaling): the standard deviations match the root mean
  /// square of the errors, however heavy their tail.
  nll,
};

/// The names command lines and model files use.
inline constexpr std::pair<SpreadFit, std::string_view> kSpreadFitNames[] = {{SpreadFit::crps, "crps"},
                                                                            {SpreadFit::nll, "nll"}};

/// The spread methods a model can be trained with, as errors name them: "ensemble, mve, evidential or
/// dropout", each name between `quote`s.
std::string spread_method_choices(std::string_view quote = "");

/// The calibration of one task's raw spread, fitted on rows the model did not train on.
///
/// A prediction's width is w = raw + offset: the offset keeps a width where the members happen to
/// agree. Its standard deviation is scale * w, and its split-conformal interval of coverage c is
/// prediction ± q_c * w, where q_c is the ceil((n + 1) c)-th smallest of the n calibration rows'
/// scores |error| / w. For rows exchangeable with the calibration rows, that interval holds the
/// target with probability at least c (Lei et al. 2018, normalized conformal regression).
struct SpreadCalibration {
  /// Added to the raw spread: of the multiples 1/64, 1/32, ..., 4 of the calibration rows' median
  /// raw spread, the one whose scaled widths give those rows the smallest score (SpreadFit).
  double offset = 0;
  double scale = 1;  ///< the factor on the width that minimizes that score there
  std::vector<float> scores = {};  ///< the calibration rows' |error| / width, ascending

  /// The calibrated standard deviation of a prediction with this raw spread.
  double sigma(double raw) const { return scale * (raw + offset); }
  /// Half the width of the split-conformal interval of `coverage` around a prediction with this
  /// raw spread. Throws ArgumentError for a coverage outside (0, 1), or one that needs more
  /// calibration rows than there were (ceil((n + 1) coverage) > n).
  double half_width(double raw, double coverage) const;
};

/// The calibration rows a split-conformal interval or set of `coverage` needs:
/// ceil(coverage / (1 - coverage)).
std::size_t conformal_rows_needed(double coverage);

/// The score split-conformal prediction of `coverage` bounds its rows by: the ceil((n + 1) coverage)-th
/// smallest of the n calibration rows' scores, `ascending`. Throws ArgumentError for a coverage outside
/// (0, 1), or one that needs more rows than n (conformal_rows_needed).
double conformal_quantile(std::span<const float> ascending, double coverage);

/// How much of fresh rows split-conformal intervals or sets of `coverage` calibrated on `rows` rows
/// hold, over the draw of those rows: the fraction is Beta(k, rows + 1 - k)-distributed, k =
/// ceil((rows + 1) coverage), for rows exchangeable with the calibration rows (Vovk 2012). Returns its
/// (1 - probability) / 2 and (1 + probability) / 2 quantiles: with 113 rows, 90 % intervals hold
/// between 0.855 and 0.944 of fresh rows for 9 calibration parts in 10. Throws as conformal_quantile
/// does, and ArgumentError for a probability outside (0, 1).
std::pair<double, double> conformal_coverage_range(std::size_t rows, double coverage, double probability = 0.9);

/// Fits a task's calibration on its labelled rows (NaN targets are skipped): the offset and the
/// scale that minimize `fit`'s score there, and the scores, from targets, predictions and raw
/// spreads of equal length. Throws ArgumentError when fewer than two rows are labelled, or when the
/// lengths differ.
SpreadCalibration fit_spread_calibration(std::span<const float> targets, std::span<const float> predictions,
                                         std::span<const float> raw_spread, SpreadFit fit = SpreadFit::crps);

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

/// The calibration of a classifier's probabilities, fitted on labelled rows it did not train on.
///
/// Temperature scaling (Guo et al. 2017): a row's probabilities p become p^(1/T) / sum_k p_k^(1/T),
/// the softmax of its logits divided by T, with the T that gives the calibration rows the smallest
/// negative log-likelihood. It keeps the order of a row's classes, so the predicted class.
///
/// Split-conformal sets (least ambiguous sets, Sadinle et al. 2019): a row's score is 1 - its label's
/// calibrated probability, and the set of coverage c holds every class whose calibrated probability
/// is at least 1 - q_c (conformal_quantile of the scores), and the most probable class, so that no
/// set is empty. For rows exchangeable with the calibration rows, the set holds the label with
/// probability at least c.
struct ClassCalibration {
  double temperature = 1;  ///< T, in [0.01, 100]
  std::vector<float> scores = {};  ///< the calibration rows' 1 - calibrated probability of their label, ascending

  /// Calibrates probabilities, [rows, classes], in place; a probability of 0 stays 0.
  void apply(Matrix<float>& probabilities) const;
  /// The least calibrated probability that puts a class in the set of `coverage`. Throws as
  /// conformal_quantile does.
  double set_threshold(double coverage) const;
};

/// Fits the calibration on probabilities, [rows, classes], as the uncalibrated model gives them, and
/// each row's label (a class id; rows labelled -1 are skipped). Throws ArgumentError when fewer than
/// two rows are labelled, a label is not a class, or the lengths differ.
ClassCalibration fit_class_calibration(const Matrix<float>& probabilities, std::span<const Index> labels);

/// JSON form in model files: {"temperature", "scores"}. from_json throws ModelFormatError for a
/// temperature that is not positive and finite, or scores that are not ascending in [0, 1].
/// @{
void to_json(nlohmann::json& j, const ClassCalibration& calibration);
void from_json(const nlohmann::json& j, ClassCalibration& calibration);
/// @}

/// The calibration of one binary task's probabilities, fitted on held-out rows (fit_binary_calibration).
/// Either Platt scaling (Platt 1999): p becomes sigmoid(slope * logit(p) + intercept), or isotonic:
/// p becomes the piecewise-linear function through `isotonic`'s knots. Both are fitted on smoothed
/// targets, (positives + 1) / (positives + 2) for a positive and 1 / (negatives + 2) for a negative,
/// so that rows the model separates perfectly give no probability of exactly 0 or 1. Both rise with
/// p, so the rows keep their order (and their ROC-AUC) between the extreme knots; the identity
/// changes nothing.
struct BinaryCalibration {
  double slope = 1;      ///< Platt's a, on logit(p)
  double intercept = 0;  ///< Platt's b
  /// Isotonic calibration's knots (probability, calibrated probability), both ascending, or empty
  /// for Platt's. Below the first knot and above the last the calibrated value is the end knot's.
  std::vector<std::pair<float, float>> isotonic = {};

  /// The calibrated probability; for Platt's, p is clamped to [1e-7, 1 - 1e-7] first.
  float apply(float probability) const;
  /// Slope 1, intercept 0 and no knots: probabilities pass unchanged.
  bool is_identity() const { return slope == 1 && intercept == 0 && isotonic.empty(); }
};

/// Fits a task's calibration on its labelled rows (targets 0 or 1; NaN: unlabelled, skipped) and
/// keeps only what helps rows it was not fitted on: Platt scaling and centred isotonic regression
/// (pooled adjacent violators, each pool a knot at its mean probability; Oron and Flournoy 2017) are
/// each fitted on the even rows and scored on the odd ones, and the other way round, and the one of
/// lower NLL is fitted on every row if that NLL is below the probabilities' as they are; else, or
/// with a Platt slope that is not positive, or with fewer than four labelled rows, the identity.
/// Throws ArgumentError when the lengths differ.
BinaryCalibration fit_binary_calibration(std::span<const float> targets, std::span<const float> probabilities);

/// JSON form in model files: {"slope", "intercept"} for Platt's, {"isotonic": [[p, calibrated], ...]}
/// for isotonic; from_json throws ModelFormatError for a slope that is not positive and finite, an
/// intercept that is not finite, or knots outside [0, 1] or not ascending.
/// @{
void to_json(nlohmann::json& j, const BinaryCalibration& calibration);
void from_json(const nlohmann::json& j, BinaryCalibration& calibration);
/// @}

/// The classes in the prediction set of a row of calibrated probabilities: those at least
/// `threshold` (ClassCalibration::set_threshold) and the most probable, in class order.
std::vector<Index> prediction_set(std::span<const float> probabilities, double threshold);

/// prediction_set of every row of probabilities, [rows, classes].
std::vector<std::vector<Index>> prediction_sets(const Matrix<float>& probabilities, double threshold);

/// How well probabilities describe the labels of a classifier's labelled rows.
struct ClassUncertaintyScores {
  Index count = 0;  ///< labelled rows scored
  double nll = 0;   ///< mean -log of the label's probability (floored at 1e-12)
  double ece = 0;  ///< expected_calibration_error, the confidence a row's largest probability
  double brier = 0;          ///< mean over rows of sum_k (p_k - [k is the label])^2
  double coverage = 0;       ///< fraction of labels inside their row's prediction set
  double mean_set_size = 0;  ///< mean number of classes a set holds
};

/// Scores probabilities, [rows, classes], against labels (-1: unlabelled, skipped), with the sets of
/// `threshold` (prediction_set). NaN scores when no row is labelled.
ClassUncertaintyScores score_class_uncertainty(const Matrix<float>& probabilities, std::span<const Index> labels,
                                               double threshold);

/// Expected calibration error (Guo et al. 2017): rows in 15 bins of equal width by their confidence
/// (the probability of the class they predict), the mean over rows of |accuracy - mean confidence|
/// of their bin. `correct`: 1 where the predicted class was right, else 0. NaN without rows.
double expected_calibration_error(std::span<const double> confidence, std::span<const double> correct);

/// What a calibration plot of one task's labelled rows draws.
struct CalibrationCurve {
  /// The levels 0, 0.01, ..., 1 of central Gaussian intervals.
  std::vector<double> expected;
  /// The fraction of targets inside each level's intervals (UncertaintyScores::miscalibration_area
  /// is the area between it and the levels).
  std::vector<double> observed;
  /// Rows in 10 bins of equal count by sigma: each bin's root mean variance...
  std::vector<double> bin_rmv;
  /// ...and RMSE, equal when calibrated (UncertaintyScores::ence is the mean of |RMV - RMSE| / RMV).
  std::vector<double> bin_rmse;
  std::vector<double> sigma;      ///< each labelled row's standard deviation
  std::vector<double> abs_error;  ///< each labelled row's |target - prediction|
};

/// The curve of a task's rows: targets (NaN: unlabelled, skipped), predictions and standard
/// deviations of one length. Throws as score_uncertainty does.
CalibrationCurve calibration_curve(std::span<const float> targets, std::span<const float> predictions,
                                   std::span<const float> sigma);

/// Spearman's rank correlation of two sequences of equal length, ties given their average rank;
/// NaN for fewer than two values or a constant sequence.
double spearman_correlation(std::span<const double> x, std::span<const double> y);

}  // namespace edgewise
