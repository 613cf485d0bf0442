#include "edgewise/io/node_graph.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/core/json_integers.hpp"
#include "edgewise/core/names.hpp"

namespace edgewise {
namespace {

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

NodeFeatures structural_features_of(const Graph& graph, const NodeInputOptions& options) {
  return structural_features(graph, {.max_degree = options.features.max_degree,
                                     .walk_steps = options.features.walk_steps,
                                     .sampled_walks = options.features.sampled_walks});
}

NodeFeatures features_of(const NodeGraphFiles& files, const NodeInputOptions& options, NodeIndex& nodes) {
  const FeatureSpec& spec = options.features;
  return read_node_features(files.features, nodes,
                            {.format = spec.format,
                             .dim = spec.dim,
                             .ids = options.ids,
                             .header = files.header,
                             .unknown_nodes = UnknownNodes::add});
}

std::string header_text(const std::filesystem::path& file, const std::vector<std::string>& fields) {
  std::string text = file.string() + ": '";
  for (const std::string& field : fields) text += (&field == fields.data() ? "" : ",") + field;
  return text + "'";
}

}  // namespace

void to_json(nlohmann::json& j, const NodeInputOptions& input) {
  const FeatureSpec& spec = input.features;
  j = {{"node_ids", name_of(kNodeIdsNames, input.ids)},
       {"directed", input.directed},
       {"add_self_loops", input.add_self_loops},
       {"self_loops_only", input.self_loops_only},
       {"features",
        {{"format", feature_format_name(spec.format)},
         {"dim", spec.dim},
         {"max_degree", spec.max_degree},
         {"walk_steps", spec.walk_steps},
         {"normalize_rows", input.normalize_rows}}}};
  // Written only for sampled columns, so that files with exact ones stay as they were.
  if (spec.sampled_walks > 0) j["features"]["sampled_walks"] = spec.sampled_walks;
}

void from_json(const nlohmann::json& j, NodeInputOptions& input) {
  input = {};
  input.ids = value_named(kNodeIdsNames, j.at("node_ids").get<std::string>(), "node id type");
  j.at("directed").get_to(input.directed);
  j.at("add_self_loops").get_to(input.add_self_loops);
  input.self_loops_only = j.value("self_loops_only", false);  // absent from files written before it existed
  const nlohmann::json& features = j.at("features");
  input.features.format = feature_format_from_name(features.at("format").get<std::string>());
  get_integer_to(features.at("dim"), input.features.dim);
  get_integer_to(features.at("max_degree"), input.features.max_degree);
  get_integer_to(features.at("walk_steps"), input.features.walk_steps);
  // Absent where the random-walk columns are exact, as in every file written before sampled walks existed.
  input.features.sampled_walks = 0;
  if (features.contains("sampled_walks")) get_integer_to(features.at("sampled_walks"), input.features.sampled_walks);
  if (input.features.sampled_walks < 0)
    throw ArgumentError("features: sampled_walks " + std::to_string(input.features.sampled_walks) + " is negative");
  features.at("normalize_rows").get_to(input.normalize_rows);
}

bool normalizes_rows_by_default(FeatureFormat format) {
  return format == FeatureFormat::sparse || format == FeatureFormat::musae_json;
}

NodeGraph make_node_graph(Graph graph, SharedRows<float> features, NodeLabels labels) {
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
  data.features = features;
  data.labels = std::move(labels);
  return data;
}

NodeTables read_node_tables(const NodeGraphFiles& files, const NodeInputOptions& options) {
  NodeTables tables{read_edge_list(files.edges, {.ids = options.ids, .header = files.header, .directed = options.directed}),
                    0, {}, {}};
  tables.edge_list_nodes = tables.edges.nodes.size();
  if (!files.labels.empty())
    tables.labels = read_node_labels(files.labels, tables.edges.nodes,
                                     {.ids = options.ids,
                                      .header = files.header,
                                      .node_column = files.label_node_column,
                                      .label_column = files.label_column,
                                      .unknown_nodes = UnknownNodes::add});
  if (options.ids == NodeIds::string && files.header == Header::detect) {
    if (!tables.edges.header.empty()) tables.guessed_headers.push_back(header_text(files.edges, tables.edges.header));
    if (!tables.labels.header.empty() && std::holds_alternative<Index>(files.label_node_column) &&
        std::holds_alternative<Index>(files.label_column))
      tables.guessed_headers.push_back(header_text(files.labels, tables.labels.header));
  }
  return tables;
}

NodeGraph read_node_graph(const NodeGraphFiles& files, const NodeInputOptions& options) {
  check_feature_source(files, options.features);
  if (options.self_loops_only && !options.add_self_loops)
    throw ArgumentError("attention over self-loops only needs the self-loops: add_self_loops is off");
  auto [edges, edge_list_nodes, labels, guessed_headers] = read_node_tables(files, options);
  NodeGraph data;
  data.edge_list_nodes = edge_list_nodes;
  data.edge_list_edges = static_cast<Index>(edges.edges.size());
  data.labels = std::move(labels);
  data.guessed_headers = std::move(guessed_headers);
  std::optional<NodeFeatures> read_features;
  if (!files.features.empty()) read_features = features_of(files, options, edges.nodes);

  data.graph = edges.take_graph({.add_self_loops = options.add_self_loops});
  data.nodes = std::move(edges.nodes);
  data.labels.extend_to(data.nodes.size());
  NodeFeatures features = read_features ? std::move(*read_features) : structural_features_of(data.graph, options);
  features.extend_to(data.nodes.size());
  if (options.normalize_rows) normalize_rows(features.values);
  data.features = std::move(features.values);
  if (options.self_loops_only)
    data.graph = Graph::from_pairs(data.nodes.size(), {}, {.add_self_loops = true});
  data.input = options;
  data.input.features = features.spec;
  return data;
}

Matrix<float> structural_feature_rows(const Graph& graph, const NodeInputOptions& input) {
  NodeFeatures features = structural_features_of(graph, input);
  if (input.normalize_rows) normalize_rows(features.values);
  return std::move(features.values);
}

NodeGraph with_edges(const NodeGraph& data, std::span<const std::pair<Index, Index>> edges) {
  NodeGraph seen = data;
  seen.graph = Graph::from_pairs(data.nodes.size(), edges,
                                 {.add_self_loops = data.input.add_self_loops, .symmetrize = !data.input.directed});
  seen.edge_list_edges = static_cast<Index>(edges.size());
  if (data.input.features.format == FeatureFormat::structural)
    seen.features = structural_feature_rows(seen.graph, data.input);
  if (data.input.self_loops_only) seen.graph = Graph::from_pairs(data.nodes.size(), {}, {.add_self_loops = true});
  return seen;
}

}  // namespace edgewise
