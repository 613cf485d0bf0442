// `edgewise tune`: K-fold cross-validation of candidate training options inside the training and
// validation rows of a split (its test rows are never read), a table of the candidates, and the best
// one written as an options file that `edgewise train --options` reads.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <numeric>

#include "cli_support.hpp"
#include "commands.hpp"
#include "edgewise/core/error.hpp"
#include "molecule_commands.hpp"
#include "node_commands.hpp"
#include "options_file.hpp"
#include "train_options.hpp"

namespace edgewise::cli {
namespace {

struct TuneArgs {
  std::string task;
  SharedTrainArgs shared;  // the options of both tasks that every candidate shares
  MoleculeTrainArgs base;  // --task graph: the data, the split and the options every candidate shares
  NodeTrainArgs nodes;     // --task node: the same
  std::string grid;
  std::string preset;
  Index folds = 5;
  std::string out;
  int threads = 0;
  LogSettings log;  // of each training: quiet
};

// `--preset small`: one change at a time from the defaults, each a choice the defaults were made from.
nlohmann::json small_preset(const std::string& task) {
  if (task == "node")
    return nlohmann::json::array({nlohmann::json::object(),
                                  {{"dropout", 0.6}, {"attention-dropout", 0.6}},
                                  {{"dropout", 0.2}, {"attention-dropout", 0.2}},
                                  {{"weight-decay", 0.0}},
                                  {{"score", "gatv2"}},
                                  {{"head-dim", 16}}});
  return nlohmann::json::array({nlohmann::json::object(),
                                {{"score", "gatv2"}},
                                {{"readout", "mean"}},
                                {{"readout", "sum"}},
                                {{"hidden", 128}},
                                {{"descriptors", false}},
                                {{"atom-crippen", false}},
                                {{"dropout", 0.0}},
                                {{"lr", 3e-4}},
                                {{"ensemble", 1}}});
}

// A grid file holds an array of candidates (objects of options), or an object mapping options to
// lists of values, whose every combination is a candidate.
nlohmann::json grid_candidates(const nlohmann::json& grid, const std::string& source) {
  if (grid.is_array()) {
    for (const nlohmann::json& candidate : grid)
      if (!candidate.is_object()) throw Error(source + ": each candidate must be an object of options, got " + candidate.dump());
    if (grid.empty()) throw Error(source + ": the grid has no candidates");
    return grid;
  }
  if (!grid.is_object()) throw Error(source + ": expected an array of candidates or an object of option value lists");
  nlohmann::json candidates = nlohmann::json::array({nlohmann::json::object()});
  for (const auto& [name, values] : grid.items()) {
    if (!values.is_array() || values.empty())
      throw Error(source + ": option '" + name + "' needs a non-empty list of values, got " + values.dump());
    nlohmann::json product = nlohmann::json::array();
    for (const nlohmann::json& candidate : candidates)
      for (const nlohmann::json& value : values) {
        nlohmann::json next = candidate;
        next[name] = value;
        product.push_back(std::move(next));
      }
    candidates = std::move(product);
  }
  return candidates;
}

// Candidates may not vary what the command line fixed.
void check_grid(const CLI::App& command, const nlohmann::json& candidates) {
  for (const nlohmann::json& candidate : candidates)
    for (const auto& [name, value] : candidate.items()) {
      const CLI::Option* option = command.get_option_no_throw("--" + name);
      if (option != nullptr && option->count() > 0)
        throw ArgumentError("tune: --" + name + " is given on the command line and varied by the grid; give one of them");
    }
}

// The candidates of --grid or --preset, each read through the task's parameter table.
nlohmann::json read_grid(const CLI::App& command, const TuneArgs& args) {
  if (args.grid.empty() == args.preset.empty()) throw ArgumentError("tune: give either --grid FILE or --preset small");
  const nlohmann::json grid =
      args.grid.empty() ? small_preset(args.task) : grid_candidates(read_json_file(args.grid, "grid"), args.grid);
  check_grid(command, grid);
  nlohmann::json candidates = nlohmann::json::array();
  for (const nlohmann::json& candidate : grid)
    candidates.push_back(file_options(command, candidate, args.grid.empty() ? "--preset" : args.grid, args.task, true));
  return candidates;
}

bool higher_is_better(const std::string& metric) { return metric != "rmse" && metric != "mae"; }

// The mean and the sample standard deviation (0 for one value).
std::pair<double, double> mean_and_sd(const std::vector<double>& values) {
  const auto n = static_cast<double>(values.size());
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double sum = 0;
  for (const double v : values) sum += (v - mean) * (v - mean);
  return {mean, values.size() > 1 ? std::sqrt(sum / (n - 1)) : 0.0};
}

struct CandidateResult {
  nlohmann::json options;
  std::vector<double> folds;  // the held-out fold's metric
  double seconds = 0;
  double mean() const { return mean_and_sd(folds).first; }
  double sd() const { return mean_and_sd(folds).second; }
};

std::string candidate_name(const nlohmann::json& options) {
  return options.empty() ? std::string("(defaults)") : options_text(options);
}

void print_fold(const std::string& label, std::size_t k, std::size_t folds, const std::string& metric, double value) {
  char line[160];
  std::snprintf(line, sizeof line, "%s, fold %zu/%zu: %s %.4f", label.c_str(), k + 1, folds, metric.c_str(), value);
  std::cout << line << std::endl;
}

// Trains one model per fold with `args` and scores it on the fold's held-out rows.
CandidateResult cross_validate(const MoleculeTrainArgs& args, const std::vector<Split>& row_folds,
                               const std::string& metric, const std::string& label) {
  MoleculeTrainingPlan plan = args.params.plan;
  const MoleculeDataset data = load_training_data(args, plan.config);
  CandidateResult result;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t k = 0; k < row_folds.size(); ++k) {
    const Split fold = molecule_split(row_folds[k], data);
    const TrainedMoleculeModel trained = train_molecule_model(data, fold, plan);
    result.folds.push_back(set_metric(trained.model, molecule_set(data, fold.test), metric));
    print_fold(label, k, row_folds.size(), metric, result.folds.back());
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

// Mean and t value of the paired fold differences candidate - best.
std::pair<double, double> paired_difference(const CandidateResult& candidate, const CandidateResult& best) {
  std::vector<double> differences(candidate.folds.size());
  for (std::size_t k = 0; k < differences.size(); ++k) differences[k] = candidate.folds[k] - best.folds[k];
  const auto [mean, sd] = mean_and_sd(differences);
  return {mean, sd > 0 ? mean / (sd / std::sqrt(static_cast<double>(differences.size()))) : 0.0};
}

// The candidate with the best mean.
std::size_t best_candidate(const std::vector<CandidateResult>& results, const std::string& metric) {
  const bool higher = higher_is_better(metric);
  std::size_t best = 0;
  for (std::size_t c = 1; c < results.size(); ++c)
    if (higher ? results[c].mean() > results[best].mean() : results[c].mean() < results[best].mean()) best = c;
  return best;
}

// A paired t test over K folds has K - 1 degrees of freedom. With 1 or 2, a t value says little (two
// fold differences of 0.030 and 0.031 give t = 61; the 5% critical value is 12.7 for 1 and 4.3 for 2),
// so fewer folds than this choose by the mean alone.
constexpr std::size_t kFewestFoldsForThePairedTest = 4;
constexpr double kIndistinguishableT = 2.0;

bool paired_test_applies(std::size_t folds) { return folds >= kFewestFoldsForThePairedTest; }

// With enough folds, the fastest candidate that the folds cannot tell from the best: its paired t value
// against the best is under kIndistinguishableT in size (more folds make the rule stricter). With
// fewer, the best.
std::size_t chosen_candidate(const std::vector<CandidateResult>& results, std::size_t best) {
  if (!paired_test_applies(results[best].folds.size())) return best;
  std::size_t chosen = best;
  for (std::size_t c = 0; c < results.size(); ++c)
    if (std::abs(paired_difference(results[c], results[best]).second) < kIndistinguishableT &&
        results[c].seconds < results[chosen].seconds)
      chosen = c;
  return chosen;
}

void print_rule(std::size_t folds) {
  if (paired_test_applies(folds)) {
    std::printf("chosen: the fastest candidate whose paired t value against the best mean is under %.0f in size\n",
                kIndistinguishableT);
    return;
  }
  const std::size_t df = folds - 1;
  std::printf("with %zu folds the paired t test has %zu degree%s of freedom, too few to tell candidates apart: "
              "chosen by the mean alone\n",
              folds, df, df == 1 ? "" : "s");
}

void print_table(const std::vector<CandidateResult>& results, std::size_t best, std::size_t chosen,
                 const std::string& metric) {
  const std::size_t folds = results[best].folds.size();
  const std::string t_header = "t (" + std::to_string(folds - 1) + " df)";
  // printf pads bytes, and "Δ" takes two: its field is one byte wider than the column.
  std::printf("\n%-6s %19s %10s %9s %9s  %s\n", "", (metric + " mean ± sd").c_str(), "Δ best", t_header.c_str(),
              "seconds", "candidate");
  for (std::size_t c = 0; c < results.size(); ++c) {
    const auto [difference, t] = paired_difference(results[c], results[best]);
    const char* mark = c == chosen ? "chosen" : c == best ? "best" : "";
    std::printf("%-6s %9.4f ± %6.4f %+9.4f %9.2f %9.1f  %s\n", mark, results[c].mean(), results[c].sd(), difference,
                t, results[c].seconds, candidate_name(results[c].options).c_str());
  }
  print_rule(folds);
  std::fflush(stdout);
}

nlohmann::json cross_validation_record(const TuneArgs& args, const nlohmann::json& run,
                                       const std::vector<CandidateResult>& results, std::size_t chosen) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const CandidateResult& result : results)
    candidates.push_back({{"options", result.options},
                          {"folds", result.folds},
                          {"mean", result.mean()},
                          {"sd", result.sd()},
                          {"seconds", result.seconds}});
  return {{"data", run.at("data")},     {"split", run.at("split")}, {"folds", args.folds},
          {"seed", run.at("seed")},     {"metric", run.at("metric")}, {"chosen", chosen},
          {"candidates", candidates}};
}

void set_log(MoleculeTrainArgs& args, const LogSettings& log) { args.params.plan.training.log = log; }
void set_log(NodeTrainArgs& args, const LogSettings& log) { args.params.training.log = log; }

// Sets `task_args` to `base` with the candidate's options and the shared options that every
// candidate has.
template <typename TaskArgs>
void apply_candidate(TuneArgs& args, const SharedTrainArgs& shared, const TaskArgs& base, TaskArgs& task_args,
                     const nlohmann::json& candidate) {
  args.shared = shared;
  task_args = base;
  add_options(args.shared.given, candidate);
  apply_shared_options(args.shared, task_args);
  set_log(task_args, args.log);
}

std::string candidate_label(const nlohmann::json& candidates, std::size_t c) {
  return "candidate " + std::to_string(c + 1) + "/" + std::to_string(candidates.size()) + " (" +
         candidate_name(candidates[c]) + ")";
}

// The training and validation indices of a split: what cross-validation may use.
std::vector<Index> training_and_validation(const std::vector<Index>& train, const std::vector<Index>& val) {
  std::vector<Index> indices = train;
  indices.insert(indices.end(), val.begin(), val.end());
  return indices;
}

void print_folds_header(std::size_t count, const char* what, const TuneArgs& args, std::size_t left_out,
                        std::size_t candidates, const std::string& metric) {
  std::cout << count << " training and validation " << what << " in " << args.folds << " folds (" << left_out
            << " test " << what << " left out); " << candidates << " candidates, " << metric
            << " on each held-out fold" << std::endl;
}

// --task graph: folds over data rows, so that candidates whose featurizers skip different molecules
// share them.
nlohmann::json tune_molecules(TuneArgs& args, const nlohmann::json& candidates,
                              std::vector<CandidateResult>& results) {
  apply_shared_options(args.shared, args.base);
  set_log(args.base, args.log);
  MoleculeTrainingPlan plan = args.base.params.plan;
  const MoleculeDataset data = load_training_data(args.base, plan.config);
  const std::string metric = early_stopping_metric(plan.training, plan.config.task_type);
  const Split split = row_split(training_split(args.base, data), data);
  const std::vector<Split> folds = cross_validation_folds(training_and_validation(split.train, split.val), args.folds,
                                                          0.1, plan.training.seed);
  print_folds_header(split.train.size() + split.val.size(), "rows", args, split.test.size(), candidates.size(), metric);
  const SharedTrainArgs shared = args.shared;
  MoleculeTrainArgs base = args.base;
  base.input.list_skipped = false;  // the first read listed them
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    apply_candidate(args, shared, base, args.base, candidates[c]);
    results.push_back(cross_validate(args.base, folds, metric, candidate_label(candidates, c)));
    results.back().options = candidates[c];
  }
  args.shared = shared;
  args.base = base;
  return {{"data", args.base.input.data},
          {"split", args.base.params.split},
          {"seed", plan.training.seed},
          {"metric", metric}};
}

