#include "molecule_commands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli_support.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/distributed/processes.hpp"
#include "edgewise/distributed/shares.hpp"
#include "edgewise/io/csv.hpp"
#include "edgewise/chem/explain.hpp"
#include "edgewise/tasks/molecule/molecule_model.hpp"
#include "edgewise/tasks/molecule/molecule_training.hpp"

namespace edgewise::cli {
namespace {

// The metrics table of `set`, and its means over tasks, named
// "<prefix> <metric>", for the model file's training summary.
struct SetMetrics {
  std::string table;
  std::vector<std::pair<std::string, double>> means;
};

SetMetrics set_metrics(const MoleculeModel& model, const MoleculeSet& set, const SpreadPredictions& predicted,
                       const std::string& prefix) {
  const MoleculeMetrics metrics = molecule_metrics(model, set, predicted.values);
  std::ostringstream table;
  print_metrics(table, model.config().tasks, metrics);
  SetMetrics result{table.str(), metrics.means(prefix)};
  if (!result.table.empty() && result.table.back() == '\n') result.table.pop_back();
  return result;
}

// A calibrated model's uncertainty scores on `set`, a line per task, under a title; or, when a task
// has too few calibration molecules for intervals of `coverage`, why there are none.
std::string uncertainty_table(const MoleculeModel& model, const MoleculeSet& set, const SpreadPredictions& predicted,
                              double coverage) {
  const std::size_t needed = conformal_rows_needed(coverage);
  if (!std::ranges::all_of(model.config().calibration,
                           [&](const SpreadCalibration& task) { return task.scores.size() >= needed; }))
    return "uncertainty: intervals of " + format_value(static_cast<float>(coverage)) + " need " +
           std::to_string(needed) + " calibration molecules with a label of each task; predict --coverage takes a "
           "lower coverage\n";
  std::ostringstream table;
  table << "uncertainty: calibrated standard deviations, and intervals meant to hold " << coverage * 100
        << " % of targets\n";
  print_uncertainty(table, model.config().tasks, molecule_uncertainty(model, set, predicted, coverage));
  return table.str();
}

std::string loss_name(const MoleculeModelConfig& config) {
  if (config.task_type == TaskType::classification) return "BCE";
  const std::string loss = config.spread == SpreadMethod::mve          ? "Gaussian NLL"
                           : config.spread == SpreadMethod::evidential ? "evidential loss"
                                                                       : "MSE";
  return loss + ", standardized targets";
}

// Train loss above the validation metric, one line per ensemble member.
Plot molecule_curve(const TrainedMoleculeModel& trained, const std::string& out) {
  const std::vector<TrainingResult>& results = trained.results;
  const TaskType type = trained.model.config().task_type;
  const std::string metric = early_stopping_metric(trained.training, type);
  PlotPanel loss{"train loss (" + loss_name(trained.model.config()) + ")", {}};
  PlotPanel validation{"validation " + metric, {}};
  for (std::size_t k = 0; k < results.size(); ++k) {
    const std::string member = results.size() > 1 ? "member " + std::to_string(k + 1) : "";
    PlotSeries train_series{member.empty() ? "train loss" : member, {}};
    PlotSeries val_series{member.empty() ? "validation " + metric : member, {}};
    for (const EpochReport& report : results[k].history) {
      train_series.values.push_back(report.train_loss);
      val_series.values.push_back(report.validation);
    }
    loss.series.push_back(std::move(train_series));
    validation.series.push_back(std::move(val_series));
  }
  return {"Training of " + out, {std::move(loss), std::move(validation)}};
}

// Two panels: the fraction of targets inside central Gaussian intervals against the fraction expected,
// and |error| against the calibrated standard deviation, with each tenth of the molecules by
// standard deviation as one point of RMSE against root mean variance. Calibrated: both on the diagonal.
Plot calibration_plot(const std::vector<std::string>& tasks, const std::vector<CalibrationCurve>& curves,
                      const std::string& data) {
  PlotPanel coverage{"observed fraction inside", {{"calibrated", {0, 1}, {0, 1}}},
                     "expected fraction inside (central Gaussian intervals of the standard deviation)"};
  PlotPanel errors{"|error|", {}, "standard deviation"};
  double widest = 0;
  for (std::size_t t = 0; t < curves.size(); ++t) {
    const CalibrationCurve& curve = curves[t];
    coverage.series.push_back({tasks[t], curve.observed, curve.expected});
    errors.series.push_back({tasks[t] + ": molecules", curve.abs_error, curve.sigma, true});
    errors.series.push_back({tasks[t] + ": RMSE of a tenth", curve.bin_rmse, curve.bin_rmv});
    for (const double sigma : curve.sigma) widest = std::max(widest, sigma);
  }
  errors.series.insert(errors.series.begin(), {"RMSE = standard deviation", {0, widest}, {0, widest}});
  return {"Calibration on " + data, {std::move(coverage), std::move(errors)}};
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// The columns predict writes: SMILES, the values, a calibrated model's standard deviations and,
// with a coverage, its interval bounds, then the error.
class PredictionColumns {
 public:
  PredictionColumns(const MoleculeModel& model, std::optional<double> coverage) : model_(model), coverage_(coverage) {
    const auto& calibration = model.config().calibration;
    if (coverage && calibration.empty())
      throw ArgumentError("--coverage: the model has no calibrated spread; train it with --uncertainty " +
                          spread_method_choices());
    for (const SpreadCalibration& task : calibration)
      if (coverage) task.half_width(0, *coverage);  // refuses a coverage it cannot give, before any output
  }

  std::string header() const {
    std::string header = "smiles";
    for (const std::string& task : tasks()) header += ',' + csv_field(task);
    if (calibrated())
      for (const std::string& task : tasks()) header += ',' + csv_field(task + "_std");
    if (coverage_)
      for (const std::string& task : tasks()) header += ',' + csv_field(task + "_lower") + ',' + csv_field(task + "_upper");
    return header + ",error\n";
  }

  std::string line(const std::string& smiles, const PredictedRow& row) const {
    std::string line = csv_field(smiles);
    if (row.values.empty())
      line.append(tasks().size() * (1 + (calibrated() ? 1 : 0) + (coverage_ ? 2 : 0)), ',');
    else
      append_values(line, row);
    return line + ',' + csv_field(std::string(row.error)) + '\n';
  }

 private:
  void append_values(std::string& line, const PredictedRow& row) const {
    const auto add = [&line](double value) { line += ',' + format_value(static_cast<float>(value)); };
    const auto& calibration = model_.config().calibration;
    for (std::size_t t = 0; t < tasks().size(); ++t) add(row.values[t]);
    if (calibrated())
      for (std::size_t t = 0; t < tasks().size(); ++t) add(calibration[t].sigma(row.raw_spread[t]));
    if (!coverage_) return;
    for (std::size_t t = 0; t < tasks().size(); ++t) {
      // In float, as the Python module's values - half, so that both write the same bounds.
      const auto half = static_cast<float>(calibration[t].half_width(row.raw_spread[t], *coverage_));
      add(row.values[t] - half);
      add(row.values[t] + half);
    }
  }

  const std::vector<std::string>& tasks() const { return model_.config().tasks; }
  bool calibrated() const { return !model_.config().calibration.empty(); }

  const MoleculeModel& model_;
  std::optional<double> coverage_;
};

// A table without data rows is refused before any output is written.
void check_has_rows(const std::string& path, const CsvOptions& options) {
  CsvReader probe(path, options);
  std::vector<std::string> fields;
  std::size_t line = 0;
  if (probe.next(fields, line)) return;
  const std::size_t header_line = probe.columns().header_line;
  throw ParseError(path, std::max<std::size_t>(header_line, 1), "",
                   header_line > 0 ? "no rows to predict: the file holds only a header"
                                   : "empty file: no rows to predict");
}

// Hands out the SMILES to predict one at a time, from --smiles or streamed from a --data CSV, and
// remembers the text and line of each until its prediction is written.
class SmilesSource {
 public:
  explicit SmilesSource(const MoleculePredictArgs& args) : args_(args) {
    if (args.input.data.empty()) return;
    CsvOptions options;
    options.has_header = !args.input.no_header;
    options.comment_prefix = args.input.comment;
    reader_.emplace(args.input.data, options);
    check_has_rows(args.input.data, options);
    const CsvColumn column = smiles_column(args.input);
    const CsvTable& columns = reader_->columns();
    if (std::holds_alternative<std::string>(column)) {
      column_ = columns.column_index(std::get<std::string>(column));
    } else {
      column_ = static_cast<std::size_t>(std::get<Index>(column));
      if (!columns.header.empty()) columns.check_column(column_);
    }
    // With several processes (mpirun), this one reads whole prediction windows of its share.
    const distributed::RowShare share = distributed::my_rows(args.input.data, options, *reader_, kPredictionWindowRows);
    reader_->restrict_to(share.start);
    rows_left_ = share.rows;
    for (std::uint64_t skipped = 0; rows_left_ > 0 && skipped < share.skip; ++skipped) read_row();
  }

  bool next(std::string& smiles) {
    std::size_t line = 0;
    if (reader_) {
      if (rows_left_ == 0) return false;
      --rows_left_;
      line = read_row();
      if (line == 0) return false;
      smiles = trim_whitespace(fields_[column_]);
    } else {
      if (given_ == args_.smiles.size()) return false;
      smiles = args_.smiles[given_++];
    }
    unwritten_.emplace_back(smiles, line);
    return true;
  }

  // The SMILES of the oldest row not yet written, and "<source>:<line>" to name it in messages.
  const std::string& oldest() const { return unwritten_.front().first; }
  std::string oldest_place() const {
    if (!reader_) return "--smiles";
    return args_.input.data + ':' + std::to_string(unwritten_.front().second);
  }
  void written() { unwritten_.pop_front(); }

 private:
  // The next row into fields_, checked; returns its line, or 0 at the end of the file.
  std::size_t read_row() {
    std::size_t line = 0;
    if (!with_input_hints(args_.input, [&] { return reader_->next(fields_, line); })) return 0;
    if (column_ >= fields_.size())  // only a file without a header gets here: rows have the header's width
      throw ArgumentError(args_.input.data + ": column index " + std::to_string(column_) +
                          " is out of range; the table has " + std::to_string(fields_.size()) + " columns");
    if (fields_ == reader_->columns().header)
      throw ParseError(args_.input.data, line, fields_.front(),
                       "the header line appears again as a data row (were two files joined?)");
    return line;
  }

  const MoleculePredictArgs& args_;
  std::optional<CsvReader> reader_;
  std::size_t column_ = 0;
  std::vector<std::string> fields_;
  std::uint64_t rows_left_ = std::numeric_limits<std::uint64_t>::max();  // of this process's share
  std::size_t given_ = 0;
  std::deque<std::pair<std::string, std::size_t>> unwritten_;  // SMILES and line
};

// Writes the predictions to --out, or to standard output without one.
class PredictionOutput {
 public:
  explicit PredictionOutput(const MoleculePredictArgs& args) {
    if (!args.out.empty()) file_.emplace(args.out, overwrite_for(args.force));
  }
  void write(std::string_view text) {
    if (file_) {
      file_->write(text);
    } else {
      std::cout << text;
    }
  }
  void commit() {
    if (file_) file_->commit();
  }

 private:
  std::optional<AtomicFile> file_;
};

void report_unreadable(std::uint64_t unreadable, std::uint64_t rows) {
  if (unreadable > 0)
    std::cerr << unreadable << " of " << rows
              << " molecules could not be read; their rows carry the reason in the error column\n";
}

// An SD file is read whole, by one process (RDKit's supplier indexes its records first); each record
// gives a row, in file order: RDKit's SMILES of its molecule and the predictions, or its error.
void predict_sd_file(const MoleculeModel& model, const MoleculePredictArgs& args) {
  if (distributed::rank() != 0) return;
  if (!args.out.empty()) check_output_path(args.out, args.force);
  const MoleculeDataset data = load_molecule_sdf(args.input.data, {}, InvalidMoleculePolicy::skip,
                                                 model.config().featurizer, args.input.max_atoms);
  const PredictionColumns columns(model, args.coverage);
  const std::vector<const MoleculeGraph*> molecules = molecule_set(data).molecules;
  const bool spread = !model.config().calibration.empty();
  SpreadPredictions predicted;
  if (spread)
    predicted = model.predict_with_spread(molecules);
  else
    predicted.values = model.predict(molecules);
  const Matrix<float>& values = predicted.values;
  PredictionOutput out(args);
  out.write(columns.header());
  const auto tasks = static_cast<std::size_t>(values.cols());
  std::size_t valid = 0, skipped = 0;
  for (std::size_t record = 0; record < data.source_rows; ++record) {
    if (skipped < data.skipped.size() && data.skipped[skipped].row == record) {
      const SkippedMolecule& problem = data.skipped[skipped++];
      std::cerr << args.input.data << ':' << problem.line << ": cannot read SD record " << record + 1 << ": "
                << problem.reason << '\n';
      out.write(columns.line("", {.index = record, .values = {}, .error = problem.reason}));
      continue;
    }
    const auto row = static_cast<Index>(valid);
    out.write(columns.line(data.smiles[valid++],
                           {.index = record,
                            .values = {values.row(row).data(), tasks},
                            .error = {},
                            .raw_spread = spread ? std::span<const float>(predicted.raw_spread.row(row).data(), tasks)
                                                 : std::span<const float>()}));
  }
  out.commit();
  report_unreadable(data.skipped.size(), data.source_rows);
}

}  // namespace

CLI::Option_group* add_molecule_train_options(CLI::App& command, MoleculeTrainArgs& args) {
  CLI::Option_group* group = command.add_option_group("Molecule properties (--task molecule)");
  add_molecule_input_options(*group, args.input, "Target columns, comma-separated (default: every column but the SMILES one)");
  group->add_option("--calibration", args.calibration,
                    "Labelled molecules, with --data's columns, to calibrate the spread (--uncertainty) and a "
                    "classifier's probabilities on instead of the validation part, which still chooses the epoch")
      ->check(CLI::ExistingFile);
  return group;
}

// --calibration's molecules, read with --data's column options, the training data's tasks by default.
std::optional<MoleculeDataset> load_calibration_data(const MoleculeTrainArgs& args, const MoleculeModelConfig& config) {
  if (args.calibration.empty()) return std::nullopt;
  MoleculeInput input = args.input;
  input.data = args.calibration;
  input.list_skipped = false;
  MoleculeDataset data = load_molecules(input, config.tasks, config.featurizer, rank_0_errors());
  if (config.task_type == TaskType::classification) check_classification_targets(data, args.calibration);
  return data;
}

MoleculeDataset load_training_data(const MoleculeTrainArgs& args, MoleculeModelConfig& config) {
  if (args.input.data.empty()) throw ArgumentError("--data is required with --task molecule");
  MoleculeInput input = args.input;
  input.force = args.force;
  input.share_among_processes = true;                           // a CSV; each process reads an SDF whole
  input.list_skipped = input.list_skipped && distributed::rank() == 0;  // one writer of the list
  MoleculeDataset data = load_molecules(input, {}, config.featurizer, rank_0_errors());
  if (data.tasks.empty()) throw ArgumentError("--targets: no target columns (a file without a header needs --targets)");
  check_targets_labelled(data, args.input.data);
  if (config.task_type == TaskType::classification) check_classification_targets(data, args.input.data);
  config.tasks = data.tasks;
  return data;
}

SplitSpec training_split_spec(const MoleculeTrainArgs& args) {
  return parse_molecule_split(args.params.split, parse_split_fractions(args.params.split_sizes));
}

Split training_split(const MoleculeTrainArgs& args, const MoleculeDataset& data) {
  const MoleculeTrainingPlan& plan = args.params.plan;
  return make_molecule_split(training_split_spec(args), data, plan.config.task_type, plan.training.seed,
                             rank_0_errors());
}

// With several processes (mpirun), each featurizes a share of the rows and receives the others', and
// each trains on a slice of every batch (train_molecule_predictor); rank 0 alone prints and writes files.
void train_molecules(const MoleculeTrainArgs& args) {
  if (args.input.data.empty()) throw ArgumentError("--data is required with --task molecule");
  const bool writes = distributed::rank() == 0;
  check_output_path(args.out, args.force);
  CheckpointOptions checkpoints = checkpoint_options(args.checkpoints, args.out, args.force);
  if (!args.plot.empty()) check_plot_path(args.plot, args.out, args.force);
  MoleculeTrainingPlan plan = args.params.plan;
  const MoleculeDataset data = load_training_data(args, plan.config);
  const std::optional<MoleculeDataset> calibration_data = load_calibration_data(args, plan.config);
  const Split split = training_split(args, data);
  if (writes && !args.save_split.empty()) write_split_directory(args.save_split, row_split(split, data), args.force);
  const MoleculeSet test = molecule_set(data, split.test);
  const Logger log(plan.training.log);
  if (!writes) checkpoints.every = 0;  // rank 0 writes them; every process may resume from one
  plan.checkpoints = checkpoints;
  TrainedMoleculeModel trained =
      fit_reporting_divergence(checkpoints, [&] {
        return train_molecule_model(data, split, plan, calibration_data ? &*calibration_data : nullptr);
      });
  MoleculeModel& model = trained.model;
  TrainingSummary summary = molecule_training_summary(trained, args.input.data, data.size(),
                                                      describe_molecule_split(training_split_spec(args),
                                                                              plan.config.task_type, plan.training.seed) +
                                                          ": " + part_sizes(split));
  SetMetrics test_metrics;
  SpreadPredictions test_predictions;
  if (!test.molecules.empty()) {
    test_predictions = predict_set(model, test);
    test_metrics = set_metrics(model, test, test_predictions, "test");
    summary.metrics.insert(summary.metrics.end(), test_metrics.means.begin(), test_metrics.means.end());
  }
  model.set_training_summary(std::move(summary));
  if (!writes) return;
  model.save(args.out, overwrite_for(args.force));
  log.normal("saved " + args.out);
  if (!args.plot.empty()) {
    write_plot(args.plot, molecule_curve(trained, args.out), args.force);
    log.normal("training curve: " + args.plot);
  }
  if (test.molecules.empty()) return;
  log.normal("\ntest metrics\n" + test_metrics.table);
  if (!model.config().calibration.empty())
    log.normal("\n" + uncertainty_table(model, test, test_predictions, kDefaultCoverage));
}

// With several processes (mpirun), each predicts its share of --data's lines and rank 0 writes them
// all, in input order: the output and the messages are those of one process, byte for byte.
void predict_molecules(const MoleculeModel& model, const MoleculePredictArgs& args) {
  if (args.input.data.empty() == args.smiles.empty())
    throw ArgumentError("predict: give either --smiles or --data for a molecule model");
  if (distributed::active() && args.input.data.empty())
    throw ArgumentError("predict: with several processes, give --data: each predicts a share of its lines");
  if (!args.input.data.empty() && is_sdf_path(args.input.data)) return predict_sd_file(model, args);
  const bool writes = distributed::rank() == 0;
  if (writes && !args.out.empty()) check_output_path(args.out, args.force);
  SmilesSource source = with_input_hints(args.input, [&] {
    warn_of_numeric_header(args.input, rank_0_errors());
    return SmilesSource(args);
  });
  const PredictionColumns columns(model, args.coverage);
  std::optional<PredictionOutput> output;
  if (writes) output.emplace(args);
  distributed::ShareWriter out([&](std::string_view text) { output->write(text); });
  if (writes) out.write(columns.header());
  std::uint64_t rows = 0, unreadable = 0;
  model.predict_smiles([&](std::string& smiles) { return source.next(smiles); },
                       [&](const PredictedRow& row) {
                         ++rows;
                         if (!row.error.empty()) {
                           ++unreadable;
                           out.message(source.oldest_place() + ": cannot read SMILES '" +
                                       detail::printable_excerpt(source.oldest()) + "': " + std::string(row.error) +
                                       '\n');
                         }
                         out.write(columns.line(source.oldest(), row));
                         source.written();
                       },
                       args.input.max_atoms);
  out.gather();
  rows = distributed::sum(rows);
  unreadable = distributed::sum(unreadable);
  if (!writes) return;
  output->commit();
  report_unreadable(unreadable, rows);
}

void eval_molecules(const MoleculeModel& model, const MoleculeInput& input, double coverage, const std::string& plot) {
  if (input.data.empty()) throw ArgumentError("eval: --data is required for a molecule model");
  if (!plot.empty()) {
    if (model.config().calibration.empty())
      throw ArgumentError("--plot draws a calibrated spread, and the model has none; train it with --uncertainty " +
                          spread_method_choices());
    check_output_path(plot, input.force);
  }
  const MoleculeDataset data = load_molecules(input, model.config().tasks, model.config().featurizer, std::cerr);
  std::cout << data.size() << " molecules\n";
  const MoleculeSet labelled = molecule_set(data);
  const SpreadPredictions predicted = predict_set(model, labelled);
  std::cout << set_metrics(model, labelled, predicted, "labelled").table << '\n';
  if (!model.config().calibration.empty()) std::cout << '\n' << uncertainty_table(model, labelled, predicted, coverage);
  if (plot.empty()) return;
  write_plot(plot,
             calibration_plot(model.config().tasks, molecule_calibration_curves(model, labelled, predicted), input.data),
             input.force);
  std::cout << "\ncalibration plot: " << plot << '\n';
}

}  // namespace edgewise::cli
