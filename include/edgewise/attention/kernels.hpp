/// \file
/// Edgewise attention kernels: scores along edges (SDDMM), normalization over each node's in-edges,
/// and weighted aggregation of values (SpMM), each with its backward.
///
/// Shapes: N nodes, E edges, H heads, d per-head width. Node rows hold heads side by side: head h of
/// node i is row(i)[h*d .. h*d + d). Per-edge arrays are [E, H] row-major in CSR-by-destination order
/// (position p of Graph::in_sources()). No buffer is ever N x N: memory is O(E*H + N*H*d).
///
/// Parallel strategy: every kernel is node-parallel over the CSR by destination (outputs per
/// destination node or per edge) or over the by-source transpose (outputs per source node). Each
/// output is written by one thread in a fixed order, without atomics, so results do not depend on
/// the number of threads. Backward kernels overwrite their outputs unless they say "accumulates".
///
/// The math of every score function and its backward is written out in docs/attention.md.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

namespace detail {

// --- Gathers --------------------------------------------------------------------------------------

/// How many edges ahead the gathering kernels prefetch a neighbour's row: a random graph's
/// neighbour rows lie far apart, and the hardware prefetcher cannot guess the next one.
inline constexpr Index kPrefetchEdges = 8;

/// Asks the cache for the `length` scalars from `row` on, which a gather will read soon.
template <typename Scalar>
void prefetch_row(const Scalar* row, Index length) {
  constexpr Index kLine = 64 / static_cast<Index>(sizeof(Scalar));
  for (Index c = 0; c < length; c += kLine) __builtin_prefetch(row + c);
}

// --- Head widths ---------------------------------------------------------------------------------

/// The width d of one head: fixed at compile time (D > 0), or held at run time (D = Eigen::Dynamic).
/// With D fixed, a head's segment is a fixed-size vector: its loops unroll, its sums stay in
/// registers, and no per-segment loop bounds are computed on every edge.
template <int D>
struct HeadWidth {
  Index runtime = D;  ///< d, read only when D is Eigen::Dynamic.
  /// d.
  constexpr Index size() const {
    if constexpr (D == Eigen::Dynamic) {
      return runtime;
    } else {
      return D;
    }
  }
};

/// Calls kernel(width) with the width fixed for the common head widths (8, 16, 32 and 64 scalars)
/// and held at run time for any other, so that each kernel is compiled once per common width.
template <typename Kernel>
void with_head_width(Index head_dim, Kernel&& kernel) {
  switch (head_dim) {
    case 8: return kernel(HeadWidth<8>{});
    case 16: return kernel(HeadWidth<16>{});
    case 32: return kernel(HeadWidth<32>{});
    case 64: return kernel(HeadWidth<64>{});
    default: return kernel(HeadWidth<Eigen::Dynamic>{head_dim});
  }
}

/// Head h of a node row, as a vector of the head's width.
template <typename Scalar, int D>
auto head_of(Scalar* row, Index h, HeadWidth<D> d) {
  using Plain = Eigen::Matrix<std::remove_const_t<Scalar>, D, 1>;
  return Eigen::Map<std::conditional_t<std::is_const_v<Scalar>, const Plain, Plain>>(row + h * d.size(), d.size());
}

/// The number of heads, fixed at compile time (H > 0) or held at run time, as HeadWidth holds a width.
template <int H>
using HeadCount = HeadWidth<H>;

/// Calls kernel(d, count) with the head width d of with_head_width, and the head count fixed too where
/// a node row is 64 scalars of a fixed width (8 heads of 8, 4 of 16, 2 of 32, 1 of 64: the defaults'
/// layers), so that a kernel can keep a whole row in registers; else held at run time.
template <typename Kernel>
void with_head_shape(Index heads, Index head_dim, Kernel&& kernel) {
  with_head_width(head_dim, [&](auto d) {
    constexpr int kRow = 64;
    using Width = decltype(d);
    if constexpr (!std::is_same_v<Width, HeadWidth<Eigen::Dynamic>>) {
      constexpr int D = static_cast<int>(Width{}.size());
      if (heads * D == kRow) return kernel(d, HeadCount<kRow / D>{});
    }
    return kernel(d, HeadCount<Eigen::Dynamic>{heads});
  });
}

/// values[k] = exp(values[k]) for k < count, several per vector instruction: the softmax kernels
/// gather each node's shifted scores into one block to take their exponentials this way.
template <typename Scalar>
void exponentiate(Scalar* values, Index count) {
  Eigen::Map<Vector<Scalar>> block(values, count);
  block.array() = block.array().exp();
}

/// LeakyReLU's slope at u: 1 above 0, `slope` below. Picked by indexing, not by a branch: scores'
/// signs follow no pattern, and a mispredicted branch on every edge and head cost more than the
/// rest of the additive kernels' arithmetic.
template <typename Scalar>
Scalar leaky_relu_slope(Scalar u, Scalar slope) {
  const Scalar slopes[2] = {slope, Scalar(1)};
  return slopes[u > 0];
}

/// LeakyReLU: u above 0, slope * u below.
template <typename Scalar>
Scalar leaky_relu(Scalar u, Scalar slope) {
  return leaky_relu_slope(u, slope) * u;
}

// --- Contracts ------------------------------------------------------------------------------------
// Every kernel checks its arguments on entry with EDGEWISE_CHECK: positive heads and head width,
// rows at least heads * head_dim wide, and no output sharing memory with an input or another output
// except where its description allows it. The checks cost a few comparisons a call.

/// The bytes [begin, end) an array or a view covers, as addresses.
struct Extent {
  std::uintptr_t begin = 0, end = 0;
};

/// A per-edge or per-node array of `count` scalars.
template <typename Scalar>
Extent extent(const Scalar* data, Index count) {
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  return {begin, begin + static_cast<std::uintptr_t>(count) * sizeof(Scalar)};
}

/// Whether two arrays share a byte.
inline bool overlap(Extent a, Extent b) { return a.begin < b.end && b.begin < a.end; }

/// Whether `rows` rows of `width` scalars of two views share a scalar. Views with the same stride
/// may be column blocks of one matrix (q and k of one fused projection): they are disjoint when their
/// columns are.
template <typename A, typename B>
bool overlap(RowView<A> a, Index a_width, RowView<B> b, Index b_width, Index rows) {
  if (rows == 0) return false;
  const Extent ea = extent(a.data, (rows - 1) * a.stride + a_width);
  const Extent eb = extent(b.data, (rows - 1) * b.stride + b_width);
  if (!overlap(ea, eb)) return false;
  if (a.stride != b.stride || sizeof(A) != sizeof(B)) return true;
  const auto row_bytes = static_cast<std::uintptr_t>(a.stride) * sizeof(A);
  const auto rb = static_cast<std::intptr_t>(row_bytes);
  const std::intptr_t difference = static_cast<std::intptr_t>(eb.begin) - static_cast<std::intptr_t>(ea.begin);
  const auto shift = static_cast<std::uintptr_t>((difference % rb + rb) % rb);  // b's first byte within a row of a
  return !(shift >= a_width * sizeof(A) && shift + b_width * sizeof(B) <= row_bytes);
}

/// Whether a view's rows share a scalar with an array.
template <typename A, typename B>
bool overlap(RowView<A> a, Index a_width, Index rows, const B* b, Index b_count) {
  return rows > 0 && overlap(extent(a.data, (rows - 1) * a.stride + a_width), extent(b, b_count));
}

/// The shape every kernel needs: heads and head width positive, and views at least heads * head_dim wide.
template <typename... Views>
void check_heads(Index heads, Index head_dim, const Views&... views) {
  EDGEWISE_CHECK(heads > 0 && head_dim > 0);
  EDGEWISE_CHECK(((views.stride >= heads * head_dim) && ...));
}

}  // namespace detail