// --task node: folds over the labelled training and validation nodes; the graph, its features and the
// test nodes (unlabelled to the model) stay as they are, as in train.
nlohmann::json tune_nodes(TuneArgs& args, const nlohmann::json& candidates,
                          std::vector<CandidateResult>& results) {
  apply_shared_options(args.shared, args.nodes);
  set_log(args.nodes, args.log);
  const NodeGraph data = read_training_graph(args.nodes);
  const Split split = training_node_split(args.nodes, data);
  const std::uint64_t seed = args.nodes.params.training.seed;
  const std::vector<Split> folds =
      cross_validation_folds(training_and_validation(split.train, split.val), args.folds, 0.1, seed);
  print_folds_header(split.train.size() + split.val.size(), "nodes", args, split.test.size(), candidates.size(),
                     "accuracy");
  const SharedTrainArgs shared = args.shared;
  const NodeTrainArgs base = args.nodes;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    apply_candidate(args, shared, base, args.nodes, candidates[c]);
    const std::string label = candidate_label(candidates, c);
    CandidateResult result;
    result.options = candidates[c];
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t k = 0; k < folds.size(); ++k) {
      result.folds.push_back(
          held_out_accuracy(args.nodes, data, {.train = folds[k].train, .val = folds[k].val, .test = folds[k].test}));
      print_fold(label, k, folds.size(), "accuracy", result.folds.back());
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    results.push_back(std::move(result));
  }
  return {{"data", args.nodes.files.edges.string()},
          {"split", args.nodes.params.split},
          {"seed", seed},
          {"metric", "accuracy"}};
}

