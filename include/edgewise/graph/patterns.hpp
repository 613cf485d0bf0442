/// \file
/// Graphs that turn graph attention into familiar sequence attention.
///
/// Both list their edges grouped by target, sources ascending: edge order equals CSR order.
#pragma once

#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"

namespace edgewise {

/// Every ordered pair j -> i, self-loops included: n^2 edges, ordinary (full) self-attention.
/// Throws ArgumentError on negative n or when n^2 exceeds Graph's edge limit.
Graph complete_graph(Index n);

/// Position i attends to every position j with |i - j| <= radius, itself included: truncated
/// attention over a sequence of length n. radius 0 gives only self-loops; radius >= n - 1 gives
/// complete_graph(n). Throws ArgumentError on negative n or radius, or too many edges.
Graph window_graph(Index n, Index radius);

}  // namespace edgewise
