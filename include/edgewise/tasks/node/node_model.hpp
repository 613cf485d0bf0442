/// \file
/// A trained node classifier as one object: how its graph files are read and featurized, the network,
/// the class names and the training graph's node names. Saved to and loaded from one model file, so
/// that prediction reads a graph exactly as training did.
///
///   NodeGraph data = read_node_graph({.edges = "edges.txt", .labels = "labels.txt",
///                                     .features = "features.txt"}, input);
///   NodeModel model({.network = options, .classes = data.labels.class_names, .input = data.input});
///   model.initialize(seed);
///   model.fit(data, split, training);
///   model.save("cora.ew");
///
///   NodeModel loaded = NodeModel::load("cora.ew");
///   NodeGraph graph = loaded.read_graph({.edges = "edges.txt", .features = "features.txt"});
///   Matrix<float> probabilities = loaded.predict(graph);  // [N, classes]
///
/// A graph built in memory takes the place of the files:
///
///   NodeGraph data = make_node_graph(from_boost(network, {.add_self_loops = true}), features,
///                                    {.classes = class_ids, .class_names = {"a", "b"}});
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "edgewise/core/files.hpp"
#include "edgewise/splits/splits.hpp"
#include "edgewise/io/graph_store.hpp"
#include "edgewise/io/node_graph.hpp"
#include "edgewise/models/checkpoint.hpp"
#include "edgewise/models/model_file.hpp"
#include "edgewise/models/node_training.hpp"
#include "edgewise/models/sampled_training.hpp"
#include "edgewise/models/uncertainty.hpp"
#include "edgewise/tasks/common/model.hpp"

namespace edgewise {

namespace distributed {
struct ListedRows;
}

/// The "kind" of a node model's configuration in its model file.
inline constexpr std::string_view kNodeModelKind = "node-classification";

/// The regularization a node classifier trains with unless told otherwise, chosen from what the data
/// shows before training (docs/defaults.md has the validation runs that chose the rule):
/// - structural features: dropout and attention dropout 0.1, as a dropped column of the degree
///   one-hot loses the node's degree;
/// - few training labels a class (at most kFewLabelsPerClass: the semi-supervised setting of the
///   Planetoid benchmarks): the GAT paper's dropout 0.6, attention dropout 0.6 and weight decay 5e-4;
/// - more labels: dropout 0.5, attention dropout 0.1 and no weight decay, as the recipe underfits
///   once labels are plenty.
/// Structural features keep weight decay 5e-4.
struct NodeTrainingDefaults {
  double dropout = 0.6;            ///< on the input of every attention layer (and its values)
  double attention_dropout = 0.6;  ///< on the attention weights
  double weight_decay = 5e-4;      ///< Adam's L2 term
  std::string reason = {};  ///< the case that chose them and the figure it read, for logs and `edgewise info`
};

/// Training labels per class up to which the GAT recipe's regularization is the default.
inline constexpr double kFewLabelsPerClass = 25;

/// The defaults for training on split.train's labelled nodes of a graph whose features have `format`
/// and whose labels fall into `classes` classes.
NodeTrainingDefaults default_node_training(FeatureFormat format, Index classes, const Split& split);

/// The same for data.
NodeTrainingDefaults default_node_training(const NodeGraph& data, const Split& split);

/// Regularization a caller chose; default_node_training chooses what is left empty.
struct NodeRegularization {
  std::optional<double> dropout;            ///< NodeClassifierOptions::dropout
  std::optional<double> attention_dropout;  ///< NodeClassifierOptions::attention_dropout
  std::optional<double> value_dropout;      ///< default: the dropout, as the GAT reference code trains
  std::optional<double> weight_decay;       ///< NodeTrainingOptions::weight_decay
};

/// Sampled mini-batches a caller asked for; asking for either turns sampling on, and what is left
/// empty takes SamplingOptions' default.
struct NodeBatching {
  std::optional<Index> batch_size = std::nullopt;  ///< seed nodes a step
  std::vector<Index> fanouts = {};  ///< one per layer, seeds first; -1 takes every neighbour
};

/// Whether node training runs on the whole graph or on sampled mini-batches, and why.
struct BatchingChoice {
  bool sampled = false;       ///< mini-batches of sampled neighbourhoods
  SamplingOptions sampling;   ///< their settings, when sampled
  std::string reason = {};    ///< what chose it, for --verbose logs
};

/// The memory full-batch training holds at once, in bytes: every layer's activations and their
/// gradients (about 48 bytes per node and output column, 16 per edge and head) and the features.
/// Inference holds about half of it.
double full_batch_bytes(Index nodes, Index edges, const NodeClassifierOptions& network);

/// What full-batch runs may hold: a quarter of the machine's physical memory, so that the graph, the
/// features and the rest of the process fit beside it.
double full_batch_budget_bytes();

/// Full-batch training where full_batch_bytes is within full_batch_budget_bytes, sampled mini-batches
/// above it or whenever `given` asks for them.
BatchingChoice choose_node_batching(Index nodes, Index edges, const NodeClassifierOptions& network,
                                    const NodeBatching& given = {});

/// Network and training options ready for NodeModel and NodeModel::fit.
struct NodeTrainingSettings {
  NodeClassifierOptions network;  ///< with the dropouts given or chosen
  NodeTrainingOptions training;   ///< with the weight decay given or chosen
  BatchingChoice batching;        ///< full batch or sampled mini-batches, given or chosen
  /// What default_node_training chose and why ("dropout 0.6, weight decay 0.0005 for ..."), for logs
  /// and TrainingSummary::defaults; empty when `given` set all three.
  std::string defaults;
};

/// `network` and `training` with the regularization `given`, and default_node_training's choice for
/// data and split where it is empty, batched as choose_node_batching decides; what `edgewise train
/// --task node` trains with.
NodeTrainingSettings node_training_settings(NodeClassifierOptions network, NodeTrainingOptions training,
                                            const NodeRegularization& given, const NodeGraph& data,
                                            const Split& split, const NodeBatching& batching = {});

/// The same for a graph store, whose size and defaults are read from its header.
NodeTrainingSettings node_training_settings(NodeClassifierOptions network, NodeTrainingOptions training,
                                            const NodeRegularization& given, const GraphStore& store,
                                            const Split& split, const NodeBatching& batching = {});

/// Members left out of a designated initializer take their defaults.
struct NodeModelConfig {
  NodeClassifierOptions network = {};     ///< in_dim and classes are set from input and classes
  std::vector<std::string> classes = {};  ///< class names, by class id
  NodeInputOptions input = {};            ///< input.features.dim must be known
  std::vector<std::string> nodes = {};    ///< the training graph's node names by id; set by fit
  /// Temperature and conformal scores, set by calibrate; absent before, and in files written without.
  std::optional<ClassCalibration> calibration = std::nullopt;
};

/// A trained node classifier with everything needed to read new graphs the same way: the
/// network, class names, input options and the training graph's node names, saved and loaded as
/// one model file. Not thread-safe, const members included (they run the network, which holds the
/// state of its last forward); its own loops run in parallel.
class NodeModel final : public Model {
 public:
  /// Throws ArgumentError without classes, without a feature dimension, or on bad network options.
  explicit NodeModel(NodeModelConfig config);
  /// Movable, not copyable.
  /// @{
  NodeModel(NodeModel&&) noexcept;
  NodeModel& operator=(NodeModel&&) noexcept;
  /// @}
  ~NodeModel() override;

