#include "edgewise/models/node_classifier.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>

#include "edgewise/core/error.hpp"
#include "edgewise/core/json_integers.hpp"

namespace edgewise {

void to_json(nlohmann::json& j, const NodeClassifierOptions& o) {
  j = {{"in_dim", o.in_dim},
       {"classes", o.classes},
       {"layers", o.layers},
       {"heads", o.heads},
       {"head_dim", o.head_dim},
       {"output_heads", o.output_heads},
       {"score", to_string(o.score)},
       {"dropout", o.dropout},
       {"attention_dropout", o.attention_dropout},
       {"value_dropout", o.value_dropout},
       {"residual", o.residual},
       {"layer_norm", o.layer_norm}};
  if (o.output_score) j["output_score"] = to_string(*o.output_score);  // absent: files stay as before it
}

void from_json(const nlohmann::json& j, NodeClassifierOptions& o) {
  get_integer_to(j.at("in_dim"), o.in_dim);
  get_integer_to(j.at("classes"), o.classes);
  get_integer_to(j.at("layers"), o.layers);
  get_integer_to(j.at("heads"), o.heads);
  get_integer_to(j.at("head_dim"), o.head_dim);
  get_integer_to(j.at("output_heads"), o.output_heads);
  o.score = parse_score_function(j.at("score").get<std::string>());
  j.at("dropout").get_to(o.dropout);
  j.at("attention_dropout").get_to(o.attention_dropout);
  o.value_dropout = j.value("value_dropout", 0.0);  // absent from files written before it existed
  j.at("residual").get_to(o.residual);
  j.at("layer_norm").get_to(o.layer_norm);
  o.output_score.reset();
  if (j.contains("output_score")) o.output_score = parse_score_function(j.at("output_score").get<std::string>());
}

namespace {

const NodeClassifierOptions& checked(const NodeClassifierOptions& o) {
  if (o.in_dim <= 0 || o.classes <= 0 || o.layers <= 0 || o.heads <= 0 || o.head_dim <= 0 || o.output_heads <= 0)
    throw ArgumentError("NodeClassifier: in_dim, classes, layers, heads, head_dim and output_heads must be positive");
  if (o.residual && o.layers < 3)
    throw ArgumentError("NodeClassifier: residual connections join hidden layers of equal width, which needs at "
                        "least 3 layers (got " + std::to_string(o.layers) + ")");
  return o;
}

GraphAttentionOptions attention_options(const NodeClassifierOptions& o, Index in_dim, Index heads, Index head_dim,
                                        bool output_layer) {
  GraphAttentionOptions a;
  a.in_dim = in_dim;
  a.heads = heads;
  a.head_dim = head_dim;
  a.score = output_layer ? o.output_score.value_or(o.score) : o.score;
  a.attention_dropout = o.attention_dropout;
  a.value_dropout = o.value_dropout;
  a.concat_heads = !output_layer;  // hidden layers concatenate their heads, the output layer averages them
  a.output_projection = false;
  return a;
}

}  // namespace

template <typename Scalar>
struct NodeClassifier<Scalar>::HiddenLayer {
  HiddenLayer(Parameters<Scalar>& params, Index index, const NodeClassifierOptions& o)
      : dropout(o.dropout),
        attention(params, "attention" + std::to_string(index),
                  attention_options(o, index == 0 ? o.in_dim : o.heads * o.head_dim, o.heads, o.head_dim, false)),
        residual(o.residual && index > 0) {
    if (o.layer_norm) norm.emplace(params, "norm" + std::to_string(index), o.heads * o.head_dim);
  }

  // h: [N, in], a Matrix or (first layer) the features, dense rows read in place or a SparseMatrix,
  // kept by pointer until backward. Returns [T, heads * head_dim], the rows of the graph's targets.
  template <typename Input>
  const Matrix<Scalar>& forward(const Graph& graph, const Input& h, Mode mode) {
    const Matrix<Scalar>* out = &activation.forward(attention.forward(graph, dropout.forward(h, mode), nullptr, mode));
    if constexpr (std::is_same_v<Input, Matrix<Scalar>>) {
      if (residual) {
        sum = *out + h.topRows(out->rows());
        out = &sum;
      }
    }
    return norm ? norm->forward(*out) : *out;
  }

