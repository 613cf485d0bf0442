// Random edges, and random graphs built as node classification builds its graphs (for tests of
// sampling and of the networks that run on sampled blocks).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "edgewise/core/random.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise::testing {

// `num_edges` random (source, target) pairs on `num_nodes` nodes, duplicates, self-loops and
// degree-0 nodes included, drawn from `rng` (source, then target) so that several calls continue
// one stream.
inline std::vector<std::pair<Index, Index>> random_pairs(Index num_nodes, Index num_edges, SplitMix64& rng) {
  std::vector<std::pair<Index, Index>> pairs(static_cast<std::size_t>(num_edges));
  for (auto& [s, t] : pairs) {
    s = static_cast<Index>(rng.below(static_cast<std::uint64_t>(num_nodes)));
    t = static_cast<Index>(rng.below(static_cast<std::uint64_t>(num_nodes)));
  }
  return pairs;
}

// The same from a stream of its own.
inline std::vector<std::pair<Index, Index>> random_pairs(Index num_nodes, Index num_edges, std::uint64_t seed) {
  SplitMix64 rng(seed);
  return random_pairs(num_nodes, num_edges, rng);
}

// `edges` random pairs on `nodes` nodes, with every reverse edge, no duplicates and a self-loop per node.
inline Graph random_node_graph(Index nodes, Index edges, std::uint64_t seed) {
  return Graph::from_pairs(nodes, random_pairs(nodes, edges, seed),
                           {.add_self_loops = true, .symmetrize = true, .drop_duplicates = true});
}

}  // namespace edgewise::testing