// --- Score functions -----------------------------------------------------------------------------

/// The score functions of one edge j -> i and head h, called as score(i, j, h, d) with the head
/// width d; score.prefetch(j, heads, d) asks the cache for what an edge from j will read. The
/// *_scores_forward kernels and softmax_attend_forward evaluate them alike, so both give the same
/// scores.
/// @{

/// scale * <q_i,h , k_j,h>. q, k: [N, H*d].
template <typename Scalar>
struct DotScore {
  RowView<const Scalar> q;  ///< Queries.
  RowView<const Scalar> k;  ///< Keys.
  Scalar scale;             ///< 1 / sqrt(d) for scaled dot-product attention.
  /// The score of edge j -> i in head h.
  template <int D>
  Scalar operator()(Index i, Index j, Index h, detail::HeadWidth<D> d) const {
    return scale * detail::head_of(q.row(i), h, d).dot(detail::head_of(k.row(j), h, d));
  }
  /// Asks the cache for what scoring an edge from j will read.
  template <int D>
  void prefetch(Index j, Index heads, detail::HeadWidth<D> d) const {
    detail::prefetch_row(k.row(j), heads * d.size());
  }
};

/// GAT: LeakyReLU(dst_term[i, h] + src_term[j, h]). src_term, dst_term: [N, H].
template <typename Scalar>
struct AdditiveScore {
  const Scalar* src_term;  ///< a_src . z_j per node and head.
  const Scalar* dst_term;  ///< a_dst . z_i per node and head.
  Index heads;             ///< H.
  Scalar negative_slope;   ///< LeakyReLU's slope below 0.
  /// The score of edge j -> i in head h.
  template <int D>
  Scalar operator()(Index i, Index j, Index h, detail::HeadWidth<D> /*d*/) const {
    return detail::leaky_relu(dst_term[i * heads + h] + src_term[j * heads + h], negative_slope);
  }
  /// Asks the cache for what scoring an edge from j will read.
  template <int D>
  void prefetch(Index j, Index /*heads*/, detail::HeadWidth<D> /*d*/) const {
    detail::prefetch_row(src_term + j * heads, heads);
  }
};

