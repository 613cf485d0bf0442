/// \file
/// Training a molecule model as `edgewise train --task molecule` does, for every front end (the
/// command-line tool, `edgewise tune`, the Python module): the training set's size picks the
/// ensemble and the epoch limit unless they are given, then each member trains with early stopping.
///
///   MoleculeDataset data = molecules_from_smiles(smiles, targets, {"logS"}, InvalidMoleculePolicy::fail,
///                                                default_molecule_config().featurizer);
///   Split split = random_split(data.size(), 0.8, 0.1, seed);
///   TrainedMoleculeModel trained = train_molecule_model(data, split, {});
///   trained.model.save("logs.ew");
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "edgewise/core/log.hpp"
#include "edgewise/splits/splits.hpp"
#include "edgewise/models/metrics.hpp"
#include "edgewise/tasks/common/split_spec.hpp"
#include "edgewise/tasks/molecule/molecule_model.hpp"

namespace edgewise {

/// What train_molecule_model builds and how it trains. Members left out of a designated initializer
/// take the defaults of `edgewise train --task molecule`.
struct MoleculeTrainingPlan {
  MoleculeModelConfig config = default_molecule_config();  ///< its tasks are set from the data
  TrainingOptions training = {};  ///< task_type is set from config
  bool budget_ensemble = true;    ///< config.ensemble from default_training_budget of the training set's size
  bool budget_epochs = true;      ///< training.epochs likewise
  bool default_spread = true;     ///< config.spread from default_spread
  CheckpointOptions checkpoints = {};  ///< where and how often to write checkpoints, and one to resume
  /// Called after every epoch of every member, on the calling thread; may throw to stop training.
  std::function<void(Index member, const EpochReport&)> on_epoch = {};
};

/// The spread a model gets unless one is chosen: mean-variance networks (SpreadMethod::mve) for
/// regression with at least two labelled calibration molecules a task; else none. Cross-validated,
/// they predict as well as networks without a variance and rank their errors better than the
/// ensemble's spread does (docs/uncertainty.md).
SpreadMethod default_spread(const MoleculeModelConfig& config, const MoleculeSet& calibration);

/// A trained model and how its training went.
struct TrainedMoleculeModel {
  MoleculeModel model;                  ///< trained, without a training summary
  TrainingOptions training;             ///< as trained: the budget's epoch limit applied
  std::vector<TrainingResult> results;  ///< one per member of the ensemble
};

/// How well a model predicts a set of molecules: the metrics of its task type.
struct MoleculeMetrics {
  Matrix<float> predictions;                      ///< [M, T], as MoleculeModel::predict gives them
  std::optional<RegressionMetrics> regression = {};    ///< set for a regression model
  std::optional<ClassificationMetrics> classification = {};  ///< set for a classification model

  /// The metrics' names: rmse, mae and r2, or roc_auc, pr_auc and accuracy.
  std::vector<std::string> names() const;
  /// Task t's labels scored, and its metrics in names() order.
  std::pair<Index, std::vector<double>> task(std::size_t t) const;
  /// The means over tasks in names() order.
  std::vector<double> mean_values() const;
  /// The means over tasks, each named "<prefix> <metric>".
  std::vector<std::pair<std::string, double>> means(const std::string& prefix) const;
};

/// The model's predictions of `set`'s molecules, and their raw spread when the model has a calibrated
/// one (else raw_spread is empty): one pass of the networks for the scores below.
SpreadPredictions predict_set(const MoleculeModel& model, const MoleculeSet& set);

/// The model's predictions on `set` scored against its targets.
MoleculeMetrics molecule_metrics(const MoleculeModel& model, const MoleculeSet& set);
/// The same with the predictions (predict_set's values) given.
MoleculeMetrics molecule_metrics(const MoleculeModel& model, const MoleculeSet& set, const Matrix<float>& predictions);

/// A calibrated model's uncertainty on `set`, one entry per task: the standard deviations and the
/// split-conformal intervals of `coverage` of its predictions (predict_set's) scored against the
/// targets. Throws ArgumentError for a model without a calibrated spread and for what
/// SpreadCalibration::half_width refuses.
std::vector<UncertaintyScores> molecule_uncertainty(const MoleculeModel& model, const MoleculeSet& set,
                                                    const SpreadPredictions& predicted, double coverage);

/// A calibrated model's calibration curve on `set` from its predictions (predict_set's), one entry
/// per task (calibration_curve). Throws ArgumentError for a model without a calibrated spread.
std::vector<CalibrationCurve> molecule_calibration_curves(const MoleculeModel& model, const MoleculeSet& set,
                                                          const SpreadPredictions& predicted);

/// Throws ArgumentError naming `source` and the task when no molecule of `data` has a label for one
/// of its tasks (an empty column, an SD data field no record has): nothing to train it on.
void check_targets_labelled(const MoleculeDataset& data, const std::string& source);

/// Throws ParseError naming `source`, the molecule's line and the value for a classification target
/// other than 0, 1 or missing.
void check_classification_targets(const MoleculeDataset& data, const std::string& source);

/// The split `spec` (tasks/common/split_spec.hpp) names of `data`'s molecules, as positions among
/// them, seeded by `seed`. A scaffold split of classification targets balances the classes over the
/// parts. A folder's rows whose molecules were skipped are reported on `log` and left out.
Split make_molecule_split(const SplitSpec& spec, const MoleculeDataset& data, TaskType type, std::uint64_t seed,
                          std::ostream& log);

/// The model file's record of a training on `examples` molecules of `data_name`, split as `split`
/// says: the seed, the epoch limit, and each member's epochs and best validation metric.
TrainingSummary molecule_training_summary(const TrainedMoleculeModel& trained, const std::string& data_name,
                                          Index examples, const std::string& split);

/// Builds plan.config for data's tasks, initializes it from plan.training.seed and fits it on
/// split.train, stopping early on split.val (positions among data's molecules). Then calibrates the
/// spread (plan.config.spread) and a classifier's probabilities on `calibration`, labelled molecules
/// of data's tasks, or without it on split.val. Logs on plan.training.log the data's size and split,
/// the ensemble size and epoch limit (verbose), the parameter count and each member's best epoch.
/// Throws what MoleculeModel's constructor, fit and calibrate throw.
TrainedMoleculeModel train_molecule_model(const MoleculeDataset& data, const Split& split, MoleculeTrainingPlan plan,
                                          const MoleculeDataset* calibration = nullptr);

}  // namespace edgewise
