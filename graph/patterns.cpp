#include "edgewise/graph/patterns.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

// Graph::from_edges refuses more edges than this (its options may triple the count, and edge
// positions are NodeId). Checking first avoids allocating edge lists that could not become a graph.
constexpr Index max_generated_edges = std::numeric_limits<NodeId>::max() / 3;

void check_size(const char* generator, const char* name, Index value) {
  if (value < 0) throw ArgumentError(std::string(generator) + ": negative " + name + " " + std::to_string(value));
  if (value > std::numeric_limits<NodeId>::max())
    throw ArgumentError(std::string(generator) + ": " + name + " " + std::to_string(value) +
                        " exceeds the limit of 2^31 - 1");
}

// Edges j -> i for |i - j| <= radius on n nodes, grouped by target, sources ascending.
// Requires 0 <= radius <= max(n - 1, 0) <= 2^31 - 2, so no product below overflows.
Graph window_edges(const char* generator, Index n, Index radius) {
  // n windows of 2 radius + 1, minus the 1 + 2 + ... + radius positions cut off at each end.
  const Index num_edges = n * (2 * radius + 1) - radius * (radius + 1);
  if (num_edges > max_generated_edges)
    throw ArgumentError(std::string(generator) + ": " + std::to_string(num_edges) +
                        " edges exceed the graph limit of " + std::to_string(max_generated_edges));
  std::vector<Index> sources, targets;
  sources.reserve(static_cast<std::size_t>(num_edges));
  targets.reserve(static_cast<std::size_t>(num_edges));
  for (Index i = 0; i < n; ++i) {
    for (Index j = std::max<Index>(0, i - radius); j <= std::min(n - 1, i + radius); ++j) {
      sources.push_back(j);
      targets.push_back(i);
    }
  }
  return Graph::from_edges(n, sources, targets);
}

}  // namespace

Graph complete_graph(Index n) {
  check_size("complete_graph", "node count", n);
  return window_edges("complete_graph", n, std::max<Index>(n - 1, 0));
}

Graph window_graph(Index n, Index radius) {
  check_size("window_graph", "length", n);
  if (radius < 0) throw ArgumentError("window_graph: negative radius " + std::to_string(radius));
  return window_edges("window_graph", n, std::min(radius, std::max<Index>(n - 1, 0)));
}

}  // namespace edgewise
