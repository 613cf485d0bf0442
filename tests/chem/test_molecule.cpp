// SMILES parsing outcomes, atom/bond featurization on hand-checked molecules, descriptors, and
// batches featurized in place against batches joined from per-molecule graphs.
#include <gtest/gtest.h>

#include <GraphMol/Descriptors/Crippen.h>
#include <GraphMol/Descriptors/MolSurf.h>
#include <GraphMol/ROMol.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/chem/molecule.hpp"
#include "support/shared_data.hpp"

namespace edgewise {
namespace {

using testing::dataset_csv;
using testing::missing_data_reason;

// Column offsets of the atom feature blocks for the default spec.
struct AtomColumns {
  FeaturizerSpec spec;
  Index element(int atomic_number) const {
    const auto it = std::find(spec.elements.begin(), spec.elements.end(), atomic_number);
    return it - spec.elements.begin();
  }
  Index degree(Index d) const { return static_cast<Index>(spec.elements.size()) + 1 + d; }
  Index charge(int c) const {
    const auto it = std::find(spec.formal_charges.begin(), spec.formal_charges.end(), c);
    return degree(0) + spec.max_degree + 2 + (it - spec.formal_charges.begin());
  }
  Index hydrogens(Index h) const {
    return charge(spec.formal_charges.front()) + static_cast<Index>(spec.formal_charges.size()) + 1 + 4 + h;
  }
  Index hybridization(Index slot) const { return hydrogens(0) + spec.max_hydrogens + 2 + slot; }
  Index aromatic() const { return hybridization(0) + 7; }
  Index in_ring() const { return aromatic() + 1; }
  Index mass() const { return aromatic() + 2; }
};

std::string repeated(const std::string& unit, int times) {
  std::string text;
  for (int i = 0; i < times; ++i) text += unit;
  return text;
}

MoleculeGraph featurize_smiles(const std::string& smiles, const FeaturizerSpec& spec = {}) {
  const SmilesResult parsed = parse_smiles(smiles, smiles_options(spec));
  EXPECT_TRUE(parsed.molecule) << smiles << ": " << parsed.error;
  return featurize(*parsed.molecule, spec);
}

TEST(SmilesTest, SyntaxErrorsReportRdkitsReason) {
  const SmilesResult r = parse_smiles("C1CC(");
  EXPECT_FALSE(r.molecule);
  EXPECT_NE(r.error.find("SMILES Parse Error"), std::string::npos) << r.error;
}

TEST(SmilesTest, RdkitsLogLinesBecomeTheReasonAndNeverReachStderr) {
  ::testing::internal::CaptureStderr();
  const SmilesResult syntax = parse_smiles("C1CC(");
  const SmilesResult valence = parse_smiles("CN(C)(C)(C)C");
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(printed, "");
  EXPECT_NE(syntax.error.find("SMILES Parse Error"), std::string::npos) << syntax.error;
  EXPECT_NE(valence.error.find("valence"), std::string::npos) << valence.error;
}

TEST(SmilesTest, RdkitsWarningsOnMoleculesItReadsGoToTheSink) {
  std::vector<std::string> lines;
  set_rdkit_warning_sink([&lines](std::string_view line) { lines.emplace_back(line); });
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(parse_smiles("[H]").molecule);
  EXPECT_TRUE(parse_smiles("CCO").molecule);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  set_rdkit_warning_sink({});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].starts_with("RDKit on '[H]': ")) << lines[0];
}

TEST(SmilesTest, SanitizationFailuresAreCaught) {
  const SmilesResult valence = parse_smiles("CN(C)(C)(C)C");
  EXPECT_FALSE(valence.molecule);
  EXPECT_NE(valence.error.find("valence"), std::string::npos) << valence.error;
  const SmilesResult kekulize = parse_smiles("c1cccc1");
  EXPECT_FALSE(kekulize.molecule);
  EXPECT_NE(kekulize.error.find("kekulize"), std::string::npos) << kekulize.error;
}

TEST(SmilesTest, EmptyInputIsAnError) {
  EXPECT_EQ(parse_smiles("").error, "empty SMILES");
  EXPECT_EQ(parse_smiles("   ").error, "empty SMILES");
}

TEST(SmilesTest, TrailingSpacesAreIgnored) { EXPECT_TRUE(parse_smiles("CCO ").molecule); }

