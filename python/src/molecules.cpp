// edgewise._edgewise.MoleculeModel: training, prediction, evaluation and attention maps of molecule
// property models, running the task-level code the command-line tool runs.
#include <GraphMol/ROMol.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/interrupt.hpp"
#include "edgewise/io/explain.hpp"
#include "edgewise/io/scaffold.hpp"
#include "edgewise/tasks/layer_width.hpp"
#include "edgewise/tasks/molecule_training.hpp"
#include "support.hpp"

namespace edgewise::python {
namespace {

using MoleculeHandle = ModelHandle<MoleculeModel>;

const std::vector<std::string> kTrainOptions = {
    "hidden", "heads", "head_dim", "layers", "score", "readout", "descriptors", "atom_crippen", "ensemble",
    "head_hidden", "dropout", "attention_dropout", "batch_size", "lr", "warmup_epochs", "final_lr_ratio",
    "weight_decay", "clip_norm", "patience", "epochs", "metric", "seed", "task_type"};

// The hidden width from hidden, heads and head_dim as `edgewise train` reads them.
void set_width(const Options& options, GraphPredictorOptions& network) {
  options.set("heads", network.heads);
  const GivenWidth given{.hidden = options.get<Index>("hidden"), .head_dim = options.get<Index>("head_dim")};
  if (const std::optional<Index> width = given_width(given, network.heads)) network.hidden = *width;
  if (network.hidden % network.heads != 0)  // the default width
    throw ArgumentError("hidden " + std::to_string(network.hidden) + " is not a multiple of heads " +
                        std::to_string(network.heads));
}

// The plan of `edgewise train --task graph` with the options given as keywords.
MoleculeTrainingPlan training_plan(const Options& options) {
  MoleculeTrainingPlan plan;
  MoleculeModelConfig& config = plan.config;
  set_width(options, config.network);
  options.set("layers", config.network.layers);
  options.set("head_hidden", config.network.head_hidden);
  options.set("dropout", config.network.dropout);
  options.set("attention_dropout", config.network.attention_dropout);
  if (const auto score = options.get<std::string>("score")) config.network.score = parse_score_function(*score);
  if (const auto readout = options.get<std::string>("readout")) config.network.readout = parse_readout(*readout);
  if (const auto type = options.get<std::string>("task_type")) config.task_type = parse_task_type(*type);
  if (const auto descriptors = options.get<bool>("descriptors"))
    config.featurizer.descriptors = *descriptors ? available_descriptors() : std::vector<std::string>{};
  options.set("atom_crippen", config.featurizer.crippen_contributions);
  if (const auto ensemble = options.get<Index>("ensemble")) {
    config.ensemble = *ensemble;
    plan.budget_ensemble = false;
  }
  if (const auto epochs = options.get<Index>("epochs")) {
    plan.training.epochs = *epochs;
    plan.budget_epochs = false;
  }
  options.set("batch_size", plan.training.batch_size);
  options.set("lr", plan.training.learning_rate);
  options.set("warmup_epochs", plan.training.warmup_epochs);
  options.set("final_lr_ratio", plan.training.final_lr_ratio);
  options.set("weight_decay", plan.training.weight_decay);
  options.set("clip_norm", plan.training.clip_norm);
  options.set("patience", plan.training.patience);
  options.set("metric", plan.training.metric);
  options.set("seed", plan.training.seed);
  return plan;
}

// The molecules to train on: a list of SMILES with a target matrix, or a CSV or SDF file.
struct MoleculeSource {
  std::optional<std::vector<std::string>> smiles = {};
  py::object targets = {};              // [n] or [n, T]; NaN: missing label
  std::vector<std::string> tasks = {};  // names of the targets (SMILES list) or the columns to read (file)
  std::string path = {};                // a CSV or SDF file
  std::string smiles_column = {};       // of a CSV file; empty: the command line's default
  bool skip_invalid = false;
  Index max_atoms = kDefaultMaxAtoms;

