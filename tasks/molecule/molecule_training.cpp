#include "edgewise/tasks/molecule/molecule_training.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <ostream>
#include <sstream>

#include "edgewise/core/error.hpp"
#include "edgewise/core/log.hpp"
#include "edgewise/chem/scaffold.hpp"

namespace edgewise {

std::vector<std::string> MoleculeMetrics::names() const {
  if (regression) return {"rmse", "mae", "r2"};
  return {"roc_auc", "pr_auc", "accuracy", "brier", "ece"};
}

std::pair<Index, std::vector<double>> MoleculeMetrics::task(std::size_t t) const {
  if (regression) {
    const RegressionTaskMetrics& m = regression->tasks[t];
    return {m.count, {m.rmse, m.mae, m.r2}};
  }
  const ClassificationTaskMetrics& m = classification->tasks[t];
  return {m.count, {m.roc_auc, m.pr_auc, m.accuracy, m.brier, m.ece}};
}

std::vector<double> MoleculeMetrics::mean_values() const {
  if (regression) return {regression->rmse, regression->mae, regression->r2};
  return {classification->roc_auc, classification->pr_auc, classification->accuracy, classification->brier,
          classification->ece};
}

std::vector<std::pair<std::string, double>> MoleculeMetrics::means(const std::string& prefix) const {
  std::vector<std::pair<std::string, double>> named;
  const std::vector<double> values = mean_values();
  for (const std::string& name : names()) named.emplace_back(prefix + " " + name, values[named.size()]);
  return named;
}

SpreadPredictions predict_set(const MoleculeModel& model, const MoleculeSet& set) {
  if (model.config().calibration.empty()) return {.values = model.predict(set.molecules), .raw_spread = {}};
  return model.predict_with_spread(set.molecules);
}

MoleculeMetrics molecule_metrics(const MoleculeModel& model, const MoleculeSet& set) {
  return molecule_metrics(model, set, model.predict(set.molecules));
}

MoleculeMetrics molecule_metrics(const MoleculeModel& model, const MoleculeSet& set, const Matrix<float>& predictions) {
  MoleculeMetrics metrics{.predictions = predictions};
  if (model.config().task_type == TaskType::regression) {
    metrics.regression = regression_metrics(metrics.predictions, set.targets);
  } else {
    metrics.classification = classification_metrics(metrics.predictions, set.targets);
  }
  return metrics;
}

void check_targets_labelled(const MoleculeDataset& data, const std::string& source) {
  for (Index t = 0; t < data.targets.cols(); ++t) {
    if (!data.targets.col(t).array().isNaN().all()) continue;
    throw ArgumentError(source + ": target '" + data.tasks[static_cast<std::size_t>(t)] +
                        "' has no labels: it is missing (empty) for all " + std::to_string(data.size()) +
                        " molecules read");
  }
}

void check_classification_targets(const MoleculeDataset& data, const std::string& source) {
  for (Index m = 0; m < data.targets.rows(); ++m) {
    for (Index t = 0; t < data.targets.cols(); ++t) {
      const float y = data.targets(m, t);
      if (!std::isnan(y) && y != 0.0f && y != 1.0f) {
        throw ParseError(source, data.lines[static_cast<std::size_t>(m)], std::to_string(y),
                         "classification target '" + data.tasks[static_cast<std::size_t>(t)] +
                             "' must be 0 or 1 (or empty for a missing label)");
      }
    }
  }
}

namespace {

// "'p_np' (203 labels, all 1)" for each task whose labels among `rows` are of one class (or absent).
std::vector<std::string> one_class_tasks(const MoleculeDataset& data, std::span<const Index> rows) {
  std::vector<std::string> found;
  for (Index task = 0; task < data.targets.cols(); ++task) {
    Index labels = 0, positives = 0;
    for (const Index row : rows) {
      const float y = data.targets(row, task);
      if (std::isnan(y)) continue;
      ++labels;
      positives += y > 0.5f;
    }
    if (positives > 0 && positives < labels) continue;
    const std::string name = "'" + data.tasks[static_cast<std::size_t>(task)] + "'";
    const std::string label_counts = std::to_string(labels) + " labels, all " + (positives > 0 ? "1" : "0");
    found.push_back(name + " (" + (labels == 0 ? "no labels" : label_counts) + ")");
  }
  return found;
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// A classification part whose every task has one class cannot be measured (ROC-AUC is undefined):
// the run stops before training. Tasks of one class among others are left out of the part's metrics.
void check_classes(const MoleculeDataset& data, std::span<const Index> rows, const std::string& part,
                   const Logger& log) {
  if (rows.empty()) return;
  const std::vector<std::string> tasks = one_class_tasks(data, rows);
  if (tasks.size() == data.tasks.size())
    throw ArgumentError("the " + part + " part (" + std::to_string(rows.size()) +
                        " molecules) holds one class only of " + (tasks.size() == 1 ? "its task " : "every task: ") +
                        joined(tasks) +
                        ", so its ROC-AUC is undefined and the model could not be measured; choose another split "
                        "(--split random, a folder of split files, or other --split-sizes)");
  if (!tasks.empty())
    log.normal("warning: the " + part + " part holds one class only of " + joined(tasks) +
               "; its metrics leave these tasks out");
}

// Once per training, however many members overfit.
void warn_if_overfitting(const std::vector<TrainingResult>& results, Index epoch_limit, const std::string& metric,
                         const Logger& log) {
  const bool larger_better = larger_is_better(metric);
  const auto overfit = std::ranges::find_if(
      results, [&](const TrainingResult& result) { return overfits(result, epoch_limit, larger_better); });
  if (overfit == results.end()) return;
  log.normal("warning: the validation " + metric + " was at its best in epoch " + std::to_string(overfit->best_epoch) +
             " of " + std::to_string(overfit->epochs_run) +
             " and worsened steadily after it while the training loss fell: the network overfits its training "
             "molecules. Options that usually help: --dropout 0.2, --weight-decay 0.01, a smaller --hidden or fewer "
             "--layers, more training molecules; for a property that grows with the molecule (a surface area, a "
             "count of groups), a --readout that sums over the atoms (mean_sum, the default, or sum)");
}

// Split-file rows whose molecules were skipped: how many per part, and the first few.
void report_skipped_split_rows(const std::vector<SkippedSplitRow>& skipped, std::ostream& log) {
  if (skipped.empty()) return;
  std::map<std::string, std::size_t> per_part;
  for (const SkippedSplitRow& row : skipped) ++per_part[row.part];
  log << "the split lists " << skipped.size() << " row" << (skipped.size() == 1 ? "" : "s")
      << " whose molecules were skipped (";
  for (auto part = per_part.begin(); part != per_part.end(); ++part)
    log << (part == per_part.begin() ? "" : ", ") << part->first << " " << part->second;
  log << "); they are left out:\n";
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < std::min(kShown, skipped.size()); ++i) {
    const SkippedMolecule& molecule = skipped[i].molecule;
    log << "  " << skipped[i].part << " row " << molecule.row << " (line " << molecule.line << "): " << molecule.reason
        << '\n';
  }
  if (skipped.size() > kShown) log << "  ... and " << skipped.size() - kShown << " more\n";
}

// Throws ArgumentError for an empty training part and, for classification, for a validation or test
// part whose labels are of one class in every task (check_classes).
void check_split_measurable(const MoleculeDataset& data, const Split& split, TaskType type, const Logger& log) {
  if (split.train.empty()) throw ArgumentError("the split leaves no training molecules (" + part_sizes(split) + ")");
  if (type != TaskType::classification) return;
  check_classes(data, split.val, "validation", log);
  check_classes(data, split.test, "test", log);
}

// Which tasks calibration changed, and how, for --verbose logs.
std::string probability_calibration_text(const MoleculeModel& model, const std::string& part) {
  const std::vector<BinaryCalibration>& tasks = model.config().probability_calibration;
  const auto isotonic = std::ranges::count_if(tasks, [](const BinaryCalibration& task) { return !task.isotonic.empty(); });
  const auto scaled = std::ranges::count_if(tasks, [](const BinaryCalibration& task) { return !task.is_identity(); });
  return "probabilities calibrated on the " + part + ": of " + std::to_string(tasks.size()) + " task(s), " +
         std::to_string(scaled - isotonic) + " Platt-scaled, " + std::to_string(isotonic) +
         " by isotonic regression, the others kept as they were (calibration fitted on half its molecules did not "
         "help the other half)";
}

// One task's targets, predictions, raw spreads and calibrated standard deviations on a set.
struct TaskSpread {
  std::vector<float> targets, values, raw, sigma;
};

std::vector<TaskSpread> task_spreads(const MoleculeModel& model, const MoleculeSet& set,
                                     const SpreadPredictions& predicted) {
  const std::vector<SpreadCalibration>& calibration = model.config().calibration;
  if (calibration.empty())
    throw ArgumentError("the model has no calibrated spread; train it with --uncertainty " + spread_method_choices());
  EDGEWISE_CHECK(predicted.raw_spread.rows() == predicted.values.rows() &&
                 predicted.values.rows() == set.targets.rows());
  std::vector<TaskSpread> tasks(static_cast<std::size_t>(predicted.values.cols()));
  for (Index t = 0; t < predicted.values.cols(); ++t) {
    TaskSpread& task = tasks[static_cast<std::size_t>(t)];
    for (Index m = 0; m < predicted.values.rows(); ++m) {
      const float raw = predicted.raw_spread(m, t);
      task.targets.push_back(set.targets(m, t));
      task.values.push_back(predicted.values(m, t));
      task.raw.push_back(raw);
      task.sigma.push_back(static_cast<float>(calibration[static_cast<std::size_t>(t)].sigma(raw)));
    }
  }
  return tasks;
}

}  // namespace

Split make_molecule_split(const SplitSpec& spec, const MoleculeDataset& data, TaskType type, std::uint64_t seed,
                          std::ostream& log) {
  const SplitFractions& f = spec.fractions;
  switch (spec.kind) {
    case SplitKind::random:
      return random_split(data.size(), f.train, f.val, seed);
    case SplitKind::scaffold:
      if (type == TaskType::classification)
        return class_balanced_scaffold_split(data.smiles, data.targets, f.train, f.val, seed);
      return scaffold_split(data.smiles, f.train, f.val);
    case SplitKind::folder: {
      std::vector<SkippedSplitRow> skipped;
      Split molecules =
          molecule_split(read_split_directory(spec.folder, static_cast<Index>(data.source_rows)), data, &skipped);
      report_skipped_split_rows(skipped, log);
      return molecules;
    }
    default:
      throw ArgumentError("split '" + spec.text + "' applies to node classification, not to molecules");
  }
}

std::vector<UncertaintyScores> molecule_uncertainty(const MoleculeModel& model, const MoleculeSet& set,
                                                    const SpreadPredictions& predicted, double coverage) {
  std::vector<UncertaintyScores> scores;
  const std::vector<TaskSpread> tasks = task_spreads(model, set, predicted);
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const TaskSpread& task = tasks[t];
    const SpreadCalibration& calibration = model.config().calibration[t];
    std::vector<float> lower, upper;
    for (std::size_t m = 0; m < task.values.size(); ++m) {
      const auto half = static_cast<float>(calibration.half_width(task.raw[m], coverage));  // in float, as predict writes them
      lower.push_back(task.values[m] - half);
      upper.push_back(task.values[m] + half);
    }
    scores.push_back(score_uncertainty(task.targets, task.values, task.sigma, lower, upper));
  }
  return scores;
}

