#include "train_options.hpp"

#include <sstream>

#include "cli_support.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/tasks/layer_width.hpp"

namespace edgewise::cli {
namespace {

std::string text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// " (--task graph: <graph>; --task node: <node>)", the defaults of an option both tasks read.
std::string both(const std::string& graph, const std::string& node) {
  return " (--task graph: " + graph + "; --task node: " + node + ")";
}

// The width of a hidden layer where --hidden or --head-dim gives it, for `heads` heads.
std::optional<Index> given_width(const SharedTrainArgs& shared, Index heads) {
  return edgewise::given_width({.hidden = shared.hidden, .head_dim = shared.head_dim}, heads,
                               {.hidden = "--hidden", .heads = "--heads", .head_dim = "--head-dim"});
}

template <typename T>
void set_given(const std::optional<T>& given, T& value) {
  if (given) value = *given;
}

// The options both tasks read the same way.
template <typename TaskArgs>
void copy_outputs(const SharedTrainArgs& shared, TaskArgs& args) {
  args.training.seed = shared.seed;
  args.force = shared.force;
  args.out = shared.out;
  args.plot = shared.plot;
  args.save_split = shared.save_split;
  args.checkpoints = shared.checkpoints;
}

void add_shared_train_options(CLI::App& command, SharedTrainArgs& args) {
  const MoleculeTrainArgs graph;
  const NodeTrainArgs node;
  CLI::Option_group* group = command.add_option_group("Training, both tasks");
  group->add_option("--split", args.split,
                    "graph: random, scaffold (Bemis-Murcko groups, largest to train), or a folder with train.txt, "
                    "val.txt, test.txt (0-based data-row indices: header, comments and blank lines not counted; rows "
                    "skipped by --skip-invalid are reported and left out). node: per-class:K[,VAL,TEST]: K labeled "
                    "nodes of each class to train on, then VAL and TEST more at random (default 500 and 1000); "
                    "stratified:TRAIN,VAL,TEST: these fractions of each class's labeled nodes; or a folder whose "
                    "train.txt, val.txt and test.txt list node ids as the edge list writes them" +
                        both(graph.split, node.split));
  group->add_option("--epochs", args.epochs, "Maximum number of epochs" +
                                                 both("150, fewer above 10,000 training molecules",
                                                      std::to_string(node.training.epochs)))
      ->check(at_least(1, "POSITIVE"));
  group->add_option("--layers", args.layers,
                    "Attention layers: graph: before the readout; node: the output layer included" +
                        both(std::to_string(graph.network.layers), std::to_string(node.network.layers)))
      ->check(at_least(1, "POSITIVE"));
  group->add_option("--heads", args.heads,
                    "Attention heads of each hidden layer" +
                        both(std::to_string(graph.network.heads), std::to_string(node.network.heads)))
      ->check(at_least(1, "POSITIVE"));
  group->add_option("--hidden", args.hidden,
                    "Width of a hidden layer, --heads heads of --head-dim each; give it or --head-dim" +
                        both(std::to_string(graph.network.hidden),
                             std::to_string(node.network.heads * node.network.head_dim)))
      ->check(at_least(1, "POSITIVE"));
  group->add_option("--head-dim", args.head_dim,
                    "Width of one head of a hidden layer" +
                        both(std::to_string(graph.network.hidden / graph.network.heads),
                             std::to_string(node.network.head_dim)))
      ->check(at_least(1, "POSITIVE"));
  group->add_option("--score", args.score, "Attention score function" + both(graph.score, node.score))
      ->check(CLI::IsMember(score_function_names()));
  group->add_option("--dropout", args.dropout,
                    "Dropout: graph: on node representations and in the head; node: on the input of every attention "
                    "layer" +
                        both(text(graph.network.dropout),
                             "0.1 with structural features, else 0.6 for at most 25 training labels a class (the GAT "
                             "recipe), 0.5 above"))
      ->check(CLI::Range(0.0, 0.95));
  group->add_option("--attention-dropout", args.attention_dropout,
                    "Dropout on attention weights" +
                        both(text(graph.network.attention_dropout),
                             "0.1 with structural features, else 0.6 for at most 25 training labels a class, 0.1 above"))
      ->check(CLI::Range(0.0, 0.95));
  group->add_option("--lr", args.learning_rate,
                    "Learning rate: graph: AdamW's peak; node: Adam's" +
                        both(text(graph.training.learning_rate), text(node.training.learning_rate)))
      ->check(CLI::PositiveNumber);
  group->add_option("--weight-decay", args.weight_decay,
                    "Weight decay: graph: AdamW's decoupled decay; node: an L2 term added to the gradient, as GAT "
                    "trains" +
                        both(text(graph.training.weight_decay),
                             text(node.training.weight_decay) +
                                 ", or 0 above 25 training labels a class with features from a file"))
      ->check(CLI::NonNegativeNumber);
  group->add_option("--batch-size", args.batch_size,
                    "graph: molecules a step; node: seed nodes a step of sampled mini-batches, which this turns on "
                    "(see --fanout)" +
                        both(std::to_string(graph.training.batch_size),
                             "full batch while it fits in a quarter of the memory, else " +
                                 std::to_string(SamplingOptions{}.batch_size)))
      ->check(at_least(1, "POSITIVE"));
  group->add_option("--patience", args.patience,
                    "Stop after this many epochs without improvement: graph: of the validation metric; node: of "
                    "neither validation accuracy nor loss" +
                        both(std::to_string(graph.training.patience), std::to_string(node.training.patience)))
      ->check(at_least(1, "POSITIVE"));
}

}  // namespace

TaskOptionGroups add_train_options(CLI::App& command, SharedTrainArgs& shared, MoleculeTrainArgs& molecules,
                                   NodeTrainArgs& nodes) {
  add_shared_train_options(command, shared);
  return {add_molecule_train_options(command, molecules), add_node_train_options(command, nodes)};
}

void reject_other_task_options(const TaskOptionGroups& groups, const std::string& task) {
  if (task == "graph") {
    reject_given(groups.nodes->get_options(), "applies to --task node only");
  } else {
    reject_given(groups.molecules->get_options(), "applies to --task graph only");
  }
}

void apply_shared_options(const SharedTrainArgs& shared, MoleculeTrainArgs& args) {
  copy_outputs(shared, args);
  set_given(shared.split, args.split);
  set_given(shared.epochs, args.training.epochs);
  args.default_epochs = !shared.epochs;
  set_given(shared.layers, args.network.layers);
  set_given(shared.heads, args.network.heads);
  if (const std::optional<Index> width = given_width(shared, args.network.heads)) {
    args.network.hidden = *width;
  } else if (args.network.hidden % args.network.heads != 0) {
    throw ArgumentError("--heads " + std::to_string(args.network.heads) + " does not divide --task graph's default --hidden " +
                        std::to_string(args.network.hidden) + "; give --hidden or --head-dim too");
  }
  set_given(shared.score, args.score);
  set_given(shared.dropout, args.network.dropout);
  set_given(shared.attention_dropout, args.network.attention_dropout);
  set_given(shared.learning_rate, args.training.learning_rate);
  set_given(shared.weight_decay, args.training.weight_decay);
  set_given(shared.patience, args.training.patience);
  set_given(shared.batch_size, args.training.batch_size);
}

void apply_shared_options(const SharedTrainArgs& shared, NodeTrainArgs& args) {
  copy_outputs(shared, args);
  set_given(shared.split, args.split);
  set_given(shared.epochs, args.training.epochs);
  set_given(shared.layers, args.network.layers);
  set_given(shared.heads, args.network.heads);
  if (const std::optional<Index> width = given_width(shared, args.network.heads))
    args.network.head_dim = *width / args.network.heads;
  set_given(shared.score, args.score);
  if (shared.dropout) args.dropout = shared.dropout;
  if (shared.attention_dropout) args.attention_dropout = shared.attention_dropout;
  set_given(shared.learning_rate, args.training.learning_rate);
  if (shared.weight_decay) args.weight_decay = shared.weight_decay;
  if (shared.batch_size) args.batching.batch_size = shared.batch_size;
  set_given(shared.patience, args.training.patience);
}

}  // namespace edgewise::cli
