/// \file
/// Full-batch training of a NodeClassifier on one graph, as in the GAT recipe: every epoch is one
/// Adam step on the mean cross-entropy of the training nodes with dropout active, followed by one
/// pass over the whole graph in inference mode that scores the training and validation nodes.
///
/// Early stopping follows the GAT reference code: an epoch makes progress when its validation accuracy
/// or its validation loss is at least as good as every earlier epoch's, and its weights are kept when
/// both are. Training stops after `patience` epochs without progress and leaves the weights of the
/// last kept epoch in the parameters.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <vector>

#include "edgewise/core/log.hpp"
#include "edgewise/models/collectives.hpp"
#include "edgewise/models/metrics.hpp"
#include "edgewise/models/node_classifier.hpp"
#include "edgewise/splits/splits.hpp"
#include "edgewise/graph/partition.hpp"
#include "edgewise/models/training_state.hpp"

namespace edgewise {

/// Settings of train_node_classifier: full-batch Adam with early stopping on validation accuracy.
struct NodeTrainingOptions {
  Index epochs = 1000;  ///< Maximum number of full-batch steps.
  double learning_rate = 0.005;  ///< Adam's learning rate.
  /// An L2 term added to the gradient (Adam, not AdamW's decoupled decay), as GAT and PyTorch
  /// Geometric's GAT example train; it applies to every parameter.
  double weight_decay = 5e-4;
  Index patience = 100;    ///< epochs without improvement before stopping
  std::uint64_t seed = 0;  ///< of the dropout masks
  /// Normal: one line per epoch (node_epoch_line); verbose: also the setup and why training stopped.
  LogSettings log = {};
};

/// Every option, for checkpoints to tell whether a run continues the one that wrote them.
void to_json(nlohmann::json& j, const NodeTrainingOptions& options);

/// What one epoch of node training gave.
struct NodeEpochReport {
  Index epoch = 0;            ///< 1-based
  double train_loss = 0;      ///< of the training step, with dropout
  double train_accuracy = 0;  ///< in inference mode after the step
  double val_loss = 0;        ///< NaN without validation nodes
  double val_accuracy = 0;    ///< NaN without validation nodes
  double seconds = 0;         ///< since training started
  bool improved = false;  ///< Whether validation improved, so this epoch's weights are kept for now.
};

/// The outcome of train_node_classifier.
struct NodeTrainingResult {
  std::vector<NodeEpochReport> history;  ///< One report per epoch run (after a resumed checkpoint, the later ones).
  Index epochs_run = 0;          ///< the last epoch trained, counting the epochs before a resumed checkpoint
  Index best_epoch = 0;          ///< 1-based, the epoch whose weights were kept
  double best_val_accuracy = 0;  ///< NaN without validation nodes
  double best_val_loss = 0;      ///< NaN without validation nodes
};

/// The per-epoch log line, e.g.
///   epoch   12  loss 0.4123  train 0.950  val 0.812 *  3.2 s
/// with accuracies ("-" without validation nodes); * marks an improvement.
std::string node_epoch_line(const NodeEpochReport& report);

/// Trains `model` (its parameters already initialized) on the nodes of split.train, stopping early on
/// split.val; split.test is not looked at. labels: [N], class ids, negative for unlabeled nodes;
/// training and validation nodes must be labeled. Without validation nodes every epoch counts as
/// improving, so the last epoch's weights are kept. Calls on_epoch after each epoch, then
/// checkpoints.save when one is due (not after the epoch that stops training early). The same seed,
/// data and thread count give the same weights, whether or not the run was resumed from a checkpoint
/// (checkpoints.resume: the history then starts after it). Given the collectives of several
/// processes, it trains across them (train_node_classifier_on_parts). Throws ArgumentError on inconsistent
/// inputs and DivergenceError naming the epoch and parameter when the loss or a gradient stops being finite.
NodeTrainingResult train_node_classifier(NodeClassifier<float>& model, Parameters<float>& params, const Graph& graph,
                                         const ConstRowsRef<float>& features, std::span<const Index> labels,
                                         const Split& split, const NodeTrainingOptions& options = {},
                                         const std::function<void(const NodeEpochReport&)>& on_epoch = {},
                                         const TrainingCheckpoints& checkpoints = {},
                                         const Collectives& processes = single_process());

/// The rows of the listed nodes into `out` ([nodes, feature width], row-major), as a graph store's
/// gather_features gives them.
using FeatureRows = std::function<void(std::span<const NodeId> nodes, float* out)>;

/// What a process holds of its part of the graph for training (GraphPart's rows): the features
/// [rows, in_dim], and the class of each own training (validation) row, -1 for the other rows.
struct PartRows {
  Matrix<float> features;                 ///< [rows, in_dim]
  std::vector<Index> train_targets = {};  ///< [rows]
  std::vector<Index> val_targets = {};    ///< [rows]
};

/// train_node_classifier on a graph cut into one part a process, each process passing its own part
/// (graph_part, or a part store's) and its rows; `split` is the whole graph's. After each hidden layer
/// the processes exchange the halo rows of its output, and before its backward those of its gradient;
/// each process's mean loss is weighted by its share of all training rows and the gradients are summed,
/// so the result is train_node_classifier's on the whole graph up to the order of float sums. Every
/// process must call it, with the same options and its collectives. Throws as train_node_classifier
/// does, and ArgumentError when the rows do not fit the part or the model.
NodeTrainingResult train_node_classifier_on_part(NodeClassifier<float>& model, Parameters<float>& params,
                                                 const GraphPart& part, PartRows rows, const Split& split,
                                                 const NodeTrainingOptions& options = {},
                                                 const std::function<void(const NodeEpochReport&)>& on_epoch = {},
                                                 const TrainingCheckpoints& checkpoints = {},
                                                 const Collectives& processes = single_process());

/// The logits of a part's own rows [owned, classes] in inference mode, the whole graph's rows of those
/// nodes up to float sums; `features` [part rows, in_dim]. Every process must call it with its part.
Matrix<float> part_logits(NodeClassifier<float>& model, const GraphPart& part, const Matrix<float>& features,
                          const Collectives& processes = single_process());

/// train_node_classifier across the processes of a run (`processes`), which it calls given those of
/// several: the graph of `graph`'s in-edges is cut into one part a process by METIS (rank 0's cut), which
/// every process views whole; each process asks
/// `features` for its own nodes and its halo only, runs the network on them, and exchanges the halo
/// rows of every hidden layer with the other processes. The result is train_node_classifier's up to
/// the order of float sums (train_node_classifier_on_part). Must be called by every process with the
/// same arguments. Throws as train_node_classifier does.
NodeTrainingResult train_node_classifier_on_parts(NodeClassifier<float>& model, Parameters<float>& params,
                                                  const InEdges& graph, const FeatureRows& features,
                                                  std::span<const Index> labels, const Split& split,
                                                  const NodeTrainingOptions& options = {},
                                                  const std::function<void(const NodeEpochReport&)>& on_epoch = {},
                                                  const TrainingCheckpoints& checkpoints = {},
                                                  const Collectives& processes = single_process());

/// Replaces each row of logits by its softmax, in place.
void softmax_rows(Matrix<float>& logits);

/// Class probabilities of every node in inference mode: the row-wise softmax of the logits,
/// [N, classes].
Matrix<float> predict_node_probabilities(NodeClassifier<float>& model, const Graph& graph,
                                         const ConstRowsRef<float>& features);

/// The model's hidden representation of every node in inference mode (NodeClassifier::hidden),
/// [N, hidden_dim()].
Matrix<float> embed_nodes(NodeClassifier<float>& model, const Graph& graph, const ConstRowsRef<float>& features);

/// Loss and metrics of a classifier on a set of nodes.
struct NodeEvaluation {
  double loss = 0;  ///< mean cross-entropy over the scored nodes
  NodeClassificationMetrics metrics;  ///< Accuracy, macro-F1 and per-class scores.
};

/// Scores the given nodes by logits already computed, [N, classes]. labels: [N]; every listed node
/// must be labeled.
NodeEvaluation evaluate_node_logits(const Matrix<float>& logits, std::span<const Index> labels,
                                    std::span<const Index> nodes, Index classes);

/// Scores the given nodes in inference mode. labels: [N]; every listed node must be labeled.
NodeEvaluation evaluate_node_classifier(NodeClassifier<float>& model, const Graph& graph,
                                        const ConstRowsRef<float>& features, std::span<const Index> labels,
                                        std::span<const Index> nodes);

}  // namespace edgewise
