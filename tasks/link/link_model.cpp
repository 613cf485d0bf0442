#include "edgewise/tasks/link/link_model.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/core/names.hpp"
#include "edgewise/models/node_training.hpp"
#include "edgewise/models/sampled_link_training.hpp"
#include "edgewise/tasks/common/store_source.hpp"

namespace edgewise {
namespace {

// The features' width, and a column per node with identity features.
Index input_width(const LinkModelConfig& config) {
  return config.input.features.dim + (config.identity_features ? static_cast<Index>(config.nodes.size()) : 0);
}

nlohmann::json config_json(const LinkModelConfig& config) {
  return {{"kind", kLinkModelKind},
          {"network", config.network},
          {"scorer", name_of(kPairScorerNames, config.scorer)},
          {"input", config.input},
          {"identity_features", config.identity_features},
          {"nodes", config.nodes}};
}

LinkModelConfig config_from_json(const nlohmann::json& j, const std::string& path) {
  if (model_kind(j) != kLinkModelKind)
    throw ModelFormatError(path + ": not a link prediction model (kind '" + model_kind(j) + "')");
  LinkModelConfig config;
  try {
    j.at("network").get_to(config.network);
    config.scorer = value_named(kPairScorerNames, j.at("scorer").get<std::string>(), "scorer");
    j.at("input").get_to(config.input);
    config.identity_features = j.value("identity_features", false);  // absent from files written before it
    j.at("nodes").get_to(config.nodes);
  } catch (const std::exception& e) {
    throw ModelFormatError(path + ": invalid model configuration: " + e.what());
  }
  if (config.network.in_dim != input_width(config) || config.input.directed)
    throw ModelFormatError(path + ": the encoder's input width does not match its features, or the graph is directed");
  return config;
}

// The encoder's input width follows from the features.
LinkModelConfig completed(LinkModelConfig config) {
  if (config.input.features.dim < 0 || (config.input.features.dim == 0 && !config.identity_features))
    throw ArgumentError("a link model needs the dimension of its features");
  if (config.identity_features && config.nodes.empty())
    throw ArgumentError("a link model with identity features needs the nodes of its training graph");
  if (config.input.directed)
    throw ArgumentError("link prediction reads a graph as undirected: a link joins two nodes both ways");
  config.network.in_dim = input_width(config);
  return config;
}

// Throws ArgumentError unless the graph's edges are the training links, both ways, and its self-loops.
void check_training_graph(const NodeGraph& graph, const LinkSplit& split) {
  const Index nodes = graph.nodes.size();
  const Index expected = graph.input.self_loops_only
                             ? nodes
                             : 2 * static_cast<Index>(split.train.size()) + (graph.input.add_self_loops ? nodes : 0);
  if (graph.graph.num_edges() != expected)
    throw ArgumentError("link training: the graph has " + std::to_string(graph.graph.num_edges()) +
                        " edges, where the " + std::to_string(split.train.size()) +
                        " training links alone make " + std::to_string(expected) +
                        "; train on with_edges(graph, split.train), without the held-out links");
}

}  // namespace

NodeClassifierOptions default_link_encoder() {
  return {.classes = 64, .layers = 2, .heads = 4, .head_dim = 32, .dropout = 0, .attention_dropout = 0, .value_dropout = 0};
}

Index default_link_layers(bool on_given_features_alone) { return on_given_features_alone ? 1 : 2; }

double default_link_dropout(bool one_layer_on_given_features) { return one_layer_on_given_features ? 0.5 : 0.0; }

std::optional<ScoreFunction> default_link_output_score(bool identity_features) {
  if (identity_features) return ScoreFunction::scaled_dot;
  return std::nullopt;
}

PairScorer default_pair_scorer(bool identity_features) {
  return identity_features ? PairScorer::dot : PairScorer::mlp;
}

bool default_identity_features(const NodeGraph& data) {
  return data.input.features.format == FeatureFormat::structural && data.nodes.size() <= kMostIdentityFeatureNodes;
}

std::vector<NodePair> graph_links(const NodeGraph& data) {
  const InEdges edges = data.graph.in_edges();
  std::vector<NodePair> pairs;
  for (Index target = 0; target < edges.num_nodes(); ++target)
    for (Index e = edges.offsets[static_cast<std::size_t>(target)]; e < edges.offsets[static_cast<std::size_t>(target) + 1];
         ++e)
      pairs.emplace_back(static_cast<Index>(edges.sources[static_cast<std::size_t>(e)]), target);
  return undirected_links(pairs).pairs;
}

LinkModel::LinkModel(LinkModelConfig config)
    : config_(completed(std::move(config))),
      params_(std::make_unique<Parameters<float>>()),
      encoder_(std::make_unique<NodeClassifier<float>>(*params_, config_.network)),
      scorer_(std::make_unique<LinkScorer>(*params_, config_.scorer, config_.network.classes)) {}

LinkModel::LinkModel(LinkModel&&) noexcept = default;
LinkModel& LinkModel::operator=(LinkModel&&) noexcept = default;
LinkModel::~LinkModel() = default;

LinkModel LinkModel::load(const std::string& path) { return load(load_model(path), path); }

LinkModel LinkModel::load(const ModelFile& file, const std::string& path) {
  LinkModel model(config_from_json(file.config, path));
  restore_parameters(*model.params_, file.parameters, path);
  model.training_ = file.training;
  return model;
}

void LinkModel::save(const std::string& path, Overwrite overwrite) const {
  save_model(path, config_json(config_), *params_, overwrite, training_metadata(training_));
}

void LinkModel::initialize(std::uint64_t seed) {
  SplitMix64 rng(seed);
  encoder_->reset_parameters(rng);
  scorer_->reset_parameters(rng);
}

NodeGraph LinkModel::read_graph(const NodeGraphFiles& files) const {
  NodeGraphFiles graph_files = files;
  graph_files.labels.clear();
  return read_node_graph(graph_files, config_.input);
}

EncoderInput LinkModel::encoder_input(const NodeGraph& graph) const {
  if (graph.features.cols() != config_.input.features.dim)
    throw ArgumentError("link prediction: the graph's features are " + std::to_string(graph.features.cols()) +
                        " wide, the model's " + std::to_string(config_.input.features.dim));
  if (config_.identity_features && graph.nodes.names() != config_.nodes)
    throw ArgumentError("link prediction: the model reads node ids as features, so it scores the " +
                        std::to_string(config_.nodes.size()) + " nodes of its training graph only, in their order; "
                        "this graph has " + std::to_string(graph.nodes.size()) + " nodes, not the same");
  return EncoderInput(graph.features, config_.identity_features);
}

LinkTrainingResult LinkModel::fit(const NodeGraph& training_graph, const LinkSplit& split,
                                  const LinkTrainingOptions& options,
                                  const std::function<void(const LinkEpochReport&)>& on_epoch) {
  const EncoderInput input = encoder_input(training_graph);
  check_training_graph(training_graph, split);
  LinkTrainingResult result =
      train_link_predictor(*encoder_, *scorer_, *params_, training_graph.graph, input, split, options, on_epoch);
  config_.nodes = training_graph.nodes.names();
  return result;
}

LinkTrainingResult LinkModel::fit_sampled(const LinkGraph& seen, const NodeSource& source, ScoredLinks validation,
                                          const LinkTrainingOptions& options, const LinkSamplingOptions& sampling,
                                          const std::function<void(const LinkEpochReport&)>& on_epoch) {
  if (config_.identity_features)
    throw ArgumentError("sampled link training reads the features alone: train without identity features");
  return train_link_predictor_sampled(*encoder_, *scorer_, *params_, seen, source, validation, options, sampling,
                                      on_epoch);
}

std::vector<float> LinkModel::score_pairs_sampled(const NodeSource& source, std::span<const NodePair> pairs,
                                                  const LinkSamplingOptions& sampling, std::uint64_t seed) const {
  return sampled_link_scores(*encoder_, *scorer_, source, pairs, sampling, seed);
}

Matrix<float> LinkModel::embed(const NodeGraph& graph) const {
  return node_embeddings(*encoder_, graph.graph, encoder_input(graph));
}

Matrix<float> LinkModel::embed(const GraphStore& store) const {
  if (config_.identity_features)
    throw ArgumentError(store.path().string() + ": the model reads node ids as features; score its training graph's "
                        "files instead of a store");
  if (store.feature_dim() != config_.input.features.dim || store.input().features.format != config_.input.features.format)
    throw ArgumentError(store.path().string() + ": its features were made otherwise than the model's training graph's; "
                        "build the store with the options the model was trained with");
  return layerwise_logits(*encoder_, store_source(store));
}

std::vector<float> LinkModel::score_pairs(const NodeGraph& graph, std::span<const NodePair> pairs) const {
  return scorer_->scores(embed(graph), pairs);
}

std::vector<float> LinkModel::score_pairs(const GraphStore& store, std::span<const NodePair> pairs) const {
  return scorer_->scores(embed(store), pairs);
}

LinkMetrics LinkModel::evaluate(const NodeGraph& graph, std::span<const NodePair> links,
                                std::span<const NodePair> non_links, Index hits_k) const {
  const Matrix<float> embeddings = embed(graph);
  const std::vector<float> link_scores = scorer_->scores(embeddings, links);
  return link_metrics(link_scores, scorer_->scores(embeddings, non_links), hits_k);
}

namespace {

// Each node's suggestions among the embedded nodes, its partners in `graph` (undirected) left out.
std::vector<std::vector<ScoredNode>> suggestions_of(LinkScorer& scorer, const Matrix<float>& embeddings,
                                                    InEdges graph, std::span<const Index> nodes, Index k) {
  std::vector<std::vector<ScoredNode>> suggestions;
  suggestions.reserve(nodes.size());
  for (const Index node : nodes) {
    if (node < 0 || node >= graph.num_nodes())
      throw ArgumentError("recommend: node " + std::to_string(node) + " of " + std::to_string(graph.num_nodes()));
    const auto partners = graph.sources.subspan(static_cast<std::size_t>(graph.offsets[node]),
                                                static_cast<std::size_t>(graph.offsets[node + 1] - graph.offsets[node]));
    suggestions.push_back(recommend_links(scorer, embeddings, node, k, partners));
  }
  return suggestions;
}

}  // namespace

std::vector<std::vector<ScoredNode>> LinkModel::recommend(const NodeGraph& graph, std::span<const Index> nodes,
                                                          Index k) const {
  return suggestions_of(*scorer_, embed(graph), graph.graph.in_edges(), nodes, k);
}

std::vector<std::vector<ScoredNode>> LinkModel::recommend(const GraphStore& store, std::span<const Index> nodes,
                                                          Index k) const {
  return suggestions_of(*scorer_, embed(store), store.in_edges(), nodes, k);
}

ModelDescription LinkModel::describe() const {
  const nlohmann::json config = config_json(config_);
  return {.title = "link prediction model (train --task link)",
          .facts = {{"task type", "link prediction, a score for each pair of nodes"},
                    {"embedding width", embedding_dim()},
                    {"identity features", config_.identity_features ? "yes, a learned vector for each node" : "no"},
                    {"training graph", config_.nodes.empty() ? std::string("a graph store, its nodes not recorded")
                                                             : std::to_string(config_.nodes.size()) + " nodes"},
                    {"parameters", num_parameters()}},
          .sections = {{"encoder", config.at("network")},
                       {"scorer", {{"kind", config.at("scorer")}}},
                       {"input and featurizer", config.at("input")}},
          .examples = "links"};
}

}  // namespace edgewise
