// edgewise._edgewise.NodeGraph and NodeModel: graphs from NumPy arrays or files, and node classifiers
// trained, applied and evaluated by the task-level code the command-line tool runs.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/names.hpp"
#include "edgewise/tasks/layer_width.hpp"
#include "edgewise/tasks/node_training.hpp"
#include "support.hpp"

namespace edgewise::python {
namespace {

using NodeHandle = ModelHandle<NodeModel>;

// A graph from (sources, targets) arrays over nodes 0 .. num_nodes - 1: each edge joins its nodes both
// ways unless directed, repeated edges count once, and every node attends to itself with self_loops.
// Without features, the structural features of `edgewise train` are computed from the graph.
NodeGraph graph_from_arrays(Index num_nodes, const py::object& sources, const py::object& targets,
                            const py::object& features, const py::object& labels,
                            std::vector<std::string> class_names, bool directed, bool self_loops) {
  const std::vector<Index> from = index_vector(sources, "edge sources"), to = index_vector(targets, "edge targets");
  const bool structural = features.is_none();
  SharedRows<float> values = structural ? SharedRows<float>() : float_rows(features, "features");
  NodeLabels node_labels;
  if (!labels.is_none()) node_labels.classes = index_vector(labels, "labels");
  node_labels.class_names = std::move(class_names);
  py::gil_scoped_release release;
  Graph graph = Graph::from_edges(num_nodes, from, to,
                                  {.add_self_loops = self_loops, .symmetrize = !directed, .drop_duplicates = true});
  FeatureSpec spec{};
  if (structural) {
    NodeFeatures computed = structural_features(graph);
    values = std::move(computed.values);
    spec = computed.spec;
  }
  NodeGraph data = make_node_graph(std::move(graph), values, std::move(node_labels));
  data.input.directed = directed;
  data.input.add_self_loops = self_loops;
  if (structural) data.input.features = spec;
  return data;
}

NodeGraph graph_from_files(const std::string& edges, const std::string& labels, const std::string& features,
                           const std::string& feature_format, const std::string& node_ids, bool directed,
                           bool self_loops, std::optional<bool> normalize_rows) {
  NodeInputOptions input{.ids = value_named(kNodeIdsNames, node_ids, "node_ids"),
                         .directed = directed,
                         .add_self_loops = self_loops};
  std::string format = feature_format.empty() ? (features.empty() ? "structural" : "sparse") : feature_format;
  std::replace(format.begin(), format.end(), '-', '_');
  input.features.format = feature_format_from_name(format);
  input.normalize_rows = normalize_rows.value_or(normalizes_rows_by_default(input.features.format));
  py::gil_scoped_release release;
  return read_node_graph({.edges = edges, .labels = labels, .features = features}, input);
}

const std::vector<std::string> kTrainOptions = {
    "layers", "heads", "head_dim", "hidden", "output_heads", "score", "dropout", "attention_dropout",
    "value_dropout", "weight_decay", "lr", "epochs", "patience", "residual", "layer_norm", "seed", "batch_size",
    "fanout"};

NodeTrainingSettings training_settings(const Options& options, const NodeGraph& data, const Split& split) {
  NodeClassifierOptions network;
  NodeTrainingOptions training;
  options.set("layers", network.layers);
  options.set("heads", network.heads);
  const GivenWidth width_given{.hidden = options.get<Index>("hidden"), .head_dim = options.get<Index>("head_dim")};
  if (const std::optional<Index> width = given_width(width_given, network.heads))
    network.head_dim = *width / network.heads;
  options.set("output_heads", network.output_heads);
  options.set("residual", network.residual);
  options.set("layer_norm", network.layer_norm);
  if (const auto score = options.get<std::string>("score")) network.score = parse_score_function(*score);
  options.set("lr", training.learning_rate);
  options.set("epochs", training.epochs);
  options.set("patience", training.patience);
  options.set("seed", training.seed);
  const NodeRegularization given{.dropout = options.get<double>("dropout"),
                                 .attention_dropout = options.get<double>("attention_dropout"),
                                 .value_dropout = options.get<double>("value_dropout"),
                                 .weight_decay = options.get<double>("weight_decay")};
  const NodeBatching batching{.batch_size = options.get<Index>("batch_size"),
                              .fanouts = options.get<std::vector<Index>>("fanout").value_or(std::vector<Index>{})};
  return node_training_settings(network, training, given, data, split, batching);
}

// A split of the labelled nodes: (train, val, test) index arrays or masks, or, with None, the
// default of `edgewise train`: 60 / 20 / 20 % of each class's labelled nodes.
Split node_split(const py::object& split, const NodeGraph& data, std::uint64_t seed) {
  if (split.is_none()) return stratified_split(data.labels.classes, 0.6, 0.2, seed);
  return split_from_python(split, data.nodes.size());
}

std::unique_ptr<NodeHandle> train(const NodeGraph& data, const py::object& split_given, bool verbose,
                                  const py::dict& keywords) {
  const Options options(keywords, kTrainOptions);
  const Split split = node_split(split_given, data, options.get<std::uint64_t>("seed").value_or(0));
  NodeTrainingSettings settings = training_settings(options, data, split);
  settings.training.log = python_log(verbose);
  const std::string split_name = split_given.is_none() ? "stratified:0.6,0.2,0.2" : "given";
  py::gil_scoped_release release;
  TrainedNodeModel trained =
      train_node_model(data, split, settings, [](const NodeEpochReport&) { check_interrupt(); });
  const std::string sizes = part_sizes(split);
  TrainingSummary summary = node_training_summary(trained, data, "Python: a graph of " +
                                                                     std::to_string(data.nodes.size()) + " nodes",
                                                  split_name + ": " + sizes);
  if (!split.test.empty()) {
    const NodeEvaluation test = trained.model.evaluate(data, split.test);
    summary.metrics.insert(summary.metrics.end(), {{"test accuracy", test.metrics.accuracy},
                                                   {"test macro_f1", test.metrics.macro_f1},
                                                   {"test loss", test.loss}});
  }
  trained.model.set_training_summary(std::move(summary));
  return std::make_unique<NodeHandle>(std::move(trained.model));
}

py::dict evaluate(NodeHandle& handle, const NodeGraph& data, const py::object& nodes) {
  std::vector<Index> listed;
  if (nodes.is_none()) {
    for (Index node = 0; node < data.nodes.size(); ++node)
      if (data.labels.classes[static_cast<std::size_t>(node)] >= 0) listed.push_back(node);
  } else {
    listed = item_list(nodes, data.nodes.size(), "nodes");
  }
  const NodeEvaluation evaluation = handle.locked([&] { return handle.model.evaluate(data, listed); });
  py::dict result;
  result["count"] = evaluation.metrics.count;
  result["accuracy"] = evaluation.metrics.accuracy;
  result["macro_f1"] = evaluation.metrics.macro_f1;
  result["loss"] = evaluation.loss;
  return result;
}

py::array_t<std::int64_t> labels_of(const NodeGraph& data) {
  py::array_t<std::int64_t> labels(static_cast<py::ssize_t>(data.labels.classes.size()));
  std::copy(data.labels.classes.begin(), data.labels.classes.end(), labels.mutable_data());
  return labels;
}

std::vector<std::string> node_names(const NodeGraph& data) {
  std::vector<std::string> names;
  for (Index node = 0; node < data.nodes.size(); ++node) names.emplace_back(data.nodes.name(node));
  return names;
}

}  // namespace

void bind_nodes(py::module_& m) {
  py::class_<NodeGraph>(m, "NodeGraph", "A graph with node features and labels (see edgewise.NodeGraph)")
      .def_static("_from_arrays", &graph_from_arrays)
      .def_static("_from_files", &graph_from_files)
      .def_property_readonly("num_nodes", [](const NodeGraph& g) { return g.nodes.size(); })
      .def_property_readonly("num_edges", [](const NodeGraph& g) { return g.graph.num_edges(); },
                             "Edges attention runs on: both directions of each edge, and the self-loops")
      .def_property_readonly("num_features", [](const NodeGraph& g) { return g.features.cols(); })
      .def_property_readonly("class_names", [](const NodeGraph& g) { return g.labels.class_names; })
      .def_property_readonly("labels", &labels_of, "Class id of every node, -1 where unlabelled")
      .def_property_readonly("node_names", &node_names, "Each node's id as the input named it, by index")
      .def_property_readonly(
          "features",
          [](const py::object& self) { return read_only_view(self.cast<const NodeGraph&>().features, self); },
          "The node features as the model sees them: a read-only view, which keeps the graph alive");

  py::class_<NodeHandle> model_class(m, "NodeModel", "A trained node classifier (see edgewise.NodeModel)");
  bind_model_file(model_class);
  model_class.def_static("_train", &train)
      .def("_read_graph",
           [](const NodeHandle& handle, const std::string& edges, const std::string& labels,
              const std::string& features) {
             py::gil_scoped_release release;
             return handle.model.read_graph({.edges = edges, .labels = labels, .features = features});
           })
      .def("_predict",
           [](NodeHandle& handle, const NodeGraph& data) {
             return to_numpy(handle.locked([&] { return handle.model.predict(data); }));
           })
      .def("_embed",
           [](NodeHandle& handle, const NodeGraph& data) {
             return to_numpy(handle.locked([&] { return handle.model.embed(data); }));
           })
      .def("_evaluate", &evaluate)
      .def_property_readonly("_classes", [](const NodeHandle& handle) { return handle.model.config().classes; })
      .def_property_readonly("_input_format", [](const NodeHandle& handle) {
        return feature_format_name(handle.model.config().input.features.format);
      });
}

}  // namespace edgewise::python