TEST(FeaturizerTest, Benzene) {
  const AtomColumns col;
  const MoleculeGraph m = featurize_smiles("c1ccccc1");
  ASSERT_EQ(m.node_features.rows(), 6);
  EXPECT_EQ(m.node_features.cols(), col.spec.atom_dim());
  EXPECT_EQ(m.graph.num_edges(), 2 * 6 + 6);  // six bonds both ways, six self-loops
  for (Index a = 0; a < 6; ++a) {
    const auto row = m.node_features.row(a);
    EXPECT_EQ(row(col.element(6)), 1.0f);
    EXPECT_EQ(row(col.degree(2)), 1.0f);
    EXPECT_EQ(row(col.charge(0)), 1.0f);
    EXPECT_EQ(row(col.hydrogens(1)), 1.0f);
    EXPECT_EQ(row(col.hybridization(2)), 1.0f);  // SP2
    EXPECT_EQ(row(col.aromatic()), 1.0f);
    EXPECT_EQ(row(col.in_ring()), 1.0f);
    EXPECT_NEAR(row(col.mass()), 0.12011f, 1e-5f);
    // one element, degree, charge, chirality, hydrogen count and hybridization each, plus two flags
    EXPECT_NEAR(row.sum() - row(col.mass()), 8.0f, 1e-6f);
  }
  for (Index e = 0; e < 12; ++e) {
    EXPECT_EQ(m.edge_features(e, 3), 1.0f) << "aromatic";
    EXPECT_EQ(m.edge_features(e, 4), 1.0f) << "conjugated";
    EXPECT_EQ(m.edge_features(e, 5), 1.0f) << "in ring";
    EXPECT_EQ(m.edge_features(e, 12), 0.0f) << "not a self-loop";
  }
  for (Index e = 12; e < 18; ++e) {
    EXPECT_EQ(m.edge_features(e, 12), 1.0f);
    EXPECT_EQ(m.graph.source(e), m.graph.target(e));
  }
}

TEST(FeaturizerTest, AceticAcid) {
  const AtomColumns col;
  const MoleculeGraph m = featurize_smiles("CC(=O)O");
  ASSERT_EQ(m.node_features.rows(), 4);
  EXPECT_EQ(m.node_features(0, col.hydrogens(3)), 1.0f);       // methyl carbon
  EXPECT_EQ(m.node_features(1, col.degree(3)), 1.0f);          // carboxyl carbon
  EXPECT_EQ(m.node_features(1, col.hybridization(2)), 1.0f);   // SP2
  EXPECT_EQ(m.node_features(2, col.element(8)), 1.0f);
  EXPECT_EQ(m.node_features(3, col.hydrogens(1)), 1.0f);       // hydroxyl oxygen
  EXPECT_EQ(m.node_features(0, col.in_ring()), 0.0f);
  // bond 1 is C=O: its two directed edges are edges 2 and 3
  EXPECT_EQ(m.edge_features(2, 1), 1.0f);
  EXPECT_EQ(m.edge_features(3, 1), 1.0f);
  EXPECT_EQ(m.graph.source(2), m.graph.target(3));
  EXPECT_EQ(m.edge_features(0, 0), 1.0f);  // C-C single
}

TEST(FeaturizerTest, SaltWithChargesAndNoBonds) {
  const AtomColumns col;
  const MoleculeGraph m = featurize_smiles("[Na+].[Cl-]");
  ASSERT_EQ(m.node_features.rows(), 2);
  EXPECT_EQ(m.graph.num_edges(), 2);  // self-loops only
  EXPECT_EQ(m.node_features(0, col.element(11)), 1.0f);
  EXPECT_EQ(m.node_features(0, col.charge(1)), 1.0f);
  EXPECT_EQ(m.node_features(1, col.element(17)), 1.0f);
  EXPECT_EQ(m.node_features(1, col.charge(-1)), 1.0f);
  EXPECT_EQ(m.node_features(0, col.degree(0)), 1.0f);
}

TEST(FeaturizerTest, SingleAtomAndUnknownElement) {
  const AtomColumns col;
  const MoleculeGraph m = featurize_smiles("[Pt]");
  ASSERT_EQ(m.node_features.rows(), 1);
  EXPECT_EQ(m.graph.num_edges(), 1);
  EXPECT_EQ(m.node_features(0, static_cast<Index>(col.spec.elements.size())), 1.0f);  // "other"
}

