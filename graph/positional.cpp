#include "edgewise/graph/positional.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <limits>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"

namespace edgewise {
namespace {

void check_non_negative(const char* function, const char* name, Index value) {
  if (value < 0) throw ArgumentError(std::string(function) + ": negative " + name + " " + std::to_string(value));
}

// Scratch for random walks from one start node at a time: probability mass on the walk's current
// support, zero elsewhere, so a step costs the out-edges of the support rather than O(N).
class SparseWalk {
 public:
  explicit SparseWalk(Index num_nodes)
      : mass_(static_cast<std::size_t>(num_nodes), 0.0),
        next_mass_(static_cast<std::size_t>(num_nodes), 0.0),
        queued_(static_cast<std::size_t>(num_nodes), false) {}

  // return_probability: [k], the probability of being back at `start` after 1..k steps. Returns the
  // work done, the support sizes plus their out-edges summed over the steps; the walk stops early
  // once that exceeds work_limit.
  template <typename Scalar>
  Index run(const Graph& graph, NodeId start, Index k, Scalar* return_probability,
            Index work_limit = std::numeric_limits<Index>::max()) {
    support_.assign(1, start);
    mass_[start] = 1.0;
    Index work = 0;
    for (Index t = 0; t < k && !support_.empty() && work <= work_limit; ++t) {
      work += step(graph);
      return_probability[t] = static_cast<Scalar>(mass_[start]);
    }
    for (NodeId v : support_) mass_[v] = 0.0;
    support_.clear();
    return work;
  }

 private:
  // Moves the mass of every support node to its out-neighbours, split evenly over its out-edges.
  // Mass on a node without out-edges is dropped. Returns the work: support size plus out-edges.
  Index step(const Graph& graph) {
    const auto out_offsets = graph.out_offsets();
    const auto out_targets = graph.out_targets();
    Index work = static_cast<Index>(support_.size());
    for (NodeId v : support_) {
      const double mass = std::exchange(mass_[v], 0.0);
      const Index degree = graph.out_degree(v);
      if (degree == 0) continue;
      const double share = mass / static_cast<double>(degree);
      work += degree;
      for (Index slot = out_offsets[v]; slot < out_offsets[v + 1]; ++slot) {
        const NodeId w = out_targets[slot];
        if (!queued_[w]) {
          queued_[w] = true;
          next_support_.push_back(w);
        }
        next_mass_[w] += share;
      }
    }
    std::swap(mass_, next_mass_);  // next_mass_ is all zero again: every support entry was exchanged
    std::swap(support_, next_support_);
    next_support_.clear();
    for (NodeId w : support_) queued_[w] = false;
    return work;
  }

  std::vector<double> mass_;
  std::vector<double> next_mass_;
  std::vector<NodeId> support_;
  std::vector<NodeId> next_support_;
  std::vector<bool> queued_;  // whether a node is already in next_support_
};

// Walks from up to kStarts start nodes at once over the whole graph: row w of the mass holds, for
// each start, the probability of being at w. A step pulls each node's mass over its in-edges (only
// the nodes the walks reach, while those are few), so it streams the graph at most once for the
// whole block, with the block's columns in vector registers.
// Once walks spread over most of the graph (small-world graphs with hubs) this costs a fraction of
// per-start sparse walks, which would each touch most edges at every step.
class BlockWalk {
 public:
  static constexpr Index kStarts = 32;

  // reversible: the graph's edge counts are symmetric (every j -> i has a matching i -> j). Then
  // d_s p_t(s, w) = d_w p_t(w, s), so p_{a+b}(s, s) = d_s sum_w p_a(s, w) p_b(s, w) / d_w and
  // k return probabilities need only ceil(k / 2) steps.
  // inverse_degree: [N], 1 / out-degree, 0 for a node without out-edges; shared by the threads' walks.
  BlockWalk(const Graph& graph, std::span<const double> inverse_degree, bool reversible)
      : graph_(graph),
        reversible_(reversible),
        inverse_degree_(inverse_degree),
        reached_(inverse_degree.size(), false) {
    mass_.rows.resize(inverse_degree.size());
    next_.rows.resize(inverse_degree.size());
  }

