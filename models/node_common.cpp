#include "node_common.hpp"

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
  constexpr double kSparseFeatureDensity = 0.1;
  const auto nonzeros = static_cast<double>((features.array() != 0.0f).count());
  if (nonzeros >= kSparseFeatureDensity * static_cast<double>(features.size())) return std::nullopt;
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

double accuracy(const Matrix<float>& logits, std::span<const Index> targets) {
  Index scored = 0, correct = 0;
  for (std::size_t node = 0; node < targets.size(); ++node) {
    if (targets[node] < 0) continue;
    ++scored;
    if (argmax(logits, static_cast<Index>(node)) == targets[node]) ++correct;
  }
  return scored > 0 ? static_cast<double>(correct) / static_cast<double>(scored) : kNaN;
}

EpochSettings node_epoch_settings(const Split& split, const NodeTrainingOptions& options) {
  return {.epochs = options.epochs,
          .stopping = {.larger_better = true, .with_loss = true, .ties_count = true, .patience = options.patience},
          .log = options.log,
          .setup = "training on " + std::to_string(split.train.size()) + " nodes, validating on " +
                   std::to_string(split.val.size()) + " by accuracy; at most " + std::to_string(options.epochs) +
                   " epochs, patience " + std::to_string(options.patience),
          .metric = "accuracy",
          .judged_by = "on the validation nodes"};
}

}  // namespace edgewise::detail
