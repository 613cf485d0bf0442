// Bemis–Murcko scaffolds and the scaffold split.
#include "edgewise/chem/scaffold.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include "edgewise/core/error.hpp"
#include "edgewise/io/csv.hpp"
#include "support/shared_data.hpp"
#include "support/split_checks.hpp"
#include "support/thrown.hpp"

namespace edgewise {
namespace {

using testing::thrown_by;

namespace fs = std::filesystem;

using testing::expect_partition_of;
using testing::sorted;

TEST(MurckoScaffold, HandCheckedMolecules) {
  EXPECT_EQ(murcko_scaffold("c1ccccc1"), "c1ccccc1");
  EXPECT_EQ(murcko_scaffold("CCO"), "");
  EXPECT_EQ(murcko_scaffold("CC(C)Cc1ccc(cc1)C(C)C(=O)O"), "c1ccccc1");  // ibuprofen
  EXPECT_EQ(murcko_scaffold("O=C([O-])c1ccccc1.[Na+]"), "c1ccccc1");     // sodium benzoate
  EXPECT_EQ(murcko_scaffold("c1ccc(Cc2ccccc2)cc1"), "c1ccc(Cc2ccccc2)cc1");
  EXPECT_EQ(murcko_scaffold("CC(=O)Nc1ccc(O)cc1 "), "c1ccccc1");  // paracetamol, trailing space
}

TEST(MurckoScaffold, SubstituentsAnywhereGiveTheSameScaffold) {
  const std::string indole = murcko_scaffold("c1ccc2[nH]ccc2c1");
  EXPECT_EQ(indole, "c1ccc2[nH]ccc2c1");
  for (const char* substituted : {"Cc1ccc2[nH]ccc2c1", "Cc1c[nH]c2ccccc12", "Cn1ccc2ccccc21", "OCCc1cccc2[nH]ccc12",
                                  "CC(=O)c1ccc2[nH]c(C)cc2c1Cl"}) {
    EXPECT_EQ(murcko_scaffold(substituted), indole) << substituted;
  }
  const std::string tetralin = murcko_scaffold("C1CCc2ccccc2C1");
  for (const char* substituted : {"CC1CCc2ccccc2C1", "OC1CCCc2ccccc21", "Cc1ccc2c(c1)CCC(N)C2", "FC1(F)CCc2ccccc2C1"}) {
    EXPECT_EQ(murcko_scaffold(substituted), tetralin) << substituted;
  }
}

TEST(MurckoScaffold, BracketAtomsGetTheHydrogensOfRemovedSubstituents) {
  EXPECT_EQ(murcko_scaffold("C[N+]1(C)CCCC1"), "C1CC[NH2+]C1");
  EXPECT_EQ(murcko_scaffold("C[C@]1(O)CCCCN1"), "C1CCNCC1");
}

TEST(MurckoScaffold, ExocyclicDoubleBondsStayWithTheRing) {
  EXPECT_EQ(murcko_scaffold("CCC1CCCCC1=O"), "O=C1CCCCC1");
}

TEST(MurckoScaffold, StereochemistryIsDropped) {
  EXPECT_EQ(murcko_scaffold("c1ccccc1/C=C/c1ccccc1"), murcko_scaffold("c1ccccc1C=Cc1ccccc1"));
  EXPECT_EQ(murcko_scaffold("C[C@H]1CC[C@@H](C)C(c2ccccc2)C1"), murcko_scaffold("CC1CCC(C)C(c2ccccc2)C1"));
  EXPECT_EQ(murcko_scaffold("c1ccccc1/C=C/c1ccccc1").find('/'), std::string::npos);
}

TEST(MurckoScaffold, InvalidSmilesNamesTheInput) {
  try {
    murcko_scaffold("C1CC(");
    FAIL() << "no exception thrown";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("'C1CC('"), std::string::npos) << e.what();
  }
}

// rows[i]'s part: 0 train, 1 val, 2 test.
std::vector<int> part_of_rows(const Split& split, std::size_t n) {
  std::vector<int> part(n, -1);
  for (const Index row : split.train) part[static_cast<std::size_t>(row)] = 0;
  for (const Index row : split.val) part[static_cast<std::size_t>(row)] = 1;
  for (const Index row : split.test) part[static_cast<std::size_t>(row)] = 2;
  return part;
}

void expect_scaffolds_not_shared(const Split& split, const std::vector<std::string>& smiles) {
  const std::vector<int> part = part_of_rows(split, smiles.size());
  std::map<std::string, int> part_of_scaffold;
  for (std::size_t row = 0; row < smiles.size(); ++row) {
    const auto [entry, added] = part_of_scaffold.try_emplace(murcko_scaffold(smiles[row]), part[row]);
    EXPECT_EQ(entry->second, part[row]) << "scaffold '" << entry->first << "' is in two parts (row " << row << ")";
  }
}

TEST(ScaffoldSplit, GroupsGoLargestFirstToTheFirstPartWithRoom) {
  const std::vector<std::string> smiles = {
      "Cc1ccccc1",  // 0: benzene
      "CCO",        // 1: none
      "c1ccncc1",   // 2: pyridine
      "Oc1ccccc1",  // 3: benzene
      "CCC",        // 4: none
      "C1CCCCC1",   // 5: cyclohexane
      "Nc1ccccc1",  // 6: benzene
      "CC(=O)O",    // 7: none
      "Cc1ccncc1",  // 8: pyridine
      "c1ccccc1",   // 9: benzene
  };
  // train 5, val 3: benzene (4) fits train; the acyclic (3) only val; pyridine (2) neither; cyclohexane
  // (1) fills train.
  const Split split = scaffold_split(smiles, 0.5, 0.3);
  EXPECT_EQ(split.train, (std::vector<Index>{0, 3, 6, 9, 5}));
  EXPECT_EQ(split.val, (std::vector<Index>{1, 4, 7}));
  EXPECT_EQ(split.test, (std::vector<Index>{2, 8}));
  expect_scaffolds_not_shared(split, smiles);
}

TEST(ScaffoldSplit, TiesGoByFirstAppearance) {
  const std::vector<std::string> pyridine_first = {"c1ccncc1", "c1ccc2ccccc2c1", "Cc1ccncc1", "Cc1ccc2ccccc2c1"};
  EXPECT_EQ(scaffold_split(pyridine_first, 0.5, 0.5).train, (std::vector<Index>{0, 2}));
  const std::vector<std::string> naphthalene_first = {"c1ccc2ccccc2c1", "c1ccncc1", "Cc1ccc2ccccc2c1", "Cc1ccncc1"};
  EXPECT_EQ(scaffold_split(naphthalene_first, 0.5, 0.5).train, (std::vector<Index>{0, 2}));
  EXPECT_EQ(scaffold_split(naphthalene_first, 0.5, 0.5).val, (std::vector<Index>{1, 3}));
}

TEST(ScaffoldSplit, InvalidSmilesNamesTheRow) {
  try {
    scaffold_split({"CCO", "C1CC("}, 0.8, 0.1);
    FAIL() << "no exception thrown";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
  }
}

std::vector<std::string> esol_smiles() {
  const CsvTable table = read_csv(testing::dataset_csv("esol"));
  std::vector<std::string> smiles;
  const std::size_t column = table.column_index("smiles");
  for (const auto& row : table.rows) smiles.push_back(row[column]);
  return smiles;
}

TEST(ScaffoldSplit, EsolKeepsEveryScaffoldInOnePart) {
  const fs::path path = testing::dataset_csv("esol");
  if (!fs::exists(path)) GTEST_SKIP() << testing::missing_data_reason(path);
  const std::vector<std::string> smiles = esol_smiles();
  const Split split = scaffold_split(smiles, 0.8, 0.1);
  expect_partition_of(split, 1128);
  EXPECT_LE(split.train.size(), 902u);
  EXPECT_LE(split.val.size(), 112u);
  expect_scaffolds_not_shared(split, smiles);

  std::map<std::string, std::size_t> group_size;
  for (const std::string& s : smiles) ++group_size[murcko_scaffold(s)];
  const auto largest = std::ranges::max_element(group_size, {}, &std::pair<const std::string, std::size_t>::second);
  const std::vector<int> part = part_of_rows(split, smiles.size());
  for (std::size_t row = 0; row < smiles.size(); ++row) {
    if (murcko_scaffold(smiles[row]) == largest->first) {
      EXPECT_EQ(part[row], 0) << row;
    }
  }
}

// BBBP's scaffold split took only class 1 into validation and test with the largest-first rule; the
// class-balanced split gives every part about the data's share of each class.
TEST(ScaffoldSplit, BbbpClassesAreBalancedOverTheParts) {
  const fs::path path = testing::dataset_csv("bbbp");
  if (!fs::exists(path)) GTEST_SKIP() << testing::missing_data_reason(path);
  const CsvTable table = read_csv(path);
  const std::size_t smiles_column = table.column_index("smiles"), label_column = table.column_index("p_np");
  std::vector<std::string> smiles;
  std::vector<float> labels;
  for (std::size_t row = 0; row < table.num_rows(); ++row) {
    try {
      murcko_scaffold(table.rows[row][smiles_column]);
    } catch (const ArgumentError&) {
      continue;  // the few SMILES RDKit cannot read
    }
    smiles.push_back(table.rows[row][smiles_column]);
    labels.push_back(static_cast<float>(*table.number(row, label_column)));
  }
  const Matrix<float> classes = ConstMatrixMap<float>(labels.data(), static_cast<Index>(labels.size()), 1);
  const Split largest_first = scaffold_split(smiles, 0.8, 0.1);
  const Split split = class_balanced_scaffold_split(smiles, classes, 0.8, 0.1, 0);
  expect_partition_of(split, smiles.size());
  expect_scaffolds_not_shared(split, smiles);
  const double share = classes.mean();
  const auto positive_share = [&](const std::vector<Index>& rows) {
    double positives = 0;
    for (const Index row : rows) positives += classes(row, 0);
    return positives / static_cast<double>(rows.size());
  };
  EXPECT_EQ(positive_share(largest_first.val), 1.0);
  for (const std::vector<Index>* part : {&split.train, &split.val, &split.test})
    EXPECT_NEAR(positive_share(*part), share, 0.02);
}

// Splits that Chemprop wrote for the shared data, beside the checkout.
fs::path peer_split(const std::string& name) {
  return fs::path(EDGEWISE_SOURCE_DIR) / ".." / "shared" / "peers" / "chemprop" / name;
}

TEST(ScaffoldSplit, EsolMatchesChempropsScaffoldSplit) {
  const fs::path path = testing::dataset_csv("esol");
  const fs::path reference = peer_split("esol_scaffold_seed0");
  if (!fs::exists(path)) GTEST_SKIP() << testing::missing_data_reason(path);
  if (!fs::exists(reference)) GTEST_SKIP() << reference.string() << " not found: no Chemprop reference splits";
  const Split split = scaffold_split(esol_smiles(), 0.8, 0.1);
  const Split chemprop = read_split_directory(reference.string(), 1128);
  EXPECT_EQ(sorted(split.train), sorted(chemprop.train));
  EXPECT_EQ(sorted(split.val), sorted(chemprop.val));
  EXPECT_EQ(sorted(split.test), sorted(chemprop.test));
}
}  // namespace
}  // namespace edgewise