  // Rows first .. first + count - 1 of encoding, count <= kStarts.
  template <typename Scalar>
  void run(Index first, Index count, Index k, Matrix<Scalar>& encoding) {
    mass_.clear();
    for (Index c = 0; c < count; ++c) {
      mass_.rows[first + c][c] = 1.0;
      mass_.support.push_back(static_cast<NodeId>(first + c));
    }
    if (reversible_)
      run_reversible(first, count, k, encoding);
    else
      run_forward(first, count, k, encoding);
  }

 private:
  // Cache-line aligned, so a row spans sizeof(Row) / 64 lines, not one more.
  struct alignas(64) Row : std::array<double, kStarts> {};

  // A walk's mass, one row a node, and which rows may be nonzero.
  struct Mass {
    std::vector<Row> rows;
    std::vector<NodeId> support;  // ascending; the only nonzero rows unless everywhere
    bool everywhere = false;

    void clear() {
      if (everywhere)
        for (Row& row : rows) row.fill(0.0);
      else
        for (NodeId v : support) rows[v].fill(0.0);
      support.clear();
      everywhere = false;
    }
  };

  template <typename Scalar>
  void run_forward(Index first, Index count, Index k, Matrix<Scalar>& encoding) {
    for (Index t = 0; t < k; ++t) {
      step([](Index, const Row&, const Row&) {});
      for (Index c = 0; c < count; ++c) encoding(first + c, t) = static_cast<Scalar>(mass_.rows[first + c][c]);
    }
  }

  // From X_m (the mass after m steps) and X_{m+1}: steps 2m + 1 and 2m + 2.
  template <typename Scalar>
  void run_reversible(Index first, Index count, Index k, Matrix<Scalar>& encoding) {
    for (Index m = 0; 2 * m + 1 <= k; ++m) {
      Row odd{}, even{};
      step([&](Index w, const Row& now, const Row& next) {
        const double weight = inverse_degree_[w];
        for (Index c = 0; c < kStarts; ++c) {
          odd[c] += now[c] * next[c] * weight;
          even[c] += next[c] * next[c] * weight;
        }
      });
      for (Index c = 0; c < count; ++c) {
        const double degree = static_cast<double>(graph_.out_degree(first + c));
        encoding(first + c, 2 * m) = static_cast<Scalar>(degree * odd[c]);
        if (2 * m + 1 < k) encoding(first + c, 2 * m + 1) = static_cast<Scalar>(degree * even[c]);
      }
    }
  }

  // next = P^T mass, then mass = next. visit(w, mass row, next row) sees, in ascending order, every
  // node whose next row may be nonzero. While the walks are near their starts, only the nodes they
  // reach are pulled; once that would cost half a pass over the graph, every node is. Either way
  // each row sums the same terms in the same order, up to zeros, so the results are the same.
  template <typename Visit>
  void step(Visit&& visit) {
    if (!mass_.everywhere && reach_from_support()) {
      next_.clear();  // the rows of two steps ago
      std::swap(next_.support, reached_nodes_);
      for (NodeId w : next_.support) pull(w, visit);
    } else {
      for (Index w = 0; w < graph_.num_nodes(); ++w) pull(w, visit);  // writes every row
      next_.support.clear();
      next_.everywhere = true;
    }
    std::swap(mass_, next_);
  }

  // Puts the out-neighbours of mass_'s support into reached_nodes_, ascending, and tells whether
  // pulling only those is worth it: their in-edges and themselves under half of N + E.
  bool reach_from_support() {
    const auto out_offsets = graph_.out_offsets();
    const auto out_targets = graph_.out_targets();
    reached_nodes_.clear();
    for (NodeId v : mass_.support)
      for (Index slot = out_offsets[v]; slot < out_offsets[v + 1]; ++slot)
        if (!reached_[out_targets[slot]]) {
          reached_[out_targets[slot]] = true;
          reached_nodes_.push_back(out_targets[slot]);
        }
    Index work = static_cast<Index>(reached_nodes_.size());
    for (NodeId w : reached_nodes_) {
      reached_[w] = false;
      work += graph_.in_degree(w);
    }
    if (2 * work >= graph_.num_nodes() + graph_.num_edges()) return false;
    std::sort(reached_nodes_.begin(), reached_nodes_.end());
    return true;
  }

