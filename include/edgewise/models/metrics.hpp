/// \file
/// Evaluation metrics: multi-task regression and binary classification of graphs (molecules), and
/// node classification. All functions are pure and deterministic; values are computed in double.
///
/// Multi-task inputs are predictions and targets [M, T] (M examples, T tasks). A NaN target is a
/// missing label: that entry is skipped, so each task is scored on its own labelled rows. A NaN
/// prediction at a labelled entry throws ArgumentError (it cannot be ranked, and letting it turn a
/// task's metric into NaN would silently drop the task from the means below).
///
/// Undefined values are NaN, never a guess: a task without labels has NaN metrics, and each mean
/// over tasks ignores the tasks whose value is NaN (it is NaN only when every task's value is).
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// Regression metrics of one task, over its labelled entries.
struct RegressionTaskMetrics {
  Index count = 0;  ///< labelled entries of the task
  double rmse = 0;  ///< Root mean squared error.
  double mae = 0;  ///< Mean absolute error.
  /// 1 - SS_res / SS_tot. NaN when SS_tot = 0 (fewer than two labels, or all labels equal), where
  /// the ratio is undefined.
  double r2 = 0;
};

/// Regression metrics per task and averaged over tasks.
struct RegressionMetrics {
  std::vector<RegressionTaskMetrics> tasks;  ///< [T]
  double rmse = 0;  ///< means over tasks, ignoring NaN
  double mae = 0;  ///< Mean over tasks, ignoring NaN.
  double r2 = 0;  ///< Mean over tasks, ignoring NaN.
};

/// Binary classification metrics of one task, over its labelled entries.
struct ClassificationTaskMetrics {
  Index count = 0;      ///< labelled entries of the task
  Index positives = 0;  ///< of which labelled 1
  /// Area under the ROC curve: the probability that a random positive scores above a random
  /// negative, ties counting one half (Mann–Whitney U). NaN unless both classes are present.
  double roc_auc = 0;
  /// Average precision, sum over the distinct scores k, from the highest, of (R_k - R_{k-1}) P_k,
  /// where entries with equal scores enter together (scikit-learn's average_precision_score).
  /// NaN unless both classes are present.
  double pr_auc = 0;
  /// Fraction of labelled entries with (score >= 0.5) == label: meaningful only when the scores
  /// are probabilities, so pass sigmoid(logit) here, not logits.
  double accuracy = 0;
  /// Brier score, the mean of (score - label)^2; for probabilities, as the accuracy.
  double brier = 0;
  /// expected_calibration_error (models/uncertainty.hpp) of the predicted class's probability,
  /// max(score, 1 - score); for probabilities, as the accuracy.
  double ece = 0;
};

/// Binary classification metrics per task and averaged over tasks.
struct ClassificationMetrics {
  std::vector<ClassificationTaskMetrics> tasks;  ///< [T]
  double roc_auc = 0;  ///< means over tasks, ignoring NaN (so single-class tasks are left out)
  double pr_auc = 0;  ///< Mean over tasks, ignoring NaN.
  double accuracy = 0;  ///< Mean over tasks, ignoring NaN.
  double brier = 0;  ///< Mean over tasks, ignoring NaN.
  double ece = 0;  ///< Mean over tasks, ignoring NaN.
};

/// predictions, targets: [M, T]; targets NaN where missing. Throws ArgumentError on a shape mismatch.
template <typename Scalar>
RegressionMetrics regression_metrics(const Matrix<Scalar>& predictions, const Matrix<Scalar>& targets);

/// scores: [M, T], any score increasing with the chance of class 1 (logits or probabilities; the
/// accuracy needs probabilities). targets: [M, T] holding 0, 1 or NaN; other values and shape
/// mismatches throw ArgumentError. O(M log M) per task.
template <typename Scalar>
ClassificationMetrics classification_metrics(const Matrix<Scalar>& scores, const Matrix<Scalar>& targets);

/// The value of a metric chosen by name, and its direction, for model selection and early stopping.
struct MetricValue {
  double value = 0;  ///< The metric's value.
  bool larger_is_better = false;  ///< Its direction: true for AUCs, accuracy and r2.
};

/// Whether a larger value of the named metric ("rmse", "mae", "r2", "roc_auc", "pr_auc", "accuracy",
/// and link prediction's "average_precision", "hits@50" and "mrr") is better. Throws ArgumentError on
/// any other name.
bool larger_is_better(std::string_view metric);

/// The mean over tasks of the named metric. Throws ArgumentError on a name that is not a metric of
/// that kind: "rmse", "mae", "r2" for regression; "roc_auc", "pr_auc", "accuracy" for classification.
/// @{
MetricValue main_metric(const RegressionMetrics& metrics, std::string_view metric);
MetricValue main_metric(const ClassificationMetrics& metrics, std::string_view metric);
/// @}

/// Node classification metrics of one class.
struct ClassMetrics {
  Index support = 0;    ///< nodes whose true class this is
  Index predicted = 0;  ///< nodes predicted as this class
  /// A zero denominator gives 0 (scikit-learn's zero_division=0) when the class occurs in the
  /// truth or the predictions; a class occurring in neither has NaN precision, recall and F1.
  double precision = 0;
  double recall = 0;  ///< Zero denominators as for precision.
  double f1 = 0;  ///< Zero denominators as for precision.
};

/// Node classification metrics over the scored nodes, overall and per class.
struct NodeClassificationMetrics {
  Index count = 0;      ///< nodes scored (true class >= 0)
  double accuracy = 0;  ///< NaN when count = 0
  /// Mean F1 over the classes present in the truth or the predictions of the scored nodes, which is
  /// scikit-learn's f1_score(average="macro") with labels left unset. Classes present in neither
  /// are left out rather than counted as F1 = 0. NaN when count = 0.
  double macro_f1 = 0;
  std::vector<ClassMetrics> classes;  ///< [classes], indexed by class id
};

/// predicted, truth: [N] class ids in [0, classes); a negative true class ignores the node.
/// Throws ArgumentError on a length mismatch, or on a class id out of range at a scored node.
NodeClassificationMetrics node_classification_metrics(std::span<const Index> predicted,
                                                      std::span<const Index> truth, Index classes);

/// `value` with `decimals` digits after the point, as logs show a score; "-" for NaN (nothing scored).
std::string score_text(double value, int decimals);

}  // namespace edgewise
