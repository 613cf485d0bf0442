// Positional encodings against hand-computed values and dense references.
#include "edgewise/graph/positional.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/core/random.hpp"
#include "support/random_graph.hpp"

namespace edgewise {
namespace {

using Pairs = std::vector<std::pair<Index, Index>>;

// Undirected edges {u, v}, stored in both directions.
Graph undirected(Index num_nodes, const Pairs& edges) {
  return Graph::from_pairs(num_nodes, edges, {.symmetrize = true});
}

Pairs cycle_edges(Index n) {
  Pairs edges;
  for (Index i = 0; i < n; ++i) edges.emplace_back(i, (i + 1) % n);
  return edges;
}

Pairs path_edges(Index n) {
  Pairs edges;
  for (Index i = 0; i + 1 < n; ++i) edges.emplace_back(i, i + 1);
  return edges;
}

using testing::random_pairs;

// Random pairs, each unordered pair at most once (self-loops included), so that symmetrizing them
// gives every edge its reverse exactly as often: the reversible case of a blocked random walk.
Pairs distinct_random_pairs(Index num_nodes, Index num_edges, std::uint64_t seed) {
  Pairs pairs = random_pairs(num_nodes, num_edges, seed);
  for (auto& [s, t] : pairs)
    if (s > t) std::swap(s, t);
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

// I - D^-1/2 A D^-1/2 for a simple undirected graph given by its edges {u, v}, u != v, each once.
Eigen::MatrixXd reference_laplacian(Index n, const Pairs& edges) {
  Eigen::VectorXd degree = Eigen::VectorXd::Zero(n);
  for (const auto& [u, v] : edges) {
    degree[u] += 1;
    degree[v] += 1;
  }
  Eigen::MatrixXd laplacian = Eigen::MatrixXd::Identity(n, n);
  for (const auto& [u, v] : edges) {
    laplacian(u, v) = laplacian(v, u) = -1.0 / std::sqrt(degree[u] * degree[v]);
  }
  return laplacian;
}

// Checks orthonormal columns and L v = lambda v for each column and its expected eigenvalue.
void expect_eigenvectors(const Matrix<double>& encoding, const Eigen::MatrixXd& laplacian,
                         const std::vector<double>& eigenvalues) {
  ASSERT_EQ(encoding.cols(), static_cast<Index>(eigenvalues.size()));
  const Eigen::MatrixXd gram = encoding.transpose() * encoding;
  EXPECT_TRUE(gram.isApprox(Eigen::MatrixXd::Identity(gram.rows(), gram.cols()), 1e-10)) << gram;
  for (Index c = 0; c < encoding.cols(); ++c) {
    const Eigen::VectorXd v = encoding.col(c);
    const double residual = (laplacian * v - eigenvalues[c] * v).norm();
    EXPECT_LT(residual, 1e-10) << "column " << c << ", expected eigenvalue " << eigenvalues[c];
  }
}

// The eigenvalues 2..count+1 in ascending order, from a dense reference solver.
std::vector<double> smallest_nontrivial_eigenvalues(const Eigen::MatrixXd& laplacian, Index count) {
  const Eigen::VectorXd all = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(laplacian).eigenvalues();
  return {all.data() + 1, all.data() + 1 + count};
}

TEST(SinusoidalEncoding, HandComputedValues) {
  const Matrix<double> pe = sinusoidal_encoding<double>(3, 4);
  ASSERT_EQ(pe.rows(), 3);
  ASSERT_EQ(pe.cols(), 4);
  // Position 0: sin 0 = 0, cos 0 = 1.
  EXPECT_EQ(pe(0, 0), 0.0);
  EXPECT_EQ(pe(0, 1), 1.0);
  EXPECT_EQ(pe(0, 2), 0.0);
  EXPECT_EQ(pe(0, 3), 1.0);
  // Columns 0, 1 use 10000^0 = 1; columns 2, 3 use 10000^(2/4) = 100.
  EXPECT_NEAR(pe(1, 0), 0.8414709848078965, 1e-15);
  EXPECT_NEAR(pe(1, 1), 0.5403023058681398, 1e-15);
  EXPECT_NEAR(pe(1, 2), 0.009999833334166664, 1e-15);
  EXPECT_NEAR(pe(1, 3), 0.9999500004166653, 1e-15);
  EXPECT_NEAR(pe(2, 0), 0.9092974268256817, 1e-15);
  EXPECT_NEAR(pe(2, 1), -0.4161468365471424, 1e-15);
  EXPECT_NEAR(pe(2, 2), 0.01999866669333308, 1e-15);
}

TEST(SinusoidalEncoding, OddDimEndsWithASine) {
  const Matrix<double> pe = sinusoidal_encoding<double>(10, 5);
  ASSERT_EQ(pe.cols(), 5);
  // Column 4 is 2i = 4: sin(pos / 10000^(4/5)), 10000^0.8 = 1584.893192461113.
  EXPECT_NEAR(pe(7, 4), std::sin(7.0 / 1584.893192461113), 1e-15);
  // Columns 2, 3 share 10000^(2/5) = 39.81071705534972.
  EXPECT_NEAR(pe(7, 2), std::sin(7.0 / 39.81071705534972), 1e-15);
  EXPECT_NEAR(pe(7, 3), std::cos(7.0 / 39.81071705534972), 1e-15);
}

TEST(SinusoidalEncoding, FloatMatchesDoubleAndShapesAndErrors) {
  const Matrix<double> pe = sinusoidal_encoding<double>(50, 16);
  const Matrix<float> pe_float = sinusoidal_encoding<float>(50, 16);
  EXPECT_LT((pe_float.cast<double>() - pe).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_EQ(sinusoidal_encoding<double>(0, 8).rows(), 0);
  EXPECT_EQ(sinusoidal_encoding<double>(4, 0).cols(), 0);
  EXPECT_THROW(sinusoidal_encoding<double>(-1, 4), ArgumentError);
  EXPECT_THROW(sinusoidal_encoding<float>(4, -2), ArgumentError);
}

class RandomWalkEncoding : public ::testing::TestWithParam<RandomWalkMethod> {};

TEST_P(RandomWalkEncoding, CycleOfFour) {
  // Bipartite: odd steps never return; after an even number of steps the walk is home or opposite,
  // each with probability 1/2.
  const Matrix<double> pe = random_walk_encoding<double>(undirected(4, cycle_edges(4)), 4, GetParam());
  ASSERT_EQ(pe.rows(), 4);
  ASSERT_EQ(pe.cols(), 4);
  for (Index i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(pe(i, 0), 0.0);
    EXPECT_DOUBLE_EQ(pe(i, 1), 0.5);
    EXPECT_DOUBLE_EQ(pe(i, 2), 0.0);
    EXPECT_DOUBLE_EQ(pe(i, 3), 0.5);
  }
}

TEST_P(RandomWalkEncoding, PathOfThree) {
  // From an end: 0 -> 1 -> 0 with probability 1/2. From the middle every second step is home.
  const Matrix<double> pe = random_walk_encoding<double>(undirected(3, path_edges(3)), 4, GetParam());
  const std::vector<std::vector<double>> expected = {{0, 0.5, 0, 0.5}, {0, 1, 0, 1}, {0, 0.5, 0, 0.5}};
  for (Index i = 0; i < 3; ++i)
    for (Index t = 0; t < 4; ++t) EXPECT_DOUBLE_EQ(pe(i, t), expected[i][t]) << "node " << i << " step " << t + 1;
}

TEST_P(RandomWalkEncoding, FollowsEdgeDirectionAndMultiplicity) {
  // A directed 3-cycle returns after exactly 3 steps.
  const Matrix<double> directed_cycle =
      random_walk_encoding<double>(Graph::from_pairs(3, cycle_edges(3)), 4, GetParam());
  for (Index i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(directed_cycle(i, 0), 0.0);
    EXPECT_DOUBLE_EQ(directed_cycle(i, 1), 0.0);
    EXPECT_DOUBLE_EQ(directed_cycle(i, 2), 1.0);
    EXPECT_DOUBLE_EQ(directed_cycle(i, 3), 0.0);
  }
  // Node 0 has two edges to 1 and one to 2, so the walk from 1 comes back with probability 2/3.
  const Matrix<double> parallel =
      random_walk_encoding<double>(Graph::from_pairs(3, Pairs{{0, 1}, {0, 1}, {0, 2}, {1, 0}, {2, 0}}), 2, GetParam());
  EXPECT_DOUBLE_EQ(parallel(0, 1), 1.0);
  EXPECT_DOUBLE_EQ(parallel(1, 1), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(parallel(2, 1), 1.0 / 3.0);
  // A self-loop is a step home: from 0, half the walks stay put each step.
  const Matrix<double> loop =
      random_walk_encoding<double>(Graph::from_pairs(2, Pairs{{0, 0}, {0, 1}, {1, 0}}), 2, GetParam());
  EXPECT_DOUBLE_EQ(loop(0, 0), 0.5);
  EXPECT_DOUBLE_EQ(loop(0, 1), 0.25 + 0.5);
  EXPECT_DOUBLE_EQ(loop(1, 0), 0.0);
  EXPECT_DOUBLE_EQ(loop(1, 1), 0.5);
}

TEST_P(RandomWalkEncoding, SinksAndIsolatedNodesGetZero) {
  // 0 -> 1 only: the walk from 0 dies at 1, node 1 has no out-edges, node 2 none at all.
  const Matrix<double> pe =
      random_walk_encoding<double>(Graph::from_pairs(3, Pairs{{0, 1}}), 3, GetParam());
  EXPECT_TRUE(pe.isZero(0.0)) << pe;
  // Undirected 0 - 1 with node 2 alone: the walk alternates, the lone node never moves.
  const Matrix<double> pair = random_walk_encoding<double>(undirected(3, Pairs{{0, 1}}), 3, GetParam());
  for (Index i : {0, 1}) {
    EXPECT_DOUBLE_EQ(pair(i, 0), 0.0);
    EXPECT_DOUBLE_EQ(pair(i, 1), 1.0);
    EXPECT_DOUBLE_EQ(pair(i, 2), 0.0);
  }
  EXPECT_TRUE(pair.row(2).isZero(0.0)) << pair;
  EXPECT_EQ(random_walk_encoding<double>(Graph(), 3, GetParam()).rows(), 0);
  EXPECT_EQ(random_walk_encoding<double>(undirected(4, cycle_edges(4)), 0, GetParam()).cols(), 0);
  EXPECT_THROW(random_walk_encoding<double>(Graph(), -1, GetParam()), ArgumentError);
}

TEST_P(RandomWalkEncoding, MatchesDenseMatrixPowers) {
  const Index n = 150, k = 7;  // more nodes than one block of start nodes; odd k for the reversible walk
  for (const bool symmetrize : {false, true}) {
    SCOPED_TRACE(symmetrize ? "symmetrized" : "directed");
    const Graph graph = Graph::from_pairs(n, distinct_random_pairs(n, 400, 17), {.symmetrize = symmetrize});
    // P[j][i] = (edges j -> i) / out-degree(j); rows of sinks stay zero.
    Eigen::MatrixXd transition = Eigen::MatrixXd::Zero(n, n);
    for (Index e = 0; e < graph.num_edges(); ++e)
      transition(graph.source(e), graph.target(e)) += 1.0 / static_cast<double>(graph.out_degree(graph.source(e)));
    const Matrix<double> pe = random_walk_encoding<double>(graph, k, GetParam());
    Eigen::MatrixXd power = Eigen::MatrixXd::Identity(n, n);
    for (Index t = 0; t < k; ++t) {
      power = power * transition;
      EXPECT_LT((pe.col(t) - power.diagonal()).cwiseAbs().maxCoeff(), 1e-14) << "step " << t + 1;
    }
    const Matrix<float> pe_float = random_walk_encoding<float>(graph, k, GetParam());
    EXPECT_LT((pe_float.cast<double>() - pe).cwiseAbs().maxCoeff(), 1e-6);
  }
}

TEST_P(RandomWalkEncoding, IndependentOfThreadCount) {
  for (const Graph& graph :
       {undirected(300, distinct_random_pairs(300, 900, 23)), Graph::from_pairs(300, random_pairs(300, 900, 23))}) {
    set_num_threads(1);
    const Matrix<double> serial = random_walk_encoding<double>(graph, 8, GetParam());
    set_num_threads(4);
    const Matrix<double> parallel = random_walk_encoding<double>(graph, 8, GetParam());
    set_num_threads(0);
    EXPECT_TRUE(serial == parallel);
  }
}

// A ring where each node joins its 3 nearest neighbours on either side (a band graph, as for
// windowed attention) keeps walks local; random graphs spread them over all nodes within k steps.
TEST_P(RandomWalkEncoding, BandAndRandomGraphsMatchTheOtherMethod) {
  Pairs band;
  for (Index i = 0; i < 2000; ++i)
    for (Index d = 1; d <= 3; ++d) band.emplace_back(i, (i + d) % 2000);
  for (const Graph& graph : {undirected(2000, band), undirected(500, distinct_random_pairs(500, 1500, 29)),
                             Graph::from_pairs(500, random_pairs(500, 3000, 31))}) {
    const RandomWalkMethod other =
        GetParam() == RandomWalkMethod::per_start ? RandomWalkMethod::blocked : RandomWalkMethod::per_start;
    const Matrix<double> pe = random_walk_encoding<double>(graph, 16, GetParam());
    EXPECT_LT((pe - random_walk_encoding<double>(graph, 16, other)).cwiseAbs().maxCoeff(), 1e-14);
  }
}

std::string method_name(const ::testing::TestParamInfo<RandomWalkMethod>& info) {
  switch (info.param) {
    case RandomWalkMethod::per_start:
      return "PerStart";
    case RandomWalkMethod::blocked:
      return "Blocked";
    default:
      return "Automatic";
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, RandomWalkEncoding,
                         ::testing::Values(RandomWalkMethod::automatic, RandomWalkMethod::per_start,
                                         RandomWalkMethod::blocked),
                         method_name);

TEST(RandomWalkEncodingLimit, AutomaticRefusesMoreWorkThanTheLimitAndSaysWhy) {
  const Graph graph = undirected(500, distinct_random_pairs(500, 1500, 29));
  // Walks spread over this graph, so blocks are cheaper: 8 steps (undirected, 16 return
  // probabilities) of N + E visits, 1.5 units each, shared by 32 starts, for each of the 500 nodes.
  const double work = 1.5 * 8 * static_cast<double>(500 + graph.num_edges()) / 32 * 500;
  EXPECT_NO_THROW(random_walk_encoding<double>(graph, 16, RandomWalkMethod::automatic, work * 1.001));
  try {
    random_walk_encoding<double>(graph, 16, RandomWalkMethod::automatic, work * 0.999);
    ADD_FAILURE() << "no error above the limit";
  } catch (const ArgumentError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("16-step random walks from each of 500 nodes"), std::string::npos) << message;
    EXPECT_NE(message.find("features"), std::string::npos) << message;
  }
  // A method named explicitly runs whatever the limit; the default limit is far above this graph.
  EXPECT_NO_THROW(random_walk_encoding<double>(graph, 16, RandomWalkMethod::blocked, 1.0));
  EXPECT_NO_THROW(random_walk_encoding<double>(graph, 16, RandomWalkMethod::per_start, 1.0));
  EXPECT_NO_THROW(random_walk_encoding<double>(graph, 16));
}

TEST(RandomWalkWork, IsTheAutomaticMethodsEstimate) {
  const Graph graph = undirected(500, distinct_random_pairs(500, 1500, 29));
  EXPECT_DOUBLE_EQ(random_walk_work(graph, 16), 1.5 * 8 * static_cast<double>(500 + graph.num_edges()) / 32 * 500);
  EXPECT_EQ(random_walk_work(graph, 0), 0.0);
  EXPECT_THROW(random_walk_work(graph, -1), ArgumentError);
}

// The exact return probabilities by dense matrix powers, [N, k].
Eigen::MatrixXd dense_return_probabilities(const Graph& graph, Index k) {
  const Index n = graph.num_nodes();
  Eigen::MatrixXd transition = Eigen::MatrixXd::Zero(n, n);
  for (Index e = 0; e < graph.num_edges(); ++e)
    transition(graph.source(e), graph.target(e)) += 1.0 / static_cast<double>(graph.out_degree(graph.source(e)));
  Eigen::MatrixXd probabilities(n, k), power = Eigen::MatrixXd::Identity(n, n);
  for (Index t = 0; t < k; ++t) {
    power = power * transition;
    probabilities.col(t) = power.diagonal();
  }
  return probabilities;
}

TEST(SampledRandomWalkEncoding, DeterministicWalksAndTheFirstStepAreExact) {
  // A directed 3-cycle: every walk is the same, so 2 walks give the exact 0, 0, 1, 0, 0, 1.
  const Matrix<double> cycle = sampled_random_walk_encoding<double>(Graph::from_pairs(3, cycle_edges(3)), 6, 2, 0);
  for (Index i = 0; i < 3; ++i)
    for (Index t = 0; t < 6; ++t) EXPECT_EQ(cycle(i, t), t % 3 == 2 ? 1.0 : 0.0) << i << ", step " << t + 1;
  // A sink ends its walks: 0 -> 1 only, so nothing returns.
  EXPECT_TRUE(sampled_random_walk_encoding<double>(Graph::from_pairs(3, Pairs{{0, 1}}), 3, 4, 0).isZero());
  // Step 1 counts self-loops and parallel edges without sampling: 1/2 at node 0, 0 at node 1.
  const Matrix<double> loops =
      sampled_random_walk_encoding<double>(Graph::from_pairs(2, Pairs{{0, 0}, {0, 1}, {1, 0}, {1, 0}}), 1, 1, 7);
  EXPECT_EQ(loops(0, 0), 0.5);
  EXPECT_EQ(loops(1, 0), 0.0);
}

TEST(SampledRandomWalkEncoding, ConvergesToTheExactProbabilitiesWithoutBias) {
  for (const bool symmetrize : {false, true}) {
    SCOPED_TRACE(symmetrize ? "symmetrized" : "directed");
    const Graph graph = Graph::from_pairs(60, random_pairs(60, 240, 41), {.symmetrize = symmetrize});
    const Eigen::MatrixXd exact = dense_return_probabilities(graph, 6);
    const Matrix<double> sampled = sampled_random_walk_encoding<double>(graph, 6, 20000, 3);
    EXPECT_LT((sampled.col(0) - exact.col(0)).cwiseAbs().maxCoeff(), 1e-12);  // exact up to rounding
    const Eigen::MatrixXd error = sampled - exact;
    // Each estimate is a mean of 20,000 draws in [0, 1]: its standard error is below 0.0036.
    EXPECT_LT(error.cwiseAbs().maxCoeff(), 0.02);
    EXPECT_LT(std::abs(error.mean()), 0.001);
  }
}

TEST(SampledRandomWalkEncoding, SeededAndIndependentOfThreadCount) {
  const Graph graph = undirected(700, distinct_random_pairs(700, 2100, 43));
  set_num_threads(1);
  const Matrix<float> serial = sampled_random_walk_encoding<float>(graph, 8, 16, 5);
  set_num_threads(4);
  const Matrix<float> parallel = sampled_random_walk_encoding<float>(graph, 8, 16, 5);
  set_num_threads(0);
  EXPECT_TRUE(serial == parallel);
  EXPECT_FALSE(serial == sampled_random_walk_encoding<float>(graph, 8, 16, 6));
}

TEST(SampledRandomWalkEncoding, ShapesAndErrors) {
  const Graph graph = undirected(4, cycle_edges(4));
  EXPECT_EQ(sampled_random_walk_encoding<double>(Graph(), 3, 8, 0).rows(), 0);
  EXPECT_EQ(sampled_random_walk_encoding<double>(graph, 0, 8, 0).cols(), 0);
  EXPECT_THROW(sampled_random_walk_encoding<double>(graph, -1, 8, 0), ArgumentError);
  EXPECT_THROW(sampled_random_walk_encoding<double>(graph, 4, 0, 0), ArgumentError);
}

TEST(LaplacianEncoding, CycleEigenpairs) {
  // The normalized Laplacian of a cycle of n has eigenvalues 1 - cos(2 pi j / n): for n = 6,
  // 0, 0.5, 0.5, 1.5, 1.5, 2. The trivial 0 is skipped.
  const Index n = 6;
  const Matrix<double> pe = laplacian_encoding<double>(undirected(n, cycle_edges(n)), 3);
  ASSERT_EQ(pe.rows(), n);
  expect_eigenvectors(pe, reference_laplacian(n, cycle_edges(n)), {0.5, 0.5, 1.5});
  // Orthogonal to the trivial eigenvector, which is constant on a regular graph.
  EXPECT_LT(pe.colwise().sum().cwiseAbs().maxCoeff(), 1e-12);
}

TEST(LaplacianEncoding, PathEigenpairsAndPadding) {
  // Path of n: eigenvalues 1 - cos(pi j / (n - 1)), j = 0..n-1; only n - 1 = 4 are non-trivial.
  const Index n = 5;
  const Matrix<double> pe = laplacian_encoding<double>(undirected(n, path_edges(n)), 6);
  ASSERT_EQ(pe.cols(), 6);
  std::vector<double> eigenvalues;
  for (int j = 1; j < n; ++j) eigenvalues.push_back(1.0 - std::cos(std::numbers::pi * j / (n - 1)));
  expect_eigenvectors(pe.leftCols(4), reference_laplacian(n, path_edges(n)), eigenvalues);
  EXPECT_TRUE(pe.rightCols(2).isZero(0.0));
  // Orthogonal to the trivial eigenvector D^1/2 1.
  const Eigen::VectorXd sqrt_degree = Eigen::VectorXd{{1.0, std::sqrt(2.0), std::sqrt(2.0), std::sqrt(2.0), 1.0}};
  EXPECT_LT((pe.leftCols(4).transpose() * sqrt_degree).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(LaplacianEncoding, KeepsOtherComponentsNullVectors) {
  // Two disjoint triangles: eigenvalue 0 twice (skip one, keep one), then 1.5 four times.
  const Pairs edges = {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}};
  const Matrix<double> pe = laplacian_encoding<double>(undirected(6, edges), 3);
  expect_eigenvectors(pe, reference_laplacian(6, edges), {0.0, 1.5, 1.5});
}

TEST(LaplacianEncoding, IgnoresDirectionDuplicatesAndSelfLoops) {
  const Pairs clean = {{0, 1}, {1, 2}, {2, 3}, {1, 3}, {3, 4}};
  const Pairs messy = {{1, 0}, {1, 2}, {2, 1}, {3, 2}, {1, 3}, {1, 3}, {4, 3}, {2, 2}, {4, 4}};
  const Matrix<double> expected = laplacian_encoding<double>(undirected(5, clean), 3);
  EXPECT_TRUE(laplacian_encoding<double>(Graph::from_pairs(5, messy), 3) == expected);
  const Eigen::MatrixXd laplacian = reference_laplacian(5, clean);
  expect_eigenvectors(expected, laplacian, smallest_nontrivial_eigenvalues(laplacian, 3));
}

TEST(LaplacianEncoding, RandomGraphMatchesDenseReference) {
  Pairs edges;  // simple undirected edges {u, v}, u < v, each once
  for (const auto& [u, v] : random_pairs(30, 70, 31))
    if (u < v && std::find(edges.begin(), edges.end(), std::pair{u, v}) == edges.end()) edges.emplace_back(u, v);
  const Eigen::MatrixXd laplacian = reference_laplacian(30, edges);
  expect_eigenvectors(laplacian_encoding<double>(undirected(30, edges), 10), laplacian,
                      smallest_nontrivial_eigenvalues(laplacian, 10));
}

TEST(LaplacianEncoding, IsolatedNodesHaveEigenvalueOne) {
  // Nodes 3 and 4 are isolated: L_ii = 1, eigenvectors e_3, e_4. Path 0-1-2 gives 0, 1, 2.
  const Pairs edges = {{0, 1}, {1, 2}};
  const Matrix<double> pe = laplacian_encoding<double>(undirected(5, edges), 4);
  expect_eigenvectors(pe, reference_laplacian(5, edges), {1.0, 1.0, 1.0, 2.0});
}

TEST(LaplacianEncoding, SignsAreDeterministic) {
  const Graph graph = undirected(40, random_pairs(40, 90, 29));
  const Matrix<double> pe = laplacian_encoding<double>(graph, 8);
  EXPECT_TRUE(laplacian_encoding<double>(graph, 8) == pe);
  for (Index c = 0; c < pe.cols(); ++c) {
    const double largest = pe.col(c).cwiseAbs().maxCoeff();
    Index first_largest = 0;
    while (std::abs(pe(first_largest, c)) < largest - 1e-8) ++first_largest;
    EXPECT_GT(pe(first_largest, c), 0.0) << "column " << c;
  }
  const Matrix<float> pe_float = laplacian_encoding<float>(graph, 8);
  EXPECT_LT((pe_float.cast<double>() - pe).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(LaplacianEncoding, ShapesAndLimits) {
  EXPECT_EQ(laplacian_encoding<double>(Graph(), 3).rows(), 0);
  EXPECT_TRUE(laplacian_encoding<double>(Graph::from_pairs(1, Pairs{}), 2).isZero(0.0));
  EXPECT_EQ(laplacian_encoding<double>(undirected(4, cycle_edges(4)), 0).cols(), 0);
  EXPECT_THROW(laplacian_encoding<double>(Graph(), -1), ArgumentError);
  try {
    laplacian_encoding<double>(undirected(10, cycle_edges(10)), 2, 9);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& error) {
    EXPECT_NE(std::string(error.what()).find("10 nodes exceed the limit of 9"), std::string::npos) << error.what();
  }
}

TEST(RandomSignFlip, SeededAndColumnwise) {
  const Matrix<double> original = laplacian_encoding<double>(undirected(80, cycle_edges(80)), 64);
  Matrix<double> first = original, second = original, other_seed = original;
  SplitMix64 rng_first(42), rng_second(42), rng_other(43);
  random_sign_flip(first, rng_first);
  random_sign_flip(second, rng_second);
  random_sign_flip(other_seed, rng_other);
  EXPECT_TRUE(first == second);
  EXPECT_FALSE(first == other_seed);
  Index flipped = 0;
  for (Index c = 0; c < original.cols(); ++c) {
    const bool kept = first.col(c) == original.col(c);
    const bool negated = first.col(c) == -original.col(c);
    EXPECT_TRUE(kept || negated) << "column " << c;
    flipped += negated ? 1 : 0;
  }
  // 64 fair coins: fewer than 12 or more than 52 flips has probability below 1e-6.
  EXPECT_GT(flipped, 12);
  EXPECT_LT(flipped, 52);

  Matrix<float> single = Matrix<float>::Ones(3, 1);
  SplitMix64 rng(7);
  random_sign_flip(single, rng);
  EXPECT_EQ(std::abs(single.sum()), 3.0f);
}

}  // namespace
}  // namespace edgewise
