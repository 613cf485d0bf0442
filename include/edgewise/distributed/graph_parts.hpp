/// \file
/// What the processes of a run read together from the part stores they hold, one each
/// (io/graph_parts.hpp): every call is collective, each process calling it with its own part.
#pragma once

#include <span>
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

/// Rows of the listed nodes of the whole graph, each from the process whose part owns it.
struct ListedRows {
  Matrix<float> rows;         ///< [nodes, width]: row i is nodes[i]'s row of its owner's own_rows
  std::vector<Index> labels;  ///< [nodes]: nodes[i]'s label as class_ids maps it; -1 unlabeled
};

/// Gathers, for every node of `nodes` (of the whole graph), its row of `own_rows` ([own nodes,
/// width], by own row) and its label mapped through `class_ids` from the process that owns it.
ListedRows gather_listed_rows(const GraphStore& store, std::span<const Index> nodes, const Matrix<float>& own_rows,
                              std::span<const Index> class_ids);

}  // namespace edgewise::distributed
