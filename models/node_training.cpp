#include "edgewise/models/node_training.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "edgewise/core/error.hpp"
#include "edgewise/core/sparse.hpp"
#include "edgewise/models/losses.hpp"
#include "edgewise/models/optimizers.hpp"
#include "edgewise/models/training_state.hpp"

namespace edgewise {

void to_json(nlohmann::json& j, const NodeTrainingOptions& options) {
  j = nlohmann::json{{"epochs", options.epochs},
                     {"learning_rate", options.learning_rate},
                     {"weight_decay", options.weight_decay},
                     {"patience", options.patience},
                     {"seed", options.seed}};
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_options(const NodeTrainingOptions& options) {
  if (options.epochs < 1) throw ArgumentError("node training: epochs must be at least 1");
  if (!(options.learning_rate > 0)) throw ArgumentError("node training: learning rate must be positive");
  if (!(options.weight_decay >= 0)) throw ArgumentError("node training: weight decay must not be negative");
  if (options.patience < 1) throw ArgumentError("node training: patience must be at least 1");
}

void check_inputs(const NodeClassifier<float>& model, const Graph& graph, const Matrix<float>& features,
                  std::span<const Index> labels) {
  const Index n = graph.num_nodes();
  if (features.rows() != n || features.cols() != model.options().in_dim)
    throw ArgumentError("node classification: features are [" + std::to_string(features.rows()) + ", " +
                        std::to_string(features.cols()) + "], expected [" + std::to_string(n) + ", " +
                        std::to_string(model.options().in_dim) + "]");
  if (static_cast<Index>(labels.size()) != n)
    throw ArgumentError("node classification: " + std::to_string(labels.size()) + " labels for " + std::to_string(n) +
                        " nodes");
}

// [N] holding the label of each listed node and -1 elsewhere, the form cross_entropy_loss ignores
// rows by. Throws ArgumentError for a listed node out of range, unlabeled, or of a class >= classes.
std::vector<Index> part_targets(std::span<const Index> labels, std::span<const Index> nodes, Index classes,
                                const char* part) {
  std::vector<Index> targets(labels.size(), -1);
  for (const Index node : nodes) {
    if (node < 0 || node >= static_cast<Index>(labels.size()))
      throw ArgumentError(std::string("node classification: ") + part + " node " + std::to_string(node) +
                          " is not a node of the graph");
    const Index label = labels[static_cast<std::size_t>(node)];
    if (label < 0 || label >= classes)
      throw ArgumentError(std::string("node classification: ") + part + " node " + std::to_string(node) +
                          " has label " + std::to_string(label) + ", expected a class in [0, " +
                          std::to_string(classes) + ")");
    targets[static_cast<std::size_t>(node)] = label;
  }
  return targets;
}

Index argmax(const Matrix<float>& logits, Index row) {
  Index best = 0;
  logits.row(row).maxCoeff(&best);
  return best;
}

// Fraction of the rows with a target whose largest logit is the target's; NaN without targets.
double accuracy(const Matrix<float>& logits, std::span<const Index> targets) {
  Index scored = 0, correct = 0;
  for (std::size_t node = 0; node < targets.size(); ++node) {
    if (targets[node] < 0) continue;
    ++scored;
    if (argmax(logits, static_cast<Index>(node)) == targets[node]) ++correct;
  }
  return scored > 0 ? static_cast<double>(correct) / static_cast<double>(scored) : kNaN;
}

// The stopping rule of the GAT reference code: an epoch makes progress, restarting the patience count,
// when its validation accuracy or its validation loss is at least as good as the best of any earlier
// epoch; its weights are kept only when both are.
class ValidationRecord {
 public:
  bool progresses(const NodeEpochReport& epoch) const {
    return std::isnan(epoch.val_accuracy) || epoch.val_accuracy >= accuracy_ || epoch.val_loss <= loss_;
  }
  bool improves(const NodeEpochReport& epoch) const {
    return std::isnan(epoch.val_accuracy) || (epoch.val_accuracy >= accuracy_ && epoch.val_loss <= loss_);
  }
  void update(const NodeEpochReport& epoch) {
    if (!progresses(epoch)) return;
    last_progress_ = epoch.epoch;
    if (std::isnan(epoch.val_accuracy)) return;
    accuracy_ = std::max(accuracy_, epoch.val_accuracy);
    loss_ = std::min(loss_, epoch.val_loss);
  }
  Index last_progress() const { return last_progress_; }

  // A checkpoint holds the record with NaN for "no epoch yet", since JSON has no infinities.
  void save(TrainingState& state) const {
    state.progress_accuracy = std::isinf(accuracy_) ? kNaN : accuracy_;
    state.progress_loss = std::isinf(loss_) ? kNaN : loss_;
    state.last_progress = last_progress_;
  }
  void restore(const TrainingState& state) {
    if (!std::isnan(state.progress_accuracy)) accuracy_ = state.progress_accuracy;
    if (!std::isnan(state.progress_loss)) loss_ = state.progress_loss;
    last_progress_ = state.last_progress;
  }

 private:
  double accuracy_ = -std::numeric_limits<double>::infinity();
  double loss_ = std::numeric_limits<double>::infinity();
  Index last_progress_ = 0;
};

// Below this fraction of non-zeros, training runs on a sparse copy of the features.
constexpr double kSparseFeatureDensity = 0.1;

// A sparse copy of bag-of-words features (fewer non-zeros than kSparseFeatureDensity), else nothing.
std::optional<SparseMatrix<float>> sparse_copy_if_sparse(const Matrix<float>& features) {
  const auto nonzeros = static_cast<double>((features.array() != 0.0f).count());
  if (nonzeros >= kSparseFeatureDensity * static_cast<double>(features.size())) return std::nullopt;
  return SparseMatrix<float>(features.sparseView());
}

// The training step and the scoring pass of one epoch. Keeps its loss-gradient buffers between
// epochs, as the model keeps its layer buffers.
class FullBatchTrainer {
 public:
  FullBatchTrainer(NodeClassifier<float>& model, Parameters<float>& params, const Graph& graph,
                   const Matrix<float>& features, std::vector<Index> train_targets, std::vector<Index> val_targets,
                   const NodeTrainingOptions& options)
      : model_(model),
        params_(params),
        graph_(graph),
        features_(features),
        sparse_features_(sparse_copy_if_sparse(features)),
        train_targets_(std::move(train_targets)),
        val_targets_(std::move(val_targets)),
        optimizer_(params, AdamOptions{.lr = options.learning_rate, .weight_decay = options.weight_decay}),
        dropout_rng_(options.seed ^ 0xD50FULL) {}

  // One Adam step; returns the training loss before it. Throws DivergenceError (check_finite_step) when
  // the loss or a gradient is not finite.
  double step(Index epoch) {
    params_.zero_grad();
    const Matrix<float>& logits = forward(Mode::train(dropout_rng_));
    const double loss = cross_entropy_loss(dlogits_, logits, train_targets_);
    model_.backward(dlogits_);
    check_finite_step(params_, loss, epoch, 1);
    optimizer_.step();
    return loss;
  }

  // Fills the optimizer's and the generator's part of `state`.
  void save(TrainingState& state) const {
    state.optimizer = optimizer_.state();
    state.dropout_rng = dropout_rng_.state();
  }

  void restore(const TrainingState& state) {
    optimizer_.restore(state.optimizer);
    dropout_rng_ = SplitMix64(state.dropout_rng);
  }

  // Fills the report's accuracies and validation loss from one inference pass.
  void score(NodeEpochReport& report) {
    const Matrix<float>& logits = forward(Mode::inference());
    report.train_accuracy = accuracy(logits, train_targets_);
    report.val_accuracy = accuracy(logits, val_targets_);
    report.val_loss = std::isnan(report.val_accuracy) ? kNaN : cross_entropy_loss(dscratch_, logits, val_targets_);
  }

 private:
  const Matrix<float>& forward(Mode mode) {
    return sparse_features_ ? model_.forward(graph_, *sparse_features_, mode) : model_.forward(graph_, features_, mode);
  }

  NodeClassifier<float>& model_;
  Parameters<float>& params_;
  const Graph& graph_;
  const Matrix<float>& features_;
  std::optional<SparseMatrix<float>> sparse_features_;  // the features again when mostly zeros
  std::vector<Index> train_targets_;
  std::vector<Index> val_targets_;
  Adam<float> optimizer_;
  SplitMix64 dropout_rng_;
  Matrix<float> dlogits_;
  Matrix<float> dscratch_;  // the validation loss's gradient, which nothing uses
};

std::string accuracy_text(double value) {
  if (std::isnan(value)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}

void log_setup(const Logger& log, const Split& split, const NodeTrainingOptions& options) {
  log.verbose("training on " + std::to_string(split.train.size()) + " nodes, validating on " +
              std::to_string(split.val.size()) + " by accuracy; at most " + std::to_string(options.epochs) +
              " epochs, patience " + std::to_string(options.patience));
}

void log_epoch(const Logger& log, const NodeEpochReport& report, Index epochs) {
  if (!log.enabled(LogLevel::normal)) return;
  const EpochProgress progress{.epoch = report.epoch,
                               .epochs = epochs,
                               .train_loss = report.train_loss,
                               .metric = "accuracy",
                               .validation = report.val_accuracy,
                               .seconds = report.seconds};
  log.normal(node_epoch_line(report), &progress);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::string node_epoch_line(const NodeEpochReport& report) {
  char line[120];
  std::snprintf(line, sizeof line, "epoch %4lld  loss %.4f  train %s  val %s%s  %.1f s",
                static_cast<long long>(report.epoch), report.train_loss, accuracy_text(report.train_accuracy).c_str(),
                accuracy_text(report.val_accuracy).c_str(), report.improved ? " *" : "  ", report.seconds);
  return line;
}

NodeTrainingResult train_node_classifier(NodeClassifier<float>& model, Parameters<float>& params, const Graph& graph,
                                         const Matrix<float>& features, std::span<const Index> labels,
                                         const Split& split, const NodeTrainingOptions& options,
                                         const std::function<void(const NodeEpochReport&)>& on_epoch,
                                         const TrainingCheckpoints& checkpoints) {
  check_options(options);
  check_inputs(model, graph, features, labels);
  if (split.train.empty()) throw ArgumentError("node training: the training split is empty");
  const Index classes = model.options().classes;
  FullBatchTrainer trainer(model, params, graph, features, part_targets(labels, split.train, classes, "training"),
                           part_targets(labels, split.val, classes, "validation"), options);

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
  log_setup(log, split, options);
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
    report.seconds = seconds_since(start);
    result.history.push_back(report);
    result.epochs_run = epoch;
    if (on_epoch) on_epoch(report);
    log_epoch(log, report, options.epochs);
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

Matrix<float> predict_node_probabilities(NodeClassifier<float>& model, const Graph& graph,
                                         const Matrix<float>& features) {
  Matrix<float> probabilities = model.forward(graph, features);
  for (Index i = 0; i < probabilities.rows(); ++i) {
    auto row = probabilities.row(i);
    row = (row.array() - row.maxCoeff()).exp().matrix();
    row /= row.sum();
  }
  return probabilities;
}

Matrix<float> embed_nodes(NodeClassifier<float>& model, const Graph& graph, const Matrix<float>& features) {
  model.forward(graph, features);
  return model.hidden();
}

NodeEvaluation evaluate_node_classifier(NodeClassifier<float>& model, const Graph& graph,
                                        const Matrix<float>& features, std::span<const Index> labels,
                                        std::span<const Index> nodes) {
  check_inputs(model, graph, features, labels);
  const Index classes = model.options().classes;
  const std::vector<Index> targets = part_targets(labels, nodes, classes, "evaluated");
  const Matrix<float>& logits = model.forward(graph, features);
  std::vector<Index> predicted(targets.size());
  for (std::size_t node = 0; node < predicted.size(); ++node)
    predicted[node] = argmax(logits, static_cast<Index>(node));
  Matrix<float> dlogits;
  NodeEvaluation evaluation;
  evaluation.loss = cross_entropy_loss(dlogits, logits, targets);
  evaluation.metrics = node_classification_metrics(predicted, targets, classes);
  return evaluation;
}

}  // namespace edgewise
