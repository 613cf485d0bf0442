// build/bench/workloads: timings and memory of edgewise's kernels, each printed as one JSON line.
// `workloads attention`: forward and forward+backward timings of one GraphAttention layer on the
// uniform random workload of shared/peers/README.md.
// `workloads gather`: the same workload's least work per edge, a sum of source rows, whose growth
// with E shows how much of the layer's growth the memory system alone causes.
// `workloads triad`: a STREAM-like triad giving the memory bandwidth the machine reaches.
// `workloads edge-list`: the time and peak memory of reading an edge list into a graph, next to
// the size of the graph's arrays.
// `workloads sampling`: neighbour sampling alone, in sampled edges a second.
// `workloads rmat-text`: an R-MAT graph as a bare edge list and labels, a featureless graph as users
// bring one, for `edgewise graph build`.
#include <algorithm>
#include <span>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "edgewise/attention/graph_attention.hpp"
#include "edgewise/attention/kernels.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/memory.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/core/products.hpp"
#include "edgewise/datasets/rmat.hpp"
#include "edgewise/datasets/uniform.hpp"
#include "edgewise/graph/sampling.hpp"
#include "edgewise/io/edge_list.hpp"
#include "edgewise/io/graph_store.hpp"

namespace {

using namespace edgewise;

using Clock = std::chrono::steady_clock;

const CLI::Range kPositive(Index{1}, std::numeric_limits<Index>::max(), "POSITIVE");
const CLI::Range kNonNegative(Index{0}, std::numeric_limits<Index>::max(), "NONNEGATIVE");

// The uniform random workload's size, and how a timing on it runs.
struct WorkloadOptions {
  Index nodes = 100'000;
  Index edges = 1'600'000;
  int threads = 2;
  int warmup = 2;
  int runs = 5;
};

struct AttentionBenchOptions : WorkloadOptions {
  Index in_dim = 64;
  Index heads = 4;
  Index head_dim = 16;
  Index out_dim = 64;
  std::string score = "scaled_dot";
  std::string precision = "float32";
};

struct GatherOptions : WorkloadOptions {
  Index width = 64;
};

struct TriadOptions {
  Index array_mib = 64;
  int threads = 2;
  int runs = 5;
};

double elapsed_ms(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

// Milliseconds of each of `runs` calls of body, after `warmup` untimed calls.
template <typename Body>
std::vector<double> time_runs(int warmup, int runs, Body&& body) {
  for (int r = 0; r < warmup; ++r) body();
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const Clock::time_point start = Clock::now();
    body();
    ms.push_back(elapsed_ms(start));
  }
  return ms;
}

GraphAttentionOptions layer_options(const AttentionBenchOptions& options) {
  GraphAttentionOptions layer;
  layer.in_dim = options.in_dim;
  layer.heads = options.heads;
  layer.head_dim = options.head_dim;
  layer.out_dim = options.out_dim;
  layer.score = parse_score_function(options.score);
  return layer;
}

void run_attention_bench(const AttentionBenchOptions& options) {
  set_num_threads(options.threads);
  set_precision(parse_precision(options.precision));
  const Clock::time_point setup_start = Clock::now();
  const UniformWorkload workload = uniform_random_workload(options.nodes, options.edges, options.in_dim);
  const double setup_ms = elapsed_ms(setup_start);

  Parameters<float> params;
  GraphAttention<float> layer(params, "attention", layer_options(options));
  SplitMix64 rng(3);
  layer.reset_parameters(rng);
  const Matrix<float> dy = Matrix<float>::Ones(options.nodes, layer.out_dim());

  const auto forward = [&] { layer.forward(workload.graph, workload.features, nullptr); };
  const auto forward_backward = [&] {
    forward();
    layer.backward(dy);
  };
  const std::vector<double> fwd_ms = time_runs(options.warmup, options.runs, forward);
  const std::vector<double> fwd_bwd_ms = time_runs(options.warmup, options.runs, forward_backward);

  const double fwd_bwd_median = median(fwd_bwd_ms);
  const nlohmann::json result = {
      {"benchmark", "attention"},
      {"nodes", options.nodes},
      {"edges", options.edges},
      {"in_dim", options.in_dim},
      {"heads", options.heads},
      {"head_dim", options.head_dim},
      {"out_dim", layer.out_dim()},
      {"score", options.score},
      {"precision", precision_name(precision())},
      {"threads", num_threads()},
      {"warmup", options.warmup},
      {"runs", options.runs},
      {"setup_ms", setup_ms},
      {"fwd_ms", fwd_ms},
      {"fwd_bwd_ms", fwd_bwd_ms},
      {"fwd_ms_median", median(fwd_ms)},
      {"fwd_bwd_ms_median", fwd_bwd_median},
      {"edges_per_s", static_cast<double>(options.edges) / (fwd_bwd_median / 1e3)},
      {"peak_rss_mb", peak_rss_mb()},
      {"edges_sha256", edges_sha256(workload.sources, workload.targets)},
  };
  std::cout << result.dump() << std::endl;
}

// out_i = sum over the in-edges j -> i of x_j, with x the workload's [N, width] features: the
// attention layer's gathers without its arithmetic. Edges are read by destination, as the layer reads
// them, through the library's aggregation kernel with every weight 1.
void run_gather_bench(const GatherOptions& options) {
  set_num_threads(options.threads);
  const UniformWorkload workload = uniform_random_workload(options.nodes, options.edges, options.width);
  const std::vector<float> ones(static_cast<std::size_t>(workload.graph.num_edges()), 1.0f);
  Matrix<float> out(options.nodes, options.width);
  const auto gather = [&] {
    aggregate_forward(rows_of(out), workload.graph, ones.data(), read_rows(workload.features), 1, options.width);
  };
  const std::vector<double> ms = time_runs(options.warmup, options.runs, gather);
  const nlohmann::json result = {
      {"benchmark", "gather"},         {"nodes", options.nodes},       {"edges", options.edges},
      {"width", options.width},        {"threads", num_threads()},     {"warmup", options.warmup},
      {"runs", options.runs},          {"ms", ms},                     {"ms_median", median(ms)},
      {"peak_rss_mb", peak_rss_mb()},  {"edges_sha256", edges_sha256(workload.sources, workload.targets)},
  };
  std::cout << result.dump() << std::endl;
}

// a = b + s * c over one contiguous range per thread; returns the milliseconds taken.
double triad_pass(std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& c, double s) {
  const auto n = static_cast<Index>(a.size());
  const Clock::time_point start = Clock::now();
#pragma omp parallel for schedule(static) num_threads(num_threads())
  for (Index i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
  return elapsed_ms(start);
}

void run_triad(const TriadOptions& options) {
  set_num_threads(options.threads);
  const auto n = static_cast<std::size_t>(options.array_mib) * (1 << 20) / sizeof(double);
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  constexpr double s = 3.0;
  triad_pass(a, b, c, s);  // untimed warm-up: starts the threads and brings the pages in
  std::vector<double> ms;
  for (int r = 0; r < options.runs; ++r) ms.push_back(triad_pass(a, b, c, s));
  if (a[n / 2] != 7.0) throw Error("triad: wrong result " + std::to_string(a[n / 2]));

  // STREAM's convention: 3 arrays moved per pass (read b, read c, write a); write-allocate
  // traffic is not counted.
  const double bytes = 3.0 * static_cast<double>(n * sizeof(double));
  const double best_ms = *std::min_element(ms.begin(), ms.end());
  const nlohmann::json result = {
      {"benchmark", "triad"}, {"array_mib", options.array_mib}, {"threads", num_threads()},
      {"runs", options.runs}, {"best_ms", best_ms},           {"gb_per_s", bytes / (best_ms / 1e3) / 1e9},
  };
  std::cout << result.dump() << std::endl;
}

// The options of every timing on the uniform random workload: its size, the threads and the runs.
void add_workload_options(CLI::App& command, WorkloadOptions& options) {
  command.add_option("--nodes", options.nodes, "Number of nodes N")->capture_default_str()->check(kPositive);
  command.add_option("--edges", options.edges, "Number of edges E, drawn uniformly with replacement")
      ->capture_default_str()
      ->check(kNonNegative);
  command.add_option("--threads", options.threads, "Threads for every parallel loop")
      ->capture_default_str()
      ->check(kPositive);
  command.add_option("--warmup", options.warmup, "Untimed runs before each timing")
      ->capture_default_str()
      ->check(kNonNegative);
  command.add_option("--runs", options.runs, "Timed runs; the medians are reported")
      ->capture_default_str()
      ->check(kPositive);
}

void add_attention_command(CLI::App& app) {
  auto options = std::make_shared<AttentionBenchOptions>();
  CLI::App* command = app.add_subcommand(
      "attention",
      "Time one GraphAttention<float> layer (heads concatenated, output projection) on the uniform random "
      "workload: forward, then forward+backward with dy = 1 (including dx). Prints one JSON line with "
      "medians in ms, edges/s of forward+backward, the peak resident set in MB and the edges' sha256.");
  add_workload_options(*command, *options);
  command->add_option("--in", options->in_dim, "Input feature width F")->capture_default_str()->check(kPositive);
  command->add_option("--heads", options->heads, "Attention heads H")->capture_default_str()->check(kPositive);
  command->add_option("--head-dim", options->head_dim, "Width d of each head")
      ->capture_default_str()
      ->check(kPositive);
  command->add_option("--out", options->out_dim, "Width of the output projection")
      ->capture_default_str()
      ->check(kPositive);
  command->add_option("--score", options->score, "Score function")
      ->capture_default_str()
      ->check(CLI::IsMember(score_function_names()));
  command->add_option("--precision", options->precision, "Arithmetic of the matrix products")
      ->capture_default_str()
      ->check(CLI::IsMember({"float32", "bf16"}));
  command->callback([options] { run_attention_bench(*options); });
}

void add_gather_command(CLI::App& app) {
  auto options = std::make_shared<GatherOptions>();
  CLI::App* command = app.add_subcommand(
      "gather",
      "Time the least work an edgewise layer does per edge on the uniform random workload: each node sums "
      "its in-neighbours' rows of the [N, width] features. Prints one JSON line with the median in ms.");
  add_workload_options(*command, *options);
  command->add_option("--width", options->width, "Floats per gathered row")
      ->capture_default_str()
      ->check(kPositive);
  command->callback([options] { run_gather_bench(*options); });
}

void add_triad_command(CLI::App& app) {
  auto options = std::make_shared<TriadOptions>();
  CLI::App* command = app.add_subcommand(
      "triad",
      "STREAM-like triad a[i] = b[i] + s*c[i] over three arrays of doubles. Prints one JSON line with the "
      "best pass's bandwidth in GB/s (10^9 bytes/s, counting 3 arrays moved per pass).");
  command->add_option("--array-mib", options->array_mib, "Size of each array in MiB")
      ->capture_default_str()
      ->check(kPositive);
  command->add_option("--threads", options->threads, "Threads")->capture_default_str()->check(kPositive);
  command->add_option("--runs", options->runs, "Timed passes; the best is reported")
      ->capture_default_str()
      ->check(kPositive);
  command->callback([options] { run_triad(*options); });
}

// The bytes of the graph's arrays: CSR by destination (offsets, sources, edge positions) and its
// transpose by source (offsets, targets, positions).
std::uint64_t graph_bytes(const Graph& graph) {
  const auto edges = static_cast<std::uint64_t>(graph.num_edges());
  const auto offsets = static_cast<std::uint64_t>(graph.num_nodes() + 1) * sizeof(Index);
  return 2 * offsets + 4 * edges * sizeof(NodeId);
}

// The CSR by destination alone: offsets, sources and edge positions.
std::uint64_t csr_bytes(const Graph& graph) {
  return static_cast<std::uint64_t>(graph.num_nodes() + 1) * sizeof(Index) +
         2 * static_cast<std::uint64_t>(graph.num_edges()) * sizeof(NodeId);
}

void run_edge_list_bench(const std::string& path) {
  const double baseline_mb = peak_rss_mb();
  const auto start = Clock::now();
  EdgeList list = read_edge_list(path);
  const double read_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const double read_peak_mb = peak_rss_mb();
  const auto list_bytes = static_cast<std::uint64_t>(list.edges.size()) * sizeof(list.edges.front());
  const auto file_edges = list.edges.size();
  const Graph graph = list.take_graph();
  const double total_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  nlohmann::json row = {{"bench", "edge_list"},
                        {"file", path},
                        {"file_mb", static_cast<double>(std::filesystem::file_size(path)) / 1e6},
                        {"nodes", graph.num_nodes()},
                        {"file_edges", file_edges},
                        {"graph_edges", graph.num_edges()},
                        {"edge_list_mb", static_cast<double>(list_bytes) / 1e6},
                        {"csr_mb", static_cast<double>(csr_bytes(graph)) / 1e6},
                        {"graph_mb", static_cast<double>(graph_bytes(graph)) / 1e6},
                        {"baseline_rss_mb", baseline_mb},
                        {"peak_rss_after_read_mb", read_peak_mb},
                        {"peak_rss_mb", peak_rss_mb()},
                        {"read_seconds", read_seconds},
                        {"read_and_build_seconds", total_seconds}};
  std::cout << row.dump() << std::endl;
}

void add_edge_list_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "edge-list",
      "Reads an edge list (integer ids, undirected) and builds its graph with self-loops. Prints one JSON line: "
      "sizes, seconds, the process's peak RSS before, after reading and after building (MB, 10^6 bytes), and the "
      "bytes of the CSR and of all the graph's arrays.");
  command->add_option("--edges", *path, "Edge list file")->required()->check(CLI::ExistingFile);
  command->callback([path] { run_edge_list_bench(*path); });
}

