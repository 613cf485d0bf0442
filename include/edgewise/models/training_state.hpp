/// \file
/// What the training loops carry from one epoch to the next besides the weights, for checkpoints:
/// a run stopped after any epoch and continued from its state ends at the same weights, bit for bit,
/// as a run never stopped (same data, options and thread count). And the guard that stops training
/// at the first non-finite loss or gradient.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "edgewise/core/parameters.hpp"
#include "edgewise/models/optimizers.hpp"

namespace edgewise {

/// A training loop's state after an epoch, besides the weights. The learning-rate schedule needs
/// none of its own: it is a function of the epoch and batch.
struct TrainingState {
  Index epoch = 0;  ///< Epochs completed.
  AdamState<float> optimizer = {};  ///< Moments and step count.
  Vector<float> best_weights = {};  ///< Of best_epoch.
  Index best_epoch = 0;        ///< 0: none yet.
  double best_validation = std::numeric_limits<double>::quiet_NaN();  ///< Early-stopping metric (nodes: accuracy).
  double best_loss = std::numeric_limits<double>::quiet_NaN();        ///< Nodes: validation loss of best_epoch.
  /// The best validation score (nodes: accuracy) and loss of any epoch so far and the last epoch that
  /// reached either, for early stopping; NaN and 0: those of best_epoch.
  double progress_accuracy = std::numeric_limits<double>::quiet_NaN();
  double progress_loss = std::numeric_limits<double>::quiet_NaN();  ///< See progress_accuracy.
  Index last_progress = 0;                                           ///< See progress_accuracy.
  std::uint64_t shuffle_rng = 0;  ///< Graph training: the minibatch shuffler's generator state.
  std::uint64_t dropout_rng = 0;  ///< The dropout masks' generator state.
  std::vector<std::uint64_t> order = {};  ///< Graph training: the training set's order after the last shuffle.
};

/// How a training loop hands out its state, and the state it continues from.
struct TrainingCheckpoints {
  Index every = 0;  ///< Epochs between calls to save; 0: never.
  std::function<void(const TrainingState&)> save = {};  ///< Receives the state when a checkpoint is due.
  /// Continue after state->epoch; the parameters must already hold the weights saved with it.
  const TrainingState* resume = nullptr;
};

/// Throws DivergenceError naming the epoch, the batch (1-based) and the first parameter whose
/// gradient is NaN or infinite when the loss or any gradient is, before the optimizer step would
/// spread it into the weights.
void check_finite_step(const Parameters<float>& params, double loss, Index epoch, Index batch);

/// Whether a checkpoint is due after `epoch` (1-based).
inline bool checkpoint_due(const TrainingCheckpoints& checkpoints, Index epoch) {
  return checkpoints.every > 0 && checkpoints.save && epoch % checkpoints.every == 0;
}

/// Throws ArgumentError unless `state` fits parameters of `size` entries and a run of `epochs`.
void check_resumable(const TrainingState& state, Index size, Index epochs);

}  // namespace edgewise
