/// \file
/// Training a molecule model as `edgewise train --task graph` does, for every front end (the
/// command-line tool, `edgewise tune`, the Python module): the training set's size picks the
/// ensemble and the epoch limit unless they are given, then each member trains with early stopping.
///
///   MoleculeDataset data = molecules_from_smiles(smiles, targets, {"logS"}, InvalidMoleculePolicy::fail,
///                                                default_molecule_config().featurizer);
///   Split split = random_split(data.size(), 0.8, 0.1, seed);
///   TrainedMoleculeModel trained = train_molecule_model(data, split, {});
///   trained.model.save("logs.ew");
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "edgewise/datasets/splits.hpp"
#include "edgewise/tasks/molecule_model.hpp"

namespace edgewise {

/// What train_molecule_model builds and how it trains. Members left out of a designated initializer
/// take the defaults of `edgewise train --task graph`.
struct MoleculeTrainingPlan {
  MoleculeModelConfig config = default_molecule_config();  ///< its tasks are set from the data
  TrainingOptions training = {};  ///< task_type is set from config
  bool budget_ensemble = true;    ///< config.ensemble from default_training_budget of the training set's size
  bool budget_epochs = true;      ///< training.epochs likewise
  CheckpointOptions checkpoints = {};
  /// Called after every epoch of every member, on the calling thread; may throw to stop training.
  std::function<void(Index member, const EpochReport&)> on_epoch = {};
};

/// A trained model and how its training went.
struct TrainedMoleculeModel {
  MoleculeModel model;
  TrainingOptions training;             ///< as trained: the budget's epoch limit applied
  std::vector<TrainingResult> results;  ///< one per member of the ensemble
};

/// The early-stopping metric of `training`: its metric, else "rmse" for regression and "roc_auc" for
/// classification.
std::string early_stopping_metric(const TrainingOptions& training, TaskType type);

/// Throws ParseError naming `source`, the molecule's line and the value for a classification target
/// other than 0, 1 or missing.
void check_classification_targets(const MoleculeDataset& data, const std::string& source);

/// Builds plan.config for data's tasks, initializes it from plan.training.seed and fits it on
/// split.train, stopping early on split.val (positions among data's molecules). Logs on
/// plan.training.log the ensemble size and epoch limit (verbose), the parameter count and each
/// member's best epoch. Throws what MoleculeModel's constructor and fit throw.
TrainedMoleculeModel train_molecule_model(const MoleculeDataset& data, const Split& split, MoleculeTrainingPlan plan);

}  // namespace edgewise
