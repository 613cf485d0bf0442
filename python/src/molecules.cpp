// edgewise._edgewise.MoleculeModel: training, prediction, evaluation and attention maps of molecule
// property models, running the task-level code the command-line tool runs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "bindings.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/interrupt.hpp"
#include "edgewise/io/csv.hpp"
#include "edgewise/chem/explain.hpp"
#include "edgewise/tasks/molecule/molecule_training.hpp"
#include "edgewise/tasks/common/split_spec.hpp"
#include "edgewise/tasks/tuning.hpp"
#include "params.hpp"
#include "support.hpp"

namespace edgewise::python {
namespace {

using MoleculeHandle = ModelHandle<MoleculeModel>;
using json = nlohmann::json;

// How a CSV file's columns are read, as the command line's --smiles-column, --targets, --no-header
// and --comment give them.
struct CsvLayout {
  std::optional<CsvColumn> smiles_column = {};  // nullopt: the column named smiles, in any case, else the first
  std::vector<CsvColumn> target_columns = {};   // empty: every column but the SMILES one (needs a header)
  bool has_header = true;
  std::string comment = {};  // lines starting with it are skipped; empty: none
};

// The molecules to train on: a list of SMILES with a target matrix, or a CSV or SDF file.
struct MoleculeSource {
  std::optional<std::vector<std::string>> smiles = {};
  py::object targets = {};              // [n] or [n, T]; NaN: missing label
  std::vector<std::string> tasks = {};  // the targets' names; empty: y (y0, y1, ...) or the file's
  std::string path = {};                // a CSV or SDF file
  CsvLayout layout = {};                // of a CSV file; an SD file's target columns name data fields
  bool skip_invalid = false;
  Index max_atoms = kDefaultMaxAtoms;

