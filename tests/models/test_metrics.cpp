// Metrics: values worked by hand (regression, AUCs with and without ties, per-class F1), missing
// labels, single-class tasks, means over tasks, and both AUCs against direct O(M²) definitions on
// random scores with many ties.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <set>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/random.hpp"
#include "edgewise/models/metrics.hpp"
#include "support/matrices.hpp"

namespace edgewise {
namespace {

using testing::kNan;
using testing::matrix;

Matrix<double> column(std::initializer_list<double> values) {
  return matrix(static_cast<Index>(values.size()), 1, values);
}

// --- Regression -----------------------------------------------------------------------------------

// errors -0.5, 0.5, 0, 1: squares sum to 1.5, absolute values to 2.
// Target mean 11.5 / 4 = 2.875; SS_tot = 0.125² + 3.375² + 0.875² + 4.125² = 29.1875.
constexpr double kHandRmse = 0.61237243569579452;  // sqrt(1.5 / 4)
constexpr double kHandMae = 0.5;                   // 2 / 4
constexpr double kHandR2 = 1.0 - 1.5 / 29.1875;

TEST(RegressionMetricsTest, HandComputedFourEntries) {
  const RegressionMetrics m = regression_metrics(column({2.5, 0.0, 2.0, 8.0}), column({3.0, -0.5, 2.0, 7.0}));
  ASSERT_EQ(m.tasks.size(), 1u);
  EXPECT_EQ(m.tasks[0].count, 4);
  EXPECT_DOUBLE_EQ(m.tasks[0].rmse, kHandRmse);
  EXPECT_DOUBLE_EQ(m.tasks[0].mae, kHandMae);
  EXPECT_DOUBLE_EQ(m.tasks[0].r2, kHandR2);
  EXPECT_DOUBLE_EQ(m.rmse, kHandRmse);
  EXPECT_DOUBLE_EQ(m.mae, kHandMae);
  EXPECT_DOUBLE_EQ(m.r2, kHandR2);
}

TEST(RegressionMetricsTest, MissingTargetsAreSkippedEvenUnderNanPredictions) {
  const RegressionMetrics m = regression_metrics(column({2.5, 100.0, 0.0, 2.0, kNan, 8.0}),
                                                 column({3.0, kNan, -0.5, 2.0, kNan, 7.0}));
  EXPECT_EQ(m.tasks[0].count, 4);
  EXPECT_DOUBLE_EQ(m.tasks[0].rmse, kHandRmse);
  EXPECT_DOUBLE_EQ(m.tasks[0].mae, kHandMae);
  EXPECT_DOUBLE_EQ(m.tasks[0].r2, kHandR2);
}

TEST(RegressionMetricsTest, FloatInputsGiveTheDoubleResultsOfTheirValues) {
  const Matrix<float> predictions = column({2.5, 0.0, 2.0, 8.0}).cast<float>();
  const Matrix<float> targets = column({3.0, -0.5, 2.0, 7.0}).cast<float>();
  const RegressionMetrics m = regression_metrics(predictions, targets);
  EXPECT_DOUBLE_EQ(m.rmse, kHandRmse);
  EXPECT_DOUBLE_EQ(m.r2, kHandR2);
}

TEST(RegressionMetricsTest, MeanOverTasksIgnoresUndefinedValues) {
  // Task 0: the hand example. Task 1: constant targets 0.1 (SS_tot = 0, so R² is NaN), errors 0.3,
  // -0.1 and 0: squares sum to 0.1, absolute values to 0.4. Task 2: no labels at all.
  const Matrix<double> predictions = matrix(4, 3, {2.5, 0.4, 1, 0.0, 0.0, 1, 2.0, 0.1, 1, 8.0, 0.1, 1});
  const Matrix<double> targets = matrix(4, 3, {3.0, 0.1, kNan, -0.5, 0.1, kNan, 2.0, kNan, kNan, 7.0, 0.1, kNan});
  const RegressionMetrics m = regression_metrics(predictions, targets);
  ASSERT_EQ(m.tasks.size(), 3u);

  EXPECT_EQ(m.tasks[1].count, 3);
  EXPECT_NEAR(m.tasks[1].rmse, std::sqrt(0.1 / 3), 1e-15);
  EXPECT_NEAR(m.tasks[1].mae, 0.4 / 3, 1e-15);
  EXPECT_TRUE(std::isnan(m.tasks[1].r2));

  EXPECT_EQ(m.tasks[2].count, 0);
  EXPECT_TRUE(std::isnan(m.tasks[2].rmse));
  EXPECT_TRUE(std::isnan(m.tasks[2].mae));
  EXPECT_TRUE(std::isnan(m.tasks[2].r2));

  EXPECT_NEAR(m.rmse, (kHandRmse + std::sqrt(0.1 / 3)) / 2, 1e-15);
  EXPECT_NEAR(m.mae, (kHandMae + 0.4 / 3) / 2, 1e-15);
  EXPECT_DOUBLE_EQ(m.r2, kHandR2);
}

TEST(RegressionMetricsTest, SingleLabelHasNoR2) {
  const RegressionMetrics m = regression_metrics(column({1.0}), column({3.0}));
  EXPECT_DOUBLE_EQ(m.rmse, 2.0);
  EXPECT_TRUE(std::isnan(m.r2));
}

TEST(RegressionMetricsTest, RejectsMismatchedShapesAndNanPredictionsAtLabels) {
  EXPECT_THROW(regression_metrics(matrix(2, 1, {1, 2}), matrix(1, 2, {1, 2})), ArgumentError);
  EXPECT_THROW(regression_metrics(column({1.0, kNan}), column({1.0, 2.0})), ArgumentError);
}

// --- Binary classification ------------------------------------------------------------------------

// Ascending scores 0.1(0) 0.35(1) 0.4(0) 0.8(1). ROC: of the 4 positive-negative pairs, 0.35 beats
// 0.1 only and 0.8 beats both: 3 / 4. AP, from the top: 0.8 gives R = 1/2 at P = 1; 0.4 moves no
// recall; 0.35 gives R = 1 at P = 2/3: 1/2 · 1 + 1/2 · 2/3 = 5/6. Accuracy at 0.5: only 0.35 wrong.
const Matrix<double> kPlainScores = column({0.1, 0.4, 0.35, 0.8});
const Matrix<double> kPlainLabels = column({0, 0, 1, 1});

// Scores with a three-way tie at 0.5 holding one positive and two negatives.
// ROC: positive 0.1 beats no negative; positive 0.5 ties both negatives (1/2 + 1/2); positive 0.9
// beats both: (0 + 1 + 2) / 6 = 1/2. AP, from the top: 0.9 gives R = 1/3 at P = 1; the tied group
// enters whole, R = 2/3 at P = 2/4; 0.1 gives R = 1 at P = 3/5: 1/3 + 1/6 + 1/5 = 7/10. (Taking the
// tied positive before its negatives would give 13/15 instead.) Accuracy at 0.5 (scores >= 0.5 are
// positive): 0.1 and both tied negatives are wrong: 2/5.
const Matrix<double> kTiedScores = column({0.1, 0.5, 0.5, 0.5, 0.9});
const Matrix<double> kTiedLabels = column({1, 1, 0, 0, 1});

TEST(ClassificationMetricsTest, HandComputedWithoutTies) {
  const ClassificationMetrics m = classification_metrics(kPlainScores, kPlainLabels);
  ASSERT_EQ(m.tasks.size(), 1u);
  EXPECT_EQ(m.tasks[0].count, 4);
  EXPECT_EQ(m.tasks[0].positives, 2);
  EXPECT_DOUBLE_EQ(m.tasks[0].roc_auc, 0.75);
  EXPECT_DOUBLE_EQ(m.tasks[0].pr_auc, 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(m.tasks[0].accuracy, 0.75);
}

TEST(ClassificationMetricsTest, HandComputedWithTies) {
  const ClassificationMetrics m = classification_metrics(kTiedScores, kTiedLabels);
  EXPECT_DOUBLE_EQ(m.tasks[0].roc_auc, 0.5);
  EXPECT_DOUBLE_EQ(m.tasks[0].pr_auc, 0.7);
  EXPECT_DOUBLE_EQ(m.tasks[0].accuracy, 0.4);
  // Brier: (0.9^2 + 3 (0.5^2) + 0.1^2) / 5. Calibration error: the two rows of confidence 0.9 (of
  // 0.1 and 0.9) are right once, |1 - 1.8|; the three at 0.5 once, |1 - 1.5|: 1.3 / 5.
  EXPECT_NEAR(m.tasks[0].brier, 1.57 / 5, 1e-12);
  EXPECT_NEAR(m.tasks[0].ece, 1.3 / 5, 1e-12);
}

TEST(ClassificationMetricsTest, AllScoresTiedGiveChanceRocAndPrevalenceAp) {
  const ClassificationMetrics m = classification_metrics(column({0.3, 0.3, 0.3, 0.3}), column({1, 0, 0, 0}));
  EXPECT_DOUBLE_EQ(m.roc_auc, 0.5);
  EXPECT_DOUBLE_EQ(m.pr_auc, 0.25);
}

TEST(ClassificationMetricsTest, AucsDependOnlyOnTheScoreOrder) {
  Matrix<double> logits = kTiedScores;
  for (double& s : logits.reshaped()) s = std::log(s / (1 - s));
  const ClassificationMetrics m = classification_metrics(logits, kTiedLabels);
  EXPECT_DOUBLE_EQ(m.roc_auc, 0.5);
  EXPECT_DOUBLE_EQ(m.pr_auc, 0.7);
}

TEST(ClassificationMetricsTest, SingleClassTaskHasNanAucsAndIsLeftOutOfTheMeans) {
  // Task 0: the plain example (row 4 unlabelled); task 1: the tied example; task 2: positives
  // only, with accuracy 1/2 since 0.2 < 0.5.
  Matrix<double> scores(5, 3);
  Matrix<double> labels(5, 3);
  scores << 0.1, 0.1, 0.7,  //
      0.4, 0.5, 0.2,        //
      0.35, 0.5, 0.9,       //
      0.8, 0.5, 0.9,        //
      kNan, 0.9, 0.9;
  labels << 0, 1, 1,  //
      0, 1, 1,        //
      1, 0, kNan,     //
      1, 0, kNan,     //
      kNan, 1, kNan;
  const ClassificationMetrics m = classification_metrics(scores, labels);
  ASSERT_EQ(m.tasks.size(), 3u);
  EXPECT_EQ(m.tasks[0].count, 4);
  EXPECT_DOUBLE_EQ(m.tasks[0].roc_auc, 0.75);
  EXPECT_DOUBLE_EQ(m.tasks[1].pr_auc, 0.7);
  EXPECT_EQ(m.tasks[2].count, 2);
  EXPECT_EQ(m.tasks[2].positives, 2);
  EXPECT_TRUE(std::isnan(m.tasks[2].roc_auc));
  EXPECT_TRUE(std::isnan(m.tasks[2].pr_auc));
  EXPECT_DOUBLE_EQ(m.tasks[2].accuracy, 0.5);

  EXPECT_DOUBLE_EQ(m.roc_auc, (0.75 + 0.5) / 2);
  EXPECT_DOUBLE_EQ(m.pr_auc, (5.0 / 6.0 + 0.7) / 2);
  EXPECT_DOUBLE_EQ(m.accuracy, (0.75 + 0.4 + 0.5) / 3);
}

TEST(ClassificationMetricsTest, TaskWithoutLabelsIsAllNan) {
  const ClassificationMetrics m = classification_metrics(column({0.2, 0.9}), column({kNan, kNan}));
  EXPECT_EQ(m.tasks[0].count, 0);
  EXPECT_TRUE(std::isnan(m.roc_auc));
  EXPECT_TRUE(std::isnan(m.pr_auc));
  EXPECT_TRUE(std::isnan(m.accuracy));
}

TEST(ClassificationMetricsTest, RejectsNonBinaryLabelsNanScoresAndMismatchedShapes) {
  EXPECT_THROW(classification_metrics(column({0.2, 0.9}), column({0, 2})), ArgumentError);
  EXPECT_THROW(classification_metrics(column({0.2, 0.9}), column({0, 0.5})), ArgumentError);
  EXPECT_THROW(classification_metrics(column({0.2, kNan}), column({0, 1})), ArgumentError);
  EXPECT_THROW(classification_metrics(column({0.2, 0.9}), column({0, 1, 1})), ArgumentError);
}

// P(positive scores above negative) + P(tie) / 2 over all pairs.
double pairwise_roc_auc(const std::vector<double>& scores, const std::vector<double>& labels) {
  double wins = 0;
  double pairs = 0;
  for (std::size_t i = 0; i < scores.size(); ++i)
    for (std::size_t j = 0; j < scores.size(); ++j) {
      if (labels[i] != 1 || labels[j] != 0) continue;
      wins += scores[i] > scores[j] ? 1.0 : scores[i] == scores[j] ? 0.5 : 0.0;
      pairs += 1;
    }
  return wins / pairs;
}

// Sum over the distinct scores t, from the highest, of (R(t) - R(t')) P(t), where R and P are the
// recall and precision of predicting positive at score >= t and t' is the previous threshold.
double thresholded_average_precision(const std::vector<double>& scores, const std::vector<double>& labels) {
  const std::set<double> thresholds(scores.begin(), scores.end());
  const double positives = static_cast<double>(std::count(labels.begin(), labels.end(), 1.0));
  double previous_recall = 0;
  double sum = 0;
  for (auto t = thresholds.rbegin(); t != thresholds.rend(); ++t) {
    double true_positives = 0;
    double taken = 0;
    for (std::size_t i = 0; i < scores.size(); ++i) {
      if (scores[i] < *t) continue;
      taken += 1;
      true_positives += labels[i];
    }
    const double recall = true_positives / positives;
    sum += (recall - previous_recall) * true_positives / taken;
    previous_recall = recall;
  }
  return sum;
}

TEST(ClassificationMetricsTest, AucsMatchDirectDefinitionsOnRandomTiedScores) {
  SplitMix64 rng(7);
  for (Index size : {2, 3, 10, 57, 200}) {
    std::vector<double> scores(static_cast<std::size_t>(size));
    std::vector<double> labels(scores.size());
    for (std::size_t i = 0; i < scores.size(); ++i) {
      scores[i] = static_cast<double>(rng.below(6)) / 5.0;  // 6 distinct values: many ties
      labels[i] = static_cast<double>(rng.below(2));
    }
    labels[0] = 0;  // both classes present
    labels[1] = 1;
    const ClassificationMetrics m = classification_metrics(Matrix<double>(ConstMatrixMap<double>(scores.data(), size, 1)),
                                                           Matrix<double>(ConstMatrixMap<double>(labels.data(), size, 1)));
    EXPECT_NEAR(m.roc_auc, pairwise_roc_auc(scores, labels), 1e-12) << "size " << size;
    EXPECT_NEAR(m.pr_auc, thresholded_average_precision(scores, labels), 1e-12) << "size " << size;
  }
}

// --- Metric selection -----------------------------------------------------------------------------

TEST(MainMetricTest, PicksTheMeanAndItsDirection) {
  const RegressionMetrics regression = regression_metrics(column({2.5, 0.0, 2.0, 8.0}), column({3.0, -0.5, 2.0, 7.0}));
  const ClassificationMetrics classification = classification_metrics(kPlainScores, kPlainLabels);

  const MetricValue rmse = main_metric(regression, "rmse");
  EXPECT_DOUBLE_EQ(rmse.value, kHandRmse);
  EXPECT_FALSE(rmse.larger_is_better);
  EXPECT_FALSE(main_metric(regression, "mae").larger_is_better);
  EXPECT_DOUBLE_EQ(main_metric(regression, "r2").value, kHandR2);
  EXPECT_TRUE(main_metric(regression, "r2").larger_is_better);

  const MetricValue roc = main_metric(classification, "roc_auc");
  EXPECT_DOUBLE_EQ(roc.value, 0.75);
  EXPECT_TRUE(roc.larger_is_better);
  EXPECT_DOUBLE_EQ(main_metric(classification, "pr_auc").value, 5.0 / 6.0);
  EXPECT_TRUE(main_metric(classification, "accuracy").larger_is_better);
}

TEST(MainMetricTest, RejectsUnknownNamesAndMetricsOfTheOtherKind) {
  EXPECT_THROW(larger_is_better("auc"), ArgumentError);
  const RegressionMetrics regression = regression_metrics(column({1.0, 2.0}), column({1.0, 3.0}));
  const ClassificationMetrics classification = classification_metrics(kPlainScores, kPlainLabels);
  EXPECT_THROW(main_metric(regression, "roc_auc"), ArgumentError);
  EXPECT_THROW(main_metric(classification, "rmse"), ArgumentError);
  EXPECT_THROW(main_metric(classification, "RMSE"), ArgumentError);
}

// --- Node classification --------------------------------------------------------------------------

TEST(NodeClassificationMetricsTest, HandComputedThreeClasses) {
  // Node 7 has true class -1 and is ignored. Class 3 occurs nowhere and is left out of macro-F1.
  //   truth:     0 0 0 1 1 2 2
  //   predicted: 0 0 1 1 2 2 2   correct at nodes 0, 1, 3, 5, 6: accuracy 5/7
  //   class 0: TP 2, predicted 2, support 3: P = 1,   R = 2/3, F1 = 2·2 / (3 + 2) = 4/5
  //   class 1: TP 1, predicted 2, support 2: P = 1/2, R = 1/2, F1 = 2·1 / (2 + 2) = 1/2
  //   class 2: TP 2, predicted 3, support 2: P = 2/3, R = 1,   F1 = 2·2 / (2 + 3) = 4/5
  //   macro-F1 = (4/5 + 1/2 + 4/5) / 3 = 7/10
  const std::vector<Index> truth = {0, 0, 0, 1, 1, 2, 2, -1};
  const std::vector<Index> predicted = {0, 0, 1, 1, 2, 2, 2, 3};
  const NodeClassificationMetrics m = node_classification_metrics(predicted, truth, 4);
  EXPECT_EQ(m.count, 7);
  EXPECT_DOUBLE_EQ(m.accuracy, 5.0 / 7.0);
  EXPECT_DOUBLE_EQ(m.macro_f1, 0.7);
  ASSERT_EQ(m.classes.size(), 4u);

  const double expected[3][3] = {{1.0, 2.0 / 3.0, 0.8}, {0.5, 0.5, 0.5}, {2.0 / 3.0, 1.0, 0.8}};
  const Index support[3] = {3, 2, 2};
  const Index predicted_counts[3] = {2, 2, 3};
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(m.classes[c].support, support[c]) << "class " << c;
    EXPECT_EQ(m.classes[c].predicted, predicted_counts[c]) << "class " << c;
    EXPECT_DOUBLE_EQ(m.classes[c].precision, expected[c][0]) << "class " << c;
    EXPECT_DOUBLE_EQ(m.classes[c].recall, expected[c][1]) << "class " << c;
    EXPECT_DOUBLE_EQ(m.classes[c].f1, expected[c][2]) << "class " << c;
  }
  EXPECT_EQ(m.classes[3].support, 0);
  EXPECT_EQ(m.classes[3].predicted, 0);
  EXPECT_TRUE(std::isnan(m.classes[3].f1));
}

TEST(NodeClassificationMetricsTest, ClassOnlyPredictedOrOnlyTrueCountsAsZeroF1) {
  // Class 1 is predicted but never true; class 2 is true but never predicted. Class 0: TP 1,
  // predicted 1, support 1: F1 = 1. Macro-F1 = (1 + 0 + 0) / 3.
  const std::vector<Index> truth = {0, 2};
  const std::vector<Index> predicted = {0, 1};
  const NodeClassificationMetrics m = node_classification_metrics(predicted, truth, 3);
  EXPECT_DOUBLE_EQ(m.accuracy, 0.5);
  EXPECT_EQ(m.classes[1].precision, 0.0);
  EXPECT_EQ(m.classes[1].recall, 0.0);
  EXPECT_EQ(m.classes[1].f1, 0.0);
  EXPECT_EQ(m.classes[2].precision, 0.0);
  EXPECT_EQ(m.classes[2].recall, 0.0);
  EXPECT_EQ(m.classes[2].f1, 0.0);
  EXPECT_DOUBLE_EQ(m.macro_f1, 1.0 / 3.0);
}

TEST(NodeClassificationMetricsTest, NoScoredNodeGivesNan) {
  const std::vector<Index> truth = {-1, -1};
  const std::vector<Index> predicted = {0, 1};
  const NodeClassificationMetrics m = node_classification_metrics(predicted, truth, 2);
  EXPECT_EQ(m.count, 0);
  EXPECT_TRUE(std::isnan(m.accuracy));
  EXPECT_TRUE(std::isnan(m.macro_f1));
}

TEST(NodeClassificationMetricsTest, RejectsOutOfRangeClassesAndLengthMismatch) {
  const std::vector<Index> truth = {0, 1};
  EXPECT_THROW(node_classification_metrics(std::vector<Index>{0, 2}, truth, 2), ArgumentError);
  EXPECT_THROW(node_classification_metrics(std::vector<Index>{0, -1}, truth, 2), ArgumentError);
  EXPECT_THROW(node_classification_metrics(std::vector<Index>{0, 1}, std::vector<Index>{0, 5}, 2), ArgumentError);
  EXPECT_THROW(node_classification_metrics(std::vector<Index>{0}, truth, 2), ArgumentError);
}

}  // namespace
}  // namespace edgewise