  // next_ row w = the sum of mass_'s rows over w's in-edges, each over its source's out-degree.
  template <typename Visit>
  void pull(Index w, Visit& visit) {
    const auto in_offsets = graph_.in_offsets();
    const auto in_sources = graph_.in_sources();
    const Index num_edges = graph_.num_edges();
    Row sum{};
    for (Index p = in_offsets[w]; p < in_offsets[w + 1]; ++p) {
      if (p + kPrefetchDistance < num_edges) prefetch_row(in_sources[p + kPrefetchDistance]);
      const NodeId v = in_sources[p];
      const double share = inverse_degree_[v];
      for (Index c = 0; c < kStarts; ++c) sum[c] += mass_.rows[v][c] * share;
    }
    visit(w, mass_.rows[w], sum);
    next_.rows[w] = sum;
  }

  // The rows a step reads are scattered over the graph, so it asks for them this many edges early.
  static constexpr Index kPrefetchDistance = 16;

  void prefetch_row(NodeId v) const {
    const char* row = reinterpret_cast<const char*>(mass_.rows[v].data());
    for (std::size_t byte = 0; byte < sizeof(Row); byte += 64) __builtin_prefetch(row + byte);
    __builtin_prefetch(&inverse_degree_[v]);
  }

  const Graph& graph_;
  bool reversible_;
  std::span<const double> inverse_degree_;
  std::vector<bool> reached_;  // scratch of reach_from_support, all false between calls
  std::vector<NodeId> reached_nodes_;
  Mass mass_;
  Mass next_;
};

// Whether every node's out-targets and in-sources are the same multiset: edge counts are symmetric.
bool has_symmetric_edge_counts(const Graph& graph) {
  std::vector<NodeId> targets, sources;
  for (Index v = 0; v < graph.num_nodes(); ++v) {
    const auto out = graph.out_targets().subspan(graph.out_offsets()[v], graph.out_degree(v));
    const auto in = graph.in_sources().subspan(graph.in_offsets()[v], graph.in_degree(v));
    if (out.size() != in.size()) return false;
    targets.assign(out.begin(), out.end());
    sources.assign(in.begin(), in.end());
    std::sort(targets.begin(), targets.end());
    std::sort(sources.begin(), sources.end());
    if (targets != sources) return false;
  }
  return true;
}

// The cheaper way to walk a graph, and its estimated work in units of per-start walks (a support
// node or an out-edge visited).
struct WalkPlan {
  bool blocked = false;
  double work = 0;
};

// Sparse work is measured on a sample of start nodes spread over the graph; a block walk's work per
// start is its steps times (N + E), shared by the block's starts and cheaper per unit, since it
// streams rows through vector registers instead of scattering single values. kBlockUnitCost is the
// ratio of the two units' times, measured on a 200 x 200 grid (where sparse walks win) and on
// Deezer Europe (where block walks do).
WalkPlan cheaper_walks(const Graph& graph, Index k, Index block_steps) {
  constexpr double kBlockUnitCost = 1.5;
  constexpr Index kSamples = 16;
  const Index n = graph.num_nodes();
  const double block_work_per_start = kBlockUnitCost * static_cast<double>(block_steps) *
                                      static_cast<double>(n + graph.num_edges()) /
                                      static_cast<double>(std::min(n, BlockWalk::kStarts));
  const Index samples = std::min(n, kSamples);
  // Past this much work the sample already shows that block walks are cheaper.
  const double work_limit = block_work_per_start * static_cast<double>(samples);
  SparseWalk walk(n);
  std::vector<double> scratch(static_cast<std::size_t>(k));
  double sample_work = 0;
  for (Index s = 0; s < samples && sample_work <= work_limit; ++s) {
    const auto start = static_cast<NodeId>((2 * s + 1) * n / (2 * samples));
    sample_work += static_cast<double>(
        walk.run(graph, start, k, scratch.data(), static_cast<Index>(work_limit - sample_work)));
  }
  if (sample_work > work_limit) return {.blocked = true, .work = block_work_per_start * static_cast<double>(n)};
  return {.blocked = false, .work = sample_work / static_cast<double>(samples) * static_cast<double>(n)};
}

std::string scientific(double value) {
  std::ostringstream text;
  text << std::setprecision(2) << value;
  return text.str();
}

template <typename Scalar>
void sparse_walks(const Graph& graph, Index k, Matrix<Scalar>& encoding) {
  // Blocks of start nodes share one scratch, so scratch is allocated O(N / block) times, not O(N).
  // A walk's cost follows the degrees it meets, so the blocks go to whichever thread is free.
  const Index n = graph.num_nodes();
  constexpr Index block = 64;
  parallel_for_dynamic(
      (n + block - 1) / block,
      [&](Index b) {
        SparseWalk walk(n);
        for (Index i = b * block; i < std::min(n, (b + 1) * block); ++i)
          walk.run(graph, static_cast<NodeId>(i), k, encoding.row(i).data());
      },
      1);
}

template <typename Scalar>
void block_walks(const Graph& graph, Index k, bool reversible, Matrix<Scalar>& encoding) {
  const Index n = graph.num_nodes();
  constexpr Index block = BlockWalk::kStarts;
  std::vector<double> inverse_degree(static_cast<std::size_t>(n));
  for (Index v = 0; v < n; ++v) {
    const Index degree = graph.out_degree(v);
    inverse_degree[v] = degree > 0 ? 1.0 / static_cast<double>(degree) : 0.0;
  }
  // A walk's buffers (2 x 256 bytes a node) are made once per thread, on its first block: freshly
  // touched pages are slow, so blocks reuse them.
  std::vector<std::optional<BlockWalk>> walks(static_cast<std::size_t>(num_threads()));
  parallel_for_dynamic(
      (n + block - 1) / block,
      [&](Index b) {
        std::optional<BlockWalk>& walk = walks[static_cast<std::size_t>(thread_index())];
        if (!walk) walk.emplace(graph, inverse_degree, reversible);
        walk->run(b * block, std::min(block, n - b * block), k, encoding);
      },
      1);
}

// Sampled walks from one start node at a time, in lockstep, so that the memory loads of different
// walks overlap. edges_to_start_[u] counts the edges u -> start while `start` is walked from, and is
// zero otherwise.
class SampledWalks {
 public:
  SampledWalks(const Graph& graph, Index walks, std::uint64_t seed)
      : graph_(graph),
        seed_(seed),
        edges_to_start_(static_cast<std::size_t>(graph.num_nodes()), 0),
        positions_(static_cast<std::size_t>(walks)) {}

