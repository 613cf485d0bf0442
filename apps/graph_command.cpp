// `edgewise graph build|info|generate|partition`: binary graph stores (.ewg). build converts a node
// classification graph's text files (or features in a NumPy .npy file) once, so that later runs map
// the store instead of parsing text; info describes a store; generate writes a synthetic R-MAT graph;
// partition cuts a store's graph into parts as training under mpirun does, and says what each holds.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "edgewise/datasets/rmat.hpp"
#include "edgewise/graph/partition.hpp"
#include "edgewise/io/graph_parts.hpp"
#include "edgewise/io/graph_store.hpp"
#include "edgewise/io/npy.hpp"
#include "node_commands.hpp"

namespace edgewise::cli {
namespace {

namespace fs = std::filesystem;

struct BuildArgs {
  NodeTrainArgs graph;  // the input options train reads; the network and training ones are not registered
  std::string out;
  bool force = false;
  int threads = 0;
};

struct GenerateArgs {
  bool rmat = false;
  RmatOptions rmat_options;
  std::string out;
  bool force = false;
  int threads = 0;
};

struct InfoArgs {
  std::string store;
  int threads = 0;
};

struct PartitionArgs {
  std::string store;
  int parts = 2;
  std::string out;
  std::string stores;
  bool force = false;
  int threads = 0;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string size_text(std::uint64_t bytes) {
  char text[64];
  if (bytes < (1 << 20)) {
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / (1 << 10));
  } else {
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  }
  return text;
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", seconds);
  return text;
}

bool is_npy(const fs::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return extension == ".npy";
}

// A matrix's non-zeros as CSR by row, owned, for a GraphStoreSource to view.
struct SparseCopy {
  std::vector<Index> offsets{0};
  std::vector<std::int32_t> columns;
  std::vector<float> values;

