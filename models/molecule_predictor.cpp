#include "edgewise/models/molecule_predictor.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "edgewise/core/error.hpp"
#include "edgewise/core/json_integers.hpp"

namespace edgewise {

void to_json(nlohmann::json& j, const MoleculePredictorOptions& o) {
  j = {{"node_dim", o.node_dim}, {"edge_dim", o.edge_dim},         {"tasks", o.tasks},
       {"hidden", o.hidden},     {"layers", o.layers},             {"heads", o.heads},
       {"score", to_string(o.score)}, {"readout", to_string(o.readout)}, {"head_hidden", o.head_hidden},
       {"dropout", o.dropout},   {"attention_dropout", o.attention_dropout}, {"graph_dim", o.graph_dim},
       {"graph_feature_scaling", o.graph_feature_scaling},
       {"graph_feature_bound", {{"linear_range", o.graph_feature_bound.linear_range},
                                {"log_tail", o.graph_feature_bound.log_tail}}}};
}

void from_json(const nlohmann::json& j, MoleculePredictorOptions& o) {
  get_integer_to(j.at("node_dim"), o.node_dim);
  get_integer_to(j.at("edge_dim"), o.edge_dim);
  get_integer_to(j.at("tasks"), o.tasks);
  get_integer_to(j.at("hidden"), o.hidden);
  get_integer_to(j.at("layers"), o.layers);
  get_integer_to(j.at("heads"), o.heads);
  o.score = parse_score_function(j.at("score").get<std::string>());
  o.readout = parse_readout(j.at("readout").get<std::string>());
  get_integer_to(j.at("head_hidden"), o.head_hidden);
  j.at("dropout").get_to(o.dropout);
  j.at("attention_dropout").get_to(o.attention_dropout);
  get_integer_to(j.at("graph_dim"), o.graph_dim);
  // Absent from files written before graph features were standardized: they join as given.
  if (j.contains("graph_feature_scaling")) j.at("graph_feature_scaling").get_to(o.graph_feature_scaling);
  o.graph_feature_bound = kLegacyGraphFeatureBound;
  if (const auto bound = j.find("graph_feature_bound"); bound != j.end()) {
    bound->at("linear_range").get_to(o.graph_feature_bound.linear_range);
    bound->at("log_tail").get_to(o.graph_feature_bound.log_tail);
  }
}

double GraphFeatureBound::operator()(double z) const {
  const double excess = std::abs(z) - linear_range;
  if (excess <= 0) return z;
  return std::copysign(linear_range + (log_tail ? std::log1p(excess) : 0.0), z);
}

template <typename Scalar>
struct MoleculePredictor<Scalar>::Block {
  Block(Parameters<Scalar>& params, const std::string& name, const MoleculePredictorOptions& o)
      : attention(params, name + ".attention", attention_options(o)),
        attention_dropout(o.dropout),
        norm1(params, name + ".norm1", o.hidden),
        feed_forward(params, name + ".feed_forward", {o.hidden, 2 * o.hidden, Activation::gelu, o.dropout, true}),
        norm2(params, name + ".norm2", o.hidden) {}

  static GraphAttentionOptions attention_options(const MoleculePredictorOptions& o) {
    GraphAttentionOptions a;
    a.in_dim = o.hidden;
    a.heads = o.heads;
    a.head_dim = o.hidden / o.heads;
    a.score = o.score;
    a.edge_dim = o.edge_dim;
    a.attention_dropout = o.attention_dropout;
    return a;
  }

  const Matrix<Scalar>& forward(const Graph& graph, const Matrix<Scalar>& h, const Matrix<Scalar>* edges, Mode mode) {
    residual = h + attention_dropout.forward(attention.forward(graph, h, edges, mode), mode);
    return norm2.forward(feed_forward.forward(norm1.forward(residual), mode));
  }

  // Returns dh, the gradient at the block's input.
  const Matrix<Scalar>& backward(const Matrix<Scalar>& dy) {
    const Matrix<Scalar>& dresidual = norm1.backward(feed_forward.backward(norm2.backward(dy)));
    dh = dresidual;
    dh += attention.backward(attention_dropout.backward(dresidual));
    return dh;
  }

