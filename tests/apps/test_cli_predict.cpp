// `edgewise predict --smiles` as a user types it: each SMILES reaches the reader as written, bracket
// atoms included, whether several follow one --smiles or the option repeats; --max-atoms refuses
// larger molecules row by row.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli.hpp"
#include "support/untrained_model.hpp"

namespace {

using edgewise::testing::CliRun;

class CliPredictTest : public edgewise::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    edgewise::testing::save_untrained_molecule_model(path("model.ew"));
  }

  // The SMILES column of the predictions CSV, header left out.
  std::vector<std::string> predicted_smiles(const std::string& smiles_options) {
    const CliRun run = run_cli("predict --model " + path("model.ew") + " " + smiles_options + " --out " +
                               path("predictions.csv") + " --force");
    EXPECT_EQ(run.status, 0) << run.output;
    std::istringstream rows(read("predictions.csv"));
    std::vector<std::string> column;
    std::string row;
    std::getline(rows, row);
    while (std::getline(rows, row)) column.push_back(row.substr(0, row.find(',')));
    return column;
  }
};

TEST_F(CliPredictTest, BracketAtomsReachTheReaderWhole) {
  // A value that starts with '[' and ends with ']' is what a list option would split.
  const std::vector<std::string> expected = {"[Na+].[Cl-]", "[NH4+]", "CCO", "[Fe]"};
  EXPECT_EQ(predicted_smiles("--smiles '[Na+].[Cl-]' '[NH4+]' CCO '[Fe]'"), expected);
  EXPECT_EQ(predicted_smiles("--smiles '[Na+].[Cl-]' --smiles '[NH4+]' CCO --smiles '[Fe]'"), expected);
}

TEST_F(CliPredictTest, EveryBracketMoleculeGetsAPrediction) {
  const CliRun run = run_cli("predict --model " + path("model.ew") + " --smiles '[Na+].[Cl-]' '[O-]C(=O)C.[K+]'");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(run.output.find("could not be read"), std::string::npos) << run.output;
}

TEST_F(CliPredictTest, MaxAtomsRefusesLargerMoleculesRowByRow) {
  const CliRun run = run_cli("predict --model " + path("model.ew") + " --smiles CCC CCCC --max-atoms 3 --out " +
                             path("predictions.csv"));
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("1 of 2 molecules could not be read"), std::string::npos) << run.output;
  std::istringstream rows(read("predictions.csv"));
  std::string header, small, large;
  std::getline(rows, header);
  std::getline(rows, small);
  std::getline(rows, large);
  EXPECT_EQ(small.back(), ',') << small;  // a value and an empty error column
  EXPECT_EQ(large, "CCCC,,\"molecule has 4 atoms, more than the limit of 3\"");
}

// Three records as SD files come: a molecule, one RDKit refuses (a carbon with five bonds), another.
std::string molblock(const std::string& name, const std::vector<std::string>& atoms,
                     const std::vector<std::pair<int, int>>& bonds) {
  char counts[64];
  std::snprintf(counts, sizeof counts, "%3zu%3zu  0  0  0  0  0  0  0  0999 V2000\n", atoms.size(), bonds.size());
  std::string block = name + "\n     edgewise       2D\n\n" + counts;
  for (const std::string& atom : atoms) {
    char line[128];
    std::snprintf(line, sizeof line, "    0.0000    0.0000    0.0000 %-3s 0  0  0  0  0  0  0  0  0  0  0  0\n",
                  atom.c_str());
    block += line;
  }
  for (const auto& [from, to] : bonds) {
    char line[64];
    std::snprintf(line, sizeof line, "%3d%3d  1  0\n", from, to);
    block += line;
  }
  return block + "M  END\n> <name>\n" + name + "\n\n$$$$\n";
}

TEST_F(CliPredictTest, SdFilesPredictEveryRecordInOrder) {
  write("molecules.sdf", molblock("methane", {"C"}, {}) +
                             molblock("pentavalent", {"C", "F", "F", "F", "F", "F"},
                                      {{1, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6}}) +
                             molblock("ethanol", {"C", "C", "O"}, {{1, 2}, {2, 3}}));
  const CliRun sdf = run_cli("predict --model " + path("model.ew") + " --data " + path("molecules.sdf") +
                             " --out " + path("sdf.csv"));
  ASSERT_EQ(sdf.status, 0) << sdf.output;
  EXPECT_NE(sdf.output.find("molecules.sdf:11: cannot read SD record 2: "), std::string::npos) << sdf.output;
  EXPECT_NE(sdf.output.find("1 of 3 molecules could not be read"), std::string::npos) << sdf.output;
  const CliRun smiles = run_cli("predict --model " + path("model.ew") + " --smiles C CCO --out " + path("smiles.csv"));
  ASSERT_EQ(smiles.status, 0) << smiles.output;

  std::istringstream sdf_rows(read("sdf.csv")), smiles_rows(read("smiles.csv"));
  std::string sdf_header, smiles_header, methane, refused, ethanol, methane_from_smiles, ethanol_from_smiles;
  std::getline(sdf_rows, sdf_header);
  std::getline(smiles_rows, smiles_header);
  EXPECT_EQ(sdf_header, smiles_header);
  std::getline(sdf_rows, methane);
  std::getline(sdf_rows, refused);
  std::getline(sdf_rows, ethanol);
  std::getline(smiles_rows, methane_from_smiles);
  std::getline(smiles_rows, ethanol_from_smiles);
  EXPECT_EQ(methane, methane_from_smiles);
  EXPECT_EQ(ethanol, ethanol_from_smiles);
  EXPECT_EQ(refused.substr(0, 2), ",,") << refused;  // no SMILES, no value, then the reason
  EXPECT_NE(refused.find("valence"), std::string::npos) << refused;
}

TEST_F(CliPredictTest, DataWithoutRowsIsAnError) {
  write("empty.csv", "");
  write("header.csv", "smiles\n");
  for (const char* file : {"empty.csv", "header.csv"}) {
    const CliRun run = run_cli("predict --model " + path("model.ew") + " --data " + path(file) + " --out " +
                               path("predictions.csv"));
    EXPECT_NE(run.status, 0) << run.output;
    EXPECT_NE(run.output.find(std::string(file) + ":1: "), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("no rows to predict"), std::string::npos) << run.output;
    EXPECT_FALSE(std::filesystem::exists(path("predictions.csv")));
  }
}

}  // namespace
