#include "edgewise/models/uncertainty.hpp"

#include <algorithm>
#include <array>
#include <boost/math/distributions/beta.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>

#include "edgewise/core/error.hpp"
#include "edgewise/core/names.hpp"
#include "edgewise/models/losses.hpp"

namespace edgewise {
namespace {

void check_lengths(std::initializer_list<std::size_t> lengths, const char* what) {
  if (std::ranges::adjacent_find(lengths, std::ranges::not_equal_to()) != lengths.end())
    throw ArgumentError(std::string(what) + ": the sequences differ in length");
}

void check_sigma(float sigma, std::size_t row, const char* what) {
  if (!(std::isfinite(sigma) && sigma > 0))
    throw ArgumentError(std::string(what) + ": sigma " + std::to_string(sigma) + " of row " + std::to_string(row) +
                        " is not positive and finite");
}

double median_of(std::vector<double> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::ranges::nth_element(values, middle);
  if (values.size() % 2 == 1) return *middle;
  return (*middle + *std::max_element(values.begin(), middle)) / 2;
}

// 1-based ranks, tied values sharing the mean of their ranks.
std::vector<double> average_ranks(std::span<const double> values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (std::size_t begin = 0, end = 0; begin < order.size(); begin = end) {
    for (end = begin + 1; end < order.size() && values[order[end]] == values[order[begin]];) ++end;
    const double rank = static_cast<double>(begin + end + 1) / 2;
    for (std::size_t i = begin; i < end; ++i) ranks[order[i]] = rank;
  }
  return ranks;
}

double pearson_correlation(std::span<const double> x, std::span<const double> y) {
  const auto n = static_cast<double>(x.size());
  const double mean_x = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double mean_y = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double xy = 0, xx = 0, yy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xy += (x[i] - mean_x) * (y[i] - mean_y);
    xx += (x[i] - mean_x) * (x[i] - mean_x);
    yy += (y[i] - mean_y) * (y[i] - mean_y);
  }
  return xx > 0 && yy > 0 ? xy / std::sqrt(xx * yy) : std::nan("");
}

// The observed fraction of targets inside the central Gaussian interval of each level 0, 0.01, ...,
// 1 (kCurveSteps + 1 levels). A row lies inside the interval of level p when erf(|z| / sqrt 2) <= p,
// z = error / sigma.
constexpr int kCurveSteps = 100;

std::vector<double> observed_fractions(std::span<const double> z) {
  std::vector<double> levels(z.size());
  std::ranges::transform(z, levels.begin(), [](double value) { return std::erf(std::abs(value) / std::numbers::sqrt2); });
  std::ranges::sort(levels);
  std::vector<double> observed;
  for (int k = 0; k <= kCurveSteps; ++k) {
    const double level = static_cast<double>(k) / kCurveSteps;
    const auto inside = k == kCurveSteps ? levels.size() : static_cast<std::size_t>(std::ranges::upper_bound(levels, level) - levels.begin());
    observed.push_back(static_cast<double>(inside) / static_cast<double>(levels.size()));
  }
  return observed;
}

// The area between observed_fractions and the levels, by trapezoids.
double miscalibration_area(std::span<const double> z) {
  const std::vector<double> observed = observed_fractions(z);
  double area = 0;
  for (int k = 1; k <= kCurveSteps; ++k) {
    const double gap = std::abs(observed[k] - static_cast<double>(k) / kCurveSteps);
    const double previous = std::abs(observed[k - 1] - static_cast<double>(k - 1) / kCurveSteps);
    area += (gap + previous) / (2.0 * kCurveSteps);
  }
  return area;
}

// Rows sorted by sigma in kBins bins of (nearly) equal count: each bin's root mean variance and RMSE.
struct SigmaBins {
  std::vector<double> rmv, rmse;
};

SigmaBins bins_by_sigma(std::span<const double> sigma, std::span<const double> error) {
  constexpr std::size_t kBins = 10;
  std::vector<std::size_t> order(sigma.size());
  std::iota(order.begin(), order.end(), 0);
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return sigma[a] < sigma[b]; });
  const std::size_t bins = std::min(kBins, order.size());
  SigmaBins result;
  for (std::size_t bin = 0; bin < bins; ++bin) {
    const std::size_t begin = bin * order.size() / bins, end = (bin + 1) * order.size() / bins;
    double variance = 0, squared_error = 0;
    for (std::size_t i = begin; i < end; ++i) {
      variance += sigma[order[i]] * sigma[order[i]];
      squared_error += error[order[i]] * error[order[i]];
    }
    result.rmv.push_back(std::sqrt(variance / static_cast<double>(end - begin)));
    result.rmse.push_back(std::sqrt(squared_error / static_cast<double>(end - begin)));
  }
  return result;
}