  std::string name() const {
    return path.empty() ? "Python: a list of " + std::to_string(smiles->size()) + " SMILES" : path;
  }
};

MoleculeDataset read_molecules(const MoleculeSource& source, const FeaturizerSpec& featurizer) {
  const InvalidMoleculePolicy policy = source.skip_invalid ? InvalidMoleculePolicy::skip : InvalidMoleculePolicy::fail;
  if (source.smiles) {
    Matrix<float> targets = float_matrix(source.targets, "targets", true);
    std::vector<std::string> tasks = source.tasks;
    if (tasks.empty())
      for (Index t = 0; t < targets.cols(); ++t) tasks.push_back(targets.cols() == 1 ? "y" : "y" + std::to_string(t));
    py::gil_scoped_release release;
    return molecules_from_smiles(*source.smiles, targets, tasks, policy, featurizer, source.max_atoms);
  }
  py::gil_scoped_release release;
  if (is_sdf_path(source.path)) {
    if (source.tasks.empty()) throw ArgumentError("target_columns: name the SDF data fields to train on");
    return load_molecule_sdf(source.path, source.tasks, policy, featurizer, source.max_atoms);
  }
  // The command line's defaults: the column named smiles, else the first; every other as a target.
  const MoleculeColumns defaults = default_molecule_columns(source.path, {}, source.smiles_column);
  MoleculeCsvOptions options;
  options.smiles_column = defaults.smiles;
  options.invalid_molecules = policy;
  options.featurizer = featurizer;
  options.max_atoms = source.max_atoms;
  for (const std::string& task : source.tasks.empty() ? defaults.targets : source.tasks)
    options.target_columns.emplace_back(task);
  return load_molecule_csv(source.path, options);
}

Split molecule_training_split(const py::object& split, const std::pair<double, double>& fractions,
                              const MoleculeDataset& data, std::uint64_t seed, std::string& description) {
  if (py::isinstance<py::str>(split)) {
    const std::string name = split.cast<std::string>();
    if (name != "random" && name != "scaffold")
      throw py::value_error("split: expected 'random', 'scaffold' or (train, val, test), got '" + name + "'");
    // As the command line describes it: "random 0.8,0.1,0.1".
    char sizes[96];
    std::snprintf(sizes, sizeof sizes, " %g,%g,%g", fractions.first, fractions.second,
                  1.0 - fractions.first - fractions.second);
    description = name + sizes;
    if (name == "random") return random_split(data.size(), fractions.first, fractions.second, seed);
    return scaffold_split(data.smiles, fractions.first, fractions.second);
  }
  description = "given";
  // Indices count input rows, as split files do; rows skipped as invalid are left out.
  return molecule_split(split_from_python(split, static_cast<Index>(data.source_rows)), data);
}

std::unique_ptr<MoleculeHandle> train(const MoleculeSource& source, const py::object& split,
                                      std::pair<double, double> fractions, bool verbose, const py::dict& keywords) {
  const Options options(keywords, kTrainOptions);
  MoleculeTrainingPlan plan = training_plan(options);
  plan.training.log = python_log(verbose);
  plan.on_epoch = [](Index, const EpochReport&) { check_interrupt(); };
  const InterruptCheck interruptible(check_interrupt);  // while the molecules are featurized
  const MoleculeDataset data = read_molecules(source, plan.config.featurizer);
  if (data.tasks.empty()) throw ArgumentError("no targets to train on");
  if (plan.config.task_type == TaskType::classification) check_classification_targets(data, source.name());
  std::string split_name;
  const Split parts = molecule_training_split(split, fractions, data, plan.training.seed, split_name);
  std::optional<TrainedMoleculeModel> trained;
  {
    py::gil_scoped_release release;
    trained.emplace(train_molecule_model(data, parts, std::move(plan)));
    TrainingSummary summary = molecule_training_summary(*trained, source.name(), data.size(),
                                                          split_name + ": " + part_sizes(parts));
    if (!parts.test.empty()) {
      const std::vector<std::pair<std::string, double>> means =
          molecule_metrics(trained->model, molecule_set(data, parts.test)).means("test");
      summary.metrics.insert(summary.metrics.end(), means.begin(), means.end());
    }
    trained->model.set_training_summary(std::move(summary));
  }
  return std::make_unique<MoleculeHandle>(std::move(trained->model));
}

// Predictions [n, T] (NaN rows for SMILES that cannot be read) and the (index, SMILES, reason) of
// those, streamed through the model as `edgewise predict` streams a file.
py::tuple predict(MoleculeHandle& handle, const std::vector<std::string>& smiles, Index max_atoms) {
  const auto tasks = static_cast<std::size_t>(handle.model.config().tasks.size());
  py::array_t<float> values({smiles.size(), tasks});
  float* out = values.mutable_data();
  std::vector<std::pair<std::size_t, std::string>> invalid;
  handle.locked([&] {
    std::size_t given = 0;
    handle.model.predict_smiles(
        [&](std::string& next) {
          if (given == smiles.size()) return false;
          if (given % 4096 == 0) check_interrupt();
          next = smiles[given++];
          return true;
        },
        [&](const PredictedRow& row) {
          float* destination = out + row.index * tasks;
          if (row.values.empty()) {
            std::fill(destination, destination + tasks, std::numeric_limits<float>::quiet_NaN());
            invalid.emplace_back(row.index, std::string(row.error));
          } else {
            std::copy(row.values.begin(), row.values.end(), destination);
          }
        },
        max_atoms);
  });
  py::list reasons;
  for (const auto& [index, reason] : invalid) reasons.append(py::make_tuple(index, smiles[index], reason));
  return py::make_tuple(values, reasons);
}

py::dict metrics_dict(const MoleculeMetrics& metrics, const std::vector<std::string>& tasks) {
  py::dict result;
  for (const auto& [name, value] : metrics.means("")) result[py::str(name.substr(1))] = value;
  py::dict per_task;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    py::dict task;
    if (metrics.regression) {
      const RegressionTaskMetrics& m = metrics.regression->tasks[t];
      task["count"] = m.count;
      task["rmse"] = m.rmse;
      task["mae"] = m.mae;
      task["r2"] = m.r2;
    } else {
      const ClassificationTaskMetrics& m = metrics.classification->tasks[t];
      task["count"] = m.count;
      task["roc_auc"] = m.roc_auc;
      task["pr_auc"] = m.pr_auc;
      task["accuracy"] = m.accuracy;
    }
    per_task[py::str(tasks[t])] = task;
  }
  result["tasks"] = per_task;
  return result;
}

py::dict evaluate(MoleculeHandle& handle, const std::vector<std::string>& smiles, const py::object& targets) {
  const MoleculeModelConfig& config = handle.model.config();
  Matrix<float> values = float_matrix(targets, "targets", true);
  if (values.cols() != static_cast<Index>(config.tasks.size()))
    throw py::value_error("targets: " + std::to_string(values.cols()) + " columns for a model of " +
                          std::to_string(config.tasks.size()) + " tasks");
  const MoleculeMetrics metrics = handle.locked([&] {
    const MoleculeDataset data =
        molecules_from_smiles(smiles, values, config.tasks, InvalidMoleculePolicy::fail, config.featurizer);
    if (config.task_type == TaskType::classification) check_classification_targets(data, "targets");
    return molecule_metrics(handle.model, molecule_set(data));
  });
  return metrics_dict(metrics, config.tasks);
}

// The molecule as the model featurizes it, or ValueError naming the SMILES.
std::pair<SmilesResult, MoleculeGraph> featurized(const MoleculeModel& model, const std::string& smiles) {
  SmilesResult parsed = parse_smiles(smiles, smiles_options(model.config().featurizer));
  if (!parsed.molecule) throw ArgumentError("cannot read SMILES '" + smiles + "': " + parsed.error);
  MoleculeGraph graph = model.featurize(*parsed.molecule);
  return {std::move(parsed), std::move(graph)};
}

py::dict attention(MoleculeHandle& handle, const std::string& smiles) {
  const auto [parsed, graph] = featurized(handle.model, smiles);
  Matrix<float> alpha = handle.locked([&] { return handle.model.attention(graph); });
  const Index edges = graph.graph.num_edges();
  py::array_t<std::int64_t> edge_index({Index{2}, edges});
  py::array_t<std::int64_t> bonds(edges);
  for (Index e = 0; e < edges; ++e) {
    edge_index.mutable_at(0, e) = graph.graph.source(e);
    edge_index.mutable_at(1, e) = graph.graph.target(e);
    bonds.mutable_at(e) = graph.bond_of_edge[static_cast<std::size_t>(e)];
  }
  const AttentionShading shading = attention_received(graph, alpha);
  py::dict result;
  result["edge_index"] = edge_index;
  result["weights"] = to_numpy(std::move(alpha));
  result["bond_of_edge"] = bonds;
  result["atoms"] = py::array_t<double>(static_cast<py::ssize_t>(shading.atoms.size()), shading.atoms.data());
  result["bonds"] = py::array_t<double>(static_cast<py::ssize_t>(shading.bonds.size()), shading.bonds.data());
  return result;
}

std::string explain_svg(MoleculeHandle& handle, const std::string& smiles, const std::string& title) {
  const auto [parsed, graph] = featurized(handle.model, smiles);
  const AttentionShading shading =
      attention_received(graph, handle.locked([&] { return handle.model.attention(graph); }));
  return attention_svg(*parsed.molecule, shading, title.empty() ? smiles : title);
}

}  // namespace

