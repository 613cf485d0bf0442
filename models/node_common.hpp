// What full-batch, sampled and partitioned node training share besides the epoch loop (epochs.hpp):
// input checks, the targets of a part of the nodes, the cut of a run of several processes, accuracy,
// the steps' state, the full-batch trainer and the epochs' settings. A node trainer's score fills the
// report's accuracies and validation loss and returns node_scores(report). Private to models/.
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
#include "edgewise/models/collectives.hpp"
#include "edgewise/splits/splits.hpp"
#include "edgewise/models/losses.hpp"
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
std::vector<std::int32_t> shared_partition(const InEdges& in_edges, const Collectives& processes);

/// Logs how shared_partition cut the graph: the edges that cross parts, and each part's own nodes,
/// halo nodes and training nodes.
void log_cut(const Logger& log, const InEdges& in_edges, std::span<const std::int32_t> owner,
             std::span<const Index> training_nodes, int parts);

/// The column of the row's largest logit.
Index argmax(const Matrix<float>& logits, Index row);

/// Fraction of the rows with a target whose largest logit is the target's, counting the rows of all
/// `processes`; NaN without targets.
double accuracy(const Matrix<float>& logits, std::span<const Index> targets,
                const Collectives& processes = single_process());

/// The rows with a target (>= 0).
Index count_targets(std::span<const Index> targets);

/// This process's fraction of the rows with a target, over all `processes`; 0 without any.
double target_share(std::span<const Index> targets, const Collectives& processes);

/// What a trainer's steps carry from one epoch to the next, and checkpoints keep: Adam's state and the
/// generator of the dropout masks. Options: NodeTrainingOptions or LinkTrainingOptions (their
/// learning_rate, weight_decay and seed).
struct StepState {
  template <typename Options>
  StepState(Parameters<float>& params, const Options& options)
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

/// Full-batch node training's epochs (run_node_epochs), on the whole graph or on one process's part of
/// it (part_training.cpp): rows that are the nodes `node_ids` of the whole graph (empty: row r is node
/// r). Each process's mean loss is weighted by its share of all training rows and the gradients are
/// summed over `processes`; with one process the share is 1 and the collectives return their input.
/// Keeps its loss-gradient buffers between epochs, as the model keeps its layer buffers.
class FullBatchTrainer {
 public:
  /// targets: [rows], a class or -1; graph, features and node_ids must outlive the trainer.
  FullBatchTrainer(NodeClassifier<float>& model, Parameters<float>& params, const Graph& graph,
                   const ConstRowsRef<float>& features, std::vector<Index> train_targets,
                   std::vector<Index> val_targets, const NodeTrainingOptions& options,
                   const Collectives& processes = single_process(), std::span<const NodeId> node_ids = {})
      : model_(model),
        params_(params),
        graph_(graph),
        features_(features),
        sparse_features_(sparse_copy_if_sparse(features)),
        train_targets_(std::move(train_targets)),
        val_targets_(std::move(val_targets)),
        processes_(processes),
        node_ids_(node_ids),
        train_share_(target_share(train_targets_, processes)),
        val_share_(target_share(val_targets_, processes)),
        steps_(params, options) {}

  /// One Adam step; returns the training loss before it. Throws DivergenceError (check_finite_step)
  /// when the loss or a gradient is not finite.
  double step(Index epoch) {
    params_.zero_grad();
    const Matrix<float>& logits = forward(Mode::train(steps_.dropout_rng, node_ids_));
    const double loss = processes_.sum(cross_entropy_loss(dlogits_, logits, train_targets_) * train_share_);
    dlogits_ *= static_cast<float>(train_share_);
    model_.backward(dlogits_);
    processes_.sum_gradients(params_);
    check_finite_step(params_, loss, epoch, 1);
    steps_.optimizer.step();
    return loss;
  }

  /// Fills the report's accuracies and validation loss from one inference pass.
  ValidationScores score(NodeEpochReport& report) {
    const Matrix<float>& logits = forward(Mode::inference());
    report.train_accuracy = accuracy(logits, train_targets_, processes_);
    report.val_accuracy = accuracy(logits, val_targets_, processes_);
    report.val_loss = std::isnan(report.val_accuracy)
                          ? kNaN
                          : processes_.sum(cross_entropy_loss(dscratch_, logits, val_targets_) * val_share_);
    return node_scores(report);
  }

  void save(TrainingState& state) const { steps_.save(state); }
  void restore(const TrainingState& state) { steps_.restore(state); }

 private:
  const Matrix<float>& forward(Mode mode) {
    return sparse_features_ ? model_.forward(graph_, *sparse_features_, mode) : model_.forward(graph_, features_, mode);
  }

  NodeClassifier<float>& model_;
  Parameters<float>& params_;
  const Graph& graph_;
  ConstRowsRef<float> features_;
  std::optional<SparseMatrix<float>> sparse_features_;  // the features again when mostly zeros
  std::vector<Index> train_targets_;
  std::vector<Index> val_targets_;
  const Collectives& processes_;
  std::span<const NodeId> node_ids_;
  double train_share_;  // this process's fraction of all training (validation) rows
  double val_share_;
  StepState steps_;
  Matrix<float> dlogits_;
  Matrix<float> dscratch_;  // the validation loss's gradient, which nothing uses
};

/// Runs trainer's epochs (run_epochs) under the rule of the GAT reference code (StoppingRule) and leaves
/// the weights of the best epoch in params.
template <typename Trainer>
NodeTrainingResult run_node_epochs(Trainer& trainer, Parameters<float>& params, const Split& split,
                                   const NodeTrainingOptions& options,
                                   const std::function<void(const NodeEpochReport&)>& on_epoch,
                                   const TrainingCheckpoints& checkpoints) {
  const EpochSettings settings{
      .epochs = options.epochs,
      .stopping = {.larger_better = true, .with_loss = true, .ties_count = true, .patience = options.patience},
      .log = options.log,
      .setup = "training on " + std::to_string(split.train.size()) + " nodes, validating on " +
               std::to_string(split.val.size()) + " by accuracy; at most " + std::to_string(options.epochs) +
               " epochs, patience " + std::to_string(options.patience),
      .metric = "accuracy",
      .judged_by = "on the validation nodes"};
  NodeTrainingResult result;
  const ValidationScores best = run_epochs(trainer, params, settings, checkpoints, result, on_epoch);
  result.best_val_accuracy = best.value;
  result.best_val_loss = best.loss;
  return result;
}

}  // namespace edgewise::detail
