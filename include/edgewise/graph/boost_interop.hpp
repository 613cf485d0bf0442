/// \file
/// Conversions between edgewise::Graph and Boost.Graph adjacency lists, so graphs can be built or
/// analysed with Boost's algorithms.
///
/// Vertex v of a Boost graph is node get(vertex_index, g, v). Boost stores edges per source vertex,
/// so a round trip keeps the multiset of edges but not the edge order: from_boost(to_boost(graph))
/// lists the edges grouped by source. Parallel edges survive only where the adjacency list's edge
/// container allows them (vecS, listS; not setS).
#pragma once

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graph_traits.hpp>
#include <string>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

/// The default Boost graph type of to_boost: directed, vertices and edges in vectors.
using BoostDigraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

/// Builds a Graph with one node per vertex, in boost::edges order: each directed (or bidirectional)
/// edge u -> v becomes one edge u -> v; each undirected edge {u, v} becomes u -> v followed by
/// v -> u, except a self-loop {u, u}, which becomes one edge u -> u. Needs an internal vertex_index
/// property (built in for vecS vertex storage). Options are applied as in Graph::from_edges.
template <typename BoostGraph>
Graph from_boost(const BoostGraph& boost_graph, const GraphOptions& options = {}) {
  constexpr bool undirected = boost::is_undirected_graph<BoostGraph>::value;
  const auto vertex_index = boost::get(boost::vertex_index, boost_graph);
  const auto num_boost_edges = static_cast<std::size_t>(boost::num_edges(boost_graph));
  std::vector<Index> sources, targets;
  sources.reserve(undirected ? 2 * num_boost_edges : num_boost_edges);
  targets.reserve(sources.capacity());
  for (auto [edge, end] = boost::edges(boost_graph); edge != end; ++edge) {
    const auto u = static_cast<Index>(boost::get(vertex_index, boost::source(*edge, boost_graph)));
    const auto v = static_cast<Index>(boost::get(vertex_index, boost::target(*edge, boost_graph)));
    sources.push_back(u);
    targets.push_back(v);
    if (undirected && u != v) {
      sources.push_back(v);
      targets.push_back(u);
    }
  }
  return Graph::from_edges(static_cast<Index>(boost::num_vertices(boost_graph)), sources, targets, options);
}

namespace detail {

// Throws ArgumentError unless every edge u -> v (u != v) is matched by its own v -> u, counting
// multiplicity, as an undirected Boost graph needs. O(E log E).
inline void check_symmetric(const Graph& graph) {
  std::vector<std::pair<Index, Index>> forward, backward;  // both as (smaller id, larger id)
  for (Index e = 0; e < graph.num_edges(); ++e) {
    const Index u = graph.source(e), v = graph.target(e);
    if (u < v) forward.emplace_back(u, v);
    if (u > v) backward.emplace_back(v, u);
  }
  std::sort(forward.begin(), forward.end());
  std::sort(backward.begin(), backward.end());
  const auto [f, b] = std::mismatch(forward.begin(), forward.end(), backward.begin(), backward.end());
  if (f == forward.end() && b == backward.end()) return;
  // The first pair in sorted order whose two directions occur a different number of times.
  const auto [u, v] = (b == backward.end() || (f != forward.end() && *f < *b)) ? *f : *b;
  throw ArgumentError("to_boost: an undirected graph needs edges in both directions, but " + std::to_string(u) +
                      " -> " + std::to_string(v) + " and " + std::to_string(v) + " -> " + std::to_string(u) +
                      " occur a different number of times");
}

}  // namespace detail

/// Builds a Boost adjacency list with graph.num_nodes() vertices. A directed or bidirectional target
/// gets one edge per edge of `graph`, in its edge order. An undirected target gets one edge {u, v}
/// per pair u -> v, v -> u and one self-loop per u -> u, so `graph` must be symmetric (ArgumentError
/// otherwise); from_boost of an undirected graph always is.
template <typename BoostGraph = BoostDigraph>
BoostGraph to_boost(const Graph& graph) {
  constexpr bool undirected = boost::is_undirected_graph<BoostGraph>::value;
  if constexpr (undirected) detail::check_symmetric(graph);
  using Traits = boost::graph_traits<BoostGraph>;
  BoostGraph boost_graph(static_cast<typename Traits::vertices_size_type>(graph.num_nodes()));
  const auto [first, last] = boost::vertices(boost_graph);
  const std::vector<typename Traits::vertex_descriptor> vertex(first, last);
  for (Index e = 0; e < graph.num_edges(); ++e) {
    const NodeId u = graph.source(e), v = graph.target(e);
    if (undirected && u > v) continue;  // the mirror of an edge u < v added once
    boost::add_edge(vertex[u], vertex[v], boost_graph);
  }
  return boost_graph;
}

}  // namespace edgewise
