#include "molecule_commands.hpp"

#include <GraphMol/ROMol.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli_support.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/io/csv.hpp"
#include "edgewise/io/explain.hpp"

namespace edgewise::cli {
namespace {

MoleculeSet subset(const MoleculeDataset& data, const std::vector<Index>& rows) {
  MoleculeSet set;
  set.targets.resize(static_cast<Index>(rows.size()), data.targets.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    set.molecules.push_back(&data.molecules[static_cast<std::size_t>(rows[i])]);
    set.targets.row(static_cast<Index>(i)) = data.targets.row(rows[i]);
  }
  return set;
}

std::pair<double, double> split_fractions(const std::string& sizes) {
  const std::vector<std::string> parts = split_list(sizes);
  if (parts.size() != 3) throw ArgumentError("--split-sizes: expected three fractions such as 0.8,0.1,0.1, got '" + sizes + "'");
  double fractions[3];
  for (std::size_t i = 0; i < 3; ++i) {
    try {
      fractions[i] = std::stod(parts[i]);
    } catch (const std::exception&) {
      throw ArgumentError("--split-sizes: '" + parts[i] + "' is not a number");
    }
  }
  if (std::abs(fractions[0] + fractions[1] + fractions[2] - 1.0) > 1e-6)
    throw ArgumentError("--split-sizes: the fractions must add up to 1, got '" + sizes + "'");
  return {fractions[0], fractions[1]};
}

void print_epoch(const EpochReport& report, Index epochs, const std::string& metric) {
  char line[200];
  std::snprintf(line, sizeof line, "epoch %4lld/%lld  train loss %.4f  val %s %.4f%s  lr %.2e  %.1f s",
                static_cast<long long>(report.epoch), static_cast<long long>(epochs), report.train_loss,
                metric.c_str(), report.validation, report.improved ? " *" : "  ", report.learning_rate,
                report.seconds);
  std::cout << line << std::endl;
}

void print_set_metrics(const MoleculeModel& model, const MoleculeSet& set) {
  const Matrix<float> predictions = model.predict(set.molecules);
  const MoleculeModelConfig& config = model.config();
  if (config.task_type == TaskType::regression) {
    print_metrics(std::cout, config.tasks, regression_metrics(predictions, set.targets));
  } else {
    print_metrics(std::cout, config.tasks, classification_metrics(predictions, set.targets));
  }
}

std::string metric_name(const TrainingOptions& training, TaskType type) {
  if (!training.metric.empty()) return training.metric;
  return type == TaskType::regression ? "rmse" : "roc_auc";
}

void check_classification_targets(const MoleculeDataset& data, const std::string& source) {
  for (Index m = 0; m < data.targets.rows(); ++m) {
    for (Index t = 0; t < data.targets.cols(); ++t) {
      const float y = data.targets(m, t);
      if (!std::isnan(y) && y != 0.0f && y != 1.0f) {
        throw ParseError(source, data.lines[static_cast<std::size_t>(m)], std::to_string(y),
                         "classification target '" + data.tasks[static_cast<std::size_t>(t)] +
                             "' must be 0 or 1 (or empty for a missing label)");
      }
    }
  }
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string format_value(float value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", static_cast<double>(value));
  return text;
}

// The SMILES to predict and, for a CSV, the line of each.
struct SmilesRows {
  std::vector<std::string> smiles;
  std::vector<std::size_t> lines;  // empty for --smiles
  std::string source;
};

SmilesRows smiles_rows(const MoleculePredictArgs& args) {
  if (args.input.data.empty()) return {args.smiles, {}, "--smiles"};
  CsvOptions options;
  options.has_header = !args.input.no_header;
  options.comment_prefix = args.input.comment;
  const CsvTable table = read_csv(args.input.data, options);
  const CsvColumn column = smiles_column(args.input);
  const std::size_t index = std::holds_alternative<Index>(column)
                                ? table.check_column(static_cast<std::size_t>(std::get<Index>(column)))
                                : table.column_index(std::get<std::string>(column));
  SmilesRows rows{{}, table.line_numbers, args.input.data};
  for (const auto& row : table.rows) rows.smiles.emplace_back(trim_whitespace(row[index]));
  return rows;
}

std::string predictions_csv(const MoleculeModel& model, const SmilesRows& rows, const SmilesPredictions& predictions) {
  std::ostringstream out;
  out << "smiles";
  for (const std::string& task : model.config().tasks) out << ',' << csv_field(task);
  out << ",error\n";
  std::vector<std::string> errors(rows.smiles.size());
  for (const auto& [row, reason] : predictions.invalid) errors[row] = reason;
  Index next_valid = 0;
  for (std::size_t row = 0; row < rows.smiles.size(); ++row) {
    out << csv_field(rows.smiles[row]);
    const bool valid = errors[row].empty();
    for (Index t = 0; t < predictions.values.cols(); ++t)
      out << ',' << (valid ? format_value(predictions.values(next_valid, t)) : "");
    out << ',' << csv_field(errors[row]) << '\n';
    if (valid) ++next_valid;
  }
  return out.str();
}

void report_invalid(const SmilesRows& rows, const SmilesPredictions& predictions) {
  for (const auto& [row, reason] : predictions.invalid) {
    std::cerr << rows.source;
    if (!rows.lines.empty()) std::cerr << ':' << rows.lines[row];
    std::cerr << ": cannot read SMILES '" << rows.smiles[row] << "': " << reason << '\n';
  }
  if (!predictions.invalid.empty())
    std::cerr << predictions.invalid.size() << " of " << rows.smiles.size()
              << " molecules could not be read; their rows carry the reason in the error column\n";
}

}  // namespace

void add_molecule_train_options(CLI::App& command, MoleculeTrainArgs& args) {
  add_molecule_input_options(command, args.input,
                             "Target columns, comma-separated (default: every column but the SMILES one)");
  command.add_option("--task-type", args.task_type, "What the targets are")
      ->capture_default_str()
      ->check(CLI::IsMember({"regression", "classification"}));
  command.add_option("--split", args.split,
                     "random, scaffold (Bemis-Murcko groups, largest to train), or a folder with train.txt, val.txt, "
                     "test.txt (0-based data-row indices)")
      ->capture_default_str();
  command.add_option("--split-sizes", args.split_sizes, "Train, validation and test fractions for random and scaffold splits")
      ->capture_default_str();
  command.add_option("--save-split", args.save_split, "Write the split used as train.txt, val.txt, test.txt into this folder");
  command.add_option("--hidden", args.network.hidden, "Width of the node representations")->capture_default_str()->check(at_least(1, "POSITIVE"));
  command.add_option("--layers", args.network.layers, "Attention blocks")->capture_default_str()->check(at_least(1, "POSITIVE"));
  command.add_option("--heads", args.network.heads, "Attention heads per block (must divide --hidden)")->capture_default_str()->check(at_least(1, "POSITIVE"));
  command.add_option("--score", args.score, "Attention score function")
      ->capture_default_str()
      ->check(CLI::IsMember({"scaled_dot", "dot", "additive", "gatv2", "bilinear"}));
  command.add_option("--readout", args.readout, "How node representations are pooled into one per molecule")
      ->capture_default_str()
      ->check(CLI::IsMember({"sum", "mean", "max", "attention"}));
  command.add_flag("--descriptors", args.descriptors,
                   "Join RDKit's whole-molecule descriptors (logP, TPSA, ring counts...) to the readout");
  command.add_option("--ensemble", args.ensemble, "Networks trained with different seeds whose predictions are averaged")
      ->capture_default_str()
      ->check(at_least(1, "POSITIVE"));
  command.add_option("--head-hidden", args.network.head_hidden, "Width of the prediction head's hidden layer")->capture_default_str()->check(at_least(1, "POSITIVE"));
  command.add_option("--dropout", args.network.dropout, "Dropout on node representations and in the head")->capture_default_str()->check(CLI::Range(0.0, 0.95));
  command.add_option("--attention-dropout", args.network.attention_dropout, "Dropout on attention weights")->capture_default_str()->check(CLI::Range(0.0, 0.95));
  command.add_option("--batch-size", args.training.batch_size, "Molecules per minibatch")->capture_default_str()->check(at_least(1, "POSITIVE"));
  command.add_option("--lr", args.training.learning_rate, "Peak learning rate (AdamW)")->capture_default_str()->check(CLI::PositiveNumber);
  command.add_option("--warmup-epochs", args.training.warmup_epochs, "Epochs of linear learning-rate warm-up from lr/10")->capture_default_str()->check(CLI::NonNegativeNumber);
  command.add_option("--final-lr-ratio", args.training.final_lr_ratio, "Cosine decay ends at lr times this")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  command.add_option("--weight-decay", args.training.weight_decay, "AdamW's decoupled weight decay")->capture_default_str()->check(CLI::NonNegativeNumber);
  command.add_option("--clip-norm", args.training.clip_norm, "Clip the global gradient norm to this (0: off)")->capture_default_str()->check(CLI::NonNegativeNumber);
  command.add_option("--patience", args.training.patience, "Stop after this many epochs without validation improvement")->capture_default_str()->check(at_least(1, "POSITIVE"));
  command.add_option("--metric", args.training.metric, "Early-stopping metric (default: rmse for regression, roc_auc for classification)")
      ->check(CLI::IsMember({"rmse", "mae", "r2", "roc_auc", "pr_auc", "accuracy"}));
}

void train_molecules(const MoleculeTrainArgs& args) {
  if (args.input.data.empty()) throw ArgumentError("--data is required with --task graph");
  check_output_path(args.out, args.force);
  const CheckpointOptions checkpoints = checkpoint_options(args.checkpoints, args.out, args.force);
  MoleculeModelConfig config;
  config.network = args.network;
  config.network.score = parse_score_function(args.score);
  config.network.readout = parse_readout(args.readout);
  config.task_type = parse_task_type(args.task_type);
  config.ensemble = args.ensemble;
  if (args.descriptors) config.featurizer.descriptors = available_descriptors();

  MoleculeInput input = args.input;
  input.force = args.force;
  const MoleculeDataset data = load_molecules(input, {}, config.featurizer, std::cerr);
  if (data.tasks.empty()) throw ArgumentError("--targets: no target columns (a file without a header needs --targets)");
  if (config.task_type == TaskType::classification) check_classification_targets(data, args.input.data);
  config.tasks = data.tasks;

  const auto [train_fraction, val_fraction] = split_fractions(args.split_sizes);
  const Split split = make_split(args.split, data, train_fraction, val_fraction, args.training.seed);
  if (!args.save_split.empty()) write_split_directory(args.save_split, split, args.force);
  const MoleculeSet train = subset(data, split.train), validation = subset(data, split.val),
                    test = subset(data, split.test);
  std::cout << data.size() << " molecules, " << data.tasks.size() << " task" << (data.tasks.size() == 1 ? "" : "s")
            << "; split " << train.molecules.size() << " / " << validation.molecules.size() << " / "
            << test.molecules.size() << " (train / validation / test)\n";

  MoleculeModel model(config);
  model.initialize(args.training.seed);
  std::cout << "model: " << model.num_parameters() << " parameters\n";
  const std::string metric = metric_name(args.training, config.task_type);
  const auto on_epoch = [&](Index member, const EpochReport& r) {
    if (config.ensemble > 1 && r.epoch == 1) std::cout << "ensemble member " << member + 1 << " of " << config.ensemble << '\n';
    print_epoch(r, args.training.epochs, metric);
  };
  const std::vector<TrainingResult> results = fit_reporting_divergence(
      checkpoints, [&] { return model.fit(train, validation, args.training, on_epoch, checkpoints); });
  for (const TrainingResult& result : results)
    std::cout << "best epoch " << result.best_epoch << " (validation " << metric << " " << result.best_validation << ")\n";
  model.save(args.out);
  std::cout << "saved " << args.out << "\n";
  if (test.molecules.empty()) return;
  std::cout << "\ntest metrics\n";
  print_set_metrics(model, test);
}

void predict_molecules(const MoleculePredictArgs& args) {
  if (args.input.data.empty() == args.smiles.empty())
    throw ArgumentError("predict: give either --smiles or --data for a molecule model");
  if (!args.out.empty()) check_output_path(args.out, args.force);
  const MoleculeModel model = MoleculeModel::load(args.model);
  const SmilesRows rows = smiles_rows(args);
  const SmilesPredictions predictions = model.predict_smiles(rows.smiles);
  report_invalid(rows, predictions);
  const std::string text = predictions_csv(model, rows, predictions);
  if (args.out.empty()) {
    std::cout << text;
  } else {
    write_file_atomically(args.out, text);
  }
}

void eval_molecules(const MoleculeEvalArgs& args) {
  if (args.input.data.empty()) throw ArgumentError("eval: --data is required for a molecule model");
  const MoleculeModel model = MoleculeModel::load(args.model);
  const MoleculeDataset data = load_molecules(args.input, model.config().tasks, model.config().featurizer, std::cerr);
  MoleculeSet set;
  set.targets = data.targets;
  for (const MoleculeGraph& molecule : data.molecules) set.molecules.push_back(&molecule);
  std::cout << data.size() << " molecules\n";
  print_set_metrics(model, set);
}

}  // namespace edgewise::cli