// The mean over bins_by_sigma of |RMV - RMSE| / RMV.
double expected_normalized_calibration_error(std::span<const double> sigma, std::span<const double> error) {
  const SigmaBins bins = bins_by_sigma(sigma, error);
  double total = 0;
  for (std::size_t bin = 0; bin < bins.rmv.size(); ++bin) total += std::abs(bins.rmv[bin] - bins.rmse[bin]) / bins.rmv[bin];
  return total / static_cast<double>(bins.rmv.size());
}

// The standard normal density.
double normal_density(double u) { return std::exp(-u * u / 2) * std::numbers::inv_sqrtpi / std::numbers::sqrt2; }

// The continuous ranked probability score of the Gaussian N(0, sigma^2) at `error` (Gneiting and
// Raftery 2007, eq. 21): sigma (u erf(u / sqrt 2) + 2 phi(u) - 1 / sqrt pi), u = |error| / sigma.
double gaussian_crps(double error, double sigma) {
  const double u = std::abs(error) / sigma;
  return sigma * (u * std::erf(u / std::numbers::sqrt2) + 2 * normal_density(u) - std::numbers::inv_sqrtpi);
}

// The scale s that minimizes the sum of gaussian_crps(error_i, s w_i), searched between e^-14 and
// e^14 (about 1e-6 and 1e6) times `rms_scale`. The sum's derivative in s,
// sum_i w_i (2 phi(error_i / (s w_i)) - 1 / sqrt pi), rises with s, so its root is found by halving
// the interval, in log s.
double crps_scale(std::span<const double> errors, std::span<const double> widths, double rms_scale) {
  const auto slope = [&](double log_scale) {
    const double scale = std::exp(log_scale);
    double sum = 0;
    for (std::size_t i = 0; i < errors.size(); ++i) {
      const double sigma = scale * widths[i];
      sum += widths[i] * (2 * normal_density(errors[i] / sigma) - std::numbers::inv_sqrtpi);
    }
    return sum;
  };
  double low = std::log(rms_scale) - 14, high = std::log(rms_scale) + 14;
  if (slope(low) >= 0) return std::exp(low);  // nearly every error is 0
  for (int step = 0; step < 64; ++step) {
    const double middle = (low + high) / 2;
    if (slope(middle) < 0)
      low = middle;
    else
      high = middle;
  }
  return std::exp((low + high) / 2);
}

// The calibration of widths spread + offset, scaled to minimize `fit`'s score on the rows, and that
// score (the NLL less its constant terms).
std::pair<SpreadCalibration, double> scaled_calibration(std::span<const double> errors,
                                                        std::span<const double> spreads, double offset,
                                                        SpreadFit fit) {
  SpreadCalibration calibration{.offset = offset};
  std::vector<double> widths;
  double z_squared = 0;
  for (std::size_t i = 0; i < errors.size(); ++i) {
    widths.push_back(spreads[i] + offset);
    const double score = errors[i] / widths.back();
    z_squared += score * score;
    calibration.scores.push_back(static_cast<float>(score));
  }
  // The NLL's minimum over the scale makes the mean squared z 1.
  const double rms_scale = std::max(std::sqrt(z_squared / static_cast<double>(errors.size())), 1e-12);
  double total = 0;
  if (fit == SpreadFit::nll) {
    calibration.scale = rms_scale;
    for (const double width : widths) total += std::log(rms_scale * width);
  } else {
    calibration.scale = crps_scale(errors, widths, rms_scale);
    for (std::size_t i = 0; i < errors.size(); ++i) total += gaussian_crps(errors[i], calibration.scale * widths[i]);
  }
  return {std::move(calibration), total};
}

struct LabelledRow {
  Index row;
  Index label;
};

