#include "node_commands.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <numeric>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "cli_support.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/distributed/graph_parts.hpp"
#include "edgewise/distributed/processes.hpp"
#include "edgewise/graph/sampling.hpp"
#include "edgewise/io/graph_parts.hpp"
#include "edgewise/models/model_file.hpp"
#include "edgewise/tasks/node/node_training.hpp"
#include "edgewise/tasks/common/split_spec.hpp"

namespace edgewise::cli {
namespace {

// The split named by --split of the nodes with `labels`; a folder's files name nodes as `lookup` finds them.
Split node_split(const std::string& split, std::span<const Index> labels, const NodeLookup& lookup,
                 std::uint64_t seed) {
  return make_node_split(parse_node_split(split), labels, lookup, seed);
}

Split node_split(const std::string& split, const NodeGraph& data, std::uint64_t seed) {
  return node_split(split, data.labels.classes,
                    [&](std::string_view name) { return data.nodes.find(name).value_or(-1); }, seed);
}

std::vector<Index> labeled_nodes(std::span<const Index> labels) {
  std::vector<Index> labeled;
  for (std::size_t node = 0; node < labels.size(); ++node)
    if (labels[node] >= 0) labeled.push_back(static_cast<Index>(node));
  return labeled;
}

// Without --feature-format: structural without --features, musae-json for a .json file, else sparse.
FeatureFormat default_feature_format(const std::filesystem::path& features) {
  if (features.empty()) return FeatureFormat::structural;
  return features.extension() == ".json" ? FeatureFormat::musae_json : FeatureFormat::sparse;
}

FeatureFormat feature_format(const NodeTrainArgs& args) {
  if (args.input.feature_format.empty()) return default_feature_format(args.files.features);
  std::string name = args.input.feature_format;
  std::replace(name.begin(), name.end(), '-', '_');
  const FeatureFormat format = feature_format_from_name(name);
  if (format != FeatureFormat::structural && args.files.features.empty())
    throw ArgumentError("--feature-format " + args.input.feature_format + " needs --features");
  return format;
}

std::string fixed(double value, int decimals = 4) {
  if (std::isnan(value)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

void log_graph_summary(const Logger& log, const NodeGraph& data) {
  const NodeInputOptions& input = data.input;
  std::ostringstream out;
  out << data.nodes.size() << " nodes, " << data.edge_list_edges << (input.directed ? " directed" : "")
      << " edges, " << data.labels.num_labeled() << " labeled in " << data.labels.num_classes()
      << " classes; features [" << data.features.rows() << ", " << data.features.cols() << "] ("
      << feature_format_name(input.features.format) << (input.normalize_rows ? ", rows normalized" : "") << ")"
      << sampled_walks_text(input.features);
  if (input.self_loops_only)
    out << "\nattention over self-loops only (--mlp): an MLP on the features; "
        << (input.features.format == FeatureFormat::structural ? "the edges only shape the structural features"
                                                                : "the edge list only names the nodes");
  const Index unconnected = data.nodes.size() - data.edge_list_nodes;
  if (unconnected > 0)
    out << "\n" << unconnected << " nodes appear in the labels or features but not in the edge list: "
        << "they are kept as nodes without edges";
  log.normal(out.str());
}

std::string files_description(const NodeGraphFiles& files) {
  std::string text = "edges " + files.edges.string() + ", labels " + files.labels.string();
  if (!files.features.empty()) text += ", features " + files.features.string();
  return text;
}

// Losses above accuracies, each for the training and the validation nodes.
Plot node_curve(const NodeTrainingResult& result, const std::string& out) {
  PlotSeries train_loss{"train loss (with dropout)", {}}, val_loss{"validation loss", {}};
  PlotSeries train_accuracy{"train accuracy", {}}, val_accuracy{"validation accuracy", {}};
  for (const NodeEpochReport& report : result.history) {
    train_loss.values.push_back(report.train_loss);
    val_loss.values.push_back(report.val_loss);
    train_accuracy.values.push_back(report.train_accuracy);
    val_accuracy.values.push_back(report.val_accuracy);
  }
  return {"Training of " + out,
          {{"cross-entropy loss", {std::move(train_loss), std::move(val_loss)}},
           {"accuracy", {std::move(train_accuracy), std::move(val_accuracy)}}}};
}

std::string padded(const std::string& text, std::size_t width) {
  return text.size() < width ? text + std::string(width - text.size(), ' ') : text;
}

void print_class_table(std::ostream& out, const NodeClassificationMetrics& metrics,
                       const std::vector<std::string>& classes) {
  std::size_t width = 5;
  for (const std::string& name : classes) width = std::max(width, name.size());
  char line[64];
  std::snprintf(line, sizeof line, "  %8s %9s %7s %7s\n", "support", "precision", "recall", "f1");
  out << padded("class", width) << line;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const ClassMetrics& m = metrics.classes[c];
    std::snprintf(line, sizeof line, "  %8lld %9s %7s %7s\n", static_cast<long long>(m.support),
                  fixed(m.precision).c_str(), fixed(m.recall).c_str(), fixed(m.f1).c_str());
    out << padded(classes[c], width) << line;
  }
}

void print_evaluation(std::ostream& out, const std::string& title, const NodeEvaluation& evaluation,
                      const std::vector<std::string>& classes) {
  const NodeClassificationMetrics& metrics = evaluation.metrics;
  out << title << ": " << metrics.count << " nodes, accuracy " << fixed(metrics.accuracy) << ", macro-F1 "
      << fixed(metrics.macro_f1) << ", loss " << fixed(evaluation.loss) << "\n";
  print_class_table(out, metrics, classes);
}

// The probabilities' scores, and with a coverage the prediction sets' (NaN when not calibrated).
void print_probability_scores(std::ostream& out, const ClassUncertaintyScores& scores, std::optional<double> coverage) {
  out << "probabilities: NLL " << fixed(scores.nll) << ", expected calibration error " << fixed(scores.ece)
      << ", Brier score " << fixed(scores.brier) << '\n';
  if (!coverage) return;
  if (std::isnan(scores.coverage)) {
    out << "no prediction sets: the model has no calibration\n";
    return;
  }
  out << "prediction sets meant to hold " << *coverage * 100 << " % of labels: coverage " << fixed(scores.coverage)
      << ", mean size " << fixed(scores.mean_set_size) << " classes\n";
}

// The coverage a report scores prediction sets at unless told: kDefaultCoverage, when the calibration
// has rows enough.
std::optional<double> report_coverage(const NodeModel& model) {
  const std::optional<ClassCalibration>& calibration = model.config().calibration;
  if (calibration && calibration->scores.size() >= conformal_rows_needed(kDefaultCoverage)) return kDefaultCoverage;
  return std::nullopt;
}

// What training reports on the test nodes.
struct NodeTestScores {
  NodeEvaluation evaluation;
  ClassUncertaintyScores probabilities;
};

// One row per node of `order`: the node's name, `first` (if any), then the values.
template <typename Order, typename NameOf>
std::string node_table(const Order& order, NameOf&& name_of, const std::string& header, const Matrix<float>& values,
                       const std::vector<std::string>& first = {}) {
  std::ostringstream out;
  out << header << '\n';
  for (const Index node : order) {
    out << name_of(node);
    if (!first.empty()) out << '\t' << first[static_cast<std::size_t>(node)];
    for (Index column = 0; column < values.cols(); ++column) out << '\t' << format_value(values(node, column));
    out << '\n';
  }
  return out.str();
}

// A model's outputs on a graph, in the model's output order.
std::string node_table(const NodeModel& model, const NodeGraph& data, const std::string& header,
                       const Matrix<float>& values, const std::vector<std::string>& first = {}) {
  return node_table(model.output_order(data.nodes), [&](Index node) { return data.nodes.name(node); }, header, values,
                    first);
}

// A model's outputs on a graph store, in store order.
std::string store_table(const GraphStore& store, const std::string& header, const Matrix<float>& values,
                        const std::vector<std::string>& first = {}) {
  // A vector of node numbers rather than std::views::iota, which clang 14 cannot compile with GCC 12's
  // standard library.
  std::vector<Index> order(static_cast<std::size_t>(store.num_nodes()));
  std::iota(order.begin(), order.end(), Index{0});
  return node_table(order, [&](Index node) { return store.node_name(node); }, header, values, first);
}

GraphStore open_store_for(const NodeModel& model, const NodeRunArgs& args) {
  if (!args.files.edges.empty() || !args.files.features.empty() || !args.files.labels.empty())
    throw ArgumentError("--graph reads the edges, features and labels from the store; leave out --edges, "
                        "--features and --labels");
  GraphStore store = GraphStore::open(args.graph);
  if (store.input().features.format != model.config().input.features.format ||
      store.input().ids != model.config().input.ids)
    throw ArgumentError(args.graph + ": its features or node ids were made otherwise than the model's training "
                        "graph; build the store with the options the model was trained with");
  return store;
}

void report_new_nodes(const NodeModel& model, const NodeGraph& data) {
  const std::vector<std::string>& trained = model.config().nodes;
  const std::unordered_set<std::string_view> known(trained.begin(), trained.end());
  Index fresh = 0;
  for (Index node = 0; node < data.nodes.size(); ++node) fresh += known.contains(data.nodes.name(node)) ? 0 : 1;
  if (fresh > 0)
    std::cerr << fresh << " of " << data.nodes.size() << " nodes are not in the model's training graph\n";
}

// Throws ArgumentError when `option` was given (not empty) with another value than the model's.
void check_recorded(const std::string& option, const std::string& given, const std::string& recorded) {
  if (!given.empty() && given != recorded)
    throw ArgumentError(option + " " + given + ": the model was trained with " + option + " " + recorded +
                        "; its graph must be read the same way");
}

}  // namespace

NodeLookup node_lookup(Index nodes, bool named_by_id, const std::function<std::string(Index)>& name_of) {
  if (named_by_id)
    return [nodes](std::string_view name) -> Index {
      Index id = -1;
      const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), id);
      return error == std::errc() && end == name.data() + name.size() && id < nodes ? id : -1;
    };
  auto ids = std::make_shared<std::unordered_map<std::string, Index>>();
  for (Index node = 0; node < nodes; ++node) ids->emplace(name_of(node), node);
  return [ids](std::string_view name) {
    const auto found = ids->find(std::string(name));
    return found == ids->end() ? Index{-1} : found->second;
  };
}