TEST(FeaturizerTest, ExplicitHydrogensAndChirality) {
  const MoleculeGraph m = featurize_smiles("[H][C@@](F)(Cl)Br");
  EXPECT_EQ(m.node_features.rows(), 4);  // the explicit hydrogen becomes a hydrogen count
  const AtomColumns col;
  const Index chirality = col.charge(col.spec.formal_charges.front()) + static_cast<Index>(col.spec.formal_charges.size()) + 1;
  EXPECT_EQ(m.node_features.row(0).segment(chirality + 1, 2).sum(), 1.0f);  // CW or CCW
}

// Bit-for-bit equality of two float matrices of the same shape.
void expect_same_bits(const Matrix<float>& a, const Matrix<float>& b, const std::string& what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<std::size_t>(a.size())), 0) << what;
}

TEST(DescriptorTest, CalculatorGivesFeaturizesDescriptors) {
  FeaturizerSpec spec;
  spec.descriptors = {"CrippenClogP", "tpsa", "NumRotatableBonds", "chi2v"};
  const DescriptorCalculator calculator(spec.descriptors);
  ASSERT_EQ(calculator.size(), 4);
  for (const char* smiles : {"CC(=O)Nc1ccc(O)cc1", "[Na+].[Cl-]", "C"}) {
    const SmilesResult parsed = parse_smiles(smiles);
    ASSERT_TRUE(parsed.molecule) << smiles;
    const MoleculeGraph alone = featurize(*parsed.molecule, spec);
    const MoleculeGraph shared = featurize(*parsed.molecule, spec, calculator);
    expect_same_bits(shared.graph_features, alone.graph_features, smiles);
    Matrix<float> row(1, 4);
    calculator.compute(*parsed.molecule, row.data());
    expect_same_bits(row, alone.graph_features, smiles);
  }
}

TEST(DescriptorTest, RawValuesAreRdkitsAndLogCompressedOnesKeepTheOlderForm) {
  const std::vector<std::string> names = {"CrippenClogP", "tpsa"};
  const SmilesResult parsed = parse_smiles("CC(=O)Nc1ccc(O)cc1");
  ASSERT_TRUE(parsed.molecule);
  double logp = 0, refractivity = 0;
  RDKit::Descriptors::calcCrippenDescriptors(*parsed.molecule, logp, refractivity);
  const double tpsa = RDKit::Descriptors::calcTPSA(*parsed.molecule);
  float raw[2], compressed[2];
  DescriptorCalculator(names, DescriptorValues::raw).compute(*parsed.molecule, raw);
  DescriptorCalculator(names, DescriptorValues::log_compressed).compute(*parsed.molecule, compressed);
  EXPECT_FLOAT_EQ(raw[0], static_cast<float>(logp));
  EXPECT_FLOAT_EQ(raw[1], static_cast<float>(tpsa));
  EXPECT_FLOAT_EQ(compressed[0], static_cast<float>(std::copysign(std::log1p(std::abs(logp)), logp)));
  EXPECT_FLOAT_EQ(compressed[1], static_cast<float>(std::log1p(tpsa)));
}

TEST(DescriptorTest, SpecJsonKeepsTheFormAndOlderFilesMeanLogCompressed) {
  FeaturizerSpec spec;
  EXPECT_EQ(spec.descriptor_values, DescriptorValues::raw);
  spec.descriptor_values = DescriptorValues::log_compressed;
  EXPECT_EQ(nlohmann::json(spec).get<FeaturizerSpec>().descriptor_values, DescriptorValues::log_compressed);
  nlohmann::json older = FeaturizerSpec{};
  EXPECT_EQ(older.get<FeaturizerSpec>().descriptor_values, DescriptorValues::raw);
  older.erase("descriptor_values");
  EXPECT_EQ(older.get<FeaturizerSpec>().descriptor_values, DescriptorValues::log_compressed);
  older["descriptor_values"] = "squared";
  EXPECT_THROW(older.get<FeaturizerSpec>(), ArgumentError);
}

TEST(DescriptorTest, UnknownNamesAreRefused) {
  EXPECT_THROW(DescriptorCalculator({"tpsa", "NoSuchDescriptor"}), ArgumentError);
  EXPECT_EQ(DescriptorCalculator({}).size(), 0);
}

MoleculeGraph featurize_with_crippen(const std::string& smiles) {
  FeaturizerSpec spec;
  spec.crippen_contributions = true;
  return featurize_smiles(smiles, spec);
}

