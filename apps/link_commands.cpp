#include "link_commands.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "edgewise/core/error.hpp"
#include "edgewise/core/names.hpp"
#include "edgewise/distributed/processes.hpp"
#include "edgewise/io/csv.hpp"
#include "edgewise/tasks/link/link_training.hpp"
#include "plot.hpp"

namespace edgewise::cli {
namespace {

NodeLookup lookup_in(const NodeGraph& data) {
  return [&data](std::string_view name) { return data.nodes.find(name).value_or(-1); };
}

NodeNamer namer_of(const NodeGraph& data) {
  return [&data](Index node) { return std::string(data.nodes.name(node)); };
}

void log_links_summary(const Logger& log, const NodeGraph& data, Index links) {
  std::ostringstream out;
  out << data.nodes.size() << " nodes, " << links << " links (undirected, self-loops left out); features ["
      << data.features.rows() << ", " << data.features.cols() << "] (" << feature_format_name(data.input.features.format)
      << (data.input.normalize_rows ? ", rows normalized" : "") << ")" << sampled_walks_text(data.input.features);
  log.normal(out.str());
}

std::string link_part_sizes(const LinkSplit& split) {
  return std::to_string(split.train.size()) + " / " + std::to_string(split.val.size()) + " / " +
         std::to_string(split.test.size()) + " links (train / validation / test)";
}

// The training loss above the validation figure that judged the epochs.
Plot link_curve(const LinkTrainingResult& result, const std::string& out) {
  const std::string title(link_metric_title(result.metric));
  PlotSeries loss{"train loss", {}}, validation{"validation " + title, {}};
  for (const LinkEpochReport& report : result.history) {
    loss.values.push_back(report.train_loss);
    validation.values.push_back(report.val_score);
  }
  return {"Training of " + out,
          {{"binary cross-entropy loss", {std::move(loss)}}, {title, {std::move(validation)}}}};
}

NodeGraph read_for(const LinkModel& model, const NodeRunArgs& args) {
  if (args.files.edges.empty()) throw ArgumentError("--edges is required for a link prediction model");
  check_graph_reading(model.config().input, args.input);
  NodeGraph data = model.read_graph(args.files);
  report_guessed_headers(data.guessed_headers);
  return data;
}

// The graph a link model scores, read from files or a graph store: its nodes' names and embeddings.
struct ScoredGraph {
  std::optional<NodeGraph> files;
  std::optional<GraphStore> store;

