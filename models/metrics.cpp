#include "edgewise/models/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/models/uncertainty.hpp"

namespace edgewise {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

struct LabelledEntry {
  double prediction;
  double target;
};

// Entries of one task sharing a score, for the threshold sweeps of the AUCs.
struct ScoreGroup {
  Index positives = 0;
  Index negatives = 0;
};

double as_double(Index count) { return static_cast<double>(count); }

std::string entry_name(Index row, Index col) { return "(" + std::to_string(row) + ", " + std::to_string(col) + ")"; }

template <typename Scalar>
void require_same_shape(const std::string& function, const Matrix<Scalar>& predictions, const Matrix<Scalar>& targets) {
  if (predictions.rows() != targets.rows() || predictions.cols() != targets.cols())
    throw ArgumentError(function + ": predictions are [" + std::to_string(predictions.rows()) + ", " +
                        std::to_string(predictions.cols()) + "] but targets are [" + std::to_string(targets.rows()) +
                        ", " + std::to_string(targets.cols()) + "]");
}

// Replaces `entries` by the labelled entries of column `task`, in row order.
template <typename Scalar>
void collect_task(std::vector<LabelledEntry>& entries, const std::string& function, const Matrix<Scalar>& predictions,
                  const Matrix<Scalar>& targets, Index task) {
  entries.clear();
  for (Index row = 0; row < targets.rows(); ++row) {
    const double target = static_cast<double>(targets(row, task));
    if (std::isnan(target)) continue;
    const double prediction = static_cast<double>(predictions(row, task));
    if (std::isnan(prediction))
      throw ArgumentError(function + ": prediction " + entry_name(row, task) + " is NaN at a labelled entry");
    entries.push_back({prediction, target});
  }
}

// Mean of `field` over the items where it is not NaN; NaN when there is none.
template <typename Item>
double mean_ignoring_nan(const std::vector<Item>& items, double Item::*field) {
  double sum = 0;
  Index count = 0;
  for (const Item& item : items) {
    if (std::isnan(item.*field)) continue;
    sum += item.*field;
    ++count;
  }
  return count == 0 ? kNan : sum / as_double(count);
}

// SS_tot = 0 is detected here rather than from SS_tot: the computed mean of equal doubles need not
// equal them, which would make SS_tot a tiny positive number and R² a huge negative one.
bool all_targets_equal(const std::vector<LabelledEntry>& entries) {
  return std::all_of(entries.begin(), entries.end(),
                     [&](const LabelledEntry& e) { return e.target == entries.front().target; });
}

RegressionTaskMetrics regression_task(const std::vector<LabelledEntry>& entries) {
  RegressionTaskMetrics metrics{static_cast<Index>(entries.size()), kNan, kNan, kNan};
  if (entries.empty()) return metrics;

  const double count = as_double(metrics.count);
  double squared_error = 0;
  double absolute_error = 0;
  double target_sum = 0;
  for (const LabelledEntry& e : entries) {
    const double error = e.prediction - e.target;
    squared_error += error * error;
    absolute_error += std::abs(error);
    target_sum += e.target;
  }
  metrics.rmse = std::sqrt(squared_error / count);
  metrics.mae = absolute_error / count;
  if (all_targets_equal(entries)) return metrics;

  // Second pass about the mean: summing squares first and subtracting would cancel badly.
  const double target_mean = target_sum / count;
  double total_squares = 0;
  for (const LabelledEntry& e : entries) total_squares += (e.target - target_mean) * (e.target - target_mean);
  metrics.r2 = 1.0 - squared_error / total_squares;
  return metrics;
}

template <typename Scalar>
void require_binary_labels(const std::string& function, const Matrix<Scalar>& targets, Index task) {
  for (Index row = 0; row < targets.rows(); ++row) {
    const double label = static_cast<double>(targets(row, task));
    if (!std::isnan(label) && label != 0.0 && label != 1.0)
      throw ArgumentError(function + ": target " + entry_name(row, task) + " is " + std::to_string(label) +
                          ", expected 0, 1 or NaN");
  }
}

// Sorts `entries` by score and counts the classes of each distinct score, ascending.
std::vector<ScoreGroup> groups_by_score(std::vector<LabelledEntry>& entries) {
  std::sort(entries.begin(), entries.end(),
            [](const LabelledEntry& a, const LabelledEntry& b) { return a.prediction < b.prediction; });
  std::vector<ScoreGroup> groups;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i == 0 || entries[i].prediction != entries[i - 1].prediction) groups.emplace_back();
    ++(entries[i].target == 1.0 ? groups.back().positives : groups.back().negatives);
  }
  return groups;
}

