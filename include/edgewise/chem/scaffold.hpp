/// \file
/// Bemis–Murcko scaffolds, and the scaffold split built on them (group_split of datasets/splits.hpp
/// with the scaffold as the group).
#pragma once

#include <string>
#include <vector>

#include "edgewise/splits/splits.hpp"

namespace edgewise {

/// RDKit's canonical SMILES (without stereochemistry) of the molecule's Bemis–Murcko scaffold: its
/// ring systems and the chains linking them, with the atoms double-bonded to them (RDKit keeps the O of
/// a ring C=O). Empty for a molecule without rings. Throws ArgumentError
/// naming the SMILES and RDKit's reason when it cannot be parsed.
std::string murcko_scaffold(const std::string& smiles);

/// Molecules grouped by murcko_scaffold, so that no scaffold is shared between parts, as Chemprop's
/// deterministic scaffold split (balanced = false) does: see group_split. Throws ArgumentError for
/// fractions as random_split does, and naming the row for a SMILES that cannot be parsed.
Split scaffold_split(const std::vector<std::string>& smiles, double train_fraction, double val_fraction);

/// The scaffold split for classification: molecules grouped by murcko_scaffold and placed by
/// class_balanced_group_split, so that validation and test receive both classes of every task as far
/// as the scaffolds allow. `labels` is [smiles.size(), tasks] of 0, 1 or NaN; `seed` orders the small
/// scaffold groups. Throws as scaffold_split does.
Split class_balanced_scaffold_split(const std::vector<std::string>& smiles, const Matrix<float>& labels,
                                   double train_fraction, double val_fraction, std::uint64_t seed);

}  // namespace edgewise