  std::string name() const {
    return path.empty() ? "Python: a list of " + std::to_string(smiles->size()) + " SMILES" : path;
  }
  InvalidMoleculePolicy policy() const {
    return skip_invalid ? InvalidMoleculePolicy::skip : InvalidMoleculePolicy::fail;
  }
};

// The command line's default columns of a CSV file with a header: the SMILES column given (by name or
// 0-based index), else the column named smiles, in any case, else the first; every other as a target.
MoleculeColumns header_columns(const std::string& path, const CsvLayout& layout) {
  if (!layout.smiles_column) return default_molecule_columns(path, layout.comment);
  if (const auto* name = std::get_if<std::string>(&*layout.smiles_column))
    return default_molecule_columns(path, layout.comment, *name);
  const CsvReader reader(path, {.has_header = true, .comment_prefix = layout.comment});
  const CsvTable& header = reader.columns();
  const auto index = static_cast<std::size_t>(std::get<Index>(*layout.smiles_column));
  return default_molecule_columns(path, layout.comment, header.column_name(header.check_column(index)));
}

// The reader's options for a CSV file read by `layout`, the command line's defaults filled in.
MoleculeCsvOptions csv_options(const std::string& path, const CsvLayout& layout) {
  MoleculeCsvOptions options;
  options.has_header = layout.has_header;
  options.comment_prefix = layout.comment;
  options.target_columns = layout.target_columns;
  if (!layout.has_header) {
    options.smiles_column = layout.smiles_column.value_or(Index{0});
    return options;
  }
  const MoleculeColumns defaults = header_columns(path, layout);
  options.smiles_column = defaults.smiles;
  if (options.target_columns.empty()) options.target_columns.assign(defaults.targets.begin(), defaults.targets.end());
  return options;
}

// An SD file's targets: data fields, by name.
std::vector<std::string> sdf_fields(const std::vector<CsvColumn>& columns) {
  if (columns.empty()) throw ArgumentError("target_columns: name the SDF data fields to train on");
  std::vector<std::string> names;
  for (const CsvColumn& column : columns) {
    const auto* name = std::get_if<std::string>(&column);
    if (name == nullptr) throw ArgumentError("target_columns: an SD file's targets are data fields, named by strings");
    names.push_back(*name);
  }
  return names;
}

MoleculeDataset read_file_molecules(const MoleculeSource& source, const FeaturizerSpec& featurizer) {
  py::gil_scoped_release release;
  if (is_sdf_path(source.path))
    return load_molecule_sdf(source.path, sdf_fields(source.layout.target_columns), source.policy(), featurizer,
                             source.max_atoms);
  if (!source.layout.has_header && source.layout.target_columns.empty())
    throw ArgumentError("target_columns: a file without a header needs them, as 0-based column indices");
  MoleculeCsvOptions options = csv_options(source.path, source.layout);
  options.invalid_molecules = source.policy();
  options.featurizer = featurizer;
  options.max_atoms = source.max_atoms;
  return load_molecule_csv(source.path, options);
}

MoleculeDataset read_molecules(const MoleculeSource& source, const FeaturizerSpec& featurizer) {
  if (!source.smiles) {
    MoleculeDataset data = read_file_molecules(source, featurizer);
    if (source.tasks.empty()) return data;
    // Names for a file's targets, as the command line's --target-names gives them.
    if (source.tasks.size() != data.tasks.size())
      throw ArgumentError("task_names: " + std::to_string(source.tasks.size()) + " names for " +
                          std::to_string(data.tasks.size()) + " targets");
    data.tasks = source.tasks;
    return data;
  }
  Matrix<float> targets = float_matrix(source.targets, "targets", true);
  std::vector<std::string> tasks = source.tasks;
  if (tasks.empty())
    for (Index t = 0; t < targets.cols(); ++t) tasks.push_back(targets.cols() == 1 ? "y" : "y" + std::to_string(t));
  py::gil_scoped_release release;
  return molecules_from_smiles(*source.smiles, targets, tasks, source.policy(), featurizer, source.max_atoms);
}

// A split given as a specification ("random", "scaffold" or a folder, as --split reads it) with the
// fractions of split_sizes, or as a (train, val, test) tuple of row indices or masks; `description`
// names it as the command line does.
Split molecule_training_split(const py::object& split, const std::pair<double, double>& fractions,
                              const MoleculeDataset& data, TaskType type, std::uint64_t seed,
                              std::string& description, const LogSettings& log) {
  if (py::isinstance<py::str>(split)) {
    char sizes[96];
    const double test = 1.0 - fractions.first - fractions.second;
    std::snprintf(sizes, sizeof sizes, "%g,%g,%g", fractions.first, fractions.second, test);
    const SplitSpec spec = parse_molecule_split(
        split.cast<std::string>(),
        {.train = fractions.first, .val = fractions.second, .test = test, .text = sizes}, "split");
    description = describe_molecule_split(spec, type, seed);
    std::ostringstream skipped;  // a folder's rows whose molecules were skipped
    Split parts = make_molecule_split(spec, data, type, seed, skipped);
    if (!skipped.str().empty()) Logger(log).normal(skipped.str().substr(0, skipped.str().size() - 1));
    return parts;
  }
  description = "given";
  // Indices count input rows, as split files do; rows skipped as invalid are left out.
  return molecule_split(split_from_python(split, static_cast<Index>(data.source_rows)), data);
}

std::unique_ptr<MoleculeHandle> train(const MoleculeSource& source, const py::object& split,
                                      std::pair<double, double> fractions, bool verbose, const py::dict& keywords) {
  MoleculeTrainingPlan plan =
      molecule_training_params(molecule_keywords(keywords), python_naming("MoleculeModel.train")).plan;
  plan.training.log = python_log(verbose);
  plan.on_epoch = [](Index, const EpochReport&) { check_interrupt(); };
  const InterruptCheck interruptible(check_interrupt);  // while the molecules are featurized
  const MoleculeDataset data = read_molecules(source, plan.config.featurizer);
  if (data.tasks.empty()) throw ArgumentError("no targets to train on");
  check_targets_labelled(data, source.name());
  if (plan.config.task_type == TaskType::classification) check_classification_targets(data, source.name());
  std::string split_name;
  const Split parts =
      molecule_training_split(split, fractions, data, plan.config.task_type, plan.training.seed, split_name,
                              plan.training.log);
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

// Cross-validates `tuning`'s candidates (a tuple of the grid as JSON text or "", a preset's name or
// "", and the number of folds) inside the split's training and validation rows, as `edgewise tune`
// does (tasks/tuning), the keyword options shared by every candidate. Returns the result as JSON
// text, options by their Python names: metric, best, chosen, options (the chosen candidate's) and
// the record of every candidate.
std::string tune(const MoleculeSource& source, const py::object& split, std::pair<double, double> fractions,
                 bool verbose, const py::dict& keywords, const py::tuple& tuning) {
  const ParamNaming naming = python_naming("edgewise.tune");
  const json given = molecule_keywords(keywords);
  const MoleculeTrainingPlan plan = molecule_training_params(given, naming).plan;
  const json candidates = tuning_candidates("molecule", tuning, given, naming);
  const LogSettings log = python_log(verbose);
  const MoleculeDataset data = read_molecules(source, plan.config.featurizer);
  if (data.tasks.empty()) throw ArgumentError("no targets to train on");
  check_targets_labelled(data, source.name());
  if (plan.config.task_type == TaskType::classification) check_classification_targets(data, source.name());
  std::string split_name;
  const Split rows = row_split(
      molecule_training_split(split, fractions, data, plan.config.task_type, plan.training.seed, split_name, log), data);
  const std::vector<Split> folds = tuning_folds(rows, tuning[2].cast<Index>(), plan.training.seed);
  const std::string metric = early_stopping_metric(plan.training, plan.config.task_type);
  const MoleculeLoader load = [&source](MoleculeModelConfig& config) {
    py::gil_scoped_acquire gil;
    MoleculeDataset candidate_data = read_molecules(source, config.featurizer);
    config.tasks = candidate_data.tasks;
    return candidate_data;
  };
  const json run = {{"data", source.name()}, {"split", split_name}, {"seed", plan.training.seed}, {"metric", metric}};
  return run_tuning(candidates, folds.size(), run, log, naming, [&](const FoldReport& report) {
    return tune_molecules(load, folds, given, candidates, metric, python_log(false), report, naming);
  });
}

// train's model, or with `tuning` (not None) tune's result.
py::object train_or_tune(const MoleculeSource& source, const py::object& split, std::pair<double, double> fractions,
                         bool verbose, const py::dict& keywords, const py::object& tuning) {
  if (tuning.is_none()) return py::cast(train(source, split, fractions, verbose, keywords));
  return py::str(tune(source, split, fractions, verbose, keywords, tuning.cast<py::tuple>()));
}

// Predictions [n, T] (NaN rows for SMILES that cannot be read) and the (index, SMILES, reason, place)
// of those, where place(index) names the row in messages; streamed through the model as `edgewise
// predict` streams a file.
py::tuple predict(MoleculeHandle& handle, const std::vector<std::string>& smiles, Index max_atoms,
                  const std::function<std::string(std::size_t)>& place) {
  const auto tasks = static_cast<std::size_t>(handle.model.config().tasks.size());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  py::array_t<float> values({smiles.size(), tasks});
  float* out = values.mutable_data();
  // A calibrated model's raw spreads, NaN where the values are; none without a calibration.
  py::array_t<float> spread({handle.model.config().calibration.empty() ? std::size_t{0} : smiles.size(), tasks});
  float* spread_out = spread.mutable_data();
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
            std::fill(destination, destination + tasks, nan);
            if (spread.size() > 0) std::fill_n(spread_out + row.index * tasks, tasks, nan);
            invalid.emplace_back(row.index, std::string(row.error));
          } else {
            std::copy(row.values.begin(), row.values.end(), destination);
            std::ranges::copy(row.raw_spread, spread_out + row.index * tasks);
          }
        },
        max_atoms);
  });
  py::list reasons;
  for (const auto& [index, reason] : invalid)
    reasons.append(py::make_tuple(index, smiles[index], reason, place(index)));
  return py::make_tuple(values, reasons, spread);
}

