// `edgewise train`: trains a model and saves it. --task graph: a molecule property model from a CSV
// of SMILES and targets.
#include <iostream>
#include <memory>

#include "cli_support.hpp"
#include "commands.hpp"
#include "edgewise/core/error.hpp"
#include "molecule_commands.hpp"

namespace edgewise::cli {
namespace {

struct TrainArgs {
  std::string task;
  int threads = 0;
  MoleculeTrainArgs molecules;
};

void run(TrainArgs& args) {
  apply_threads(args.threads);
  if (args.task == "graph") return train_molecules(args.molecules);
  throw ArgumentError("--task " + args.task + " is not supported");
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* command = app.add_subcommand("train", "Train a model and save it to a file");
  command->add_option("--task", args->task, "graph: one prediction per molecule (SMILES input)")
      ->required()
      ->check(CLI::IsMember({"graph"}));
  command->add_option("--out", args->molecules.out, "Model file to write")->required();
  command->add_flag("--force", args->molecules.force, "Replace existing output files");
  command->add_option("--seed", args->molecules.training.seed, "Seed for the split, initialization, shuffling and dropout")->capture_default_str();
  command->add_option("--epochs", args->molecules.training.epochs, "Maximum number of epochs")->capture_default_str()->check(at_least(1, "POSITIVE"));
  add_threads_option(*command, args->threads);
  add_molecule_train_options(*command, args->molecules);
  command->callback([args] { run(*args); });
}

}  // namespace edgewise::cli
