#include "edgewise/chem/molecule_stream.hpp"

#include <GraphMol/ROMol.h>

#include <utility>

#include "edgewise/core/error.hpp"

namespace edgewise {

SmilesFeaturizer::SmilesFeaturizer(FeaturizerSpec spec, Index max_atoms)
    : spec_(std::move(spec)),
      options_(smiles_options(spec_, max_atoms)),
      descriptors_(spec_.descriptors, spec_.descriptor_values) {}

bool SmilesFeaturizer::featurize(SmilesRow& row) const {
  row.valid = false;
  const SmilesResult parsed = parse_smiles(row.smiles, options_);
  if (!parsed.molecule) {
    row.error = parsed.error.empty() ? "unreadable SMILES" : parsed.error;
    return false;
  }
  row.descriptors.resize(static_cast<std::size_t>(descriptors_.size()));
  try {
    descriptors_.compute(*parsed.molecule, row.descriptors.data());
  } catch (const MoleculeError& e) {
    row.error = e.what();
    return false;
  }
  row.rows.write(*parsed.molecule, spec_);  // after the descriptors, whose Crippen typing it reuses
  row.valid = true;
  return true;
}

FeaturizedMolecule SmilesFeaturizer::graph(const std::string& smiles) const {
  SmilesResult parsed = parse_smiles(smiles, options_);
  if (!parsed.molecule) return {std::nullopt, std::move(parsed.error)};
  return graph(*parsed.molecule);
}

FeaturizedMolecule SmilesFeaturizer::graph(const RDKit::ROMol& molecule) const {
  try {
    return {edgewise::featurize(molecule, spec_, descriptors_), {}};
  } catch (const MoleculeError& e) {
    return {std::nullopt, e.what()};
  }
}

}  // namespace edgewise