void check_graph_reading(const NodeInputOptions& recorded, const NodeInputArgs& given) {
  std::string format(feature_format_name(recorded.features.format));
  std::replace(format.begin(), format.end(), '_', '-');
  check_recorded("--feature-format", given.feature_format, format);
  check_recorded("--node-ids", given.node_ids, recorded.ids == NodeIds::string ? "string" : "integer");
  if (given.row_normalize != "auto")
    check_recorded("--row-normalize", given.row_normalize, recorded.normalize_rows ? "on" : "off");
  if (given.directed && !recorded.directed)
    throw ArgumentError("--directed: the model was trained on an undirected graph (without --directed)");
  if (given.no_self_loops && recorded.add_self_loops)
    throw ArgumentError("--no-self-loops: the model was trained with self-loops (without --no-self-loops)");
}

namespace {

NodeGraph read_for(const NodeModel& model, const NodeRunArgs& args) {
  if (args.files.edges.empty()) throw ArgumentError("--edges is required for a node classification model");
  check_graph_reading(model.config().input, args.input);
  NodeGraph data = model.read_graph(args.files);
  report_guessed_headers(data.guessed_headers);
  report_new_nodes(model, data);
  return data;
}

}  // namespace

void report_guessed_headers(const std::vector<std::string>& headers) {
  for (const std::string& header : headers)
    std::cerr << "edgewise: note: " << header
              << " read as a header, as nothing else in the files names what it names (string ids have no type "
                 "to tell one by); --header no reads it as data\n";
}

