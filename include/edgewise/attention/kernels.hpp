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

#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

// --- Scores ---------------------------------------------------------------------------------------

/// scores[p, h] = scale * <q_i,h , k_j,h> for the edge j -> i at position p.
/// q, k: [N, H*d]; scores: [E, H]. Reads 2*H*d values per edge, writes H.
template <typename Scalar>
void dot_scores_forward(Scalar* scores, const Graph& g, RowView<const Scalar> q, RowView<const Scalar> k, Index heads,
                        Index head_dim, Scalar scale);

/// dq_i = scale * sum_{j->i} ds * k_j (by destination); dk_j = scale * sum_{j->i} ds * q_i (by source).
template <typename Scalar>
void dot_scores_backward(RowView<Scalar> dq, RowView<Scalar> dk, const Graph& g, RowView<const Scalar> q,
                         RowView<const Scalar> k, const Scalar* dscores, Index heads, Index head_dim, Scalar scale);

/// GAT: scores[p, h] = LeakyReLU(dst_term[i, h] + src_term[j, h]). src_term, dst_term: [N, H].
template <typename Scalar>
void additive_scores_forward(Scalar* scores, const Graph& g, const Scalar* src_term, const Scalar* dst_term,
                             Index heads, Scalar negative_slope);

/// dsrc_term, ddst_term: [N, H].
template <typename Scalar>
void additive_scores_backward(Scalar* dsrc_term, Scalar* ddst_term, const Graph& g, const Scalar* src_term,
                              const Scalar* dst_term, const Scalar* dscores, Index heads, Scalar negative_slope);

/// GATv2: scores[p, h] = <att_h, LeakyReLU(x_src_j,h + x_dst_i,h)>. x_src, x_dst: [N, H*d]; att: [H, d].
template <typename Scalar>
void gatv2_scores_forward(Scalar* scores, const Graph& g, RowView<const Scalar> x_src, RowView<const Scalar> x_dst,
                          const Scalar* att, Index heads, Index head_dim, Scalar negative_slope);

/// Overwrites dx_src, dx_dst; accumulates datt ([H, d]) in a fixed order.
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
template <typename Scalar>
void edge_softmax_backward(Scalar* dscores, const Graph& g, const Scalar* alpha, const Scalar* dalpha, Index heads);

/// alpha[p, h] = max(s[p, h], 0) / in_degree(i). alpha may alias scores only if backward is not needed.
template <typename Scalar>
void edge_relu_forward(Scalar* alpha, const Graph& g, const Scalar* scores, Index heads);

/// dscores[p] = [s[p] > 0] * dalpha[p] / in_degree(i). dscores may alias dalpha.
template <typename Scalar>
void edge_relu_backward(Scalar* dscores, const Graph& g, const Scalar* scores, const Scalar* dalpha, Index heads);

// --- Aggregation ---------------------------------------------------------------------------------

/// out_i,h = sum_{p: j -> i} alpha[p, h] * v_j,h. v, out: [N, H*d]. A node without in-edges gets 0.
template <typename Scalar>
void aggregate_forward(RowView<Scalar> out, const Graph& g, const Scalar* alpha, RowView<const Scalar> v, Index heads,
                       Index head_dim);

/// dalpha[p, h] = <dout_i,h, v_j,h> (by destination); dv_j,h = sum_{p: j -> i} alpha[p, h] * dout_i,h (by source).
template <typename Scalar>
void aggregate_backward(Scalar* dalpha, RowView<Scalar> dv, const Graph& g, const Scalar* alpha,
                        RowView<const Scalar> v, RowView<const Scalar> dout, Index heads, Index head_dim);

}  // namespace edgewise
