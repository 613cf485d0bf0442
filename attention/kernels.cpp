#include "edgewise/attention/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "edgewise/core/parallel.hpp"

namespace edgewise {
namespace {

using detail::exponentiate, detail::kPrefetchEdges, detail::leaky_relu, detail::leaky_relu_slope, detail::prefetch_row;
using detail::check_heads, detail::extent, detail::head_of, detail::overlap, detail::with_head_shape,
    detail::with_head_width;

// The [E, H] per-edge and [N, H] per-node arrays of a graph.
template <typename Scalar>
detail::Extent per_edge(const Scalar* values, const Graph& g, Index heads) {
  return extent(values, g.num_edges() * heads);
}
template <typename Scalar>
detail::Extent per_node(const Scalar* values, const Graph& g, Index heads) {
  return extent(values, g.num_nodes() * heads);
}

// Whether an output array is the input itself (where allowed) or shares no byte with it.
bool same_or_apart(const void* output, detail::Extent output_extent, const void* input,
                   detail::Extent input_extent) {
  return output == input || !overlap(output_extent, input_extent);
}

template <typename Scalar>
using Segment = Eigen::Map<Vector<Scalar>>;

// Prefetches the row of the node kPrefetchEdges places further in `nodes` (sources or targets), if any.
template <typename Scalar>
void prefetch_ahead(RowView<const Scalar> rows, std::span<const NodeId> nodes, Index position, Index width) {
  if (position + kPrefetchEdges < static_cast<Index>(nodes.size()))
    prefetch_row(rows.row(nodes[position + kPrefetchEdges]), width);
}

// Prefetches the [H] entries of a per-edge or per-node array for the edge `kPrefetchEdges` further
// along the by-source order, indexed through `indices` (positions, or targets): backward kernels read
// those arrays out of order there.
template <typename Scalar>
void prefetch_edge_ahead(const Scalar* values, std::span<const NodeId> indices, Index position, Index heads) {
  if (position + kPrefetchEdges < static_cast<Index>(indices.size()))
    __builtin_prefetch(values + indices[position + kPrefetchEdges] * heads);
}

// out_i,h = sum over the in-edges j -> i (CSR position p) of (factor * weights[p, h]) * rows_j,h, in
// edge order: the aggregation, and the queries' gradient of dot-product scores.
template <typename Scalar, int D, int H>
void sum_in_rows(RowView<Scalar> out, const Graph& g, const Scalar* weights, Scalar factor, RowView<const Scalar> rows,
                 detail::HeadWidth<D> d, detail::HeadCount<H> count) {
  const auto offsets = g.in_offsets();
  const auto sources = g.in_sources();
  const Index heads = count.size(), width = heads * d.size();
  parallel_for(g.num_nodes(), [&](Index i) {
    detail::RowSums<Scalar, D, H> sums(out.row(i), d, count);
    for (Index p = offsets[i]; p < offsets[i + 1]; ++p) {
      prefetch_ahead(rows, sources, p, width);
      for (Index h = 0; h < heads; ++h) sums.add(h, factor * weights[p * heads + h], rows.row(sources[p]));
    }
    sums.store();
  });
}

// out_j,h = sum over the out-edges j -> i (CSR position p) of (factor * weights[p, h]) * rows_i,h, in
// by-source order: the values' gradient of the aggregation, and the keys' of dot-product scores.
template <typename Scalar, int D, int H>
void sum_out_rows(RowView<Scalar> out, const Graph& g, const Scalar* weights, Scalar factor, RowView<const Scalar> rows,
                  detail::HeadWidth<D> d, detail::HeadCount<H> count) {
  const auto offsets = g.out_offsets();
  const auto targets = g.out_targets();
  const auto positions = g.out_positions();
  const Index heads = count.size(), width = heads * d.size();
  parallel_for(g.num_nodes(), [&](Index j) {
    detail::RowSums<Scalar, D, H> sums(out.row(j), d, count);
    for (Index s = offsets[j]; s < offsets[j + 1]; ++s) {
      prefetch_ahead(rows, targets, s, width);
      prefetch_edge_ahead(weights, positions, s, heads);
      for (Index h = 0; h < heads; ++h) sums.add(h, factor * weights[positions[s] * heads + h], rows.row(targets[s]));
    }
    sums.store();
  });
}

// softmax_weights on the in-edges [begin, end) of node i.
template <typename Scalar>
void softmax_weights_of_node(Scalar* alpha, const Scalar* weights, const Scalar* node_sum, Index i, Index begin,
                             Index end, Index heads) {
  for (Index p = begin; p < end; ++p)
    for (Index h = 0; h < heads; ++h) alpha[p * heads + h] = weights[p * heads + h] / node_sum[i * heads + h];
}

// The d(alpha) half of aggregate_backward on the in-edges [begin, end) of node i: <dout_i,h, v_j,h>.
template <typename Scalar, int D>
void value_dots_of_node(Scalar* dalpha, Index i, Index begin, Index end, std::span<const NodeId> sources,
                        RowView<const Scalar> v, RowView<const Scalar> dout, Index heads, detail::HeadWidth<D> d) {
  for (Index p = begin; p < end; ++p) {
    prefetch_ahead(v, sources, p, heads * d.size());
    for (Index h = 0; h < heads; ++h)
      dalpha[p * heads + h] = head_of(dout.row(i), h, d).dot(head_of(v.row(sources[p]), h, d));
  }
}

// edge_softmax_backward on the in-edges [begin, end) of one node; dscores may be dalpha.
template <typename Scalar>
void softmax_backward_of_node(Scalar* dscores, const Scalar* alpha, const Scalar* dalpha, Index begin, Index end,
                              Index heads) {
  for (Index h = 0; h < heads; ++h) {
    Scalar weighted = 0;
    for (Index p = begin; p < end; ++p) weighted += alpha[p * heads + h] * dalpha[p * heads + h];
    for (Index p = begin; p < end; ++p)
      dscores[p * heads + h] = alpha[p * heads + h] * (dalpha[p * heads + h] - weighted);
  }
}

}  // namespace

// --- Fused softmax attention ---------------------------------------------------------------------

template <typename Scalar>
void softmax_weights(Scalar* alpha, const Graph& g, const Scalar* weights, const Scalar* node_sum, Index heads) {
  EDGEWISE_CHECK(heads > 0 && !overlap(per_edge(alpha, g, heads), per_node(node_sum, g, heads)));
  EDGEWISE_CHECK(same_or_apart(alpha, per_edge(alpha, g, heads), weights, per_edge(weights, g, heads)));
  const auto offsets = g.in_offsets();
  parallel_for(g.num_nodes(), [&](Index i) {
    softmax_weights_of_node(alpha, weights, node_sum, i, offsets[i], offsets[i + 1], heads);
  });
}

// --- Scores ---------------------------------------------------------------------------------------

template <typename Scalar>
void dot_scores_forward(Scalar* scores, const Graph& g, RowView<const Scalar> q, RowView<const Scalar> k, Index heads,
                        Index head_dim, Scalar scale) {
  check_heads(heads, head_dim, q, k);
  const Index n = g.num_nodes(), e = g.num_edges(), w = heads * head_dim;
  EDGEWISE_CHECK(!overlap(q, w, n, scores, e * heads) && !overlap(k, w, n, scores, e * heads));
  edge_scores_forward(scores, g, heads, head_dim, DotScore<Scalar>{q, k, scale});
}

template <typename Scalar>
void dot_scores_backward(RowView<Scalar> dq, RowView<Scalar> dk, const Graph& g, RowView<const Scalar> q,
                         RowView<const Scalar> k, const Scalar* dscores, Index heads, Index head_dim, Scalar scale) {
  check_heads(heads, head_dim, dq, dk, q, k);
  const Index width = heads * head_dim, n = g.num_nodes(), e = g.num_edges();
  EDGEWISE_CHECK(!overlap(dq, width, dk, width, n));
  for (const RowView<Scalar> out : {dq, dk})
    EDGEWISE_CHECK(!overlap(out, width, q, width, n) && !overlap(out, width, k, width, n) &&
                   !overlap(out, width, n, dscores, e * heads));
  with_head_shape(heads, head_dim, [&](auto d, auto count) {
    sum_in_rows(dq, g, dscores, scale, k, d, count);
    sum_out_rows(dk, g, dscores, scale, q, d, count);
  });
}

template <typename Scalar>
void additive_scores_forward(Scalar* scores, const Graph& g, const Scalar* src_term, const Scalar* dst_term,
                             Index heads, Scalar negative_slope) {
  EDGEWISE_CHECK(heads > 0);
  const detail::Extent out = per_edge(scores, g, heads);
  EDGEWISE_CHECK(!overlap(out, per_node(src_term, g, heads)) && !overlap(out, per_node(dst_term, g, heads)));
  // Additive scores read no rows of head width: any width serves.
  edge_scores_forward(scores, g, heads, 1, AdditiveScore<Scalar>{src_term, dst_term, heads, negative_slope});
}

template <typename Scalar>
void additive_scores_backward(Scalar* dsrc_term, Scalar* ddst_term, const Graph& g, const Scalar* src_term,
                              const Scalar* dst_term, const Scalar* dscores, Index heads, Scalar negative_slope) {
  EDGEWISE_CHECK(heads > 0 && !overlap(per_node(dsrc_term, g, heads), per_node(ddst_term, g, heads)));
  for (const Scalar* out : {dsrc_term, ddst_term})
    EDGEWISE_CHECK(!overlap(per_node(out, g, heads), per_node(src_term, g, heads)) &&
                   !overlap(per_node(out, g, heads), per_node(dst_term, g, heads)) &&
                   !overlap(per_node(out, g, heads), per_edge(dscores, g, heads)));
  const auto in_offsets = g.in_offsets();
  const auto sources = g.in_sources();
  // Head by head, each head's sum in a register and in edge order; a node's gathered entries stay in
  // the cache from the first head to the last.
  parallel_for(g.num_nodes(), [&](Index i) {
    for (Index h = 0; h < heads; ++h) {
      const Scalar dst = dst_term[i * heads + h];
      Scalar sum = 0;
      for (Index p = in_offsets[i]; p < in_offsets[i + 1]; ++p)
        sum += dscores[p * heads + h] * leaky_relu_slope(dst + src_term[sources[p] * heads + h], negative_slope);
      ddst_term[i * heads + h] = sum;
    }
  });
  const auto out_offsets = g.out_offsets();
  const auto targets = g.out_targets();
  const auto positions = g.out_positions();
  parallel_for(g.num_nodes(), [&](Index j) {
    for (Index s = out_offsets[j]; s < out_offsets[j + 1]; ++s) {
      prefetch_edge_ahead(dscores, positions, s, heads);
      prefetch_edge_ahead(dst_term, targets, s, heads);
    }
    for (Index h = 0; h < heads; ++h) {
      const Scalar src = src_term[j * heads + h];
      Scalar sum = 0;
      for (Index s = out_offsets[j]; s < out_offsets[j + 1]; ++s)
        sum += dscores[positions[s] * heads + h] *
               leaky_relu_slope(dst_term[targets[s] * heads + h] + src, negative_slope);
      dsrc_term[j * heads + h] = sum;
    }
  });
}

template <typename Scalar>
void gatv2_scores_forward(Scalar* scores, const Graph& g, RowView<const Scalar> x_src, RowView<const Scalar> x_dst,
                          const Scalar* att, Index heads, Index head_dim, Scalar negative_slope) {
  check_heads(heads, head_dim, x_src, x_dst);
  const Index n = g.num_nodes(), w = heads * head_dim;
  const detail::Extent out = per_edge(scores, g, heads);
  EDGEWISE_CHECK(!overlap(x_src, w, n, scores, g.num_edges() * heads) &&
                 !overlap(x_dst, w, n, scores, g.num_edges() * heads) && !overlap(out, extent(att, w)));
  edge_scores_forward(scores, g, heads, head_dim, Gatv2Score<Scalar>{x_src, x_dst, att, negative_slope});
}

template <typename Scalar>
void gatv2_scores_backward(RowView<Scalar> dx_src, RowView<Scalar> dx_dst, Scalar* datt, const Graph& g,
                           RowView<const Scalar> x_src, RowView<const Scalar> x_dst, const Scalar* att,
                           const Scalar* dscores, Index heads, Index head_dim, Scalar negative_slope) {
  check_heads(heads, head_dim, dx_src, dx_dst, x_src, x_dst);
  const Index width = heads * head_dim, n = g.num_nodes(), e = g.num_edges();
  EDGEWISE_CHECK(!overlap(dx_src, width, dx_dst, width, n));
  for (const RowView<Scalar> out : {dx_src, dx_dst})
    EDGEWISE_CHECK(!overlap(out, width, x_src, width, n) && !overlap(out, width, x_dst, width, n) &&
                   !overlap(out, width, n, dscores, e * heads) && !overlap(out, width, n, att, width) &&
                   !overlap(out, width, n, datt, width));
  const auto in_offsets = g.in_offsets();
  const auto sources = g.in_sources();
  const auto out_offsets = g.out_offsets();
  const auto targets = g.out_targets();
  const auto positions = g.out_positions();
  // d(att) is a sum over all edges: each destination writes its share to its own row, and the rows
  // are added in node order afterwards, so the result does not depend on the thread count.
  Matrix<Scalar> datt_by_node = Matrix<Scalar>::Zero(g.num_nodes(), width);
  with_head_width(head_dim, [&](auto d) {
    parallel_for(g.num_nodes(), [&](Index i) {
      Scalar* dst_grad = dx_dst.row(i);
      Scalar* att_grad = datt_by_node.row(i).data();
      std::fill(dst_grad, dst_grad + width, Scalar(0));
      const Scalar* dst_row = x_dst.row(i);
      for (Index p = in_offsets[i]; p < in_offsets[i + 1]; ++p) {
        prefetch_ahead(x_src, sources, p, width);
        const Scalar* src_row = x_src.row(sources[p]);
        for (Index h = 0; h < heads; ++h) {
          const Scalar ds = dscores[p * heads + h];
          for (Index c = h * d.size(); c < (h + 1) * d.size(); ++c) {
            const Scalar u = src_row[c] + dst_row[c];
            dst_grad[c] += ds * att[c] * leaky_relu_slope(u, negative_slope);
            att_grad[c] += ds * leaky_relu(u, negative_slope);
          }
        }
      }
    });
    parallel_for(g.num_nodes(), [&](Index j) {
      Scalar* src_grad = dx_src.row(j);
      std::fill(src_grad, src_grad + width, Scalar(0));
      const Scalar* src_row = x_src.row(j);
      for (Index s = out_offsets[j]; s < out_offsets[j + 1]; ++s) {
        prefetch_ahead(x_dst, targets, s, width);
        prefetch_edge_ahead(dscores, positions, s, heads);
        const Scalar* dst_row = x_dst.row(targets[s]);
        for (Index h = 0; h < heads; ++h) {
          const Scalar ds = dscores[positions[s] * heads + h];
          for (Index c = h * d.size(); c < (h + 1) * d.size(); ++c)
            src_grad[c] += ds * att[c] * leaky_relu_slope(src_row[c] + dst_row[c], negative_slope);
        }
      }
    });
  });
  add_row_sums(Segment<Scalar>(datt, width).transpose(), datt_by_node);
}

// --- Normalization over in-edges -----------------------------------------------------------------

template <typename Scalar>
void edge_softmax_forward(Scalar* alpha, const Graph& g, const Scalar* scores, Index heads) {
  EDGEWISE_CHECK(heads > 0 && same_or_apart(alpha, per_edge(alpha, g, heads), scores, per_edge(scores, g, heads)));
  const auto offsets = g.in_offsets();
  parallel_for(g.num_nodes(), [&](Index i) {
    const Index begin = offsets[i], end = offsets[i + 1];
    for (Index h = 0; h < heads; ++h) {
      Scalar max_score = -std::numeric_limits<Scalar>::infinity();
      for (Index p = begin; p < end; ++p) max_score = std::max(max_score, scores[p * heads + h]);
      for (Index p = begin; p < end; ++p) alpha[p * heads + h] = scores[p * heads + h] - max_score;
    }
    exponentiate(alpha + begin * heads, (end - begin) * heads);
    for (Index h = 0; h < heads; ++h) {
      Scalar sum = 0;
      for (Index p = begin; p < end; ++p) sum += alpha[p * heads + h];
      // sum >= 1: the maximal edge contributes exp(0).
      const Scalar inverse = Scalar(1) / sum;
      for (Index p = begin; p < end; ++p) alpha[p * heads + h] *= inverse;
    }
  });
}

template <typename Scalar>
void edge_softmax_backward(Scalar* dscores, const Graph& g, const Scalar* alpha, const Scalar* dalpha, Index heads) {
  const detail::Extent out = per_edge(dscores, g, heads);
  EDGEWISE_CHECK(heads > 0 && !overlap(out, per_edge(alpha, g, heads)));
  EDGEWISE_CHECK(same_or_apart(dscores, out, dalpha, per_edge(dalpha, g, heads)));
  const auto offsets = g.in_offsets();
  parallel_for(g.num_nodes(),
               [&](Index i) { softmax_backward_of_node(dscores, alpha, dalpha, offsets[i], offsets[i + 1], heads); });
}

template <typename Scalar>
void edge_relu_forward(Scalar* alpha, const Graph& g, const Scalar* scores, Index heads) {
  EDGEWISE_CHECK(heads > 0 && same_or_apart(alpha, per_edge(alpha, g, heads), scores, per_edge(scores, g, heads)));
  const auto offsets = g.in_offsets();
  parallel_for(g.num_nodes(), [&](Index i) {
    const Index begin = offsets[i], end = offsets[i + 1];
    const Scalar inverse_degree = Scalar(1) / static_cast<Scalar>(std::max<Index>(end - begin, 1));
    for (Index p = begin * heads; p < end * heads; ++p) alpha[p] = std::max(scores[p], Scalar(0)) * inverse_degree;
  });
}

template <typename Scalar>
void edge_relu_backward(Scalar* dscores, const Graph& g, const Scalar* scores, const Scalar* dalpha, Index heads) {
  const detail::Extent out = per_edge(dscores, g, heads);
  EDGEWISE_CHECK(heads > 0 && !overlap(out, per_edge(scores, g, heads)));
  EDGEWISE_CHECK(same_or_apart(dscores, out, dalpha, per_edge(dalpha, g, heads)));
  const auto offsets = g.in_offsets();
  parallel_for(g.num_nodes(), [&](Index i) {
    const Index begin = offsets[i], end = offsets[i + 1];
    const Scalar inverse_degree = Scalar(1) / static_cast<Scalar>(std::max<Index>(end - begin, 1));
    for (Index p = begin * heads; p < end * heads; ++p)
      dscores[p] = scores[p] > 0 ? dalpha[p] * inverse_degree : Scalar(0);
  });
}

// --- Aggregation ---------------------------------------------------------------------------------

template <typename Scalar>
void aggregate_forward(RowView<Scalar> out, const Graph& g, const Scalar* alpha, RowView<const Scalar> v, Index heads,
                       Index head_dim) {
  check_heads(heads, head_dim, out, v);
  const Index n = g.num_nodes(), w = heads * head_dim;
  EDGEWISE_CHECK(!overlap(out, w, v, w, n) && !overlap(out, w, n, alpha, g.num_edges() * heads));
  // A factor of 1 leaves each weight as it is, exactly.
  with_head_shape(heads, head_dim, [&](auto d, auto count) { sum_in_rows(out, g, alpha, Scalar(1), v, d, count); });
}

template <typename Scalar>
void aggregate_backward(Scalar* dalpha, RowView<Scalar> dv, const Graph& g, const Scalar* alpha,
                        RowView<const Scalar> v, RowView<const Scalar> dout, Index heads, Index head_dim) {
  check_heads(heads, head_dim, dv, v, dout);
  const Index n = g.num_nodes(), e = g.num_edges(), w = heads * head_dim;
  EDGEWISE_CHECK(!overlap(per_edge(dalpha, g, heads), per_edge(alpha, g, heads)) &&
                 !overlap(dv, w, n, alpha, e * heads));
  for (const RowView<const Scalar> input : {v, dout})
    EDGEWISE_CHECK(!overlap(input, w, n, dalpha, e * heads) && !overlap(dv, w, input, w, n));
  EDGEWISE_CHECK(!overlap(dv, w, n, dalpha, e * heads));
  const auto in_offsets = g.in_offsets();
  const auto sources = g.in_sources();
  with_head_shape(heads, head_dim, [&](auto d, auto count) {
    parallel_for(g.num_nodes(), [&](Index i) {
      value_dots_of_node(dalpha, i, in_offsets[i], in_offsets[i + 1], sources, v, dout, heads, d);
    });
    sum_out_rows(dv, g, alpha, Scalar(1), dout, d, count);
  });
}

// By destination, one node at a time: softmax_weights, the d(alpha) half of aggregate_backward and
// edge_softmax_backward, each node's in-edges still in cache for the next step; then dv by source.
template <typename Scalar>
void softmax_attend_backward(Scalar* dscores, RowView<Scalar> dv, Scalar* alpha, const Graph& g, const Scalar* weights,
                             const Scalar* node_sum, RowView<const Scalar> v, RowView<const Scalar> dout, Index heads,
                             Index head_dim) {
  check_heads(heads, head_dim, dv, v, dout);
  const Index n = g.num_nodes(), e = g.num_edges(), w = heads * head_dim;
  const detail::Extent alpha_extent = per_edge(alpha, g, heads), dscores_extent = per_edge(dscores, g, heads);
  EDGEWISE_CHECK(!overlap(alpha_extent, per_node(node_sum, g, heads)) &&
                 !overlap(dscores_extent, per_node(node_sum, g, heads)));
  EDGEWISE_CHECK(same_or_apart(alpha, alpha_extent, weights, per_edge(weights, g, heads)) &&
                 !overlap(dscores_extent, alpha_extent) && !overlap(dscores_extent, per_edge(weights, g, heads)));
  for (const RowView<const Scalar> input : {v, dout})
    EDGEWISE_CHECK(!overlap(input, w, n, dscores, e * heads) && !overlap(input, w, n, alpha, e * heads) &&
                   !overlap(dv, w, input, w, n));
  EDGEWISE_CHECK(!overlap(dv, w, n, dscores, e * heads) && !overlap(dv, w, n, alpha, e * heads));
  const auto in_offsets = g.in_offsets();
  const auto sources = g.in_sources();
  with_head_shape(heads, head_dim, [&](auto d, auto count) {
    parallel_for(n, [&](Index i) {
      const Index begin = in_offsets[i], end = in_offsets[i + 1];
      softmax_weights_of_node(alpha, weights, node_sum, i, begin, end, heads);
      value_dots_of_node(dscores, i, begin, end, sources, v, dout, heads, d);
      softmax_backward_of_node(dscores, alpha, dscores, begin, end, heads);
    });
    sum_out_rows(dv, g, alpha, Scalar(1), dout, d, count);
  });
}

#define EDGEWISE_INSTANTIATE_KERNELS(Scalar)                                                                          \
  template void softmax_weights(Scalar*, const Graph&, const Scalar*, const Scalar*, Index);                           \
  template void softmax_attend_backward(Scalar*, RowView<Scalar>, Scalar*, const Graph&, const Scalar*,               \
                                        const Scalar*, RowView<const Scalar>, RowView<const Scalar>, Index, Index);   \
  template void dot_scores_forward(Scalar*, const Graph&, RowView<const Scalar>, RowView<const Scalar>, Index, Index, \
                                   Scalar);                                                                           \
  template void dot_scores_backward(RowView<Scalar>, RowView<Scalar>, const Graph&, RowView<const Scalar>,            \
                                    RowView<const Scalar>, const Scalar*, Index, Index, Scalar);                      \
  template void additive_scores_forward(Scalar*, const Graph&, const Scalar*, const Scalar*, Index, Scalar);          \
  template void additive_scores_backward(Scalar*, Scalar*, const Graph&, const Scalar*, const Scalar*, const Scalar*, \
                                         Index, Scalar);                                                              \
  template void gatv2_scores_forward(Scalar*, const Graph&, RowView<const Scalar>, RowView<const Scalar>,             \
                                     const Scalar*, Index, Index, Scalar);                                            \
  template void gatv2_scores_backward(RowView<Scalar>, RowView<Scalar>, Scalar*, const Graph&, RowView<const Scalar>, \
                                      RowView<const Scalar>, const Scalar*, const Scalar*, Index, Index, Scalar);     \
  template void edge_softmax_forward(Scalar*, const Graph&, const Scalar*, Index);                                    \
  template void edge_softmax_backward(Scalar*, const Graph&, const Scalar*, const Scalar*, Index);                    \
  template void edge_relu_forward(Scalar*, const Graph&, const Scalar*, Index);                                       \
  template void edge_relu_backward(Scalar*, const Graph&, const Scalar*, const Scalar*, Index);                       \
  template void aggregate_forward(RowView<Scalar>, const Graph&, const Scalar*, RowView<const Scalar>, Index, Index); \
  template void aggregate_backward(Scalar*, RowView<Scalar>, const Graph&, const Scalar*, RowView<const Scalar>,      \
                                   RowView<const Scalar>, Index, Index);

EDGEWISE_INSTANTIATE_KERNELS(float)
EDGEWISE_INSTANTIATE_KERNELS(double)

}  // namespace edgewise
