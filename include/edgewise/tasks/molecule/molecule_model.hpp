/// \file
/// A trained molecule property model as one object: featurizer, network, target names and scaling,
/// task type. Saved to and loaded from one model file, so that prediction encodes molecules exactly
/// as training did.
///
///   MoleculeModel model(config);            // or MoleculeModel::load("esol.ew")
///   model.initialize(seed);
///   model.fit(molecule_set(data, split.train), molecule_set(data, split.val), options);
///   Matrix<float> y = model.predict_smiles({"CCO", "c1ccccc1"}).values;
///   model.save("esol.ew");
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "edgewise/core/files.hpp"
#include "edgewise/chem/molecule.hpp"
#include "edgewise/chem/molecule_dataset.hpp"
#include "edgewise/models/checkpoint.hpp"
#include "edgewise/models/molecule_predictor_training.hpp"
#include "edgewise/models/model_file.hpp"
#include "edgewise/models/uncertainty.hpp"
#include "edgewise/tasks/common/model.hpp"

namespace edgewise {

/// The "kind" of a molecule model's configuration in its model file.
inline constexpr std::string_view kMoleculeModelKind = "molecule-property";

/// Input rows MoleculeModel::predict_smiles parses, and batches the valid molecules of, together.
inline constexpr std::uint64_t kPredictionWindowRows = 1024;

/// Everything a molecule model file records besides the weights.
struct MoleculeModelConfig {
  FeaturizerSpec featurizer;  ///< How SMILES become graphs, saved so prediction featurizes as training did.
  MoleculePredictorOptions network;  ///< node_dim, edge_dim and tasks are set from the featurizer and tasks
  TaskType task_type = TaskType::regression;  ///< Regression or binary classification.
  std::vector<std::string> tasks;  ///< The target names, one per output.
  TargetScaling scaling;          ///< set by fit
  Index ensemble = 1;             ///< independently trained networks whose predictions are averaged
  /// Where predictions get a spread: none, or (regression, ensemble of 2 or more) the members'
  /// standard deviation, calibrated by MoleculeModel::calibrate.
  SpreadMethod spread = SpreadMethod::none;
  SpreadFit spread_fit = SpreadFit::crps;           ///< what calibrating the spread minimizes
  std::vector<SpreadCalibration> calibration = {};  ///< [T] once calibrated; empty before
  /// Classification: [T] calibrations of the probabilities (Platt or isotonic), set by
  /// calibrate_probabilities; empty before, and in files written without.
  std::vector<BinaryCalibration> probability_calibration = {};
};

/// The model `edgewise train --task molecule` builds when no tuning option is given, chosen by
/// cross-validation pooled over ESOL, Lipophilicity, BBBP and Tox21 (docs/defaults.md,
/// bench/tune_defaults): 3 blocks of width 64 with 4 heads of scaled dot-product attention, a mean
/// readout joined by RDKit's descriptors (standardized on the training set), and each atom's
/// Wildman-Crippen logP and molar-refractivity contributions among its features. The tasks and the
/// task type come from the data.
MoleculeModelConfig default_molecule_config();

/// How much training the defaults spend: networks in the ensemble and the epoch limit.
struct TrainingBudget {
  Index ensemble = 1;  ///< networks averaged
  Index epochs = 1;    ///< maximum epochs of each (early stopping usually ends sooner)
};

/// The default budget for `training_molecules`: an ensemble of 5 networks of up to 150 epochs each;
/// above 10,000 training molecules the epoch limit shrinks in proportion (30,000 molecules: 50
/// epochs; never under 30), so that the default training stays within the time Chemprop's defaults
/// take on the same data (docs/defaults.md).
TrainingBudget default_training_budget(Index training_molecules);

/// Molecules with targets [M, T] in original units (NaN: missing label).
struct MoleculeSet {
  std::vector<const MoleculeGraph*> molecules;  ///< Not owned: the graphs must outlive the set.
  Matrix<float> targets;  ///< [M, T], one row per molecule.
};

/// The rows of `data` listed in `rows` (a Split's part), pointing into data, which must outlive the set.
/// Throws ArgumentError for a row outside the dataset.
MoleculeSet molecule_set(const MoleculeDataset& data, std::span<const Index> rows);
/// Every molecule of `data`, in order, pointing into data, which must outlive the set.
MoleculeSet molecule_set(const MoleculeDataset& data);

/// What MoleculeModel::predict_smiles gives: predictions for the SMILES RDKit could read, and the
/// reasons for the others.
struct SmilesPredictions {
  Matrix<float> values;             ///< [valid molecules, T]: original units or probabilities
  std::vector<std::size_t> valid;   ///< index into the input of each row of values
  std::vector<std::pair<std::size_t, std::string>> invalid;  ///< (index into the input, RDKit's reason)
  Matrix<float> raw_spread = {};  ///< [valid molecules, T] for a calibrated model; else empty
};

/// One input row's outcome, as predict_smiles hands it to its sink.
struct PredictedRow {
  std::size_t index = 0;          ///< 0-based position in the input
  std::span<const float> values;  ///< [T]; empty when RDKit could not read the SMILES
  std::string_view error;         ///< RDKit's reason; empty when values are set
  std::span<const float> raw_spread = {};  ///< [T] with values, for a calibrated model; else empty
};

/// Predictions and the raw spread behind their uncertainty (MoleculeModel::predict_with_spread).
struct SpreadPredictions {
  Matrix<float> values;      ///< [M, T]: as MoleculeModel::predict gives them
  Matrix<float> raw_spread;  ///< [M, T]: the standard deviation of the members' predictions
};

/// A trained molecule property predictor: featurizer, an ensemble of MoleculePredictor networks, task
/// names and target scaling, saved and loaded as one model file.
///
/// Not thread-safe, const members included: predict() and attention() run the networks, which hold
/// the state of their last forward. Use one object per thread; prediction and training run their own
/// loops in parallel.
class MoleculeModel final : public Model {
 public:
  /// Builds `config.ensemble` untrained networks; call initialize() then fit(), or use load().
  /// Throws ArgumentError on a bad configuration.
  explicit MoleculeModel(MoleculeModelConfig config);
  /// Movable, not copyable.
  /// @{
  MoleculeModel(MoleculeModel&&) noexcept;
  MoleculeModel& operator=(MoleculeModel&&) noexcept;
  /// @}
  ~MoleculeModel() override;