std::string sampled_walks_text(const FeatureSpec& spec) {
  if (spec.format != FeatureFormat::structural || spec.sampled_walks == 0) return "";
  return "; random-walk columns estimated from " + std::to_string(spec.sampled_walks) +
         " sampled walks a node (by default above three times GitHub's size; --random-walks exact for exact ones)";
}

NodeInputOptions input_options(const NodeTrainArgs& args) {
  NodeInputOptions input;
  input.ids = args.input.node_ids == "string" ? NodeIds::string : NodeIds::integer;
  input.directed = args.input.directed;
  input.add_self_loops = !args.input.no_self_loops;
  if (args.mlp && args.input.no_self_loops)
    throw ArgumentError("--mlp: every node attends to its self-loop only, which --no-self-loops removes");
  input.self_loops_only = args.mlp;
  input.features.format = feature_format(args);
  input.features.sampled_walks = args.input.sampled_walks;
  input.normalize_rows =
      args.input.row_normalize == "auto" ? normalizes_rows_by_default(input.features.format)
                                         : args.input.row_normalize == "on";
  return input;
}

namespace {

void add_header_option(CLI::Option_group& group, NodeGraphFiles& files) {
  group
      .add_option_function<std::string>(
          "--header",
          [&files](const std::string& text) {
            files.header = text == "yes" ? Header::present : text == "no" ? Header::absent : Header::detect;
          },
          "Whether the first line of the edge list, labels and features files is a header. auto: integer ids "
          "detect one by a field that is not an integer; string ids, by names that nothing else in the files "
          "uses (reported when read)")
      ->check(CLI::IsMember({"auto", "yes", "no"}))
      ->default_str("auto");
}

}  // namespace

