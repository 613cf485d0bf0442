// `edgewise predict --smiles` as a user types it: each SMILES reaches the reader as written, bracket
// atoms included, whether several follow one --smiles or the option repeats; --max-atoms refuses
// larger molecules row by row.
#include <gtest/gtest.h>

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

}  // namespace
