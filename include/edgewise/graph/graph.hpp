/// \file
/// Directed graph storage for edgewise attention.
///
/// An edge j -> i carries j's value to i; attention at i is normalized over i's in-edges. Edges are
/// stored CSR by destination (the in-edges of node i occupy positions in_offsets[i] .. in_offsets[i+1]),
/// with the source of each position and the position of each edge of the graph's edge order. The
/// transpose by source, used by backward passes to gather into sources without atomics, is built once
/// with it. That is all a graph holds: 16 bytes an edge and 16 a node; the edges as given are not kept.
///
/// The graph's edge order is the caller's: the edges passed to the builder, in their order, after
/// the options are applied. Options only ever drop duplicates (keeping the first occurrence) or append
/// edges: reverse edges added by `symmetrize` come after the caller's, then self-loops by node id.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// Node ids as stored per edge: 32 bits halve the index memory; graphs hold at most 2^31 - 1 nodes.
using NodeId = std::int32_t;

/// Edges the graph builders add or drop after the caller's edges.
struct GraphOptions {
  bool add_self_loops = false;   ///< append i -> i for every node that has none
  bool symmetrize = false;       ///< append j -> i for every i -> j whose reverse is missing
  bool drop_duplicates = false;  ///< keep only the first of repeated (source, target) pairs
};

/// The in-edges of every node in CSR by destination, viewing memory owned elsewhere: a Graph, or a
/// memory-mapped graph store. Node i's in-edges come from sources[offsets[i]] .. sources[offsets[i+1] - 1].
struct InEdges {
  std::span<const Index> offsets;   ///< [N + 1], from 0, non-decreasing, ending at E
  std::span<const NodeId> sources;  ///< [E]

  /// N.
  Index num_nodes() const { return offsets.empty() ? 0 : static_cast<Index>(offsets.size()) - 1; }
  /// E.
  Index num_edges() const { return static_cast<Index>(sources.size()); }
};

/// A directed graph in CSR by destination, with its transpose by source. Immutable once built
/// (except through assign), so it may be shared by threads. See the file's description for the
/// edge order.
class Graph {
 public:
  Graph() = default;

  /// Builds a graph on `num_nodes` nodes from parallel arrays of edge sources and targets. Throws
  /// GraphError naming the first pair with a negative or out-of-range id, or on mismatched lengths.
  static Graph from_edges(Index num_nodes, std::span<const Index> sources, std::span<const Index> targets,
                          const GraphOptions& options = {});

  /// Same, from (source, target) pairs.
  static Graph from_pairs(Index num_nodes, std::span<const std::pair<Index, Index>> edges,
                          const GraphOptions& options = {});

  /// Builds a graph that takes over `sources` and `targets` without copying them, and without options:
  /// for large graphs assembled by a reader. Throws GraphError as from_edges does.
  static Graph from_edge_arrays(Index num_nodes, std::vector<NodeId> sources, std::vector<NodeId> targets);

  /// Builds a graph whose edge order is the CSR order of `in_edges`, copying them. Throws GraphError
  /// when the offsets do not run from 0 to E without decreasing or a source is out of range.
  static Graph from_in_edges(const InEdges& in_edges);

  /// Rebuilds this graph in place as from_edges(num_nodes, sources, targets) without options would
  /// build it, reusing its memory: no allocation once the buffers are large enough. Throws GraphError
  /// as from_edges does, and when a target is not below num_targets (see num_targets(); -1: N).
  void assign(Index num_nodes, std::span<const NodeId> sources, std::span<const NodeId> targets,
              Index num_targets = -1);

  /// N and E.
  /// @{
  Index num_nodes() const { return num_nodes_; }
  Index num_edges() const { return static_cast<Index>(in_sources_.size()); }
  /// @}

  /// The nodes [0, num_targets()) that edges may lead into: N, except in a block of neighbour
  /// sampling, whose other nodes are only sources. Attention layers give rows for these nodes only.
  Index num_targets() const { return num_targets_; }

  /// Edge e in the graph's edge order. source is O(1); target searches in_offsets, O(log N).
  /// @{
  NodeId source(Index e) const { return in_sources_[edge_positions_[e]]; }
  NodeId target(Index e) const;
  /// @}

  /// CSR by destination. in_offsets: [N + 1]; in_sources: [E] in CSR order.
  /// @{
  std::span<const Index> in_offsets() const { return in_offsets_; }
  std::span<const NodeId> in_sources() const { return in_sources_; }
  Index in_degree(Index i) const { return in_offsets_[i + 1] - in_offsets_[i]; }
  /// Both, as one view.
  InEdges in_edges() const { return {in_offsets_, in_sources_}; }
  /// @}

  /// edge_positions: [E] in the graph's edge order, the CSR-by-destination position of each edge.
  /// Per-edge data in the caller's order (edge features, reported attention weights) goes through it.
  std::span<const NodeId> edge_positions() const { return edge_positions_; }

  /// Transpose by source. out_offsets: [N + 1]; out_targets, out_positions: [E]. out_positions[s] is
  /// the CSR-by-destination position of the edge at by-source slot s.
  /// @{
  std::span<const Index> out_offsets() const { return out_offsets_; }
  std::span<const NodeId> out_targets() const { return out_targets_; }
  std::span<const NodeId> out_positions() const { return out_positions_; }
  Index out_degree(Index j) const { return out_offsets_[j + 1] - out_offsets_[j]; }
  /// @}

  /// The edges as (source, target) pairs in the graph's edge order.
  std::vector<std::pair<Index, Index>> edge_pairs() const;

 private:
  Graph(Index num_nodes, std::vector<NodeId> sources, std::vector<NodeId> targets);
  void build_in_edges(std::span<const NodeId> sources, std::span<const NodeId> targets);
  void build_out_edges();

  Index num_nodes_ = 0;
  Index num_targets_ = 0;
  std::vector<Index> in_offsets_{0};
  std::vector<NodeId> in_sources_;
  std::vector<NodeId> edge_positions_;
  std::vector<Index> out_offsets_{0};
  std::vector<NodeId> out_targets_;
  std::vector<NodeId> out_positions_;
};

}  // namespace edgewise
