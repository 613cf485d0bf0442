#include "edgewise/chem/scaffold.hpp"

#include <GraphMol/ChemTransforms/ChemTransforms.h>
#include <GraphMol/GraphMol.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>

#include <memory>

#include "edgewise/core/error.hpp"
#include "edgewise/chem/molecule.hpp"

namespace edgewise {

std::string murcko_scaffold(const std::string& smiles) {
  const SmilesResult parsed = parse_smiles(smiles, {.flag_possible_stereocenters = false});
  if (!parsed.molecule) {
    throw ArgumentError("cannot compute the Murcko scaffold of '" + smiles + "': " + parsed.error);
  }
  const std::unique_ptr<RDKit::ROMol> scaffold(RDKit::MurckoDecompose(*parsed.molecule));
  return RDKit::MolToSmiles(*scaffold, /*doIsomericSmiles=*/false);
}

namespace {

std::vector<std::string> scaffolds_of(const std::vector<std::string>& smiles) {
  std::vector<std::string> scaffolds;
  scaffolds.reserve(smiles.size());
  for (std::size_t row = 0; row < smiles.size(); ++row) {
    try {
      scaffolds.push_back(murcko_scaffold(smiles[row]));
    } catch (const ArgumentError& e) {
      throw ArgumentError("row " + std::to_string(row) + ": " + e.what());
    }
  }
  return scaffolds;
}

}  // namespace

Split scaffold_split(const std::vector<std::string>& smiles, double train_fraction, double val_fraction) {
  return group_split(scaffolds_of(smiles), train_fraction, val_fraction);
}

Split class_balanced_scaffold_split(const std::vector<std::string>& smiles, const Matrix<float>& labels,
                                   double train_fraction, double val_fraction, std::uint64_t seed) {
  return class_balanced_group_split(scaffolds_of(smiles), labels, train_fraction, val_fraction, seed);
}

}  // namespace edgewise
