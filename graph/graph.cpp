#include "edgewise/graph/graph.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
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

// Throws GraphError unless the arrays hold one source a target, within Graph's limits and `num_nodes`.
template <typename Id>
void check_edge_arrays(Index num_nodes, std::span<const Id> sources, std::span<const Id> targets) {
  if (sources.size() != targets.size())
    throw GraphError("graph: " + std::to_string(sources.size()) + " sources but " + std::to_string(targets.size()) +
                     " targets");
  check_sizes(num_nodes, sources.size());
  for (std::size_t k = 0; k < sources.size(); ++k) check_pair(num_nodes, k, sources[k], targets[k]);
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

// Counting sort by key: offsets [num_keys + 1] of each key's bucket, and the slot of each item in
// stable key order. offsets serves as the insertion cursor, so nothing is allocated once the outputs
// are large enough.
void bucket_slots(std::span<const NodeId> keys, Index num_keys, std::vector<Index>& offsets,
                  std::vector<NodeId>& slots) {
  offsets.assign(static_cast<std::size_t>(num_keys) + 1, 0);
  for (NodeId key : keys) ++offsets[key + 1];
  for (Index i = 0; i < num_keys; ++i) offsets[i + 1] += offsets[i];
  slots.resize(keys.size());
  for (std::size_t e = 0; e < keys.size(); ++e) slots[e] = static_cast<NodeId>(offsets[keys[e]]++);
  // offsets[k] now holds the end of bucket k, which is where bucket k + 1 starts.
  for (Index i = num_keys; i > 0; --i) offsets[i] = offsets[i - 1];
  offsets[0] = 0;
}

}  // namespace

// The caller's arrays are freed as soon as the CSR by destination holds their contents, so building
// never takes more memory than the finished graph.
Graph::Graph(Index num_nodes, std::vector<NodeId> sources, std::vector<NodeId> targets)
    : num_nodes_(num_nodes), num_targets_(num_nodes) {
  build_in_edges(sources, targets);
  sources.clear();
  sources.shrink_to_fit();
  targets.clear();
  targets.shrink_to_fit();
  build_out_edges();
}

void Graph::build_in_edges(std::span<const NodeId> sources, std::span<const NodeId> targets) {
  bucket_slots(targets, num_nodes_, in_offsets_, edge_positions_);
  in_sources_.resize(sources.size());
  for (std::size_t e = 0; e < sources.size(); ++e) in_sources_[edge_positions_[e]] = sources[e];
}

// By-source slots in CSR-by-destination order within each source, each pointing at its position.
// bucket_slots would give each position its slot, but turning that into the slot -> position and
// slot -> target arrays needs a fourth per-edge array; walking the rows fills both directly.
void Graph::build_out_edges() {
  out_offsets_.assign(static_cast<std::size_t>(num_nodes_) + 1, 0);
  for (const NodeId source : in_sources_) ++out_offsets_[source + 1];
  for (Index j = 0; j < num_nodes_; ++j) out_offsets_[j + 1] += out_offsets_[j];
  out_targets_.resize(in_sources_.size());
  out_positions_.resize(in_sources_.size());
  for (Index i = 0; i < num_nodes_; ++i) {
    for (Index p = in_offsets_[i]; p < in_offsets_[i + 1]; ++p) {
      const Index slot = out_offsets_[in_sources_[p]]++;
      out_targets_[slot] = static_cast<NodeId>(i);
      out_positions_[slot] = static_cast<NodeId>(p);
    }
  }
  // out_offsets_[j] now holds the end of j's slots, which is where j + 1's start.
  for (Index j = num_nodes_; j > 0; --j) out_offsets_[j] = out_offsets_[j - 1];
  out_offsets_[0] = 0;
}

NodeId Graph::target(Index e) const {
  const Index position = edge_positions_[e];
  // The last node whose in-edges start at or before the position.
  const auto row = std::upper_bound(in_offsets_.begin(), in_offsets_.end(), position) - in_offsets_.begin() - 1;
  return static_cast<NodeId>(row);
}

