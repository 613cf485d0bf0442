/// \file
/// A graph store as sampled training and layer-wise inference read it (NodeSource): its in-edges and
/// its feature rows, gathered from the mapped file; bags of words as sparse rows.
#pragma once

#include "edgewise/io/graph_store.hpp"
#include "edgewise/models/sampled_training.hpp"

namespace edgewise {

/// A NodeSource viewing `store`'s graph and features; the store must outlive it. A caller that trains
/// on part of the graph (the training links alone) replaces in_edges with that graph's.
NodeSource store_source(const GraphStore& store);

}  // namespace edgewise
