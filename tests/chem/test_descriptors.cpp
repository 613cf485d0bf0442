// The descriptors chem computes together (chem/descriptors): every value bit for bit RDKit's own
// (Properties::computeProperties), on odd molecules and on the rows of the shared molecule tables,
// and the featurizer's Crippen atom columns those of RDKit's addHs and getCrippenAtomContribs.
#include <gtest/gtest.h>

#include <GraphMol/Descriptors/Crippen.h>
#include <GraphMol/Descriptors/Property.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/ROMol.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "../../chem/descriptors.hpp"  // private to chem: tested here for its doubles, before the featurizer's floats
#include "edgewise/io/csv.hpp"
#include "edgewise/chem/molecule.hpp"
#include "support/shared_data.hpp"

namespace edgewise {
namespace {

using detail::CrippenContributions;
using detail::DescriptorSet;
using detail::KeepOnMolecule;
using testing::dataset_csv;
using testing::missing_data_reason;

// Charged atoms, metals, molecules without bonds, single atoms, large and small rings (3- and
// 4-rings close RDKit's paths of 3 and 4 bonds; a 3-ring with a tail closes one of 4 bonds midway),
// explicit and isotopic hydrogens, dummy atoms, hydrogen alone.
const std::vector<std::string> kOddSmiles = {
    "C", "[Na+].[Cl-]", "[Cu+2]", "[Fe]", "[H][H]", "[2H][2H]", "*", "*C(*)C", "[He]", "O", "[NH4+]",
    "CC1CC1", "C1CC1", "C1CCC1", "CC1CCC1C", "C12C3C1C23", "C12C3C4C1C5C2C3C45", "C1CC2CC1C2",
    "C1CCCCCCCCCCCCCCCCCCCC1", "C1CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC1", "[H][C@@](F)(Cl)Br",
    "[2H]C([2H])([2H])O", "[13CH3][N+](C)(C)C.[Cl-]", "OC(=O)C[NH3+]", "[O-][n+]1ccccc1",
    "CCC1=[O+][Cu-3]2([O+]=C(CC)C1)[O+]=C(CC)CC(CC)=[O+]2", "[Pt](Cl)(Cl)([NH3])[NH3]",
    "CC(C)(C)[Si](C)(C)O", "O=S(=O)(O)O", "[Se]=C=[Se]", "FC(F)(F)I", "c1ccc2c(c1)[nH]c1ccccc12",
    "C[S@](=O)c1ccccc1", "OP(=O)(O)OP(=O)(O)O", "[B-](F)(F)(F)F.[K+]", "C#N", "C=C=C", "[C-]#[O+]",
    // What the strict rotatable bonds leave out (amides, thioamides, amidines, CX3 and tert-butyl
    // ends, triple bonds) and what the acceptors count (thiols, thioethers, anions, N-oxides).
    "CC(=O)NC", "CC(=S)NC", "CC(=[NH2+])NC", "FC(F)(F)CC", "ClC(Cl)(Cl)COC", "CC(C)(C)CC", "CC#CCC", "CSCCS",
    "CC(=O)[O-]", "C[N+](C)([O-])CC", "c1ccoc1CN",
    // What the donors count (hydrogens bonded as atoms too) and the amide bonds: ureas, lactams, imides.
    "[2H]N(C)C", "[2H]OC", "C[SH]", "c1cc[nH]c1", "C[NH2+]C", "NC(N)=O", "O=C1CCCN1", "O=C1CCC(=O)N1", "CN(C)C=O",
    "O=C1NC(=O)c2ccccc21", "NC(=O)c1ccccc1",
    // Rings of each kind the ring counts tell apart: aromatic, aliphatic with a double bond, saturated,
    // each with and without a heteroatom; fused, bridged and spiro.
    "c1ccsc1", "C1=CCCC1", "C1=COCC1", "C1CCOC1", "c1ccc2c(c1)CCN2", "C1CC2CCC1O2", "C1CCC2(CC1)CCNC2",
};

std::vector<std::shared_ptr<RDKit::ROMol>> parse_all(const std::vector<std::string>& smiles) {
  std::vector<std::shared_ptr<RDKit::ROMol>> molecules;
  for (const std::string& text : smiles)
    if (SmilesResult parsed = parse_smiles(text); parsed.molecule) molecules.push_back(std::move(parsed.molecule));
  return molecules;
}

// The SMILES of a shared table's first `rows` rows.
std::vector<std::string> table_smiles(const std::filesystem::path& path, std::size_t rows) {
  const CsvTable table = read_csv(path);
  const std::size_t column = table.column_index("smiles");
  std::vector<std::string> smiles;
  for (std::size_t row = 0; row < std::min(rows, table.num_rows()); ++row) smiles.push_back(table.rows[row][column]);
  return smiles;
}

bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0 || (std::isnan(a) && std::isnan(b)); }

// RDKit computes on a copy of the molecule, so that neither side reads what the other kept on it.
void expect_rdkit_values(const DescriptorSet& ours, const std::vector<std::string>& names, const RDKit::ROMol& molecule) {
  const RDKit::ROMol copy(molecule);
  const std::vector<double> expected = RDKit::Descriptors::Properties(names).computeProperties(copy);
  const std::vector<double> actual = ours.compute(molecule);
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < names.size(); ++i)
    EXPECT_TRUE(same_double(actual[i], expected[i]))
        << names[i] << " of " << RDKit::MolToSmiles(molecule) << ": " << actual[i] << " where RDKit gives " << expected[i]
        << " (difference " << actual[i] - expected[i] << ")";
}