struct SamplingBenchOptions {
  std::string graph;
  Index batch_size = 1024;
  std::vector<Index> fanouts = {15, 10};
  Index batches = 200;
};

// Samples batches of random seeds from a store on this one thread, as the trainer's sampling thread
// does, and reports sampled edges a second: the edges of every batch's blocks, self-loops included.
void run_sampling_bench(const SamplingBenchOptions& options) {
  const GraphStore store = GraphStore::open(options.graph);
  NeighborSampler sampler(store.in_edges(), options.fanouts, store.input().add_self_loops);
  SplitMix64 rng(0);
  std::vector<NodeId> nodes(static_cast<std::size_t>(store.num_nodes()));
  for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i] = static_cast<NodeId>(i);
  SampledBlocks batch;
  Index edges = 0, sampled_nodes = 0;
  double seconds = 0;
  for (Index b = 0; b < options.batches; ++b) {
    // Distinct random seeds: the first batch_size of a partial shuffle.
    const auto seeds = std::min<Index>(options.batch_size, store.num_nodes());
    for (Index i = 0; i < seeds; ++i) std::swap(nodes[i], nodes[i + rng.below(nodes.size() - i)]);
    const Clock::time_point start = Clock::now();
    sampler.sample(std::span(nodes).first(static_cast<std::size_t>(seeds)), rng.next(), batch);
    seconds += elapsed_ms(start) / 1000;
    edges += batch.num_edges();
    sampled_nodes += static_cast<Index>(batch.nodes.size());
  }
  const nlohmann::json row = {{"benchmark", "sampling"},
                              {"graph", options.graph},
                              {"nodes", store.num_nodes()},
                              {"edges", store.num_edges()},
                              {"batch_size", options.batch_size},
                              {"fanouts", options.fanouts},
                              {"batches", options.batches},
                              {"seconds", seconds},
                              {"ms_per_batch", 1000 * seconds / static_cast<double>(options.batches)},
                              {"sampled_edges_per_batch", edges / options.batches},
                              {"sampled_nodes_per_batch", sampled_nodes / options.batches},
                              {"sampled_edges_per_second", static_cast<double>(edges) / seconds}};
  std::cout << row.dump() << std::endl;
}

