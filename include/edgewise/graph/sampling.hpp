/// \file
/// Neighbour sampling for mini-batch training on graphs too large to run whole, as in GraphSAGE
/// (Hamilton et al., 2017) and PyTorch Geometric's NeighborLoader.
///
/// From a batch of seed nodes, hop h (0-based) samples up to fanouts[h] in-neighbours of every node
/// reached first at hop h, uniformly without replacement. With self_loops (graphs built with
/// add_self_loops, the default), a node's own in-edge is never drawn; every node of a block gets its
/// self-loop on top of the drawn neighbours instead, so that attention always sees the node itself. fanouts[0] applies to the seeds: `--fanout 15,10`
/// takes 15 neighbours of each seed and 10 of each of those, as NeighborLoader's num_neighbors does.
/// A fan-out of -1 takes every in-neighbour.
///
/// The result is L nested blocks for an L-layer network. Nodes get local ids in the order they are
/// reached, so the nodes of hop h are a prefix of those of hop h + 1: V_0 = the seeds, V_{h+1} = V_h
/// and the new nodes hop h reached. Network layer k runs on blocks[k], a graph over V_{L-k} whose
/// edges lead into V_{L-k-1} only, its num_targets(): the layer's output rows are those of V_{L-k-1},
/// the next layer's input. A node's sampled neighbours are drawn once, at the hop that reached it, and every later
/// block keeps them (as NeighborLoader's subgraph does).
///
/// Draws come from SplitMix64 streams keyed by (batch seed, node id), so a batch is the same whatever
/// the order or thread it is sampled in. Sampling one batch allocates nothing once the buffers have
/// grown to the largest batch seen: the global-to-local table is N entries, allocated once.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

/// Every in-neighbour, as a fan-out.
inline constexpr Index kAllNeighbors = -1;

/// A sampled batch: its nodes by global id and one block per network layer (see the file comment).
struct SampledBlocks {
  std::vector<NodeId> nodes;    ///< global ids of V_L; V_h is the prefix of hop_sizes[h] of them
  std::vector<Index> hop_sizes;  ///< [L + 1]: the sizes of V_0 (the seeds) .. V_L
  std::vector<Graph> blocks;     ///< [L]: blocks[k] for network layer k, over V_{L-k}

  /// Sampled edges over all blocks: the edges of blocks[0], which holds every other block's.
  Index num_edges() const { return blocks.empty() ? 0 : blocks.front().num_edges(); }
};

/// Samples blocks from a graph it views (the graph must outlive it). One sampler serves one thread at
/// a time; samplers over the same graph may run side by side.
class NeighborSampler {
 public:
  /// fanouts: one per layer, seeds first, each >= 1 or kAllNeighbors. self_loops: see the file
  /// comment. Throws ArgumentError on an empty list or a fan-out of 0 or below -1.
  NeighborSampler(InEdges graph, std::vector<Index> fanouts, bool self_loops = true);

  /// Samples the blocks of `seeds` into `out`, reusing its memory. Throws ArgumentError for a seed
  /// out of range or given twice.
  void sample(std::span<const NodeId> seeds, std::uint64_t seed, SampledBlocks& out);

  /// The fan-outs, seeds first.
  const std::vector<Index>& fanouts() const { return fanouts_; }

 private:
  NodeId local_id(NodeId node, SampledBlocks& out);
  void prefetch_in_edges(std::span<const NodeId> nodes, Index target, Index frontier_end) const;
  void sample_in_neighbors(NodeId node, Index fanout, std::uint64_t seed);
  void draw_positions(NodeId node, Index first, Index degree, Index fanout, std::uint64_t seed);
  void reset_local_ids(const SampledBlocks& out);

  InEdges graph_;
  std::vector<Index> fanouts_;
  bool self_loops_;
  std::vector<NodeId> local_of_;  // [N]: a node's local id in the batch being sampled, or -1
  std::vector<NodeId> chosen_;    // one node's sampled neighbours (global ids)
  std::vector<Index> positions_;  // their in-edge positions, while drawn by rejection
  std::vector<NodeId> edge_sources_, edge_targets_;  // every block edge so far, local ids
};

}  // namespace edgewise