std::vector<LabelledRow> labelled_rows(const Matrix<float>& probabilities, std::span<const Index> labels,
                                       const char* what) {
  std::vector<LabelledRow> rows;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0) continue;
    if (labels[i] >= probabilities.cols())
      throw ArgumentError(std::string(what) + ": label " + std::to_string(labels[i]) + " of row " +
                          std::to_string(i) + " is not one of the " + std::to_string(probabilities.cols()) +
                          " classes");
    rows.push_back({static_cast<Index>(i), labels[i]});
  }
  return rows;
}

std::span<const float> row_span(const Matrix<float>& m, Index row) {
  return {m.data() + row * m.cols(), static_cast<std::size_t>(m.cols())};
}

// The rows' negative log-likelihood at inverse temperature beta, from log-probabilities floored at
// 1e-30 so that a label given probability 0 costs much but not infinitely: sum over rows of
// logsumexp_k(beta log p_k) - beta log p_label.
double tempered_nll(const std::vector<std::vector<double>>& log_p, const std::vector<Index>& label, double beta) {
  double nll = 0;
  for (std::size_t i = 0; i < log_p.size(); ++i) {
    const double top = beta * *std::ranges::max_element(log_p[i]);
    double sum = 0;
    for (const double l : log_p[i]) sum += std::exp(beta * l - top);
    nll += top + std::log(sum) - beta * log_p[i][static_cast<std::size_t>(label[i])];
  }
  return nll;
}

// The inverse temperature in [0.01, 100] of least NLL. The NLL is convex in beta, so unimodal in
// log beta, where a golden-section search narrows the range to a factor of 1.0001.
double best_inverse_temperature(const Matrix<float>& probabilities, const std::vector<LabelledRow>& rows) {
  std::vector<std::vector<double>> log_p;
  std::vector<Index> label;
  for (const LabelledRow& row : rows) {
    std::vector<double>& logs = log_p.emplace_back();
    for (const float p : row_span(probabilities, row.row)) logs.push_back(std::log(std::max(static_cast<double>(p), 1e-30)));
    label.push_back(row.label);
  }
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  double low = std::log(0.01), high = std::log(100.0);
  while (high - low > 1e-4) {
    const double a = high - ratio * (high - low), b = low + ratio * (high - low);
    if (tempered_nll(log_p, label, std::exp(a)) <= tempered_nll(log_p, label, std::exp(b)))
      high = b;
    else
      low = a;
  }
  return std::exp((low + high) / 2);
}

// Platt's fit: the slope and intercept of least logistic loss of targets (smoothed, in (0, 1)) on
// features x = logit(p), by Newton's method from the identity, each step halved until the loss falls.
struct LogisticFit {
  std::vector<double> x, target;

  double loss(double slope, double intercept) const {
    double total = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double z = slope * x[i] + intercept;  // -log sigmoid(z) = log(1 + e^-z), computed stably
      total += target[i] * softplus(-z) + (1 - target[i]) * softplus(z);
    }
    return total;
  }

  BinaryCalibration fit() const {
    BinaryCalibration best;
    double current = loss(best.slope, best.intercept);
    for (int iteration = 0; iteration < 100; ++iteration) {
      double g_slope = 0, g_intercept = 0, h_ss = 1e-9, h_si = 0, h_ii = 1e-9;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const double p = 1 / (1 + std::exp(-(best.slope * x[i] + best.intercept))), w = p * (1 - p);
        g_slope += (p - target[i]) * x[i];
        g_intercept += p - target[i];
        h_ss += w * x[i] * x[i];
        h_si += w * x[i];
        h_ii += w;
      }
      const double det = h_ss * h_ii - h_si * h_si;
      if (!(det > 0)) break;
      double step_slope = (h_ii * g_slope - h_si * g_intercept) / det;
      double step_intercept = (h_ss * g_intercept - h_si * g_slope) / det;
      double next = loss(best.slope - step_slope, best.intercept - step_intercept);
      for (int halving = 0; halving < 30 && !(next <= current); ++halving) {
        step_slope /= 2;
        step_intercept /= 2;
        next = loss(best.slope - step_slope, best.intercept - step_intercept);
      }
      if (!(next <= current)) break;
      best = {.slope = best.slope - step_slope, .intercept = best.intercept - step_intercept};
      const bool converged = current - next < 1e-12 * (1 + current);
      current = next;
      if (converged) break;
    }
    return best;
  }

};

