#include "edgewise/io/node_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>

#include "edgewise/core/error.hpp"
#include "edgewise/models/model_file.hpp"

namespace edgewise {
namespace {

std::string node_ids_name(NodeIds ids) { return ids == NodeIds::integer ? "integer" : "string"; }

NodeIds node_ids_from_name(const std::string& name) {
  if (name == "integer") return NodeIds::integer;
  if (name == "string") return NodeIds::string;
  throw ArgumentError("unknown node id type '" + name + "' (expected integer or string)");
}

nlohmann::json input_json(const NodeInputOptions& input) {
  const FeatureSpec& spec = input.features;
  return {{"node_ids", node_ids_name(input.ids)},
          {"directed", input.directed},
          {"add_self_loops", input.add_self_loops},
          {"self_loops_only", input.self_loops_only},
          {"features",
           {{"format", feature_format_name(spec.format)},
            {"dim", spec.dim},
            {"max_degree", spec.max_degree},
            {"walk_steps", spec.walk_steps},
            {"normalize_rows", input.normalize_rows}}}};
}

NodeInputOptions input_from_json(const nlohmann::json& j) {
  NodeInputOptions input;
  input.ids = node_ids_from_name(j.at("node_ids").get<std::string>());
  j.at("directed").get_to(input.directed);
  j.at("add_self_loops").get_to(input.add_self_loops);
  input.self_loops_only = j.value("self_loops_only", false);  // absent from files written before it existed
  const nlohmann::json& features = j.at("features");
  input.features.format = feature_format_from_name(features.at("format").get<std::string>());
  features.at("dim").get_to(input.features.dim);
  features.at("max_degree").get_to(input.features.max_degree);
  features.at("walk_steps").get_to(input.features.walk_steps);
  features.at("normalize_rows").get_to(input.normalize_rows);
  return input;
}

nlohmann::json config_json(const NodeModelConfig& config) {
  return {{"kind", kNodeModelKind},
          {"network", config.network},
          {"classes", config.classes},
          {"input", input_json(config.input)},
          {"nodes", config.nodes}};
}

NodeModelConfig config_from_json(const nlohmann::json& j, const std::string& path) {
  if (model_kind(j) != kNodeModelKind)
    throw ModelFormatError(path + ": not a node classification model (kind '" + model_kind(j) + "')");
  NodeModelConfig config;
  try {
    j.at("network").get_to(config.network);
    j.at("classes").get_to(config.classes);
    config.input = input_from_json(j.at("input"));
    j.at("nodes").get_to(config.nodes);
  } catch (const std::exception& e) {
    throw ModelFormatError(path + ": invalid model configuration: " + e.what());
  }
  if (config.network.classes != static_cast<Index>(config.classes.size()) ||
      config.network.in_dim != config.input.features.dim)
    throw ModelFormatError(path + ": the network's input or output width does not match its features or classes");
  return config;
}

// The network's input width and outputs follow from the features and the class list.
NodeModelConfig completed(NodeModelConfig config) {
  if (config.classes.empty()) throw ArgumentError("a node model needs at least one class");
  if (config.input.features.dim <= 0) throw ArgumentError("a node model needs the dimension of its features");
  config.network.in_dim = config.input.features.dim;
  config.network.classes = static_cast<Index>(config.classes.size());
  return config;
}

void check_feature_source(const NodeGraphFiles& files, const FeatureSpec& spec) {
  const bool structural = spec.format == FeatureFormat::structural;
  if (structural && !files.features.empty())
    throw ArgumentError(files.features.string() + ": structural features are computed from the graph, not read");
  if (!structural && files.features.empty())
    throw ArgumentError("no features file given for " + std::string(feature_format_name(spec.format)) + " features" +
                        (spec.dim > 0 ? " (" + std::to_string(spec.dim) + " columns)" : ""));
}

void normalize_rows(Matrix<float>& features) {
  for (Index i = 0; i < features.rows(); ++i) {
    const float norm = features.row(i).lpNorm<1>();
    if (norm > 0) features.row(i) /= norm;
  }
}

NodeFeatures features_of(const std::filesystem::path& path, const NodeInputOptions& options, NodeIndex& nodes) {
  const FeatureSpec& spec = options.features;
  return read_node_features(path, nodes,
                            {.format = spec.format,
                             .dim = spec.dim,
                             .ids = options.ids,
                             .unknown_nodes = UnknownNodes::add});
}

// The ids of `labels`, read from `source`, mapped to `classes` by name.
std::vector<Index> class_ids_by_name(const NodeLabels& labels, const std::vector<std::string>& classes,
                                     const std::filesystem::path& source) {
  std::unordered_map<std::string, Index> ids;
  for (std::size_t c = 0; c < classes.size(); ++c) ids.emplace(classes[c], static_cast<Index>(c));
  std::vector<Index> mapped(labels.class_names.size());
  for (std::size_t c = 0; c < mapped.size(); ++c) {
    const auto found = ids.find(labels.class_names[c]);
    if (found == ids.end())
      throw ArgumentError(source.string() + ": label '" + labels.class_names[c] + "' is not one of the model's " +
                          std::to_string(classes.size()) + " classes");
    mapped[c] = found->second;
  }
  return mapped;
}

}  // namespace

bool normalizes_rows_by_default(FeatureFormat format) {
  return format == FeatureFormat::sparse || format == FeatureFormat::musae_json;
}

NodeTrainingDefaults default_node_training(const NodeGraph& data, const NodeSplit& split) {
  if (data.input.features.format == FeatureFormat::structural)
    return {.dropout = 0.1, .attention_dropout = 0.1, .reason = "structural features"};
  const Index classes = std::max<Index>(data.labels.num_classes(), 1);
  const double per_class = static_cast<double>(split.train.size()) / static_cast<double>(classes);
  char figure[96];
  std::snprintf(figure, sizeof figure, "%.4g training labels a class (%s %g)", per_class,
                per_class <= kFewLabelsPerClass ? "at most" : "more than", kFewLabelsPerClass);
  if (per_class <= kFewLabelsPerClass) return {.reason = figure};
  return {.dropout = 0.5, .attention_dropout = 0.1, .weight_decay = 0.0, .reason = figure};
}

NodeGraph make_node_graph(Graph graph, Matrix<float> features, NodeLabels labels) {
  const Index n = graph.num_nodes();
  if (features.rows() != n)
    throw ArgumentError("make_node_graph: the features have " + std::to_string(features.rows()) +
                        " rows for a graph of " + std::to_string(n) + " nodes");
  for (Index row = 0; row < features.rows(); ++row)
    for (Index column = 0; column < features.cols(); ++column)
      if (!std::isfinite(features(row, column)))
        throw ArgumentError("make_node_graph: feature " + std::to_string(column) + " of node " + std::to_string(row) +
                            " is not a finite number");
  if (labels.classes.empty()) labels.extend_to(n);
  if (static_cast<Index>(labels.classes.size()) != n)
    throw ArgumentError("make_node_graph: " + std::to_string(labels.classes.size()) + " labels for a graph of " +
                        std::to_string(n) + " nodes");
  for (std::size_t node = 0; node < labels.classes.size(); ++node)
    if (labels.classes[node] >= labels.num_classes())
      throw ArgumentError("make_node_graph: node " + std::to_string(node) + " has class " +
                          std::to_string(labels.classes[node]) + " but there are " +
                          std::to_string(labels.num_classes()) + " class names");
  for (Index& label : labels.classes) label = std::max<Index>(label, -1);  // any negative id: unlabeled

  NodeGraph data;
  for (Index node = 0; node < n; ++node) data.nodes.add(std::to_string(node));
  data.input.features = {.format = FeatureFormat::dense, .dim = features.cols()};
  data.input.normalize_rows = false;
  data.edge_list_nodes = n;
  data.edge_list_edges = graph.num_edges();
  data.graph = std::move(graph);
  data.features = std::move(features);
  data.labels = std::move(labels);
  return data;
}

NodeGraph read_node_graph(const NodeGraphFiles& files, const NodeInputOptions& options) {
  check_feature_source(files, options.features);
  if (options.self_loops_only && !options.add_self_loops)
    throw ArgumentError("attention over self-loops only needs the self-loops: add_self_loops is off");
  EdgeList edges = read_edge_list(files.edges, {.ids = options.ids, .directed = options.directed});
  NodeGraph data;
  data.edge_list_nodes = edges.nodes.size();
  data.edge_list_edges = static_cast<Index>(edges.edges.size());
  if (!files.labels.empty())
    data.labels = read_node_labels(files.labels, edges.nodes,
                                   {.ids = options.ids,
                                    .node_column = files.label_node_column,
                                    .label_column = files.label_column,
                                    .unknown_nodes = UnknownNodes::add});
  std::optional<NodeFeatures> read_features;
  if (!files.features.empty()) read_features = features_of(files.features, options, edges.nodes);

  data.graph = edges.take_graph({.add_self_loops = options.add_self_loops});
  data.nodes = std::move(edges.nodes);
  data.labels.extend_to(data.nodes.size());
  NodeFeatures features = read_features ? std::move(*read_features)
                                        : structural_features(data.graph, {.max_degree = options.features.max_degree,
                                                                           .walk_steps = options.features.walk_steps});
  features.extend_to(data.nodes.size());
  data.features = std::move(features.values);
  if (options.normalize_rows) normalize_rows(data.features);
  if (options.self_loops_only)
    data.graph = Graph::from_pairs(data.nodes.size(), {}, {.add_self_loops = true});
  data.input = options;
  data.input.features = features.spec;
  return data;
}

NodeModel::NodeModel(NodeModelConfig config)
    : config_(completed(std::move(config))),
      params_(std::make_unique<Parameters<float>>()),
      network_(std::make_unique<NodeClassifier<float>>(*params_, config_.network)) {}

NodeModel::NodeModel(NodeModel&&) noexcept = default;
NodeModel& NodeModel::operator=(NodeModel&&) noexcept = default;
NodeModel::~NodeModel() = default;

NodeModel NodeModel::load(const std::string& path) {
  const ModelFile file = load_model(path);
  NodeModel model(config_from_json(file.config, path));
  restore_parameters(*model.params_, file.parameters, path);
  model.training_ = file.training;
  return model;
}

void NodeModel::save(const std::string& path, Overwrite overwrite) const {
  save_model(path, config_json(config_), *params_, overwrite, training_metadata(training_));
}

void NodeModel::initialize(std::uint64_t seed) {
  SplitMix64 rng(seed);
  network_->reset_parameters(rng);
}

NodeGraph NodeModel::read_graph(const NodeGraphFiles& files) const {
  NodeGraph data = read_node_graph(files, config_.input);
  const std::vector<Index> class_ids = class_ids_by_name(data.labels, config_.classes, files.labels);
  for (Index& label : data.labels.classes)
    if (label >= 0) label = class_ids[static_cast<std::size_t>(label)];
  data.labels.class_names = config_.classes;
  return data;
}

namespace {

// What a checkpoint must match to be continued: the training options and a digest of the graph,
// features, labels and split.
nlohmann::json run_identity(const NodeGraph& data, const NodeSplit& split, const NodeTrainingOptions& options) {
  Sha256 digest;
  fingerprint(digest, data.graph);
  fingerprint(digest, data.features);
  const auto update = [&](const std::vector<Index>& values) {
    const auto count = static_cast<std::int64_t>(values.size());
    digest.update(&count, sizeof count);
    digest.update(values.data(), values.size() * sizeof(Index));
  };
  for (const std::vector<Index>* values : {&data.labels.classes, &split.train, &split.val, &split.test}) update(*values);
  return {{"training", options}, {"data_sha256", digest.hex_digest()}};
}

}  // namespace

NodeTrainingResult NodeModel::fit(const NodeGraph& data, const NodeSplit& split, const NodeTrainingOptions& options,
                                  const std::function<void(const NodeEpochReport&)>& on_epoch,
                                  const CheckpointOptions& checkpoints) {
  const nlohmann::json identity = run_identity(data, split, options);
  TrainingCheckpoints hooks{.every = checkpoints.every};
  if (checkpoints.every > 0) {
    hooks.save = [&](const TrainingState& state) {
      save_checkpoint(checkpoints.path, {config_json(config_), *params_, state, identity});
    };
  }
  std::optional<Checkpoint> resumed;
  if (!checkpoints.resume.empty()) {
    resumed = load_checkpoint(checkpoints.resume);
    check_same_run(checkpoints.resume, {{"model", resumed->config}, {"run", resumed->run}},
                   {{"model", config_json(config_)}, {"run", identity}});
    restore_parameters(*params_, resumed->weights, checkpoints.resume);
    hooks.resume = &resumed->state;
  }
  NodeTrainingResult result = train_node_classifier(*network_, *params_, data.graph, data.features,
                                                    data.labels.classes, split, options, on_epoch, hooks);
  config_.nodes = data.nodes.names();
  return result;
}

Matrix<float> NodeModel::predict(const NodeGraph& data) const {
  return predict_node_probabilities(*network_, data.graph, data.features);
}

Matrix<float> NodeModel::embed(const NodeGraph& data) const {
  return embed_nodes(*network_, data.graph, data.features);
}

NodeEvaluation NodeModel::evaluate(const NodeGraph& data, std::span<const Index> nodes) const {
  return evaluate_node_classifier(*network_, data.graph, data.features, data.labels.classes, nodes);
}

std::vector<Index> NodeModel::output_order(const NodeIndex& nodes) const {
  std::vector<std::int64_t> rank(static_cast<std::size_t>(nodes.size()));
  if (config_.input.ids == NodeIds::integer) {
    for (Index node = 0; node < nodes.size(); ++node)
      rank[static_cast<std::size_t>(node)] = std::stoll(std::string(nodes.name(node)));
  } else {
    std::unordered_map<std::string_view, Index> training_ids;
    for (std::size_t id = 0; id < config_.nodes.size(); ++id)
      training_ids.emplace(config_.nodes[id], static_cast<Index>(id));
    const auto training_size = static_cast<Index>(config_.nodes.size());
    for (Index node = 0; node < nodes.size(); ++node) {
      const auto found = training_ids.find(nodes.name(node));
      rank[static_cast<std::size_t>(node)] = found != training_ids.end() ? found->second : training_size + node;
    }
  }
  std::vector<Index> order(rank.size());
  std::iota(order.begin(), order.end(), Index{0});
  std::sort(order.begin(), order.end(),
            [&](Index a, Index b) { return rank[static_cast<std::size_t>(a)] < rank[static_cast<std::size_t>(b)]; });
  return order;
}

Index NodeModel::embedding_dim() const { return network_->hidden_dim(); }

}  // namespace edgewise
