#include "edgewise/graph/batch.hpp"

#include <limits>
#include <string>

#include "edgewise/core/error.hpp"

namespace edgewise {

GraphBatch GraphBatch::join(std::span<const Graph* const> graphs) {
  if (graphs.size() > static_cast<std::size_t>(std::numeric_limits<NodeId>::max()))
    throw ArgumentError("GraphBatch: " + std::to_string(graphs.size()) + " graphs exceed the limit of 2^31 - 1");
  GraphBatch batch;
  batch.node_offsets_.reserve(graphs.size() + 1);
  batch.edge_offsets_.reserve(graphs.size() + 1);
  for (std::size_t g = 0; g < graphs.size(); ++g) {
    if (graphs[g] == nullptr) throw ArgumentError("GraphBatch: graph " + std::to_string(g) + " is null");
    batch.node_offsets_.push_back(batch.node_offsets_.back() + graphs[g]->num_nodes());
    batch.edge_offsets_.push_back(batch.edge_offsets_.back() + graphs[g]->num_edges());
  }
  const Index num_nodes = batch.node_offsets_.back();
  const Index num_edges = batch.edge_offsets_.back();

  // Checked before allocating; Graph::from_edges checks the edge count.
  if (num_nodes > std::numeric_limits<NodeId>::max())
    throw GraphError("GraphBatch: " + std::to_string(num_nodes) + " nodes exceed the limit of 2^31 - 1");
  std::vector<Index> sources(static_cast<std::size_t>(num_edges));
  std::vector<Index> targets(static_cast<std::size_t>(num_edges));
  batch.node_graph_.resize(static_cast<std::size_t>(num_nodes));
  for (std::size_t g = 0; g < graphs.size(); ++g) {
    const Graph& graph = *graphs[g];
    const Index node_offset = batch.node_offsets_[g];
    const Index edge_offset = batch.edge_offsets_[g];
    for (Index e = 0; e < graph.num_edges(); ++e) {
      sources[edge_offset + e] = node_offset + graph.source(e);
      targets[edge_offset + e] = node_offset + graph.target(e);
    }
    for (Index i = node_offset; i < batch.node_offsets_[g + 1]; ++i) batch.node_graph_[i] = static_cast<NodeId>(g);
  }
  batch.graph_ = Graph::from_edges(num_nodes, sources, targets);
  return batch;
}

void GraphBatch::assign(std::span<const Index> node_offsets, std::span<const Index> edge_offsets,
                        std::span<const NodeId> sources, std::span<const NodeId> targets) {
  if (node_offsets.empty() || node_offsets.size() != edge_offsets.size() || node_offsets.front() != 0 ||
      edge_offsets.front() != 0 || edge_offsets.back() != static_cast<Index>(sources.size()))
    throw ArgumentError("GraphBatch: offsets do not describe the edges given");
  const Index num_nodes = node_offsets.back();
  if (num_nodes > std::numeric_limits<NodeId>::max())
    throw GraphError("GraphBatch: " + std::to_string(num_nodes) + " nodes exceed the limit of 2^31 - 1");
  node_offsets_.assign(node_offsets.begin(), node_offsets.end());
  edge_offsets_.assign(edge_offsets.begin(), edge_offsets.end());
  node_graph_.resize(static_cast<std::size_t>(num_nodes));
  for (std::size_t g = 0; g + 1 < node_offsets.size(); ++g) {
    if (node_offsets[g + 1] < node_offsets[g] || edge_offsets[g + 1] < edge_offsets[g])
      throw ArgumentError("GraphBatch: offsets must not decrease");
    for (Index e = edge_offsets[g]; e < edge_offsets[g + 1]; ++e) {
      const auto in_graph = [&](NodeId node) { return node >= node_offsets[g] && node < node_offsets[g + 1]; };
      if (!in_graph(sources[e]) || !in_graph(targets[e]))
        throw GraphError("GraphBatch: edge " + std::to_string(e) + " (" + std::to_string(sources[e]) + " -> " +
                         std::to_string(targets[e]) + ") leaves graph " + std::to_string(g));
    }
    for (Index i = node_offsets[g]; i < node_offsets[g + 1]; ++i) node_graph_[i] = static_cast<NodeId>(g);
  }
  graph_.assign(num_nodes, sources, targets);
}

}  // namespace edgewise