void add_node_input_options(CLI::Option_group* group, NodeTrainArgs& args) {
  group->add_option("--edges", args.files.edges,
                    "Edge list: two node ids a line (further columns are ignored; '#' and '%' lines are comments; "
                    "a header such as id_1,id_2 is detected: see --header)")
      ->check(CLI::ExistingFile);
  group->add_option("--labels", args.files.labels,
                    "Node labels, 'node label' a line or a CSV such as id,target; labels may be integers or names. "
                    "Required with --task node")
      ->check(CLI::ExistingFile);
  add_label_column_options(*group, args.files);
  group->add_option("--features", args.files.features,
                    "Node features in --feature-format (default: structural features computed from the graph)")
      ->check(CLI::ExistingFile);
  add_header_option(*group, args.files);
  add_graph_reading_options(*group, args.input, true);
  group->add_flag("--mlp", args.mlp,
                  "Baseline: every layer attends to the node itself only, so the network is an MLP on the node "
                  "features; structural features are still computed from the whole graph. The model file records "
                  "it, so predict, embed and eval do the same");
}

CLI::Option_group* add_node_train_options(CLI::App& command, NodeTrainArgs& args) {
  CLI::Option_group* group = command.add_option_group(
      "Graphs (--task node; --task link reads all but --labels, --label-column, --id-column, --mlp and --graph)");
  add_node_input_options(group, args);
  group->add_option("--graph", args.graph,
                    "Train on a graph store (.ewg, from 'edgewise graph build' or 'graph generate') instead of "
                    "--edges, --labels and --features: memory-mapped, with sampled mini-batches when it does not fit. "
                    "Under mpirun, also a folder of part stores ('graph partition --stores'): process K maps "
                    "part-K.ewg alone")
      ->check(CLI::ExistingPath);
  return group;
}

std::string label_column_description(const NodeGraphFiles& files) {
  if (const auto* name = std::get_if<std::string>(&files.label_column)) return "column '" + *name + "'";
  return "column " + std::to_string(std::get<Index>(files.label_column)) + " (0-based)";
}

// Fewer than two nodes a class is what reading an id or name column as the labels gives (MUSAE's
// "id,name,ml_target" read at column 1); training would only fit thousands of singleton classes.
void check_label_column(const NodeGraphFiles& files, const NodeLabels& labels) {
  const Index labeled = labels.num_labeled();
  if (labeled < 2 || 2 * labels.num_classes() <= labeled) return;
  throw ArgumentError(files.labels.string() + ": the " + std::to_string(labeled) + " labelled nodes fall into " +
                      std::to_string(labels.num_classes()) + " classes in " + label_column_description(files) +
                      ", fewer than two nodes a class; is it the label column? Choose it with --label-column");
}

// Classes the split leaves without a training node, which the model can never predict.
void warn_of_classes_without_training_nodes(const NodeGraphFiles& files, const NodeGraph& data, const Split& split) {
  std::vector<Index> members(static_cast<std::size_t>(data.labels.num_classes()), 0), trained(members.size(), 0);
  for (const Index c : data.labels.classes)
    if (c >= 0) ++members[static_cast<std::size_t>(c)];
  for (const Index node : split.train) {
    const Index c = data.labels.classes[static_cast<std::size_t>(node)];
    if (c >= 0) ++trained[static_cast<std::size_t>(c)];
  }
  std::size_t missing = 0, smallest = 0;
  for (std::size_t c = 0; c < members.size(); ++c) {
    if (trained[c] > 0) continue;
    if (missing++ == 0 || members[c] < members[smallest]) smallest = c;
  }
  if (missing == 0) return;
  std::cerr << "edgewise: warning: " << missing << " of " << members.size() << " classes in "
            << label_column_description(files) << " of " << files.labels.string()
            << " have no training node, so the model cannot predict them (the smallest, '"
            << data.labels.class_names[smallest] << "', has " << members[smallest] << " node"
            << (members[smallest] == 1 ? "" : "s") << ")\n";
}