void run(CLI::App& command, const TaskOptionGroups& task_options, TuneArgs& args) {
  apply_threads(args.threads);
  reject_other_task_options(task_options, args.task);
  check_output_path(args.out, args.shared.force);
  args.log = console_log(true, false);
  const nlohmann::json candidates = read_grid(command, args);

  std::vector<CandidateResult> results;
  const nlohmann::json run = args.task == "node" ? tune_nodes(args, candidates, results)
                                                 : tune_molecules(args, candidates, results);
  const std::string metric = run.at("metric");
  const std::size_t best = best_candidate(results, metric);
  const std::size_t chosen = chosen_candidate(results, best);
  print_table(results, best, chosen, metric);
  write_options_file(args.out, args.task, results[chosen].options,
                     cross_validation_record(args, run, results, chosen),
                     args.shared.force);
  std::cout << "chose " << candidate_name(results[chosen].options) << "; options in " << args.out << '\n';
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* command = app.add_subcommand(
      "tune", "Choose training options by K-fold cross-validation inside the training and validation rows");
  command->add_option("--task", args->task,
                      "graph: molecule property models, scored by train's early-stopping metric; node: node "
                      "classifiers, scored by accuracy")
      ->required()
      ->check(CLI::IsMember({"graph", "node"}));
  command->add_option("--grid", args->grid,
                      "JSON file: an array of candidates (objects of train options, e.g. {\"hidden\": 64}), or an "
                      "object of option value lists whose every combination is a candidate")
      ->check(CLI::ExistingFile);
  command->add_option("--preset", args->preset, "A built-in grid: small (one change at a time from the defaults)")
      ->check(CLI::IsMember({"small"}));
  command->add_option("--folds", args->folds,
                      "Cross-validation folds. From 4 folds, the fastest candidate whose paired t value against the "
                      "best mean is under 2 in size is chosen; with 2 or 3, too few for the t test, the best mean")
      ->capture_default_str()
      ->check(at_least(2, "INTEGER"));
  command->add_option("--out", args->out, "Options file to write (JSON; edgewise train --options reads it)")->required();
  command->add_flag("--force", args->shared.force, "Replace existing --out and --skipped-list files");
  add_threads_option(*command, args->threads);
  const TaskOptionGroups task_options = add_train_options(*command, args->shared, args->base, args->nodes);
  command->callback([args, command, task_options] { run(*command, task_options, *args); });
}

}  // namespace edgewise::cli