  // Returns dh, the gradient at the layer's input, or null when input_gradient is false (the first
  // layer, whose input is the features).
  const Matrix<Scalar>* backward(const Matrix<Scalar>& dy, bool input_gradient) {
    const Matrix<Scalar>& dsum = norm ? norm->backward(dy) : dy;
    const Matrix<Scalar>& dactivation = activation.backward(dsum);
    if (!input_gradient) {
      attention.backward_parameters(dactivation);
      return nullptr;
    }
    const Matrix<Scalar>& ddropped = attention.backward(dactivation);
    const Matrix<Scalar>& dh_attention = dropout.backward(ddropped);
    if (!residual) return &dh_attention;
    // The skip reaches the targets' rows (all of them but in a sampled block), in one pass.
    const Index targets = dsum.rows(), others = dh_attention.rows() - targets;
    dh.resize(dh_attention.rows(), dh_attention.cols());
    dh.topRows(targets) = dh_attention.topRows(targets) + dsum;
    dh.bottomRows(others) = dh_attention.bottomRows(others);
    return &dh;
  }

  Dropout<Scalar> dropout;
  GraphAttention<Scalar> attention;
  ELU<Scalar> activation;
  bool residual;
  std::optional<LayerNorm<Scalar>> norm;
  Matrix<Scalar> sum;
  Matrix<Scalar> dh;
};

template <typename Scalar>
NodeClassifier<Scalar>::NodeClassifier(Parameters<Scalar>& params, const NodeClassifierOptions& options)
    : options_(checked(options)),
      hidden_layers_([&] {
        std::vector<std::unique_ptr<HiddenLayer>> layers;
        for (Index l = 0; l + 1 < options.layers; ++l)
          layers.push_back(std::make_unique<HiddenLayer>(params, l, options));
        return layers;
      }()),
      output_dropout_(options.dropout),
      output_(params, "attention" + std::to_string(options.layers - 1),
              attention_options(options, hidden_dim(), options.output_heads, options.classes, true)) {}

template <typename Scalar>
NodeClassifier<Scalar>::~NodeClassifier() = default;

template <typename Scalar>
void NodeClassifier<Scalar>::reset_parameters(SplitMix64& rng) {
  for (auto& layer : hidden_layers_) {
    layer->attention.reset_parameters(rng);
    if (layer->norm) layer->norm->reset_parameters();
  }
  output_.reset_parameters(rng);
}

template <typename Scalar>
void NodeClassifier<Scalar>::check_features(const Graph& graph, Index rows, Index cols) const {
  if (rows != graph.num_nodes() || cols != options_.in_dim)
    throw ArgumentError("NodeClassifier: features are [" + std::to_string(rows) + ", " + std::to_string(cols) +
                        "], expected [" + std::to_string(graph.num_nodes()) + ", " + std::to_string(options_.in_dim) +
                        "]");
}

template <typename Scalar>
const Matrix<Scalar>& NodeClassifier<Scalar>::forward(const Graph& graph, const ConstRowsRef<Scalar>& features,
                                                      Mode mode) {
  check_features(graph, features.rows(), features.cols());
  if (hidden_layers_.empty()) {
    dense_features_ = features;
    return forward_rest(graph, dense_features_, mode);
  }
  return forward_rest(graph, with_halo(0, hidden_layers_.front()->forward(graph, features, mode)), mode);
}

template <typename Scalar>
const Matrix<Scalar>& NodeClassifier<Scalar>::forward(const Graph& graph, const SparseMatrix<Scalar>& features,
                                                      Mode mode) {
  check_features(graph, features.rows(), features.cols());
  if (hidden_layers_.empty()) {
    // One layer projects the sparse rows as they are: a dense copy costs a row of every node's
    // features (a row of every node, with identity features) and its product.
    hidden_ = nullptr;
    return output_.forward(graph, output_dropout_.forward(features, mode), nullptr, mode);
  }
  return forward_rest(graph, with_halo(0, hidden_layers_.front()->forward(graph, features, mode)), mode);
}

// first_hidden: the first hidden layer's output, or the features when there is no hidden layer.
template <typename Scalar>
const Matrix<Scalar>& NodeClassifier<Scalar>::forward_rest(const Graph& graph, const Matrix<Scalar>& first_hidden,
                                                           Mode mode) {
  const Matrix<Scalar>* h = &first_hidden;
  for (std::size_t l = 1; l < hidden_layers_.size(); ++l) h = &with_halo(l, hidden_layers_[l]->forward(graph, *h, mode));
  hidden_ = h;
  return output_.forward(graph, output_dropout_.forward(*h, mode), nullptr, mode);
}

// Hidden layer `layer`'s output, with its halo rows filled when there is a halo.
template <typename Scalar>
const Matrix<Scalar>& NodeClassifier<Scalar>::with_halo(std::size_t layer, const Matrix<Scalar>& output) {
  if (halo_ == nullptr) return output;
  halo_outputs_.resize(hidden_layers_.size());
  halo_outputs_[layer] = output;
  halo_->fill(halo_outputs_[layer]);
  return halo_outputs_[layer];
}

// The gradient of hidden layer `layer`'s output, with its halo rows returned when there is a halo.
template <typename Scalar>
const Matrix<Scalar>* NodeClassifier<Scalar>::with_halo_gradients(std::size_t layer, const Matrix<Scalar>* doutput) {
  if (halo_ == nullptr) return doutput;
  halo_gradients_.resize(hidden_layers_.size());
  halo_gradients_[layer] = *doutput;
  halo_->return_gradients(halo_gradients_[layer]);
  return &halo_gradients_[layer];
}

template <typename Scalar>
void NodeClassifier<Scalar>::backward(const Matrix<Scalar>& dlogits) {
  if (hidden_layers_.empty()) {  // the input is the features, which get no gradient
    output_.backward_parameters(dlogits);
    return;
  }
  const Matrix<Scalar>& dinput = output_.backward(dlogits);
  const Matrix<Scalar>* dh = &output_dropout_.backward(dinput);
  for (std::size_t l = hidden_layers_.size(); l-- > 0;)
    dh = hidden_layers_[l]->backward(*with_halo_gradients(l, dh), l > 0);
}

template <typename Scalar>
const Matrix<Scalar>& NodeClassifier<Scalar>::forward_blocks(std::span<const Graph> blocks,
                                                             const Matrix<Scalar>& features, Mode mode) {
  return forward_blocks_of(blocks, features, mode);
}

template <typename Scalar>
const Matrix<Scalar>& NodeClassifier<Scalar>::forward_blocks(std::span<const Graph> blocks,
                                                             const SparseMatrix<Scalar>& features, Mode mode) {
  return forward_blocks_of(blocks, features, mode);
}

template <typename Scalar>
template <typename Features>
const Matrix<Scalar>& NodeClassifier<Scalar>::forward_blocks_of(std::span<const Graph> blocks,
                                                                const Features& features, Mode mode) {
  if (static_cast<Index>(blocks.size()) != options_.layers)
    throw ArgumentError("NodeClassifier: " + std::to_string(blocks.size()) + " blocks for " +
                        std::to_string(options_.layers) + " layers");
  for (std::size_t k = 1; k < blocks.size(); ++k)
    if (blocks[k].num_nodes() > blocks[k - 1].num_targets())
      throw ArgumentError("NodeClassifier: block " + std::to_string(k) +
                          " has more nodes than the block before it has targets");
  check_features(blocks.front(), features.rows(), features.cols());
  kept_rows_.resize(hidden_layers_.size());
  block_rows_.clear();
  for (const Graph& block : blocks) block_rows_.push_back(block.num_targets());
  const Matrix<Scalar>* h = nullptr;
  if (hidden_layers_.empty()) {
    h = &dense(features);
  } else {
    h = &passed_on(0, hidden_layers_[0]->forward(blocks[0], features, mode), blocks[1].num_nodes());
  }
  for (std::size_t l = 1; l < hidden_layers_.size(); ++l)
    h = &passed_on(l, hidden_layers_[l]->forward(blocks[l], *h, mode), blocks[l + 1].num_nodes());
  hidden_ = h;
  return output_.forward(blocks.back(), output_dropout_.forward(*h, mode), nullptr, mode);
}

// The first `rows` rows of hidden layer `layer`'s output: the output itself where the next block's
// nodes are all its targets (as the sampler's blocks are), else a copy of them.
template <typename Scalar>
const Matrix<Scalar>& NodeClassifier<Scalar>::passed_on(std::size_t layer, const Matrix<Scalar>& output, Index rows) {
  if (output.rows() == rows) return output;
  kept_rows_[layer] = output.topRows(rows);
  return kept_rows_[layer];
}

template <typename Scalar>
void NodeClassifier<Scalar>::backward_blocks(const Matrix<Scalar>& dlogits) {
  const Matrix<Scalar>& dinput = output_.backward(dlogits);
  if (hidden_layers_.empty()) return;
  const Matrix<Scalar>* dkept = &output_dropout_.backward(dinput);
  padded_grads_.resize(hidden_layers_.size());
  for (std::size_t l = hidden_layers_.size(); l-- > 0;) {
    const Matrix<Scalar>* doutput = dkept;
    if (dkept->rows() < block_rows_[l]) {
      Matrix<Scalar>& padded = padded_grads_[l];
      padded.setZero(block_rows_[l], dkept->cols());
      padded.topRows(dkept->rows()) = *dkept;
      doutput = &padded;
    }
    dkept = hidden_layers_[l]->backward(*doutput, l > 0);
  }
}

template <typename Scalar>
const Matrix<Scalar>& NodeClassifier<Scalar>::forward_layer(Index layer, const Graph& graph,
                                                            const Matrix<Scalar>& input) {
  return forward_layer_of(layer, graph, input);
}

template <typename Scalar>
const Matrix<Scalar>& NodeClassifier<Scalar>::forward_layer(Index layer, const Graph& graph,
                                                            const SparseMatrix<Scalar>& input) {
  return forward_layer_of(layer, graph, input);
}

template <typename Scalar>
template <typename Input>
const Matrix<Scalar>& NodeClassifier<Scalar>::forward_layer_of(Index layer, const Graph& graph, const Input& input) {
  if (layer < 0 || layer >= options_.layers)
    throw ArgumentError("NodeClassifier: no layer " + std::to_string(layer) + " in " + std::to_string(options_.layers));
  if (layer + 1 == options_.layers) return output_.forward(graph, dense(input), nullptr, Mode::inference());
  return hidden_layers_[layer]->forward(graph, input, Mode::inference());
}

// Features as the output layer reads them: a Matrix as it is, sparse rows copied densely (a network of
// one layer).
template <typename Scalar>
template <typename Features>
const Matrix<Scalar>& NodeClassifier<Scalar>::dense(const Features& features) {
  if constexpr (std::is_same_v<Features, Matrix<Scalar>>) {
    return features;
  } else {
    dense_features_ = features.toDense();
    return dense_features_;
  }
}

template <typename Scalar>
const Matrix<Scalar>& NodeClassifier<Scalar>::hidden() const {
  if (hidden_ == nullptr)
    throw ArgumentError("NodeClassifier: no hidden representation before the first forward, nor after one of a "
                        "single layer on sparse features");
  return *hidden_;
}

template class NodeClassifier<float>;
template class NodeClassifier<double>;

}  // namespace edgewise
