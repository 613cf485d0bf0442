/// \file
/// What the processes of a run read together from the part stores they hold, one each
/// (io/graph_parts.hpp): every call is collective, each process calling it with its own part.
#pragma once

#include <string>
#include <vector>

#include "edgewise/io/graph_store.hpp"

namespace edgewise::distributed {

/// Checks that every process of the run holds one part of the same cut, process k part k. Throws
/// ArgumentError naming the store otherwise, or for a store that is not a part.
void check_part_of_run(const GraphStore& store);

/// The labels of the whole graph [N] (class ids, -1 unlabeled), gathered from the processes' parts.
/// Throws ArgumentError for a store that is not a part or has no labels.
std::vector<Index> whole_labels(const GraphStore& store);

/// The names of the whole graph's nodes [N], gathered as whole_labels gathers labels.
std::vector<std::string> whole_node_names(const GraphStore& store);

}  // namespace edgewise::distributed
