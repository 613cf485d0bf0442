// `edgewise embed`: the node representations of a saved node classifier (before its output layer) or
// link predictor (the embeddings from which its scorer scores pairs).
#include <fstream>
#include <memory>
#include <variant>

#include "cli_support.hpp"
#include "commands.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/tasks/model.hpp"
#include "link_commands.hpp"
#include "node_commands.hpp"

namespace edgewise::cli {
namespace {

struct EmbedArgs {
  std::string model;
  int threads = 0;
  std::string precision;
  NodeRunArgs nodes;
};

}  // namespace

void add_embed_command(CLI::App& app) {
  auto args = std::make_shared<EmbedArgs>();
  CLI::App* command = app.add_subcommand("embed", "Write the node embeddings of a node classification or link model");
  command->footer(
      "Writes TSV with a header: node id, then the node's embedding h0, h1, ...: a node classifier's final hidden "
      "representation (the input of the output layer), or a link predictor's output, from which its scorer scores pairs");
  command->add_option("--model", args->model,
                      "Model written by 'edgewise train --task node' or 'edgewise train --task link'")
      ->required()
      ->check(CLI::ExistingFile);
  add_node_graph_options(*command, args->nodes, false);
  command->add_option("--out", args->nodes.out, "TSV file to write")->required();
  command->add_flag("--force", args->nodes.force, "Replace an existing --out file");
  add_threads_option(*command, args->threads);
  add_precision_option(*command, args->precision);
  command->callback([args] {
    apply_threads(args->threads);
    apply_precision(args->precision);
    std::visit(Overloaded{[&](const MoleculeModel&) {
                            throw ArgumentError("embed: " + args->model +
                                                " is a molecule model; embed takes models of graphs' nodes");
                          },
                          [&](const NodeModel& model) { embed_nodes(model, args->nodes); },
                          [&](const LinkModel& model) { embed_links(model, args->nodes); }},
               load_any_model(args->model));
  });
}

}  // namespace edgewise::cli
