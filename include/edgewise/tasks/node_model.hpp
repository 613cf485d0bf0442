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
#include "edgewise/io/graph_files.hpp"
#include "edgewise/models/checkpoint.hpp"
#include "edgewise/models/model_file.hpp"
#include "edgewise/models/node_training.hpp"

namespace edgewise {

/// The "kind" of a node model's configuration in its model file.
inline constexpr std::string_view kNodeModelKind = "node-classification";

/// How a graph's files are read and its node features made.
struct NodeInputOptions {
  NodeIds ids = NodeIds::integer;  ///< of the edge list, the labels and the features
  bool directed = false;  ///< Read the edge list as directed (see EdgeListOptions::directed).
  bool add_self_loops = true;  ///< Give every node a self-loop, so attention includes the node itself.
  /// dim 0: inferred when read. max_degree and walk_steps apply to FeatureFormat::structural only;
  /// a spec given whole replaces their defaults.
  FeatureSpec features = {.format = FeatureFormat::structural,
                          .dim = 0,
                          .max_degree = StructuralFeatureOptions{}.max_degree,
                          .walk_steps = StructuralFeatureOptions{}.walk_steps};
  /// Divides each nonzero feature row by its L1 norm (PyTorch Geometric's NormalizeFeatures in the GAT
  /// recipe), so that nodes with long word lists do not get larger inputs.
  bool normalize_rows = false;
  /// The graph attention runs on: false, the edges (with add_self_loops' self-loops); true, one
  /// self-loop per node and nothing else, so that every layer attends to the node itself only and the
  /// network is an MLP on the node features (a baseline). Structural features are still computed from
  /// the edges. Needs add_self_loops.
  bool self_loops_only = false;
};

/// Whether features of this format are row-normalized unless said otherwise: the bag-of-words formats
/// (sparse, musae_json).
bool normalizes_rows_by_default(FeatureFormat format);

/// Members left out of a designated initializer are empty.
struct NodeGraphFiles {
  std::filesystem::path edges = {};  ///< The edge list; required.
  std::filesystem::path labels = {};    ///< empty: no labels
  FileColumn label_node_column = Index{0};  ///< The labels file's node column: index or header name.
  FileColumn label_column = Index{1};       ///< The labels file's label column: index or header name.
  std::filesystem::path features = {};  ///< empty: structural features, which options.features must then ask for
};

/// A graph read from files, with its features and labels.
struct NodeGraph {
  NodeIndex nodes;  ///< Node names by id, for every node of the three files.
  Graph graph;             ///< the graph attention runs on (input.self_loops_only: self-loops only)
  Matrix<float> features;  ///< [N, input.features.dim], normalized as input says
  NodeLabels labels;       ///< every node unlabeled without a labels file
  NodeInputOptions input;  ///< the options it was read with, features.dim resolved
  Index edge_list_nodes = 0;  ///< nodes named by the edge list: ids >= this came from the labels or features only
  Index edge_list_edges = 0;  ///< distinct edges of the edge list
};

/// Reads the edge list, then the labels and the features, which may add nodes that have no edges (as
/// isolated nodes with a self-loop), then builds the graph and computes or normalizes the features;
/// with options.self_loops_only, the graph kept is then the self-loops alone. Throws ArgumentError
/// when the features file and options.features.format disagree (a file with the structural format, or
/// no file with another), for self_loops_only without add_self_loops, and what the readers throw.
NodeGraph read_node_graph(const NodeGraphFiles& files, const NodeInputOptions& options);

/// A graph built in memory (Graph::from_pairs, from_boost, a generator) with its features [N, dim] and
/// labels: labels.classes holds one class id per node (-1: unlabeled) of labels.class_names, or is
/// empty for a graph without labels. Nodes are named by their ids ("0" .. "N-1"), and `input` says
/// the features are dense rows of that width, not normalized. The graph is used as given: build it
/// with the self-loops and reverse edges that attention needs. Throws ArgumentError when the features
/// do not have one row per node or are not finite, the labels one entry per node, or a class id is
/// not below the number of class names.
NodeGraph make_node_graph(Graph graph, Matrix<float> features, NodeLabels labels = {});

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

/// The defaults for training on split.train's labelled nodes of data.
NodeTrainingDefaults default_node_training(const NodeGraph& data, const NodeSplit& split);

/// Members left out of a designated initializer take their defaults.
struct NodeModelConfig {
  NodeClassifierOptions network = {};     ///< in_dim and classes are set from input and classes
  std::vector<std::string> classes = {};  ///< class names, by class id
  NodeInputOptions input = {};            ///< input.features.dim must be known
  std::vector<std::string> nodes = {};    ///< the training graph's node names by id; set by fit
};

/// A trained node classifier with everything needed to read new graphs the same way: the
/// network, class names, input options and the training graph's node names, saved and loaded as
/// one model file. Not thread-safe, const members included (they run the network, which holds the
/// state of its last forward); its own loops run in parallel.
class NodeModel {
 public:
  /// Throws ArgumentError without classes, without a feature dimension, or on bad network options.
  explicit NodeModel(NodeModelConfig config);
  /// Movable, not copyable.
  /// @{
  NodeModel(NodeModel&&) noexcept;
  NodeModel& operator=(NodeModel&&) noexcept;
  /// @}
  ~NodeModel();

  /// Reads a model file; throws ModelFormatError naming the file when it is not a valid node model.
  static NodeModel load(const std::string& path);
  /// Writes atomically (see save_model).
  void save(const std::string& path, Overwrite overwrite = Overwrite::allow) const;

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
  NodeTrainingResult fit(const NodeGraph& data, const NodeSplit& split, const NodeTrainingOptions& options,
                         const std::function<void(const NodeEpochReport&)>& on_epoch = {},
                         const CheckpointOptions& checkpoints = {});

  /// Class probabilities of every node, [N, classes].
  Matrix<float> predict(const NodeGraph& data) const;
  /// The final hidden representation of every node, [N, embedding_dim()].
  Matrix<float> embed(const NodeGraph& data) const;
  /// Scores the listed nodes, which must be labeled.
  NodeEvaluation evaluate(const NodeGraph& data, std::span<const Index> nodes) const;

  /// The ids of `nodes` in the order outputs list them: integer names in increasing order; string
  /// names in the order of the training graph, then the names new to the model in their own order.
  std::vector<Index> output_order(const NodeIndex& nodes) const;

  /// The configuration, with the node names set by fit() or load().
  const NodeModelConfig& config() const { return config_; }
  /// How the model was trained, saved with it and shown by `edgewise info`; absent unless set or
  /// loaded from a file that has one.
  const std::optional<TrainingSummary>& training_summary() const { return training_; }
  /// Sets the summary that save() writes.
  void set_training_summary(TrainingSummary summary) { training_ = std::move(summary); }
  /// Width of embed()'s rows: NodeClassifier::hidden_dim().
  Index embedding_dim() const;
  /// Trainable scalars.
  Index num_parameters() const { return params_->size(); }

 private:
  NodeModelConfig config_;
  std::unique_ptr<Parameters<float>> params_;
  std::unique_ptr<NodeClassifier<float>> network_;
  std::optional<TrainingSummary> training_;
};

}  // namespace edgewise
