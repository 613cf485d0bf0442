/// \file
/// The graph-level network used for molecules: one prediction row per graph of a batch.
///
///   h0 = x W_in                                         input projection, [N, hidden]
///   per block l: a = LayerNorm(h + Dropout(GraphAttention(h, edge features)))
///                h = LayerNorm(FeedForward(a))          FeedForward adds its own residual
///   g  = Readout(h) ‖ standardized graph features       [G, hidden + graph_dim]
///   y  = Linear(Dropout(ReLU(Linear(g))))               [G, tasks]: values or logits
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <vector>

#include "edgewise/attention/graph_attention.hpp"
#include "edgewise/graph/batch.hpp"
#include "edgewise/graph/featured_graph.hpp"
#include "edgewise/models/column_scaling.hpp"
#include "edgewise/models/layers.hpp"
#include "edgewise/models/readout.hpp"

namespace edgewise {

/// How standardized graph features are bounded, so that a molecule far outside the training set (a
/// polymer's mass, say) cannot swamp the head: a feature within ±linear_range standard deviations
/// passes as it is; beyond, it grows as linear_range + log(1 + excess) (log_tail), or stops at
/// ±linear_range. Model files written before the bound was recorded used a clip at 6, which hid a
/// molecule's TPSA or mass from a head predicting it once it passed 6 standard deviations.
struct GraphFeatureBound {
  double linear_range = 20.0;  ///< standard deviations passed unchanged
  bool log_tail = true;        ///< false: clipped at ±linear_range

  /// The bounded value of a standardized feature z.
  double operator()(double z) const;
  /// Whether two bounds are the same.
  bool operator==(const GraphFeatureBound&) const = default;
};

/// The bound of model files that do not record one.
inline constexpr GraphFeatureBound kLegacyGraphFeatureBound = {.linear_range = 6.0, .log_tail = false};

/// The architecture of a MoleculePredictor.
struct MoleculePredictorOptions {
  Index node_dim = 0;  ///< input node features
  Index edge_dim = 0;   ///< input edge features; 0 for none
  Index graph_dim = 0;  ///< per-graph features (molecular descriptors) joined to the readout; 0 for none
  Index tasks = 1;  ///< Outputs per graph.
  Index hidden = 128;  ///< Width of the node states; a multiple of heads.
  Index layers = 3;  ///< Attention blocks.
  Index heads = 4;  ///< Attention heads per block, each hidden / heads wide.
  ScoreFunction score = ScoreFunction::scaled_dot;  ///< The attention score of every block.
  ReadoutKind readout = ReadoutKind::sum;  ///< How node states are pooled into one vector per graph.
  Index head_hidden = 128;  ///< Width of the MLP head's hidden layer.
  double dropout = 0.1;  ///< Dropout in the blocks and the head, while training.
  double attention_dropout = 0.0;  ///< Dropout on the attention weights, while training.
  /// Maps each graph feature to standard units before it joins the readout, bounded as
  /// graph_feature_bound says; fitted to the training set by MoleculeModel::fit. No columns: the
  /// features join as given.
  ColumnScaling graph_feature_scaling = {};
  /// How standardized graph features far outside the training set are bounded.
  GraphFeatureBound graph_feature_bound = {};
};

/// JSON form stored in model files, for nlohmann::json.
/// @{
void to_json(nlohmann::json& j, const MoleculePredictorOptions& options);
void from_json(const nlohmann::json& j, MoleculePredictorOptions& options);
/// @}

/// A graph-level network: input projection, `layers` blocks of graph attention (edge features as
/// a score bias) and feed-forward, each with LayerNorm, residual and dropout, a readout, the graph
/// features joined to it, and an MLP head giving `tasks` outputs per graph.
///
/// Like the layers it is built from, it holds the state of its last forward, so one object serves
/// one thread; molecule prediction keeps one copy per thread.
template <typename Scalar>
class MoleculePredictor {
 public:
  /// Registers every parameter in `params`. Throws ArgumentError on bad options (hidden must be a
  /// multiple of heads).
  MoleculePredictor(Parameters<Scalar>& params, const MoleculePredictorOptions& options);
  ~MoleculePredictor();

  /// Initializes every layer as its own reset_parameters does.
  void reset_parameters(SplitMix64& rng);

  /// nodes: [N, node_dim]; edges: [E, edge_dim] in the batch's edge order (null when edge_dim is 0);
  /// graph_features: [G, graph_dim] (null when graph_dim is 0). All are kept by pointer until
  /// backward. Returns [G, tasks]. When the batch is part of a larger one, mode.node_ids are its
  /// atoms' rows there and graph_ids its graphs' rows, so that dropout drops what it drops in the
  /// larger batch (Mode::node_ids); empty: row r is r.
  const Matrix<Scalar>& forward(const GraphBatch& batch, const Matrix<Scalar>& nodes, const Matrix<Scalar>* edges,
                                const Matrix<Scalar>* graph_features = nullptr, Mode mode = Mode::inference(),
                                std::span<const std::int32_t> graph_ids = {});

  /// forward over a batch's own rows; its edge and graph features count as none when they have no
  /// columns. (A template, so that an explicit instantiation for double leaves it out.)
  template <std::same_as<FeaturedBatch> Batch>
  const Matrix<Scalar>& forward(const Batch& batch, Mode mode = Mode::inference(),
                                std::span<const std::int32_t> graph_ids = {})
    requires std::same_as<Scalar, float>
  {
    return forward(batch.batch, batch.node_features, batch.edge_features.cols() > 0 ? &batch.edge_features : nullptr,
                   batch.graph_features.cols() > 0 ? &batch.graph_features : nullptr, mode, graph_ids);
  }

  /// dy: [G, tasks]; accumulates every parameter gradient.
  void backward(const Matrix<Scalar>& dy);

  /// The last block's attention weights of the last forward, [E, heads] in the batch's edge order.
  Matrix<Scalar> last_attention_weights() const;

  /// The options as given, with the graph feature scaling last set.
  const MoleculePredictorOptions& options() const { return options_; }

  /// Replaces options().graph_feature_scaling; throws ArgumentError unless it has graph_dim columns
  /// (or none).
  void set_graph_feature_scaling(ColumnScaling scaling);

 private:
  struct Block;

  // The readout joined with the graph features, in head_input_.
  const Matrix<Scalar>& joined(const Matrix<Scalar>& pooled, const Matrix<Scalar>* graph_features);

  MoleculePredictorOptions options_;
  Linear<Scalar> input_;
  std::vector<std::unique_ptr<Block>> blocks_;
  Readout<Scalar> readout_;
  Linear<Scalar> head_hidden_;
  ReLU<Scalar> head_activation_;
  Dropout<Scalar> head_dropout_;
  Linear<Scalar> head_output_;
  Matrix<Scalar> head_input_;
  Matrix<Scalar> dpooled_;
};

}  // namespace edgewise