NodeGraph read_training_graph(const NodeTrainArgs& args) {
  if (args.files.edges.empty()) throw ArgumentError("--edges is required with --task node");
  if (args.files.labels.empty()) throw ArgumentError("--labels is required with --task node");
  NodeGraph data = read_node_graph(args.files, input_options(args));
  report_guessed_headers(data.guessed_headers);
  check_label_column(args.files, data.labels);
  return data;
}

Split training_node_split(const NodeTrainArgs& args, const NodeGraph& data) {
  Split split = node_split(args.params.split, data, args.params.training.seed);
  warn_of_classes_without_training_nodes(args.files, data, split);
  return split;
}

namespace {

// Which processes of a run score the test nodes.
enum class TestScoring { rank_0, every_process };

// Evaluates the test nodes (when there are any), records the summary, saves the model and its plot,
// and logs the test report. evaluate_test(model) scores split.test (NodeTestScores).
template <typename EvaluateTest>
void finish_node_training(const NodeTrainArgs& args, const Logger& log, TrainedNodeModel& trained,
                          TrainingSummary summary, const Split& split, EvaluateTest&& evaluate_test,
                          TestScoring scoring = TestScoring::rank_0) {
  // In a run of several processes rank 0 alone writes the files, and scores the test nodes unless
  // each process holds only its part of them.
  if (distributed::rank() > 0 && scoring == TestScoring::rank_0) return;
  NodeModel& model = trained.model;
  std::optional<NodeTestScores> test;
  if (!split.test.empty()) test = evaluate_test(model);
  if (distributed::rank() > 0) return;
  std::ostringstream test_report;
  if (test) {
    const NodeEvaluation& evaluation = test->evaluation;
    summary.metrics.insert(summary.metrics.end(), {{"test accuracy", evaluation.metrics.accuracy},
                                                   {"test macro_f1", evaluation.metrics.macro_f1},
                                                   {"test loss", evaluation.loss}});
    test_report << '\n';
    print_evaluation(test_report, "test", evaluation, model.config().classes);
    print_probability_scores(test_report, test->probabilities, report_coverage(model));
  }
  model.set_training_summary(std::move(summary));
  model.save(args.out, overwrite_for(args.force));
  log.normal("saved " + args.out);
  if (!args.plot.empty()) {
    write_plot(args.plot, node_curve(trained.result, args.out), args.force);
    log.normal("training curve: " + args.plot);
  }
  std::string report = test_report.str();
  if (report.empty()) return;
  report.pop_back();  // the sink ends the message's last line
  log.normal(report);
}

// --graph's store: the file, or this process's part in a folder of part stores.
GraphStore open_training_store(const std::string& graph) {
  if (!std::filesystem::is_directory(graph)) return GraphStore::open(graph);
  const std::filesystem::path part = part_store_path(graph, distributed::rank());
  if (!std::filesystem::exists(part))
    throw ArgumentError("--graph " + graph + ": a folder of part stores (`edgewise graph partition --stores`) holds " +
                        part.filename().string() + " for process " + std::to_string(distributed::rank()) +
                        "; this one does not");
  return GraphStore::open(part);
}

// What training reads of the whole graph: the store's, or gathered from every process's part.
struct WholeGraph {
  const GraphStore& store;
  Index nodes = 0, edges = 0;
  std::vector<Index> gathered_labels = {};
  std::vector<std::string> gathered_names = {};

