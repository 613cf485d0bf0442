/// \file
/// GraphAttention: multi-head self-attention restricted to the edges of a graph.
///
/// Per head h, node i attends over its in-edges j -> i:
///   b_i,h = sum_j alpha_ij,h v_j,h,   alpha_i,:,h = normalize_j(score(i, j, h) + edge_bias(e, h))
/// then heads are concatenated (or averaged), multiplied by W^O and shifted by a bias. On
/// complete_graph(n) this is ordinary self-attention; on window_graph(n, r) it is windowed attention.
///
/// Shapes: x [N, in_dim], edge_features [E, edge_dim] in the graph's edge order, output [N, out_dim].
/// The layer keeps a pointer to x and the graph between forward and backward: both must outlive the
/// backward call. Buffers are reused across calls of the same shape.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "edgewise/core/names.hpp"
#include "edgewise/core/parameters.hpp"
#include "edgewise/core/sparse.hpp"
#include "edgewise/core/random.hpp"
#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

/// How an edge j -> i is scored, per head (q, k, v: projections of x; d: head_dim).
enum class ScoreFunction {
  scaled_dot,  ///< q_i . k_j / sqrt(d)
  dot,         ///< q_i . k_j
  additive,    ///< GAT: LeakyReLU(a_dst . W x_i + a_src . W x_j), values W x_j
  gatv2,       ///< a . LeakyReLU(W_src x_j + W_dst x_i), values W_src x_j
  bilinear,    ///< q_i^T W_h k_j with a learned d x d matrix per head (initialized to I / sqrt(d))
};

/// How the scores of a node's in-edges become weights alpha. A node without in-edges gets a zero
/// aggregate, never NaN.
enum class Normalization {
  softmax,  ///< exp(s) / sum over in-edges, max-subtracted
  relu,     ///< max(s, 0) / in-degree
};

/// The names model files and command lines use.
/// @{
inline constexpr std::pair<ScoreFunction, std::string_view> kScoreFunctionNames[] = {
    {ScoreFunction::scaled_dot, "scaled_dot"}, {ScoreFunction::dot, "dot"},           {ScoreFunction::additive, "additive"},
    {ScoreFunction::gatv2, "gatv2"},           {ScoreFunction::bilinear, "bilinear"}};
inline constexpr std::pair<Normalization, std::string_view> kNormalizationNames[] = {{Normalization::softmax, "softmax"},
                                                                                      {Normalization::relu, "relu"}};
/// @}

/// Parses "scaled_dot", "dot", "additive", "gatv2", "bilinear"; throws ArgumentError otherwise.
ScoreFunction parse_score_function(const std::string& name);
/// The name parse_score_function accepts.
std::string to_string(ScoreFunction score);
/// Every score function's name, in the enum's order: what command lines offer.
std::vector<std::string> score_function_names();
/// Parses "softmax", "relu"; throws ArgumentError otherwise.
Normalization parse_normalization(const std::string& name);
/// The name parse_normalization accepts.
std::string to_string(Normalization normalization);

/// Settings of a GraphAttention layer.
struct GraphAttentionOptions {
  Index in_dim = 0;  ///< Width of the input node features; >= 1.
  Index heads = 4;  ///< H, the number of attention heads.
  Index head_dim = 16;  ///< d, the width of each head's values.
  ScoreFunction score = ScoreFunction::scaled_dot;  ///< How edges are scored.
  Normalization normalization = Normalization::softmax;  ///< How scores become weights.
  Index edge_dim = 0;              ///< > 0: a learned per-head bias edge_features . W_e added to every score
  /// Dropout on alpha while training. An edge's draw depends on its ends' ids (Mode::node_ids), not
  /// on its place in the graph, so parallel edges share it.
  double attention_dropout = 0.0;
  /// Dropout on the values (per node and channel) while training; the scores see them whole, as in
  /// the GAT reference code.
  double value_dropout = 0.0;
  bool concat_heads = true;        ///< false: average the heads
  bool output_projection = true;   ///< W^O after combining heads
  Index out_dim = 0;               ///< width of W^O's output; 0 keeps the combined width
  bool bias = true;  ///< Bias of the output (of W^O, or of the combined heads without it).
  double negative_slope = 0.2;  ///< LeakyReLU slope of additive and gatv2
};

