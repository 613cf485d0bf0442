// `edgewise predict`: applies a saved model to new molecules.
#include <memory>

#include "cli_support.hpp"
#include "commands.hpp"
#include "molecule_commands.hpp"

namespace edgewise::cli {
namespace {

struct PredictArgs {
  int threads = 0;
  MoleculePredictArgs molecules;
};

}  // namespace

void add_predict_command(CLI::App& app) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* command = app.add_subcommand(
      "predict", "Predict with a saved model; writes CSV (SMILES, one column per task, error) to --out or stdout");
  command->add_option("--model", args->molecules.model, "Model file written by 'edgewise train'")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--smiles", args->molecules.smiles, "SMILES to predict (repeat the option for several)");
  add_molecule_input_options(*command, args->molecules.input, "");
  command->add_option("--out", args->molecules.out, "CSV file to write (default: standard output)");
  command->add_flag("--force", args->molecules.force, "Replace an existing --out file");
  add_threads_option(*command, args->threads);
  command->callback([args] {
    apply_threads(args->threads);
    predict_molecules(args->molecules);
  });
}

}  // namespace edgewise::cli