  std::span<const Index> labels() const { return store.part() ? gathered_labels : store.labels(); }
  std::string name_of(Index node) const {
    if (!store.part()) return store.node_name(node);
    return store.named_by_id() ? std::to_string(node) : gathered_names[static_cast<std::size_t>(node)];
  }
};

WholeGraph whole_graph(const GraphStore& store, const std::string& name) {
  WholeGraph whole{.store = store, .nodes = store.num_nodes(), .edges = store.num_edges()};
  if (const StorePart* part = store.part()) {
    distributed::check_part_of_run(store);
    whole.nodes = part->whole_nodes;
    whole.edges = part->whole_edges;
    whole.gathered_labels = distributed::whole_labels(store);
    if (!store.named_by_id()) whole.gathered_names = distributed::whole_node_names(store);
  }
  if (whole.labels().empty()) throw ArgumentError(name + ": the store has no labels to train on; build it with --labels");
  return whole;
}

std::string store_description(const GraphStore& store, const std::string& name) {
  const StorePart* part = store.part();
  if (!part) return "graph store " + name;
  return "part stores in " + name + ", this process's part " + std::to_string(part->part) + " of " +
         std::to_string(part->parts) + ": " + std::to_string(part->owned) + " own and " +
         std::to_string(store.num_nodes() - part->owned) + " halo nodes";
}

void train_nodes_on_store(const NodeTrainArgs& args, const CheckpointOptions& checkpoints, const Logger& log) {
  if (!args.files.edges.empty() || !args.files.labels.empty() || !args.files.features.empty())
    throw ArgumentError("--graph reads the edges, labels and features from the store; leave out --edges, "
                        "--labels and --features");
  const GraphStore store = open_training_store(args.graph);
  const WholeGraph whole = whole_graph(store, args.graph);
  log.normal(std::to_string(whole.nodes) + " nodes, " + std::to_string(whole.edges) + " edges, " +
             std::to_string(labeled_nodes(whole.labels()).size()) + " labeled in " +
             std::to_string(store.class_names().size()) + " classes; features [" + std::to_string(whole.nodes) + ", " +
             std::to_string(store.feature_dim()) + "] (" + store_description(store, args.graph) + ")");
  const auto name_of = [&whole](Index node) { return whole.name_of(node); };
  const Split split =
      node_split(args.params.split, whole.labels(), node_lookup(whole.nodes, store.named_by_id(), name_of),
                 args.params.training.seed);
  if (!args.save_split.empty() && distributed::rank() == 0) write_node_split(args.save_split, split, args.force, name_of);
  const std::string sizes = part_sizes(split);
  log.normal("split " + sizes);
  const NodeTrainingSettings settings =
      node_training_settings(args.params.network, args.params.training, args.params.regularization, store, split,
                             args.params.batching);
  TrainedNodeModel trained =
      fit_reporting_divergence(checkpoints, [&] { return train_node_model(store, split, settings, {}, checkpoints); });
  TrainingSummary summary = node_training_summary(trained, whole.nodes, args.graph, args.params.split + ": " + sizes);
  finish_node_training(
      args, log, trained, std::move(summary), split,
      [&](const NodeModel& model) {
        return NodeTestScores{model.evaluate(store, split.test),
                              model.score_probabilities(store, split.test, report_coverage(model))};
      },
      store.part() ? TestScoring::every_process : TestScoring::rank_0);
}

}  // namespace

// With several processes (mpirun), each trains on one part of the graph (train_node_classifier);
// rank 0 alone prints and writes files.
void train_nodes(const NodeTrainArgs& args) {
  check_output_path(args.out, args.force);
  CheckpointOptions checkpoints = checkpoint_options(args.checkpoints, args.out, args.force);
  if (distributed::rank() > 0) checkpoints.every = 0;  // rank 0 writes them; every process may resume from one
  if (!args.plot.empty()) check_plot_path(args.plot, args.out, args.force);
  const Logger log(args.params.training.log);
  if (!args.graph.empty()) return train_nodes_on_store(args, checkpoints, log);
  const NodeGraph data = read_training_graph(args);
  log_graph_summary(log, data);
  const Split split = training_node_split(args, data);
  if (!args.save_split.empty() && distributed::rank() == 0)
    write_node_split(args.save_split, split, args.force, [&](Index node) { return std::string(data.nodes.name(node)); });
  const std::string sizes = part_sizes(split);
  log.normal("split " + sizes);

  const NodeTrainingParams& p = args.params;
  const NodeTrainingSettings settings =
      node_training_settings(p.network, p.training, p.regularization, data, split, p.batching);
  TrainedNodeModel trained =
      fit_reporting_divergence(checkpoints, [&] { return train_node_model(data, split, settings, {}, checkpoints); });
  TrainingSummary summary = node_training_summary(trained, data, files_description(args.files), args.params.split + ": " + sizes);
  finish_node_training(args, log, trained, std::move(summary), split,
                       [&](const NodeModel& model) {
                         return NodeTestScores{model.evaluate(data, split.test),
                                               model.score_probabilities(data, split.test, report_coverage(model))};
                       });
}