  explicit SparseCopy(const ConstRowsRef<float>& features) {
    for (Index i = 0; i < features.rows(); ++i) {
      for (Index j = 0; j < features.cols(); ++j) {
        if (features(i, j) == 0.0f) continue;
        columns.push_back(static_cast<std::int32_t>(j));
        values.push_back(features(i, j));
      }
      offsets.push_back(static_cast<Index>(columns.size()));
    }
  }
  SparseFeatureRows rows() const { return {offsets, columns, values}; }
};

// Whether CSR (8 bytes a node, 8 a non-zero) is smaller than dense rows (4 bytes a value).
bool smaller_as_csr(const ConstRowsRef<float>& features) {
  const auto nonzeros = static_cast<Index>((features.array() != 0.0f).count());
  return 8 * (features.rows() + 1 + nonzeros) < 4 * features.size();
}

// What a build wrote, for its closing line.
void print_written(const std::string& out, const GraphStoreSource& source, double seconds) {
  const auto& labels = source.labels;
  const auto labelled = std::count_if(labels.begin(), labels.end(), [](Index c) { return c >= 0; });
  std::cout << "wrote " << out << ": " << source.in_edges.num_nodes() << " nodes, " << source.in_edges.num_edges()
            << " edges, features [" << source.in_edges.num_nodes() << ", " << source.feature_dim << "] "
            << (source.sparse_rows ? "sparse" : "dense") << ", " << labelled << " labelled nodes in "
            << source.class_names.size() << " classes; " << size_text(fs::file_size(out)) << " in "
            << seconds_text(seconds) << sampled_walks_text(source.input.features) << '\n';
}

// Text files: read as train reads them, then written; sparse features (bags of words) as CSR.
void build_from_text(const BuildArgs& args, std::chrono::steady_clock::time_point start) {
  const NodeGraph data = read_node_graph(args.graph.files, input_options(args.graph));
  report_guessed_headers(data.guessed_headers);
  GraphStoreSource source = graph_store_source(data);
  std::optional<SparseCopy> sparse;
  if (smaller_as_csr(data.features)) {
    sparse.emplace(data.features);
    source.dense_rows = {};
    source.sparse_rows = sparse->rows();
  }
  write_graph_store(args.out, source, overwrite_for(args.force));
  print_written(args.out, source, seconds_since(start));
}

// train's options, with the features dense as a .npy file holds them.
NodeInputOptions npy_input_options(const BuildArgs& args, const NpyMatrix& features) {
  NodeTrainArgs graph = args.graph;
  if (!graph.input.feature_format.empty() && graph.input.feature_format != "dense")
    throw ArgumentError("--feature-format " + graph.input.feature_format + ": " + features.path().string() +
                        " is a .npy file, which holds dense features");
  graph.input.feature_format = "dense";
  NodeInputOptions input = input_options(graph);
  input.features = {.format = FeatureFormat::dense, .dim = features.cols()};
  return input;
}

// The .npy row of each node. Integer ids: row i holds node i's features, so every row names a node
// (nodes missing from the edge list and the labels are added, without edges), and a node whose id is
// not a row is an error. String ids: the rows follow the node numbering (the edge list's nodes in
// order of first appearance, then the labels' new ones), so there must be exactly one row per node.
std::vector<Index> npy_rows(const NpyMatrix& features, NodeIds ids, NodeIndex& nodes) {
  const std::string file = features.path().string();
  if (ids == NodeIds::string) {
    if (features.rows() != nodes.size())
      throw ArgumentError(file + ": " + std::to_string(features.rows()) + " rows for " + std::to_string(nodes.size()) +
                          " nodes; with --node-ids string, row i holds the features of the i-th node in order of first "
                          "appearance in the edge list, then the labels");
    std::vector<Index> rows(static_cast<std::size_t>(nodes.size()));
    for (Index i = 0; i < nodes.size(); ++i) rows[static_cast<std::size_t>(i)] = i;
    return rows;
  }
  for (Index row = 0; row < features.rows(); ++row) nodes.add(std::to_string(row));
  std::vector<Index> rows(static_cast<std::size_t>(nodes.size()));
  for (Index i = 0; i < nodes.size(); ++i) {
    const std::string_view name = nodes.name(i);
    std::uint64_t id = 0;
    std::from_chars(name.data(), name.data() + name.size(), id);
    if (id >= static_cast<std::uint64_t>(features.rows()))
      throw ArgumentError(file + ": node " + std::string(name) + " has no row (the file has " +
                          std::to_string(features.rows()) + "; row i holds the features of node i)");
    rows[static_cast<std::size_t>(i)] = static_cast<Index>(id);
  }
  return rows;
}

// Rows of `features` in the order `rows` gives, copied a run of consecutive rows at a time.
void copy_npy_rows(const NpyMatrix& features, std::span<const Index> rows, bool normalize, float* out) {
  const Index dim = features.cols();
  for (std::size_t begin = 0, end = 0; begin < rows.size(); begin = end) {
    for (end = begin + 1; end < rows.size() && rows[end] == rows[end - 1] + 1;) ++end;
    features.copy_rows(rows[begin], static_cast<Index>(end - begin), out + static_cast<Index>(begin) * dim);
  }
  if (!normalize) return;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    float* row = out + static_cast<Index>(i) * dim;
    float norm = 0;
    for (Index j = 0; j < dim; ++j) norm += std::abs(row[j]);
    if (norm > 0)
      for (Index j = 0; j < dim; ++j) row[j] /= norm;
  }
}

// The edge list and labels read as read_node_graph reads them; features streamed from the .npy file.
void build_from_npy(const BuildArgs& args, std::chrono::steady_clock::time_point start) {
  const NodeGraphFiles& files = args.graph.files;
  const NpyMatrix features = NpyMatrix::open(files.features);
  const NodeInputOptions input = npy_input_options(args, features);
  auto [edges, edge_list_nodes, labels, guessed_headers] = read_node_tables(files, input);
  report_guessed_headers(guessed_headers);
  const auto edge_list_edges = static_cast<Index>(edges.edges.size());
  const std::vector<Index> rows = npy_rows(features, input.ids, edges.nodes);
  Graph graph = edges.take_graph({.add_self_loops = input.add_self_loops});
  const Index n = edges.nodes.size();
  if (input.self_loops_only) graph = Graph::from_pairs(n, {}, {.add_self_loops = true});
  labels.extend_to(n);

  GraphStoreSource source{.in_edges = graph.in_edges(), .feature_dim = features.cols()};
  source.dense_rows = [&](Index first, Index count, float* out) {
    copy_npy_rows(features, std::span(rows).subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(count)),
                  input.normalize_rows, out);
  };
  if (labels.num_classes() > 0) source.labels = labels.classes;
  source.class_names = labels.class_names;
  source.node_names = &edges.nodes;
  source.input = input;
  source.edge_list_nodes = edge_list_nodes;
  source.edge_list_edges = edge_list_edges;
  write_graph_store(args.out, source, overwrite_for(args.force));
  print_written(args.out, source, seconds_since(start));
}

