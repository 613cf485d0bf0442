/// \file
/// Training checkpoints: a model file (the weights at the end of an epoch, under the names the
/// model's own file uses, so a checkpoint also loads as a model) with the training state added:
///
///   tensors   checkpoint.adam_m, checkpoint.adam_v, checkpoint.best_weights: [P, 1] each
///   metadata  checkpoint: a JSON document {checkpoint_version, epoch, steps, best_epoch,
///             best_validation, best_loss, shuffle_rng, dropout_rng, order, run}
///
/// `run` is the writer's: what identifies the data and options (a resumed run must match it) and
/// where in a longer job the state belongs (an ensemble's member). Loading validates it all and
/// throws ModelFormatError naming the file and what is wrong.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "edgewise/core/checksum.hpp"
#include "edgewise/graph/graph.hpp"
#include "edgewise/models/model_file.hpp"
#include "edgewise/core/products.hpp"
#include "edgewise/models/training_state.hpp"

namespace edgewise {

/// The version of the training state's layout and of the data fingerprints, checked on load. Version 3
/// fingerprints a graph by its edge positions.
inline constexpr int kCheckpointVersion = 3;

/// Where and how often a model's fit writes checkpoints, and the one it continues from.
struct CheckpointOptions {
  std::string path;    ///< Where checkpoints are written (replaced each time, atomically).
  Index every = 0;     ///< Epochs between checkpoints; 0: none.
  std::string resume;  ///< A checkpoint to continue from; empty: start afresh.
};

/// The contents of a checkpoint file.
struct Checkpoint {
  nlohmann::json config;       ///< The model's configuration, as its model file holds it.
  Parameters<float> weights;   ///< At the end of state.epoch.
  TrainingState state;         ///< The training loop's state after that epoch.
  nlohmann::json run;          ///< The writer's identification of the run and its progress.
  Precision precision = Precision::float32;  ///< Of the products that trained it (precision() when saved).
};

/// Writes atomically, like save_model.
void save_checkpoint(const std::string& path, const Checkpoint& checkpoint);

/// Reads and validates a checkpoint; a model file without training state is refused.
Checkpoint load_checkpoint(const std::string& path);

/// Throws ArgumentError naming the file and the first entry (a dotted path such as
/// "training.learning_rate") where `saved` and `current` differ, with both values: a checkpoint is
/// only continued by the run that wrote it.
void check_same_run(const std::string& path, const nlohmann::json& saved, const nlohmann::json& current);

/// Throws ArgumentError unless products run at the precision that wrote the checkpoint: a run that
/// changed it would not end with the model an uninterrupted run writes.
void check_same_precision(const std::string& path, const Checkpoint& checkpoint);

/// Feeds a matrix's shape and values to a digest, for the data fingerprints checkpoints are matched by.
void fingerprint(Sha256& digest, const ConstRowsRef<float>& values);
/// Feeds a graph's node count and CSR arrays to a digest.
void fingerprint(Sha256& digest, const Graph& graph);

}  // namespace edgewise
