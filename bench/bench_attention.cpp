// One GraphAttention<float> layer (64 -> 4 heads x 16, heads concatenated, output projection to 64)
// on the uniform random workload of shared/peers/README.md: forward, and forward+backward with
// dy = 1 (backward includes dx), for the scaled-dot and additive scores at 1 and 2 threads.
//
// The workload defaults to N = 100,000, E = 1,600,000; EDGEWISE_BENCH_NODES and
// EDGEWISE_BENCH_EDGES choose another size for quick runs. Counters: edges_per_s (edges of one
// pass per second of wall time) and peak_rss_mb, the process's peak resident set so far (VmHWM),
// which only grows from one benchmark to the next.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "edgewise/attention/graph_attention.hpp"
#include "edgewise/core/memory.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/datasets/uniform.hpp"

namespace edgewise {
namespace {

constexpr Index in_dim = 64;

Index size_from_env(const char* name, Index fallback) {
  const char* value = std::getenv(name);
  return value ? std::stoll(value) : fallback;
}

// Built once, on first use, and shared by every benchmark.
const UniformWorkload& workload() {
  static const UniformWorkload shared = uniform_random_workload(
      size_from_env("EDGEWISE_BENCH_NODES", 100'000), size_from_env("EDGEWISE_BENCH_EDGES", 1'600'000), in_dim);
  return shared;
}

GraphAttentionOptions layer_options(ScoreFunction score) {
  GraphAttentionOptions options;
  options.in_dim = in_dim;
  options.heads = 4;
  options.head_dim = 16;
  options.out_dim = 64;
  options.score = score;
  return options;
}

void attention_pass(benchmark::State& state, ScoreFunction score, bool with_backward, int threads) {
  const UniformWorkload& data = workload();
  set_num_threads(threads);
  Parameters<float> params;
  GraphAttention<float> layer(params, "attention", layer_options(score));
  SplitMix64 rng(3);
  layer.reset_parameters(rng);
  const Matrix<float> dy = Matrix<float>::Ones(data.graph.num_nodes(), layer.out_dim());

  // One untimed pass allocates the layer's buffers, as a training loop's first step would.
  layer.forward(data.graph, data.features, nullptr);
  if (with_backward) layer.backward(dy);
  for (auto _ : state) {
    benchmark::DoNotOptimize(layer.forward(data.graph, data.features, nullptr).data());
    if (with_backward) benchmark::DoNotOptimize(layer.backward(dy).data());
  }
  state.counters["edges_per_s"] =
      benchmark::Counter(static_cast<double>(data.graph.num_edges()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_rss_mb"] = peak_rss_mb();
}

void register_benchmarks() {
  for (const ScoreFunction score : {ScoreFunction::scaled_dot, ScoreFunction::additive})
    for (const bool with_backward : {false, true})
      for (const int threads : {1, 2}) {
        const std::string name = std::string("attention/") + (with_backward ? "forward_backward/" : "forward/") +
                                 to_string(score) + "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(), attention_pass, score, with_backward, threads)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();  // kernels run on OpenMP threads: the main thread's CPU time misleads
      }
}

}  // namespace
}  // namespace edgewise

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  edgewise::register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