// The SMILES column of a CSV file, trimmed, and the line of each row.
std::vector<std::string> read_smiles_column(const std::string& path, const CsvLayout& layout,
                                            std::vector<std::size_t>& lines) {
  py::gil_scoped_release release;
  const CsvColumn column = csv_options(path, layout).smiles_column;
  CsvReader reader(path, {.has_header = layout.has_header, .comment_prefix = layout.comment});
  const CsvTable& table = reader.columns();
  const auto* name = std::get_if<std::string>(&column);
  const std::size_t index =
      name != nullptr ? table.column_index(*name) : static_cast<std::size_t>(std::get<Index>(column));
  if (layout.has_header) table.check_column(index);
  std::vector<std::string> smiles, fields;
  std::size_t line = 0;
  while (reader.next(fields, line)) {
    if (index >= fields.size())  // a file without a header: rows have the first row's width
      throw ArgumentError(path + ": column index " + std::to_string(index) + " is out of range; the table has " +
                          std::to_string(fields.size()) + " columns");
    smiles.emplace_back(trim_whitespace(fields[index]));
    lines.push_back(line);
  }
  return smiles;
}

// predict() for the records of an SD file: a record RDKit cannot read gets a NaN row, an empty
// SMILES and the line where it starts.
py::tuple predict_sdf(MoleculeHandle& handle, const std::string& path, Index max_atoms) {
  const InterruptCheck interruptible(check_interrupt);  // while the records are read
  MoleculeDataset data;
  SpreadPredictions predicted;
  const bool calibrated = !handle.model.config().calibration.empty();
  handle.locked([&] {
    data = load_molecule_sdf(path, {}, InvalidMoleculePolicy::skip, handle.model.config().featurizer, max_atoms);
    const MoleculeSet set = molecule_set(data);
    if (calibrated)
      predicted = handle.model.predict_with_spread(set.molecules);
    else
      predicted.values = handle.model.predict(set.molecules);
  });
  // Each record's row, NaN for the records RDKit could not read; no rows for a table not computed.
  const auto by_record = [&](const Matrix<float>& rows, bool computed) {
    const auto tasks = static_cast<std::size_t>(handle.model.config().tasks.size());
    py::array_t<float> table({computed ? data.source_rows : std::size_t{0}, tasks});
    float* out = table.mutable_data();
    std::fill(out, out + table.size(), std::numeric_limits<float>::quiet_NaN());
    for (std::size_t m = 0; computed && m < data.molecules.size(); ++m)
      for (std::size_t t = 0; t < tasks; ++t)
        out[data.rows[m] * tasks + t] = rows(static_cast<Index>(m), static_cast<Index>(t));
    return table;
  };
  py::list reasons;
  for (const SkippedMolecule& record : data.skipped)
    reasons.append(py::make_tuple(record.row, record.smiles, record.reason, path + ":" + std::to_string(record.line)));
  return py::make_tuple(by_record(predicted.values, true), reasons, by_record(predicted.raw_spread, calibrated));
}

