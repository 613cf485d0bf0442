// Small graphs with every corner case the attention kernels must handle.
#pragma once

#include "edgewise/graph/graph.hpp"

namespace edgewise::testing {

// 12 nodes: 10 and 11 isolated, 3 and 7 with a single in-edge, self-loops, a duplicated edge 5 -> 2.
inline Graph irregular_graph() {
  const std::vector<std::pair<Index, Index>> pairs = {
      {0, 1}, {2, 1}, {1, 1}, {4, 1}, {0, 2}, {5, 2}, {5, 2}, {6, 3}, {3, 0}, {8, 0}, {9, 0}, {0, 0},
      {2, 4}, {4, 4}, {1, 5}, {2, 5}, {3, 5}, {9, 6}, {6, 6}, {2, 7}, {7, 8}, {3, 8}, {1, 9}, {8, 9}};
  return Graph::from_pairs(12, pairs);
}

}  // namespace edgewise::testing
