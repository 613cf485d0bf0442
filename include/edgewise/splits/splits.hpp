/// \file
/// Train / validation / test splits, of a table's rows (molecules) and of a graph's nodes: random,
/// K-fold, grouped (by scaffold, say), per class (Planetoid style) and stratified, and split files in
/// the layout Chemprop writes (train.txt, val.txt, test.txt: one item a line).
///
/// Part sizes for a fraction f of n items are floor(n * f), with a product within 1e-6 of an integer
/// counted as that integer (so 0.57 * 100 gives 57, not 56). The same arguments always give the same
/// split: draws use SplitMix64 streams of the seed.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// Train, validation and test items: rows of a table or nodes of a graph.
struct Split {
  /// Indices of each part; the parts are disjoint.
  /// @{
  std::vector<Index> train, val, test;
  /// @}
};

/// The part sizes for logs and training summaries: "902 / 113 / 113 (train / validation / test)".
std::string part_sizes(const Split& split);

/// Throws ArgumentError unless both fractions lie in [0, 1] and sum to at most 1 (give or take
/// rounding): the check of every split by fractions.
void check_split_fractions(double train_fraction, double val_fraction);

/// A uniform shuffle of 0 .. n-1 (Fisher–Yates with SplitMix64(seed)) cut into train = floor(n *
/// train_fraction), val = floor(n * (train_fraction + val_fraction)) - train and test = the rest, each
/// part in shuffled order: the part sizes of Chemprop's random split (902 / 113 / 113 for 1128 rows).
/// Throws ArgumentError unless both fractions lie in [0, 1] and sum to at most 1, or when n is
/// negative.
Split random_split(Index n, double train_fraction, double val_fraction, std::uint64_t seed);

/// K-fold cross-validation over `rows` (e.g. a split's train and validation rows, never its test
/// rows): the rows are shuffled with SplitMix64(seed) and cut into `folds` parts whose sizes differ by
/// at most one. Fold k holds out part k as its test rows; of the other rows, floor(count *
/// val_fraction), drawn by a second shuffle seeded from (seed, k), become its validation rows (for
/// early stopping) and the rest its training rows. Throws ArgumentError unless 2 <= folds <=
/// rows.size() and 0 <= val_fraction < 1.
std::vector<Split> cross_validation_folds(const std::vector<Index>& rows, Index folds, double val_fraction,
                                         std::uint64_t seed);

/// Rows grouped by key (row i belongs to group keys[i]), so that no group is shared between parts.
/// Groups are taken largest first (ties: the group whose first row comes first); each goes to train if
/// it fits within floor(n * train_fraction), else to val if it fits within floor(n * val_fraction),
/// else to test, as Chemprop's deterministic scaffold split (balanced = false) does. Each group keeps
/// row order. Throws ArgumentError for fractions as random_split does.
Split group_split(const std::vector<std::string>& keys, double train_fraction, double val_fraction);

/// group_split for classification: no group is shared between parts, and each part receives its
/// share of every (task, class) as far as the groups allow. `labels` is [keys.size(), tasks] of 0, 1
/// or NaN (missing). Groups larger than half the validation or the test part are placed first,
/// largest first, then the others in an order drawn from `seed` (Chemprop's balanced scaffold split);
/// each goes to the part, among those it fits in (train, validation, test in that order on ties), that
/// still lacks most of its labels' classes; a group that fits in none goes to test. Throws
/// ArgumentError for fractions as random_split does, or when labels has another number of rows.
Split class_balanced_group_split(const std::vector<std::string>& keys, const Matrix<float>& labels,
                                 double train_fraction, double val_fraction, std::uint64_t seed);

/// Sizes of per_class_split, Planetoid's defaults.
struct PerClassSplitOptions {
  Index train_per_class = 20;  ///< Training nodes drawn from each class.
  Index val = 500;  ///< Validation nodes, drawn from the rest.
  Index test = 1000;  ///< Test nodes, drawn from the rest after validation.
  std::uint64_t seed = 0;  ///< Seeds the draws.
};

/// Planetoid's random split (Yang et al., 2016; PyTorch Geometric's RandomNodeSplit "random"): for
/// every class 0 .. max label, train_per_class of its labeled nodes (label >= 0) drawn at random; then
/// val and test nodes drawn at random from the remaining labeled nodes. Each part is sorted. Throws
/// ArgumentError when a class has fewer than train_per_class labeled nodes or fewer than val + test
/// labeled nodes remain.
Split per_class_split(std::span<const Index> labels, const PerClassSplitOptions& options = {});

/// Splits each class's labeled nodes on its own: of its n_c nodes, floor(n_c * train_fraction) go to
/// train, floor(n_c * val_fraction) to val and the rest to test. Each part is sorted. Throws
/// ArgumentError unless both fractions lie in [0, 1] and sum to at most 1.
Split stratified_split(std::span<const Index> labels, double train_fraction, double val_fraction,
                       std::uint64_t seed);

/// Reads dir/train.txt, val.txt and test.txt for a table of n rows: one 0-based row index a line,
/// surrounding whitespace and blank lines ignored. The parts need not cover every row. Throws
/// ParseError naming the file and line for text that is not an integer, an index that is negative or
/// not below n, and an index listed twice (within a file or across files); Error when a file cannot
/// be read.
Split read_split_directory(const std::string& dir, Index n);

/// Writes the three files read_split_directory reads, one index a line in the split's order,
/// creating dir if needed. An existing file with other contents is replaced only when overwrite is
/// set; otherwise Error is thrown before any file is written.
void write_split_directory(const std::string& dir, const Split& split, bool overwrite = false);

/// Maps the text of a node in a split file to its index, or to a negative value for an unknown node.
using NodeLookup = std::function<Index(std::string_view)>;

/// Gives the text written for a node index: the inverse of a NodeLookup.
using NodeNamer = std::function<std::string(Index)>;

/// read_split_directory for the nodes of a graph: each line names a node through the lookup, or
/// without one is a 0-based node index; a name the lookup does not know is a ParseError.
Split read_node_split(const std::string& dir, Index num_nodes, const NodeLookup& lookup = {});

/// write_split_directory for the nodes of a graph, each node written as its name (its index without
/// a namer).
void write_node_split(const std::string& dir, const Split& split, bool overwrite = false, const NodeNamer& name = {});

}  // namespace edgewise
