/// \file
/// Positional encodings: node features that tell attention where a node sits, in a sequence or in a
/// graph. Each returns a row-major [N, dim] matrix meant to be concatenated to (or added to) the node
/// features. All are computed in double and converted to Scalar (float or double).
#pragma once

#include "edgewise/core/random.hpp"
#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

/// The sinusoidal encoding of "Attention Is All You Need", [length, dim]:
///   PE(pos, 2i) = sin(pos / 10000^(2i / dim)),   PE(pos, 2i + 1) = cos(pos / 10000^(2i / dim)).
/// An odd dim ends with a sine column. Throws ArgumentError on a negative length or dim.
template <typename Scalar>
Matrix<Scalar> sinusoidal_encoding(Index length, Index dim);

/// How random_walk_encoding computes its walks. Both give the same probabilities up to rounding
/// (on the shared data sets, the same floats).
enum class RandomWalkMethod {
  /// Whichever of the two costs less on this graph, judged from the sparse walks of 16 start nodes
  /// spread over it.
  automatic,
  /// A sparse walk from each start node over its k-hop neighbourhood: O(k * E_k) work per node, E_k
  /// the edges in that neighbourhood. Cheap where neighbourhoods stay small: meshes, chains, bands.
  per_start,
  /// 32 start nodes at a time, each step streaming the whole graph: O(k * (N + E) / 32) work per
  /// node, ceil(k / 2) steps instead of k where every edge's reverse is in the graph as often.
  /// Cheap where walks spread over most of the graph within k steps: social graphs with hubs.
  blocked,
};

/// The most work random_walk_encoding's automatic method takes on: about 4 hours on 2 cores of a
/// 2024 server (1.2 to 1.6 ns a unit), the work of a small-world graph of a few million nodes. Above
/// it the call refuses rather than compute for hours without a word. The unit is a node or edge
/// visited by a per_start walk (estimated from the sample); blocked walks count 1.5 units for each
/// of the steps x (N + E) node and edge visits of a block, shared by its 32 starts.
inline constexpr double random_walk_max_work = 1e13;

/// Random-walk structural encoding, [N, k]: entry (i, t - 1) is the probability that a random walk
/// started at i is back at i after t steps, t = 1..k, i.e. the diagonal of P^t with P = D^-1 A.
/// The walk follows the graph's edges as given: from node j it takes one of j's out-edges j -> i
/// uniformly, counting parallel edges and self-loops (A[j][i] = number of edges j -> i, D = out-degree).
/// A walk that reaches a node without out-edges ends there, so such nodes get 0. For an undirected
/// reading, build the graph with GraphOptions::symmetrize.
///
/// Scratch per thread: O(N) for per_start walks, 2 x 32 doubles a node for blocked ones. Start nodes
/// run in parallel; the result does not depend on the thread count. Throws ArgumentError on
/// negative k, and with the automatic method when the cheaper method's estimated work exceeds
/// max_work (a method named explicitly always runs).
template <typename Scalar>
Matrix<Scalar> random_walk_encoding(const Graph& graph, Index k,
                                    RandomWalkMethod method = RandomWalkMethod::automatic,
                                    double max_work = random_walk_max_work);

/// The work random_walk_encoding's automatic method would take on this graph, in the units of
/// random_walk_max_work: what a caller weighs before choosing sampled_random_walk_encoding instead.
double random_walk_work(const Graph& graph, Index k);

/// A Monte-Carlo estimate of random_walk_encoding, [N, k], in O(N x walks x k + E) work: `walks`
/// walks of k - 1 steps from each node. A walk at node u after t - 1 steps adds A[u][s] / D_u, the
/// probability that its next step lands on its start s, rather than counting the walks that land
/// there: the estimate stays unbiased with a smaller variance, and column 1 is exact. Each start
/// node draws from its own generator, seeded by (seed, node), so the result depends neither on the
/// thread count nor on the order of the work. Scratch per thread: N counts and `walks` positions.
/// Throws ArgumentError on negative k or a walks count below 1.
template <typename Scalar>
Matrix<Scalar> sampled_random_walk_encoding(const Graph& graph, Index k, Index walks, std::uint64_t seed);

/// Graphs above this many nodes are refused by laplacian_encoding: it builds the dense N x N
/// Laplacian and its eigenvectors (two N x N double matrices, 400 MB at 5000 nodes) and the
/// eigensolver takes O(N^3) time.
inline constexpr Index laplacian_max_nodes = 5000;

/// Laplacian eigenvector encoding, [N, k]: eigenvectors of the symmetric normalized Laplacian
///   L = I - D^-1/2 A D^-1/2,
/// A the symmetric 0/1 adjacency (i ~ j if i -> j or j -> i, i != j; directions, parallel edges and
/// self-loops ignored), D its degrees; an isolated node has D^-1/2 = 0, so L_ii = 1. Columns are the
/// eigenvectors with the 2nd, 3rd, ... smallest eigenvalues: the first, the trivial eigenvector with
/// eigenvalue 0, is skipped (in a graph with several components the other zero-eigenvalue vectors
/// are kept; they mark the components). Columns past the N - 1 available are zero.
///
/// Eigenvectors are defined only up to sign; each column's sign is fixed so that its first entry
/// within 1e-8 of its largest magnitude is positive, making the output deterministic. Training
/// usually flips signs at random with random_sign_flip. Within repeated eigenvalues the basis is
/// whichever the eigensolver returns.
/// Throws ArgumentError on negative k or when N exceeds max_nodes (a dense O(N^2)-memory method).
template <typename Scalar>
Matrix<Scalar> laplacian_encoding(const Graph& graph, Index k, Index max_nodes = laplacian_max_nodes);

/// Negates each column of `encoding` with probability 1/2, one draw from rng per column.
template <typename Scalar>
void random_sign_flip(Matrix<Scalar>& encoding, SplitMix64& rng);

}  // namespace edgewise