void expect_rdkit_values_for_all(const std::vector<std::shared_ptr<RDKit::ROMol>>& molecules) {
  const std::vector<std::string> names = available_descriptors();
  const DescriptorSet ours(names);
  for (const auto& molecule : molecules) expect_rdkit_values(ours, names, *molecule);
}

TEST(DescriptorSetTest, OddMoleculesHaveRdkitsValues) { expect_rdkit_values_for_all(parse_all(kOddSmiles)); }

TEST(DescriptorSetTest, AnySubsetInAnyOrderHasRdkitsValues) {
  const std::vector<std::string> names = {"Phi", "tpsa", "chi4v", "CrippenMR", "chi2n", "kappa3", "chi0v", "chi2v"};
  const DescriptorSet ours(names);
  for (const auto& molecule : parse_all({"CC(=O)Nc1ccc(O)cc1", "C1CC1C", "[Na+].[Cl-]"}))
    expect_rdkit_values(ours, names, *molecule);
}

TEST(DescriptorSetTest, SharedTableMoleculesHaveRdkitsValues) {
  // A few thousand rows: all of ESOL, the first rows of the others. Every row of the five tables
  // (56,000 molecules) matched too, but takes minutes.
  for (const auto& [table, rows] : {std::pair{"esol", 2000}, {"lipophilicity", 800}, {"bbbp", 800}, {"tox21", 800},
                                    {"hiv", 800}}) {
    const std::filesystem::path path = dataset_csv(table);
    if (!std::filesystem::exists(path)) GTEST_SKIP() << missing_data_reason(path);
    SCOPED_TRACE(table);
    expect_rdkit_values_for_all(parse_all(table_smiles(path, rows)));
  }
}

