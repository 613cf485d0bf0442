// tests/data/bad/mol_odd_molecules.csv, one odd molecule a row (name, smiles, y, expect), where
// expect is "valid" or a fragment of the reason the molecule is refused.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "edgewise/io/csv.hpp"

namespace edgewise::testing {

inline const std::filesystem::path kOddMolecules =
    std::filesystem::path(EDGEWISE_SOURCE_DIR) / "tests" / "data" / "bad" / "mol_odd_molecules.csv";

struct OddMolecule {
  std::string name, smiles, expect;
  std::size_t line = 0;  // where its row is in the file
  bool valid() const { return expect == "valid"; }
};

inline std::vector<OddMolecule> odd_molecules() {
  const CsvTable table = read_csv(kOddMolecules);
  std::vector<OddMolecule> molecules;
  for (std::size_t row = 0; row < table.num_rows(); ++row)
    molecules.push_back({table.rows[row][0], table.rows[row][1], table.rows[row][3], table.line_numbers[row]});
  return molecules;
}

}  // namespace edgewise::testing