std::vector<CalibrationCurve> molecule_calibration_curves(const MoleculeModel& model, const MoleculeSet& set,
                                                          const SpreadPredictions& predicted) {
  std::vector<CalibrationCurve> curves;
  for (const TaskSpread& task : task_spreads(model, set, predicted))
    curves.push_back(calibration_curve(task.targets, task.values, task.sigma));
  return curves;
}

namespace {

// What 90 % intervals can promise with the model's fewest calibration molecules of a task
// (conformal_coverage_range), for the log.
std::string interval_promise(const MoleculeModel& model) {
  constexpr double kCoverage = 0.9;
  std::size_t rows = std::numeric_limits<std::size_t>::max();
  for (const SpreadCalibration& task : model.config().calibration) rows = std::min(rows, task.scores.size());
  if (rows < conformal_rows_needed(kCoverage))
    return ", too few for 90 % intervals, which need " + std::to_string(conformal_rows_needed(kCoverage));
  const auto [low, high] = conformal_coverage_range(rows, kCoverage);
  return ": 90 % intervals will hold " + std::to_string(static_cast<int>(std::floor(100 * low))) + " to " +
         std::to_string(static_cast<int>(std::ceil(100 * high))) + " % of molecules like them, 9 times in 10";
}

}  // namespace

SpreadMethod default_spread(const MoleculeModelConfig& config, const MoleculeSet& calibration) {
  if (config.task_type != TaskType::regression) return SpreadMethod::none;
  const auto labelled = (calibration.targets.array() == calibration.targets.array()).colwise().count();  // not NaN
  return labelled.size() > 0 && labelled.minCoeff() >= 2 ? SpreadMethod::mve : SpreadMethod::none;
}