void add_sampling_command(CLI::App& app) {
  auto options = std::make_shared<SamplingBenchOptions>();
  CLI::App* command = app.add_subcommand(
      "sampling",
      "Time neighbour sampling alone on one thread: batches of random seed nodes of a graph store, sampled as "
      "sampled training samples them. Prints one JSON line with the sampled edges a second.");
  command->add_option("--graph", options->graph, "Graph store (.ewg)")->required()->check(CLI::ExistingFile);
  command->add_option("--batch-size", options->batch_size, "Seed nodes a batch")
      ->capture_default_str()
      ->check(kPositive);
  command->add_option("--fanout", options->fanouts, "Neighbours drawn a node, one number a hop, seeds first")
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("--batches", options->batches, "Batches to time")->capture_default_str()->check(kPositive);
  command->callback([options] { run_sampling_bench(*options); });
}

struct RmatTextOptions {
  RmatOptions rmat = {.feature_dim = 0};
  std::string out;
};

// Each undirected edge once ("smaller larger", self-loops left out) and each node's planted class.
void write_rmat_text(const RmatTextOptions& options) {
  const RmatGraph graph(options.rmat);
  std::filesystem::create_directories(options.out);
  std::ofstream edges(std::filesystem::path(options.out) / "edges.txt");
  std::ofstream labels(std::filesystem::path(options.out) / "labels.txt");
  const InEdges in = graph.in_edges();
  Index written = 0;
  for (Index i = 0; i < graph.num_nodes(); ++i) {
    for (Index e = in.offsets[i]; e < in.offsets[i + 1] && in.sources[e] < i; ++e, ++written)
      edges << in.sources[e] << ' ' << i << '\n';
    labels << i << ' ' << graph.label(i) << '\n';
  }
  if (!edges.flush() || !labels.flush()) throw Error(options.out + ": could not write the edge list and labels");
  std::cout << nlohmann::json{{"benchmark", "rmat_text"},
                              {"out", options.out},
                              {"nodes", graph.num_nodes()},
                              {"edges", written}}
                   .dump()
            << std::endl;
}

void add_rmat_text_command(CLI::App& app) {
  auto options = std::make_shared<RmatTextOptions>();
  CLI::App* command = app.add_subcommand(
      "rmat-text",
      "Write an R-MAT graph without features as OUT/edges.txt (each undirected edge once) and OUT/labels.txt (each "
      "node's planted class), the files `edgewise graph build` reads. Prints one JSON line.");
  command->add_option("--scale", options->rmat.scale, "2^scale nodes")->required()->check(CLI::Range(1, 29));
  command->add_option("--edge-factor", options->rmat.edge_factor, "Edges drawn per node")->capture_default_str();
  command->add_option("--out", options->out, "Folder to write")->required();
  command->callback([options] { write_rmat_text(*options); });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Timings and memory of edgewise's kernels on synthetic workloads and graph files; each prints "
               "one JSON line.");
  app.set_help_all_flag("--help-all", "Print the options of every subcommand and exit");
  app.require_subcommand(1);
  add_attention_command(app);
  add_gather_command(app);
  add_triad_command(app);
  add_edge_list_command(app);
  add_sampling_command(app);
  add_rmat_text_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "workloads: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