/// GATv2: <att_h, LeakyReLU(x_src_j,h + x_dst_i,h)>. x_src, x_dst: [N, H*d]; att: [H, d].
template <typename Scalar>
struct Gatv2Score {
  RowView<const Scalar> x_src;  ///< Source terms (also the values).
  RowView<const Scalar> x_dst;  ///< Destination terms.
  const Scalar* att;            ///< The attention vector of each head.
  Scalar negative_slope;        ///< LeakyReLU's slope below 0.
  /// The score of edge j -> i in head h.
  template <int D>
  Scalar operator()(Index i, Index j, Index h, detail::HeadWidth<D> d) const {
    const Scalar* src_row = x_src.row(j);
    const Scalar* dst_row = x_dst.row(i);
    Scalar score = 0;
    for (Index c = h * d.size(); c < (h + 1) * d.size(); ++c) {
      score += att[c] * detail::leaky_relu(src_row[c] + dst_row[c], negative_slope);
    }
    return score;
  }
  /// Asks the cache for what scoring an edge from j will read.
  template <int D>
  void prefetch(Index j, Index heads, detail::HeadWidth<D> d) const {
    detail::prefetch_row(x_src.row(j), heads * d.size());
  }
};
/// @}

/// scores[p, h] = score(i, j, h) for every edge j -> i at position p, node-parallel by destination.
template <typename Scalar, typename Score>
void edge_scores_forward(Scalar* scores, const Graph& g, Index heads, Index head_dim, const Score& score) {
  EDGEWISE_CHECK(heads > 0 && head_dim > 0);
  const auto offsets = g.in_offsets();
  const auto sources = g.in_sources();
  const Index edges = g.num_edges();
  detail::with_head_width(head_dim, [&](auto d) {
    parallel_for(g.num_nodes(), [&](Index i) {
      for (Index p = offsets[i]; p < offsets[i + 1]; ++p) {
        if (p + detail::kPrefetchEdges < edges) score.prefetch(sources[p + detail::kPrefetchEdges], heads, d);
        for (Index h = 0; h < heads; ++h) scores[p * heads + h] = score(i, sources[p], h, d);
      }
    });
  });
}

// --- Fused softmax attention ---------------------------------------------------------------------

namespace detail {

/// A node row's weighted sums of head slices, added edge by edge: out_h += e * row_h. Where the row's
/// shape is fixed they are local fixed-size vectors, which stay in registers from the first edge to
/// the last, and store() writes them out; otherwise they are the output row itself, which each edge
/// loads and stores. The additions are the same, in the same order, either way.
template <typename Scalar, int D, int H>
class RowSums {
 public:
  RowSums(Scalar* out, HeadWidth<D> d, HeadCount<H> count) : out_(out), d_(d) {
    if constexpr (kFixed) {
      for (auto& head : sums_) head.setZero();
    } else {
      std::fill(out, out + count.size() * d.size(), Scalar(0));
    }
  }
  /// Adds e * row_h to head h's sum.
  void add(Index h, Scalar e, const Scalar* row) {
    if constexpr (kFixed) {
      sums_[static_cast<std::size_t>(h)] += e * head_of(row, h, d_);
    } else {
      head_of(out_, h, d_) += e * head_of(row, h, d_);
    }
  }
  /// Leaves the sums in the output row.
  void store() {
    if constexpr (kFixed)
      for (Index h = 0; h < H; ++h) head_of(out_, h, d_) = sums_[static_cast<std::size_t>(h)];
  }