/// Multi-head graph self-attention computed along the edges: for each head h and node i,
/// y_i = sum over in-edges j -> i of alpha_ijh v_jh,
/// alpha normalized over i's in-edges, then heads concatenated or averaged and projected by W^O.
/// Memory is O(E H) for the weights, never N x N. The layer keeps pointers to the graph, x and
/// edge_features of the last forward for backward, so they must outlive it. One layer object serves
/// one forward/backward at a time (it holds their state); its loops run in parallel_for.
/// docs/attention.md has the math of forward and backward.
template <typename Scalar>
class GraphAttention {
 public:
  /// Registers this layer's parameters under "<name>.<parameter>". Throws ArgumentError on bad options.
  GraphAttention(Parameters<Scalar>& params, const std::string& name, const GraphAttentionOptions& options);

  /// Glorot-uniform projections and attention vectors, zero bias, bilinear matrices I / sqrt(d).
  void reset_parameters(SplitMix64& rng);

  /// x: [N, in_dim], read in place (a Matrix, or rows held elsewhere such as the input features);
  /// edge_features: [E, edge_dim] or null when edge_dim == 0. Returns [T, out_dim()], the rows of the
  /// graph's targets (T = graph.num_targets(), N but in a sampled block).
  const Matrix<Scalar>& forward(const Graph& graph, const ConstRowsRef<Scalar>& x,
                                const Matrix<Scalar>* edge_features, Mode mode = Mode::inference());
  /// The same with a sparse x (bag-of-words features): the input projection and its gradient cost in
  /// proportion to x's non-zeros. x is kept by pointer until backward, as a dense x is.
  const Matrix<Scalar>& forward(const Graph& graph, const SparseMatrix<Scalar>& x,
                                const Matrix<Scalar>* edge_features, Mode mode = Mode::inference());

  /// dy: [N, out_dim()]. Accumulates parameter gradients; returns dx [N, in_dim].
  const Matrix<Scalar>& backward(const Matrix<Scalar>& dy);
  /// backward without dx, for a layer whose input needs no gradient (the input features): saves the
  /// product with the input projection, the largest of the pass when in_dim is large.
  void backward_parameters(const Matrix<Scalar>& dy);

  /// alpha of the last forward, before dropout: [E, H] in the graph's edge order.
  Matrix<Scalar> attention_weights() const;

  /// The options as given.
  const GraphAttentionOptions& options() const { return options_; }
  /// Width after combining heads: heads * head_dim when concatenated, head_dim when averaged.
  Index combined_dim() const { return options_.concat_heads ? options_.heads * options_.head_dim : options_.head_dim; }
  /// Width of the output: options().out_dim if > 0, else combined_dim().
  Index out_dim() const;

 private:
  Index width() const { return options_.heads * options_.head_dim; }
  Index projection_width() const;
  bool uses_query_key_value() const;
  RowView<const Scalar> values() const;
  RowView<const Scalar> aggregated_values() const;
  RowView<Scalar> value_gradient_rows();

  template <typename Input>  // Matrix or SparseMatrix
  const Matrix<Scalar>& project_and_attend(const Graph& graph, const Input& x, const Matrix<Scalar>* edge_features,
                                           Mode mode);
  void compute_score_terms();
  template <typename Run>
  void with_score_function(Run&& run) const;
  void attend_fused();
  void attend_with_dropout(Mode mode);
  void compute_scores();
  void place_edge_bias(bool accumulate);
  void normalize_relu(Mode mode);
  void drop_values(Mode mode);
  void apply_value_dropout(RowView<Scalar> out, RowView<const Scalar> in) const;
  // Whether the output is the aggregate itself (plus the bias), made in place instead of copied:
  // heads concatenated, no W^O, and a row of output for every node (not a sampled block's targets).
  bool output_in_place() const {
    return options_.concat_heads && !options_.output_projection && graph_->num_targets() == graph_->num_nodes();
  }
  const Matrix<Scalar>& output() const { return output_in_place() ? aggregated_ : output_; }
  void combine_heads_and_project();
  template <typename Combined>
  void project_combined(const Combined& combined);