TEST(CrippenFeatureTest, MethaneCarriesItsHydrogensContributions) {
  // Wildman and Crippen's table: carbon type C1 has logP 0.1441 and MR 2.503, hydrocarbon hydrogen
  // H1 has logP 0.1230 and MR 1.057; methane is one C1 and four H1.
  const MoleculeGraph methane = featurize_with_crippen("C");
  const Index columns = methane.node_features.cols();
  EXPECT_EQ(columns, FeaturizerSpec{}.atom_dim() + 2);
  EXPECT_NEAR(methane.node_features(0, columns - 2), 0.1441 + 4 * 0.1230, 1e-5);
  EXPECT_NEAR(methane.node_features(0, columns - 1), (2.503 + 4 * 1.057) / 10, 1e-5);
}

TEST(CrippenFeatureTest, AtomsSumToRdkitsMoleculeValuesAndOtherColumnsStay) {
  for (const char* smiles : {"CC(=O)Nc1ccc(O)cc1", "[Na+].[Cl-]", "[H][C@@](F)(Cl)Br", "OC(=O)C[NH3+]"}) {
    SCOPED_TRACE(smiles);
    const MoleculeGraph with = featurize_with_crippen(smiles);
    const MoleculeGraph without = featurize_smiles(smiles);
    const Index plain = without.node_features.cols();
    EXPECT_EQ(with.node_features.leftCols(plain), without.node_features);
    EXPECT_EQ(with.edge_features, without.edge_features);
    double logp = 0, refractivity = 0;
    RDKit::Descriptors::calcCrippenDescriptors(*parse_smiles(smiles).molecule, logp, refractivity);
    EXPECT_NEAR(with.node_features.col(plain).cast<double>().sum(), logp, 1e-4);
    EXPECT_NEAR(with.node_features.col(plain + 1).cast<double>().sum(), refractivity / 10, 1e-4);
  }
}

TEST(CrippenFeatureTest, SpecJsonRoundTripsAndOlderFilesMeanOff) {
  FeaturizerSpec spec;
  spec.crippen_contributions = true;
  EXPECT_TRUE(nlohmann::json(spec).get<FeaturizerSpec>().crippen_contributions);
  nlohmann::json older = FeaturizerSpec{};
  older.erase("crippen_contributions");
  spec = older.get<FeaturizerSpec>();
  EXPECT_FALSE(spec.crippen_contributions);
  EXPECT_EQ(spec.atom_dim(), FeaturizerSpec{}.atom_dim());
}

// Molecules of every shape the batcher must place: rings, charges and salts, single atoms, explicit
// hydrogens and stereo bonds.
const std::vector<std::string> kBatchSmiles = {"c1ccccc1", "CC(=O)O", "[Na+].[Cl-]", "[Pt]", "C",
                                               "[H][C@@](F)(Cl)Br", "C/C=C/C", "OCC3OC(OCC2OC(OC(C#N)c1ccccc1)C(O)C(O)C2O)C(O)C(O)C3O"};

void expect_batcher_matches_assemble(const FeaturizerSpec& spec) {
  std::vector<std::shared_ptr<RDKit::ROMol>> parsed;
  for (const std::string& smiles : kBatchSmiles) parsed.push_back(parse_smiles(smiles).molecule);
  MoleculeBatcher batcher(spec);
  const DescriptorCalculator calculator(spec.descriptors);
  FeaturedBatch in_place;
  // Rows rewritten for other molecules, batches of decreasing, then increasing size through one
  // batcher and one batch: every buffer is reused.
  std::vector<MoleculeRows> rows(kBatchSmiles.size());
  for (const std::size_t count : {kBatchSmiles.size(), std::size_t{3}, std::size_t{1}, kBatchSmiles.size()}) {
    SCOPED_TRACE("batch of " + std::to_string(count));
    std::vector<MoleculeGraph> graphs;
    std::vector<const FeaturedGraph*> graph_pointers;
    std::vector<const MoleculeRows*> molecules;
    Matrix<float> descriptors(static_cast<Index>(count), spec.graph_dim());
    std::vector<const float*> descriptor_rows;
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t m = (i * 5 + count) % parsed.size();
      graphs.push_back(featurize(*parsed[m], spec));
      calculator.compute(*parsed[m], descriptors.row(static_cast<Index>(i)).data());
      descriptor_rows.push_back(descriptors.row(static_cast<Index>(i)).data());
      rows[i].write(*parsed[m], spec);
      molecules.push_back(&rows[i]);
    }
    for (const MoleculeGraph& graph : graphs) graph_pointers.push_back(&graph);
    FeaturedBatch joined;
    joined.assemble(graph_pointers);
    batcher.assemble(molecules, descriptor_rows, in_place);

    expect_same_bits(in_place.node_features, joined.node_features, "node features");
    expect_same_bits(in_place.edge_features, joined.edge_features, "edge features");
    if (spec.graph_dim() > 0) expect_same_bits(in_place.graph_features, joined.graph_features, "graph features");
    EXPECT_EQ(in_place.graph_features.cols(), spec.graph_dim());
    EXPECT_EQ(in_place.batch.graph().edge_pairs(), joined.batch.graph().edge_pairs());
    EXPECT_TRUE(std::ranges::equal(in_place.batch.graph().edge_positions(), joined.batch.graph().edge_positions()));
    EXPECT_TRUE(std::ranges::equal(in_place.batch.node_offsets(), joined.batch.node_offsets()));
    EXPECT_TRUE(std::ranges::equal(in_place.batch.edge_offsets(), joined.batch.edge_offsets()));
    EXPECT_TRUE(std::ranges::equal(in_place.batch.node_graph(), joined.batch.node_graph()));
  }
}

