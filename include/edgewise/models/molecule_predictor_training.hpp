/// \file
/// Minibatch training of a MoleculePredictor on graph-level targets: regression (targets standardized
/// internally) or binary classification (logits), multi-task, with missing labels (NaN) masked out
/// of the loss and the metrics.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "edgewise/core/log.hpp"
#include "edgewise/core/names.hpp"
#include "edgewise/graph/featured_graph.hpp"
#include "edgewise/models/collectives.hpp"
#include "edgewise/models/column_scaling.hpp"
#include "edgewise/models/losses.hpp"
#include "edgewise/models/molecule_predictor.hpp"
#include "edgewise/models/training_state.hpp"

namespace edgewise {

/// What the targets of a graph-level model are: real values, or 0/1 labels predicted as logits.
enum class TaskType { regression, classification };

/// The names model files and command lines use.
inline constexpr std::pair<TaskType, std::string_view> kTaskTypeNames[] = {{TaskType::regression, "regression"},
                                                                            {TaskType::classification, "classification"}};

/// Parses "regression", "classification"; throws ArgumentError otherwise.
TaskType parse_task_type(const std::string& name);
/// The name parse_task_type accepts.
std::string to_string(TaskType type);

/// How regression targets are trained: standardized by the training set's mean and standard
/// deviation per task. Identity for classification.
using TargetScaling = ColumnScaling;

/// Settings of train_molecule_predictor: AdamW with warm-up and cosine decay, gradient clipping, early stopping.
struct TrainingOptions {
  TaskType task_type = TaskType::regression;  ///< Selects the loss (MSE on scaled targets, or BCE with logits).
  Index epochs = 100;  ///< Maximum number of passes over the training set.
  Index batch_size = 50;  ///< Graphs per optimizer step.
  double learning_rate = 1e-3;  ///< Peak learning rate.
  double warmup_epochs = 2;       ///< linear rise from learning_rate / 10
  double final_lr_ratio = 0.1;    ///< cosine decay to learning_rate * final_lr_ratio at the last epoch
  double weight_decay = 0.0;      ///< AdamW's decoupled decay
  double clip_norm = 10.0;        ///< global gradient norm; 0 disables clipping
  Index patience = 30;            ///< epochs without validation improvement before stopping
  std::string metric;             ///< early-stopping metric; empty: "rmse" or "roc_auc" by task type
  std::uint64_t seed = 0;  ///< Seeds the shuffling, dropout and any random choices.
  /// Regression only: what the network's outputs for each target stand for (outputs_per_target of
  /// them), and so the loss it is trained by.
  OutputDistribution distribution = OutputDistribution::point;
  /// Normal: one line per epoch (epoch_line); verbose: also the setup and why training stopped.
  LogSettings log = {};
};

/// Every option, for checkpoints to tell whether a run continues the one that wrote them.
void to_json(nlohmann::json& j, const TrainingOptions& options);

/// The early-stopping metric of `training`: its metric, else "rmse" for regression and "roc_auc" for
/// classification.
std::string early_stopping_metric(const TrainingOptions& training, TaskType type);

/// What one epoch of training gave.
struct EpochReport {
  Index epoch = 0;            ///< 1-based
  double train_loss = 0;      ///< mean over the epoch's batches, in scaled units
  double validation = 0;      ///< the early-stopping metric on the validation set (NaN without one)
  double learning_rate = 0;   ///< at the epoch's last step
  double seconds = 0;         ///< since training started
  bool improved = false;  ///< Whether the validation metric was the best so far.
};

/// The outcome of train_molecule_predictor.
struct TrainingResult {
  std::vector<EpochReport> history;  ///< One report per epoch run (after a resumed checkpoint, the later ones).
  Index epochs_run = 0;  ///< The last epoch trained, counting the epochs before a resumed checkpoint.
  Index best_epoch = 0;  ///< The epoch whose weights were kept (1-based).
  double best_validation = 0;  ///< The early-stopping metric at best_epoch.
  TargetScaling scaling;  ///< The scaling the network was trained with; needed to predict.
};

/// Whether a training's validation curve shows overfitting: the metric at its best within the first
/// tenth of `epoch_limit` epochs (at least the first 5), and steadily worse after it, the mean of the
/// last five epochs further from the best than the mean of the five after it and worse than the
/// best by at least a tenth of the best error (RMSE, or 1 - a score such as ROC-AUC). False for a
/// history without validation or with fewer than ten epochs after the best.
bool overfits(const TrainingResult& result, Index epoch_limit, bool larger_better);

/// The per-epoch log line, e.g.
///   epoch   12/100  train loss 0.4123  val rmse 0.6012 *  lr 9.81e-04  3.2 s
/// where * marks an improvement of the validation metric.
std::string epoch_line(const EpochReport& report, Index epochs, const std::string& metric);

/// A set of graphs with targets [M, T] in original units (NaN: missing).
struct GraphSet {
  std::vector<const FeaturedGraph*> graphs;  ///< Not owned: the graphs must outlive the set.
  Matrix<float> targets;  ///< [M, T], one row per graph.
};

/// Trains `model` (its parameters already initialized) and leaves in `params` the weights of the
/// epoch with the best validation metric (the last epoch when `validation` is empty). Calls
/// on_epoch after each epoch, then checkpoints.save when one is due (not after the epoch that stops
/// training early). Same seed, data and thread count give the same weights, whether or not the run
/// was resumed from a checkpoint (checkpoints.resume: the history then starts after it). Throws
/// DivergenceError naming epoch, batch and parameter when the loss or a gradient becomes NaN or
/// infinite, and ArgumentError when the validation metric was NaN in every epoch (a validation set of one
/// class, whose ROC-AUC is undefined): no epoch was measured, so none can be kept. Given the
/// collectives of several processes, each runs a slice of every batch and they sum their gradients,
/// so that together they take the one-process step, up to the order of float sums.
TrainingResult train_molecule_predictor(MoleculePredictor<float>& model, Parameters<float>& params, const GraphSet& train,
                                     const GraphSet& validation, const TrainingOptions& options,
                                     const std::function<void(const EpochReport&)>& on_epoch = {},
                                     const TrainingCheckpoints& checkpoints = {},
                                     const Collectives& processes = single_process());

/// Graphs per forward pass when predicting. A product's rounding depends on the rows it is computed
/// with, so the same batches are what make predictions bit-reproducible. 64 molecules keep a batch's
/// activations near the size of a core's L2 cache; 256 took twice the memory and no less time.
constexpr Index kPredictionBatchSize = 64;

/// The model's outputs for `graphs` in order, [M, tasks], before any scaling or sigmoid.
Matrix<float> predict_raw(MoleculePredictor<float>& model, std::span<const FeaturedGraph* const> graphs,
                          Index batch_size = kPredictionBatchSize);

/// Raw outputs [M, tasks], as predict_raw gives them, in the targets' units: unscaled values for
/// regression, probabilities for classification. Of a network with several outputs a target, the means.
Matrix<float> to_predictions(const Matrix<float>& raw, TaskType task_type, const TargetScaling& scaling);
/// The variances [M, T], in the targets' units, that the raw outputs of a gaussian or evidential
/// network stand for (TrainingOptions::distribution).
Matrix<float> to_variances(const Matrix<float>& raw, const TargetScaling& scaling, OutputDistribution distribution);

/// Monte-Carlo dropout (Gal and Ghahramani 2016): the variance [G, T], in the targets' units, of a
/// regression network's predictions for the batch's molecules over `samples` forward passes with its
/// dropout on. A molecule's masks are drawn from a hash of its features, so it gets the same masks
/// in any batch, at any position and with any thread count.
Matrix<float> dropout_variances(MoleculePredictor<float>& model, const FeaturedBatch& batch,
                                const TargetScaling& scaling, Index samples);
/// The same for `graphs`, [M, T], in batches of `batch_size`.
Matrix<float> dropout_variances(MoleculePredictor<float>& model, std::span<const FeaturedGraph* const> graphs,
                                const TargetScaling& scaling, Index samples, Index batch_size = kPredictionBatchSize);

/// Predictions in the targets' units: unscaled values for regression, probabilities for
/// classification.
Matrix<float> predict(MoleculePredictor<float>& model, std::span<const FeaturedGraph* const> graphs, TaskType task_type,
                      const TargetScaling& scaling, Index batch_size = kPredictionBatchSize);

}  // namespace edgewise
