#include "edgewise/graph/positional.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"

namespace edgewise {
namespace {

void check_non_negative(const char* function, const char* name, Index value) {
  if (value < 0) throw ArgumentError(std::string(function) + ": negative " + name + " " + std::to_string(value));
}

// Scratch for random walks from one start node at a time: probability mass on the walk's current
// support, zero elsewhere, so a step costs the out-edges of the support rather than O(N).
class SparseWalk {
 public:
  explicit SparseWalk(Index num_nodes)
      : mass_(static_cast<std::size_t>(num_nodes), 0.0),
        next_mass_(static_cast<std::size_t>(num_nodes), 0.0),
        queued_(static_cast<std::size_t>(num_nodes), false) {}

  // return_probability: [k], the probability of being back at `start` after 1..k steps.
  template <typename Scalar>
  void run(const Graph& graph, NodeId start, Index k, Scalar* return_probability) {
    support_.assign(1, start);
    mass_[start] = 1.0;
    for (Index t = 0; t < k && !support_.empty(); ++t) {
      step(graph);
      return_probability[t] = static_cast<Scalar>(mass_[start]);
    }
    for (NodeId v : support_) mass_[v] = 0.0;
    support_.clear();
  }

 private:
  // Moves the mass of every support node to its out-neighbours, split evenly over its out-edges.
  // Mass on a node without out-edges is dropped.
  void step(const Graph& graph) {
    const auto out_offsets = graph.out_offsets();
    const auto out_targets = graph.out_targets();
    for (NodeId v : support_) {
      const double mass = std::exchange(mass_[v], 0.0);
      const Index degree = graph.out_degree(v);
      if (degree == 0) continue;
      const double share = mass / static_cast<double>(degree);
      for (Index slot = out_offsets[v]; slot < out_offsets[v + 1]; ++slot) {
        const NodeId w = out_targets[slot];
        if (!queued_[w]) {
          queued_[w] = true;
          next_support_.push_back(w);
        }
        next_mass_[w] += share;
      }
    }
    std::swap(mass_, next_mass_);  // next_mass_ is all zero again: every support entry was exchanged
    std::swap(support_, next_support_);
    next_support_.clear();
    for (NodeId w : support_) queued_[w] = false;
  }

  std::vector<double> mass_;
  std::vector<double> next_mass_;
  std::vector<NodeId> support_;
  std::vector<NodeId> next_support_;
  std::vector<bool> queued_;  // whether a node is already in next_support_
};

// The dense symmetric normalized Laplacian described in positional.hpp.
Eigen::MatrixXd normalized_laplacian(const Graph& graph) {
  const Index n = graph.num_nodes();
  Eigen::MatrixXd laplacian = Eigen::MatrixXd::Zero(n, n);
  for (Index e = 0; e < graph.num_edges(); ++e) {
    const NodeId u = graph.source(e), v = graph.target(e);
    if (u == v) continue;
    laplacian(u, v) = 1.0;
    laplacian(v, u) = 1.0;
  }
  const Eigen::VectorXd degree = laplacian.rowwise().sum();
  const Eigen::VectorXd inv_sqrt_degree =
      degree.unaryExpr([](double d) { return d > 0.0 ? 1.0 / std::sqrt(d) : 0.0; });
  laplacian = -(inv_sqrt_degree.asDiagonal() * laplacian * inv_sqrt_degree.asDiagonal());
  laplacian.diagonal().array() += 1.0;
  return laplacian;
}

// Makes the first entry within 1e-8 of the largest magnitude positive. The tolerance keeps the
// choice stable when several entries share the largest magnitude up to rounding, as is common in
// symmetric graphs.
void fix_sign(Eigen::Ref<Eigen::VectorXd> eigenvector) {
  const double largest = eigenvector.cwiseAbs().maxCoeff();
  for (Index i = 0; i < eigenvector.size(); ++i) {
    if (std::abs(eigenvector[i]) < largest - 1e-8) continue;
    if (eigenvector[i] < 0.0) eigenvector = -eigenvector;
    return;
  }
}

}  // namespace

template <typename Scalar>
Matrix<Scalar> sinusoidal_encoding(Index length, Index dim) {
  check_non_negative("sinusoidal_encoding", "length", length);
  check_non_negative("sinusoidal_encoding", "dim", dim);
  Matrix<Scalar> encoding(length, dim);
  for (Index c = 0; c < dim; ++c) {
    const Index even = c - c % 2;  // 2i for both columns 2i and 2i + 1
    const double wavelength_scale = std::pow(10000.0, static_cast<double>(even) / static_cast<double>(dim));
    for (Index pos = 0; pos < length; ++pos) {
      const double angle = static_cast<double>(pos) / wavelength_scale;
      encoding(pos, c) = static_cast<Scalar>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return encoding;
}

template <typename Scalar>
Matrix<Scalar> random_walk_encoding(const Graph& graph, Index k) {
  check_non_negative("random_walk_encoding", "k", k);
  const Index n = graph.num_nodes();
  Matrix<Scalar> encoding = Matrix<Scalar>::Zero(n, k);
  // Blocks of start nodes share one scratch, so scratch is allocated O(N / block) times, not O(N).
  // A walk's cost follows the degrees it meets, so the blocks go to whichever thread is free.
  constexpr Index block = 64;
  parallel_for_dynamic(
      (n + block - 1) / block,
      [&](Index b) {
        SparseWalk walk(n);
        for (Index i = b * block; i < std::min(n, (b + 1) * block); ++i)
          walk.run(graph, static_cast<NodeId>(i), k, encoding.row(i).data());
      },
      1);
  return encoding;
}

template <typename Scalar>
Matrix<Scalar> laplacian_encoding(const Graph& graph, Index k, Index max_nodes) {
  check_non_negative("laplacian_encoding", "k", k);
  const Index n = graph.num_nodes();
  if (n > max_nodes)
    throw ArgumentError("laplacian_encoding: " + std::to_string(n) + " nodes exceed the limit of " +
                        std::to_string(max_nodes) + " for the dense eigendecomposition");
  Matrix<Scalar> encoding = Matrix<Scalar>::Zero(n, k);
  const Index available = std::min(k, std::max<Index>(n - 1, 0));
  if (available == 0) return encoding;

  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(normalized_laplacian(graph));
  if (solver.info() != Eigen::Success) throw Error("laplacian_encoding: the eigensolver did not converge");
  Eigen::MatrixXd eigenvectors = solver.eigenvectors().middleCols(1, available);  // ascending eigenvalues
  for (Index c = 0; c < available; ++c) fix_sign(eigenvectors.col(c));
  encoding.leftCols(available) = eigenvectors.cast<Scalar>();
  return encoding;
}

template <typename Scalar>
void random_sign_flip(Matrix<Scalar>& encoding, SplitMix64& rng) {
  for (Index c = 0; c < encoding.cols(); ++c)
    if (rng.uniform() < 0.5) encoding.col(c) *= Scalar(-1);
}

template Matrix<float> sinusoidal_encoding<float>(Index, Index);
template Matrix<double> sinusoidal_encoding<double>(Index, Index);
template Matrix<float> random_walk_encoding<float>(const Graph&, Index);
template Matrix<double> random_walk_encoding<double>(const Graph&, Index);
template Matrix<float> laplacian_encoding<float>(const Graph&, Index, Index);
template Matrix<double> laplacian_encoding<double>(const Graph&, Index, Index);
template void random_sign_flip<float>(Matrix<float>&, SplitMix64&);
template void random_sign_flip<double>(Matrix<double>&, SplitMix64&);

}  // namespace edgewise