double clamped_logit(float probability) {
  const double p = std::clamp(static_cast<double>(probability), 1e-7, 1 - 1e-7);
  return std::log(p / (1 - p));
}

// The rows whose index has the given parity, or every row for a negative parity.
bool in_part(std::size_t row, int parity) { return parity < 0 || static_cast<int>(row % 2) == parity; }

// Platt's and isotonic regression's targets for 0/1 labels: the labels, smoothed by the counts of
// the part's positives and negatives.
std::vector<double> smoothed_targets(std::span<const double> labels, int parity) {
  double positives = 0, negatives = 0;
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (in_part(i, parity)) (labels[i] > 0 ? positives : negatives) += 1;
  std::vector<double> targets(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i)
    targets[i] = labels[i] > 0 ? (positives + 1) / (positives + 2) : 1 / (negatives + 2);
  return targets;
}

// Platt's fit on the rows (x = logit, 0/1 labels) of a part.
BinaryCalibration platt_fit(std::span<const double> x, std::span<const double> labels, int parity) {
  LogisticFit problem;
  const std::vector<double> targets = smoothed_targets(labels, parity);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!in_part(i, parity)) continue;
    problem.x.push_back(x[i]);
    problem.target.push_back(targets[i]);
  }
  return problem.fit();
}

// Centred isotonic regression on the rows (probabilities p, 0/1 labels) of a part: rows of equal
// probability pooled, then adjacent pools merged while a pool's mean target is not below the next
// one's; each pool's mean probability and mean target is a knot.
BinaryCalibration isotonic_fit(std::span<const float> p, std::span<const double> labels, int parity) {
  struct Pool {
    double probability = 0, target = 0, rows = 0;  // sums, then means once divided by rows
    void merge(const Pool& other) {
      probability += other.probability;
      target += other.target;
      rows += other.rows;
    }
  };
  const std::vector<double> targets = smoothed_targets(labels, parity);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (in_part(i, parity)) order.push_back(i);
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<Pool> pools;
  const auto mean = [](const Pool& pool) { return pool.target / pool.rows; };
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Pool row{p[order[k]], targets[order[k]], 1};
    if (k > 0 && p[order[k]] == p[order[k - 1]]) pools.back().merge(row);
    else pools.push_back(row);
    while (pools.size() > 1 && mean(pools[pools.size() - 2]) >= mean(pools.back())) {
      pools[pools.size() - 2].merge(pools.back());
      pools.pop_back();
    }
  }
  // A pool of fewer rows than the root of their number joins the next (the last, the one before), so
  // that no knot rests on a handful of rows: the lowest and highest would otherwise be single rows
  // calibrated to nearly 0 and 1. Joining neighbours keeps the means rising.
  const double fewest = std::ceil(std::sqrt(static_cast<double>(order.size())));
  std::vector<Pool> joined;
  for (const Pool& pool : pools) {
    if (!joined.empty() && joined.back().rows < fewest) joined.back().merge(pool);
    else joined.push_back(pool);
  }
  if (joined.size() > 1 && joined.back().rows < fewest) {
    joined[joined.size() - 2].merge(joined.back());
    joined.pop_back();
  }
  BinaryCalibration result;
  for (const Pool& pool : joined)
    result.isotonic.emplace_back(static_cast<float>(pool.probability / pool.rows), static_cast<float>(mean(pool)));
  return result;
}

// The sum of row_nll(i) over the rows of the given parity.
template <typename RowNll>
double part_nll(std::size_t rows, int parity, RowNll row_nll) {
  double nll = 0;
  for (std::size_t i = 0; i < rows; ++i)
    if (in_part(i, parity)) nll += row_nll(i);
  return nll;
}

// The NLL of 0/1 labels under Platt's scaling, over the rows of the given parity.
double platt_nll(const BinaryCalibration& scaling, std::span<const double> x, std::span<const double> labels,
                 int parity) {
  return part_nll(x.size(), parity, [&](std::size_t i) {
    const double z = scaling.slope * x[i] + scaling.intercept;
    return labels[i] > 0 ? softplus(-z) : softplus(z);
  });
}

