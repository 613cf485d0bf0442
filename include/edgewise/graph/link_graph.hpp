/// \file
/// The graph a link predictor's encoder sees when it trains on sampled mini-batches: CSR by
/// destination with each node's in-neighbours in ascending order, so that whether two nodes are
/// linked is a binary search and a link is drawn uniformly in O(log N). On a graph of millions of
/// nodes that is all link training needs to draw its links and its non-links; a set of pairs would
/// cost several times the graph.
///
///   const LinkGraph seen(store.in_edges(), [&](NodeId a, NodeId b) { return in_training(a, b); });
///   SplitMix64 rng(seed);
///   const auto [a, b] = seen.draw_link(rng);   // a < b, linked
///   seen.linked(a, b);                        // true
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "edgewise/core/random.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

/// An undirected graph's links, each in both directions, as CSR with sorted rows (see the file comment).
class LinkGraph {
 public:
  /// The edges of `graph` that keep(source, target) keeps, and its self-loops whatever keep says.
  /// `graph` holds every link in both directions, and keep must treat the two alike. Each node's
  /// in-neighbours are sorted; the filtering and sorting run in parallel.
  LinkGraph(InEdges graph, const std::function<bool(NodeId source, NodeId target)>& keep);

  /// The kept edges, self-loops included, as attention layers and samplers read them.
  InEdges in_edges() const { return {offsets_, sources_}; }
  /// Nodes, those left without links included.
  Index num_nodes() const { return static_cast<Index>(offsets_.size()) - 1; }
  /// Links between distinct nodes, the two directions of one counted once.
  Index num_links() const { return links_; }
  /// Whether a and b (distinct) are linked: a binary search of b's in-neighbours.
  bool linked(NodeId a, NodeId b) const;
  /// A link drawn uniformly from `rng`, the smaller node first. Needs num_links() > 0.
  std::pair<Index, Index> draw_link(SplitMix64& rng) const;
  /// A node drawn in proportion to its links, from `rng`. Needs num_links() > 0.
  NodeId draw_linked_node(SplitMix64& rng) const;

 private:
  // A uniform position in sources_ whose edge joins two distinct nodes.
  Index draw_link_position(SplitMix64& rng) const;
  NodeId target_of(Index position) const;

  std::vector<Index> offsets_;   // [N + 1]
  std::vector<NodeId> sources_;  // [E], ascending within each node's range
  Index links_ = 0;
};

}  // namespace edgewise
