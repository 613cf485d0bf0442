// The molecule stream: SmilesFeaturizer's rows and descriptor row are featurize()'s, bit for bit,
// with one row's buffers reused for molecules of other sizes; its graph form is featurize()'s; every
// SMILES RDKit refuses, and one over the atom limit, becomes that row's error.
#include "edgewise/chem/molecule_stream.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "edgewise/graph/graph.hpp"

namespace edgewise {
namespace {

const std::vector<std::string> kSmiles = {"OCC3OC(OCC2OC(OC(C#N)c1ccccc1)C(O)C(O)C2O)C(O)C(O)C3O", "C", "[Na+].[Cl-]",
                                          "c1ccccc1", "[H][C@@](F)(Cl)Br", "C/C=C/C", "CC(=O)O"};

FeaturizerSpec spec_with_descriptors() {
  FeaturizerSpec spec;
  spec.descriptors = available_descriptors();  // as the default model has them
  spec.crippen_contributions = true;
  return spec;
}

bool same_bits(const float* a, const float* b, Index count) {
  return std::memcmp(a, b, sizeof(float) * static_cast<std::size_t>(count)) == 0;
}

TEST(MoleculeStreamTest, RowsAreFeaturizesGraphBitForBit) {
  for (const FeaturizerSpec& spec : {FeaturizerSpec{}, spec_with_descriptors()}) {
    const SmilesFeaturizer featurizer(spec);
    SmilesRow row;  // one row for every molecule, largest first: its buffers are rewritten
    for (const std::string& smiles : kSmiles) {
      SCOPED_TRACE(smiles);
      row.smiles = smiles;
      ASSERT_TRUE(featurizer.featurize(row)) << row.error;
      EXPECT_TRUE(row.valid);
      const MoleculeGraph graph = featurize(*parse_smiles(smiles).molecule, spec);
      ASSERT_EQ(row.rows.atoms, graph.node_features.rows());
      ASSERT_EQ(row.rows.edges, graph.edge_features.rows());
      ASSERT_EQ(row.rows.node_rows.size(), static_cast<std::size_t>(graph.node_features.size()));
      ASSERT_EQ(row.rows.edge_rows.size(), static_cast<std::size_t>(graph.edge_features.size()));
      EXPECT_TRUE(same_bits(row.rows.node_rows.data(), graph.node_features.data(), graph.node_features.size()));
      EXPECT_TRUE(same_bits(row.rows.edge_rows.data(), graph.edge_features.data(), graph.edge_features.size()));
      std::vector<std::pair<Index, Index>> edges;
      for (std::size_t e = 0; e < row.rows.sources.size(); ++e)
        edges.emplace_back(row.rows.sources[e], row.rows.targets[e]);
      EXPECT_EQ(edges, graph.graph.edge_pairs());
      ASSERT_EQ(static_cast<Index>(row.descriptors.size()), spec.graph_dim());
      if (spec.graph_dim() > 0) {
        EXPECT_TRUE(same_bits(row.descriptors.data(), graph.graph_features.data(), spec.graph_dim()));
      }

      const FeaturizedMolecule whole = featurizer.graph(smiles);
      ASSERT_TRUE(whole.graph.has_value()) << whole.error;
      EXPECT_EQ(whole.graph->graph.edge_pairs(), graph.graph.edge_pairs());
      EXPECT_EQ(whole.graph->bond_of_edge, graph.bond_of_edge);
      EXPECT_TRUE(whole.graph->node_features == graph.node_features);
      EXPECT_TRUE(whole.graph->edge_features == graph.edge_features);
      EXPECT_TRUE(whole.graph->graph_features == graph.graph_features);
    }
  }
}

TEST(MoleculeStreamTest, EveryRefusedSmilesIsThatRowsError) {
  const SmilesFeaturizer featurizer(spec_with_descriptors(), 10);
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"C1CC", "unclosed ring"}, {"c1cccc1", "kekulize"}, {"", ""}, {"CCCCCCCCCCCC", "atoms"}};
  SmilesRow row;
  for (const auto& [smiles, reason] : refused) {
    SCOPED_TRACE(smiles);
    row.smiles = "CCO";
    ASSERT_TRUE(featurizer.featurize(row));  // a valid row first: the refused one must not keep it
    row.smiles = smiles;
    EXPECT_FALSE(featurizer.featurize(row));
    EXPECT_FALSE(row.valid);
    EXPECT_FALSE(row.error.empty());
    EXPECT_NE(row.error.find(reason), std::string::npos) << row.error;
    const FeaturizedMolecule whole = featurizer.graph(smiles);
    EXPECT_FALSE(whole.graph.has_value());
    EXPECT_NE(whole.error.find(reason), std::string::npos) << whole.error;
  }
}

}  // namespace
}  // namespace edgewise
