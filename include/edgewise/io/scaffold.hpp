/// \file
/// Train / validation / test splits of a dataset's rows: random, by Bemis–Murcko scaffold, and split
/// files in the layout Chemprop writes (train.txt, val.txt, test.txt: one 0-based row index a line).
///
/// Part sizes for a fraction f of n rows are floor(n * f), with a product within 1e-6 of an integer
/// counted as that integer (so 0.57 * 100 gives 57, not 56); the test part takes what is left.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// Train, validation and test rows of a table.
struct Split {
  /// Row indices of each part; the parts are disjoint.
  /// @{
  std::vector<Index> train, val, test;
  /// @}
};

/// A uniform shuffle of 0 .. n-1 (Fisher–Yates with SplitMix64(seed)) cut into train = floor(n *
/// train_fraction), val = floor(n * (train_fraction + val_fraction)) - train and test = the rest, each
/// part in shuffled order: the part sizes of Chemprop's random split (902 / 113 / 113 for 1128 rows).
/// The same (n, fractions, seed) always gives the same split. Throws ArgumentError unless both fractions
/// lie in [0, 1] and sum to at most 1, or when n is negative.
Split random_split(Index n, double train_fraction, double val_fraction, std::uint64_t seed);

/// K-fold cross-validation over `rows` (e.g. a split's train and validation rows, never its test
/// rows): the rows are shuffled with SplitMix64(seed) and cut into `folds` parts whose sizes differ by
/// at most one. Fold k holds out part k as its test rows; of the other rows, floor(count *
/// val_fraction), drawn by a second shuffle seeded from (seed, k), become its validation rows (for
/// early stopping) and the rest its training rows. The same arguments always give the same folds.
/// Throws ArgumentError unless 2 <= folds <= rows.size() and 0 <= val_fraction < 1.
std::vector<Split> cross_validation_folds(const std::vector<Index>& rows, Index folds, double val_fraction,
                                         std::uint64_t seed);

/// RDKit's canonical SMILES (without stereochemistry) of the molecule's Bemis–Murcko scaffold: its
/// ring systems and the chains linking them, with the atoms double-bonded to them (RDKit keeps the O of
/// a ring C=O). Empty for a molecule without rings. Throws ArgumentError
/// naming the SMILES and RDKit's reason when it cannot be parsed.
std::string murcko_scaffold(const std::string& smiles);

/// Molecules grouped by murcko_scaffold, so that no scaffold is shared between parts. Groups are taken
/// largest first (ties: the group whose first molecule comes first); each goes to train if it fits
/// within floor(n * train_fraction), else to val if it fits within floor(n * val_fraction), else to
/// test, as Chemprop's deterministic scaffold split (balanced = false) does. Each group keeps row order.
/// Throws ArgumentError for fractions as random_split does, and naming the row for a SMILES that
/// cannot be parsed.
Split scaffold_split(const std::vector<std::string>& smiles, double train_fraction, double val_fraction);

/// Reads dir/train.txt, val.txt and test.txt for a dataset of n rows: one 0-based index per line,
/// surrounding whitespace and blank lines ignored. The parts need not cover every row. Throws
/// ParseError naming the file and line for text that is not an integer, an index that is negative or
/// not below n, and an index listed twice (within a file or across files); Error when a file cannot
/// be read.
Split read_split_directory(const std::string& dir, Index n);

/// Writes the three files read_split_directory reads, creating dir if needed. An existing file with
/// other contents is replaced only when overwrite is set; otherwise Error is thrown before any file is
/// written.
void write_split_directory(const std::string& dir, const Split& split, bool overwrite = false);

}  // namespace edgewise