  /// Reads a model file; throws ModelFormatError naming the file when it is not a valid molecule model.
  static MoleculeModel load(const std::string& path);
  /// The same from a file load_model has read; `path` names it in errors.
  static MoleculeModel load(const ModelFile& file, const std::string& path);
  /// Task::molecule.
  Task task() const override { return Task::molecule; }
  /// Writes atomically (see save_model).
  void save(const std::string& path, Overwrite overwrite = Overwrite::allow) const override;
  /// Task type, targets, ensemble size, parameters; the network, featurizer and target scaling.
  ModelDescription describe() const override;

  /// Member k of the ensemble starts from its own seed derived from (seed, k).
  void initialize(std::uint64_t seed);

  /// Fits the standardization of the descriptors to `train` (see
  /// MoleculePredictorOptions::graph_feature_scaling), then trains each member of the ensemble, member k
  /// with the training seed options.seed + k: side by side, one thread each, while at least as many
  /// members are left as num_threads() (not with checkpoints or under mpirun), else in turn. Either
  /// way a member trains the same weights. on_epoch receives the member's index (from one thread at a
  /// time). In an ensemble, logs "ensemble member k of K" before each member's epochs. Returns one result per member (a member finished before
  /// the checkpoint resumed from has an empty history).
  ///
  /// Writes a checkpoint to checkpoints.path every checkpoints.every epochs of each member. With
  /// checkpoints.resume, continues the run that wrote that checkpoint and ends with the weights that
  /// run would have ended with (same thread count); throws ArgumentError naming the first difference
  /// when the checkpoint was written for another configuration, other options or other data, and
  /// ModelFormatError when it is not a valid checkpoint.
  std::vector<TrainingResult> fit(
      const MoleculeSet& train, const MoleculeSet& validation, const TrainingOptions& options,
      const std::function<void(Index member, const EpochReport&)>& on_epoch = {},
      const CheckpointOptions& checkpoints = {});

