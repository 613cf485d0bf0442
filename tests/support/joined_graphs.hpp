// GraphBatch::join over a vector of graphs, for tests that build their graphs by value.
#pragma once

#include <span>
#include <vector>

#include "edgewise/graph/batch.hpp"

namespace edgewise::testing {

inline GraphBatch join_graphs(std::span<const Graph> graphs) {
  std::vector<const Graph*> pointers;
  for (const Graph& graph : graphs) pointers.push_back(&graph);
  return GraphBatch::join(pointers);
}

}  // namespace edgewise::testing
