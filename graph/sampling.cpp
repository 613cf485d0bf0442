#include "edgewise/graph/sampling.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "edgewise/core/error.hpp"
#include "edgewise/core/random.hpp"

namespace edgewise {
namespace {

// Rejection draws per wanted neighbour before a node is sampled by scanning its in-edges instead: only
// a node whose in-edges are mostly copies of its own self-loop gets there.
constexpr Index kRejectionTries = 64;

std::vector<Index> checked_fanouts(std::vector<Index> fanouts) {
  if (fanouts.empty()) throw ArgumentError("neighbour sampling: needs one fan-out per layer, got none");
  for (const Index fanout : fanouts)
    if (fanout == 0 || fanout < kAllNeighbors)
      throw ArgumentError("neighbour sampling: a fan-out must be at least 1, or -1 for every neighbour; got " +
                          std::to_string(fanout));
  return fanouts;
}

// The stream of one node's draws in one batch: a function of both, not of the order nodes are drawn in.
SplitMix64 node_stream(std::uint64_t seed, NodeId node) {
  return SplitMix64(SplitMix64(seed).next() ^ (static_cast<std::uint64_t>(node) * 0xD1B54A32D192ED03ULL));
}

}  // namespace

NeighborSampler::NeighborSampler(InEdges graph, std::vector<Index> fanouts, bool self_loops)
    : graph_(graph),
      fanouts_(checked_fanouts(std::move(fanouts))),
      self_loops_(self_loops),
      local_of_(static_cast<std::size_t>(graph.num_nodes()), NodeId{-1}) {}

void NeighborSampler::sample(std::span<const NodeId> seeds, std::uint64_t seed, SampledBlocks& out) {
  const auto layers = static_cast<Index>(fanouts_.size());
  out.nodes.clear();
  out.hop_sizes.clear();
  out.blocks.resize(static_cast<std::size_t>(layers));
  edge_sources_.clear();
  edge_targets_.clear();
  for (const NodeId node : seeds) {
    if (node < 0 || node >= graph_.num_nodes()) {
      reset_local_ids(out);
      throw ArgumentError("neighbour sampling: seed " + std::to_string(node) + " is not a node of the graph (" +
                          std::to_string(graph_.num_nodes()) + " nodes)");
    }
    if (local_of_[node] >= 0) {
      reset_local_ids(out);
      throw ArgumentError("neighbour sampling: seed " + std::to_string(node) + " is given twice");
    }
    local_id(node, out);
  }
  out.hop_sizes.push_back(static_cast<Index>(out.nodes.size()));
  Index frontier_begin = 0;
  for (Index hop = 0; hop < layers; ++hop) {
    const auto frontier_end = static_cast<Index>(out.nodes.size());
    for (Index target = frontier_begin; target < frontier_end; ++target) {
      prefetch_in_edges(out.nodes, target, frontier_end);
      sample_in_neighbors(out.nodes[target], fanouts_[hop], seed);
      if (self_loops_) {
        edge_sources_.push_back(static_cast<NodeId>(target));
        edge_targets_.push_back(static_cast<NodeId>(target));
      }
      for (const NodeId source : chosen_) {
        edge_sources_.push_back(local_id(source, out));
        edge_targets_.push_back(static_cast<NodeId>(target));
      }
    }
    frontier_begin = frontier_end;
    out.hop_sizes.push_back(static_cast<Index>(out.nodes.size()));
    out.blocks[layers - 1 - hop].assign(static_cast<Index>(out.nodes.size()), edge_sources_, edge_targets_, frontier_end);
  }
  reset_local_ids(out);
}

// Asks the caches for the in-edges of frontier nodes a few places ahead: sampling reads a node's
// offsets and then its sources, two dependent loads from arrays far larger than a core's cache, and
// waiting for them took most of its time.
void NeighborSampler::prefetch_in_edges(std::span<const NodeId> nodes, Index target, Index frontier_end) const {
  constexpr Index kOffsetsAhead = 16, kSourcesAhead = 8;
  if (target + kOffsetsAhead < frontier_end) __builtin_prefetch(graph_.offsets.data() + nodes[target + kOffsetsAhead]);
  if (target + kSourcesAhead < frontier_end) __builtin_prefetch(graph_.sources.data() + graph_.offsets[nodes[target + kSourcesAhead]]);
}

NodeId NeighborSampler::local_id(NodeId node, SampledBlocks& out) {
  NodeId& local = local_of_[node];
  if (local < 0) {
    local = static_cast<NodeId>(out.nodes.size());
    out.nodes.push_back(node);
  }
  return local;
}

// chosen_ = up to `fanout` in-neighbours of `node`, uniformly without replacement, its own in-edges
// left out when self-loops are added separately.
void NeighborSampler::sample_in_neighbors(NodeId node, Index fanout, std::uint64_t seed) {
  chosen_.clear();
  const Index first = graph_.offsets[node];
  const Index degree = graph_.offsets[node + 1] - first;
  if (fanout != kAllNeighbors && degree > 2 * fanout) {
    draw_positions(node, first, degree, fanout, seed);
    if (static_cast<Index>(chosen_.size()) == fanout) return;
    chosen_.clear();
  }
  for (Index p = first; p < first + degree; ++p)
    if (!self_loops_ || graph_.sources[p] != node) chosen_.push_back(graph_.sources[p]);
  if (fanout == kAllNeighbors || static_cast<Index>(chosen_.size()) <= fanout) return;
  // A partial Fisher-Yates shuffle: the first `fanout` entries become a uniform sample.
  SplitMix64 rng = node_stream(seed, node);
  for (Index i = 0; i < fanout; ++i) {
    const auto j = i + static_cast<Index>(rng.below(chosen_.size() - static_cast<std::size_t>(i)));
    std::swap(chosen_[i], chosen_[j]);
  }
  chosen_.resize(static_cast<std::size_t>(fanout));
}

// Rejection sampling of distinct in-edge positions: cheap when the degree is well above the fan-out,
// as it is for the hubs that dominate sampling time. Stops short (fewer than fanout chosen) after
// kRejectionTries draws per wanted neighbour.
void NeighborSampler::draw_positions(NodeId node, Index first, Index degree, Index fanout, std::uint64_t seed) {
  SplitMix64 rng = node_stream(seed, node);
  positions_.clear();
  for (Index tries = 0; tries < kRejectionTries * fanout && static_cast<Index>(positions_.size()) < fanout; ++tries) {
    const Index position = first + static_cast<Index>(rng.below(static_cast<std::uint64_t>(degree)));
    if (self_loops_ && graph_.sources[position] == node) continue;
    if (std::find(positions_.begin(), positions_.end(), position) != positions_.end()) continue;
    positions_.push_back(position);
  }
  for (const Index position : positions_) chosen_.push_back(graph_.sources[position]);
}

void NeighborSampler::reset_local_ids(const SampledBlocks& out) {
  for (const NodeId node : out.nodes) local_of_[node] = -1;
}

}  // namespace edgewise