void bind_molecules(py::module_& m) {
  py::class_<MoleculeHandle> model_class(m, "MoleculeModel",
                                         "A trained molecule property model (see edgewise.MoleculeModel)");
  bind_model_file(model_class);
  model_class
      .def_static(
          "_train_smiles",
          [](std::vector<std::string> smiles, py::object targets, std::vector<std::string> tasks, Index max_atoms,
             bool skip_invalid, py::object split, std::pair<double, double> fractions, bool verbose,
             py::dict options) {
            MoleculeSource source{.smiles = std::move(smiles), .targets = std::move(targets), .tasks = std::move(tasks),
                                  .skip_invalid = skip_invalid, .max_atoms = max_atoms};
            return train(source, split, fractions, verbose, options);
          })
      .def_static(
          "_train_file",
          [](std::string path, std::string smiles_column, std::vector<std::string> tasks, Index max_atoms,
             bool skip_invalid, py::object split, std::pair<double, double> fractions, bool verbose,
             py::dict options) {
            MoleculeSource source{.tasks = std::move(tasks), .path = std::move(path),
                                  .smiles_column = std::move(smiles_column), .skip_invalid = skip_invalid,
                                  .max_atoms = max_atoms};
            return train(source, split, fractions, verbose, options);
          })
      .def("_predict", &predict)
      .def("_evaluate", &evaluate)
      .def("_attention", &attention)
      .def("_explain_svg", &explain_svg)
      .def_property_readonly("_tasks", [](const MoleculeHandle& handle) { return handle.model.config().tasks; })
      .def_property_readonly("_task_type",
                             [](const MoleculeHandle& handle) { return to_string(handle.model.config().task_type); })
      .def_static("_is_sdf", &is_sdf_path)
      .def_property_readonly("_ensemble", [](const MoleculeHandle& handle) { return handle.model.config().ensemble; });
}

}  // namespace edgewise::python
