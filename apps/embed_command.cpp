// `edgewise embed`: the node representations a saved node classifier computes before its output
// layer.
#include <memory>

#include "cli_support.hpp"
#include "commands.hpp"
#include "node_commands.hpp"

namespace edgewise::cli {
namespace {

struct EmbedArgs {
  std::string model;
  int threads = 0;
  NodeRunArgs nodes;
};

}  // namespace

void add_embed_command(CLI::App& app) {
  auto args = std::make_shared<EmbedArgs>();
  CLI::App* command = app.add_subcommand("embed", "Write the node embeddings of a node classification model");
  command->footer(
      "Writes TSV with a header: node id, then the node's final hidden representation (the input of the output "
      "layer), h0, h1, ...");
  command->add_option("--model", args->model, "Node classification model written by 'edgewise train --task node'")
      ->required()
      ->check(CLI::ExistingFile);
  add_node_graph_options(*command, args->nodes, false);
  command->add_option("--out", args->nodes.out, "TSV file to write")->required();
  command->add_flag("--force", args->nodes.force, "Replace an existing --out file");
  add_threads_option(*command, args->threads);
  command->callback([args] {
    apply_threads(args->threads);
    embed_nodes(NodeModel::load(args->model), args->nodes);
  });
}

}  // namespace edgewise::cli
