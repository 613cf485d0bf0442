// The link prediction side of `train` (`--task link`) and `predict` (scores of node pairs), and the
// `recommend` command.
#pragma once

#include <string>
#include <vector>

#include "cli_support.hpp"
#include "edgewise/tasks/link/link_model.hpp"
#include "edgewise/tasks/params.hpp"
#include "node_commands.hpp"

namespace edgewise::cli {

struct LinkTrainArgs {
  NodeTrainArgs graph;        // the graph's files and how they are read: train's node input options
  LinkTrainingParams params;  // the training options (tasks/params.hpp)
  std::string save_split;     // folder to write the split's pair files to
  CheckpointArgs checkpoints;  // refused: link training keeps no checkpoints
  std::string out;
  std::string plot;  // training curve image (SVG); empty: none
  bool force = false;
};

// The node input options of `train` that --task link does not read (labels, --mlp, --graph).
std::vector<std::string> node_only_input_options();

// The graph train reads: args.graph's edge list and features (ArgumentError without --edges).
NodeGraph read_training_links(const LinkTrainArgs& args);

void train_links(const LinkTrainArgs& args);

// predict's inputs for a link model: the graph and the pairs to score.
struct LinkPredictArgs {
  NodeRunArgs graph;
  std::string pairs;  // file of node pairs, one a line
};

// Writes TSV: node_a, node_b, score (the logit of a link), probability; one row a pair, in the file's order.
void predict_links(const LinkModel& model, const LinkPredictArgs& args);

// Writes args.out, TSV: node, then its embedding h0, h1, ...; one row a node in the order the files
// first name them.
void embed_links(const LinkModel& model, const NodeRunArgs& args);

// `edgewise recommend`'s inputs.
struct RecommendArgs {
  NodeRunArgs graph;
  std::vector<std::string> nodes;  // node names
  std::string nodes_file;          // or a file of them, one a line
  Index k = 10;
};

// Writes TSV: node, rank, suggested node, score; k rows a node, best first.
void recommend_links(const LinkModel& model, const RecommendArgs& args);

}  // namespace edgewise::cli