 private:
  static constexpr bool kFixed = D != Eigen::Dynamic && H != Eigen::Dynamic;
  Scalar* out_;
  HeadWidth<D> d_;
  std::array<Eigen::Matrix<Scalar, D, 1>, kFixed ? H : 0> sums_;
};

/// The last sweep of softmax_attend_forward over node i's in-edges [begin, end): out_i,h = the sum of
/// weights[p, h] v_j,h, sum_i,h = the sum of weights[p, h], then out_i,h / sum_i,h where the sum is
/// positive (at least 1 where there are in-edges: the maximal edge contributes exp(0)).
template <typename Scalar, int D, int H>
void weigh_values(Scalar* out, Scalar* sum, const Scalar* weights, const NodeId* sources, Index begin, Index end,
                  Index edges, RowView<const Scalar> v, HeadWidth<D> d, HeadCount<H> count) {
  const Index heads = count.size(), width = heads * d.size();
  RowSums<Scalar, D, H> weighted(out, d, count);
  std::fill(sum, sum + heads, Scalar(0));
  for (Index p = begin; p < end; ++p) {
    if (p + kPrefetchEdges < edges) prefetch_row(v.row(sources[p + kPrefetchEdges]), width);
    const Scalar* v_j = v.row(sources[p]);
    for (Index h = 0; h < heads; ++h) {
      const Scalar e = weights[p * heads + h];
      sum[h] += e;
      weighted.add(h, e, v_j);
    }
  }
  weighted.store();
  for (Index h = 0; h < heads; ++h)
    if (sum[h] > 0) head_of(out, h, d) /= sum[h];
}

}  // namespace detail

/// Softmax attention's forward in one pass over the graph, node-parallel by destination. For each
/// node i, a first sweep over its in-edges computes s = score(i, j, h) + bias[p, h] for the edge
/// j -> i at position p and head h (bias: [E, H] or null; it may alias weights) and keeps the max
/// m_i,h; then all of the node's exp(s - m_i,h) are taken at once, where the vector unit evaluates
/// several per instruction, and stored in weights[p, h]; a last sweep adds them into l_i,h
/// (node_sum) and exp(s - m_i,h) v_j,h into out_i,h, which is then divided by l_i,h. A node without
/// in-edges gets 0. Online softmax (FlashAttention's running max) would read the scores once, but it
/// needs a branch and a rescaling of the sum and of d values at every new max; a node's H values per
/// edge are cheap to re-read from cache, and the online form measured no faster.
///
/// What backward needs is kept as the unnormalized weights exp(s - m) ([E, H]) and node_sum ([N, H]),
/// from which softmax_weights gets alpha with one division; no exponential is taken twice. Bytes
/// moved per edge: the source index (4, read twice), the value row v_j (H*d*sizeof(Scalar)), what
/// score() reads (the key row, H*d scalars, for dot products; H scalars for additive), the bias (when
/// given) and the H weights written. Nothing of width d is stored per edge. Each node is one
/// thread's, in edge order: no atomics, and results do not depend on the thread count. The rows of
/// out and node_sum are written for the graph's targets only (g.num_targets(): every node but in a
/// sampled block, whose other nodes have no in-edges).
template <typename Scalar, typename Score>
void softmax_attend_forward(RowView<Scalar> out, Scalar* weights, Scalar* node_sum, const Graph& g,
                            RowView<const Scalar> v, Index heads, Index head_dim, const Score& score,
                            const Scalar* bias) {
  using detail::extent, detail::overlap;
  const Index n = g.num_nodes(), edge_values = g.num_edges() * heads, w = heads * head_dim;
  detail::check_heads(heads, head_dim, out, v);
  EDGEWISE_CHECK(!overlap(out, w, v, w, n));
  EDGEWISE_CHECK(!overlap(out, w, n, weights, edge_values) && !overlap(out, w, n, node_sum, n * heads));
  EDGEWISE_CHECK(!overlap(extent(weights, edge_values), extent(node_sum, n * heads)));
  EDGEWISE_CHECK(bias == nullptr || bias == weights ||
                 !overlap(extent(bias, edge_values), extent(weights, edge_values)));
  const auto offsets = g.in_offsets();
  const auto sources = g.in_sources();
  const Index edges = g.num_edges();
  detail::with_head_shape(heads, head_dim, [&](auto d, auto count) {
    parallel_for(g.num_targets(), [&](Index i) {
      const Index begin = offsets[i], end = offsets[i + 1];
      Scalar* sum = node_sum + i * heads;
      Scalar* max = sum;  // the node's sum slots hold its max until the exponentials are taken
      std::fill(max, max + heads, -std::numeric_limits<Scalar>::infinity());
      for (Index p = begin; p < end; ++p) {
        if (p + detail::kPrefetchEdges < edges) score.prefetch(sources[p + detail::kPrefetchEdges], heads, d);
        for (Index h = 0; h < heads; ++h) {
          const Scalar s = score(i, sources[p], h, d) + (bias != nullptr ? bias[p * heads + h] : Scalar(0));
          weights[p * heads + h] = s;
          max[h] = std::max(max[h], s);
        }
      }
      for (Index p = begin; p < end; ++p)
        for (Index h = 0; h < heads; ++h) weights[p * heads + h] -= max[h];
      detail::exponentiate(weights + begin * heads, (end - begin) * heads);
      detail::weigh_values(out.row(i), sum, weights, sources.data(), begin, end, edges, v, d, count);
    });
  });
}