void build(const BuildArgs& args) {
  apply_threads(args.threads);
  if (args.graph.files.edges.empty()) throw ArgumentError("--edges is required");
  check_output_path(args.out, args.force);
  const auto start = std::chrono::steady_clock::now();
  if (is_npy(args.graph.files.features)) {
    build_from_npy(args, start);
  } else {
    build_from_text(args, start);
  }
}

void generate(const GenerateArgs& args) {
  apply_threads(args.threads);
  if (!args.rmat) throw ArgumentError("choose a generator: --rmat");
  check_output_path(args.out, args.force);
  auto start = std::chrono::steady_clock::now();
  const RmatGraph graph(args.rmat_options);
  const Index n = graph.num_nodes();
  std::cout << "generated an R-MAT graph of scale " << args.rmat_options.scale << ": " << n << " nodes, "
            << graph.in_edges().num_edges() << " edges in " << seconds_text(seconds_since(start)) << '\n';
  start = std::chrono::steady_clock::now();
  std::vector<Index> labels(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) labels[static_cast<std::size_t>(i)] = graph.label(i);
  GraphStoreSource source{.in_edges = graph.in_edges(), .feature_dim = args.rmat_options.feature_dim};
  source.dense_rows = [&graph](Index first, Index count, float* out) { graph.features(first, count, out); };
  source.labels = labels;
  for (Index c = 0; c < args.rmat_options.classes; ++c) source.class_names.push_back(std::to_string(c));
  source.input.features = {.format = FeatureFormat::dense, .dim = args.rmat_options.feature_dim};
  write_graph_store(args.out, source, overwrite_for(args.force));
  const std::uint64_t bytes = fs::file_size(args.out);
  std::cout << "wrote " << args.out << ": " << size_text(bytes) << " in " << seconds_text(seconds_since(start)) << '\n';
}

std::string classes_text(const std::vector<std::string>& classes) {
  constexpr std::size_t kListed = 20;
  std::string text = std::to_string(classes.size());
  for (std::size_t c = 0; c < std::min(classes.size(), kListed); ++c) text += (c == 0 ? ": " : ", ") + classes[c];
  if (classes.size() > kListed) text += ", ...";
  return text;
}

std::string features_text(const GraphStore& store) {
  std::string text = std::to_string(store.feature_dim()) + " wide, ";
  if (const auto sparse = store.sparse_features())
    return text + "sparse, " + std::to_string(sparse->values.size()) + " non-zeros";
  return text + "dense";
}