// The NLL of 0/1 labels under any calibration of the probabilities p, over the rows of the given parity.
double calibrated_nll(const BinaryCalibration& calibration, std::span<const float> p, std::span<const double> labels,
                      int parity) {
  return part_nll(p.size(), parity, [&](std::size_t i) {
    const double q = std::clamp(static_cast<double>(calibration.apply(p[i])), 1e-7, 1 - 1e-7);
    return -std::log(labels[i] > 0 ? q : 1 - q);
  });
}

std::string number_text(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

}  // namespace

double SpreadCalibration::half_width(double raw, double coverage) const {
  return conformal_quantile(scores, coverage) * (raw + offset);
}

std::string spread_method_choices(std::string_view quote) {
  std::vector<std::string> names;
  for (const auto& [method, name] : kSpreadMethodNames)
    if (method != SpreadMethod::none) names.push_back(std::string(quote) + std::string(name) + std::string(quote));
  const std::string last = names.back();
  names.pop_back();
  return join(names, ", ") + " or " + last;
}

std::size_t conformal_rows_needed(double coverage) {
  return static_cast<std::size_t>(std::ceil(coverage / (1 - coverage) - 1e-9));
}

namespace {

// The rank, ceil((n + 1) coverage), of the calibration score that bounds split-conformal rows of
// `coverage`. Throws as conformal_quantile does.
std::size_t conformal_rank(std::size_t n, double coverage) {
  if (!(coverage > 0 && coverage < 1))
    throw ArgumentError("coverage " + number_text(coverage) + " is outside (0, 1): give a fraction such as 0.9");
  const auto rank = static_cast<std::size_t>(std::ceil(static_cast<double>(n + 1) * coverage - 1e-9));
  if (rank > n)
    throw ArgumentError("coverage " + number_text(coverage) + " needs at least " +
                        std::to_string(conformal_rows_needed(coverage)) +
                        " calibration rows; the model was calibrated on " + std::to_string(n) +
                        ": ask for a lower coverage, or train with a larger validation part");
  return rank;
}

}  // namespace

double conformal_quantile(std::span<const float> ascending, double coverage) {
  return ascending[conformal_rank(ascending.size(), coverage) - 1];
}

std::pair<double, double> conformal_coverage_range(std::size_t rows, double coverage, double probability) {
  if (!(probability > 0 && probability < 1))
    throw ArgumentError("probability " + number_text(probability) + " is outside (0, 1)");
  const auto rank = static_cast<double>(conformal_rank(rows, coverage));
  // A fresh row's score is below the bound with probability F(bound), F the scores' distribution; F
  // of the rank-th smallest of `rows` scores is the rank-th smallest of `rows` uniform numbers.
  const boost::math::beta_distribution<double> held(rank, static_cast<double>(rows) + 1 - rank);
  return {quantile(held, (1 - probability) / 2), quantile(held, (1 + probability) / 2)};
}

SpreadCalibration fit_spread_calibration(std::span<const float> targets, std::span<const float> predictions,
                                         std::span<const float> raw_spread, SpreadFit fit) {
  check_lengths({targets.size(), predictions.size(), raw_spread.size()}, "fit_spread_calibration");
  std::vector<double> errors, spreads;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (std::isnan(targets[i])) continue;
    errors.push_back(std::abs(static_cast<double>(targets[i]) - predictions[i]));
    spreads.push_back(raw_spread[i]);
  }
  if (errors.size() < 2)
    throw ArgumentError("calibrating the spread needs at least two labelled rows; there are " +
                        std::to_string(errors.size()));
  // The offset's unit: the median spread, or where the members agree on most rows, the errors' size.
  double unit = median_of(spreads);
  if (!(unit > 0)) {
    double squared = 0;
    for (const double error : errors) squared += error * error;
    unit = std::max(std::sqrt(squared / static_cast<double>(errors.size())), 1e-12);
  }
  SpreadCalibration calibration;
  double best = std::numeric_limits<double>::infinity();
  for (double multiple = 1.0 / 64; multiple <= 4; multiple *= 2) {
    auto [candidate, total] = scaled_calibration(errors, spreads, multiple * unit, fit);
    if (total < best) {
      best = total;
      calibration = std::move(candidate);
    }
  }
  std::ranges::sort(calibration.scores);
  return calibration;
}

