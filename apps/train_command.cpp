// `edgewise train`: trains a model and saves it. --task graph: a molecule property model from a CSV
// of SMILES and targets; --task node: a node classifier from an edge list, labels and features.
#include <iostream>
#include <memory>

#include "cli_support.hpp"
#include "commands.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/io/molecule.hpp"
#include "molecule_commands.hpp"
#include "node_commands.hpp"
#include "options_file.hpp"

namespace edgewise::cli {
namespace {

struct TrainArgs {
  std::string task;
  std::string options_file;
  int threads = 0;
  bool quiet = false;
  bool verbose = false;
  MoleculeTrainArgs molecules;
  NodeTrainArgs nodes;
};

void run(CLI::App& command, const CLI::Option_group& node_options, TrainArgs& args) {
  apply_threads(args.threads);
  if (!args.options_file.empty()) apply_options(command, read_options_file(args.options_file, args.task), args.options_file);
  args.molecules.training.log = args.nodes.training.log = console_log(args.quiet, args.verbose);
  if (args.verbose) set_rdkit_warning_sink([](std::string_view line) { std::cerr << line << '\n'; });
  if (args.task == "graph") {
    reject_given(node_options.get_options(), "applies to --task node only");
    args.molecules.default_epochs = command.get_option("--epochs")->count() == 0;
    return train_molecules(args.molecules);
  }
  take_shared_train_options(command, args.nodes, {"--options"});
  train_nodes(args.nodes);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* command = app.add_subcommand("train", "Train a model and save it to a file");
  command->add_option("--task", args->task,
                      "graph: one prediction per molecule (SMILES input); node: one class per node of a graph "
                      "(edge list input)")
      ->required()
      ->check(CLI::IsMember({"graph", "node"}));
  command->add_option("--out", args->molecules.out, "Model file to write")->required();
  command->add_option("--options", args->options_file,
                      "Options file (JSON) as `edgewise tune` writes it; options given on the command line take "
                      "precedence")
      ->check(CLI::ExistingFile);
  command->add_option("--plot", args->molecules.plot,
                      "Write the training curve (train loss and validation metric per epoch) to this SVG file");
  command->add_flag("--force", args->molecules.force, "Replace existing output files");
  command->add_option("--seed", args->molecules.training.seed, "Seed for the split, initialization, shuffling and dropout")->capture_default_str();
  command->add_option("--epochs", args->molecules.training.epochs,
                      "Maximum number of epochs (default: 150, fewer above 10,000 training molecules)")
      ->check(at_least(1, "POSITIVE"));
  add_threads_option(*command, args->threads);
  add_checkpoint_options(*command, args->molecules.checkpoints);
  add_log_options(*command, args->quiet, args->verbose);
  add_molecule_train_options(*command, args->molecules);
  const CLI::Option_group* node_options = add_node_train_options(*command, args->nodes);
  command->callback([args, command, node_options] { run(*command, *node_options, *args); });
}

}  // namespace edgewise::cli
