/// \file
/// A trained link predictor as one object: how its graph files are read and featurized, the node
/// encoder, the scorer that turns two embeddings into the logit of a link, and the training graph's
/// node names. Saved to and loaded from one model file, so that prediction reads a graph exactly as
/// training did.
///
///   NodeGraph data = read_node_graph({.edges = "edges.txt", .features = "features.txt"},
///                                    {.features = {.format = FeatureFormat::sparse}});
///   const LinkSplit split = split_links(graph_links(data), data.nodes.size(), 0.85, 0.05, seed);
///   LinkModel model({.input = data.input});
///   model.initialize(seed);
///   model.fit(with_edges(data, split.train), split, {});  // the graph without its held-out links
///   model.save("cora-links.ew");
///
///   LinkModel loaded = LinkModel::load("cora-links.ew");
///   NodeGraph graph = loaded.read_graph({.edges = "edges.txt", .features = "features.txt"});
///   std::vector<float> logits = loaded.score_pairs(graph, {{0, 633}, {0, 17}});
///   auto suggestions = loaded.recommend(graph, std::vector<Index>{0}, 10);  // 10 new partners of node 0
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "edgewise/io/graph_store.hpp"
#include "edgewise/io/node_graph.hpp"
#include "edgewise/models/link_training.hpp"
#include "edgewise/models/model_file.hpp"
#include "edgewise/models/sampled_link_training.hpp"
#include "edgewise/tasks/common/model.hpp"

namespace edgewise {

/// The "kind" of a link model's configuration in its model file.
inline constexpr std::string_view kLinkModelKind = "link-prediction";

/// The encoder a link model trains unless told otherwise: 2 attention layers of 4 heads of 32 and an
/// output layer 64 wide (the embedding), without dropout; default_link_layers and
/// default_link_dropout adapt it to the graph. docs/defaults.md has the validation runs that chose them.
NodeClassifierOptions default_link_encoder();

/// The encoder's attention layers unless told: 1 on a graph's given features alone (without identity
/// features), where a second layer overfits, else 2, as cross-validation inside the training links
/// of several graphs chose (docs/defaults.md).
Index default_link_layers(bool on_given_features_alone);

/// The encoder's dropout unless told: 0.5 for one layer on given features, else 0 (docs/defaults.md).
double default_link_dropout(bool one_layer_on_given_features);

/// The score of the encoder's output layer unless told: with identity features, scaled dot products
/// (a node weighs a neighbour by how alike their learned vectors are, which ranks the likeliest
/// partners better at no cost in memory: docs/defaults.md), else the score of every layer (empty).
std::optional<ScoreFunction> default_link_output_score(bool identity_features);

/// The scorer a link model trains unless told otherwise: the dot product of the embeddings with
/// identity features, else the MLP on their element-wise product, as cross-validation inside the
/// training links of several graphs chose (docs/defaults.md).
PairScorer default_pair_scorer(bool identity_features);

/// The most nodes default_identity_features gives identity features: their weights, 128 a node in
/// the default encoder, take about 2 KB a node with their gradient and Adam's moments.
inline constexpr Index kMostIdentityFeatureNodes = 100'000;

/// Whether a link model of `data` reads identity features unless told: when the graph has no given
/// features (structural ones) and at most kMostIdentityFeatureNodes nodes. Cross-validation inside the
/// training links chose them on the graphs without features, and not on those with (docs/defaults.md).
bool default_identity_features(const NodeGraph& data);

/// Members left out of a designated initializer take their defaults.
struct LinkModelConfig {
  NodeClassifierOptions network = default_link_encoder();  ///< in_dim is set from input; classes: the embedding width
  PairScorer scorer = PairScorer::mlp;  ///< how a pair's embeddings become the logit of a link
  NodeInputOptions input = {};          ///< input.features.dim must be known before training; undirected
  /// The encoder also reads each node's one-hot id (EncoderInput), which ties the model to the
  /// nodes of its training graph: `nodes` must then name them before training.
  bool identity_features = false;
  std::vector<std::string> nodes = {};  ///< the training graph's node names by id; set by fit
};

/// A link model to train, and the defaults that the graph chose for it.
struct LinkModelPlan {
  LinkModelConfig config = {};  ///< the input options and nodes are the graph's, which train_link_model sets
  /// The options the data decided and why, to log and record ("identity features on (a graph without
  /// given features), dropout 0.2 (with identity features)"); empty when every one was given.
  std::string defaults = {};
};

/// The distinct undirected links of data's graph, both directions of an edge one link, self-loops
/// left out: the links a split divides.
std::vector<NodePair> graph_links(const NodeGraph& data);

/// A trained link predictor with everything needed to read new graphs the same way, saved and
/// loaded as one model file. Not thread-safe, const members included (they run the encoder, which
/// holds the state of its last forward); its own loops run in parallel.
class LinkModel final : public Model {
 public:
  /// Throws ArgumentError for a directed input, features whose width is unknown, identity features
  /// without the nodes, or bad network options.
  explicit LinkModel(LinkModelConfig config);
  /// Movable, not copyable.
  /// @{
  LinkModel(LinkModel&&) noexcept;
  LinkModel& operator=(LinkModel&&) noexcept;
  /// @}
  ~LinkModel() override;

