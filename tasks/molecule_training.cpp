#include "edgewise/tasks/molecule_training.hpp"

#include <cmath>
#include <sstream>

#include "edgewise/core/error.hpp"
#include "edgewise/core/log.hpp"

namespace edgewise {

std::string early_stopping_metric(const TrainingOptions& training, TaskType type) {
  if (!training.metric.empty()) return training.metric;
  return type == TaskType::regression ? "rmse" : "roc_auc";
}

std::vector<std::pair<std::string, double>> MoleculeMetrics::means(const std::string& prefix) const {
  if (regression)
    return {{prefix + " rmse", regression->rmse}, {prefix + " mae", regression->mae}, {prefix + " r2", regression->r2}};
  return {{prefix + " roc_auc", classification->roc_auc},
          {prefix + " pr_auc", classification->pr_auc},
          {prefix + " accuracy", classification->accuracy}};
}

MoleculeMetrics molecule_metrics(const MoleculeModel& model, const MoleculeSet& set) {
  MoleculeMetrics metrics{.predictions = model.predict(set.molecules)};
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
    throw Error(source + ": target '" + data.tasks[static_cast<std::size_t>(t)] + "' has no labels: it is missing " +
                "(empty) for all " + std::to_string(data.size()) + " molecules read");
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

TrainedMoleculeModel train_molecule_model(const MoleculeDataset& data, const Split& split, MoleculeTrainingPlan plan) {
  const MoleculeSet train = molecule_set(data, split.train), validation = molecule_set(data, split.val);
  const Index training_molecules = static_cast<Index>(train.molecules.size());
  const TrainingBudget budget = default_training_budget(training_molecules);
  plan.config.tasks = data.tasks;
  if (plan.budget_ensemble) plan.config.ensemble = budget.ensemble;
  if (plan.budget_epochs) plan.training.epochs = budget.epochs;
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