void to_json(nlohmann::json& j, const SpreadCalibration& calibration) {
  j = {{"offset", calibration.offset}, {"scale", calibration.scale}, {"scores", calibration.scores}};
}

void from_json(const nlohmann::json& j, SpreadCalibration& calibration) {
  j.at("offset").get_to(calibration.offset);
  j.at("scale").get_to(calibration.scale);
  j.at("scores").get_to(calibration.scores);
  const auto positive = [](double value) { return std::isfinite(value) && value > 0; };
  if (!positive(calibration.offset) || !positive(calibration.scale))
    throw ModelFormatError("spread calibration: offset and scale must be positive and finite");
  const bool valid_scores = std::ranges::all_of(calibration.scores, [](float s) { return std::isfinite(s) && s >= 0; });
  if (!valid_scores || !std::ranges::is_sorted(calibration.scores))
    throw ModelFormatError("spread calibration: the scores must be finite, non-negative and ascending");
}

UncertaintyScores score_uncertainty(std::span<const float> targets, std::span<const float> predictions,
                                    std::span<const float> sigma, std::span<const float> lower,
                                    std::span<const float> upper) {
  check_lengths({targets.size(), predictions.size(), sigma.size(), lower.size(), upper.size()}, "score_uncertainty");
  std::vector<double> z, errors, sigmas;
  UncertaintyScores scores;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (std::isnan(targets[i])) continue;
    check_sigma(sigma[i], i, "score_uncertainty");
    const double error = static_cast<double>(targets[i]) - predictions[i], s = sigma[i];
    scores.nll += 0.5 * std::log(2 * std::numbers::pi * s * s) + error * error / (2 * s * s);
    scores.coverage += targets[i] >= lower[i] && targets[i] <= upper[i] ? 1 : 0;
    scores.mean_width += static_cast<double>(upper[i]) - lower[i];
    z.push_back(error / s);
    errors.push_back(std::abs(error));
    sigmas.push_back(s);
  }
  scores.count = static_cast<Index>(z.size());
  if (z.empty()) {
    const double nan = std::nan("");
    return {0, nan, nan, nan, nan, nan, nan};
  }
  const auto n = static_cast<double>(z.size());
  scores.nll /= n;
  scores.coverage /= n;
  scores.mean_width /= n;
  scores.miscalibration_area = miscalibration_area(z);
  scores.ence = expected_normalized_calibration_error(sigmas, errors);
  scores.spearman = spearman_correlation(sigmas, errors);
  return scores;
}

double expected_calibration_error(std::span<const double> confidence, std::span<const double> correct) {
  check_lengths({confidence.size(), correct.size()}, "expected_calibration_error");
  if (confidence.empty()) return std::nan("");
  constexpr int kBins = 15;
  std::array<double, kBins> confident{}, right{};
  for (std::size_t i = 0; i < confidence.size(); ++i) {
    const int bin = std::clamp(static_cast<int>(std::ceil(confidence[i] * kBins)) - 1, 0, kBins - 1);
    confident[bin] += confidence[i];
    right[bin] += correct[i];
  }
  double error = 0;
  for (int bin = 0; bin < kBins; ++bin) error += std::abs(right[bin] - confident[bin]);
  return error / static_cast<double>(confidence.size());
}

CalibrationCurve calibration_curve(std::span<const float> targets, std::span<const float> predictions,
                                   std::span<const float> sigma) {
  check_lengths({targets.size(), predictions.size(), sigma.size()}, "calibration_curve");
  CalibrationCurve curve;
  std::vector<double> z;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (std::isnan(targets[i])) continue;
    check_sigma(sigma[i], i, "calibration_curve");
    const double error = static_cast<double>(targets[i]) - predictions[i];
    z.push_back(error / sigma[i]);
    curve.sigma.push_back(sigma[i]);
    curve.abs_error.push_back(std::abs(error));
  }
  if (z.empty()) return curve;
  for (int k = 0; k <= kCurveSteps; ++k) curve.expected.push_back(static_cast<double>(k) / kCurveSteps);
  curve.observed = observed_fractions(z);
  SigmaBins bins = bins_by_sigma(curve.sigma, curve.abs_error);
  curve.bin_rmv = std::move(bins.rmv);
  curve.bin_rmse = std::move(bins.rmse);
  return curve;
}