  /// Reads a model file; throws ModelFormatError naming the file when it is not a valid node model.
  static NodeModel load(const std::string& path);
  /// The same from a file load_model has read; `path` names it in errors.
  static NodeModel load(const ModelFile& file, const std::string& path);
  /// Task::node.
  Task task() const override { return Task::node; }
  /// Writes atomically (see save_model).
  void save(const std::string& path, Overwrite overwrite = Overwrite::allow) const override;
  /// Classes, training graph size, parameters; the network and the input options.
  ModelDescription describe() const override;

  /// Initial weights drawn from SplitMix64(seed), as NodeClassifier::reset_parameters draws them.
  void initialize(std::uint64_t seed);

  /// Reads a graph the way the model's training graph was read. Labels are mapped to the model's
  /// classes by name; a label the model does not know is an ArgumentError.
  NodeGraph read_graph(const NodeGraphFiles& files) const;

  /// Trains on data.labels (class ids of config().classes) and records data's node names. Writes a
  /// checkpoint to checkpoints.path every checkpoints.every epochs. With checkpoints.resume,
  /// continues the run that wrote that checkpoint and ends with the weights that run would have
  /// ended with (same thread count); throws ArgumentError naming the first difference when the
  /// checkpoint was written for another configuration, other options, graph, features, labels or
  /// split, and ModelFormatError when it is not a valid checkpoint.
  /// With batching.sampled, trains on sampled mini-batches (train_node_classifier_sampled).
  NodeTrainingResult fit(const NodeGraph& data, const Split& split, const NodeTrainingOptions& options,
                         const std::function<void(const NodeEpochReport&)>& on_epoch = {},
                         const CheckpointOptions& checkpoints = {}, const BatchingChoice& batching = {});

  /// Trains on a graph store: full batch on a copy in memory (GraphStore::to_node_graph), or sampled
  /// mini-batches read from the mapped file. A store whose nodes are named by their ids records no
  /// node names in the model. Throws as the other fit does.
  /// On a part store (io/graph_parts.hpp), every process of the run passes its own part and the whole
  /// graph's split, and trains full batch (train_node_classifier_on_part); the model records every
  /// node's name. Throws ArgumentError there for sampled batching, which needs features beyond the halo.
  NodeTrainingResult fit(const GraphStore& store, const Split& split, const NodeTrainingOptions& options,
                         const std::function<void(const NodeEpochReport&)>& on_epoch = {},
                         const CheckpointOptions& checkpoints = {}, const BatchingChoice& batching = {});

