// `edgewise eval`: the metrics of a saved model on labelled data.
#include <memory>

#include "cli_support.hpp"
#include "commands.hpp"
#include "molecule_commands.hpp"

namespace edgewise::cli {
namespace {

struct EvalArgs {
  int threads = 0;
  MoleculeEvalArgs molecules;
};

}  // namespace

void add_eval_command(CLI::App& app) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* command = app.add_subcommand("eval", "Print a saved model's metrics on labelled data");
  command->add_option("--model", args->molecules.model, "Model file written by 'edgewise train'")
      ->required()
      ->check(CLI::ExistingFile);
  add_molecule_input_options(*command, args->molecules.input,
                             "Target columns, comma-separated (default: the model's task names)");
  command->add_flag("--force", args->molecules.input.force, "Replace an existing --skipped-list file");
  add_threads_option(*command, args->threads);
  command->callback([args] {
    apply_threads(args->threads);
    eval_molecules(args->molecules);
  });
}

}  // namespace edgewise::cli
