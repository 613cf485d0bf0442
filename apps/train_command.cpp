// `edgewise train`: trains a model and saves it. --task molecule: a molecule property model from a CSV
// of SMILES and targets; --task node: a node classifier from an edge list, labels and features;
// --task link: a link predictor from an edge list and features.
#include <iostream>
#include <memory>
#include <string>

#include "cli_support.hpp"
#include "commands.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/log.hpp"
#include "edgewise/core/products.hpp"
#include "edgewise/distributed/processes.hpp"
#include "edgewise/chem/molecule.hpp"
#include "molecule_commands.hpp"
#include "node_commands.hpp"
#include "options_file.hpp"
#include "train_options.hpp"

namespace edgewise::cli {
namespace {

struct TrainArgs {
  std::string task;
  std::string options_file;
  int threads = 0;
  std::string precision;
  bool quiet = false;
  bool verbose = false;
  SharedTrainArgs shared;
  MoleculeTrainArgs molecules;
  NodeTrainArgs nodes;
  LinkTrainArgs links;
};

void run(CLI::App& command, const TaskOptionGroups& task_options, TrainArgs& args) {
  apply_threads(args.threads);
  apply_precision(args.precision);
  if (!args.options_file.empty())
    add_options(args.shared.given, file_options(command, read_options_file(args.options_file, args.task),
                                                args.options_file, args.task));
  const LogSettings log = console_log(args.quiet, args.verbose);
  Logger(log).verbose("matrix products in " + std::string(precision_name(precision())) +
                      (args.precision.empty() ? " (the default here; --precision or EDGEWISE_PRECISION chooses)" : ""));
  if (args.verbose && distributed::rank() == 0)
    set_rdkit_warning_sink([](std::string_view line) { std::cerr << line << '\n'; });
  reject_other_task_options(task_options, args.task);
  if (args.task == "molecule") {
    apply_shared_options(args.shared, args.molecules);
    args.molecules.params.plan.training.log = log;
    return train_molecules(args.molecules);
  }
  if (args.task == "link") {
    apply_shared_options(args.shared, args.nodes, args.links);
    args.links.params.training.log = log;
    return train_links(args.links);
  }
  apply_shared_options(args.shared, args.nodes);
  args.nodes.params.training.log = log;
  train_nodes(args.nodes);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* command = app.add_subcommand("train", "Train a model and save it to a file");
  add_task_option(*command, args->task,
                  {{"molecule", "one prediction per molecule (SMILES input)"},
                   {"node", "one class per node of a graph (edge list input)"},
                   {"link", "a score for each pair of a graph's nodes, how likely they are linked (edge list input)"}});
  command->add_option("--out", args->shared.out, "Model file to write")->required();
  command->add_option("--options", args->options_file,
                      "Options file (JSON) as `edgewise tune` writes it; options given on the command line take "
                      "precedence")
      ->check(CLI::ExistingFile);
  command->add_option("--plot", args->shared.plot,
                      "Write the training curve (train loss and validation metric per epoch) to this SVG file");
  command->add_flag("--force", args->shared.force, "Replace existing output files");
  command->add_option("--save-split", args->shared.save_split,
                      "Write the split used into this folder as train.txt, val.txt and test.txt: data-row indices "
                      "(--task molecule), node ids as the edge list writes them (--task node), or pairs of them "
                      "(--task link, with val_negatives.txt and test_negatives.txt), as --split reads them");
  add_threads_option(*command, args->threads);
  add_precision_option(*command, args->precision);
  add_checkpoint_options(*command, args->shared.checkpoints);
  add_log_options(*command, args->quiet, args->verbose);
  const TaskOptionGroups task_options = add_train_options(*command, args->shared, args->molecules, args->nodes);
  command->callback([args, command, task_options] { run(*command, task_options, *args); });
}

}  // namespace edgewise::cli