/// Softmax attention's forward under attention dropout, in one pass over the graph, node-parallel by
/// destination. For each node i: the scores s = score(i, j, h) + bias[p, h] of its in-edges j -> i
/// (CSR position p; bias: [E, H] or null), their softmax over the node's in-edges alpha[p, h], the
/// dropout scale keep[p, h] = keep_scale(i, j, h) (0, or 1 / (1 - rate)), alpha_used[p, h] =
/// alpha[p, h] * keep[p, h], and out_i,h = the sum over the edges of alpha_used[p, h] v_j,h. The
/// arithmetic is that of edge_scores_forward, edge_softmax_forward, the mask and aggregate_forward run
/// in turn, in the same order, so the results are theirs to the bit; a node's edges are read once
/// instead of once a kernel, and the loop ends at one barrier, not five. As in
/// softmax_attend_forward, out's rows are written for the graph's targets only.
template <typename Scalar, typename Score, typename KeepScale>
void softmax_dropout_attend_forward(RowView<Scalar> out, Scalar* alpha, Scalar* keep, Scalar* alpha_used,
                                    const Graph& g, RowView<const Scalar> v, Index heads, Index head_dim,
                                    const Score& score, const Scalar* bias, const KeepScale& keep_scale) {
  using detail::extent, detail::overlap;
  const Index n = g.num_nodes(), edge_values = g.num_edges() * heads, w = heads * head_dim;
  detail::check_heads(heads, head_dim, out, v);
  EDGEWISE_CHECK(!overlap(out, w, v, w, n));
  for (const Scalar* edge_array : {alpha, keep, alpha_used})
    EDGEWISE_CHECK(!overlap(out, w, n, edge_array, edge_values));
  EDGEWISE_CHECK(!overlap(extent(alpha, edge_values), extent(keep, edge_values)) &&
                 !overlap(extent(alpha, edge_values), extent(alpha_used, edge_values)) &&
                 !overlap(extent(keep, edge_values), extent(alpha_used, edge_values)));
  EDGEWISE_CHECK(bias == nullptr || (!overlap(extent(bias, edge_values), extent(alpha, edge_values)) &&
                                      !overlap(extent(bias, edge_values), extent(keep, edge_values)) &&
                                      !overlap(extent(bias, edge_values), extent(alpha_used, edge_values))));
  const auto offsets = g.in_offsets();
  const auto sources = g.in_sources();
  const Index edges = g.num_edges();
  detail::with_head_width(head_dim, [&](auto d) {
    using detail::head_of;
    parallel_for(g.num_targets(), [&](Index i) {
      const Index begin = offsets[i], end = offsets[i + 1];
      for (Index p = begin; p < end; ++p) {
        if (p + detail::kPrefetchEdges < edges) score.prefetch(sources[p + detail::kPrefetchEdges], heads, d);
        for (Index h = 0; h < heads; ++h) alpha[p * heads + h] = score(i, sources[p], h, d);
      }
      // The bias is added to the stored scores, as the separate kernels add it: added in the loop
      // above, the compiler may fuse it with the score's last product into one rounding.
      if (bias != nullptr)
        for (Index p = begin * heads; p < end * heads; ++p) alpha[p] += bias[p];
      for (Index h = 0; h < heads; ++h) {
        Scalar max_score = -std::numeric_limits<Scalar>::infinity();
        for (Index p = begin; p < end; ++p) max_score = std::max(max_score, alpha[p * heads + h]);
        for (Index p = begin; p < end; ++p) alpha[p * heads + h] -= max_score;
      }
      detail::exponentiate(alpha + begin * heads, (end - begin) * heads);
      for (Index h = 0; h < heads; ++h) {
        Scalar sum = 0;
        for (Index p = begin; p < end; ++p) sum += alpha[p * heads + h];
        // sum >= 1: the maximal edge contributes exp(0).
        const Scalar inverse = Scalar(1) / sum;
        for (Index p = begin; p < end; ++p) alpha[p * heads + h] *= inverse;
      }
      for (Index p = begin; p < end; ++p)
        for (Index h = 0; h < heads; ++h) {
          keep[p * heads + h] = keep_scale(i, Index{sources[p]}, h);
          alpha_used[p * heads + h] = alpha[p * heads + h] * keep[p * heads + h];
        }
      Scalar* row = out.row(i);
      std::fill(row, row + w, Scalar(0));
      for (Index p = begin; p < end; ++p) {
        if (p + detail::kPrefetchEdges < edges) detail::prefetch_row(v.row(sources[p + detail::kPrefetchEdges]), w);
        const Scalar* v_j = v.row(sources[p]);
        for (Index h = 0; h < heads; ++h) head_of(row, h, d) += alpha_used[p * heads + h] * head_of(v_j, h, d);
      }
    });
  });
}