  /// Reads a model file; throws ModelFormatError naming the file when it is not a valid link model.
  static LinkModel load(const std::string& path);
  /// The same from a file load_model has read; `path` names it in errors.
  static LinkModel load(const ModelFile& file, const std::string& path);
  /// Task::link.
  Task task() const override { return Task::link; }
  /// Writes atomically (see save_model).
  void save(const std::string& path, Overwrite overwrite = Overwrite::allow) const override;
  /// Training graph size, embedding width, parameters; the encoder and the input options.
  ModelDescription describe() const override;

  /// Initial weights drawn from SplitMix64(seed): the encoder's, then the scorer's.
  void initialize(std::uint64_t seed);

  /// Reads a graph (its edge list and features; a labels file is ignored) the way the model's
  /// training graph was read.
  NodeGraph read_graph(const NodeGraphFiles& files) const;

  /// Trains on split.train's links (train_link_predictor) and records the graph's node names.
  /// training_graph: the graph of those links alone, with_edges(graph, split.train), which is all the
  /// encoder sees. Throws what train_link_predictor throws, and ArgumentError when training_graph's
  /// features do not have the model's width (or, with identity features, its nodes are not the
  /// configuration's) or its edges are not split.train's (both ways) and its self-loops, as when the
  /// held-out links were left in it.
  LinkTrainingResult fit(const NodeGraph& training_graph, const LinkSplit& split, const LinkTrainingOptions& options,
                         const std::function<void(const LinkEpochReport&)>& on_epoch = {});

  /// Trains on sampled mini-batches of a graph too large to run whole (train_link_predictor_sampled):
  /// seen holds the training links alone, source its in-edges and every node's features. Throws
  /// what that throws, and ArgumentError for a model with identity features, which sampled batches
  /// do not read, or features of another width.
  LinkTrainingResult fit_sampled(const LinkGraph& seen, const NodeSource& source, ScoredLinks validation,
                                 const LinkTrainingOptions& options, const LinkSamplingOptions& sampling,
                                 const std::function<void(const LinkEpochReport&)>& on_epoch = {});
  /// The logit of a link for each pair, on blocks sampled around its nodes (sampled_link_scores).
  std::vector<float> score_pairs_sampled(const NodeSource& source, std::span<const NodePair> pairs,
                                         const LinkSamplingOptions& sampling, std::uint64_t seed) const;

  /// Every node's embedding, [N, embedding width], on the graph as given; with identity features, a
  /// graph of the training graph's nodes, in the same order.
  Matrix<float> embed(const NodeGraph& graph) const;
  /// Every node's embedding in a graph store, exactly, one layer at a time over all nodes
  /// (layerwise_logits): for graphs too large to run whole. Throws ArgumentError for a model with
  /// identity features, or a store whose features were made otherwise than the training graph's.
  Matrix<float> embed(const GraphStore& store) const;
  /// The logit of a link for each pair, the scorer's on the embeddings of `graph`. Throws
  /// ArgumentError for a node outside the graph.
  std::vector<float> score_pairs(const NodeGraph& graph, std::span<const NodePair> pairs) const;
  /// The same on a graph store's embeddings (embed(store)).
  std::vector<float> score_pairs(const GraphStore& store, std::span<const NodePair> pairs) const;
  /// How well `graph`'s embeddings tell `links` from `non_links` (link_metrics).
  LinkMetrics evaluate(const NodeGraph& graph, std::span<const NodePair> links, std::span<const NodePair> non_links,
                       Index hits_k = 50) const;
  /// For each of `nodes`, the `k` nodes it has no link with in `graph` whose link with it scores
  /// highest, best first (recommend_links). Throws ArgumentError for a node outside the graph.
  std::vector<std::vector<ScoredNode>> recommend(const NodeGraph& graph, std::span<const Index> nodes, Index k) const;
  /// The same on a graph store's embeddings (embed(store)) and links.
  std::vector<std::vector<ScoredNode>> recommend(const GraphStore& store, std::span<const Index> nodes, Index k) const;

  /// The configuration, with the node names set by fit() or load().
  const LinkModelConfig& config() const { return config_; }
  /// Width of an embedding: the encoder's outputs.
  Index embedding_dim() const { return config_.network.classes; }
  /// Trainable scalars.
  Index num_parameters() const override { return params_->size(); }

 private:
  EncoderInput encoder_input(const NodeGraph& graph) const;

  LinkModelConfig config_;
  std::unique_ptr<Parameters<float>> params_;
  std::unique_ptr<NodeClassifier<float>> encoder_;
  std::unique_ptr<LinkScorer> scorer_;
};

}  // namespace edgewise