  // return_probability: [k], the estimated probability of being back at `start` after 1..k steps.
  template <typename Scalar>
  void run(NodeId start, Index k, Scalar* return_probability) {
    const auto sources = graph_.in_sources().subspan(graph_.in_offsets()[start], graph_.in_degree(start));
    for (const NodeId u : sources) ++edges_to_start_[u];
    // A generator per start node: consecutive seeds give unrelated SplitMix64 streams.
    SplitMix64 rng((seed_ ^ 0xD1B54A32D192ED03ULL) + static_cast<std::uint64_t>(start) * 0x9E3779B97F4A7C15ULL);
    std::ranges::fill(positions_, start);
    auto alive = static_cast<Index>(positions_.size());
    for (Index t = 0; t < k; ++t) {
      double sum = 0;
      for (Index w = 0; w < alive;) {
        const NodeId u = positions_[w];
        const Index degree = graph_.out_degree(u);
        if (degree == 0) {  // the walk ends here: it adds nothing from now on
          positions_[w] = positions_[--alive];
          continue;
        }
        sum += static_cast<double>(edges_to_start_[u]) / static_cast<double>(degree);
        if (t + 1 < k)
          positions_[w] = graph_.out_targets()[graph_.out_offsets()[u] + static_cast<Index>(rng.below(degree))];
        ++w;
      }
      return_probability[t] = static_cast<Scalar>(sum / static_cast<double>(positions_.size()));
    }
    for (const NodeId u : sources) edges_to_start_[u] = 0;
  }

