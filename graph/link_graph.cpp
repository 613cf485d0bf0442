#include "edgewise/graph/link_graph.hpp"

#include <algorithm>

#include "edgewise/core/parallel.hpp"

namespace edgewise {

LinkGraph::LinkGraph(InEdges graph, const std::function<bool(NodeId source, NodeId target)>& keep)
    : offsets_(static_cast<std::size_t>(graph.num_nodes()) + 1, 0) {
  const Index n = graph.num_nodes();
  const auto kept = [&](Index position, NodeId target) {
    const NodeId source = graph.sources[static_cast<std::size_t>(position)];
    return source == target || keep(source, target);
  };
  // Count each node's kept in-edges, then copy them into place and sort them, both in parallel.
  parallel_for_blocks(n, 4096, [&](Index begin, Index end) {
    for (Index node = begin; node < end; ++node) {
      Index count = 0;
      for (Index e = graph.offsets[node]; e < graph.offsets[node + 1]; ++e)
        count += kept(e, static_cast<NodeId>(node)) ? 1 : 0;
      offsets_[static_cast<std::size_t>(node) + 1] = count;
    }
  });
  for (Index node = 0; node < n; ++node) offsets_[node + 1] += offsets_[node];
  sources_.resize(static_cast<std::size_t>(offsets_.back()));
  std::vector<Index> self_loops(static_cast<std::size_t>(n), 0);
  parallel_for_blocks(n, 4096, [&](Index begin, Index end) {
    for (Index node = begin; node < end; ++node) {
      Index out = offsets_[node];
      for (Index e = graph.offsets[node]; e < graph.offsets[node + 1]; ++e)
        if (kept(e, static_cast<NodeId>(node))) sources_[static_cast<std::size_t>(out++)] = graph.sources[e];
      const auto first = sources_.begin() + offsets_[node], last = sources_.begin() + out;
      std::sort(first, last);
      self_loops[node] = std::count(first, last, static_cast<NodeId>(node));
    }
  });
  Index loops = 0;
  for (const Index count : self_loops) loops += count;
  links_ = (static_cast<Index>(sources_.size()) - loops) / 2;
}

bool LinkGraph::linked(NodeId a, NodeId b) const {
  const auto first = sources_.begin() + offsets_[b], last = sources_.begin() + offsets_[b + 1];
  return std::binary_search(first, last, a);
}

Index LinkGraph::draw_link_position(SplitMix64& rng) const {
  while (true) {
    const auto position = static_cast<Index>(rng.below(sources_.size()));
    if (sources_[position] != target_of(position)) return position;
  }
}

NodeId LinkGraph::target_of(Index position) const {
  return static_cast<NodeId>(std::upper_bound(offsets_.begin(), offsets_.end(), position) - offsets_.begin() - 1);
}

std::pair<Index, Index> LinkGraph::draw_link(SplitMix64& rng) const {
  const Index position = draw_link_position(rng);
  const Index source = sources_[position], target = target_of(position);
  return {std::min(source, target), std::max(source, target)};
}

NodeId LinkGraph::draw_linked_node(SplitMix64& rng) const { return target_of(draw_link_position(rng)); }

}  // namespace edgewise