double spearman_correlation(std::span<const double> x, std::span<const double> y) {
  check_lengths({x.size(), y.size()}, "spearman_correlation");
  if (x.size() < 2) return std::nan("");
  return pearson_correlation(average_ranks(x), average_ranks(y));
}

void ClassCalibration::apply(Matrix<float>& probabilities) const {
  const double inverse = 1 / temperature;
  for (Index row = 0; row < probabilities.rows(); ++row) {
    const double largest = probabilities.row(row).maxCoeff();
    if (!(largest > 0)) continue;
    double sum = 0;
    for (float& p : probabilities.row(row)) {
      p = static_cast<float>(std::pow(p / largest, inverse));  // (p / largest)^(1/T), in [0, 1]
      sum += p;
    }
    probabilities.row(row) /= static_cast<float>(sum);
  }
}

double ClassCalibration::set_threshold(double coverage) const { return 1 - conformal_quantile(scores, coverage); }

ClassCalibration fit_class_calibration(const Matrix<float>& probabilities, std::span<const Index> labels) {
  check_lengths({static_cast<std::size_t>(probabilities.rows()), labels.size()}, "fit_class_calibration");
  const std::vector<LabelledRow> rows = labelled_rows(probabilities, labels, "fit_class_calibration");
  if (rows.size() < 2)
    throw ArgumentError("calibrating probabilities needs at least two labelled rows; there are " +
                        std::to_string(rows.size()));
  ClassCalibration calibration{.temperature = 1 / best_inverse_temperature(probabilities, rows)};
  Matrix<float> calibrated = probabilities;
  calibration.apply(calibrated);
  for (const LabelledRow& row : rows)
    calibration.scores.push_back(1 - calibrated(row.row, row.label));
  std::ranges::sort(calibration.scores);
  return calibration;
}

void to_json(nlohmann::json& j, const ClassCalibration& calibration) {
  j = {{"temperature", calibration.temperature}, {"scores", calibration.scores}};
}

void from_json(const nlohmann::json& j, ClassCalibration& calibration) {
  j.at("temperature").get_to(calibration.temperature);
  j.at("scores").get_to(calibration.scores);
  if (!(std::isfinite(calibration.temperature) && calibration.temperature > 0))
    throw ModelFormatError("class calibration: the temperature must be positive and finite");
  const bool valid_scores = std::ranges::all_of(calibration.scores, [](float s) { return s >= 0 && s <= 1; });
  if (!valid_scores || !std::ranges::is_sorted(calibration.scores))
    throw ModelFormatError("class calibration: the scores must lie in [0, 1], ascending");
}

float BinaryCalibration::apply(float probability) const {
  if (isotonic.empty())
    return static_cast<float>(1 / (1 + std::exp(-(slope * clamped_logit(probability) + intercept))));
  const auto above = std::ranges::upper_bound(isotonic, probability, {}, &std::pair<float, float>::first);
  if (above == isotonic.begin()) return isotonic.front().second;
  if (above == isotonic.end()) return isotonic.back().second;
  const auto& [x0, y0] = *(above - 1);
  const auto& [x1, y1] = *above;
  return y0 + (y1 - y0) * (probability - x0) / (x1 - x0);
}

BinaryCalibration fit_binary_calibration(std::span<const float> targets, std::span<const float> probabilities) {
  check_lengths({targets.size(), probabilities.size()}, "fit_binary_calibration");
  std::vector<double> x, labels;
  std::vector<float> p;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (std::isnan(targets[i])) continue;
    p.push_back(probabilities[i]);
    x.push_back(clamped_logit(probabilities[i]));
    labels.push_back(targets[i]);
  }
  if (x.size() < 4) return {};
  const BinaryCalibration identity;
  double platt = 0, isotonic = 0, as_is = 0;
  for (const int parity : {0, 1}) {
    platt += platt_nll(platt_fit(x, labels, 1 - parity), x, labels, parity);
    isotonic += calibrated_nll(isotonic_fit(p, labels, 1 - parity), p, labels, parity);
    as_is += platt_nll(identity, x, labels, parity);
  }
  if (isotonic < platt && isotonic < as_is) return isotonic_fit(p, labels, -1);
  if (!(platt < as_is)) return identity;
  const BinaryCalibration fitted = platt_fit(x, labels, -1);
  return fitted.slope > 0 && std::isfinite(fitted.slope) && std::isfinite(fitted.intercept) ? fitted : identity;
}