  /// Calibrates the probabilities on the listed nodes, which must be labeled and which training must
  /// not have seen (the validation nodes): config().calibration, from fit_class_calibration on the
  /// uncalibrated probabilities. Throws ArgumentError for fewer than two nodes. On a part store
  /// (io/graph_parts.hpp) every process of the run passes its part and the same nodes of the whole
  /// graph, and each gets the calibration one process gets from the whole graph.
  /// @{
  void calibrate(const NodeGraph& data, std::span<const Index> nodes);
  void calibrate(const GraphStore& store, std::span<const Index> nodes);
  /// @}

  /// Class probabilities of every node, [N, classes], calibrated once the model is. A graph whose full-batch inference would not
  /// fit in full_batch_budget_bytes runs layer by layer (layerwise_logits), with the same results up
  /// to the order of float sums.
  Matrix<float> predict(const NodeGraph& data) const;
  /// The final hidden representation of every node, [N, embedding_dim()]; layer by layer as predict.
  Matrix<float> embed(const NodeGraph& data) const;
  /// Scores the listed nodes, which must be labeled.
  NodeEvaluation evaluate(const NodeGraph& data, std::span<const Index> nodes) const;

  /// The least calibrated probability that puts a class in the prediction set of `coverage`
  /// (ClassCalibration::set_threshold). Throws ArgumentError for a model without calibration, and
  /// as set_threshold does.
  double set_threshold(double coverage) const;

  /// How well the probabilities describe the labels of the listed nodes, which must be labeled
  /// (score_class_uncertainty), with the prediction sets of `coverage`; the sets' scores are NaN
  /// without a coverage or a calibration. Throws as ClassCalibration::set_threshold does.
  ClassUncertaintyScores score_probabilities(const NodeGraph& data, std::span<const Index> nodes,
                                             std::optional<double> coverage) const;

  /// predict, embed, evaluate and score_probabilities for a store, layer by layer from the mapped file. Its labels are
  /// mapped to the model's classes by name. Throws ArgumentError when its features do not have the
  /// model's width or a label is not one of the model's classes, and for a part store, which only
  /// evaluate takes: every process passes its part and the same nodes of the whole graph, and each
  /// gets the evaluation of them all.
  /// @{
  Matrix<float> predict(const GraphStore& store) const;
  Matrix<float> embed(const GraphStore& store) const;
  NodeEvaluation evaluate(const GraphStore& store, std::span<const Index> nodes) const;
  ClassUncertaintyScores score_probabilities(const GraphStore& store, std::span<const Index> nodes,
                                             std::optional<double> coverage) const;
  /// @}

  /// The ids of `nodes` in the order outputs list them: integer names in increasing order; string
  /// names in the order of the training graph, then the names new to the model in their own order.
  std::vector<Index> output_order(const NodeIndex& nodes) const;

  /// The configuration, with the node names set by fit() or load().
  const NodeModelConfig& config() const { return config_; }
  /// Width of embed()'s rows: NodeClassifier::hidden_dim().
  Index embedding_dim() const;
  /// Trainable scalars.
  Index num_parameters() const override { return params_->size(); }

 private:
  bool runs_layerwise(const NodeGraph& data) const;
  TrainingCheckpoints checkpoint_hooks(const CheckpointOptions& checkpoints, const nlohmann::json& identity,
                                       std::optional<Checkpoint>& resumed);
  NodeSource checked_source(const GraphStore& store) const;
  void check_feature_width(const GraphStore& store) const;
  NodeTrainingResult fit_part(const GraphStore& store, const Split& split, const NodeTrainingOptions& options,
                              const std::function<void(const NodeEpochReport&)>& on_epoch,
                              const CheckpointOptions& checkpoints, const BatchingChoice& batching);
  NodeEvaluation evaluate_part(const GraphStore& store, std::span<const Index> nodes) const;
  distributed::ListedRows listed_part_logits(const GraphStore& store, std::span<const Index> nodes) const;
  Matrix<float> uncalibrated(const NodeGraph& data) const;
  Matrix<float> uncalibrated(const GraphStore& store) const;
  Matrix<float> calibrated(Matrix<float> probabilities) const;
  ClassUncertaintyScores scored(const Matrix<float>& probabilities, std::span<const Index> labels,
                                std::optional<double> coverage) const;
  std::vector<Index> store_labels(const GraphStore& store) const;

  NodeModelConfig config_;
  std::unique_ptr<Parameters<float>> params_;
  std::unique_ptr<NodeClassifier<float>> network_;
};

}  // namespace edgewise
