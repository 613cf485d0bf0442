#include "edgewise/graph/graph.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_set>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

std::uint64_t pair_key(NodeId source, NodeId target) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(source)) << 32) |
         static_cast<std::uint32_t>(target);
}

// Node ids and edge positions are stored as NodeId, so both counts must fit in it.
void check_sizes(Index num_nodes, std::size_t num_edges) {
  constexpr auto limit = static_cast<std::size_t>(std::numeric_limits<NodeId>::max());
  if (num_nodes < 0) throw GraphError("graph: negative node count " + std::to_string(num_nodes));
  if (static_cast<std::size_t>(num_nodes) > limit)
    throw GraphError("graph: " + std::to_string(num_nodes) + " nodes exceed the limit of 2^31 - 1");
  if (num_edges > limit) throw GraphError("graph: " + std::to_string(num_edges) + " edges exceed the limit of 2^31 - 1");
}

void check_pair(Index num_nodes, std::size_t k, Index source, Index target) {
  if (source < 0 || source >= num_nodes || target < 0 || target >= num_nodes)
    throw GraphError("graph: edge " + std::to_string(k) + " (" + std::to_string(source) + " -> " +
                     std::to_string(target) + ") has a node id outside [0, " + std::to_string(num_nodes) + ")");
}

void drop_duplicate_edges(std::vector<NodeId>& sources, std::vector<NodeId>& targets) {
  std::unordered_set<std::uint64_t> seen;
  seen.reserve(sources.size());
  std::size_t kept = 0;
  for (std::size_t e = 0; e < sources.size(); ++e) {
    if (!seen.insert(pair_key(sources[e], targets[e])).second) continue;
    sources[kept] = sources[e];
    targets[kept] = targets[e];
    ++kept;
  }
  sources.resize(kept);
  targets.resize(kept);
}

void append_reverse_edges(std::vector<NodeId>& sources, std::vector<NodeId>& targets) {
  std::unordered_set<std::uint64_t> present;
  present.reserve(sources.size());
  for (std::size_t e = 0; e < sources.size(); ++e) present.insert(pair_key(sources[e], targets[e]));
  const std::size_t original = sources.size();
  for (std::size_t e = 0; e < original; ++e) {
    const NodeId s = sources[e], t = targets[e];
    if (!present.insert(pair_key(t, s)).second) continue;
    sources.push_back(t);
    targets.push_back(s);
  }
}

void append_self_loops(Index num_nodes, std::vector<NodeId>& sources, std::vector<NodeId>& targets) {
  std::vector<bool> has_loop(static_cast<std::size_t>(num_nodes), false);
  for (std::size_t e = 0; e < sources.size(); ++e)
    if (sources[e] == targets[e]) has_loop[sources[e]] = true;
  for (Index i = 0; i < num_nodes; ++i) {
    if (has_loop[i]) continue;
    sources.push_back(static_cast<NodeId>(i));
    targets.push_back(static_cast<NodeId>(i));
  }
}

// Counting sort of edge ids by key; returns offsets [num_keys + 1] and the ids in stable key order.
// offsets serves as the insertion cursor, so nothing is allocated once the outputs are large enough.
void bucket_by(std::span<const NodeId> keys, Index num_keys, std::vector<Index>& offsets, std::vector<NodeId>& order) {
  offsets.assign(static_cast<std::size_t>(num_keys) + 1, 0);
  for (NodeId key : keys) ++offsets[key + 1];
  for (Index i = 0; i < num_keys; ++i) offsets[i + 1] += offsets[i];
  order.resize(keys.size());
  for (std::size_t e = 0; e < keys.size(); ++e) order[offsets[keys[e]]++] = static_cast<NodeId>(e);
  // offsets[k] now holds the end of bucket k, which is where bucket k + 1 starts.
  for (Index i = num_keys; i > 0; --i) offsets[i] = offsets[i - 1];
  offsets[0] = 0;
}

}  // namespace

Graph::Graph(Index num_nodes, std::vector<NodeId> sources, std::vector<NodeId> targets)
    : num_nodes_(num_nodes), source_(std::move(sources)), target_(std::move(targets)) {
  build_indices();
}

void Graph::build_indices() {
  bucket_by(target_, num_nodes_, in_offsets_, in_edge_ids_);
  in_sources_.resize(in_edge_ids_.size());
  for (std::size_t p = 0; p < in_edge_ids_.size(); ++p) in_sources_[p] = source_[in_edge_ids_[p]];

  // By-source slots, each pointing at its by-destination position.
  bucket_by(in_sources_, num_nodes_, out_offsets_, out_positions_);
  out_targets_.resize(out_positions_.size());
  for (std::size_t s = 0; s < out_positions_.size(); ++s) out_targets_[s] = target_[in_edge_ids_[out_positions_[s]]];
}

std::vector<std::pair<Index, Index>> Graph::edge_pairs() const {
  std::vector<std::pair<Index, Index>> pairs(source_.size());
  for (std::size_t e = 0; e < source_.size(); ++e) pairs[e] = {source_[e], target_[e]};
  return pairs;
}

Graph Graph::from_edges(Index num_nodes, std::span<const Index> sources, std::span<const Index> targets,
                        const GraphOptions& options) {
  if (sources.size() != targets.size())
    throw GraphError("graph: " + std::to_string(sources.size()) + " sources but " + std::to_string(targets.size()) +
                     " targets");
  check_sizes(num_nodes, sources.size());
  std::vector<NodeId> s(sources.size()), t(targets.size());
  for (std::size_t k = 0; k < sources.size(); ++k) {
    check_pair(num_nodes, k, sources[k], targets[k]);
    s[k] = static_cast<NodeId>(sources[k]);
    t[k] = static_cast<NodeId>(targets[k]);
  }
  if (options.drop_duplicates) drop_duplicate_edges(s, t);
  if (options.symmetrize) append_reverse_edges(s, t);
  if (options.add_self_loops) append_self_loops(num_nodes, s, t);
  check_sizes(num_nodes, s.size());  // the options may have added edges
  return Graph(num_nodes, std::move(s), std::move(t));
}

Graph Graph::from_edge_arrays(Index num_nodes, std::vector<NodeId> sources, std::vector<NodeId> targets) {
  if (sources.size() != targets.size())
    throw GraphError("graph: " + std::to_string(sources.size()) + " sources but " + std::to_string(targets.size()) +
                     " targets");
  check_sizes(num_nodes, sources.size());
  for (std::size_t k = 0; k < sources.size(); ++k) check_pair(num_nodes, k, sources[k], targets[k]);
  return Graph(num_nodes, std::move(sources), std::move(targets));
}

void Graph::assign(Index num_nodes, std::span<const NodeId> sources, std::span<const NodeId> targets) {
  if (sources.size() != targets.size())
    throw GraphError("graph: " + std::to_string(sources.size()) + " sources but " + std::to_string(targets.size()) +
                     " targets");
  check_sizes(num_nodes, sources.size());
  for (std::size_t k = 0; k < sources.size(); ++k) check_pair(num_nodes, k, sources[k], targets[k]);
  num_nodes_ = num_nodes;
  source_.assign(sources.begin(), sources.end());
  target_.assign(targets.begin(), targets.end());
  build_indices();
}

Graph Graph::from_pairs(Index num_nodes, std::span<const std::pair<Index, Index>> edges, const GraphOptions& options) {
  std::vector<Index> sources(edges.size()), targets(edges.size());
  for (std::size_t k = 0; k < edges.size(); ++k) std::tie(sources[k], targets[k]) = edges[k];
  return from_edges(num_nodes, sources, targets, options);
}

}  // namespace edgewise