// Training only: a model records the walks its features were made with, and predict repeats them.
void add_random_walks_option(CLI::Option_group& group, NodeInputArgs& input) {
  group.add_option_function<std::string>(
      "--random-walks",
      [&input](const std::string& text) {
        if (text == "auto" || text == "exact") {
          input.sampled_walks = text == "auto" ? automatic_walks : 0;
          return;
        }
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), input.sampled_walks);
        if (error != std::errc() || end != text.data() + text.size() || input.sampled_walks < 1)
          throw ArgumentError("--random-walks " + text + ": give auto, exact or a number of walks above 0");
      },
      "Structural features' random-walk return probabilities: exact, or estimated from this many sampled walks a "
      "node (auto: exact up to under a minute's work, three times GitHub's; " +
          std::to_string(default_sampled_walks) + " walks above)")
      ->default_str("auto");
}

void add_graph_reading_options(CLI::Option_group& group, NodeInputArgs& input, bool training) {
  const auto help = [training](const std::string& meaning) {
    return training ? meaning : "As train's; the model records how train read its graph, and this must agree with it";
  };
  group.add_option("--feature-format", input.feature_format,
                   help("sparse: node, then the indices of its features equal to 1, or index:value pairs (default "
                        "with --features, unless its name ends in .json); dense: node, then every value; musae-json: "
                        "{\"node\": [indices], ...} (default for a .json --features file); structural: degree "
                        "one-hot and random-walk return probabilities, computed (default without --features)"))
      ->check(CLI::IsMember({"sparse", "dense", "musae-json", "structural"}));
  CLI::Option* row_normalize =
      group.add_option("--row-normalize", input.row_normalize,
                       help("Divide each node's feature row by the sum of its absolute values; auto: on for sparse "
                            "and musae-json features"))
          ->check(CLI::IsMember({"auto", "on", "off"}));
  CLI::Option* node_ids = group.add_option("--node-ids", input.node_ids,
                                           help("integer: ids are numbers, compared by value (007 is 7); string: ids "
                                                "are any text, as written"))
                              ->check(CLI::IsMember(names_in(kNodeIdsNames)));
  if (training) {
    row_normalize->capture_default_str();
    node_ids->capture_default_str();
    add_random_walks_option(group, input);
  }
  group.add_flag("--directed", input.directed,
                 help("Keep edge directions: a node attends to the sources of its in-edges only (default: each edge "
                      "joins its nodes both ways)"));
  group.add_flag("--no-self-loops", input.no_self_loops,
                 help("Do not add a self-loop to every node (by default a node attends to itself too)"));
}

void add_label_column_options(CLI::Option_group& group, NodeGraphFiles& files) {
  // A column given as digits is an index; anything else names a header field.
  const auto column = [](const std::string& option, const std::string& text) -> FileColumn {
    if (!text.empty() && std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; }))
      return static_cast<Index>(column_index_option(option, text));
    return text;
  };
  group.add_option_function<std::string>(
      "--label-column",
      [&files, column](const std::string& text) { files.label_column = column("--label-column", text); },
      "The labels file's label column: its header name, or its 0-based index (default 1)");
  group.add_option_function<std::string>(
      "--id-column", [&files, column](const std::string& text) { files.label_node_column = column("--id-column", text); },
      "The labels file's node id column: its header name, or its 0-based index (default 0)");
}

CLI::Option_group* add_node_graph_options(CLI::App& command, NodeRunArgs& args, bool labels) {
  NodeGraphFiles& files = args.files;
  CLI::Option_group* group = command.add_option_group("The graph (node classification models)");
  group->add_option("--edges", files.edges,
                    "Edge list of the graph, read as the model's training graph was (node id type, direction, "
                    "self-loops)")
      ->check(CLI::ExistingFile);
  group->add_option("--graph", args.graph,
                    "A graph store (.ewg, from 'edgewise graph build' or 'graph generate') instead of --edges, "
                    "--features and --labels: memory-mapped, and run layer by layer")
      ->check(CLI::ExistingFile);
  if (labels) {
    group->add_option("--labels", files.labels, "Node labels ('node label' a line); unlabeled nodes are not scored")
        ->check(CLI::ExistingFile);
    add_label_column_options(*group, files);
  }
  group->add_option("--features", files.features,
                    "Node features in the model's format (needed unless the model computes structural features)")
      ->check(CLI::ExistingFile);
  add_header_option(*group, files);
  add_graph_reading_options(*group, args.input, false);
  return group;
}