TEST(MoleculeBatcherTest, SameBatchAsJoiningFeaturizedGraphs) { expect_batcher_matches_assemble(FeaturizerSpec{}); }

TEST(MoleculeBatcherTest, WithDescriptorsAndWithoutSelfLoops) {
  FeaturizerSpec spec;
  spec.self_loops = false;  // single atoms then have no edges at all
  spec.descriptors = {"tpsa", "NumHBA", "kappa2"};
  expect_batcher_matches_assemble(spec);
}

TEST(MoleculeBatcherTest, WithCrippenContributions) {
  FeaturizerSpec spec;
  spec.crippen_contributions = true;
  expect_batcher_matches_assemble(spec);
}

TEST(MoleculeBatcherTest, RowsOfAnotherSpecAreRefused) {
  const FeaturizerSpec narrow;
  FeaturizerSpec wide;
  wide.crippen_contributions = true;  // two more atom columns
  MoleculeRows rows;
  rows.write(*parse_smiles("CCO").molecule, narrow);
  MoleculeBatcher batcher(wide);
  FeaturedBatch batch;
  const std::vector<const MoleculeRows*> molecules = {&rows};
  EXPECT_THROW(batcher.assemble(molecules, {}, batch), ArgumentError);
}

// Molecules whose stereochemistry, charges, isotopes, explicit hydrogens and CXSMILES exercise every
// step parse_smiles runs in place of RDKit's SmilesToMol.
const std::vector<std::string> kStereoSmiles = {
    "C[C@H](O)CC", "C[C@@H](C)C", "F/C=C/[C@@H](O)C", "C/C=C\\C", "CC=CC", "C1CC[C@H](O)CC1",
    "C[C@H]1CC[C@@H](C)CC1", "[H][C@@](F)(Cl)Br", "[2H]C([2H])([2H])O", "[13CH3][N+](C)(C)C.[Cl-]",
    "OC[C@H]1OC(O)[C@H](O)[C@@H](O)[C@@H]1O", "C/C=C/C=C/C(=O)O", "F/C(Cl)=C(/F)Cl", "C=C1CCC(=C)CC1",
    "c1ccc2c(c1)[nH]c1ccccc12", "[O-][n+]1ccccc1", "C[S@](=O)c1ccccc1", "CC(C)(C)[Si](C)(C)O",
    "CC(C)C |$;;;_R1$|", "C[C@H](N)C(=O)O |&1:1|", "N[C@@H](C)C(=O)N[C@@H](CC(C)C)C(=O)O",
};

// Both featurizer forms the library uses: the default, and every descriptor with Crippen columns.
std::vector<FeaturizerSpec> featurizer_forms() {
  FeaturizerSpec full;
  full.descriptors = available_descriptors();
  full.crippen_contributions = true;
  return {FeaturizerSpec{}, full};
}

void expect_same_graph(const MoleculeGraph& actual, const MoleculeGraph& expected) {
  EXPECT_EQ(actual.node_features, expected.node_features);
  EXPECT_EQ(actual.edge_features, expected.edge_features);
  EXPECT_EQ(actual.graph_features, expected.graph_features);
  EXPECT_EQ(actual.bond_of_edge, expected.bond_of_edge);
}