std::vector<std::pair<Index, Index>> Graph::edge_pairs() const {
  std::vector<NodeId> target_at(in_sources_.size());  // the destination of each CSR position
  for (Index i = 0; i < num_nodes_; ++i)
    std::fill(target_at.begin() + in_offsets_[i], target_at.begin() + in_offsets_[i + 1], static_cast<NodeId>(i));
  std::vector<std::pair<Index, Index>> pairs(edge_positions_.size());
  for (std::size_t e = 0; e < pairs.size(); ++e) {
    const NodeId position = edge_positions_[e];
    pairs[e] = {in_sources_[position], target_at[position]};
  }
  return pairs;
}

Graph Graph::from_edges(Index num_nodes, std::span<const Index> sources, std::span<const Index> targets,
                        const GraphOptions& options) {
  check_edge_arrays(num_nodes, sources, targets);
  std::vector<NodeId> s(sources.size()), t(targets.size());
  for (std::size_t k = 0; k < sources.size(); ++k) {
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
  check_edge_arrays<NodeId>(num_nodes, sources, targets);
  return Graph(num_nodes, std::move(sources), std::move(targets));
}

Graph Graph::from_in_edges(const InEdges& in_edges) {
  const Index num_nodes = in_edges.num_nodes();
  check_sizes(num_nodes, in_edges.sources.size());
  if (in_edges.offsets.empty() || in_edges.offsets.front() != 0 || in_edges.offsets.back() != in_edges.num_edges())
    throw GraphError("graph: in-edge offsets must run from 0 to the number of edges, " +
                     std::to_string(in_edges.num_edges()));
  Graph graph;
  graph.num_nodes_ = num_nodes;
  graph.num_targets_ = num_nodes;
  graph.in_offsets_.assign(in_edges.offsets.begin(), in_edges.offsets.end());
  graph.in_sources_.assign(in_edges.sources.begin(), in_edges.sources.end());
  for (Index i = 0; i < num_nodes; ++i)
    if (graph.in_offsets_[i + 1] < graph.in_offsets_[i])
      throw GraphError("graph: in-edge offsets decrease at node " + std::to_string(i));
  for (Index i = 0; i < num_nodes; ++i)
    for (Index p = graph.in_offsets_[i]; p < graph.in_offsets_[i + 1]; ++p)
      check_pair(num_nodes, static_cast<std::size_t>(p), graph.in_sources_[p], i);
  graph.edge_positions_.resize(graph.in_sources_.size());
  std::iota(graph.edge_positions_.begin(), graph.edge_positions_.end(), NodeId{0});
  graph.build_out_edges();
  return graph;
}

void Graph::assign(Index num_nodes, std::span<const NodeId> sources, std::span<const NodeId> targets,
                   Index num_targets) {
  check_edge_arrays(num_nodes, sources, targets);
  if (num_targets < 0) num_targets = num_nodes;
  if (num_targets > num_nodes)
    throw GraphError("graph: " + std::to_string(num_targets) + " targets of " + std::to_string(num_nodes) + " nodes");
  for (std::size_t k = 0; k < targets.size(); ++k)
    if (targets[k] >= num_targets)
      throw GraphError("graph: edge " + std::to_string(k) + " leads into node " + std::to_string(targets[k]) +
                       ", not one of the first " + std::to_string(num_targets) + " nodes");
  num_nodes_ = num_nodes;
  num_targets_ = num_targets;
  build_in_edges(sources, targets);
  build_out_edges();
}

Graph Graph::from_pairs(Index num_nodes, std::span<const std::pair<Index, Index>> edges, const GraphOptions& options) {
  std::vector<Index> sources(edges.size()), targets(edges.size());
  for (std::size_t k = 0; k < edges.size(); ++k) std::tie(sources[k], targets[k]) = edges[k];
  return from_edges(num_nodes, sources, targets, options);
}

}  // namespace edgewise