/// alpha[p, h] = weights[p, h] / node_sum[i, h]: the normalized weights of the last
/// softmax_attend_forward, for backward. alpha may alias weights.
template <typename Scalar>
void softmax_weights(Scalar* alpha, const Graph& g, const Scalar* weights, const Scalar* node_sum, Index heads);

// --- Scores ---------------------------------------------------------------------------------------

/// scores[p, h] = scale * <q_i,h , k_j,h> for the edge j -> i at position p.
/// q, k: [N, H*d]; scores: [E, H]. Reads 2*H*d values per edge, writes H.
template <typename Scalar>
void dot_scores_forward(Scalar* scores, const Graph& g, RowView<const Scalar> q, RowView<const Scalar> k, Index heads,
                        Index head_dim, Scalar scale);

/// dq_i = scale * sum_{j->i} ds * k_j (by destination); dk_j = scale * sum_{j->i} ds * q_i (by source).
/// dq and dk may be column blocks of one matrix. Per edge it reads k_j and q_i (2*H*d scalars), ds
/// twice (2*H) and 12 bytes of indices; it writes per node only.
template <typename Scalar>
void dot_scores_backward(RowView<Scalar> dq, RowView<Scalar> dk, const Graph& g, RowView<const Scalar> q,
                         RowView<const Scalar> k, const Scalar* dscores, Index heads, Index head_dim, Scalar scale);

/// GAT: scores[p, h] = LeakyReLU(dst_term[i, h] + src_term[j, h]). src_term, dst_term: [N, H].
template <typename Scalar>
void additive_scores_forward(Scalar* scores, const Graph& g, const Scalar* src_term, const Scalar* dst_term,
                             Index heads, Scalar negative_slope);

/// dsrc_term, ddst_term: [N, H]. Per edge it reads both terms and ds twice (4*H scalars) and 12
/// bytes of indices; it writes per node only.
template <typename Scalar>
void additive_scores_backward(Scalar* dsrc_term, Scalar* ddst_term, const Graph& g, const Scalar* src_term,
                              const Scalar* dst_term, const Scalar* dscores, Index heads, Scalar negative_slope);

/// GATv2: scores[p, h] = <att_h, LeakyReLU(x_src_j,h + x_dst_i,h)>. x_src, x_dst: [N, H*d]; att: [H, d].
template <typename Scalar>
void gatv2_scores_forward(Scalar* scores, const Graph& g, RowView<const Scalar> x_src, RowView<const Scalar> x_dst,
                          const Scalar* att, Index heads, Index head_dim, Scalar negative_slope);