void info(const InfoArgs& args) {
  apply_threads(args.threads);
  const auto start = std::chrono::steady_clock::now();
  const GraphStore store = GraphStore::open(args.store);  // checks the header and every checksum
  const double seconds = seconds_since(start);
  const auto& labels = store.labels();
  std::ostringstream out;
  out << args.store << ": graph store\n";
  field(out, "format version", std::to_string(store.format_version()));
  field(out, "file size", std::to_string(store.file_size()) + " bytes (" + size_text(store.file_size()) + ")");
  field(out, "nodes", std::to_string(store.num_nodes()));
  field(out, "edges", std::to_string(store.num_edges()));
  field(out, "features", features_text(store));
  field(out, "classes", classes_text(store.class_names()));
  field(out, "labelled nodes",
        std::to_string(std::count_if(labels.begin(), labels.end(), [](Index c) { return c >= 0; })));
  field(out, "node names", store.named_by_id() ? "their ids, 0 .. N-1" : "stored");
  field(out, "edge list",
        std::to_string(store.edge_list_nodes()) + " nodes, " + std::to_string(store.edge_list_edges()) + " edges");
  field(out, "fingerprint", store.fingerprint());
  if (const StorePart* part = store.part())
    field(out, "part", std::to_string(part->part) + " of " + std::to_string(part->parts) + ": " +
                           std::to_string(part->owned) + " own nodes, then " +
                           std::to_string(store.num_nodes() - part->owned) + " halo nodes of a graph of " +
                           std::to_string(part->whole_nodes) + " nodes and " + std::to_string(part->whole_edges) +
                           " edges (fingerprint " + part->whole_fingerprint + ")");
  field(out, "opened in", seconds_text(seconds) + " (checksums verified)");
  out << "input\n";
  fields(out, store.input());
  std::cout << out.str();
}

// One line a part: its nodes, the in-edges it computes attention over, and its halo.
std::string part_table(const InEdges& graph, std::span<const std::int32_t> owner, int parts) {
  std::ostringstream out;
  out << "part      nodes   in-edges       halo\n";
  const std::vector<PartSizes> sizes = part_sizes(graph, owner, parts);
  for (int p = 0; p < parts; ++p) {
    const PartSizes& part = sizes[static_cast<std::size_t>(p)];
    char line[80];
    std::snprintf(line, sizeof line, "%4d %10lld %10lld %10lld\n", p, static_cast<long long>(part.nodes),
                  static_cast<long long>(part.in_edges), static_cast<long long>(part.halo));
    out << line;
  }
  return out.str();
}

void partition(const PartitionArgs& args) {
  apply_threads(args.threads);
  const GraphStore store = GraphStore::open(args.store);
  if (store.part()) throw ArgumentError(args.store + " is already a part of a cut graph; cut the whole graph's store");
  if (!args.stores.empty()) fs::create_directories(args.stores);
  const std::string map_path =
      args.out.empty() && !args.stores.empty() ? (fs::path(args.stores) / "parts.tsv").string() : args.out;
  if (!map_path.empty()) check_output_path(map_path, args.force);
  for (int p = 0; !args.stores.empty() && p < args.parts; ++p)
    check_output_path(part_store_path(args.stores, p).string(), args.force);
  const InEdges graph = store.in_edges();
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::int32_t> owner = partition_graph(graph, args.parts);
  std::cout << args.store << ": " << graph.num_nodes() << " nodes cut into " << args.parts << " parts by METIS in "
            << seconds_text(seconds_since(start)) << "; " << cut_edges(graph, owner) << " of " << graph.num_edges()
            << " edges cross parts\n"
            << part_table(graph, owner, args.parts);
  if (!args.stores.empty()) {
    write_part_stores(store, owner, args.parts, args.stores, overwrite_for(args.force));
    std::cout << "wrote " << part_store_path(args.stores, 0).string() << " .. "
              << part_store_path(args.stores, args.parts - 1).filename().string() << "\n";
  }
  if (map_path.empty()) return;
  std::string map = "node\tpart\n";
  for (Index node = 0; node < graph.num_nodes(); ++node)
    map += store.node_name(node) + '\t' + std::to_string(owner[static_cast<std::size_t>(node)]) + '\n';
  write_file_atomically(map_path, map, overwrite_for(args.force));
  std::cout << "wrote " << map_path << '\n';
}

