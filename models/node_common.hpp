// The epoch loop that full-batch and sampled node training share: early stopping on the validation
// nodes, the weights of the best epoch, checkpoints and logs. A trainer supplies the epoch's work:
//   double step(Index epoch);               // trains one epoch, returns its training loss
//   void score(NodeEpochReport& report);    // fills train_accuracy, val_accuracy and val_loss
//   void save(TrainingState&) const;        // its optimizer and random state, for checkpoints
//   void restore(const TrainingState&);
// Private to models/.
#pragma once

#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "edgewise/core/log.hpp"
#include "edgewise/core/parameters.hpp"
#include "edgewise/core/sparse.hpp"
#include "edgewise/datasets/splits.hpp"
#include "edgewise/models/node_training.hpp"
#include "edgewise/models/optimizers.hpp"
#include "edgewise/models/training_state.hpp"

namespace edgewise::detail {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Throws ArgumentError on options no training can run with.
void check_node_training_options(const NodeTrainingOptions& options);

/// Throws ArgumentError unless features are [N, model's in_dim] and labels [N] for the graph's N.
void check_node_inputs(const NodeClassifier<float>& model, const Graph& graph, const ConstRowsRef<float>& features,
                       std::span<const Index> labels);

/// A sparse copy of bag-of-words features (under 10 % non-zeros), on which training runs faster;
/// nothing for denser features.
std::optional<SparseMatrix<float>> sparse_copy_if_sparse(const ConstRowsRef<float>& features);


/// [N] holding the label of each listed node and -1 elsewhere, the form cross_entropy_loss ignores
/// rows by. Throws ArgumentError for a listed node out of range, unlabeled, or of a class >= classes.
std::vector<Index> part_targets(std::span<const Index> labels, std::span<const Index> nodes, Index classes,
                                const char* part);

/// The part of every node in a run of several processes: rank 0 cuts the graph into one part a
/// process (partition_graph) and sends the cut to the others. Every process must call it.
std::vector<std::int32_t> shared_partition(const InEdges& in_edges);

/// Logs how shared_partition cut the graph: the edges that cross parts, and each part's own nodes,
/// halo nodes and training nodes.
void log_cut(const Logger& log, const InEdges& in_edges, std::span<const std::int32_t> owner,
             std::span<const Index> training_nodes);

/// The column of the row's largest logit.
Index argmax(const Matrix<float>& logits, Index row);

/// Fraction of the rows with a target whose largest logit is the target's; NaN without targets.
double accuracy(const Matrix<float>& logits, std::span<const Index> targets);

/// What a trainer's steps carry from one epoch to the next, and checkpoints keep: Adam's state and the
/// generator of the dropout masks.
struct StepState {
  StepState(Parameters<float>& params, const NodeTrainingOptions& options)
      : optimizer(params, AdamOptions{.lr = options.learning_rate, .weight_decay = options.weight_decay}),
        dropout_rng(options.seed ^ 0xD50FULL) {}

  void save(TrainingState& state) const {
    state.optimizer = optimizer.state();
    state.dropout_rng = dropout_rng.state();
  }
  void restore(const TrainingState& state) {
    optimizer.restore(state.optimizer);
    dropout_rng = SplitMix64(state.dropout_rng);
  }

  Adam<float> optimizer;
  SplitMix64 dropout_rng;
};

/// The stopping rule of the GAT reference code: an epoch makes progress, restarting the patience count,
/// when its validation accuracy or its validation loss is at least as good as the best of any earlier
/// epoch; its weights are kept only when both are.
class ValidationRecord {
 public:
  bool progresses(const NodeEpochReport& epoch) const {
    return std::isnan(epoch.val_accuracy) || epoch.val_accuracy >= accuracy_ || epoch.val_loss <= loss_;
  }
  bool improves(const NodeEpochReport& epoch) const {
    return std::isnan(epoch.val_accuracy) || (epoch.val_accuracy >= accuracy_ && epoch.val_loss <= loss_);
  }
  void update(const NodeEpochReport& epoch);
  Index last_progress() const { return last_progress_; }

  // A checkpoint holds the record with NaN for "no epoch yet", since JSON has no infinities.
  void save(TrainingState& state) const;
  void restore(const TrainingState& state);

 private:
  double accuracy_ = -std::numeric_limits<double>::infinity();
  double loss_ = std::numeric_limits<double>::infinity();
  Index last_progress_ = 0;
};

void log_node_setup(const Logger& log, const Split& split, const NodeTrainingOptions& options);
void log_node_epoch(const Logger& log, const NodeEpochReport& report, Index epochs);

/// Runs trainer's epochs until options.epochs or early stopping, and leaves the weights of the best
/// epoch in params.
template <typename Trainer>
NodeTrainingResult run_node_epochs(Trainer& trainer, Parameters<float>& params, const Split& split,
                                   const NodeTrainingOptions& options,
                                   const std::function<void(const NodeEpochReport&)>& on_epoch,
                                   const TrainingCheckpoints& checkpoints) {
  NodeTrainingResult result;
  result.best_val_accuracy = result.best_val_loss = kNaN;
  Vector<float> best_weights = params.values();
  ValidationRecord record;
  Index first_epoch = 1;
  if (checkpoints.resume) {
    const TrainingState& state = *checkpoints.resume;
    check_resumable(state, params.size(), options.epochs);
    trainer.restore(state);
    record.restore(state);
    best_weights = state.best_weights;
    result.best_epoch = state.best_epoch;
    result.best_val_accuracy = state.best_validation;
    result.best_val_loss = state.best_loss;
    first_epoch = state.epoch + 1;
  }
  const Logger log(options.log);
  log_node_setup(log, split, options);
  const auto start = std::chrono::steady_clock::now();
  for (Index epoch = first_epoch; epoch <= options.epochs; ++epoch) {
    NodeEpochReport report;
    report.epoch = epoch;
    report.train_loss = trainer.step(epoch);
    trainer.score(report);
    report.improved = record.improves(report);
    record.update(report);
    if (report.improved) {
      result.best_epoch = epoch;
      result.best_val_accuracy = report.val_accuracy;
      result.best_val_loss = report.val_loss;
      best_weights = params.values();
    }
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.history.push_back(report);
    result.epochs_run = epoch;
    if (on_epoch) on_epoch(report);
    log_node_epoch(log, report, options.epochs);
    if (epoch - record.last_progress() >= options.patience) {
      log.verbose("stopping early: no improvement on the validation nodes for " + std::to_string(options.patience) +
                  " epochs; keeping epoch " + std::to_string(result.best_epoch));
      break;
    }
    if (checkpoint_due(checkpoints, epoch)) {
      TrainingState state{.epoch = epoch,
                          .best_weights = best_weights,
                          .best_epoch = result.best_epoch,
                          .best_validation = result.best_val_accuracy,
                          .best_loss = result.best_val_loss};
      trainer.save(state);
      record.save(state);
      checkpoints.save(state);
    }
  }
  params.values() = best_weights;
  return result;
}

}  // namespace edgewise::detail