/// Overwrites dx_src, dx_dst; accumulates datt ([H, d]) in a fixed order. Per edge it reads x_src_j
/// and x_dst_i twice (4*H*d scalars), ds twice (2*H) and 12 bytes of indices, and writes nothing; the
/// share of datt is one [N, H*d] buffer written per node.
template <typename Scalar>
void gatv2_scores_backward(RowView<Scalar> dx_src, RowView<Scalar> dx_dst, Scalar* datt, const Graph& g,
                           RowView<const Scalar> x_src, RowView<const Scalar> x_dst, const Scalar* att,
                           const Scalar* dscores, Index heads, Index head_dim, Scalar negative_slope);

// --- Normalization over in-edges -----------------------------------------------------------------

/// alpha[p, h] = exp(s[p, h] - m_i,h) / sum_{p' in in(i)} exp(s[p', h] - m_i,h), m the max over in(i).
/// A node with one in-edge gets alpha = 1. alpha may alias scores.
template <typename Scalar>
void edge_softmax_forward(Scalar* alpha, const Graph& g, const Scalar* scores, Index heads);

/// dscores[p] = alpha[p] * (dalpha[p] - sum_{p' in in(i)} alpha[p'] * dalpha[p']). dscores may alias dalpha.
/// Per edge it reads alpha and dalpha twice (4*H scalars) and writes H.
template <typename Scalar>
void edge_softmax_backward(Scalar* dscores, const Graph& g, const Scalar* alpha, const Scalar* dalpha, Index heads);

/// alpha[p, h] = max(s[p, h], 0) / in_degree(i). alpha may alias scores only if backward is not needed.
template <typename Scalar>
void edge_relu_forward(Scalar* alpha, const Graph& g, const Scalar* scores, Index heads);

/// dscores[p] = [s[p] > 0] * dalpha[p] / in_degree(i). dscores may alias dalpha. Per edge it reads 2*H
/// scalars and writes H.
template <typename Scalar>
void edge_relu_backward(Scalar* dscores, const Graph& g, const Scalar* scores, const Scalar* dalpha, Index heads);

// --- Aggregation ---------------------------------------------------------------------------------

/// out_i,h = sum_{p: j -> i} alpha[p, h] * v_j,h. v, out: [N, H*d]. A node without in-edges gets 0.
template <typename Scalar>
void aggregate_forward(RowView<Scalar> out, const Graph& g, const Scalar* alpha, RowView<const Scalar> v, Index heads,
                       Index head_dim);

/// dalpha[p, h] = <dout_i,h, v_j,h> (by destination); dv_j,h = sum_{p: j -> i} alpha[p, h] * dout_i,h (by source).
/// Per edge it reads v_j and dout_i (2*H*d scalars), alpha (H) and 12 bytes of indices, and writes H.
template <typename Scalar>
void aggregate_backward(Scalar* dalpha, RowView<Scalar> dv, const Graph& g, const Scalar* alpha,
                        RowView<const Scalar> v, RowView<const Scalar> dout, Index heads, Index head_dim);

// --- The fused kernel's backward ----------------------------------------------------------------

/// The backward of softmax_attend_forward: softmax_weights puts the normalized weights in alpha ([E,
/// H], kept for the caller), aggregate_backward gives d(alpha) and dv (overwritten), and
/// edge_softmax_backward turns d(alpha) into dscores ([E, H], overwritten): the gradient of s = score
/// + bias, which the score function's backward and the bias then take. softmax_weights, the d(alpha)
/// half of aggregate_backward and edge_softmax_backward run node by node by destination, in one pass
/// over the graph, so a node's d(alpha) becomes its dscores while still in cache; dv, the other half,
/// then takes a pass by source. Bytes per edge: about 2*H*d scalars of gathered rows and 4*H of
/// per-edge values (the three kernels apart: 9*H). The same operations in the same order as calling
/// the three, so the same bits.
template <typename Scalar>
void softmax_attend_backward(Scalar* dscores, RowView<Scalar> dv, Scalar* alpha, const Graph& g, const Scalar* weights,
                             const Scalar* node_sum, RowView<const Scalar> v, RowView<const Scalar> dout, Index heads,
                             Index head_dim);

}  // namespace edgewise