void add_build(CLI::App& graph) {
  auto args = std::make_shared<BuildArgs>();
  CLI::App* command = graph.add_subcommand(
      "build", "Convert a node classification graph's files to a graph store, read as 'train --task node' reads them");
  CLI::Option_group* group = command->add_option_group("The graph, as 'train --task node' reads it");
  add_node_input_options(group, args->graph);
  group->get_option("--labels")->description("Node labels, 'node label' a line or a CSV such as id,target (optional)");
  group->get_option("--features")
      ->description(
          "Node features in --feature-format, or a NumPy .npy file of float32 (or float64) [nodes, features]: "
          "row i holds node i with --node-ids integer, the i-th node of the edge list (then the labels) with "
          "--node-ids string. Features are stored as CSR where that is smaller than dense rows");
  command->add_option("--out", args->out, "Graph store to write (.ewg)")->required();
  command->add_flag("--force", args->force, "Replace an existing output file");
  add_threads_option(*command, args->threads);
  command->callback([args] { build(*args); });
}

void add_generate(CLI::App& graph) {
  auto args = std::make_shared<GenerateArgs>();
  RmatOptions& rmat = args->rmat_options;
  CLI::App* command = graph.add_subcommand("generate", "Write a synthetic graph with planted classes to a graph store");
  command
      ->add_flag("--rmat", args->rmat,
                 "An R-MAT (Graph500 Kronecker) graph: power-law degrees, labels from the node id's top bits, "
                 "features around a mean per class")
      ->required();
  command->add_option("--scale", rmat.scale, "2^scale nodes")->required()->check(CLI::Range(1, 30));
  command->add_option("--edge-factor", rmat.edge_factor, "Edges drawn per node")
      ->capture_default_str()
      ->check(at_least(1, "POSITIVE"));
  command->add_option("--classes", rmat.classes, "Classes, a power of two")
      ->capture_default_str()
      ->check(at_least(1, "POSITIVE"));
  command->add_option("--features", rmat.feature_dim, "Width of the node features")
      ->capture_default_str()
      ->check(at_least(0, "COUNT"));
  command->add_option("--seed", rmat.seed, "Seed of the edges, class means and feature noise")->capture_default_str();
  command->add_option("--out", args->out, "Graph store to write (.ewg)")->required();
  command->add_flag("--force", args->force, "Replace an existing output file");
  add_threads_option(*command, args->threads);
  command->callback([args] { generate(*args); });
}

void add_info(CLI::App& graph) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* command = graph.add_subcommand("info", "Describe a graph store, after verifying its checksums");
  command->add_option("store", args->store, "Graph store (.ewg)")->required()->check(CLI::ExistingFile);
  add_threads_option(*command, args->threads);
  command->callback([args] { info(*args); });
}

void add_partition(CLI::App& graph) {
  auto args = std::make_shared<PartitionArgs>();
  CLI::App* command = graph.add_subcommand(
      "partition", "Cut a graph store's graph into parts with METIS, as 'train --task node' under mpirun does with "
                   "one part a process, and print each part's nodes, in-edges and halo (remote in-neighbours)");
  command->add_option("store", args->store, "Graph store (.ewg)")->required()->check(CLI::ExistingFile);
  command->add_option("--parts", args->parts, "Number of parts")->capture_default_str()->check(at_least(1, "POSITIVE"));
  command->add_option("--out", args->out,
                      "Write the part of every node here, 'node<TAB>part' a line (optional; with --stores, "
                      "FOLDER/parts.tsv unless given)");
  command->add_option("--stores", args->stores,
                      "Write one graph store a part into this folder, part-K.ewg: the part's own nodes with their "
                      "in-edges, and the features of its halo; 'mpirun -np PARTS edgewise train --task node --graph "
                      "FOLDER' trains on them, each process mapping only its part");
  command->add_flag("--force", args->force, "Replace existing output files");
  add_threads_option(*command, args->threads);
  command->callback([args] { partition(*args); });
}

}  // namespace

void add_graph_command(CLI::App& app) {
  CLI::App* graph =
      app.add_subcommand("graph", "Binary graph stores (.ewg): build one from files, describe one, generate one, cut one into parts");
  graph->require_subcommand(1);
  add_build(*graph);
  add_info(*graph);
  add_generate(*graph);
  add_partition(*graph);
}

}  // namespace edgewise::cli