  Index nodes() const { return files ? files->nodes.size() : store->num_nodes(); }
  std::string name(Index node) const { return files ? std::string(files->nodes.name(node)) : store->node_name(node); }
  NodeLookup lookup() const {
    if (files) return lookup_in(*files);
    return node_lookup(store->num_nodes(), store->named_by_id(), [this](Index node) { return store->node_name(node); });
  }
  Matrix<float> embeddings(const LinkModel& model) const { return files ? model.embed(*files) : model.embed(*store); }
  std::vector<float> scores(const LinkModel& model, std::span<const NodePair> pairs) const {
    return files ? model.score_pairs(*files, pairs) : model.score_pairs(*store, pairs);
  }
  std::vector<std::vector<ScoredNode>> recommend(const LinkModel& model, std::span<const Index> nodes, Index k) const {
    return files ? model.recommend(*files, nodes, k) : model.recommend(*store, nodes, k);
  }
};

ScoredGraph scored_graph(const LinkModel& model, const NodeRunArgs& args) {
  if (args.graph.empty()) return {read_for(model, args), std::nullopt};
  if (!args.files.edges.empty() || !args.files.features.empty())
    throw ArgumentError("--graph reads the edges and features from the store; leave out --edges and --features");
  return {std::nullopt, GraphStore::open(args.graph)};
}

// The pairs of a CSV file: the first two fields of each record, quoted or not. A first record that
// names no node at all is a header, reported; one that names a single node is a pair with an
// unknown node, an error.
std::vector<NodePair> read_csv_pairs(const std::string& path, const ScoredGraph& graph) {
  CsvOptions options;
  options.has_header = false;
  const CsvTable table = read_csv(path, options);
  if (table.num_rows() > 0 && table.num_columns() < 2)
    throw ParseError(path, table.line_numbers.front(), table.rows.front().front(), "expected two node names a record");
  const NodeLookup lookup = graph.lookup();
  std::vector<NodePair> pairs;
  for (std::size_t row = 0; row < table.num_rows(); ++row) {
    const std::vector<std::string>& fields = table.rows[row];
    const std::string_view a = trimmed(fields[0]), b = trimmed(fields[1]);
    if (row == 0 && lookup(a) < 0 && lookup(b) < 0) {
      std::cerr << "edgewise: note: " << path << ":" << table.line_numbers[row] << " ('" << fields[0] << ","
                << fields[1] << "') read as a header: it names no node of the graph\n";
      continue;
    }
    pairs.push_back(named_pair(a, b, path, table.line_numbers[row], graph.nodes(), lookup));
  }
  return pairs;
}

// The pairs of --pairs: a CSV table for a .csv file, else two names a line separated by blanks.
std::vector<NodePair> read_pairs(const std::string& path, const ScoredGraph& graph) {
  if (std::filesystem::path(path).extension() == ".csv") return read_csv_pairs(path, graph);
  return read_node_pairs(path, graph.nodes(), graph.lookup());
}

// The nodes named on the command line, then those of the file, one a line.
std::vector<Index> listed_nodes(const RecommendArgs& args, const ScoredGraph& graph) {
  const NodeLookup lookup = graph.lookup();
  const std::string source = args.graph.graph.empty() ? args.graph.files.edges.string() : args.graph.graph;
  std::vector<Index> nodes;
  for (const std::string& name : args.nodes) {
    const Index node = lookup(name);
    if (node < 0) throw ArgumentError("--nodes: '" + name + "' is not a node of " + source);
    nodes.push_back(node);
  }
  if (args.nodes_file.empty()) return nodes;
  std::ifstream in(args.nodes_file, std::ios::binary);
  if (!in) throw Error(args.nodes_file + ": cannot open for reading");
  std::string text;
  for (std::size_t line = 1; std::getline(in, text); ++line) {
    const std::string name(trimmed(text));
    if (name.empty()) continue;
    const Index node = lookup(name);
    if (node < 0) throw ParseError(args.nodes_file, line, name, "not a node of " + source);
    nodes.push_back(node);
  }
  return nodes;
}

}  // namespace

NodeGraph read_training_links(const LinkTrainArgs& args) {
  if (args.graph.files.edges.empty()) throw ArgumentError("--edges is required with --task link");
  NodeGraph data = read_node_graph(args.graph.files, input_options(args.graph));
  report_guessed_headers(data.guessed_headers);
  return data;
}

std::vector<std::string> node_only_input_options() {
  return {"--labels", "--label-column", "--id-column", "--mlp"};
}

namespace {

void save_trained(TrainedLinkModel& trained, const LinkTrainArgs& args, Index links, const std::string& data,
                  const std::string& split) {
  const Logger log(args.params.training.log);
  trained.model.set_training_summary(link_training_summary(trained, links, data, split));
  trained.model.save(args.out, overwrite_for(args.force));
  log.normal("saved " + args.out);
  if (!args.plot.empty()) {
    write_plot(args.plot, link_curve(trained.result, args.out), args.force);
    log.normal("training curve: " + args.plot);
  }
}

// The undirected links of a graph that holds each in both directions: its edges from a smaller node.
Index links_of(InEdges edges) {
  Index links = 0;
  for (Index target = 0; target < edges.num_nodes(); ++target)
    for (Index e = edges.offsets[target]; e < edges.offsets[target + 1]; ++e) links += edges.sources[e] < target ? 1 : 0;
  return links;
}

// Training on a graph store's links, on sampled mini-batches.
void train_links_on_store(const LinkTrainArgs& args) {
  if (!args.graph.files.edges.empty() || !args.graph.files.features.empty())
    throw ArgumentError("--graph reads the edges and features from the store; leave out --edges and --features");
  if (!args.save_split.empty())
    throw ArgumentError("--save-split: a graph store's links are split by a hash of each pair and the seed, which the "
                        "same --seed and --split-sizes repeat; there are no split files to write");
  const SplitSpec spec = parse_link_split(args.params.split, parse_split_fractions(args.params.split_sizes));
  if (spec.kind != SplitKind::random)
    throw ArgumentError("--split " + spec.text + ": a graph store's links are split at random (--split-sizes)");
  const Logger log(args.params.training.log);
  const GraphStore store = GraphStore::open(args.graph.graph);
  if (const StorePart* part = store.part())
    throw ArgumentError(args.graph.graph + " holds part " + std::to_string(part->part) + " of a cut graph; " +
                        "link training reads the whole graph's store");
  const Index links = links_of(store.in_edges());
  log.normal(store.path().string() + ": " + std::to_string(store.num_nodes()) + " nodes, " + std::to_string(links) +
             " links; features " + std::to_string(store.feature_dim()) + " wide");
  TrainedLinkModel trained = train_link_model(store, spec.fractions, args.params.model(store), args.params.training,
                                              args.params.sampling);
  save_trained(trained, args, links, "graph store " + args.graph.graph,
               "random by a hash of each pair: " + args.params.split_sizes);
}

}  // namespace

void train_links(const LinkTrainArgs& args) {
  if (distributed::active())
    throw ArgumentError("train --task link runs as one process; start it without mpirun");
  if (args.checkpoints.every > 0 || !args.checkpoints.resume.empty())
    throw ArgumentError("--checkpoint-every and --resume apply to --task molecule and node; link training keeps none");
  check_output_path(args.out, args.force);
  if (!args.plot.empty()) check_plot_path(args.plot, args.out, args.force);
  if (!args.graph.graph.empty()) return train_links_on_store(args);
  if (args.params.sampling != LinkSamplingOptions{})
    throw ArgumentError("--batch-size, --fanout and --links-per-epoch apply to link training on a graph store "
                        "(--graph; `edgewise graph build` writes one)");
  const Logger log(args.params.training.log);
  const NodeGraph data = read_training_links(args);
  const std::vector<NodePair> links = graph_links(data);
  log_links_summary(log, data, static_cast<Index>(links.size()));
  const SplitSpec spec = parse_link_split(args.params.split, parse_split_fractions(args.params.split_sizes));
  const LinkSplit split = make_link_split(spec, data, links, args.params.training.seed);
  if (!args.save_split.empty()) write_link_split(args.save_split, split, args.force, namer_of(data));
  const std::string sizes = link_part_sizes(split);
  log.normal("split " + sizes + ", each of validation and test against as many non-links");
  TrainedLinkModel trained = train_link_model(data, split, args.params.model(data), args.params.training);
  save_trained(trained, args, static_cast<Index>(links.size()), "edges " + args.graph.files.edges.string(),
               describe_link_split(spec) + ": " + sizes);
}

void predict_links(const LinkModel& model, const LinkPredictArgs& args) {
  if (args.pairs.empty()) throw ArgumentError("--pairs is required for a link prediction model: the pairs to score");
  if (!args.graph.out.empty()) check_output_path(args.graph.out, args.graph.force);
  const ScoredGraph graph = scored_graph(model, args.graph);
  const std::vector<NodePair> pairs = read_pairs(args.pairs, graph);
  const std::vector<float> scores = graph.scores(model, pairs);
  std::ostringstream out;
  out << "node_a\tnode_b\tscore\tprobability\n";
  for (std::size_t i = 0; i < pairs.size(); ++i)
    out << graph.name(pairs[i].first) << '\t' << graph.name(pairs[i].second) << '\t'
        << format_value(scores[i]) << '\t' << format_value(1 / (1 + std::exp(-scores[i]))) << '\n';
  write_output(args.graph.out, out.str(), args.graph.force);
}

void embed_links(const LinkModel& model, const NodeRunArgs& args) {
  check_output_path(args.out, args.force);
  const ScoredGraph graph = scored_graph(model, args);
  const Matrix<float> embeddings = graph.embeddings(model);
  std::ostringstream out;
  out << "node";
  for (Index column = 0; column < embeddings.cols(); ++column) out << "\th" << column;
  out << '\n';
  for (Index node = 0; node < embeddings.rows(); ++node) {
    out << graph.name(node);
    for (Index column = 0; column < embeddings.cols(); ++column) out << '\t' << format_value(embeddings(node, column));
    out << '\n';
  }
  write_file_atomically(args.out, out.str(), overwrite_for(args.force));
  std::cout << "wrote " << embeddings.rows() << " embeddings of width " << embeddings.cols() << " to " << args.out
            << '\n';
}

void recommend_links(const LinkModel& model, const RecommendArgs& args) {
  if (args.nodes.empty() && args.nodes_file.empty()) throw ArgumentError("give --nodes or --nodes-file");
  if (!args.graph.out.empty()) check_output_path(args.graph.out, args.graph.force);
  const ScoredGraph graph = scored_graph(model, args.graph);
  const std::vector<Index> nodes = listed_nodes(args, graph);
  const std::vector<std::vector<ScoredNode>> suggestions = graph.recommend(model, nodes, args.k);
  std::ostringstream out;
  out << "node\trank\tsuggested\tscore\n";
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (std::size_t rank = 0; rank < suggestions[i].size(); ++rank)
      out << graph.name(nodes[i]) << '\t' << rank + 1 << '\t' << graph.name(suggestions[i][rank].node)
          << '\t' << format_value(suggestions[i][rank].score) << '\n';
  write_output(args.graph.out, out.str(), args.graph.force);
}

}  // namespace edgewise::cli
