// The node classification side of `train` (`--task node`), `predict`, `eval` and `embed`.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli_support.hpp"
#include "edgewise/io/node_model.hpp"

namespace edgewise::cli {

// The default --dropout and --attention-dropout with structural features. The GAT recipe's 0.6 suits
// wide bag-of-words rows; structural features are a few dense columns (a dropped column of the
// degree one-hot loses the node's degree), and with 0.6 the network barely learns them: on
// email-Eu-core and LastFM Asia (stratified 60/20/20) test accuracy goes from 18% and 32% to about
// 60% and 66% with 0.1.
inline constexpr double kStructuralDropout = 0.1;

struct NodeTrainArgs {
  NodeGraphFiles files;
  std::string feature_format;  // empty: sparse with --features, structural without
  std::string node_ids = "integer";
  bool directed = false;
  bool no_self_loops = false;
  bool mlp = false;  // attention over self-loops only: an MLP baseline
  std::string row_normalize = "auto";
  NodeClassifierOptions network;
  // --dropout and --attention-dropout where given; otherwise network's (the GAT recipe's 0.6), or
  // kStructuralDropout with structural features.
  std::optional<double> dropout;
  std::optional<double> attention_dropout;
  std::optional<double> value_dropout;  // default: the --dropout rate, as in the GAT reference code
  std::string score = "additive";
  std::string split = "stratified:0.6,0.2,0.2";
  std::string save_split;  // folder to write the split's node files to
  NodeTrainingOptions training;
  CheckpointArgs checkpoints;
  std::string out;
  std::string plot;  // training curve image (SVG); empty: none
  bool force = false;
};

// Registers the options only --task node reads in their own group of `command`, and adds what they
// mean for node classification to the help of the options it shares with --task graph (which must
// be registered first). Returns the group.
CLI::Option_group* add_node_train_options(CLI::App& command, NodeTrainArgs& args);
// Throws ArgumentError when an option only --task graph reads was given; copies the values of the
// shared options that were given into args, where the others keep the node classification defaults.
void take_shared_train_options(const CLI::App& command, NodeTrainArgs& args);
void train_nodes(const NodeTrainArgs& args);

// How train read its graph, as predict, embed and eval may repeat it: each option given must agree
// with what the model recorded. Empty or false: not given.
struct NodeInputArgs {
  std::string feature_format;
  std::string node_ids;
  std::string row_normalize;
  bool directed = false;
  bool no_self_loops = false;
};

// The inputs of predict, embed and eval: a model and the graph to apply it to.
struct NodeRunArgs {
  std::string model;
  NodeGraphFiles files;
  NodeInputArgs input;
  std::string out;  // predict: empty for standard output; embed: required
  bool force = false;
};

// Registers --label-column and --id-column, which choose the columns of the labels file, in `group`.
void add_label_column_options(CLI::Option_group& group, NodeGraphFiles& files);

// Registers --edges, --features, train's input options (--feature-format, --node-ids, --directed,
// --no-self-loops, --row-normalize) and, with `labels`, --labels, --label-column and --id-column in
// their own group of `command`.
CLI::Option_group* add_node_graph_options(CLI::App& command, NodeRunArgs& args, bool labels);

// Whether the model file holds a node classification model (its configuration's kind).
bool is_node_model(const std::string& path);

void predict_nodes(const NodeRunArgs& args);
void embed_nodes(const NodeRunArgs& args);
void eval_nodes(const NodeRunArgs& args);

}  // namespace edgewise::cli
