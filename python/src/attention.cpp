// edgewise._edgewise.GraphAttention: one attention layer on NumPy inputs, to try score functions
// and inspect attention weights without training a model.
#include <memory>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "edgewise/attention/graph_attention.hpp"
#include "edgewise/core/random.hpp"
#include "support.hpp"

namespace edgewise::python {
namespace {

// A layer with weights of its own, drawn from a seed, and the graph and input of its last forward,
// which the layer keeps pointers to.
class AttentionLayer {
 public:
  AttentionLayer(Index in_dim, Index heads, Index head_dim, const std::string& score, const std::string& normalization,
                 Index out_dim, std::uint64_t seed)
      : layer_(params_, "attention",
               {.in_dim = in_dim,
                .heads = heads,
                .head_dim = head_dim,
                .score = parse_score_function(score),
                .normalization = parse_normalization(normalization),
                .out_dim = out_dim}) {
    SplitMix64 rng(seed);
    layer_.reset_parameters(rng);
  }

  // edge_index: [2, E] of (source, target) pairs, PyG's layout; x: [N, in_dim].
  py::array_t<float> forward(const py::object& edge_index, const py::object& x) {
    const py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> edges =
        py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(edge_index);
    if (!edges || edges.ndim() != 2 || edges.shape(0) != 2)
      throw py::value_error("edge_index: expected an integer array of shape [2, E]");
    const std::vector<Index> sources = index_vector(py::array(edges)[py::int_(0)], "edge_index[0]");
    const std::vector<Index> targets = index_vector(py::array(edges)[py::int_(1)], "edge_index[1]");
    x_ = float_rows(x, "x");
    if (x_.cols() != layer_.options().in_dim)
      throw py::value_error("x: " + std::to_string(x_.cols()) + " columns for a layer of in_dim " +
                            std::to_string(layer_.options().in_dim));
    // With the GIL held: the layer keeps the state of its last forward, and the GIL keeps two
    // threads from running one layer at once.
    graph_ = Graph::from_edges(x_.rows(), sources, targets);
    return to_numpy(layer_.forward(graph_, x_, nullptr));
  }

  py::array_t<float> attention_weights() const {
    if (graph_.num_nodes() == 0) throw py::value_error("attention_weights: call forward first");
    return to_numpy(layer_.attention_weights());
  }

  // Every weight by the name the layer registered it under ("attention.query", ...).
  py::dict parameters() {
    py::dict weights;
    for (const ParameterSlot& slot : params_.slots())
      weights[py::str(slot.name)] = to_numpy(Matrix<float>(params_.value(params_.find(slot.name))));
    return weights;
  }

  Index out_dim() const { return layer_.out_dim(); }

 private:
  Parameters<float> params_;
  GraphAttention<float> layer_;
  Graph graph_;
  SharedRows<float> x_;
};

}  // namespace

void bind_attention(py::module_& m) {
  py::class_<AttentionLayer>(m, "GraphAttention",
                             "One multi-head graph attention layer with weights drawn from a seed: scores on the "
                             "edges only, normalized over each node's in-edges")
      .def(py::init<Index, Index, Index, const std::string&, const std::string&, Index, std::uint64_t>(),
           py::arg("in_dim"), py::arg("heads") = 4, py::arg("head_dim") = 16, py::arg("score") = "scaled_dot",
           py::arg("normalization") = "softmax", py::arg("out_dim") = 0, py::arg("seed") = 0)
      .def("forward", &AttentionLayer::forward, py::arg("edge_index"), py::arg("x"),
           "Output [N, out_dim] for node features x [N, in_dim] on the edges edge_index [2, E] (source, "
           "target): each node attends to the sources of its in-edges only")
      .def("attention_weights", &AttentionLayer::attention_weights,
           "The weights alpha [E, heads] of the last forward, in edge_index's order")
      .def("parameters", &AttentionLayer::parameters, "The layer's weights by name (copies)")
      .def_property_readonly("out_dim", &AttentionLayer::out_dim);
}

}  // namespace edgewise::python