void to_json(nlohmann::json& j, const BinaryCalibration& calibration) {
  if (calibration.isotonic.empty()) j = {{"slope", calibration.slope}, {"intercept", calibration.intercept}};
  else j = {{"isotonic", calibration.isotonic}};
}

void from_json(const nlohmann::json& j, BinaryCalibration& calibration) {
  calibration = {};
  if (j.contains("isotonic")) {
    j.at("isotonic").get_to(calibration.isotonic);
    const auto& knots = calibration.isotonic;
    const auto unit = [](float v) { return v >= 0 && v <= 1; };
    const bool inside = std::ranges::all_of(knots, [&](const auto& k) { return unit(k.first) && unit(k.second); });
    const auto rising = [](const auto& a, const auto& b) { return a.first < b.first && a.second <= b.second; };
    if (knots.empty() || !inside || std::ranges::adjacent_find(knots, std::not_fn(rising)) != knots.end())
      throw ModelFormatError("isotonic calibration: the knots must lie in [0, 1], each above the one before");
    return;
  }
  j.at("slope").get_to(calibration.slope);
  j.at("intercept").get_to(calibration.intercept);
  if (!(std::isfinite(calibration.slope) && calibration.slope > 0) || !std::isfinite(calibration.intercept))
    throw ModelFormatError("Platt scaling: the slope must be positive and finite, the intercept finite");
}

std::vector<Index> prediction_set(std::span<const float> probabilities, double threshold) {
  const auto most_probable = std::ranges::max_element(probabilities) - probabilities.begin();
  std::vector<Index> classes;
  for (std::size_t k = 0; k < probabilities.size(); ++k)
    if (probabilities[k] >= threshold || static_cast<std::ptrdiff_t>(k) == most_probable)
      classes.push_back(static_cast<Index>(k));
  return classes;
}

std::vector<std::vector<Index>> prediction_sets(const Matrix<float>& probabilities, double threshold) {
  std::vector<std::vector<Index>> sets;
  for (Index row = 0; row < probabilities.rows(); ++row) sets.push_back(prediction_set(row_span(probabilities, row), threshold));
  return sets;
}

ClassUncertaintyScores score_class_uncertainty(const Matrix<float>& probabilities, std::span<const Index> labels,
                                               double threshold) {
  check_lengths({static_cast<std::size_t>(probabilities.rows()), labels.size()}, "score_class_uncertainty");
  const std::vector<LabelledRow> rows = labelled_rows(probabilities, labels, "score_class_uncertainty");
  ClassUncertaintyScores scores{.count = static_cast<Index>(rows.size())};
  if (rows.empty()) {
    const double nan = std::nan("");
    return {0, nan, nan, nan, nan, nan};
  }
  std::vector<double> confidence, correct;
  for (const LabelledRow& row : rows) {
    const std::span<const float> p = row_span(probabilities, row.row);
    scores.nll -= std::log(std::max(static_cast<double>(p[static_cast<std::size_t>(row.label)]), 1e-12));
    for (std::size_t k = 0; k < p.size(); ++k) {
      const double miss = p[k] - (static_cast<Index>(k) == row.label ? 1.0 : 0.0);
      scores.brier += miss * miss;
    }
    const std::vector<Index> set = prediction_set(p, threshold);
    scores.coverage += std::ranges::find(set, row.label) != set.end() ? 1 : 0;
    scores.mean_set_size += static_cast<double>(set.size());
    const auto top = std::ranges::max_element(p);
    confidence.push_back(*top);
    correct.push_back(top - p.begin() == row.label ? 1 : 0);
  }
  const auto n = static_cast<double>(rows.size());
  scores.nll /= n;
  scores.brier /= n;
  scores.coverage /= n;
  scores.mean_set_size /= n;
  scores.ece = expected_calibration_error(confidence, correct);
  return scores;
}

}  // namespace edgewise