// Mann–Whitney U / (P N): each positive counts the negatives scored below it, plus half of those
// tied with it. Working per group keeps the sum independent of the order within ties.
double roc_auc(const std::vector<ScoreGroup>& ascending, Index positives, Index negatives) {
  double u = 0;
  Index negatives_below = 0;
  for (const ScoreGroup& group : ascending) {
    u += as_double(group.positives) * (as_double(negatives_below) + 0.5 * as_double(group.negatives));
    negatives_below += group.negatives;
  }
  return u / (as_double(positives) * as_double(negatives));
}

// Sweeps the threshold down through the distinct scores; recall only moves at groups holding
// positives, by group.positives / P, at the precision reached after taking in the whole group.
double average_precision(const std::vector<ScoreGroup>& ascending, Index positives) {
  double precision_sum = 0;
  Index true_positives = 0;
  Index taken = 0;
  for (auto group = ascending.rbegin(); group != ascending.rend(); ++group) {
    true_positives += group->positives;
    taken += group->positives + group->negatives;
    precision_sum += as_double(group->positives) * as_double(true_positives) / as_double(taken);
  }
  return precision_sum / as_double(positives);
}

ClassificationTaskMetrics classification_task(std::vector<LabelledEntry>& entries) {
  ClassificationTaskMetrics metrics{static_cast<Index>(entries.size()), 0, kNan, kNan, kNan, kNan, kNan};
  if (entries.empty()) return metrics;

  std::vector<double> confidence, correct;
  double squared_error = 0;
  for (const LabelledEntry& e : entries) {
    const bool positive = e.target == 1.0;
    metrics.positives += positive ? 1 : 0;
    correct.push_back(((e.prediction >= 0.5) == positive) ? 1 : 0);
    confidence.push_back(std::max(e.prediction, 1 - e.prediction));
    squared_error += (e.prediction - e.target) * (e.prediction - e.target);
  }
  metrics.accuracy = std::accumulate(correct.begin(), correct.end(), 0.0) / as_double(metrics.count);
  metrics.brier = squared_error / as_double(metrics.count);
  metrics.ece = expected_calibration_error(confidence, correct);

  const Index negatives = metrics.count - metrics.positives;
  if (metrics.positives == 0 || negatives == 0) return metrics;
  const std::vector<ScoreGroup> groups = groups_by_score(entries);
  metrics.roc_auc = roc_auc(groups, metrics.positives, negatives);
  metrics.pr_auc = average_precision(groups, metrics.positives);
  return metrics;
}

// numerator / denominator for one class; 0 / 0 reads as 0 when the class occurs and NaN otherwise.
double class_ratio(Index numerator, Index denominator, bool class_occurs) {
  if (denominator == 0) return class_occurs ? 0.0 : kNan;
  return as_double(numerator) / as_double(denominator);
}

void require_class_id(Index id, Index classes, const char* which, std::size_t node) {
  if (id < 0 || id >= classes)
    throw ArgumentError("node_classification_metrics: " + std::string(which) + " class " + std::to_string(id) +
                        " of node " + std::to_string(node) + " is outside [0, " + std::to_string(classes) + ")");
}

}  // namespace

template <typename Scalar>
RegressionMetrics regression_metrics(const Matrix<Scalar>& predictions, const Matrix<Scalar>& targets) {
  const std::string function = "regression_metrics";
  require_same_shape(function, predictions, targets);
  RegressionMetrics metrics;
  std::vector<LabelledEntry> entries;
  entries.reserve(static_cast<std::size_t>(targets.rows()));
  for (Index task = 0; task < targets.cols(); ++task) {
    collect_task(entries, function, predictions, targets, task);
    metrics.tasks.push_back(regression_task(entries));
  }
  metrics.rmse = mean_ignoring_nan(metrics.tasks, &RegressionTaskMetrics::rmse);
  metrics.mae = mean_ignoring_nan(metrics.tasks, &RegressionTaskMetrics::mae);
  metrics.r2 = mean_ignoring_nan(metrics.tasks, &RegressionTaskMetrics::r2);
  return metrics;
}

