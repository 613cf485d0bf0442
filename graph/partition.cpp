#include "edgewise/graph/partition.hpp"

#include <metis.h>

#include <algorithm>
#include <limits>
#include <string>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

// The graph with its edge directions ignored, as METIS reads it: CSR of each node's neighbours,
// without self-loops or repeats.
struct Adjacency {
  std::vector<idx_t> offsets;
  std::vector<idx_t> neighbours;
};

Adjacency undirected_adjacency(const InEdges& graph) {
  const Index n = graph.num_nodes();
  std::vector<Index> counts(static_cast<std::size_t>(n) + 1, 0);
  for (Index i = 0; i < n; ++i)
    for (Index e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
      const NodeId j = graph.sources[e];
      if (j == i) continue;
      ++counts[static_cast<std::size_t>(i) + 1];
      ++counts[static_cast<std::size_t>(j) + 1];
    }
  for (Index i = 0; i < n; ++i) counts[i + 1] += counts[i];
  if (counts.back() > std::numeric_limits<idx_t>::max())
    throw ArgumentError("partition_graph: " + std::to_string(counts.back()) +
                        " directed edges once symmetrized, over METIS's 32-bit limit");
  std::vector<Index> fill(counts.begin(), counts.end() - 1);
  std::vector<idx_t> all(static_cast<std::size_t>(counts.back()));
  for (Index i = 0; i < n; ++i)
    for (Index e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
      const NodeId j = graph.sources[e];
      if (j == i) continue;
      all[static_cast<std::size_t>(fill[i]++)] = static_cast<idx_t>(j);
      all[static_cast<std::size_t>(fill[j]++)] = static_cast<idx_t>(i);
    }
  Adjacency adjacency;
  adjacency.offsets.assign(1, 0);
  adjacency.neighbours.reserve(all.size());
  for (Index i = 0; i < n; ++i) {
    const auto begin = all.begin() + counts[i], end = all.begin() + counts[i + 1];
    std::sort(begin, end);
    adjacency.neighbours.insert(adjacency.neighbours.end(), begin, std::unique(begin, end));
    adjacency.offsets.push_back(static_cast<idx_t>(adjacency.neighbours.size()));
  }
  return adjacency;
}

// METIS may leave a part empty on a tiny or edgeless graph; each empty part takes the highest node of
// the largest part, so that every process owns a node.
void fill_empty_parts(std::vector<std::int32_t>& owner, int parts) {
  std::vector<Index> sizes(static_cast<std::size_t>(parts), 0);
  for (const std::int32_t p : owner) ++sizes[static_cast<std::size_t>(p)];
  for (int empty = 0; empty < parts; ++empty) {
    if (sizes[static_cast<std::size_t>(empty)] > 0) continue;
    const auto largest = static_cast<std::int32_t>(std::max_element(sizes.begin(), sizes.end()) - sizes.begin());
    auto node = std::find(owner.rbegin(), owner.rend(), largest);
    *node = empty;
    --sizes[static_cast<std::size_t>(largest)];
    ++sizes[static_cast<std::size_t>(empty)];
  }
}

// Throws ArgumentError unless `owner` gives each of n nodes a part in [0, parts).
void check_owners(const char* caller, Index n, std::span<const std::int32_t> owner, int parts) {
  if (static_cast<Index>(owner.size()) != n)
    throw ArgumentError(std::string(caller) + ": " + std::to_string(owner.size()) + " owners for " +
                        std::to_string(n) + " nodes");
  if (parts < 1) throw ArgumentError(std::string(caller) + ": no parts");
  for (const std::int32_t p : owner)
    if (p < 0 || p >= parts)
      throw ArgumentError(std::string(caller) + ": owner " + std::to_string(p) + " is not a part of " +
                          std::to_string(parts));
}

}  // namespace

std::vector<std::int32_t> partition_graph(const InEdges& graph, int parts, std::uint64_t seed) {
  const Index n = graph.num_nodes();
  if (parts < 1 || parts > n)
    throw ArgumentError("partition_graph: cannot cut " + std::to_string(n) + " nodes into " + std::to_string(parts) +
                        " parts");
  std::vector<std::int32_t> owner(static_cast<std::size_t>(n), 0);
  if (parts == 1) return owner;
  Adjacency adjacency = undirected_adjacency(graph);
  // Two weights a node: 1, and its in-degree (the attention work it costs), unless there are no edges.
  idx_t constraints = graph.num_edges() > 0 ? 2 : 1;
  std::vector<idx_t> weights;
  weights.reserve(static_cast<std::size_t>(n * constraints));
  for (Index i = 0; i < n; ++i) {
    weights.push_back(1);
    if (constraints == 2) weights.push_back(static_cast<idx_t>(graph.offsets[i + 1] - graph.offsets[i]));
  }
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(seed % static_cast<std::uint64_t>(std::numeric_limits<idx_t>::max()));
  idx_t nodes = static_cast<idx_t>(n), part_count = parts, cut = 0;
  std::vector<idx_t> part(static_cast<std::size_t>(n));
  const int status = METIS_PartGraphKway(&nodes, &constraints, adjacency.offsets.data(), adjacency.neighbours.data(),
                                         weights.data(), nullptr, nullptr, &part_count, nullptr, nullptr, options, &cut,
                                         part.data());
  if (status != METIS_OK)
    throw Error("partition_graph: METIS failed (" + std::string(status == METIS_ERROR_MEMORY ? "out of memory" : "error") +
                ") cutting " + std::to_string(n) + " nodes into " + std::to_string(parts) + " parts");
  std::copy(part.begin(), part.end(), owner.begin());
  fill_empty_parts(owner, parts);
  return owner;
}