// A calibrated model's standard deviations and, with a coverage, interval half-widths, from raw
// spreads [n, T] (NaN rows stay NaN).
py::array_t<float> from_spread(const MoleculeHandle& handle,
                               const py::array_t<float, py::array::c_style | py::array::forcecast>& raw,
                               std::optional<double> coverage) {
  const std::vector<SpreadCalibration>& calibration = handle.model.config().calibration;
  if (calibration.empty())
    throw ArgumentError("the model has no calibrated spread; train it with uncertainty=" + spread_method_choices("\""));
  const auto tasks = calibration.size();
  py::array_t<float> result({static_cast<std::size_t>(raw.shape(0)), tasks});
  const float* in = raw.data();
  float* out = result.mutable_data();
  for (std::size_t i = 0; i < static_cast<std::size_t>(raw.size()); ++i) {
    const SpreadCalibration& task = calibration[i % tasks];
    out[i] = static_cast<float>(coverage ? task.half_width(in[i], *coverage) : task.sigma(in[i]));
  }
  return result;
}

// predict() for the molecules of a CSV or SD file, rows named by their file and line.
py::tuple predict_file(MoleculeHandle& handle, const std::string& path, const CsvLayout& layout, Index max_atoms) {
  if (is_sdf_path(path)) return predict_sdf(handle, path, max_atoms);
  std::vector<std::size_t> lines;
  const std::vector<std::string> smiles = read_smiles_column(path, layout, lines);
  return predict(handle, smiles, max_atoms, [&](std::size_t row) { return path + ":" + std::to_string(lines[row]); });
}

