// `edgewise eval`: the metrics of a saved model on labelled data.
#include <memory>
#include <variant>

#include "cli_support.hpp"
#include "commands.hpp"
#include "edgewise/tasks/model.hpp"
#include "molecule_commands.hpp"
#include "node_commands.hpp"

namespace edgewise::cli {
namespace {

struct EvalArgs {
  std::string model;
  int threads = 0;
  std::string precision;
  MoleculeInput molecules;
  double coverage = kDefaultCoverage;
  std::string plot;
  NodeRunArgs nodes;
};

void run(const CLI::App& command, const CLI::Option_group& node_options, EvalArgs& args) {
  apply_threads(args.threads);
  apply_precision(args.precision);
  std::visit(Overloaded{[&](const MoleculeModel& model) {
                          reject_given(node_options.get_options(), "applies to models of graphs, and " +
                                                                       args.model + " is not one");
                          eval_molecules(model, args.molecules, args.coverage, args.plot);
                        },
                        [&](const NodeModel& model) {
                          reject_given(options_except(command,
                                                      {"--help", "--model", "--threads", "--precision", "--coverage"}),
                                       "applies to molecule models, and " + args.model +
                                           " is a node classification model");
                          if (command.count("--coverage") > 0) args.nodes.coverage = args.coverage;
                          eval_nodes(model, args.nodes);
                        },
                        [&](const LinkModel&) {
                          throw ArgumentError("eval: " + args.model +
                                              " is a link prediction model; train --task link reports its test "
                                              "links' ROC-AUC, average precision, Hits@50 and MRR, and predict "
                                              "--pairs scores any pairs");
                        }},
             load_any_model(args.model));
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* command = app.add_subcommand("eval", "Print a saved model's metrics on labelled data");
  command->footer(
      "Molecule models: metrics per task. Node classification models: accuracy, macro-F1 and a per-class table "
      "(support, precision, recall, F1) over every labeled node, training nodes included, then how well the "
      "probabilities fit the labels (NLL, expected calibration error, Brier score, prediction sets).");
  command->add_option("--model", args->model, "Model file written by 'edgewise train'")
      ->required()
      ->check(CLI::ExistingFile);
  add_molecule_input_options(*command, args->molecules,
                             "Target columns, comma-separated (default: the model's task names)");
  command->add_flag("--force", args->molecules.force, "Replace an existing --skipped-list file");
  command->add_option("--coverage", args->coverage,
                      "The coverage of the intervals (molecule models trained with --uncertainty) or prediction sets (node "
                      "models) scored")
      ->capture_default_str();
  command->add_option("--plot", args->plot,
                      "Molecule models trained with --uncertainty: draw the calibration (observed against expected "
                      "coverage, error against standard deviation) to this SVG file");
  add_threads_option(*command, args->threads);
  add_precision_option(*command, args->precision);
  const CLI::Option_group* node_options = add_node_graph_options(*command, args->nodes, true);
  command->callback([args, command, node_options] { run(*command, *node_options, *args); });
}

}  // namespace edgewise::cli
