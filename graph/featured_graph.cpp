#include "edgewise/graph/featured_graph.hpp"

#include <string>
#include <vector>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

// Stacks the rows selected by `rows_of` into `out`, whose storage is kept when large enough.
template <typename RowsOf>
void stack_rows(Matrix<float>& out, std::span<const FeaturedGraph* const> graphs, RowsOf rows_of) {
  Index total = 0, width = graphs.empty() ? 0 : rows_of(*graphs.front()).cols();
  for (const FeaturedGraph* g : graphs) {
    if (rows_of(*g).cols() != width)
      throw ArgumentError("FeaturedBatch: feature widths differ (" + std::to_string(rows_of(*g).cols()) + " vs " +
                          std::to_string(width) + ")");
    total += rows_of(*g).rows();
  }
  out.resize(total, width);
  Index row = 0;
  for (const FeaturedGraph* g : graphs) {
    out.middleRows(row, rows_of(*g).rows()) = rows_of(*g);
    row += rows_of(*g).rows();
  }
}

}  // namespace

void FeaturedBatch::assemble(std::span<const FeaturedGraph* const> graphs) {
  std::vector<const Graph*> structure;
  structure.reserve(graphs.size());
  for (const FeaturedGraph* g : graphs) structure.push_back(&g->graph);
  batch = GraphBatch::join(structure);
  stack_rows(node_features, graphs, [](const FeaturedGraph& g) -> const Matrix<float>& { return g.node_features; });
  stack_rows(edge_features, graphs, [](const FeaturedGraph& g) -> const Matrix<float>& { return g.edge_features; });
  stack_rows(graph_features, graphs, [](const FeaturedGraph& g) -> const Matrix<float>& { return g.graph_features; });
}

}  // namespace edgewise