// The metrics of `edgewise eval` by name: their means over tasks (rmse, mae, r2, or roc_auc, pr_auc,
// accuracy), and each task's as "<task> <metric>", with "<task> count", the labels it was scored on.
py::dict metrics_dict(const MoleculeMetrics& metrics, const std::vector<std::string>& tasks) {
  py::dict result;
  for (const auto& [name, value] : metrics.means("")) result[py::str(name.substr(1))] = value;
  const std::vector<std::string> names = metrics.names();
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const auto [count, values] = metrics.task(t);
    result[py::str(tasks[t] + " count")] = count;
    for (std::size_t k = 0; k < names.size(); ++k) result[py::str(tasks[t] + " " + names[k])] = values[k];
  }
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
  const MoleculeGraph graph = featurized(handle.model, smiles).second;
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
  const Matrix<float> alpha = handle.locked([&, &graph = graph] { return handle.model.attention(graph); });
  return attention_svg(*parsed.molecule, attention_received(graph, alpha), title.empty() ? smiles : title);
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
             py::dict options, py::object tuning) {
            MoleculeSource source{.smiles = std::move(smiles), .targets = std::move(targets), .tasks = std::move(tasks),
                                  .skip_invalid = skip_invalid, .max_atoms = max_atoms};
            return train_or_tune(source, split, fractions, verbose, options, tuning);
          })
      .def_static(
          "_train_file",
          [](std::string path, std::optional<CsvColumn> smiles_column, std::vector<CsvColumn> target_columns,
             std::vector<std::string> task_names, bool has_header, std::string comment, Index max_atoms,
             bool skip_invalid, py::object split, std::pair<double, double> fractions, bool verbose,
             py::dict options, py::object tuning) {
            MoleculeSource source{.tasks = std::move(task_names),
                                  .path = std::move(path),
                                  .layout = {.smiles_column = std::move(smiles_column),
                                             .target_columns = std::move(target_columns),
                                             .has_header = has_header,
                                             .comment = std::move(comment)},
                                  .skip_invalid = skip_invalid,
                                  .max_atoms = max_atoms};
            return train_or_tune(source, split, fractions, verbose, options, tuning);
          })
      .def("_predict",
           [](MoleculeHandle& handle, const std::vector<std::string>& smiles, Index max_atoms) {
             return predict(handle, smiles, max_atoms,
                            [](std::size_t row) { return "SMILES list:" + std::to_string(row + 1); });
           })
      .def("_predict_file",
           [](MoleculeHandle& handle, const std::string& path, std::optional<CsvColumn> smiles_column,
              bool has_header, std::string comment, Index max_atoms) {
             const CsvLayout layout{.smiles_column = std::move(smiles_column),
                                    .has_header = has_header,
                                    .comment = std::move(comment)};
             return predict_file(handle, path, layout, max_atoms);
           })
      .def("_from_spread", &from_spread)
      .def("_evaluate", &evaluate)
      .def("_attention", &attention)
      .def("_explain_svg", &explain_svg)
      .def_property_readonly("_tasks", [](const MoleculeHandle& handle) { return handle.model.config().tasks; })
      .def_property_readonly("_task_type",
                             [](const MoleculeHandle& handle) { return to_string(handle.model.config().task_type); })
      .def_static("_is_sdf", &is_sdf_path)
      .def_property_readonly("_ensemble", [](const MoleculeHandle& handle) { return handle.model.config().ensemble; })
      .def_property_readonly("_probability_calibration", [](const MoleculeHandle& handle) {
        py::list tasks;
        for (const BinaryCalibration& task : handle.model.config().probability_calibration) {
          if (task.isotonic.empty()) tasks.append(py::dict(py::arg("slope") = task.slope, py::arg("intercept") = task.intercept));
          else tasks.append(py::dict(py::arg("isotonic") = task.isotonic));
        }
        return tasks;
      });
}

}  // namespace edgewise::python
