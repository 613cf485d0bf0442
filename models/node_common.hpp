// What full-batch, sampled and partitioned node training share besides the epoch loop (epochs.hpp):
// the checks of their inputs, the targets of a part of the nodes, the cut of a run of several processes,
// accuracy, the state of the steps, and the settings of the epochs. A node trainer's score fills the
// report's train_accuracy, val_accuracy and val_loss and returns node_scores(report). Private to models/.
#pragma once

#include <cmath>
#include <functional>
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
#include "epochs.hpp"

namespace edgewise::detail {

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

/// The scores a node trainer's epoch is judged by: validation accuracy and loss; none without
/// validation nodes (NaN accuracy).
inline ValidationScores node_scores(const NodeEpochReport& report) {
  return {.measured = !std::isnan(report.val_accuracy), .value = report.val_accuracy, .loss = report.val_loss};
}

/// The settings of node training's epochs: the rule of the GAT reference code (StoppingRule).
EpochSettings node_epoch_settings(const Split& split, const NodeTrainingOptions& options);

/// Runs trainer's epochs (run_epochs) and leaves the weights of the best epoch in params.
template <typename Trainer>
NodeTrainingResult run_node_epochs(Trainer& trainer, Parameters<float>& params, const Split& split,
                                   const NodeTrainingOptions& options,
                                   const std::function<void(const NodeEpochReport&)>& on_epoch,
                                   const TrainingCheckpoints& checkpoints) {
  EpochsRun<NodeEpochReport> run =
      run_epochs<NodeEpochReport>(trainer, params, node_epoch_settings(split, options), on_epoch, checkpoints);
  return {.history = std::move(run.history),
          .epochs_run = run.epochs_run,
          .best_epoch = run.best_epoch,
          .best_val_accuracy = run.best.value,
          .best_val_loss = run.best.loss};
}

}  // namespace edgewise::detail
