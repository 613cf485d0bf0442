// The textbook O(N^2) attention that the edgewise kernels must reproduce: dense N x N score
// matrices per head, -inf off the adjacency (a multiplicity matrix, so duplicate edges count twice),
// row normalization, dense products. Computed in double from a layer's own parameters.
#pragma once

#include <cmath>
#include <limits>

#include "edgewise/attention/graph_attention.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise::testing {

using DenseMatrix = Eigen::MatrixXd;

// multiplicity(i, j) = number of edges j -> i.
inline DenseMatrix multiplicity(const Graph& g) {
  DenseMatrix m = DenseMatrix::Zero(g.num_nodes(), g.num_nodes());
  for (Index e = 0; e < g.num_edges(); ++e) m(g.target(e), g.source(e)) += 1.0;
  return m;
}

inline double leaky(double u, double slope) { return u > 0 ? u : slope * u; }

template <typename Scalar>
DenseMatrix parameter(const Parameters<Scalar>& params, const std::string& name) {
  const ParameterHandle h = params.find(name);
  return params.value(h).template cast<double>();
}

// score(i, j) for head h: all N x N pairs, whether or not an edge exists.
template <typename Scalar>
DenseMatrix dense_scores(const GraphAttentionOptions& o, const Parameters<Scalar>& params, const std::string& name,
                         const DenseMatrix& x, Index h) {
  const Index n = x.rows(), d = o.head_dim, w = o.heads * o.head_dim;
  const DenseMatrix projected = x * parameter(params, name + ".w_in");
  const auto head = [&](Index block) { return projected.middleCols(block * w + h * d, d); };
  switch (o.score) {
    case ScoreFunction::scaled_dot:
      return head(0) * head(1).transpose() / std::sqrt(static_cast<double>(d));
    case ScoreFunction::dot:
      return head(0) * head(1).transpose();
    case ScoreFunction::bilinear: {
      const DenseMatrix b = parameter(params, name + ".bilinear").row(h);
      const DenseMatrix w_h = Eigen::Map<const Eigen::Matrix<double, -1, -1, Eigen::RowMajor>>(b.data(), d, d);
      return head(0) * w_h * head(1).transpose();
    }
    case ScoreFunction::additive: {
      const Eigen::VectorXd src = head(0) * parameter(params, name + ".att_src").row(h).transpose();
      const Eigen::VectorXd dst = head(0) * parameter(params, name + ".att_dst").row(h).transpose();
      DenseMatrix s(n, n);
      for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j) s(i, j) = leaky(dst(i) + src(j), o.negative_slope);
      return s;
    }
    case ScoreFunction::gatv2: {
      const Eigen::RowVectorXd att = parameter(params, name + ".att").row(h);
      DenseMatrix s(n, n);
      for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j)
          s(i, j) = att.dot((head(0).row(j) + head(1).row(i)).unaryExpr([&](double u) {
            return leaky(u, o.negative_slope);
          }));
      return s;
    }
  }
  return {};
}

// Row-normalized weights per (i, j) summed over parallel edges.
inline DenseMatrix dense_weights(Normalization normalization, const DenseMatrix& scores, const DenseMatrix& count) {
  const Index n = scores.rows();
  DenseMatrix alpha = DenseMatrix::Zero(n, n);
  for (Index i = 0; i < n; ++i) {
    const double degree = count.row(i).sum();
    if (degree == 0) continue;
    if (normalization == Normalization::relu) {
      alpha.row(i) = count.row(i).cwiseProduct(scores.row(i).cwiseMax(0.0)) / degree;
      continue;
    }
    double max_score = -std::numeric_limits<double>::infinity();
    for (Index j = 0; j < n; ++j)
      if (count(i, j) > 0) max_score = std::max(max_score, scores(i, j));
    for (Index j = 0; j < n; ++j) alpha(i, j) = count(i, j) > 0 ? count(i, j) * std::exp(scores(i, j) - max_score) : 0;
    alpha.row(i) /= alpha.row(i).sum();
  }
  return alpha;
}

struct DenseAttention {
  DenseMatrix output;                 // [N, out_dim]
  std::vector<DenseMatrix> weights;   // per head, [N, N]
};

// edge_bias: per head, [N, N] bias added to scores (zero when there are no edge features).
template <typename Scalar>
DenseAttention dense_attention(const GraphAttention<Scalar>& layer, const Parameters<Scalar>& params,
                               const std::string& name, const Graph& g, const DenseMatrix& x) {
  const GraphAttentionOptions& o = layer.options();
  const Index d = o.head_dim, w = o.heads * d;
  const DenseMatrix count = multiplicity(g);
  const DenseMatrix projected = x * parameter(params, name + ".w_in");
  const Index value_block = o.score == ScoreFunction::additive || o.score == ScoreFunction::gatv2 ? 0 : 2;
  DenseAttention result;
  DenseMatrix combined = DenseMatrix::Zero(x.rows(), layer.combined_dim());
  for (Index h = 0; h < o.heads; ++h) {
    result.weights.push_back(dense_weights(o.normalization, dense_scores(o, params, name, x, h), count));
    const DenseMatrix head_out = result.weights.back() * projected.middleCols(value_block * w + h * d, d);
    if (o.concat_heads)
      combined.middleCols(h * d, d) = head_out;
    else
      combined += head_out / static_cast<double>(o.heads);
  }
  result.output = o.output_projection ? DenseMatrix(combined * parameter(params, name + ".w_out")) : combined;
  if (o.bias) result.output.rowwise() += parameter(params, name + ".b_out").row(0);
  return result;
}

}  // namespace edgewise::testing
