#include "edgewise/tasks/node/node_model.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>

#include <unistd.h>

#include "edgewise/core/error.hpp"
#include "edgewise/core/names.hpp"
#include "edgewise/distributed/graph_parts.hpp"
#include "edgewise/distributed/processes.hpp"
#include "edgewise/io/csv.hpp"
#include "edgewise/io/graph_parts.hpp"
#include "edgewise/models/model_file.hpp"
#include "edgewise/tasks/common/store_source.hpp"

namespace edgewise {
namespace {

nlohmann::json config_json(const NodeModelConfig& config) {
  nlohmann::json j = {{"kind", kNodeModelKind},
                      {"network", config.network},
                      {"classes", config.classes},
                      {"input", config.input},
                      {"nodes", config.nodes}};
  if (config.calibration) j["calibration"] = *config.calibration;
  return j;
}

NodeModelConfig config_from_json(const nlohmann::json& j, const std::string& path) {
  if (model_kind(j) != kNodeModelKind)
    throw ModelFormatError(path + ": not a node classification model (kind '" + model_kind(j) + "')");
  NodeModelConfig config;
  try {
    j.at("network").get_to(config.network);
    j.at("classes").get_to(config.classes);
    j.at("input").get_to(config.input);
    j.at("nodes").get_to(config.nodes);
    if (j.contains("calibration")) config.calibration = j.at("calibration").get<ClassCalibration>();
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

// The row of `node` (of the whole graph) among a part store's own rows, or -1.
// PartRows' targets of the listed nodes of the whole graph: the label of each own row listed, -1 for
// every other row. Throws ArgumentError, as part_targets does, for an own node listed unlabeled.
std::vector<Index> part_targets(const GraphStore& store, std::span<const Index> nodes, Index classes, const char* what) {
  std::vector<Index> targets(static_cast<std::size_t>(store.num_nodes()), -1);
  for (const Index node : nodes) {
    if (node < 0 || node >= store.part()->whole_nodes)
      throw ArgumentError(std::string("node classification: ") + what + " node " + std::to_string(node) +
                          " is not a node of the graph");
    const Index row = own_row(store, node);
    if (row < 0) continue;
    const Index label = store.labels().empty() ? -1 : store.labels()[static_cast<std::size_t>(row)];
    if (label < 0 || label >= classes)
      throw ArgumentError(std::string("node classification: ") + what + " node " + std::to_string(node) +
                          " has label " + std::to_string(label) + ", expected a class in [0, " +
                          std::to_string(classes) + ")");
    targets[static_cast<std::size_t>(row)] = label;
  }
  return targets;
}

// The ids of `labels`, read from `source`, mapped to `classes` by name.
std::vector<Index> class_ids_by_name(const NodeLabels& labels, const std::vector<std::string>& classes,
                                     const std::filesystem::path& source) {
  std::unordered_map<std::string, Index> ids;
  for (std::size_t c = 0; c < classes.size(); ++c) ids.emplace(classes[c], static_cast<Index>(c));
  std::vector<Index> mapped(labels.class_names.size());
  for (std::size_t c = 0; c < mapped.size(); ++c) {
    const auto found = ids.find(labels.class_names[c]);
    if (found == ids.end()) {
      const std::string line = c < labels.class_lines.size() ? ":" + std::to_string(labels.class_lines[c]) : "";
      throw ArgumentError(source.string() + line + ": label '" + labels.class_names[c] +
                          "' is not one of the model's " + std::to_string(classes.size()) + " classes" +
                          (classes.size() <= 20 ? " (" + quoted_list(classes) + ")" : ""));
    }
    mapped[c] = found->second;
  }
  return mapped;
}

// Each listed node's label, -1 for every other row: the rows a calibration is fitted on or scores.
std::vector<Index> listed_labels(std::span<const Index> labels, std::span<const Index> nodes) {
  std::vector<Index> listed(labels.size(), -1);
  for (const Index node : nodes) {
    if (node < 0 || node >= static_cast<Index>(labels.size()) || labels[static_cast<std::size_t>(node)] < 0)
      throw ArgumentError("node classification: node " + std::to_string(node) +
                          " is not a labeled node of the graph");
    listed[static_cast<std::size_t>(node)] = labels[static_cast<std::size_t>(node)];
  }
  return listed;
}

}  // namespace

NodeTrainingDefaults default_node_training(const NodeGraph& data, const Split& split) {
  return default_node_training(data.input.features.format, data.labels.num_classes(), split);
}

NodeTrainingDefaults default_node_training(FeatureFormat format, Index num_classes, const Split& split) {
  if (format == FeatureFormat::structural)
    return {.dropout = 0.1, .attention_dropout = 0.1, .reason = "structural features"};
  const Index classes = std::max<Index>(num_classes, 1);
  const double per_class = static_cast<double>(split.train.size()) / static_cast<double>(classes);
  char figure[96];
  std::snprintf(figure, sizeof figure, "%.4g training labels a class (%s %g)", per_class,
                per_class <= kFewLabelsPerClass ? "at most" : "more than", kFewLabelsPerClass);
  if (per_class <= kFewLabelsPerClass) return {.reason = figure};
  return {.dropout = 0.5, .attention_dropout = 0.1, .weight_decay = 0.0, .reason = figure};
}

namespace {

NodeTrainingSettings settings_with(NodeClassifierOptions network, NodeTrainingOptions training,
                                   const NodeRegularization& given, const NodeTrainingDefaults& defaults,
                                   BatchingChoice batching) {
  network.dropout = given.dropout.value_or(defaults.dropout);
  network.attention_dropout = given.attention_dropout.value_or(defaults.attention_dropout);
  network.value_dropout = given.value_dropout.value_or(network.dropout);
  training.weight_decay = given.weight_decay.value_or(defaults.weight_decay);
  std::ostringstream chosen;
  if (!given.dropout) chosen << "dropout " << defaults.dropout << ", ";
  if (!given.attention_dropout) chosen << "attention dropout " << defaults.attention_dropout << ", ";
  if (!given.weight_decay) chosen << "weight decay " << defaults.weight_decay << ", ";
  const std::string list = chosen.str();
  return {network, training, std::move(batching),
          list.empty() ? "" : list.substr(0, list.size() - 2) + " for " + defaults.reason};
}

}  // namespace

NodeTrainingSettings node_training_settings(NodeClassifierOptions network, NodeTrainingOptions training,
                                            const NodeRegularization& given, const NodeGraph& data,
                                            const Split& split, const NodeBatching& batching) {
  BatchingChoice batches = choose_node_batching(data.graph.num_nodes(), data.graph.num_edges(), network, batching);
  return settings_with(network, training, given, default_node_training(data, split), std::move(batches));
}

NodeTrainingSettings node_training_settings(NodeClassifierOptions network, NodeTrainingOptions training,
                                            const NodeRegularization& given, const GraphStore& store,
                                            const Split& split, const NodeBatching& batching) {
  BatchingChoice batches = choose_node_batching(store.num_nodes(), store.num_edges(), network, batching);
  const auto classes = static_cast<Index>(store.class_names().size());
  return settings_with(network, training, given, default_node_training(store.input().features.format, classes, split),
                       std::move(batches));
}

double full_batch_bytes(Index nodes, Index edges, const NodeClassifierOptions& network) {
  const auto layer_bytes = [&](Index heads, Index width) {
    return 48.0 * static_cast<double>(nodes) * static_cast<double>(width) +
           16.0 * static_cast<double>(edges) * static_cast<double>(heads);
  };
  double bytes = 4.0 * static_cast<double>(nodes) * static_cast<double>(network.in_dim);
  for (Index l = 0; l + 1 < network.layers; ++l) bytes += layer_bytes(network.heads, network.heads * network.head_dim);
  return bytes + layer_bytes(network.output_heads, network.output_heads * network.classes);
}

double full_batch_budget_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 4e9;  // unknown: as on a machine of 16 GB
  return static_cast<double>(pages) * static_cast<double>(page_size) / 4;
}

namespace {

std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GB", bytes / 1e9);
  return text;
}

}  // namespace

BatchingChoice choose_node_batching(Index nodes, Index edges, const NodeClassifierOptions& network,
                                    const NodeBatching& given) {
  BatchingChoice choice;
  choice.sampling.batch_size = given.batch_size.value_or(choice.sampling.batch_size);
  choice.sampling.fanouts = given.fanouts.empty() ? default_fanouts(network.layers) : given.fanouts;
  const std::string sampling = "sampled mini-batches of " + std::to_string(choice.sampling.batch_size) +
                               " nodes, fan-out " + join(choice.sampling.fanouts, ",");
  const double needed = full_batch_bytes(nodes, edges, network), budget = full_batch_budget_bytes();
  const std::string estimate = "full-batch training holds about " + gigabytes(needed) + ", ";
  if (given.batch_size || !given.fanouts.empty()) {
    choice.sampled = true;
    // The whole graph fits: validation runs on it exactly, as full-batch training validates.
    choice.sampling.exact_validation = needed <= budget;
    choice.reason = sampling + ", as asked" + (choice.sampling.exact_validation ? "; validation on the whole graph" : "");
  } else if (needed > budget) {
    choice.sampled = true;
    choice.reason = sampling + ": " + estimate + "over a quarter of this machine's memory (" + gigabytes(budget) + ")";
  } else {
    choice.reason = estimate + "within a quarter of this machine's memory (" + gigabytes(budget) + ")";
  }
  return choice;
}

NodeModel::NodeModel(NodeModelConfig config)
    : config_(completed(std::move(config))),
      params_(std::make_unique<Parameters<float>>()),
      network_(std::make_unique<NodeClassifier<float>>(*params_, config_.network)) {}

NodeModel::NodeModel(NodeModel&&) noexcept = default;
NodeModel& NodeModel::operator=(NodeModel&&) noexcept = default;
NodeModel::~NodeModel() = default;

NodeModel NodeModel::load(const std::string& path) { return load(load_model(path), path); }

NodeModel NodeModel::load(const ModelFile& file, const std::string& path) {
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

void digest_values(Sha256& digest, const std::vector<Index>& values) {
  const auto count = static_cast<std::int64_t>(values.size());
  digest.update(&count, sizeof count);
  digest.update(values.data(), values.size() * sizeof(Index));
}

std::string split_digest(const Split& split) {
  Sha256 digest;
  for (const std::vector<Index>* values : {&split.train, &split.val, &split.test}) digest_values(digest, *values);
  return digest.hex_digest();
}

// The sampling settings a checkpoint of a sampled run must match.
nlohmann::json sampling_identity(const BatchingChoice& batching) {
  return {{"batch_size", batching.sampling.batch_size},
          {"fanouts", batching.sampling.fanouts},
          {"exact_validation", batching.sampling.exact_validation}};
}

// What a checkpoint must match to be continued: the training options and a digest of the graph,
// features, labels and split.
nlohmann::json run_identity(const NodeGraph& data, const Split& split, const NodeTrainingOptions& options,
                            const BatchingChoice& batching) {
  Sha256 digest;
  fingerprint(digest, data.graph);
  fingerprint(digest, data.features);
  for (const std::vector<Index>* values : {&data.labels.classes, &split.train, &split.val, &split.test})
    digest_values(digest, *values);
  nlohmann::json identity = {{"training", options}, {"data_sha256", digest.hex_digest()}};
  if (batching.sampled)  // absent for full batches, so that earlier checkpoints still resume
    identity["sampling"] = sampling_identity(batching);
  return identity;
}

NodeSource source_of(const NodeGraph& data) { return node_source(data.graph, data.features, data.input.add_self_loops); }

}  // namespace

TrainingCheckpoints NodeModel::checkpoint_hooks(const CheckpointOptions& checkpoints, const nlohmann::json& identity,
                                                std::optional<Checkpoint>& resumed) {
  TrainingCheckpoints hooks{.every = checkpoints.every};
  if (checkpoints.every > 0) {
    hooks.save = [this, path = checkpoints.path, identity](const TrainingState& state) {
      save_checkpoint(path, {config_json(config_), *params_, state, identity});
    };
  }
  if (!checkpoints.resume.empty()) {
    resumed = load_checkpoint(checkpoints.resume);
    check_same_run(checkpoints.resume, {{"model", resumed->config}, {"run", resumed->run}},
                   {{"model", config_json(config_)}, {"run", identity}});
    check_same_precision(checkpoints.resume, *resumed);
    restore_parameters(*params_, resumed->weights, checkpoints.resume);
    hooks.resume = &resumed->state;
  }
  return hooks;
}

NodeTrainingResult NodeModel::fit(const NodeGraph& data, const Split& split, const NodeTrainingOptions& options,
                                  const std::function<void(const NodeEpochReport&)>& on_epoch,
                                  const CheckpointOptions& checkpoints, const BatchingChoice& batching) {
  std::optional<Checkpoint> resumed;
  const TrainingCheckpoints hooks =
      checkpoint_hooks(checkpoints, run_identity(data, split, options, batching), resumed);
  NodeTrainingResult result =
      batching.sampled
          ? train_node_classifier_sampled(*network_, *params_, source_of(data), data.labels.classes, split, options,
                                          batching.sampling, on_epoch, hooks, distributed::run_collectives())
          : train_node_classifier(*network_, *params_, data.graph, data.features, data.labels.classes, split, options,
                                  on_epoch, hooks, distributed::run_collectives());
  config_.nodes = data.nodes.names();
  return result;
}

NodeTrainingResult NodeModel::fit(const GraphStore& store, const Split& split, const NodeTrainingOptions& options,
                                  const std::function<void(const NodeEpochReport&)>& on_epoch,
                                  const CheckpointOptions& checkpoints, const BatchingChoice& batching) {
  if (store.part()) return fit_part(store, split, options, on_epoch, checkpoints, batching);
  const bool on_parts = !batching.sampled && distributed::active();
  if (!batching.sampled && !on_parts) return fit(store.to_node_graph(), split, options, on_epoch, checkpoints, batching);
  nlohmann::json identity = {
      {"training", options}, {"store_sha256", store.fingerprint()}, {"split_sha256", split_digest(split)}};
  if (batching.sampled) identity["sampling"] = sampling_identity(batching);
  std::optional<Checkpoint> resumed;
  const TrainingCheckpoints hooks = checkpoint_hooks(checkpoints, identity, resumed);
  const NodeSource source = checked_source(store);
  NodeTrainingResult result;
  if (on_parts) {  // every process maps the in-edges, and reads the features of its own part only
    result = train_node_classifier_on_parts(*network_, *params_, source.in_edges, source.gather_features,
                                            store.labels(), split, options, on_epoch, hooks,
                                            distributed::run_collectives());
  } else {
    result = train_node_classifier_sampled(*network_, *params_, source, store.labels(), split, options,
                                           batching.sampling, on_epoch, hooks, distributed::run_collectives());
  }
  // The names a one-process full-batch run records (every node's, ids included), else the stored ones.
  config_.nodes.clear();
  if (on_parts || !store.named_by_id())
    for (Index node = 0; node < store.num_nodes(); ++node) config_.nodes.push_back(store.node_name(node));
  return result;
}

NodeTrainingResult NodeModel::fit_part(const GraphStore& store, const Split& split, const NodeTrainingOptions& options,
                                       const std::function<void(const NodeEpochReport&)>& on_epoch,
                                       const CheckpointOptions& checkpoints, const BatchingChoice& batching) {
  if (batching.sampled)
    throw ArgumentError(store.path().string() +
                        ": sampled batches (--batch-size) reach nodes beyond a part's halo, which a part store does "
                        "not hold; train on the parts in full batch, or sampled on the whole store");
  distributed::check_part_of_run(store);
  check_feature_width(store);
  const nlohmann::json identity = {{"training", options},
                                   {"store_sha256", store.part()->whole_fingerprint},
                                   {"split_sha256", split_digest(split)}};
  std::optional<Checkpoint> resumed;
  const TrainingCheckpoints hooks = checkpoint_hooks(checkpoints, identity, resumed);
  const GraphPart part = stored_graph_part(store);
  const Index classes = config_.network.classes;
  PartRows rows{.features = store.feature_matrix(),
                .train_targets = part_targets(store, split.train, classes, "training"),
                .val_targets = part_targets(store, split.val, classes, "validation")};
  NodeTrainingResult result = train_node_classifier_on_part(*network_, *params_, part, std::move(rows), split, options,
                                                            on_epoch, hooks, distributed::run_collectives());
  config_.nodes = distributed::whole_node_names(store);  // as a one-process full-batch run records them
  return result;
}

void NodeModel::check_feature_width(const GraphStore& store) const {
  if (store.feature_dim() != config_.network.in_dim)
    throw ArgumentError(store.path().string() + ": features have " + std::to_string(store.feature_dim()) +
                        " columns, the model takes " + std::to_string(config_.network.in_dim));
}

NodeSource NodeModel::checked_source(const GraphStore& store) const {
  if (const StorePart* part = store.part())
    throw ArgumentError(store.path().string() + " holds part " + std::to_string(part->part) + " of " +
                        std::to_string(part->parts) + " of a cut graph; predict from the whole graph's store");
  check_feature_width(store);
  return store_source(store);
}

Matrix<float> NodeModel::uncalibrated(const GraphStore& store) const {
  Matrix<float> probabilities = layerwise_logits(*network_, checked_source(store));
  softmax_rows(probabilities);
  return probabilities;
}

Matrix<float> NodeModel::predict(const GraphStore& store) const { return calibrated(uncalibrated(store)); }

Matrix<float> NodeModel::calibrated(Matrix<float> probabilities) const {
  if (config_.calibration) config_.calibration->apply(probabilities);
  return probabilities;
}

// The store's labels as class ids of the model (matched by name), -1 where a node has none.
std::vector<Index> NodeModel::store_labels(const GraphStore& store) const {
  const std::vector<Index> class_ids =
      class_ids_by_name({.classes = {}, .class_names = store.class_names()}, config_.classes, store.path());
  std::vector<Index> labels(store.labels().begin(), store.labels().end());
  for (Index& label : labels)
    if (label >= 0) label = class_ids[static_cast<std::size_t>(label)];
  return labels;
}

Matrix<float> NodeModel::embed(const GraphStore& store) const {
  return layerwise_hidden(*network_, checked_source(store));
}

NodeEvaluation NodeModel::evaluate(const GraphStore& store, std::span<const Index> nodes) const {
  if (store.part()) return evaluate_part(store, nodes);
  return evaluate_node_logits(layerwise_logits(*network_, checked_source(store)), store_labels(store), nodes,
                              config_.network.classes);
}

// Every process of the run gets the logits and labels of all listed nodes.
distributed::ListedRows NodeModel::listed_part_logits(const GraphStore& store, std::span<const Index> nodes) const {
  distributed::check_part_of_run(store);
  check_feature_width(store);
  const std::vector<Index> class_ids =
      class_ids_by_name({.classes = {}, .class_names = store.class_names()}, config_.classes, store.path());
  const GraphPart part = stored_graph_part(store);
  const Matrix<float> logits = part_logits(*network_, part, store.feature_matrix(), distributed::run_collectives());
  return distributed::gather_listed_rows(store, nodes, logits, class_ids);
}

NodeEvaluation NodeModel::evaluate_part(const GraphStore& store, std::span<const Index> nodes) const {
  const distributed::ListedRows scored = listed_part_logits(store, nodes);
  std::vector<Index> rows(nodes.size());
  std::iota(rows.begin(), rows.end(), Index{0});
  return evaluate_node_logits(scored.rows, scored.labels, rows, config_.network.classes);
}

bool NodeModel::runs_layerwise(const NodeGraph& data) const {
  return full_batch_bytes(data.graph.num_nodes(), data.graph.num_edges(), config_.network) / 2 > full_batch_budget_bytes();
}

Matrix<float> NodeModel::uncalibrated(const NodeGraph& data) const {
  if (!runs_layerwise(data)) return predict_node_probabilities(*network_, data.graph, data.features);
  Matrix<float> probabilities = layerwise_logits(*network_, source_of(data));
  softmax_rows(probabilities);
  return probabilities;
}

Matrix<float> NodeModel::predict(const NodeGraph& data) const { return calibrated(uncalibrated(data)); }

void NodeModel::calibrate(const NodeGraph& data, std::span<const Index> nodes) {
  config_.calibration = fit_class_calibration(uncalibrated(data), listed_labels(data.labels.classes, nodes));
}

double NodeModel::set_threshold(double coverage) const {
  if (!config_.calibration)
    throw ArgumentError("the model has no calibration; models trained with validation nodes have one");
  return config_.calibration->set_threshold(coverage);
}

ClassUncertaintyScores NodeModel::scored(const Matrix<float>& probabilities, std::span<const Index> labels,
                                         std::optional<double> coverage) const {
  if (!config_.calibration || !coverage) {
    ClassUncertaintyScores scores = score_class_uncertainty(probabilities, labels, 1);
    scores.coverage = scores.mean_set_size = std::nan("");
    return scores;
  }
  return score_class_uncertainty(probabilities, labels, set_threshold(*coverage));
}

ClassUncertaintyScores NodeModel::score_probabilities(const NodeGraph& data, std::span<const Index> nodes,
                                                      std::optional<double> coverage) const {
  return scored(predict(data), listed_labels(data.labels.classes, nodes), coverage);
}

ClassUncertaintyScores NodeModel::score_probabilities(const GraphStore& store, std::span<const Index> nodes,
                                                      std::optional<double> coverage) const {
  if (!store.part()) return scored(predict(store), listed_labels(store_labels(store), nodes), coverage);
  distributed::ListedRows listed = listed_part_logits(store, nodes);
  softmax_rows(listed.rows);
  return scored(calibrated(std::move(listed.rows)), listed.labels, coverage);
}

void NodeModel::calibrate(const GraphStore& store, std::span<const Index> nodes) {
  if (!store.part()) {
    config_.calibration = fit_class_calibration(uncalibrated(store), listed_labels(store_labels(store), nodes));
    return;
  }
  distributed::ListedRows listed = listed_part_logits(store, nodes);
  softmax_rows(listed.rows);
  config_.calibration = fit_class_calibration(listed.rows, listed.labels);
}

Matrix<float> NodeModel::embed(const NodeGraph& data) const {
  if (!runs_layerwise(data)) return embed_nodes(*network_, data.graph, data.features);
  return layerwise_hidden(*network_, source_of(data));
}

NodeEvaluation NodeModel::evaluate(const NodeGraph& data, std::span<const Index> nodes) const {
  if (!runs_layerwise(data))
    return evaluate_node_classifier(*network_, data.graph, data.features, data.labels.classes, nodes);
  return evaluate_node_logits(layerwise_logits(*network_, source_of(data)), data.labels.classes, nodes,
                              config_.network.classes);
}

std::vector<Index> NodeModel::output_order(const NodeIndex& nodes) const {
  std::vector<std::uint64_t> rank(static_cast<std::size_t>(nodes.size()));
  if (config_.input.ids == NodeIds::integer) {
    // Integer names are the decimal values of ids in [0, 2^64 - 1], as the readers wrote them.
    for (Index node = 0; node < nodes.size(); ++node) {
      const std::string_view name = nodes.name(node);
      std::from_chars(name.data(), name.data() + name.size(), rank[static_cast<std::size_t>(node)]);
    }
  } else {
    std::unordered_map<std::string_view, Index> training_ids;
    for (std::size_t id = 0; id < config_.nodes.size(); ++id)
      training_ids.emplace(config_.nodes[id], static_cast<Index>(id));
    const auto training_size = static_cast<Index>(config_.nodes.size());
    for (Index node = 0; node < nodes.size(); ++node) {
      const auto found = training_ids.find(nodes.name(node));
      rank[static_cast<std::size_t>(node)] =
          static_cast<std::uint64_t>(found != training_ids.end() ? found->second : training_size + node);
    }
  }
  std::vector<Index> order(rank.size());
  std::iota(order.begin(), order.end(), Index{0});
  std::sort(order.begin(), order.end(),
            [&](Index a, Index b) { return rank[static_cast<std::size_t>(a)] < rank[static_cast<std::size_t>(b)]; });
  return order;
}

ModelDescription NodeModel::describe() const {
  const nlohmann::json config = config_json(config_);
  ModelDescription description{.title = "node classification model (train --task node)",
          .facts = {{"task type", "classification, one class per node"},
                    {"classes", config.at("classes")},
                    {"training graph", std::to_string(config_.nodes.size()) + " nodes"},
                    {"parameters", num_parameters()}},
          .sections = {{"architecture", config.at("network")}, {"input and featurizer", config.at("input")}},
          .examples = "nodes"};
  if (config_.calibration)
    description.facts.emplace_back("calibration", nlohmann::json{{"temperature", config_.calibration->temperature},
                                                                 {"nodes", config_.calibration->scores.size()}});
  return description;
}

Index NodeModel::embedding_dim() const { return network_->hidden_dim(); }

}  // namespace edgewise
