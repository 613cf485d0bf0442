#include "edgewise/datasets/rmat.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/core/random.hpp"

namespace edgewise {
namespace {

// Edges drawn from one stream. Fixed, since it decides which stream draws which edge, and so the graph;
// small enough that a test graph of 2^14 nodes at edge factor 16 spans four streams (and threads), large
// enough that starting a stream costs nothing next to its 2^16 * scale draws.
constexpr Index kChunkEdges = Index{1} << 16;

void check_options(const RmatOptions& options) {
  const auto fail = [](const std::string& why) { throw ArgumentError("RmatGraph: " + why); };
  if (options.scale < 1 || options.scale > 30) fail("scale must lie in [1, 30], got " + std::to_string(options.scale));
  if (options.edge_factor < 1) fail("edge_factor must be at least 1, got " + std::to_string(options.edge_factor));
  for (const double p : {options.a, options.b, options.c})
    if (!(p >= 0.0 && p <= 1.0)) fail("quadrant probabilities a, b, c must lie in [0, 1], got " + std::to_string(p));
  // d = 1 - a - b - c; the tolerance accepts sums such as 0.34 + 0.55 + 0.11 that round above 1.
  if (options.a + options.b + options.c > 1.0 + 1e-9)
    fail("a + b + c must not exceed 1 (d = 1 - a - b - c), got " + std::to_string(options.a + options.b + options.c));
  const Index nodes = Index{1} << options.scale;
  const auto classes = static_cast<std::uint64_t>(options.classes);
  if (options.classes < 1 || options.classes > nodes || !std::has_single_bit(classes))
    fail("classes must be a power of two in [1, 2^scale], got " + std::to_string(options.classes));
  if (options.feature_dim < 0) fail("negative feature_dim " + std::to_string(options.feature_dim));
  if (!(options.feature_noise >= 0.0 && std::isfinite(options.feature_noise)))
    fail("feature_noise must be finite and non-negative, got " + std::to_string(options.feature_noise));
  // Both directions of every drawn edge and one self-loop a node must be numbered by int32 positions.
  // Written as a division so that a huge edge_factor cannot overflow the check itself.
  if (options.edge_factor > (std::numeric_limits<NodeId>::max() - nodes) / (2 * nodes))
    fail("2 * edge_factor * 2^scale + 2^scale edges exceed 2^31 - 1 (edge_factor " +
         std::to_string(options.edge_factor) + ", scale " + std::to_string(options.scale) + ")");
}

// The keys of the three families of streams: edges, class means and per-node feature noise.
struct StreamKeys {
  std::uint64_t edges = 0;
  std::uint64_t means = 0;
  std::uint64_t noise = 0;
};

StreamKeys stream_keys(std::uint64_t seed) {
  SplitMix64 root(seed);
  StreamKeys keys;
  keys.edges = root.next();
  keys.means = root.next();
  keys.noise = root.next();
  return keys;
}

// The seed of stream `index` of the family `key`. Hashed: SplitMix64 seeded with s + k * 0x9E3779B97F4A7C15
// repeats the sequence of s shifted by k, so seeds that differ by a simple step would give overlapping streams.
std::uint64_t stream_seed(std::uint64_t key, Index index) {
  return SplitMix64(key ^ (static_cast<std::uint64_t>(index) * 0xD1B54A32D192ED03ULL)).next();
}

// The cumulative quadrant probabilities a, a + b and a + b + c.
struct Quadrants {
  double a = 0;
  double ab = 0;
  double abc = 0;
  Index scale = 0;
};

// One edge u -> v: at each of `scale` levels, from the most significant bit down, one uniform draw picks
// the quadrant, which sets one bit of u (bottom half) and one of v (right half). Graph500 perturbs a, b,
// c and d at each level; this draw does not, so the quadrant probabilities are exactly the options'.
std::pair<NodeId, NodeId> draw_edge(SplitMix64& rng, const Quadrants& q) {
  std::uint32_t u = 0, v = 0;
  for (Index level = 0; level < q.scale; ++level) {
    const double r = rng.uniform();
    const bool ab = r >= q.ab;
    // [0, a): top left, [a, a + b): top right, [a + b, a + b + c): bottom left, then bottom right.
    const bool right = ((r >= q.a) != ab) != (r >= q.abc);
    u = (u << 1) | static_cast<std::uint32_t>(ab);
    v = (v << 1) | static_cast<std::uint32_t>(right);
  }
  return {static_cast<NodeId>(u), static_cast<NodeId>(v)};
}

// Both directions of up to kBatchEdges drawn edges, as in-edges source -> target.
constexpr int kBatchEdges = 256;
struct Batch {
  std::array<NodeId, 2 * kBatchEdges> targets;
  std::array<NodeId, 2 * kBatchEdges> sources;
  int size = 0;