  /// The molecule as the model's featurizer encodes it (featurize() with config().featurizer).
  MoleculeGraph featurize(const RDKit::ROMol& molecule) const;

  /// Predictions in the targets' units (probabilities for classification, calibrated once the model
  /// is), [M, T]: the mean over the ensemble's members.
  Matrix<float> predict(std::span<const MoleculeGraph* const> molecules) const;

  /// predict()'s values, and the spread of the members' predictions about them. Throws
  /// ArgumentError unless the model's spread method is ensemble.
  SpreadPredictions predict_with_spread(std::span<const MoleculeGraph* const> molecules) const;

  /// Calibrates the spread of each task on labelled molecules the networks did not train on (the
  /// validation part): config().calibration, from fit_spread_calibration. Throws ArgumentError when
  /// the spread method is none, or a task has fewer than two labelled molecules there.
  void calibrate(const MoleculeSet& held_out);

  /// Calibrates a classification model's probabilities on labelled molecules the networks did not
  /// train on (the validation part): config().probability_calibration, from fit_binary_calibration per
  /// task, which keeps the identity where calibration does not help rows it was not fitted on. Throws
  /// ArgumentError for a regression model.
  void calibrate_probabilities(const MoleculeSet& held_out);

  /// Parses, featurizes and predicts a list of SMILES, the same values as predict() on the
  /// featurize() graphs of each window of kPredictionWindowRows input rows on its own: the valid
  /// molecules of a window run in batches of their own, so a row's value depends on its window's rows
  /// only, and a run that starts at a window boundary (a process's share of a file) gives the values
  /// of a run over the whole input. Streams: SMILES are parsed a window at a time, molecules go straight into
  /// reused batch buffers, and each thread runs whole batches on its own copy of the networks, so
  /// memory does not grow with the input and threads meet only between windows. A SMILES that RDKit
  /// cannot read or featurize, or with more than max_atoms atoms (see SmilesOptions), is an invalid
  /// row with its reason; it never stops the others.
  SmilesPredictions predict_smiles(const std::vector<std::string>& smiles, Index max_atoms = kDefaultMaxAtoms) const;

  /// The same, streamed: reads SMILES from `next` until it returns false, and hands every row to
  /// `sink` in input order as soon as its batch has run, with its raw spread when the model is
  /// calibrated. Memory does not depend on the input's length: at most two windows of SMILES and
  /// their feature rows are held at once (run_ordered_pipeline).
  void predict_smiles(const std::function<bool(std::string& smiles)>& next,
                      const std::function<void(const PredictedRow& row)>& sink,
                      Index max_atoms = kDefaultMaxAtoms) const;

  /// The last attention layer's weights on one molecule's edges, [E, heads], of the first member.
  Matrix<float> attention(const MoleculeGraph& molecule) const;

  /// The configuration, with the scaling set by fit() or load().
  const MoleculeModelConfig& config() const { return config_; }
  /// Trainable scalars per member of the ensemble.
  Index num_parameters() const override;

 private:
  struct Member;
  struct Worker;

  // Fits the networks' descriptor standardization to the training set.
  void standardize_descriptors(const MoleculeSet& train);
  // Every member's weights under the names of the model file.
  Parameters<float> all_parameters() const;
  // Restores the weights and the finished members' results from a checkpoint after checking that
  // it belongs to this run.
  Checkpoint resume(const std::string& path, const nlohmann::json& identity, const MoleculeSet& train,
                    std::vector<TrainingResult>& results);
  // Trains members first .. first + count - 1 at once, one thread each and `threads` at a time,
  // appending their results in member order; the first member logs as it goes, the others' messages
  // follow it.
  void train_side_by_side(std::size_t first, std::size_t count, std::size_t threads, const GraphSet& train,
                          const GraphSet& validation,
                          const std::function<TrainingOptions(std::size_t)>& fitting,
                          const std::function<void(Index, const EpochReport&)>& on_epoch, const Logger& log,
                          std::vector<TrainingResult>& results);

  MoleculeModelConfig config_;
  std::vector<std::unique_ptr<Member>> members_;
};

}  // namespace edgewise
