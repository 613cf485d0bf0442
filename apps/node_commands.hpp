// The node classification side of `train` (`--task node`), `predict`, `eval` and `embed`.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "edgewise/tasks/node/node_model.hpp"
#include "edgewise/tasks/params.hpp"

namespace edgewise::cli {

// How a graph's files are read. train gives each its meaning (feature_format empty: structural
// without --features, musae-json for a .json file, else sparse); predict, embed and eval may repeat
// them, and each given must agree with what the model recorded (empty or false: not given).
struct NodeInputArgs {
  std::string feature_format;
  std::string node_ids;
  std::string row_normalize;
  bool directed = false;
  bool no_self_loops = false;
  Index sampled_walks = automatic_walks;  // --random-walks: automatic, 0 for exact, or walks a node
};

struct NodeTrainArgs {
  NodeGraphFiles files;
  NodeInputArgs input = {.feature_format = "", .node_ids = "integer", .row_normalize = "auto"};
  bool mlp = false;  // attention over self-loops only: an MLP baseline
  NodeTrainingParams params;  // the training options (tasks/params.hpp)
  std::string save_split;     // folder to write the split's node files to
  std::string graph;      // a graph store instead of the files
  CheckpointArgs checkpoints;
  std::string out;
  std::string plot;  // training curve image (SVG); empty: none
  bool force = false;
};

// Finds nodes by name: by value for nodes named by their ids, else through an index built once.
NodeLookup node_lookup(Index nodes, bool named_by_id, const std::function<std::string(Index)>& name_of);

// Registers the input options of `train` that only --task node reads in their own group of
// `command` (train_options.hpp adds the training options). Returns the group.
CLI::Option_group* add_node_train_options(CLI::App& command, NodeTrainArgs& args);
// Registers the options that say how the graph is read (--edges, --labels and its columns,
// --features, --feature-format, --row-normalize, --node-ids, --directed, --no-self-loops, --mlp) in
// `group`: train's, which `graph build` shares.
void add_node_input_options(CLI::Option_group* group, NodeTrainArgs& args);
// The NodeInputOptions those options ask for. Throws ArgumentError for --mlp with --no-self-loops,
// an unknown --feature-format, or a format that needs --features without it.
NodeInputOptions input_options(const NodeTrainArgs& args);
void train_nodes(const NodeTrainArgs& args);

// The graph train reads, with its labels checked (ArgumentError for a missing --edges or --labels, or
// a label column that names every node apart).
NodeGraph read_training_graph(const NodeTrainArgs& args);
// args.split of data, with a warning for classes it leaves without training nodes.
Split training_node_split(const NodeTrainArgs& args, const NodeGraph& data);

// The inputs of predict, embed and eval: the graph to apply a model to.
struct NodeRunArgs {
  NodeGraphFiles files;
  std::string graph;  // a graph store instead of the files
  NodeInputArgs input;
  std::string out;  // predict: empty for standard output; embed: required
  bool force = false;
  // predict: write prediction sets of this coverage; eval: score them (default kDefaultCoverage when
  // the model's calibration has rows enough)
  std::optional<double> coverage;
};

// Throws ArgumentError for a graph reading option given (not empty or false) with another value
// than the model recorded in `recorded`: a saved model's graph is read as its training graph was.
void check_graph_reading(const NodeInputOptions& recorded, const NodeInputArgs& given);

// Says, on standard error, which first lines were taken for headers by the string-id rule
// (NodeGraph::guessed_headers), and how to read them as data.
void report_guessed_headers(const std::vector<std::string>& headers);

// For a graph summary: how structural features' random-walk columns were sampled; empty when they
// are exact or the features are not structural.
std::string sampled_walks_text(const FeatureSpec& spec);

// Registers how a graph's files are read (--feature-format, --row-normalize, --node-ids, --directed,
// --no-self-loops, and in training --random-walks) in `group`: with `training`, each with its meaning
// and default; else as a saved model's commands take them, to be checked against what train recorded.
void add_graph_reading_options(CLI::Option_group& group, NodeInputArgs& input, bool training);

// Registers --label-column and --id-column, which choose the columns of the labels file, in `group`.
void add_label_column_options(CLI::Option_group& group, NodeGraphFiles& files);

// Registers --edges, --features, train's input options (--feature-format, --node-ids, --directed,
// --no-self-loops, --row-normalize) and, with `labels`, --labels, --label-column and --id-column in
// their own group of `command`.
CLI::Option_group* add_node_graph_options(CLI::App& command, NodeRunArgs& args, bool labels);

void predict_nodes(const NodeModel& model, const NodeRunArgs& args);
void embed_nodes(const NodeModel& model, const NodeRunArgs& args);
void eval_nodes(const NodeModel& model, const NodeRunArgs& args);

}  // namespace edgewise::cli
