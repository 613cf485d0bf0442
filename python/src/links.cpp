// edgewise._edgewise.LinkModel: link predictors trained on a NodeGraph's links, scoring pairs and
// suggesting partners, by the task-level code the command-line tool runs.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "edgewise/tasks/link/link_training.hpp"
#include "edgewise/tasks/tuning.hpp"
#include "params.hpp"
#include "support.hpp"

namespace edgewise::python {
namespace {

using LinkHandle = ModelHandle<LinkModel>;

// The node index pairs of an [M, 2] integer array.
std::vector<NodePair> pair_list(const py::handle& pairs, Index nodes, const std::string& what) {
  const py::array array = py::array::ensure(pairs);
  if (!array || array.ndim() != 2 || array.shape(1) != 2)
    throw py::value_error(what + ": expected an [M, 2] array of node indices");
  const std::vector<Index> flat = index_vector(array.attr("reshape")(-1), what);
  std::vector<NodePair> listed;
  for (std::size_t i = 0; i < flat.size(); i += 2) {
    for (const Index node : {flat[i], flat[i + 1]})
      if (node < 0 || node >= nodes)
        throw py::value_error(what + ": node index " + std::to_string(node) + " is outside the graph's " +
                              std::to_string(nodes) + " nodes");
    if (flat[i] == flat[i + 1]) throw py::value_error(what + ": a node paired with itself, " + std::to_string(flat[i]));
    listed.emplace_back(flat[i], flat[i + 1]);
  }
  return listed;
}

// The split of `split`: None or "random" (split_sizes' fractions), or a folder of pair files.
LinkSplit link_split(const py::object& split, const NodeGraph& data, const std::vector<NodePair>& links,
                     const LinkTrainingParams& params, std::string& description) {
  const SplitSpec spec = parse_link_split(split.is_none() ? params.split : split.cast<std::string>(),
                                          parse_split_fractions(params.split_sizes, "split_sizes"), "split");
  description = describe_link_split(spec);
  return make_link_split(spec, data, links, params.training.seed);
}

// The keywords as options, split_sizes among them when given.
nlohmann::json given_options(const py::dict& keywords, const std::optional<std::string>& sizes) {
  nlohmann::json given = link_keywords(keywords);
  if (sizes) given["split-sizes"] = *sizes;
  return given;
}

std::unique_ptr<LinkHandle> train(const NodeGraph& data, const py::object& split_given, std::optional<std::string> sizes,
                                  bool verbose, const py::dict& keywords) {
  const nlohmann::json given = given_options(keywords, sizes);
  LinkTrainingParams params = link_training_params(given, python_naming("LinkModel.train"));
  const std::vector<NodePair> links = graph_links(data);
  std::string split_name;
  const LinkSplit split = link_split(split_given, data, links, params, split_name);
  params.training.log = python_log(verbose);
  py::gil_scoped_release release;
  TrainedLinkModel trained =
      train_link_model(data, split, params.model(data), params.training,
                       [](const LinkEpochReport&) { check_interrupt(); });
  trained.model.set_training_summary(link_training_summary(
      trained, static_cast<Index>(links.size()), "Python: a graph of " + std::to_string(data.nodes.size()) + " nodes",
      split_name));
  return std::make_unique<LinkHandle>(std::move(trained.model));
}

// Cross-validates `tuning`'s candidates (params.hpp's tuning_candidates) over the split's training
// and validation links, as `edgewise tune --task link` does; the result as JSON text.
std::string tune(const NodeGraph& data, const py::object& split_given, std::optional<std::string> sizes, bool verbose,
                 const py::dict& keywords, const py::tuple& tuning) {
  const ParamNaming naming = python_naming("edgewise.tune");
  const nlohmann::json given = given_options(keywords, sizes);
  const LinkTrainingParams params = link_training_params(given, naming);
  const nlohmann::json candidates = tuning_candidates("link", tuning, given, naming);
  const std::vector<NodePair> links = graph_links(data);
  std::string split_name;
  const LinkSplit split = link_split(split_given, data, links, params, split_name);
  const std::vector<LinkSplit> folds =
      link_tuning_folds(split, links, data.nodes.size(), tuning[2].cast<Index>(), params.training.seed);
  const LinkMetric metric = link_tuning_metric(data, folds, given, naming);
  const nlohmann::json run = {{"data", "Python: a graph of " + std::to_string(data.nodes.size()) + " nodes"},
                              {"split", split_name},
                              {"seed", params.training.seed},
                              {"metric", std::string(name_of(kLinkMetricNames, metric))}};
  return run_tuning(candidates, folds.size(), run, python_log(verbose), naming, [&](const FoldReport& report) {
    return tune_links(data, folds, given, candidates, python_log(false), report, naming);
  });
}

py::tuple recommend(LinkHandle& handle, const NodeGraph& data, const py::object& nodes, Index k) {
  const std::vector<Index> listed = item_list(nodes, data.nodes.size(), "nodes");
  const std::vector<std::vector<ScoredNode>> suggestions =
      handle.locked([&] { return handle.model.recommend(data, listed, k); });
  py::list partners, scores;
  for (const std::vector<ScoredNode>& suggested : suggestions) {
    py::array_t<std::int64_t> ids(static_cast<py::ssize_t>(suggested.size()));
    py::array_t<float> values(static_cast<py::ssize_t>(suggested.size()));
    for (std::size_t i = 0; i < suggested.size(); ++i) {
      ids.mutable_data()[i] = suggested[i].node;
      values.mutable_data()[i] = suggested[i].score;
    }
    partners.append(ids);
    scores.append(values);
  }
  return py::make_tuple(partners, scores);
}

py::dict evaluate(LinkHandle& handle, const NodeGraph& data, const py::object& links, const py::object& non_links) {
  const std::vector<NodePair> positive = pair_list(links, data.nodes.size(), "links");
  const std::vector<NodePair> negative = pair_list(non_links, data.nodes.size(), "non_links");
  const LinkMetrics metrics = handle.locked([&] { return handle.model.evaluate(data, positive, negative); });
  py::dict result;
  result["roc_auc"] = metrics.roc_auc;
  result["average_precision"] = metrics.average_precision;
  result[py::str("hits@" + std::to_string(metrics.hits_k))] = metrics.hits;
  result["mrr"] = metrics.mrr;
  return result;
}

}  // namespace

void bind_links(py::module_& m) {
  py::class_<LinkHandle> model_class(m, "LinkModel", "A trained link predictor (see edgewise.LinkModel)");
  bind_model_file(model_class);
  model_class.def_static("_train", &train)
      .def_static("_tune", &tune)
      .def("_read_graph",
           [](const LinkHandle& handle, const std::string& edges, const std::string& features,
              std::optional<bool> header) {
             py::gil_scoped_release release;
             return handle.model.read_graph({.edges = edges, .features = features, .header = header_rule(header)});
           })
      .def("_score_pairs",
           [](LinkHandle& handle, const NodeGraph& data, const py::object& pairs) {
             const std::vector<NodePair> listed = pair_list(pairs, data.nodes.size(), "pairs");
             const std::vector<float> scores = handle.locked([&] { return handle.model.score_pairs(data, listed); });
             return py::array_t<float>(static_cast<py::ssize_t>(scores.size()), scores.data());
           })
      .def("_embed",
           [](LinkHandle& handle, const NodeGraph& data) {
             return to_numpy(handle.locked([&] { return handle.model.embed(data); }));
           })
      .def("_recommend", &recommend)
      .def("_evaluate", &evaluate)
      .def_property_readonly("_embedding_dim", [](const LinkHandle& handle) { return handle.model.embedding_dim(); });
}

}  // namespace edgewise::python