  const Matrix<Scalar>& backward_output(const Matrix<Scalar>& dy);
  void add_attention_vector_gradients();
  void add_sparse_weight_gradient(const SparseMatrix<Scalar>& x);
  void backward_normalization();
  void backward_edge_bias();
  void backward_scores();

  Parameters<Scalar>& params_;
  GraphAttentionOptions options_;
  ParameterHandle w_in_;      // [in_dim, projection_width()]: q|k|v, z, or src|dst blocks
  ParameterHandle att_src_;   // additive: [H, d]
  ParameterHandle att_dst_;   // additive: [H, d]; gatv2's a: [H, d]
  ParameterHandle bilinear_;  // bilinear: [H, d*d], row h is W_h row-major
  ParameterHandle w_edge_;    // [edge_dim, H]
  ParameterHandle w_out_;     // [combined_dim(), out_dim()]
  ParameterHandle b_out_;     // [1, out_dim()]

  // Forward state kept for backward. Per-edge arrays are in CSR-by-destination order.
  const Graph* graph_ = nullptr;
  std::optional<ConstRowsRef<Scalar>> x_;           // the input of the last forward: x_ or sparse_x_
  const SparseMatrix<Scalar>* sparse_x_ = nullptr;
  SparseMatrix<Scalar> compressed_x_;  // a compressed copy of a sparse input that was not compressed
  std::vector<Index> feature_entries_;  // backward: entries of every 16th row of sparse_x_ before each feature
  const Matrix<Scalar>* edge_features_ = nullptr;
  Matrix<Scalar> projected_;    // [N, projection_width()]
  Matrix<Scalar> src_terms_;    // additive: [N, H], a_src . z_j
  Matrix<Scalar> dst_terms_;    // additive: [N, H], a_dst . z_i
  Matrix<Scalar> query_map_;    // bilinear: [N, H*d], q_i^T W_h per head
  Matrix<Scalar> edge_bias_;    // [E, H] in the graph's edge order
  Matrix<Scalar> scores_;       // [E, H]; fused: exp(score - max score of the node)
  bool fused_ = false;          // whether the last forward ran softmax_attend_forward
  Matrix<Scalar> node_sum_;     // fused: [N, H], each node's sum of exp(score - max score)
  Matrix<Scalar> alpha_;        // [E, H] after normalization; fused: filled in backward from scores_
  Matrix<Scalar> keep_;         // [E, H] dropout scale (0 or 1/(1-p)) when training with dropout, else empty
  Matrix<Scalar> alpha_used_;   // [E, H] alpha * keep_ when dropout is active
  bool values_dropped_ = false;        // whether the last forward dropped values (training, value_dropout > 0)
  std::uint64_t value_key_ = 0;        // the value-dropout stream of the last forward
  std::vector<std::int32_t> value_ids_;  // its Mode::node_ids; empty: row r is node r
  Matrix<Scalar> values_used_;  // [N, H*d] values after value dropout, when values_dropped_
  Matrix<Scalar> aggregated_;   // [N, H*d], of which the targets' rows are set; output_in_place(): the output
  Matrix<Scalar> combined_;     // [T, combined_dim()]
  Matrix<Scalar> output_;       // [T, out_dim()], unless output_in_place()

  // Backward buffers.
  Matrix<Scalar> dcombined_;     // heads averaged: [T, d]
  Matrix<Scalar> daggregated_;   // [N, H*d], of which the kernels read the targets' rows only
  Matrix<Scalar> dalpha_;
  Matrix<Scalar> dvalues_;       // gatv2: [N, H*d]
  Matrix<Scalar> dprojected_;    // [N, projection_width()]
  Matrix<Scalar> dsrc_terms_;    // additive: [N, H]
  Matrix<Scalar> attention_vector_sums_;  // additive: [blocks of rows, 2 * H*d], d(a_src) | d(a_dst) of each
  Matrix<Scalar> ddst_terms_;    // additive: [N, H]
  Matrix<Scalar> dquery_map_;    // bilinear: [N, H*d]
  Matrix<Scalar> dedge_bias_;    // [E, H] in the graph's edge order
  Matrix<Scalar> dx_;
};

}  // namespace edgewise
