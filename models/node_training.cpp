#include "edgewise/models/node_training.hpp"

#include <algorithm>
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
#include "node_common.hpp"

namespace edgewise {

void to_json(nlohmann::json& j, const NodeTrainingOptions& options) {
  j = nlohmann::json{{"epochs", options.epochs},
                     {"learning_rate", options.learning_rate},
                     {"weight_decay", options.weight_decay},
                     {"patience", options.patience},
                     {"seed", options.seed}};
}

namespace {

using detail::argmax;
using detail::part_targets;

}  // namespace

std::string node_epoch_line(const NodeEpochReport& report) {
  char line[120];
  std::snprintf(line, sizeof line, "epoch %4lld  loss %.4f  train %s  val %s%s  %.1f s",
                static_cast<long long>(report.epoch), report.train_loss, score_text(report.train_accuracy, 3).c_str(),
                score_text(report.val_accuracy, 3).c_str(), report.improved ? " *" : "  ", report.seconds);
  return line;
}

NodeTrainingResult train_node_classifier(NodeClassifier<float>& model, Parameters<float>& params, const Graph& graph,
                                         const ConstRowsRef<float>& features, std::span<const Index> labels,
                                         const Split& split, const NodeTrainingOptions& options,
                                         const std::function<void(const NodeEpochReport&)>& on_epoch,
                                         const TrainingCheckpoints& checkpoints, const Collectives& processes) {
  detail::check_node_training_options(options);
  detail::check_node_inputs(model, graph, features, labels);
  if (split.train.empty()) throw ArgumentError("node training: the training split is empty");
  if (processes.size() > 1) {
    const FeatureRows rows = [&features](std::span<const NodeId> nodes, float* out) {
      for (const NodeId node : nodes) out = std::copy_n(features.row(node).data(), features.cols(), out);
    };
    return train_node_classifier_on_parts(model, params, graph.in_edges(), rows, labels, split, options, on_epoch,
                                          checkpoints, processes);
  }
  const Index classes = model.options().classes;
  detail::FullBatchTrainer trainer(model, params, graph, features,
                                   part_targets(labels, split.train, classes, "training"),
                                   part_targets(labels, split.val, classes, "validation"), options);
  return detail::run_node_epochs(trainer, params, split, options, on_epoch, checkpoints);
}

void softmax_rows(Matrix<float>& logits) {
  for (Index i = 0; i < logits.rows(); ++i) {
    auto row = logits.row(i);
    row = (row.array() - row.maxCoeff()).exp().matrix();
    row /= row.sum();
  }
}

Matrix<float> predict_node_probabilities(NodeClassifier<float>& model, const Graph& graph,
                                         const ConstRowsRef<float>& features) {
  Matrix<float> probabilities = model.forward(graph, features);
  softmax_rows(probabilities);
  return probabilities;
}

Matrix<float> embed_nodes(NodeClassifier<float>& model, const Graph& graph, const ConstRowsRef<float>& features) {
  model.forward(graph, features);
  return model.hidden();
}

NodeEvaluation evaluate_node_logits(const Matrix<float>& logits, std::span<const Index> labels,
                                    std::span<const Index> nodes, Index classes) {
  if (logits.rows() != static_cast<Index>(labels.size()) || logits.cols() != classes)
    throw ArgumentError("node classification: logits are [" + std::to_string(logits.rows()) + ", " +
                        std::to_string(logits.cols()) + "] for " + std::to_string(labels.size()) + " labels and " +
                        std::to_string(classes) + " classes");
  const std::vector<Index> targets = part_targets(labels, nodes, classes, "evaluated");
  std::vector<Index> predicted(targets.size());
  for (std::size_t node = 0; node < predicted.size(); ++node)
    predicted[node] = argmax(logits, static_cast<Index>(node));
  Matrix<float> dlogits;
  NodeEvaluation evaluation;
  evaluation.loss = cross_entropy_loss(dlogits, logits, targets);
  evaluation.metrics = node_classification_metrics(predicted, targets, classes);
  return evaluation;
}

NodeEvaluation evaluate_node_classifier(NodeClassifier<float>& model, const Graph& graph,
                                        const ConstRowsRef<float>& features, std::span<const Index> labels,
                                        std::span<const Index> nodes) {
  detail::check_node_inputs(model, graph, features, labels);
  return evaluate_node_logits(model.forward(graph, features), labels, nodes, model.options().classes);
}

}  // namespace edgewise
