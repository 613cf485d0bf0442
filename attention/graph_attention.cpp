#include "edgewise/attention/graph_attention.hpp"

#include <algorithm>
#include <cmath>

#include "edgewise/attention/kernels.hpp"
#include "edgewise/core/dropout.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/core/products.hpp"

namespace edgewise {

namespace {

void check_options(const GraphAttentionOptions& o) {
  if (o.in_dim <= 0 || o.heads <= 0 || o.head_dim <= 0)
    throw ArgumentError("GraphAttention: in_dim, heads and head_dim must be positive (got " + std::to_string(o.in_dim) +
                        ", " + std::to_string(o.heads) + ", " + std::to_string(o.head_dim) + ")");
  if (o.edge_dim < 0 || o.out_dim < 0) throw ArgumentError("GraphAttention: edge_dim and out_dim must not be negative");
  if (!(o.value_dropout >= 0.0 && o.value_dropout < 1.0))
    throw ArgumentError("GraphAttention: value_dropout must be in [0, 1), got " + std::to_string(o.value_dropout));
  if (!(o.attention_dropout >= 0.0 && o.attention_dropout < 1.0))
    throw ArgumentError("GraphAttention: attention_dropout must be in [0, 1), got " +
                        std::to_string(o.attention_dropout));
  if (!o.output_projection && o.out_dim != 0)
    throw ArgumentError("GraphAttention: out_dim needs output_projection");
}

// The attention-dropout mask, keep: [E, H] in CSR order, each entry 0 with probability `rate`, else
// 1 / (1 - rate), from a stream keyed by one draw from rng. Head h of edge j -> i draws item
// edge_draw_index(i, j, H, h) by graph-wide ids (`ids`, or the local ids when null): not by its CSR
// position, which differs between a graph and a sampled block of it.
template <typename Scalar>
void draw_edge_dropout_mask(Matrix<Scalar>& keep, const Graph& g, Index heads, double rate, SplitMix64& rng,
                            const std::int32_t* ids) {
  const std::uint64_t key = rng.next(), threshold = keep_threshold(rate);
  const auto scale = static_cast<Scalar>(1.0 / (1.0 - rate));
  keep.resize(g.num_edges(), heads);
  Scalar* out = keep.data();
  const auto offsets = g.in_offsets();
  const auto sources = g.in_sources();
  parallel_for(g.num_nodes(), [&](Index i) {
    const Index target = ids ? ids[i] : i;
    for (Index p = offsets[i]; p < offsets[i + 1]; ++p) {
      const Index source = ids ? ids[sources[p]] : sources[p];
      for (Index h = 0; h < heads; ++h)
        out[p * heads + h] = keep_factor(key, edge_draw_index(target, source, heads, h), threshold, scale);
    }
  });
}

// out = a .* b across threads, by blocks of rows (out may be a; a may be a block of columns). Each
// element is one product, so the result does not depend on the split.
template <typename Scalar, typename Lhs>
void multiply_elements(Matrix<Scalar>& out, const Lhs& a, const Matrix<Scalar>& b) {
  out.resize(b.rows(), b.cols());
  parallel_for_row_blocks(b.rows(), b.cols(), [&](Index begin, Index end) {
    const Index rows = end - begin;
    out.middleRows(begin, rows) = a.middleRows(begin, rows).cwiseProduct(b.middleRows(begin, rows));
  });
}

// out = a + row (each row of a plus the row vector), across threads.
template <typename Scalar, typename Rows, typename Row>
void add_to_rows(Matrix<Scalar>& out, const Rows& a, const Row& row) {
  out.resize(a.rows(), a.cols());
  parallel_for_row_blocks(a.rows(), a.cols(), [&](Index begin, Index end) {
    out.middleRows(begin, end - begin) = a.middleRows(begin, end - begin).rowwise() + row;
  });
}

// out = a, across threads; out may be a block of the right shape.
template <typename Out, typename Rows>
void copy_rows(Out&& out, const Rows& a) {
  out.resize(a.rows(), a.cols());
  parallel_for_row_blocks(a.rows(), a.cols(), [&](Index begin, Index end) {
    out.middleRows(begin, end - begin) = a.middleRows(begin, end - begin);
  });
}

}  // namespace

ScoreFunction parse_score_function(const std::string& name) {
  return value_named(kScoreFunctionNames, name, "score function");
}

std::vector<std::string> score_function_names() { return names_in(kScoreFunctionNames); }

std::string to_string(ScoreFunction score) { return name_of(kScoreFunctionNames, score); }

Normalization parse_normalization(const std::string& name) {
  return value_named(kNormalizationNames, name, "normalization");
}

std::string to_string(Normalization normalization) { return name_of(kNormalizationNames, normalization); }

template <typename Scalar>
GraphAttention<Scalar>::GraphAttention(Parameters<Scalar>& params, const std::string& name,
                                       const GraphAttentionOptions& options)
    : params_(params), options_(options) {
  check_options(options_);
  const Index h = options_.heads, d = options_.head_dim;
  w_in_ = params_.add(name + ".w_in", options_.in_dim, projection_width());
  if (options_.score == ScoreFunction::additive) {
    att_src_ = params_.add(name + ".att_src", h, d);
    att_dst_ = params_.add(name + ".att_dst", h, d);
  }
  if (options_.score == ScoreFunction::gatv2) att_dst_ = params_.add(name + ".att", h, d);
  if (options_.score == ScoreFunction::bilinear) bilinear_ = params_.add(name + ".bilinear", h, d * d);
  if (options_.edge_dim > 0) w_edge_ = params_.add(name + ".w_edge", options_.edge_dim, h);
  if (options_.output_projection) w_out_ = params_.add(name + ".w_out", combined_dim(), out_dim());
  if (options_.bias) b_out_ = params_.add(name + ".b_out", 1, out_dim());
}

template <typename Scalar>
Index GraphAttention<Scalar>::out_dim() const {
  return options_.out_dim > 0 ? options_.out_dim : combined_dim();
}

template <typename Scalar>
bool GraphAttention<Scalar>::uses_query_key_value() const {
  return options_.score == ScoreFunction::scaled_dot || options_.score == ScoreFunction::dot ||
         options_.score == ScoreFunction::bilinear;
}

// Column blocks of the fused input projection: q | k | v for dot-product scores, z for additive,
// x_src | x_dst for gatv2.
template <typename Scalar>
Index GraphAttention<Scalar>::projection_width() const {
  if (uses_query_key_value()) return 3 * width();
  return options_.score == ScoreFunction::gatv2 ? 2 * width() : width();
}

template <typename Scalar>
RowView<const Scalar> GraphAttention<Scalar>::values() const {
  return read_rows(projected_, uses_query_key_value() ? 2 * width() : 0);
}

// Where backward writes d(values): their own columns of d(projected), which the scores' backward
// then completes, so no [N, H*d] buffer is copied in. gatv2's backward overwrites the columns its
// values share with the source terms, so it gets a buffer of its own and adds it after.
template <typename Scalar>
RowView<Scalar> GraphAttention<Scalar>::value_gradient_rows() {
  if (options_.score != ScoreFunction::gatv2) return rows_of(dprojected_, uses_query_key_value() ? 2 * width() : 0);
  dvalues_.resize(graph_->num_nodes(), width());
  return rows_of(dvalues_);
}

// The values the aggregation multiplies: dropped out in training with value dropout.
template <typename Scalar>
RowView<const Scalar> GraphAttention<Scalar>::aggregated_values() const {
  return values_dropped_ ? read_rows(values_used_) : values();
}

template <typename Scalar>
void GraphAttention<Scalar>::reset_parameters(SplitMix64& rng) {
  const Index h = options_.heads, d = options_.head_dim;
  glorot_uniform(params_.value(w_in_), options_.in_dim, width(), rng);
  if (att_src_.slot >= 0) glorot_uniform(params_.value(att_src_), d, 1, rng);
  if (att_dst_.slot >= 0) glorot_uniform(params_.value(att_dst_), d, 1, rng);
  if (bilinear_.slot >= 0) {
    // Starts as scaled dot-product attention.
    auto w = params_.value(bilinear_);
    w.setZero();
    for (Index head = 0; head < h; ++head)
      for (Index c = 0; c < d; ++c) w(head, c * d + c) = Scalar(1) / std::sqrt(static_cast<Scalar>(d));
  }
  if (w_edge_.slot >= 0) glorot_uniform(params_.value(w_edge_), options_.edge_dim, h, rng);
  if (w_out_.slot >= 0) glorot_uniform(params_.value(w_out_), combined_dim(), out_dim(), rng);
  if (b_out_.slot >= 0) params_.value(b_out_).setZero();
}

template <typename Scalar>
const Matrix<Scalar>& GraphAttention<Scalar>::forward(const Graph& graph, const ConstRowsRef<Scalar>& x,
                                                      const Matrix<Scalar>* edge_features, Mode mode) {
  x_.emplace(x);
  sparse_x_ = nullptr;
  return project_and_attend(graph, x, edge_features, mode);
}

template <typename Scalar>
const Matrix<Scalar>& GraphAttention<Scalar>::forward(const Graph& graph, const SparseMatrix<Scalar>& x,
                                                      const Matrix<Scalar>* edge_features, Mode mode) {
  x_.reset();
  sparse_x_ = &x;
  if (!x.isCompressed()) {
    compressed_x_ = x;
    compressed_x_.makeCompressed();
    sparse_x_ = &compressed_x_;
  }
  return project_and_attend(graph, *sparse_x_, edge_features, mode);
}

template <typename Scalar>
template <typename Input>
const Matrix<Scalar>& GraphAttention<Scalar>::project_and_attend(const Graph& graph, const Input& x,
                                                                 const Matrix<Scalar>* edge_features, Mode mode) {
  if (x.rows() != graph.num_nodes() || x.cols() != options_.in_dim)
    throw ArgumentError("GraphAttention: x is [" + std::to_string(x.rows()) + ", " + std::to_string(x.cols()) +
                        "], expected [" + std::to_string(graph.num_nodes()) + ", " + std::to_string(options_.in_dim) +
                        "]");
  if (options_.edge_dim > 0 && (edge_features == nullptr || edge_features->rows() != graph.num_edges() ||
                                edge_features->cols() != options_.edge_dim))
    throw ArgumentError("GraphAttention: edge features must be [" + std::to_string(graph.num_edges()) + ", " +
                        std::to_string(options_.edge_dim) + "]");
  if (mode.training && (options_.attention_dropout > 0 || options_.value_dropout > 0) && mode.rng == nullptr)
    throw ArgumentError("GraphAttention: training with dropout needs a random generator");
  if (!mode.node_ids.empty() && static_cast<Index>(mode.node_ids.size()) < graph.num_nodes())
    throw ArgumentError("GraphAttention: " + std::to_string(mode.node_ids.size()) + " node ids for a graph of " +
                        std::to_string(graph.num_nodes()) + " nodes");
  graph_ = &graph;
  edge_features_ = options_.edge_dim > 0 ? edge_features : nullptr;

  multiply(projected_, x, params_.value(w_in_));
  compute_score_terms();
  aggregated_.resize(graph.num_nodes(), width());
  fused_ = options_.normalization == Normalization::softmax && !(mode.training && options_.attention_dropout > 0);
  if (fused_) {
    if (edge_features_ != nullptr) place_edge_bias(false);
    keep_.resize(0, 0);
    drop_values(mode);
    attend_fused();
  } else if (options_.normalization == Normalization::softmax) {
    attend_with_dropout(mode);
  } else {
    compute_scores();
    if (edge_features_ != nullptr) place_edge_bias(true);
    normalize_relu(mode);
    drop_values(mode);
    const Scalar* alpha = keep_.size() > 0 ? alpha_used_.data() : alpha_.data();
    aggregate_forward(rows_of(aggregated_), graph, alpha, aggregated_values(), options_.heads, options_.head_dim);
  }
  combine_heads_and_project();
  return output();
}

// The per-node terms some scores are made of: a_src . z and a_dst . z (additive), q_i^T W_h (bilinear).
template <typename Scalar>
void GraphAttention<Scalar>::compute_score_terms() {
  const Graph& g = *graph_;
  const Index h = options_.heads, d = options_.head_dim;
  if (options_.score == ScoreFunction::bilinear) {
    query_map_.resize(g.num_nodes(), width());
    for (Index head = 0; head < h; ++head)
      multiply(query_map_.middleCols(head * d, d), projected_.middleCols(head * d, d),
               ConstMatrixMap<Scalar>(params_.value(bilinear_).row(head).data(), d, d));
  }
  if (options_.score == ScoreFunction::additive) {
    src_terms_.resize(g.num_nodes(), h);
    dst_terms_.resize(g.num_nodes(), h);
    const Scalar* att_src = params_.value(att_src_).data();  // [H, d], a row a head
    const Scalar* att_dst = params_.value(att_dst_).data();
    detail::with_head_width(d, [&](auto width) {
      parallel_for(g.num_nodes(), [&](Index i) {
        const Scalar* z = projected_.row(i).data();
        for (Index head = 0; head < h; ++head) {
          const auto z_head = detail::head_of(z, head, width);
          src_terms_(i, head) = z_head.dot(detail::head_of(att_src, head, width));
          dst_terms_(i, head) = z_head.dot(detail::head_of(att_dst, head, width));
        }
      });
    });
  }
}

// Calls run(score) with the score function of the options, evaluated on this forward's projections.
template <typename Scalar>
template <typename Run>
void GraphAttention<Scalar>::with_score_function(Run&& run) const {
  const Index h = options_.heads, d = options_.head_dim, w = width();
  const auto slope = static_cast<Scalar>(options_.negative_slope);
  switch (options_.score) {
    case ScoreFunction::scaled_dot:
    case ScoreFunction::dot: {
      const Scalar scale = options_.score == ScoreFunction::dot ? Scalar(1) : Scalar(1) / std::sqrt(Scalar(d));
      run(DotScore<Scalar>{read_rows(projected_, 0), read_rows(projected_, w), scale});
      break;
    }
    case ScoreFunction::bilinear:
      run(DotScore<Scalar>{read_rows(query_map_), read_rows(projected_, w), Scalar(1)});
      break;
    case ScoreFunction::additive:
      run(AdditiveScore<Scalar>{src_terms_.data(), dst_terms_.data(), h, slope});
      break;
    case ScoreFunction::gatv2:
      run(Gatv2Score<Scalar>{read_rows(projected_, 0), read_rows(projected_, w), params_.value(att_dst_).data(),
                             slope});
      break;
  }
}

// Softmax attention without attention dropout: scores, normalization and aggregation in one pass.
// scores_ holds the edge bias, if any, on entry, and the unnormalized weights on return.
template <typename Scalar>
void GraphAttention<Scalar>::attend_fused() {
  const Graph& g = *graph_;
  const Index h = options_.heads;
  scores_.resize(g.num_edges(), h);
  node_sum_.resize(g.num_nodes(), h);
  const Scalar* bias = edge_features_ != nullptr ? scores_.data() : nullptr;
  with_score_function([&](const auto& score) {
    softmax_attend_forward(rows_of(aggregated_), scores_.data(), node_sum_.data(), g, aggregated_values(), h,
                           options_.head_dim, score, bias);
  });
}

// Softmax attention in training with attention dropout: the weights, their mask and the aggregation
// in one pass (softmax_dropout_attend_forward). The mask's key is drawn before the value dropout's, as
// in the separate kernels' order (normalize, then drop_values).
template <typename Scalar>
void GraphAttention<Scalar>::attend_with_dropout(Mode mode) {
  const Graph& g = *graph_;
  const Index h = options_.heads;
  if (edge_features_ != nullptr) place_edge_bias(false);
  const Scalar* bias = edge_features_ != nullptr ? scores_.data() : nullptr;
  const std::uint64_t key = mode.rng->next(), threshold = keep_threshold(options_.attention_dropout);
  const auto scale = static_cast<Scalar>(1.0 / (1.0 - options_.attention_dropout));
  const std::int32_t* ids = mode.node_ids.data();
  const auto keep_scale = [=](Index i, Index j, Index head) {
    return keep_factor(key, edge_draw_index(ids ? ids[i] : i, ids ? ids[j] : j, h, head), threshold, scale);
  };
  drop_values(mode);
  alpha_.resize(g.num_edges(), h);
  keep_.resize(g.num_edges(), h);
  alpha_used_.resize(g.num_edges(), h);
  with_score_function([&](const auto& score) {
    softmax_dropout_attend_forward(rows_of(aggregated_), alpha_.data(), keep_.data(), alpha_used_.data(), g,
                                   aggregated_values(), h, options_.head_dim, score, bias, keep_scale);
  });
}

template <typename Scalar>
void GraphAttention<Scalar>::compute_scores() {
  scores_.resize(graph_->num_edges(), options_.heads);
  with_score_function([&](const auto& score) {
    edge_scores_forward(scores_.data(), *graph_, options_.heads, options_.head_dim, score);
  });
}

// scores[p, h] = (or +=, when accumulate) (edge_features . W_e)[e, h] for the edge e at position p.
template <typename Scalar>
void GraphAttention<Scalar>::place_edge_bias(bool accumulate) {
  multiply(edge_bias_, *edge_features_, params_.value(w_edge_));
  scores_.resize(graph_->num_edges(), options_.heads);
  const auto positions = graph_->edge_positions();
  parallel_for(graph_->num_edges(), [&](Index e) {
    if (accumulate)
      scores_.row(positions[e]) += edge_bias_.row(e);
    else
      scores_.row(positions[e]) = edge_bias_.row(e);
  });
}

// ReLU normalization and, when training with it, attention dropout's mask. (Softmax runs in
// attend_fused or attend_with_dropout.)
template <typename Scalar>
void GraphAttention<Scalar>::normalize_relu(Mode mode) {
  const Graph& g = *graph_;
  alpha_.resize(g.num_edges(), options_.heads);
  edge_relu_forward(alpha_.data(), g, scores_.data(), options_.heads);

  const double rate = options_.attention_dropout;
  if (!mode.training || rate == 0.0) {
    keep_.resize(0, 0);
    return;
  }
  draw_edge_dropout_mask(keep_, g, options_.heads, rate, *mode.rng, mode.node_ids.data());
  multiply_elements(alpha_used_, alpha_, keep_);
}

template <typename Scalar>
void GraphAttention<Scalar>::drop_values(Mode mode) {
  const double rate = options_.value_dropout;
  values_dropped_ = mode.training && rate > 0.0;
  if (!values_dropped_) return;
  value_key_ = mode.rng->next();
  value_ids_.assign(mode.node_ids.begin(), mode.node_ids.end());
  values_used_.resize(graph_->num_nodes(), width());
  const Index offset = uses_query_key_value() ? 2 * width() : 0;
  apply_value_dropout(rows_of(values_used_), {projected_.data() + offset, projected_.cols()});
}

// out = in after value dropout: element (r, c) draws item id * H*d + c of the stream keyed by
// value_key_, id being the node's graph-wide id (value_ids_, or r), so that a node drops the same
// values in a sampled block as in the whole graph. Drawn again in backward rather than stored.
template <typename Scalar>
void GraphAttention<Scalar>::apply_value_dropout(RowView<Scalar> out, RowView<const Scalar> in) const {
  drop_rows(out, in, graph_->num_nodes(), width(), value_key_, options_.value_dropout,
            value_ids_.empty() ? nullptr : value_ids_.data());
}

// The rows of the graph's targets only: in a sampled block the other nodes are sources, without a
// row of output.
template <typename Scalar>
void GraphAttention<Scalar>::combine_heads_and_project() {
  const Index h = options_.heads, d = options_.head_dim, targets = graph_->num_targets();
  if (output_in_place()) {
    if (options_.bias) add_to_rows(aggregated_, aggregated_, params_.value(b_out_).row(0));
    return;
  }
  if (options_.concat_heads) {
    project_combined(aggregated_.topRows(targets));
    return;
  }
  combined_.resize(targets, d);
  parallel_for(targets, [&](Index i) {
    auto mean = combined_.row(i);
    mean = aggregated_.row(i).head(d);
    for (Index head = 1; head < h; ++head) mean += aggregated_.row(i).segment(head * d, d);
    mean /= static_cast<Scalar>(h);
  });
  project_combined(combined_);
}

template <typename Scalar>
template <typename Combined>
void GraphAttention<Scalar>::project_combined(const Combined& combined) {
  if (options_.output_projection && options_.bias) {
    multiply_from_bias(output_, combined, params_.value(w_out_), params_.value(b_out_).row(0));
  } else if (options_.output_projection) {
    multiply(output_, combined, params_.value(w_out_));
  } else if (options_.bias) {
    add_to_rows(output_, combined, params_.value(b_out_).row(0));
  } else {
    copy_rows(output_, combined);
  }
}

template <typename Scalar>
const Matrix<Scalar>& GraphAttention<Scalar>::backward(const Matrix<Scalar>& dy) {
  backward_parameters(dy);
  multiply(dx_, dprojected_, params_.value(w_in_).transpose());
  return dx_;
}

template <typename Scalar>
void GraphAttention<Scalar>::backward_parameters(const Matrix<Scalar>& dy) {
  EDGEWISE_CHECK(graph_ != nullptr && (x_.has_value() || sparse_x_ != nullptr));
  if (dy.rows() != output().rows() || dy.cols() != output().cols())
    throw ArgumentError("GraphAttention: output gradient has the wrong shape");
  const Matrix<Scalar>& daggregated = backward_output(dy);

  // Through the aggregation and the normalization: d(scores) per edge (in dalpha_) and d(values) per
  // source node.
  const Graph& g = *graph_;
  const Index h = options_.heads, d = options_.head_dim;
  dalpha_.resize(g.num_edges(), h);
  dprojected_.resize(g.num_nodes(), projection_width());
  const RowView<Scalar> dvalues = value_gradient_rows();
  if (fused_) {
    alpha_.resize(g.num_edges(), h);
    softmax_attend_backward(dalpha_.data(), dvalues, alpha_.data(), g, scores_.data(), node_sum_.data(),
                            aggregated_values(), read_rows(daggregated), h, d);
  } else {
    const bool dropout = keep_.size() > 0;
    aggregate_backward(dalpha_.data(), dvalues, g, dropout ? alpha_used_.data() : alpha_.data(), aggregated_values(),
                       read_rows(daggregated), h, d);
    if (dropout) multiply_elements(dalpha_, dalpha_, keep_);
    backward_normalization();
  }
  if (values_dropped_) apply_value_dropout(dvalues, {dvalues.data, dvalues.stride});
  if (edge_features_ != nullptr) backward_edge_bias();
  backward_scores();

  // Eigen's product with a transposed sparse matrix scatters into the rows of its result, on one
  // thread. Here each thread owns a range of features, holding about an equal share of the entries
  // (features' counts are skewed: a few words in most documents), and adds, row by row in node
  // order, each entry of its features times that node's row of d(projected): every row of d(W_in)
  // gets its terms in node order whatever the thread count, and a sampled batch's new pattern costs
  // no index by column.
  if (sparse_x_ != nullptr) {
    add_sparse_weight_gradient(*sparse_x_);
  } else {
    multiply(params_.grad(w_in_), x_->transpose(), dprojected_, Product::add);
  }
}

template <typename Scalar>
void GraphAttention<Scalar>::add_sparse_weight_gradient(const SparseMatrix<Scalar>& x) {
  EDGEWISE_CHECK(x.isCompressed());
  const Index* outer = x.outerIndexPtr();
  const Index* inner = x.innerIndexPtr();
  const Scalar* values = x.valuePtr();
  // Entries a feature, counted in every kCountedRows-th row only: the counts only balance the
  // threads' shares (a feature's gradient row is summed in row order whoever owns it), and counting
  // every entry was a serial pass as long as a thread's share of the products.
  constexpr Index kCountedRows = 16;
  feature_entries_.assign(static_cast<std::size_t>(x.cols() + 1), 0);
  for (Index r = 0; r < x.rows(); r += kCountedRows)
    for (Index k = outer[r]; k < outer[r + 1]; ++k) ++feature_entries_[static_cast<std::size_t>(inner[k] + 1)];
  for (std::size_t f = 1; f < feature_entries_.size(); ++f) feature_entries_[f] += feature_entries_[f - 1];
  MatrixMap<Scalar> grad = params_.grad(w_in_);
  const Index parts = num_threads();
  parallel_for(parts, [&](Index part) {
    // The features whose counted entries before them are in [part, part + 1) shares of those counted.
    const auto first_feature = [&](Index p) {
      const Index entries = feature_entries_.back() * p / parts;
      return static_cast<Index>(std::lower_bound(feature_entries_.begin(), feature_entries_.end() - 1, entries) -
                                feature_entries_.begin());
    };
    const Index lo = first_feature(part), hi = part + 1 == parts ? x.cols() : first_feature(part + 1);
    // A row's entries ascend by feature (Eigen keeps them sorted), so this part's are one run. The
    // row of d(projected) is read once for all of them, 64 columns at a time.
    using Chunk = Eigen::Matrix<Scalar, 1, 64>;
    const Index cols = grad.cols();
    for (Index r = 0; r < x.rows(); ++r) {
      const Index first = std::lower_bound(inner + outer[r], inner + outer[r + 1], lo) - inner;
      Index last = first;
      while (last < outer[r + 1] && inner[last] < hi) ++last;
      const Scalar* dz = dprojected_.row(r).data();
      Index c = 0;
      for (; c + Chunk::SizeAtCompileTime <= cols; c += Chunk::SizeAtCompileTime) {
        const Chunk dz_chunk = Eigen::Map<const Chunk>(dz + c);
        for (Index k = first; k < last; ++k) Eigen::Map<Chunk>(grad.row(inner[k]).data() + c) += values[k] * dz_chunk;
      }
      if (c < cols)
        for (Index k = first; k < last; ++k) add_scaled(grad.row(inner[k]).data() + c, values[k], dz + c, cols - c);
    }
  });
}

// d(aggregated) of the targets' rows, from dy: [T, out_dim()]: dy itself when the output was the
// aggregate, else daggregated_, whose rows of other nodes stay unset, as no edge leads into them.
template <typename Scalar>
const Matrix<Scalar>& GraphAttention<Scalar>::backward_output(const Matrix<Scalar>& dy) {
  if (options_.bias) add_row_sums(params_.grad(b_out_).row(0), dy);
  if (output_in_place()) return dy;
  const Index targets = dy.rows();
  daggregated_.resize(graph_->num_nodes(), width());
  if (options_.concat_heads) {
    if (options_.output_projection) {
      multiply(params_.grad(w_out_), aggregated_.topRows(targets).transpose(), dy, Product::add);
      multiply(daggregated_.topRows(targets), dy, params_.value(w_out_).transpose());
    } else {
      copy_rows(daggregated_.topRows(targets), dy);
    }
    return daggregated_;
  }
  const Matrix<Scalar>* dcombined = &dy;
  if (options_.output_projection) {
    multiply(params_.grad(w_out_), combined_.transpose(), dy, Product::add);
    multiply(dcombined_, dy, params_.value(w_out_).transpose());
    dcombined = &dcombined_;
  }
  // Each head's share of the mean: the same d columns, divided by the head count, in every head.
  const Index h = options_.heads, d = options_.head_dim;
  parallel_for_row_blocks(dy.rows(), width(), [&](Index begin, Index end) {
    const auto share = dcombined->middleRows(begin, end - begin) / static_cast<Scalar>(h);
    for (Index head = 0; head < h; ++head) daggregated_.block(begin, head * d, end - begin, d) = share;
  });
  return daggregated_;
}

template <typename Scalar>
void GraphAttention<Scalar>::backward_normalization() {
  if (options_.normalization == Normalization::softmax)
    edge_softmax_backward(dalpha_.data(), *graph_, alpha_.data(), dalpha_.data(), options_.heads);
  else
    edge_relu_backward(dalpha_.data(), *graph_, scores_.data(), dalpha_.data(), options_.heads);
}

template <typename Scalar>
void GraphAttention<Scalar>::backward_edge_bias() {
  const auto positions = graph_->edge_positions();
  dedge_bias_.resize(graph_->num_edges(), options_.heads);
  parallel_for(graph_->num_edges(), [&](Index e) { dedge_bias_.row(e) = dalpha_.row(positions[e]); });
  multiply(params_.grad(w_edge_), edge_features_->transpose(), dedge_bias_, Product::add);
}

template <typename Scalar>
void GraphAttention<Scalar>::backward_scores() {
  const Graph& g = *graph_;
  const Index h = options_.heads, d = options_.head_dim, w = width();
  const auto slope = static_cast<Scalar>(options_.negative_slope);
  const Scalar* dscores = dalpha_.data();
  switch (options_.score) {
    case ScoreFunction::scaled_dot:
    case ScoreFunction::dot: {
      const Scalar scale = options_.score == ScoreFunction::dot ? Scalar(1) : Scalar(1) / std::sqrt(Scalar(d));
      dot_scores_backward(rows_of(dprojected_, 0), rows_of(dprojected_, w), g, read_rows(projected_, 0),
                          read_rows(projected_, w), dscores, h, d, scale);
      break;
    }
    case ScoreFunction::bilinear: {
      dquery_map_.resize(g.num_nodes(), w);
      dot_scores_backward(rows_of(dquery_map_), rows_of(dprojected_, w), g, read_rows(query_map_),
                          read_rows(projected_, w), dscores, h, d, Scalar(1));
      for (Index head = 0; head < h; ++head) {
        ConstMatrixMap<Scalar> w_h(params_.value(bilinear_).row(head).data(), d, d);
        MatrixMap<Scalar> dw_h(params_.grad(bilinear_).row(head).data(), d, d);
        multiply(dw_h, projected_.middleCols(head * d, d).transpose(), dquery_map_.middleCols(head * d, d),
                 Product::add);
        multiply(dprojected_.middleCols(head * d, d), dquery_map_.middleCols(head * d, d), w_h.transpose());
      }
      break;
    }
    case ScoreFunction::additive: {
      dsrc_terms_.resize(g.num_nodes(), h);
      ddst_terms_.resize(g.num_nodes(), h);
      additive_scores_backward(dsrc_terms_.data(), ddst_terms_.data(), g, src_terms_.data(), dst_terms_.data(),
                               dscores, h, slope);
      add_attention_vector_gradients();
      auto att_src = params_.value(att_src_), att_dst = params_.value(att_dst_);
      // z is both the values and the input of the attention terms: d(z) holds d(values) so far.
      detail::with_head_width(d, [&](auto width) {
        using detail::head_of;
        parallel_for(g.num_nodes(), [&](Index i) {
          Scalar* dz = dprojected_.row(i).data();
          for (Index head = 0; head < h; ++head)
            head_of(dz, head, width) = head_of(dz, head, width) +
                                       dsrc_terms_(i, head) * head_of(att_src.data(), head, width) +
                                       ddst_terms_(i, head) * head_of(att_dst.data(), head, width);
        });
      });
      break;
    }
    case ScoreFunction::gatv2:
      gatv2_scores_backward(rows_of(dprojected_, 0), rows_of(dprojected_, w), params_.grad(att_dst_).data(), g,
                            read_rows(projected_, 0), read_rows(projected_, w), params_.value(att_dst_).data(), dscores,
                            h, d, slope);
      dprojected_.leftCols(w) += dvalues_;  // x_src is also the values
      break;
  }
}

// Additive scores: d(a_src)_h += sum over nodes i of d(src term)_i,h * z_i,h, and d(a_dst) the same over
// the targets (no edge leads into the other nodes). One pass over z's rows, in blocks of a fixed
// number of rows whose sums are then added in block order, so that the result does not depend on
// the thread count.
template <typename Scalar>
void GraphAttention<Scalar>::add_attention_vector_gradients() {
  constexpr Index kRows = 256;
  const Index n = graph_->num_nodes(), targets = graph_->num_targets(), h = options_.heads, w = width();
  const Index blocks = (n + kRows - 1) / kRows;
  attention_vector_sums_.resize(blocks, 2 * w);
  detail::with_head_width(options_.head_dim, [&](auto d) {
    using detail::head_of;
    parallel_for(blocks, [&](Index b) {
      Scalar* src = attention_vector_sums_.row(b).data();
      Scalar* dst = src + w;
      std::fill_n(src, 2 * w, Scalar(0));
      for (Index i = b * kRows; i < std::min(n, (b + 1) * kRows); ++i) {
        const Scalar* z = projected_.row(i).data();
        for (Index head = 0; head < h; ++head) head_of(src, head, d) += dsrc_terms_(i, head) * head_of(z, head, d);
        if (i < targets)
          for (Index head = 0; head < h; ++head) head_of(dst, head, d) += ddst_terms_(i, head) * head_of(z, head, d);
      }
    });
  });
  Eigen::Map<Vector<Scalar>> datt_src(params_.grad(att_src_).data(), w), datt_dst(params_.grad(att_dst_).data(), w);
  for (Index b = 0; b < blocks; ++b) {
    datt_src += attention_vector_sums_.row(b).head(w).transpose();
    datt_dst += attention_vector_sums_.row(b).tail(w).transpose();
  }
}

template <typename Scalar>
Matrix<Scalar> GraphAttention<Scalar>::attention_weights() const {
  Matrix<Scalar> normalized;
  if (fused_) {
    normalized.resize(scores_.rows(), scores_.cols());
    softmax_weights(normalized.data(), *graph_, scores_.data(), node_sum_.data(), options_.heads);
  }
  const Matrix<Scalar>& alpha = fused_ ? normalized : alpha_;
  Matrix<Scalar> weights(alpha.rows(), alpha.cols());
  const auto positions = graph_ != nullptr ? graph_->edge_positions() : std::span<const NodeId>{};
  for (Index e = 0; e < alpha.rows(); ++e) weights.row(e) = alpha.row(positions[e]);
  return weights;
}

template class GraphAttention<float>;
template class GraphAttention<double>;

}  // namespace edgewise
