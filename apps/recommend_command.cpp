// `edgewise recommend`: for listed nodes of a graph, the nodes they have no link with yet whose link a
// saved link predictor scores highest.
#include <memory>

#include "cli_support.hpp"
#include "commands.hpp"
#include "link_commands.hpp"

namespace edgewise::cli {
namespace {

struct RecommendCommandArgs {
  std::string model;
  int threads = 0;
  std::string precision;
  RecommendArgs recommend;
};

}  // namespace

void add_recommend_command(CLI::App& app) {
  auto args = std::make_shared<RecommendCommandArgs>();
  CLI::App* command =
      app.add_subcommand("recommend", "Suggest new partners for nodes of a graph with a link prediction model");
  command->footer(
      "Writes TSV with a header: node, rank, suggested node, score (the logit of a link); --k rows a node, best "
      "first, leaving out the node itself and the nodes the edge list already links it to.");
  command->add_option("--model", args->model, "Model written by 'edgewise train --task link'")
      ->required()
      ->check(CLI::ExistingFile);
  add_node_graph_options(*command, args->recommend.graph, false);
  command->add_option("--nodes", args->recommend.nodes, "Node ids to suggest partners for (comma-separated)")
      ->delimiter(',');
  command->add_option("--nodes-file", args->recommend.nodes_file, "A file of node ids to suggest partners for, one a line")
      ->check(CLI::ExistingFile);
  command->add_option("--k", args->recommend.k, "Suggestions a node")->capture_default_str()->check(CLI::PositiveNumber);
  command->add_option("--out", args->recommend.graph.out, "File to write (default: standard output)");
  command->add_flag("--force", args->recommend.graph.force, "Replace an existing --out file");
  add_threads_option(*command, args->threads);
  add_precision_option(*command, args->precision);
  command->callback([args] {
    apply_threads(args->threads);
    apply_precision(args->precision);
    recommend_links(LinkModel::load(args->model), args->recommend);
  });
}

}  // namespace edgewise::cli
