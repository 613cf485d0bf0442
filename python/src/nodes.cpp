// edgewise._edgewise.NodeGraph and NodeModel: graphs from NumPy arrays or files, and node classifiers
// trained, applied and evaluated by the task-level code the command-line tool runs.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/names.hpp"
#include "edgewise/tasks/node/node_training.hpp"
#include "edgewise/tasks/common/split_spec.hpp"
#include "params.hpp"
#include "support.hpp"

namespace edgewise::python {
namespace {

using NodeHandle = ModelHandle<NodeModel>;

// The name of every id of a 1-D array, as an edge list file names its nodes: an integer in
// [0, 2^64 - 1] by its decimal digits, a string as written. `strings` is set by the first array of
// ids and must hold for every later one. `what` names the array in errors.
std::vector<std::string> id_names(const py::handle& ids, const std::string& what, std::optional<bool>& strings) {
  const py::array array = py::array::ensure(ids);
  if (!array || array.ndim() != 1) throw py::value_error(what + ": expected a 1-D array of node ids");
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(array.size()));
  const auto check_kind = [&](bool string_id) {
    if (strings.value_or(string_id) != string_id)
      throw py::type_error(what + ": node ids are integers or strings, not both");
    strings = string_id;
  };
  for (const py::handle id : array.attr("tolist")()) {
    if (py::isinstance<py::str>(id)) {
      check_kind(true);
      names.push_back(id.cast<std::string>());
      if (names.back().empty()) throw py::value_error(what + ": an empty string is not a node id");
    } else if (py::isinstance<py::int_>(id) && !py::isinstance<py::bool_>(id)) {
      check_kind(false);
      try {
        names.push_back(std::to_string(id.cast<unsigned long long>()));
      } catch (const py::cast_error&) {
        throw py::value_error(what + ": node id " + std::string(py::str(id)) + " is outside 0 .. 2^64 - 1");
      }
    } else {
      throw py::type_error(what + ": expected integers or strings as node ids, got " +
                           std::string(py::str(id.get_type().attr("__name__"))));
    }
  }
  return names;
}

// Numbers the ids of `nodes` (None: no list) in their order, then the edges' ids by first appearance
// (each edge's source, then its target), as an edge list file numbers them; with a list, an edge's
// ids must be in it. Returns (node names by number, sources, targets, whether the ids are strings).
py::tuple number_ids(const py::object& nodes, const py::object& sources, const py::object& targets) {
  std::optional<bool> strings;
  NodeIndex index;
  if (!nodes.is_none())
    for (const std::string& name : id_names(nodes, "nodes", strings))
      if (const Index before = index.size(); index.add(name) != before)
        throw py::value_error("nodes: node id " + name + " is listed twice");
  const std::vector<std::string> from = id_names(sources, "edge sources", strings);
  const std::vector<std::string> to = id_names(targets, "edge targets", strings);
  if (from.size() != to.size())
    throw py::value_error("edge sources and targets: " + std::to_string(from.size()) + " and " +
                          std::to_string(to.size()) + " ids");
  const auto number = [&](const std::string& name, const char* what) {
    if (nodes.is_none()) return index.add(name);
    const std::optional<Index> known = index.find(name);
    if (!known) throw py::value_error(std::string(what) + ": node id " + name + " is not in nodes");
    return *known;
  };
  py::array_t<std::int64_t> from_rows(static_cast<py::ssize_t>(from.size()));
  py::array_t<std::int64_t> to_rows(static_cast<py::ssize_t>(to.size()));
  for (std::size_t e = 0; e < from.size(); ++e) {
    from_rows.mutable_data()[e] = number(from[e], "edge sources");
    to_rows.mutable_data()[e] = number(to[e], "edge targets");
  }
  return py::make_tuple(index.names(), from_rows, to_rows, strings.value_or(false));
}

// A graph from (sources, targets) arrays over nodes 0 .. num_nodes - 1: each edge joins its nodes both
// ways unless directed, repeated edges count once, and every node attends to itself with self_loops.
// Without features, the structural features of `edgewise train` are computed from the graph. Nodes
// are named by their numbers, or by node_names (one per node) when given, as string ids with
// string_ids.
NodeGraph graph_from_arrays(Index num_nodes, const py::object& sources, const py::object& targets,
                            const py::object& features, const py::object& labels,
                            std::vector<std::string> class_names, bool directed, bool self_loops,
                            const std::vector<std::string>& node_names, bool string_ids) {
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
  if (!node_names.empty()) {
    data.nodes = NodeIndex();
    for (const std::string& name : node_names) data.nodes.add(name);
    data.input.ids = string_ids ? NodeIds::string : NodeIds::integer;
  }
  return data;
}

NodeGraph graph_from_files(const std::string& edges, const std::string& labels, const FileColumn& label_column,
                           const FileColumn& id_column, const std::string& features,
                           const std::string& feature_format, const std::string& node_ids, bool directed,
                           bool self_loops, std::optional<bool> normalize_rows, std::optional<bool> header) {
  NodeInputOptions input{.ids = value_named(kNodeIdsNames, node_ids, "node_ids"),
                         .directed = directed,
                         .add_self_loops = self_loops};
  std::string format = feature_format.empty() ? (features.empty() ? "structural" : "sparse") : feature_format;
  std::replace(format.begin(), format.end(), '-', '_');
  input.features.format = feature_format_from_name(format);
  input.normalize_rows = normalize_rows.value_or(normalizes_rows_by_default(input.features.format));
  py::gil_scoped_release release;
  return read_node_graph({.edges = edges,
                          .labels = labels,
                          .label_node_column = id_column,
                          .label_column = label_column,
                          .features = features,
                          .header = header_rule(header)},
                         input);
}

// A split of the labelled nodes: (train, val, test) index arrays or masks, a specification as --split
// reads it (per-class:K[,VAL,TEST], stratified:TRAIN,VAL,TEST or a folder), or, with None, the
// default of `edgewise train`. `description` names it for the training summary.
Split node_split(const py::object& split, const NodeGraph& data, const NodeTrainingParams& params,
                 std::string& description) {
  if (!split.is_none() && !py::isinstance<py::str>(split)) {
    description = "given";
    return split_from_python(split, data.nodes.size());
  }
  description = split.is_none() ? params.split : split.cast<std::string>();
  const NodeLookup lookup = [&data](std::string_view name) { return data.nodes.find(name).value_or(-1); };
  return make_node_split(parse_node_split(description, "split"), data.labels.classes, lookup, params.training.seed);
}

std::unique_ptr<NodeHandle> train(const NodeGraph& data, const py::object& split_given, bool verbose,
                                  const py::dict& keywords) {
  const NodeTrainingParams params = node_training_params(node_keywords(keywords), python_naming("NodeModel.train"));
  std::string split_name;
  const Split split = node_split(split_given, data, params, split_name);
  NodeTrainingSettings settings =
      node_training_settings(params.network, params.training, params.regularization, data, split, params.batching);
  settings.training.log = python_log(verbose);
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

// Cross-validates `tuning`'s candidates (params.hpp's tuning_candidates) over the split's labelled
// training and validation nodes, as `edgewise tune --task node` does; the result as JSON text.
std::string tune(const NodeGraph& data, const py::object& split_given, bool verbose, const py::dict& keywords,
                 const py::tuple& tuning) {
  const ParamNaming naming = python_naming("edgewise.tune");
  const nlohmann::json given = node_keywords(keywords);
  const NodeTrainingParams params = node_training_params(given, naming);
  const nlohmann::json candidates = tuning_candidates("node", tuning, given, naming);
  std::string split_name;
  const Split split = node_split(split_given, data, params, split_name);
  const std::vector<Split> folds = tuning_folds(split, tuning[2].cast<Index>(), params.training.seed);
  const nlohmann::json run = {{"data", "Python: a graph of " + std::to_string(data.nodes.size()) + " nodes"},
                              {"split", split_name},
                              {"seed", params.training.seed},
                              {"metric", "accuracy"}};
  return run_tuning(candidates, folds.size(), run, python_log(verbose), naming, [&](const FoldReport& report) {
    return tune_nodes(data, folds, given, candidates, python_log(false), report, naming);
  });
}

py::dict evaluate(NodeHandle& handle, const NodeGraph& data, const py::object& nodes, std::optional<double> coverage) {
  std::vector<Index> listed;
  if (nodes.is_none()) {
    for (Index node = 0; node < data.nodes.size(); ++node)
      if (data.labels.classes[static_cast<std::size_t>(node)] >= 0) listed.push_back(node);
  } else {
    listed = item_list(nodes, data.nodes.size(), "nodes");
  }
  const NodeEvaluation evaluation = handle.locked([&] { return handle.model.evaluate(data, listed); });
  const ClassUncertaintyScores scores =
      handle.locked([&] { return handle.model.score_probabilities(data, listed, coverage); });
  py::dict result;
  result["count"] = evaluation.metrics.count;
  result["accuracy"] = evaluation.metrics.accuracy;
  result["macro_f1"] = evaluation.metrics.macro_f1;
  result["loss"] = evaluation.loss;
  result["nll"] = scores.nll;
  result["ece"] = scores.ece;
  result["brier"] = scores.brier;
  if (coverage) {
    result["set_coverage"] = scores.coverage;
    result["mean_set_size"] = scores.mean_set_size;
  }
  return result;
}

// [N, classes]: whether each class is in each node's prediction set of `coverage`.
py::array_t<bool> predict_sets(NodeHandle& handle, const NodeGraph& data, double coverage) {
  const double threshold = handle.model.set_threshold(coverage);
  const Matrix<float> probabilities = handle.locked([&] { return handle.model.predict(data); });
  py::array_t<bool> sets({probabilities.rows(), probabilities.cols()});
  auto in_set = sets.mutable_unchecked<2>();
  const std::vector<std::vector<Index>> classes = prediction_sets(probabilities, threshold);
  for (Index node = 0; node < probabilities.rows(); ++node) {
    for (Index k = 0; k < probabilities.cols(); ++k) in_set(node, k) = false;
    for (const Index k : classes[static_cast<std::size_t>(node)]) in_set(node, k) = true;
  }
  return sets;
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

// Each node's id as the input gave it: strings (an object array), or integers, int64 where every id
// fits, else uint64, so that ids up to 2^64 - 1 come back exactly.
py::array node_ids(const NodeGraph& data) {
  if (data.input.ids == NodeIds::string)
    return py::module_::import("numpy").attr("array")(node_names(data), py::arg("dtype") = "object");
  py::array_t<std::uint64_t> ids(data.nodes.size());
  for (Index node = 0; node < data.nodes.size(); ++node) {
    const std::string_view name = data.nodes.name(node);
    std::from_chars(name.data(), name.data() + name.size(), ids.mutable_at(node));  // the readers' canonical digits
  }
  const std::uint64_t* values = ids.data();
  const bool fit = std::all_of(values, values + ids.size(), [](std::uint64_t id) {
    return id <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  });
  return fit ? py::array(ids.attr("astype")("int64")) : ids;
}

}  // namespace

void bind_nodes(py::module_& m) {
  py::class_<NodeGraph>(m, "NodeGraph", "A graph with node features and labels (see edgewise.NodeGraph)")
      .def_static("_number_ids", &number_ids)
      .def_static("_from_arrays", &graph_from_arrays)
      .def_static("_from_files", &graph_from_files)
      .def_property_readonly("num_nodes", [](const NodeGraph& g) { return g.nodes.size(); })
      .def_property_readonly("num_edges", [](const NodeGraph& g) { return g.graph.num_edges(); },
                             "Edges attention runs on: both directions of each edge, and the self-loops")
      .def_property_readonly("num_features", [](const NodeGraph& g) { return g.features.cols(); })
      .def_property_readonly("class_names", [](const NodeGraph& g) { return g.labels.class_names; })
      .def_property_readonly("labels", &labels_of, "Class id of every node, -1 where unlabelled")
      .def_property_readonly("node_names", &node_names, "Each node's id as the input named it, by index")
      .def_property_readonly("node_ids", &node_ids, "Each node's id as the input gave it, by index")
      .def_readonly("_guessed_headers", &NodeGraph::guessed_headers)
      .def_property_readonly(
          "features",
          [](const py::object& self) { return read_only_view(self.cast<const NodeGraph&>().features, self); },
          "The node features as the model sees them: a read-only view, which keeps the graph alive");

  py::class_<NodeHandle> model_class(m, "NodeModel", "A trained node classifier (see edgewise.NodeModel)");
  bind_model_file(model_class);
  model_class.def_static("_train", &train)
      .def_static("_tune", &tune)
      .def("_read_graph",
           [](const NodeHandle& handle, const std::string& edges, const std::string& labels,
              const FileColumn& label_column, const FileColumn& id_column, const std::string& features,
              std::optional<bool> header) {
             py::gil_scoped_release release;
             return handle.model.read_graph({.edges = edges,
                                             .labels = labels,
                                             .label_node_column = id_column,
                                             .label_column = label_column,
                                             .features = features,
                                             .header = header_rule(header)});
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
      .def("_predict_sets", &predict_sets)
      .def_property_readonly("_temperature",
                             [](const NodeHandle& handle) -> std::optional<double> {
                               const auto& calibration = handle.model.config().calibration;
                               if (!calibration) return std::nullopt;
                               return calibration->temperature;
                             })
      .def_property_readonly("_classes", [](const NodeHandle& handle) { return handle.model.config().classes; })
      .def_property_readonly("_input_format", [](const NodeHandle& handle) {
        return feature_format_name(handle.model.config().input.features.format);
      });
}

}  // namespace edgewise::python