 private:
  const Graph& graph_;
  std::uint64_t seed_;
  std::vector<std::int32_t> edges_to_start_;
  std::vector<NodeId> positions_;
};

// The dense symmetric normalized Laplacian described in positional.hpp.
Eigen::MatrixXd normalized_laplacian(const Graph& graph) {
  const Index n = graph.num_nodes();
  Eigen::MatrixXd laplacian = Eigen::MatrixXd::Zero(n, n);
  for (Index e = 0; e < graph.num_edges(); ++e) {
    const NodeId u = graph.source(e), v = graph.target(e);
    if (u == v) continue;
    laplacian(u, v) = 1.0;
    laplacian(v, u) = 1.0;
  }
  const Eigen::VectorXd degree = laplacian.rowwise().sum();
  const Eigen::VectorXd inv_sqrt_degree =
      degree.unaryExpr([](double d) { return d > 0.0 ? 1.0 / std::sqrt(d) : 0.0; });
  laplacian = -(inv_sqrt_degree.asDiagonal() * laplacian * inv_sqrt_degree.asDiagonal());
  laplacian.diagonal().array() += 1.0;
  return laplacian;
}

// Makes the first entry within 1e-8 of the largest magnitude positive. The tolerance keeps the
// choice stable when several entries share the largest magnitude up to rounding, as is common in
// symmetric graphs.
void fix_sign(Eigen::Ref<Eigen::VectorXd> eigenvector) {
  const double largest = eigenvector.cwiseAbs().maxCoeff();
  for (Index i = 0; i < eigenvector.size(); ++i) {
    if (std::abs(eigenvector[i]) < largest - 1e-8) continue;
    if (eigenvector[i] < 0.0) eigenvector = -eigenvector;
    return;
  }
}

}  // namespace

template <typename Scalar>
Matrix<Scalar> sinusoidal_encoding(Index length, Index dim) {
  check_non_negative("sinusoidal_encoding", "length", length);
  check_non_negative("sinusoidal_encoding", "dim", dim);
  Matrix<Scalar> encoding(length, dim);
  for (Index c = 0; c < dim; ++c) {
    const Index even = c - c % 2;  // 2i for both columns 2i and 2i + 1
    const double wavelength_scale = std::pow(10000.0, static_cast<double>(even) / static_cast<double>(dim));
    for (Index pos = 0; pos < length; ++pos) {
      const double angle = static_cast<double>(pos) / wavelength_scale;
      encoding(pos, c) = static_cast<Scalar>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return encoding;
}

template <typename Scalar>
Matrix<Scalar> random_walk_encoding(const Graph& graph, Index k, RandomWalkMethod method, double max_work) {
  check_non_negative("random_walk_encoding", "k", k);
  if (graph.num_nodes() == 0 || k == 0) return Matrix<Scalar>::Zero(graph.num_nodes(), k);
  // Only block walks use the symmetry (per-start walks take every step), so per_start skips the check.
  const bool reversible = method != RandomWalkMethod::per_start && has_symmetric_edge_counts(graph);
  bool blocked = method == RandomWalkMethod::blocked;
  if (method == RandomWalkMethod::automatic) {
    const WalkPlan plan = cheaper_walks(graph, k, reversible ? (k + 1) / 2 : k);
    if (plan.work > max_work)
      throw ArgumentError("random_walk_encoding: exact " + std::to_string(k) + "-step random walks from each of " +
                          std::to_string(graph.num_nodes()) + " nodes over " + std::to_string(graph.num_edges()) +
                          " edges would take about " + scientific(plan.work) + " units of work, above the limit of " +
                          scientific(max_work) +
                          ": give the nodes features of their own, or estimate the probabilities from sampled walks "
                          "(from C++, sampled_random_walk_encoding, or name a RandomWalkMethod)");
    blocked = plan.blocked;
  }
  Matrix<Scalar> encoding = Matrix<Scalar>::Zero(graph.num_nodes(), k);
  if (blocked)
    block_walks(graph, k, reversible, encoding);
  else
    sparse_walks(graph, k, encoding);
  return encoding;
}

double random_walk_work(const Graph& graph, Index k) {
  check_non_negative("random_walk_work", "k", k);
  if (graph.num_nodes() == 0 || k == 0) return 0;
  return cheaper_walks(graph, k, has_symmetric_edge_counts(graph) ? (k + 1) / 2 : k).work;
}

template <typename Scalar>
Matrix<Scalar> sampled_random_walk_encoding(const Graph& graph, Index k, Index walks, std::uint64_t seed) {
  check_non_negative("sampled_random_walk_encoding", "k", k);
  if (walks < 1)
    throw ArgumentError("sampled_random_walk_encoding: " + std::to_string(walks) + " walks a node; at least 1 is needed");
  const Index n = graph.num_nodes();
  Matrix<Scalar> encoding = Matrix<Scalar>::Zero(n, k);
  if (n == 0 || k == 0) return encoding;
  // Each thread's scratch (4 bytes a node) is made once, on its first block: fresh pages are slow.
  std::vector<std::optional<SampledWalks>> scratch(static_cast<std::size_t>(num_threads()));
  constexpr Index block = 256;
  parallel_for_dynamic(
      (n + block - 1) / block,
      [&](Index b) {
        std::optional<SampledWalks>& sampled = scratch[static_cast<std::size_t>(thread_index())];
        if (!sampled) sampled.emplace(graph, walks, seed);
        for (Index i = b * block; i < std::min(n, (b + 1) * block); ++i)
          sampled->run(static_cast<NodeId>(i), k, encoding.row(i).data());
      },
      1);
  return encoding;
}

template <typename Scalar>
Matrix<Scalar> laplacian_encoding(const Graph& graph, Index k, Index max_nodes) {
  check_non_negative("laplacian_encoding", "k", k);
  const Index n = graph.num_nodes();
  if (n > max_nodes)
    throw ArgumentError("laplacian_encoding: " + std::to_string(n) + " nodes exceed the limit of " +
                        std::to_string(max_nodes) + " for the dense eigendecomposition");
  Matrix<Scalar> encoding = Matrix<Scalar>::Zero(n, k);
  const Index available = std::min(k, std::max<Index>(n - 1, 0));
  if (available == 0) return encoding;

  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(normalized_laplacian(graph));
  if (solver.info() != Eigen::Success) throw Error("laplacian_encoding: the eigensolver did not converge");
  Eigen::MatrixXd eigenvectors = solver.eigenvectors().middleCols(1, available);  // ascending eigenvalues
  for (Index c = 0; c < available; ++c) fix_sign(eigenvectors.col(c));
  encoding.leftCols(available) = eigenvectors.cast<Scalar>();
  return encoding;
}

template <typename Scalar>
void random_sign_flip(Matrix<Scalar>& encoding, SplitMix64& rng) {
  for (Index c = 0; c < encoding.cols(); ++c)
    if (rng.uniform() < 0.5) encoding.col(c) *= Scalar(-1);
}

template Matrix<float> sinusoidal_encoding<float>(Index, Index);
template Matrix<double> sinusoidal_encoding<double>(Index, Index);
template Matrix<float> random_walk_encoding<float>(const Graph&, Index, RandomWalkMethod, double);
template Matrix<double> random_walk_encoding<double>(const Graph&, Index, RandomWalkMethod, double);
template Matrix<float> sampled_random_walk_encoding<float>(const Graph&, Index, Index, std::uint64_t);
template Matrix<double> sampled_random_walk_encoding<double>(const Graph&, Index, Index, std::uint64_t);
template Matrix<float> laplacian_encoding<float>(const Graph&, Index, Index);
template Matrix<double> laplacian_encoding<double>(const Graph&, Index, Index);
template void random_sign_flip<float>(Matrix<float>&, SplitMix64&);
template void random_sign_flip<double>(Matrix<double>&, SplitMix64&);

}  // namespace edgewise