namespace {

// The threshold of the prediction sets of `coverage`, before any work that needs it.
std::optional<double> set_threshold(const NodeModel& model, std::optional<double> coverage) {
  if (!coverage) return std::nullopt;
  return model.set_threshold(*coverage);
}

// For each row: the class of its largest probability, by name, and with a threshold, a tab and the
// names of the row's prediction set joined by '|'.
std::vector<std::string> predicted_classes(const NodeModel& model, const Matrix<float>& probabilities,
                                           std::optional<double> threshold) {
  const std::vector<std::string>& classes = model.config().classes;
  const std::vector<std::vector<Index>> sets = threshold ? prediction_sets(probabilities, *threshold)
                                                         : std::vector<std::vector<Index>>{};
  std::vector<std::string> predicted(static_cast<std::size_t>(probabilities.rows()));
  for (Index node = 0; node < probabilities.rows(); ++node) {
    Index best = 0;
    probabilities.row(node).maxCoeff(&best);
    std::string& text = predicted[static_cast<std::size_t>(node)];
    text = classes[static_cast<std::size_t>(best)];
    if (!threshold) continue;
    std::vector<std::string> names;
    for (const Index k : sets[static_cast<std::size_t>(node)]) names.push_back(classes[static_cast<std::size_t>(k)]);
    text += '\t' + join(names, "|");
  }
  return predicted;
}

std::string prediction_header(const NodeModel& model, std::optional<double> threshold) {
  std::string header = threshold ? "node\tpredicted\tset" : "node\tpredicted";
  for (const std::string& name : model.config().classes) header += '\t' + name;
  return header;
}

std::string embedding_header(const NodeModel& model) {
  std::string header = "node";
  for (Index column = 0; column < model.embedding_dim(); ++column) header += "\th" + std::to_string(column);
  return header;
}

}  // namespace

void predict_nodes(const NodeModel& model, const NodeRunArgs& args) {
  if (!args.out.empty()) check_output_path(args.out, args.force);
  const std::optional<double> threshold = set_threshold(model, args.coverage);
  const std::string header = prediction_header(model, threshold);
  if (!args.graph.empty()) {
    const GraphStore store = open_store_for(model, args);
    const Matrix<float> probabilities = model.predict(store);
    write_output(args.out, store_table(store, header, probabilities, predicted_classes(model, probabilities, threshold)),
                 args.force);
    return;
  }
  const NodeGraph data = read_for(model, args);
  const Matrix<float> probabilities = model.predict(data);
  write_output(args.out, node_table(model, data, header, probabilities, predicted_classes(model, probabilities, threshold)),
               args.force);
}

void embed_nodes(const NodeModel& model, const NodeRunArgs& args) {
  check_output_path(args.out, args.force);
  Index nodes = 0;
  if (!args.graph.empty()) {
    const GraphStore store = open_store_for(model, args);
    write_file_atomically(args.out, store_table(store, embedding_header(model), model.embed(store)),
                          overwrite_for(args.force));
    nodes = store.num_nodes();
  } else {
    const NodeGraph data = read_for(model, args);
    write_file_atomically(args.out, node_table(model, data, embedding_header(model), model.embed(data)),
                          overwrite_for(args.force));
    nodes = data.nodes.size();
  }
  std::cout << "wrote " << nodes << " embeddings of width " << model.embedding_dim() << " to " << args.out << '\n';
}

void eval_nodes(const NodeModel& model, const NodeRunArgs& args) {
  const std::optional<double> coverage = args.coverage ? args.coverage : report_coverage(model);
  if (!args.graph.empty()) {
    const GraphStore store = open_store_for(model, args);
    if (store.labels().empty()) throw ArgumentError(args.graph + ": the store has no labels to evaluate against");
    const std::vector<Index> labeled = labeled_nodes(store.labels());
    print_evaluation(std::cout, "labeled", model.evaluate(store, labeled), model.config().classes);
    print_probability_scores(std::cout, model.score_probabilities(store, labeled, coverage), coverage);
    return;
  }
  if (args.files.labels.empty()) throw ArgumentError("--labels is required for a node classification model");
  const NodeGraph data = read_for(model, args);
  const std::vector<Index> labeled = labeled_nodes(data.labels.classes);
  print_evaluation(std::cout, "labeled", model.evaluate(data, labeled), model.config().classes);
  print_probability_scores(std::cout, model.score_probabilities(data, labeled, coverage), coverage);
}

}  // namespace edgewise::cli