// parse_smiles runs SmilesToMol's steps itself, flagging possible stereocenters only when a
// descriptor reads them; every featurizer must see the molecule SmilesToMol gives.
void expect_parsed_as_rdkit_does(const std::string& smiles) {
  SCOPED_TRACE(smiles);
  const std::unique_ptr<RDKit::ROMol> reference(RDKit::SmilesToMol(smiles));
  ASSERT_TRUE(reference);
  for (const FeaturizerSpec& spec : featurizer_forms()) {
    const SmilesResult parsed = parse_smiles(smiles, smiles_options(spec));
    ASSERT_TRUE(parsed.molecule) << parsed.error;
    EXPECT_EQ(RDKit::MolToSmiles(*parsed.molecule), RDKit::MolToSmiles(*reference));
    expect_same_graph(featurize(*parsed.molecule, spec), featurize(*reference, spec));
  }
}

TEST(SmilesTest, MoleculesAreThoseOfRdkitsSmilesToMol) {
  for (const std::string& smiles : kStereoSmiles) expect_parsed_as_rdkit_does(smiles);
}

TEST(SmilesTest, BbbpMoleculesAreThoseOfRdkitsSmilesToMol) {
  const std::filesystem::path path = dataset_csv("bbbp");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << missing_data_reason(path);
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // num,name,p_np,smiles
  while (std::getline(in, line)) {
    const std::string smiles = line.substr(line.rfind(',') + 1);
    if (parse_smiles(smiles).molecule) expect_parsed_as_rdkit_does(smiles);
  }
}

TEST(SmilesTest, StereocenterDescriptorsReadTheFlagsTheirOptionsAskFor) {
  FeaturizerSpec spec;
  EXPECT_FALSE(smiles_options(spec).flag_possible_stereocenters);
  spec.descriptors = {"NumAtomStereoCenters"};
  EXPECT_TRUE(smiles_options(spec).flag_possible_stereocenters);
  spec.descriptors = {"tpsa", "NumUnspecifiedAtomStereoCenters"};
  EXPECT_TRUE(smiles_options(spec).flag_possible_stereocenters);
  EXPECT_EQ(smiles_options(spec, 7).max_atoms, 7);
  const MoleculeGraph graph = featurize(*parse_smiles("CC(O)CC", smiles_options(spec)).molecule, spec);
  EXPECT_EQ(graph.graph_features(0, 1), 1.0f);  // one possible, unspecified stereocenter
}

TEST(SmilesTest, EveryRdkitFailureIsTheMoleculesError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"C |xyz", "failure parsing CXSMILES extensions"},   // SmilesParseException from the CXSMILES parser
      {"CC |(", "bad lexical cast"},                       // Boost, inside the CXSMILES parser
      {"C" + repeated("(C)", 200), "getExplicitValence"},  // RDKit's invariant (Invar::Invariant)
      {"[C+999]", ""},
  };
  for (const auto& [smiles, reason] : cases) {
    SCOPED_TRACE(smiles.substr(0, 40));
    const SmilesResult result = parse_smiles(smiles);
    EXPECT_FALSE(result.molecule);
    EXPECT_FALSE(result.error.empty());
    EXPECT_NE(result.error.find(reason), std::string::npos) << result.error;
  }
}

TEST(SmilesTest, MoleculesOverTheAtomLimitAreRefusedBeforeSanitizing) {
  const std::string chain = repeated("C", 1001);
  const SmilesResult refused = parse_smiles(chain);
  EXPECT_FALSE(refused.molecule);
  EXPECT_EQ(refused.error, "molecule has 1001 atoms, more than the limit of 1000");
  EXPECT_FALSE(parse_smiles("CCCC", {.max_atoms = 3}).molecule);
  EXPECT_TRUE(parse_smiles("CCC", {.max_atoms = 3}).molecule);
  EXPECT_EQ(parse_smiles("[H]C([H])([H])[H]", {.max_atoms = 3}).error,
            "molecule has 5 atoms, more than the limit of 3");  // hydrogens as written count
  EXPECT_EQ(parse_smiles(chain, {.max_atoms = 0, .flag_possible_stereocenters = false}).molecule->getNumAtoms(), 1001u);
}

// Without stereocenter descriptors a long chain costs time linear in its atoms: 20,000 atoms took
// minutes through SmilesToMol and take well under a second here.
TEST(SmilesTest, LongChainsWithoutStereoMarksParseInLinearTime) {
  const SmilesResult parsed = parse_smiles(repeated("C", 20000), smiles_options(FeaturizerSpec{}, 0));
  ASSERT_TRUE(parsed.molecule) << parsed.error;
  EXPECT_EQ(parsed.molecule->getNumAtoms(), 20000u);
}

}  // namespace
}  // namespace edgewise
