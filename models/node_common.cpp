#include "node_common.hpp"

#include <algorithm>

#include "edgewise/core/error.hpp"

namespace edgewise::detail {

void check_node_training_options(const NodeTrainingOptions& options) {
  if (options.epochs < 1) throw ArgumentError("node training: epochs must be at least 1");
  if (!(options.learning_rate > 0)) throw ArgumentError("node training: learning rate must be positive");
  if (!(options.weight_decay >= 0)) throw ArgumentError("node training: weight decay must not be negative");
  if (options.patience < 1) throw ArgumentError("node training: patience must be at least 1");
}

void check_node_inputs(const NodeClassifier<float>& model, const Graph& graph, const ConstRowsRef<float>& features,
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

std::optional<SparseMatrix<float>> sparse_copy_if_sparse(const ConstRowsRef<float>& features) {
  const auto nonzeros = static_cast<double>((features.array() != 0.0f).count());
  if (nonzeros >= sparse_feature_density * static_cast<double>(features.size())) return std::nullopt;
  return SparseMatrix<float>(features.sparseView());
}

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

double accuracy(const Matrix<float>& logits, std::span<const Index> targets, const Collectives& processes) {
  std::uint64_t scored = 0, correct = 0;
  for (std::size_t row = 0; row < targets.size(); ++row) {
    if (targets[row] < 0) continue;
    ++scored;
    correct += argmax(logits, static_cast<Index>(row)) == targets[row];
  }
  scored = processes.sum(scored);
  correct = processes.sum(correct);
  return scored > 0 ? static_cast<double>(correct) / static_cast<double>(scored) : kNaN;
}

Index count_targets(std::span<const Index> targets) {
  return static_cast<Index>(std::ranges::count_if(targets, [](Index target) { return target >= 0; }));
}

double target_share(std::span<const Index> targets, const Collectives& processes) {
  const auto own = static_cast<std::uint64_t>(count_targets(targets));
  const std::uint64_t all = processes.sum(own);
  return all > 0 ? static_cast<double>(own) / static_cast<double>(all) : 0.0;
}

}  // namespace edgewise::detail
