/// \file
/// The graph-level network used for molecules: one prediction row per graph of a batch.
///
///   h0 = x W_in                                         input projection, [N, hidden]
///   per block l: a = LayerNorm(h + Dropout(GraphAttention(h, edge features)))
///                h = LayerNorm(FeedForward(a))          FeedForward adds its own residual
///   g  = Readout(h) ‖ graph features                    [G, hidden + graph_dim]
///   y  = Linear(Dropout(ReLU(Linear(g))))               [G, tasks]: values or logits
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "edgewise/attention/graph_attention.hpp"
#include "edgewise/graph/batch.hpp"
#include "edgewise/models/layers.hpp"
#include "edgewise/models/readout.hpp"

namespace edgewise {

struct GraphPredictorOptions {
  Index node_dim = 0;  ///< input node features
  Index edge_dim = 0;   ///< input edge features; 0 for none
  Index graph_dim = 0;  ///< per-graph features (molecular descriptors) joined to the readout; 0 for none
  Index tasks = 1;
  Index hidden = 128;
  Index layers = 3;
  Index heads = 4;
  ScoreFunction score = ScoreFunction::scaled_dot;
  ReadoutKind readout = ReadoutKind::sum;
  Index head_hidden = 128;
  double dropout = 0.1;
  double attention_dropout = 0.0;
};

void to_json(nlohmann::json& j, const GraphPredictorOptions& options);
void from_json(const nlohmann::json& j, GraphPredictorOptions& options);

template <typename Scalar>
class GraphPredictor {
 public:
  /// Registers every parameter in `params`. Throws ArgumentError on bad options (hidden must be a
  /// multiple of heads).
  GraphPredictor(Parameters<Scalar>& params, const GraphPredictorOptions& options);
  ~GraphPredictor();

  void reset_parameters(SplitMix64& rng);

  /// nodes: [N, node_dim]; edges: [E, edge_dim] in the batch's edge order (null when edge_dim is 0);
  /// graph_features: [G, graph_dim] (null when graph_dim is 0). All are kept by pointer until
  /// backward. Returns [G, tasks].
  const Matrix<Scalar>& forward(const GraphBatch& batch, const Matrix<Scalar>& nodes, const Matrix<Scalar>* edges,
                                const Matrix<Scalar>* graph_features = nullptr, Mode mode = Mode::inference());

  /// dy: [G, tasks]; accumulates every parameter gradient.
  void backward(const Matrix<Scalar>& dy);

  /// The last block's attention weights of the last forward, [E, heads] in the batch's edge order.
  Matrix<Scalar> last_attention_weights() const;

  const GraphPredictorOptions& options() const { return options_; }

 private:
  struct Block;

  // The readout joined with the graph features, in head_input_.
  const Matrix<Scalar>& joined(const Matrix<Scalar>& pooled, const Matrix<Scalar>* graph_features);

  GraphPredictorOptions options_;
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