  GraphAttention<Scalar> attention;
  Dropout<Scalar> attention_dropout;
  LayerNorm<Scalar> norm1;
  FeedForward<Scalar> feed_forward;
  LayerNorm<Scalar> norm2;
  Matrix<Scalar> residual;
  Matrix<Scalar> dh;
};

namespace {
void check_graph_feature_scaling(const ColumnScaling& scaling, Index graph_dim) {
  if (scaling.columns() != 0 && scaling.columns() != graph_dim)
    throw ArgumentError("MoleculePredictor: the graph feature scaling has " + std::to_string(scaling.columns()) +
                        " columns, graph_dim is " + std::to_string(graph_dim));
}

const MoleculePredictorOptions& checked(const MoleculePredictorOptions& o) {
  if (o.node_dim <= 0 || o.tasks <= 0 || o.hidden <= 0 || o.layers < 0 || o.heads <= 0 || o.head_hidden <= 0)
    throw ArgumentError("MoleculePredictor: node_dim, tasks, hidden, heads and head_hidden must be positive");
  if (o.edge_dim < 0 || o.graph_dim < 0) throw ArgumentError("MoleculePredictor: edge_dim and graph_dim must not be negative");
  if (o.hidden % o.heads != 0)
    throw ArgumentError("MoleculePredictor: hidden (" + std::to_string(o.hidden) + ") must be a multiple of heads (" +
                        std::to_string(o.heads) + ")");
  check_graph_feature_scaling(o.graph_feature_scaling, o.graph_dim);
  if (!(o.graph_feature_bound.linear_range > 0) || !std::isfinite(o.graph_feature_bound.linear_range))
    throw ArgumentError("MoleculePredictor: the graph features' linear range must be a positive number");
  return o;
}
}  // namespace

template <typename Scalar>
MoleculePredictor<Scalar>::MoleculePredictor(Parameters<Scalar>& params, const MoleculePredictorOptions& options)
    : options_(checked(options)),
      input_(params, "input", options.node_dim, options.hidden),
      readout_(params, "readout", options.hidden, options.readout),
      head_hidden_(params, "head.hidden", readout_width(options.readout, options.hidden) + options.graph_dim,
                   options.head_hidden),
      head_dropout_(options.dropout),
      head_output_(params, "head.output", options.head_hidden, options.tasks) {
  for (Index l = 0; l < options.layers; ++l)
    blocks_.push_back(std::make_unique<Block>(params, "block" + std::to_string(l), options));
}

template <typename Scalar>
MoleculePredictor<Scalar>::~MoleculePredictor() = default;

template <typename Scalar>
void MoleculePredictor<Scalar>::reset_parameters(SplitMix64& rng) {
  input_.reset_parameters(rng);
  for (auto& block : blocks_) {
    block->attention.reset_parameters(rng);
    block->norm1.reset_parameters();
    block->feed_forward.reset_parameters(rng);
    block->norm2.reset_parameters();
  }
  readout_.reset_parameters(rng);
  head_hidden_.reset_parameters(rng);
  // A sum readout of a large molecule is large; a small output layer lets training start near the
  // mean target instead of spending its first epochs undoing outputs in the tens.
  head_output_.reset_parameters(rng, 0.01);
}

template <typename Scalar>
const Matrix<Scalar>& MoleculePredictor<Scalar>::forward(const GraphBatch& batch, const Matrix<Scalar>& nodes,
                                                      const Matrix<Scalar>* edges,
                                                      const Matrix<Scalar>* graph_features, Mode mode,
                                                      std::span<const std::int32_t> graph_ids) {
  const Matrix<Scalar>* h = &input_.forward(nodes);
  for (auto& block : blocks_) h = &block->forward(batch.graph(), *h, edges, mode);
  const Matrix<Scalar>& pooled = readout_.forward(batch, *h);
  const Matrix<Scalar>& head_input = options_.graph_dim > 0 ? joined(pooled, graph_features) : pooled;
  Mode head_mode = mode;  // the head's rows are graphs
  head_mode.node_ids = graph_ids;
  return head_output_.forward(
      head_dropout_.forward(head_activation_.forward(head_hidden_.forward(head_input)), head_mode));
}

template <typename Scalar>
const Matrix<Scalar>& MoleculePredictor<Scalar>::joined(const Matrix<Scalar>& pooled,
                                                     const Matrix<Scalar>* graph_features) {
  if (graph_features == nullptr || graph_features->rows() != pooled.rows() ||
      graph_features->cols() != options_.graph_dim) {
    throw ArgumentError("MoleculePredictor: expected graph features [" + std::to_string(pooled.rows()) + ", " +
                        std::to_string(options_.graph_dim) + "]");
  }
  head_input_.resize(pooled.rows(), pooled.cols() + options_.graph_dim);
  head_input_.leftCols(pooled.cols()) = pooled;
  head_input_.rightCols(options_.graph_dim) = *graph_features;
  const ColumnScaling& scaling = options_.graph_feature_scaling;
  for (Index c = 0; c < scaling.columns(); ++c) {
    const auto column = static_cast<std::size_t>(c);
    const auto shift = static_cast<Scalar>(scaling.shift[column]), scale = static_cast<Scalar>(scaling.scale[column]);
    head_input_.col(pooled.cols() + c) = ((head_input_.col(pooled.cols() + c).array() - shift) / scale)
                                             .unaryExpr([&](Scalar z) {
                                               return static_cast<Scalar>(options_.graph_feature_bound(z));
                                             });
  }
  return head_input_;
}

template <typename Scalar>
void MoleculePredictor<Scalar>::set_graph_feature_scaling(ColumnScaling scaling) {
  check_graph_feature_scaling(scaling, options_.graph_dim);
  options_.graph_feature_scaling = std::move(scaling);
}

template <typename Scalar>
void MoleculePredictor<Scalar>::backward(const Matrix<Scalar>& dy) {
  const Matrix<Scalar>& dhead_input = head_hidden_.backward(
      head_activation_.backward(head_dropout_.backward(head_output_.backward(dy))));
  const Matrix<Scalar>* dpooled = &dhead_input;
  if (options_.graph_dim > 0) {
    // graph features are inputs: no gradient kept
    dpooled_ = dhead_input.leftCols(readout_width(options_.readout, options_.hidden));
    dpooled = &dpooled_;
  }
  const Matrix<Scalar>* dh = &readout_.backward(*dpooled);
  for (auto block = blocks_.rbegin(); block != blocks_.rend(); ++block) dh = &(*block)->backward(*dh);
  input_.backward_parameters(*dh);
}

template <typename Scalar>
Matrix<Scalar> MoleculePredictor<Scalar>::last_attention_weights() const {
  if (blocks_.empty()) return {};
  return blocks_.back()->attention.attention_weights();
}

template class MoleculePredictor<float>;
template class MoleculePredictor<double>;

}  // namespace edgewise
