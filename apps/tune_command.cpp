// `edgewise tune`: K-fold cross-validation of candidate training options inside the training and
// validation rows of a split (its test rows are never read; tasks/tuning), a table of the
// candidates, and the chosen one written as an options file that `edgewise train --options` reads.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli_support.hpp"
#include "commands.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/tasks/tuning.hpp"
#include "link_commands.hpp"
#include "molecule_commands.hpp"
#include "node_commands.hpp"
#include "options_file.hpp"
#include "train_options.hpp"

namespace edgewise::cli {
namespace {

struct TuneArgs {
  std::string task;
  SharedTrainArgs shared;  // the options of both tasks that every candidate shares
  MoleculeTrainArgs base;  // --task molecule: the data, the split and the options every candidate shares
  NodeTrainArgs nodes;     // --task node: the same; --task link: the graph
  std::string grid;
  std::string preset;
  Index folds = 5;
  std::string out;
  int threads = 0;
  std::string precision;
  LogSettings log;  // of each training: quiet
};

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
  const nlohmann::json grid = args.grid.empty() ? tuning_preset(args.task, args.preset)
                                                : grid_candidates(read_json_file(args.grid, "grid"), args.grid);
  check_grid(command, grid);
  nlohmann::json candidates = nlohmann::json::array();
  for (const nlohmann::json& candidate : grid)
    candidates.push_back(file_options(command, candidate, args.grid.empty() ? "--preset" : args.grid, args.task, true));
  return candidates;
}

std::string candidate_name(const nlohmann::json& options) {
  return options.empty() ? std::string("(defaults)") : options_text(options);
}

// Prints each fold's metric as it is scored.
FoldReport fold_printer(const nlohmann::json& candidates, std::size_t folds, const std::string& metric) {
  return [&candidates, folds, metric](std::size_t c, std::size_t k, double value) {
    const std::string label = "candidate " + std::to_string(c + 1) + "/" + std::to_string(candidates.size()) + " (" +
                              candidate_name(candidates[c]) + ")";
    char line[160];
    std::snprintf(line, sizeof line, "%s, fold %zu/%zu: %s %.4f", label.c_str(), k + 1, folds, metric.c_str(), value);
    std::cout << line << std::endl;
  };
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

void print_table(const TuningResult& result) {
  const std::size_t folds = result.candidates[result.best].folds.size();
  const std::string t_header = "t (" + std::to_string(folds - 1) + " df)";
  // printf pads bytes, and "Δ" takes two: its field is one byte wider than the column.
  std::printf("\n%-6s %19s %10s %9s %9s  %s\n", "", (result.metric + " mean ± sd").c_str(), "Δ best", t_header.c_str(),
              "seconds", "candidate");
  for (std::size_t c = 0; c < result.candidates.size(); ++c) {
    const CandidateScores& candidate = result.candidates[c];
    const auto [difference, t] = result.difference(c);
    const char* mark = c == result.chosen ? "chosen" : c == result.best ? "best" : "";
    std::printf("%-6s %9.4f ± %6.4f %+9.4f %9.2f %9.1f  %s\n", mark, candidate.mean(), candidate.sd(), difference, t,
                candidate.seconds, candidate_name(candidate.options).c_str());
  }
  print_rule(folds);
  std::fflush(stdout);
}

void print_folds_header(std::size_t count, const char* what, const TuneArgs& args, std::size_t left_out,
                        std::size_t candidates, const std::string& metric) {
  std::cout << count << " training and validation " << what << " in " << args.folds << " folds (" << left_out
            << " test " << what << " left out); " << candidates << " candidates, " << metric
            << " on each held-out fold" << std::endl;
}

// --task molecule: folds over data rows, so that candidates whose featurizers skip different molecules
// share them.
TuningResult tune_molecule_candidates(TuneArgs& args, const nlohmann::json& candidates, nlohmann::json& run) {
  apply_shared_options(args.shared, args.base);
  MoleculeTrainingPlan plan = args.base.params.plan;
  const MoleculeDataset data = load_training_data(args.base, plan.config);
  const std::string metric = early_stopping_metric(plan.training, plan.config.task_type);
  const Split split = row_split(training_split(args.base, data), data);
  const std::vector<Split> folds = tuning_folds(split, args.folds, plan.training.seed);
  print_folds_header(split.train.size() + split.val.size(), "rows", args, split.test.size(), candidates.size(), metric);
  MoleculeTrainArgs base = args.base;
  base.input.list_skipped = false;  // the first read listed them
  const MoleculeLoader load = [&base](MoleculeModelConfig& config) { return load_training_data(base, config); };
  run = {{"data", args.base.input.data}, {"split", args.base.params.split}, {"seed", plan.training.seed}, {"metric", metric}};
  return tune_molecules(load, folds, args.shared.given, candidates, metric, args.log,
                        fold_printer(candidates, folds.size(), metric));
}

// --task node: folds over the labelled training and validation nodes; the graph, its features and the
// test nodes (unlabelled to the model) stay as they are, as in train.
TuningResult tune_node_candidates(TuneArgs& args, const nlohmann::json& candidates, nlohmann::json& run) {
  apply_shared_options(args.shared, args.nodes);
  const NodeGraph data = read_training_graph(args.nodes);
  const Split split = training_node_split(args.nodes, data);
  const std::uint64_t seed = args.nodes.params.training.seed;
  const std::vector<Split> folds = tuning_folds(split, args.folds, seed);
  print_folds_header(split.train.size() + split.val.size(), "nodes", args, split.test.size(), candidates.size(),
                     "accuracy");
  run = {{"data", args.nodes.files.edges.string()}, {"split", args.nodes.params.split}, {"seed", seed}, {"metric", "accuracy"}};
  return tune_nodes(data, folds, args.shared.given, candidates, args.log, fold_printer(candidates, folds.size(), "accuracy"),
                    {.task = "--task node"});
}

// --task link: folds over the training and validation links of train's split; the test links are
// never read.
TuningResult tune_link_candidates(TuneArgs& args, const nlohmann::json& candidates, nlohmann::json& run) {
  LinkTrainArgs links;
  apply_shared_options(args.shared, args.nodes, links);
  const NodeGraph data = read_training_links(links);
  const std::vector<NodePair> graph = graph_links(data);
  const LinkTrainingParams& params = links.params;
  const LinkSplit split =
      make_link_split(parse_link_split(params.split, parse_split_fractions(params.split_sizes)), data, graph,
                      params.training.seed);
  const std::vector<LinkSplit> folds =
      link_tuning_folds(split, graph, data.nodes.size(), args.folds, params.training.seed);
  const std::string metric(name_of(kLinkMetricNames, link_tuning_metric(data, folds, args.shared.given)));
  print_folds_header(split.train.size() + split.val.size(), "links", args, split.test.size(), candidates.size(),
                     metric);
  run = {{"data", args.nodes.files.edges.string()}, {"split", params.split}, {"seed", params.training.seed},
         {"metric", metric}};
  return tune_links(data, folds, args.shared.given, candidates, args.log, fold_printer(candidates, folds.size(), metric));
}

TuningResult tune_candidates(TuneArgs& args, const nlohmann::json& candidates, nlohmann::json& run) {
  if (args.task == "node") return tune_node_candidates(args, candidates, run);
  if (args.task == "link") return tune_link_candidates(args, candidates, run);
  return tune_molecule_candidates(args, candidates, run);
}

void run(CLI::App& command, const TaskOptionGroups& task_options, TuneArgs& args) {
  apply_threads(args.threads);
  apply_precision(args.precision);
  reject_other_task_options(task_options, args.task);
  check_output_path(args.out, args.shared.force);
  args.log = console_log(true, false);
  const nlohmann::json candidates = read_grid(command, args);
  nlohmann::json run;
  const TuningResult result = tune_candidates(args, candidates, run);
  print_table(result);
  const nlohmann::json& chosen = result.candidates[result.chosen].options;
  write_options_file(args.out, args.task, chosen, result.record(run, args.folds), args.shared.force);
  std::cout << "chose " << candidate_name(chosen) << "; options in " << args.out << '\n';
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* command = app.add_subcommand(
      "tune", "Choose training options by K-fold cross-validation inside the training and validation rows");
  add_task_option(*command, args->task,
                  {{"molecule", "molecule property models, scored by train's early-stopping metric"},
                   {"node", "node classifiers, scored by accuracy"},
                   {"link", "link predictors, scored by the ROC-AUC of held-out links"}});
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
  add_precision_option(*command, args->precision);
  const TaskOptionGroups task_options = add_train_options(*command, args->shared, args->base, args->nodes);
  command->callback([args, command, task_options] { run(*command, task_options, *args); });
}

}  // namespace edgewise::cli