TrainedMoleculeModel train_molecule_model(const MoleculeDataset& data, const Split& split, MoleculeTrainingPlan plan,
                                          const MoleculeDataset* calibration) {
  check_split_measurable(data, split, plan.config.task_type, Logger(plan.training.log));
  if (plan.config.spread != SpreadMethod::none && !calibration && split.val.size() < 2)
    throw ArgumentError("--uncertainty " + name_of(kSpreadMethodNames, plan.config.spread) +
                        " calibrates on the validation part, which has " + std::to_string(split.val.size()) +
                        " molecules: give it some (--split-sizes)");
  const MoleculeSet train = molecule_set(data, split.train), validation = molecule_set(data, split.val);
  const MoleculeSet calibration_set = calibration ? molecule_set(*calibration) : validation;
  const std::string calibration_part = calibration ? "calibration file" : "validation part";
  const Index training_molecules = static_cast<Index>(train.molecules.size());
  const TrainingBudget budget = default_training_budget(training_molecules);
  plan.config.tasks = data.tasks;
  if (plan.budget_ensemble) plan.config.ensemble = budget.ensemble;
  if (plan.budget_epochs) plan.training.epochs = budget.epochs;
  if (plan.default_spread) plan.config.spread = default_spread(plan.config, calibration_set);
  const Logger log(plan.training.log);
  log.normal(std::to_string(data.size()) + " molecules, " + std::to_string(data.tasks.size()) + " task" +
             (data.tasks.size() == 1 ? "" : "s") + "; split " + part_sizes(split));
  log.verbose("ensemble of " + std::to_string(plan.config.ensemble) + ", up to " +
              std::to_string(plan.training.epochs) + " epochs each; the defaults for " +
              std::to_string(training_molecules) + " training molecules: " + std::to_string(budget.ensemble) +
              " and " + std::to_string(budget.epochs));
  MoleculeModel model(plan.config);
  model.initialize(plan.training.seed);
  log.normal("model: " + std::to_string(model.num_parameters()) + " parameters");
  std::vector<TrainingResult> results = model.fit(train, validation, plan.training, plan.on_epoch, plan.checkpoints);
  const std::string metric = early_stopping_metric(plan.training, plan.config.task_type);
  for (const TrainingResult& result : results) {
    std::ostringstream line;
    line << "best epoch " << result.best_epoch << " (validation " << metric << " " << result.best_validation << ")";
    log.normal(line.str());
  }
  warn_if_overfitting(results, plan.training.epochs, metric, log);
  if (plan.config.spread != SpreadMethod::none) {
    model.calibrate(calibration_set);
    log.normal("spread calibrated on the " + std::to_string(calibration_set.molecules.size()) + " molecules of the " +
               calibration_part + interval_promise(model));
  }
  if (plan.config.task_type == TaskType::classification && !calibration_set.molecules.empty()) {
    model.calibrate_probabilities(calibration_set);
    log.verbose(probability_calibration_text(model, calibration_part));
  }
  return {std::move(model), std::move(plan.training), std::move(results)};
}

TrainingSummary molecule_training_summary(const TrainedMoleculeModel& trained, const std::string& data_name,
                                          Index examples, const std::string& split) {
  TrainingSummary summary{.data = data_name,
                          .examples = examples,
                          .split = split,
                          .seed = trained.training.seed,
                          .max_epochs = trained.training.epochs};
  const std::string metric = early_stopping_metric(trained.training, trained.model.config().task_type);
  const std::vector<TrainingResult>& results = trained.results;
  for (std::size_t k = 0; k < results.size(); ++k) {
    summary.epochs_run.push_back(results[k].epochs_run);
    summary.best_epochs.push_back(results[k].best_epoch);
    const std::string member = results.size() > 1 ? " (member " + std::to_string(k + 1) + ")" : "";
    summary.metrics.emplace_back("validation " + metric + member, results[k].best_validation);
  }
  return summary;
}

}  // namespace edgewise
