// `edgewise predict`: applies a saved model to new molecules, to the nodes of a graph, or to pairs of
// them.
#include <memory>
#include <variant>

#include "cli_support.hpp"
#include "commands.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/distributed/processes.hpp"
#include "edgewise/tasks/model.hpp"
#include "link_commands.hpp"
#include "molecule_commands.hpp"
#include "node_commands.hpp"

namespace edgewise::cli {
namespace {

struct PredictArgs {
  std::string model;
  std::string out;
  bool force = false;
  int threads = 0;
  std::string precision;
  MoleculePredictArgs molecules;
  NodeRunArgs nodes;
  std::string pairs;
};

void predict_with(const MoleculeModel& model, const CLI::Option_group& node_options, PredictArgs& args) {
  reject_given(node_options.get_options(), "applies to models of graphs, and " + args.model + " is not one");
  if (!args.pairs.empty())
    throw ArgumentError("--pairs applies to link prediction models, and " + args.model + " is a molecule model");
  args.molecules.out = args.out;
  args.molecules.force = args.force;
  predict_molecules(model, args.molecules);
}

void predict_with(const NodeModel& model, const CLI::App& command, PredictArgs& args) {
  if (distributed::active())
    throw ArgumentError("predict: " + args.model + " is a node classification model, whose prediction runs as one "
                        "process; only molecule models divide their work among the processes mpirun starts");
  reject_given(options_except(command,
                              {"--help", "--model", "--out", "--force", "--threads", "--precision", "--coverage"}),
               "applies to other models, and " + args.model + " is a node classification model");
  args.nodes.out = args.out;
  args.nodes.force = args.force;
  args.nodes.coverage = args.molecules.coverage;
  predict_nodes(model, args.nodes);
}

void predict_with(const LinkModel& model, const CLI::App& command, PredictArgs& args) {
  reject_given(options_except(command,
                              {"--help", "--model", "--out", "--force", "--threads", "--precision", "--pairs"}),
               "applies to other models, and " + args.model + " is a link prediction model");
  args.nodes.out = args.out;
  args.nodes.force = args.force;
  predict_links(model, {.graph = args.nodes, .pairs = args.pairs});
}

void run(const CLI::App& command, const CLI::Option_group& node_options, PredictArgs& args) {
  apply_threads(args.threads);
  apply_precision(args.precision);
  std::visit(Overloaded{[&](const MoleculeModel& model) { predict_with(model, node_options, args); },
                        [&](const NodeModel& model) { predict_with(model, command, args); },
                        [&](const LinkModel& model) { predict_with(model, command, args); }},
             load_any_model(args.model));
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* command = app.add_subcommand("predict", "Predict with a saved model");
  command->footer(
      "Molecule models write CSV: SMILES, one column per task, then for a model trained with --uncertainty a "
      "<task>_std column per task (and intervals with --coverage), error. Node classification models write TSV with a "
      "header: node id, predicted class, with --coverage the prediction set (class names joined by '|'), then one "
      "calibrated probability column per class, named by class. Link prediction models write TSV with a header: "
      "node_a, node_b, score (the logit of a link), probability; a row for each pair of --pairs, in its order.");
  command->add_option("--model", args->model, "Model file written by 'edgewise train'")
      ->required()
      ->check(CLI::ExistingFile);
  // CLI11 reads a list option's value "[a,b]" as the list a, b, which would turn "[Na+].[Cl-]" into
  // "Na+].[Cl-". Without extra args it keeps each value whole; the bound, more SMILES than a
  // command line holds, still lets one --smiles take several.
  command->add_option("--smiles", args->molecules.smiles, "SMILES to predict (several may follow one --smiles)")
      ->allow_extra_args(false)
      ->expected(1, 1 << 20);
  add_molecule_input_options(*command, args->molecules.input, "");
  command->add_option("--coverage", args->molecules.coverage,
                      "Also write the split-conformal intervals (molecule models trained with --uncertainty: "
                      "<task>_lower, <task>_upper) or prediction sets (node models: set) that hold this fraction "
                      "of targets (e.g. 0.9)");
  command->add_option("--out", args->out, "File to write (default: standard output)");
  command->add_flag("--force", args->force, "Replace an existing --out file");
  command->add_option("--pairs", args->pairs,
                      "Link prediction models: the node pairs to score, two node ids a line separated by blanks, or a "
                      "CSV table (a .csv file) whose first two fields name the pair")
      ->check(CLI::ExistingFile);
  add_threads_option(*command, args->threads);
  add_precision_option(*command, args->precision);
  const CLI::Option_group* node_options = add_node_graph_options(*command, args->nodes, false);
  command->callback([args, command, node_options] { run(*command, *node_options, *args); });
}

}  // namespace edgewise::cli