  void add(NodeId u, NodeId v) {
    targets[size] = v;
    sources[size] = u;
    targets[size + 1] = u;
    sources[size + 1] = v;
    size += 2;
  }
};

// Calls visit(batch) for batches of the drawn edges, drawn self-loops dropped, in parallel over chunks
// of kChunkEdges edges, each chunk drawing from its own stream: the same edges, though not in the same
// order, at every thread count. Batches let the passes fetch a batch's scattered rows at once.
template <typename Visit>
void for_each_batch(const RmatOptions& options, std::uint64_t key, Visit&& visit) {
  const Quadrants q{options.a, options.a + options.b, options.a + options.b + options.c, options.scale};
  const Index edges = options.edge_factor << options.scale;
  parallel_for(
      (edges + kChunkEdges - 1) / kChunkEdges,
      [&](Index chunk) {
        SplitMix64 rng(stream_seed(key, chunk));
        Batch batch;
        const Index end = std::min(edges, (chunk + 1) * kChunkEdges);
        for (Index e = chunk * kChunkEdges; e < end; ++e) {
          const auto [u, v] = draw_edge(rng, q);
          if (u != v) batch.add(u, v);
          if (batch.size == 2 * kBatchEdges) {
            visit(batch);
            batch.size = 0;
          }
        }
        if (batch.size > 0) visit(batch);
      });
}

// Asks for the cache lines of a batch's counters, written next, so that their misses overlap: atomic
// read-modify-writes otherwise wait for each other's misses one at a time.
void prefetch_rows(const Batch& batch, const std::vector<Index>& offsets, int shift) {
  for (int i = 0; i < batch.size; ++i) __builtin_prefetch(&offsets[batch.targets[i] + shift], 1);
}

// Pass 1: the CSR offsets of rows that hold each node's self-loop and both directions of every drawn
// edge at it. Counted with relaxed atomic increments, whose sums do not depend on the order.
std::vector<Index> row_starts(const RmatOptions& options, std::uint64_t key) {
  const Index nodes = Index{1} << options.scale;
  std::vector<Index> offsets(static_cast<std::size_t>(nodes) + 1, 1);  // the self-loop slot
  offsets[0] = 0;
  for_each_batch(options, key, [&](const Batch& batch) {
    prefetch_rows(batch, offsets, 1);
    for (int i = 0; i < batch.size; ++i)
      std::atomic_ref<Index>(offsets[batch.targets[i] + 1]).fetch_add(1, std::memory_order_relaxed);
  });
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  return offsets;
}

// Pass 2: draws the same edges again and fills each row through the cursor offsets[v], which ends at
// the row's end; shifting the cursors by one node then gives the row starts again. The order within a
// row depends on the threads' timing, which the sort that follows removes. A batch takes all its slots
// before it writes any, and asks for their cache lines first: an atomic waits for every store before it,
// and these stores miss the cache. Batches cut this pass from 13.7 s to 3.4 s at scale 20, one thread.
std::vector<NodeId> place_sources(const RmatOptions& options, std::uint64_t key, std::vector<Index>& offsets) {
  const Index nodes = Index{1} << options.scale;
  std::vector<NodeId> sources(static_cast<std::size_t>(offsets[nodes]));
  parallel_for(nodes, [&](Index v) { sources[offsets[v]++] = static_cast<NodeId>(v); });
  for_each_batch(options, key, [&](const Batch& batch) {
    std::array<Index, 2 * kBatchEdges> slots;
    prefetch_rows(batch, offsets, 0);
    for (int i = 0; i < batch.size; ++i)
      slots[i] = std::atomic_ref<Index>(offsets[batch.targets[i]]).fetch_add(1, std::memory_order_relaxed);
    for (int i = 0; i < batch.size; ++i) __builtin_prefetch(&sources[slots[i]], 1);
    for (int i = 0; i < batch.size; ++i) sources[slots[i]] = batch.sources[i];
  });
  std::copy_backward(offsets.begin(), offsets.end() - 1, offsets.end());
  offsets[0] = 0;
  return sources;
}

// Sorts every row and moves its repeated sources to the row's end; returns how many distinct sources
// each row keeps. Node-parallel; rows differ widely in length, so the scheduling is dynamic.
std::vector<NodeId> sort_rows(const std::vector<Index>& offsets, std::vector<NodeId>& sources) {
  const Index nodes = static_cast<Index>(offsets.size()) - 1;
  std::vector<NodeId> kept(static_cast<std::size_t>(nodes));
  parallel_for_dynamic(
      nodes,
      [&](Index v) {
        const auto first = sources.begin() + offsets[v], last = sources.begin() + offsets[v + 1];
        std::sort(first, last);
        kept[v] = static_cast<NodeId>(std::unique(first, last) - first);
      },
      256);
  return kept;
}

// Moves every row's kept sources to the end of the previous row's, in node order. A row only moves
// toward the front, over slots already read, so in node order the move is safe; it streams the array
// once (0.8 s for the 2.1 GB of scale 24), which a parallel version would have to split with care.
void compact_rows(const std::vector<NodeId>& kept, std::vector<Index>& offsets, std::vector<NodeId>& sources) {
  const Index nodes = static_cast<Index>(kept.size());
  Index write = 0;
  for (Index v = 0; v < nodes; ++v) {
    const auto bytes = sizeof(NodeId) * static_cast<std::size_t>(kept[v]);
    std::memmove(sources.data() + write, sources.data() + offsets[v], bytes);
    offsets[v] = write;
    write += kept[v];
  }
  offsets[nodes] = write;
  // Freeing the dropped slots takes a copy of the array, which would double the peak memory; it is made
  // only when they are most of it. At Graph500's settings they are 6% at scale 20, 3% at scale 24.
  const bool mostly_dropped = 2 * write < static_cast<Index>(sources.size());
  sources.resize(static_cast<std::size_t>(write));
  if (mostly_dropped) sources.shrink_to_fit();
}

Matrix<float> draw_class_means(const RmatOptions& options, std::uint64_t key) {
  SplitMix64 rng(key);
  Matrix<float> means(options.classes, options.feature_dim);
  for (Index k = 0; k < means.size(); ++k) means.data()[k] = static_cast<float>(rng.normal());
  return means;
}

Index label_of(Index node, const RmatOptions& options) {
  return node >> (options.scale - std::countr_zero(static_cast<std::uint64_t>(options.classes)));
}

}  // namespace

RmatGraph::RmatGraph(const RmatOptions& options) : options_(options) {
  check_options(options);
  const StreamKeys keys = stream_keys(options.seed);
  offsets_ = row_starts(options, keys.edges);
  sources_ = place_sources(options, keys.edges, offsets_);
  compact_rows(sort_rows(offsets_, sources_), offsets_, sources_);
  class_means_ = draw_class_means(options, keys.means);
}

Index RmatGraph::label(Index node) const {
  if (node < 0 || node >= num_nodes())
    throw ArgumentError("RmatGraph::label: node " + std::to_string(node) + " is not in [0, " +
                        std::to_string(num_nodes()) + ")");
  return label_of(node, options_);
}

void RmatGraph::features(Index first, Index count, float* out) const {
  if (first < 0 || count < 0 || first > num_nodes() - count)
    throw ArgumentError("RmatGraph::features: nodes " + std::to_string(first) + " .. " +
                        std::to_string(first + count - 1) + " are not in [0, " + std::to_string(num_nodes()) + ")");
  const Index dim = options_.feature_dim;
  const std::uint64_t key = stream_keys(options_.seed).noise;
  parallel_for(
      count,
      [&](Index row) {
        const Index node = first + row;
        SplitMix64 rng(stream_seed(key, node));
        const float* mean = class_means_.data() + label_of(node, options_) * dim;
        float* x = out + row * dim;
        for (Index f = 0; f < dim; ++f) x[f] = static_cast<float>(mean[f] + options_.feature_noise * rng.normal());
      });
}

}  // namespace edgewise
