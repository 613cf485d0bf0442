/// \file
/// Train / validation / test splits of the nodes of one graph, for node classification: Planetoid
/// style (a fixed number of training nodes per class, then fixed validation and test sizes),
/// stratified fractions per class, and split files.
///
/// Generated splits use only labeled nodes (label >= 0; a negative label marks an unlabeled node),
/// sort each part by node index and are a function of (labels, sizes, seed) alone. Parts are always
/// disjoint.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// Train, validation and test node indices.
struct NodeSplit {
  /// Node indices of each part; the parts are disjoint.
  /// @{
  std::vector<Index> train, val, test;
  /// @}
};

/// Sizes of per_class_split, Planetoid's defaults.
struct PerClassSplitOptions {
  Index train_per_class = 20;  ///< Training nodes drawn from each class.
  Index val = 500;  ///< Validation nodes, drawn from the rest.
  Index test = 1000;  ///< Test nodes, drawn from the rest after validation.
  std::uint64_t seed = 0;  ///< Seeds the draws.
};

/// Planetoid's random split (Yang et al., 2016; PyTorch Geometric's RandomNodeSplit "random"): for
/// every class 0 .. max label, train_per_class of its labeled nodes drawn at random; then val and test
/// nodes drawn at random from the remaining labeled nodes. Throws ArgumentError when a class has fewer
/// than train_per_class labeled nodes or fewer than val + test labeled nodes remain.
NodeSplit per_class_split(std::span<const Index> labels, const PerClassSplitOptions& options = {});

/// Splits each class's labeled nodes on its own: of its n_c nodes, floor(n_c * train_fraction) go to
/// train, floor(n_c * val_fraction) to val and the rest to test (a product within 1e-6 of an integer
/// counts as that integer, so 0.6 * 10 gives 6). Throws ArgumentError unless both fractions lie in
/// [0, 1] and sum to at most 1.
NodeSplit stratified_split(std::span<const Index> labels, double train_fraction, double val_fraction,
                           std::uint64_t seed);

/// Maps the text of a node in a split file to its index, or to a negative value for an unknown node.
using NodeLookup = std::function<Index(std::string_view)>;

/// Reads dir/train.txt, val.txt and test.txt: one node a line, surrounding whitespace and blank
/// lines ignored. Without a lookup each line is a 0-based node index. The parts need not cover every
/// node. Throws ParseError naming the file and line for a node that is not an index (or unknown to
/// the lookup), an index not below num_nodes, and a node listed twice (within a file or across
/// files); Error when a file cannot be read.
NodeSplit read_node_split(const std::string& dir, Index num_nodes, const NodeLookup& lookup = {});

/// Gives the text written for a node index: the inverse of a NodeLookup.
using NodeNamer = std::function<std::string(Index)>;

/// Writes the three files read_node_split reads, one node a line in the split's order (as its index
/// without a namer), creating dir if needed. Existing files are replaced only when overwrite is set;
/// otherwise Error is thrown before any file is written.
void write_node_split(const std::string& dir, const NodeSplit& split, bool overwrite = false,
                      const NodeNamer& name = {});

}  // namespace edgewise