// The per-atom contributions as the featurizer computed them before sharing: RDKit's addHs and
// getCrippenAtomContribs, folded onto the heavy atoms in the order of the atoms with hydrogens.
Matrix<float> crippen_columns_by_rdkit(const RDKit::ROMol& molecule) {
  const std::unique_ptr<RDKit::ROMol> with_hydrogens(RDKit::MolOps::addHs(molecule));
  std::vector<double> logp(with_hydrogens->getNumAtoms()), refractivity(with_hydrogens->getNumAtoms());
  RDKit::Descriptors::getCrippenAtomContribs(*with_hydrogens, logp, refractivity, true);
  Matrix<float> columns = Matrix<float>::Zero(molecule.getNumAtoms(), 2);
  for (const RDKit::Atom* atom : with_hydrogens->atoms()) {
    const unsigned int i = atom->getIdx();
    const auto heavy = static_cast<Index>(i < molecule.getNumAtoms() ? i : *with_hydrogens->getAtomNeighbors(atom).first);
    columns(heavy, 0) += static_cast<float>(logp[i]);
    columns(heavy, 1) += static_cast<float>(refractivity[i] / 10.0);
  }
  return columns;
}

// With the Crippen descriptors, the featurizer reads the typing they kept; without, it types anew.
void expect_rdkit_crippen_columns(const std::vector<std::shared_ptr<RDKit::ROMol>>& molecules) {
  FeaturizerSpec alone, with_descriptors;
  alone.crippen_contributions = with_descriptors.crippen_contributions = true;
  with_descriptors.descriptors = {"CrippenMR", "CrippenClogP"};
  for (const auto& molecule : molecules) {
    const Matrix<float> expected = crippen_columns_by_rdkit(*molecule);
    for (const FeaturizerSpec& spec : {alone, with_descriptors}) {
      const RDKit::ROMol copy(*molecule);
      const Matrix<float> atoms = featurize(copy, spec).node_features;
      EXPECT_EQ(atoms.rightCols(2), expected) << RDKit::MolToSmiles(copy) << " with " << spec.descriptors.size()
                                              << " descriptors";
    }
  }
}

TEST(CrippenContributionsTest, FeaturizerColumnsAreThoseOfRdkitsAtomContributions) {
  expect_rdkit_crippen_columns(parse_all(kOddSmiles));
  for (const char* table : {"esol", "bbbp"}) {
    const std::filesystem::path path = dataset_csv(table);
    if (!std::filesystem::exists(path)) GTEST_SKIP() << missing_data_reason(path);
    expect_rdkit_crippen_columns(parse_all(table_smiles(path, 1000)));
  }
}

// 600 carbons and 1,202 hydrogens: RDKit's substructure search returns at most 1,000 matches, so
// its typing leaves 202 hydrogens to the catch-all type; the one-atom shortcut must not type them.
TEST(CrippenContributionsTest, MoleculesOverAThousandAtomsKeepRdkitsCutOfMatches) {
  const auto molecules = parse_all({std::string(600, 'C')});
  ASSERT_EQ(molecules.size(), 1U);
  expect_rdkit_crippen_columns(molecules);
  expect_rdkit_values_for_all(molecules);
}

TEST(CrippenContributionsTest, OnlyTheDescriptorsKeepTheTypingOnTheMolecule) {
  const std::shared_ptr<RDKit::ROMol> molecule = parse_smiles("CC(=O)Nc1ccc(O)cc1").molecule;
  ASSERT_TRUE(molecule);
  const auto fresh = detail::crippen_contributions(*molecule, KeepOnMolecule::no);
  EXPECT_NE(detail::crippen_contributions(*molecule, KeepOnMolecule::no), fresh);  // not kept: typed again
  DescriptorSet({"tpsa"}).compute(*molecule);
  EXPECT_NE(detail::crippen_contributions(*molecule, KeepOnMolecule::no), fresh);  // no Crippen descriptor
  DescriptorSet({"CrippenClogP"}).compute(*molecule);
  const auto kept = detail::crippen_contributions(*molecule, KeepOnMolecule::no);
  EXPECT_EQ(detail::crippen_contributions(*molecule, KeepOnMolecule::no), kept);
  EXPECT_EQ(kept->logp, fresh->logp);
  EXPECT_EQ(kept->refractivity, fresh->refractivity);
  EXPECT_EQ(kept->heavy_atom, fresh->heavy_atom);
}

}  // namespace
}  // namespace edgewise