template <typename Scalar>
ClassificationMetrics classification_metrics(const Matrix<Scalar>& scores, const Matrix<Scalar>& targets) {
  const std::string function = "classification_metrics";
  require_same_shape(function, scores, targets);
  ClassificationMetrics metrics;
  std::vector<LabelledEntry> entries;
  entries.reserve(static_cast<std::size_t>(targets.rows()));
  for (Index task = 0; task < targets.cols(); ++task) {
    require_binary_labels(function, targets, task);
    collect_task(entries, function, scores, targets, task);
    metrics.tasks.push_back(classification_task(entries));
  }
  metrics.roc_auc = mean_ignoring_nan(metrics.tasks, &ClassificationTaskMetrics::roc_auc);
  metrics.pr_auc = mean_ignoring_nan(metrics.tasks, &ClassificationTaskMetrics::pr_auc);
  metrics.accuracy = mean_ignoring_nan(metrics.tasks, &ClassificationTaskMetrics::accuracy);
  metrics.brier = mean_ignoring_nan(metrics.tasks, &ClassificationTaskMetrics::brier);
  metrics.ece = mean_ignoring_nan(metrics.tasks, &ClassificationTaskMetrics::ece);
  return metrics;
}

bool larger_is_better(std::string_view metric) {
  if (metric == "rmse" || metric == "mae") return false;
  for (const std::string_view larger : {"r2", "roc_auc", "pr_auc", "accuracy", "average_precision", "hits@50", "mrr"})
    if (metric == larger) return true;
  throw ArgumentError("unknown metric '" + std::string(metric) +
                      "'; expected rmse, mae, r2, roc_auc, pr_auc, accuracy, average_precision, hits@50 or mrr");
}

MetricValue main_metric(const RegressionMetrics& metrics, std::string_view metric) {
  const bool larger = larger_is_better(metric);
  if (metric == "rmse") return {metrics.rmse, larger};
  if (metric == "mae") return {metrics.mae, larger};
  if (metric == "r2") return {metrics.r2, larger};
  throw ArgumentError("'" + std::string(metric) + "' is not a regression metric; expected rmse, mae or r2");
}

MetricValue main_metric(const ClassificationMetrics& metrics, std::string_view metric) {
  const bool larger = larger_is_better(metric);
  if (metric == "roc_auc") return {metrics.roc_auc, larger};
  if (metric == "pr_auc") return {metrics.pr_auc, larger};
  if (metric == "accuracy") return {metrics.accuracy, larger};
  throw ArgumentError("'" + std::string(metric) +
                      "' is not a classification metric; expected roc_auc, pr_auc or accuracy");
}

NodeClassificationMetrics node_classification_metrics(std::span<const Index> predicted,
                                                      std::span<const Index> truth, Index classes) {
  if (predicted.size() != truth.size())
    throw ArgumentError("node_classification_metrics: " + std::to_string(predicted.size()) + " predictions for " +
                        std::to_string(truth.size()) + " true classes");
  if (classes < 0) throw ArgumentError("node_classification_metrics: negative class count");

  NodeClassificationMetrics metrics;
  metrics.classes.resize(static_cast<std::size_t>(classes));
  std::vector<Index> true_positives(static_cast<std::size_t>(classes), 0);
  Index correct = 0;
  for (std::size_t node = 0; node < truth.size(); ++node) {
    if (truth[node] < 0) continue;
    require_class_id(truth[node], classes, "true", node);
    require_class_id(predicted[node], classes, "predicted", node);
    ++metrics.count;
    ++metrics.classes[truth[node]].support;
    ++metrics.classes[predicted[node]].predicted;
    if (predicted[node] == truth[node]) {
      ++true_positives[truth[node]];
      ++correct;
    }
  }

  for (std::size_t c = 0; c < metrics.classes.size(); ++c) {
    ClassMetrics& m = metrics.classes[c];
    const bool occurs = m.support > 0 || m.predicted > 0;
    m.precision = class_ratio(true_positives[c], m.predicted, occurs);
    m.recall = class_ratio(true_positives[c], m.support, occurs);
    // 2PR / (P + R) written with counts, which is 0 rather than 0 / 0 when P = R = 0.
    m.f1 = class_ratio(2 * true_positives[c], m.support + m.predicted, occurs);
  }
  metrics.accuracy = metrics.count == 0 ? kNan : as_double(correct) / as_double(metrics.count);
  metrics.macro_f1 = mean_ignoring_nan(metrics.classes, &ClassMetrics::f1);
  return metrics;
}

template RegressionMetrics regression_metrics(const Matrix<float>&, const Matrix<float>&);
template RegressionMetrics regression_metrics(const Matrix<double>&, const Matrix<double>&);
template ClassificationMetrics classification_metrics(const Matrix<float>&, const Matrix<float>&);
template ClassificationMetrics classification_metrics(const Matrix<double>&, const Matrix<double>&);

std::string score_text(double value, int decimals) {
  if (std::isnan(value)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace edgewise