GraphPart graph_part(const InEdges& graph, std::span<const std::int32_t> owner, int part, int parts) {
  const Index n = graph.num_nodes();
  check_owners("graph_part", n, owner, parts);
  if (part < 0 || part >= parts) throw ArgumentError("graph_part: no part " + std::to_string(part) + " of " + std::to_string(parts));

  GraphPart result;
  result.part = part;
  result.parts = parts;
  result.halo_counts.assign(static_cast<std::size_t>(parts), 0);
  result.sent_rows.resize(static_cast<std::size_t>(parts));
  std::vector<NodeId> row_of(static_cast<std::size_t>(n), -1);
  for (Index i = 0; i < n; ++i)
    if (owner[i] == part) {
      row_of[i] = static_cast<NodeId>(result.nodes.size());
      result.nodes.push_back(static_cast<NodeId>(i));
    }
  result.owned = result.rows();

  // The halo, by owning part and then id.
  std::vector<std::vector<NodeId>> halo(static_cast<std::size_t>(parts));
  for (Index r = 0; r < result.owned; ++r) {
    const NodeId i = result.nodes[r];
    for (Index e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
      const NodeId j = graph.sources[e];
      if (owner[j] == part || row_of[j] == -2) continue;
      row_of[j] = -2;  // seen
      halo[static_cast<std::size_t>(owner[j])].push_back(j);
    }
  }
  for (int p = 0; p < parts; ++p) {
    auto& nodes = halo[static_cast<std::size_t>(p)];
    std::sort(nodes.begin(), nodes.end());
    result.halo_counts[static_cast<std::size_t>(p)] = static_cast<Index>(nodes.size());
    for (const NodeId j : nodes) {
      row_of[j] = static_cast<NodeId>(result.nodes.size());
      result.nodes.push_back(j);
    }
  }

  // The own nodes' in-edges over rows, in the whole graph's order; halo rows have none.
  std::vector<Index> offsets(static_cast<std::size_t>(result.rows()) + 1, 0);
  std::vector<NodeId> sources;
  for (Index r = 0; r < result.owned; ++r) {
    const NodeId i = result.nodes[r];
    for (Index e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e)
      sources.push_back(row_of[graph.sources[e]]);
    offsets[r + 1] = static_cast<Index>(sources.size());
  }
  std::fill(offsets.begin() + result.owned + 1, offsets.end(), static_cast<Index>(sources.size()));
  result.graph = Graph::from_in_edges(InEdges{offsets, sources});

  // The own rows each other part holds in its halo: those with an edge into that part.
  for (Index i = 0; i < n; ++i) {
    const std::int32_t p = owner[i];
    if (p == part) continue;
    auto& rows = result.sent_rows[static_cast<std::size_t>(p)];
    for (Index e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e)
      if (owner[graph.sources[e]] == part) rows.push_back(row_of[graph.sources[e]]);
  }
  for (auto& rows : result.sent_rows) {
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  }
  return result;
}

std::vector<PartSizes> part_sizes(const InEdges& in_edges, std::span<const std::int32_t> owner, int parts) {
  const Index n = in_edges.num_nodes();
  check_owners("part_sizes", n, owner, parts);
  std::vector<PartSizes> sizes(static_cast<std::size_t>(parts));
  // The nodes by part, so that one stamp a node marks it as counted in the halo of the part at hand.
  std::vector<Index> starts(static_cast<std::size_t>(parts) + 1, 0);
  for (const std::int32_t p : owner) ++starts[static_cast<std::size_t>(p) + 1];
  for (int p = 0; p < parts; ++p) starts[p + 1] += starts[p];
  std::vector<NodeId> by_part(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) by_part[static_cast<std::size_t>(starts[owner[i]]++)] = static_cast<NodeId>(i);
  std::vector<std::int32_t> counted_for(static_cast<std::size_t>(n), -1);
  for (const NodeId i : by_part) {
    const std::int32_t p = owner[i];
    PartSizes& part = sizes[static_cast<std::size_t>(p)];
    ++part.nodes;
    part.in_edges += in_edges.offsets[i + 1] - in_edges.offsets[i];
    for (Index e = in_edges.offsets[i]; e < in_edges.offsets[i + 1]; ++e) {
      const NodeId j = in_edges.sources[e];
      if (owner[j] == p || counted_for[j] == p) continue;
      counted_for[j] = p;
      ++part.halo;
    }
  }
  return sizes;
}

Index cut_edges(const InEdges& in_edges, std::span<const std::int32_t> owner) {
  if (static_cast<Index>(owner.size()) != in_edges.num_nodes())
    throw ArgumentError("cut_edges: " + std::to_string(owner.size()) + " owners for " +
                        std::to_string(in_edges.num_nodes()) + " nodes");
  Index cut = 0;
  for (Index i = 0; i < in_edges.num_nodes(); ++i)
    for (Index e = in_edges.offsets[i]; e < in_edges.offsets[i + 1]; ++e) cut += owner[in_edges.sources[e]] != owner[i];
  return cut;
}

}  // namespace edgewise
