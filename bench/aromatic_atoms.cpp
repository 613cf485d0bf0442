// Writes, for every STEP-th SMILES of a CSV that RDKit reads, its number of aromatic atoms: a property
// that grows with the molecule and that none of the featurizer's 43 descriptors gives (they count
// aromatic rings, not atoms), for the readout's cross-validation in bench/tune_defaults.
//
// Usage: aromatic_atoms IN.csv SMILES_COLUMN STEP OUT.csv
#include <GraphMol/ROMol.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "edgewise/io/csv.hpp"
#include "edgewise/chem/molecule.hpp"

namespace {

int aromatic_atoms(const RDKit::ROMol& molecule) {
  int count = 0;
  for (const RDKit::Atom* atom : molecule.atoms()) count += atom->getIsAromatic() ? 1 : 0;
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: aromatic_atoms IN.csv SMILES_COLUMN STEP OUT.csv\n";
    return 2;
  }
  const edgewise::CsvTable table = edgewise::read_csv(argv[1]);
  const std::size_t column = table.column_index(argv[2]);
  const std::size_t step = std::stoul(argv[3]);
  std::ofstream out(argv[4]);
  out << "smiles,aromatic_atoms\n";
  for (std::size_t row = 0; row < table.num_rows(); row += step) {
    const std::string& smiles = table.rows[row][column];
    const edgewise::SmilesResult parsed = edgewise::parse_smiles(smiles);
    if (parsed.molecule) out << smiles << ',' << aromatic_atoms(*parsed.molecule) << '\n';
  }
  return out ? 0 : 1;
}
