// `edgewise explain`: draws a molecule shaded by the attention its atoms and bonds receive.
#include <iostream>
#include <memory>

#include "cli_support.hpp"
#include "commands.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/chem/explain.hpp"
#include "edgewise/tasks/molecule/molecule_model.hpp"

namespace edgewise::cli {
namespace {

struct ExplainArgs {
  std::string model;
  std::string smiles;
  std::string out;
  bool force = false;
  int threads = 0;
  std::string precision;
};

std::string title(const MoleculeModel& model, const std::string& smiles, const MoleculeGraph& graph) {
  const MoleculeGraph* molecules[] = {&graph};
  const Matrix<float> prediction = model.predict(molecules);
  std::string text = smiles + "  (";
  for (std::size_t t = 0; t < model.config().tasks.size(); ++t) {
    if (t > 0) text += ", ";
    text += model.config().tasks[t] + " " + std::to_string(prediction(0, static_cast<Index>(t)));
  }
  return text + "; attention received, last layer, mean over heads)";
}

void run(const ExplainArgs& args) {
  apply_threads(args.threads);
  apply_precision(args.precision);
  check_output_path(args.out, args.force);
  const MoleculeModel model = MoleculeModel::load(args.model);
  const SmilesResult parsed = parse_smiles(args.smiles, smiles_options(model.config().featurizer));
  if (!parsed.molecule) throw ArgumentError("--smiles: cannot read '" + args.smiles + "': " + parsed.error);
  const MoleculeGraph graph = model.featurize(*parsed.molecule);
  const AttentionShading shading = attention_received(graph, model.attention(graph));
  write_file_atomically(args.out, attention_svg(*parsed.molecule, shading, title(model, args.smiles, graph)),
                        overwrite_for(args.force));
  std::cout << "wrote " << args.out << '\n';
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* command = app.add_subcommand(
      "explain", "Draw a molecule as SVG with atoms and bonds shaded by the attention they receive");
  command->add_option("--model", args->model, "Molecule model file written by 'edgewise train --task molecule'")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--smiles", args->smiles, "The molecule")->required();
  command->add_option("--out", args->out, "SVG file to write")->required();
  command->add_flag("--force", args->force, "Replace an existing --out file");
  add_threads_option(*command, args->threads);
  add_precision_option(*command, args->precision);
  command->callback([args] { run(*args); });
}

}  // namespace edgewise::cli
