// Featurized molecules as the processes of an mpirun exchange them (distributed/molecules): every
// graph, feature and bond index back as written, the reasons of unreadable rows too, and bytes that
// end inside a molecule refused. One process featurizes every row itself.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/chem/molecule.hpp"
#include "edgewise/distributed/molecules/molecule_exchange.hpp"

namespace edgewise {
namespace {

using FeaturizedRow = FeaturizedMolecule;

std::vector<FeaturizedRow> featurized(const std::vector<std::string>& smiles) {
  FeaturizerSpec spec;
  spec.descriptors = {"CrippenClogP", "tpsa"};
  spec.crippen_contributions = true;
  std::vector<FeaturizedRow> rows;
  for (const std::string& text : smiles) {
    FeaturizedRow& row = rows.emplace_back();
    const SmilesResult parsed = parse_smiles(text);
    if (parsed.molecule) {
      row.graph = featurize(*parsed.molecule, spec);
    } else {
      row.error = parsed.error;
    }
  }
  return rows;
}

const std::vector<std::string> kSmiles = {"CCO", "c1ccccc1O", "C1CC", "[Na+].[Cl-]", "CC(=O)N[C@@H](C)C(=O)O", "C"};

TEST(MoleculeExchangeTest, RowsComeBackAsWritten) {
  const std::vector<FeaturizedRow> rows = featurized(kSmiles);
  std::string bytes;
  distributed::append_rows(bytes, rows);
  const std::vector<FeaturizedRow> back = distributed::rows_from_bytes(bytes);
  ASSERT_EQ(back.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(kSmiles[i]);
    ASSERT_EQ(back[i].graph.has_value(), rows[i].graph.has_value());
    EXPECT_EQ(back[i].error, rows[i].error);
    if (!rows[i].graph) continue;
    const MoleculeGraph &expected = *rows[i].graph, &actual = *back[i].graph;
    EXPECT_EQ(actual.graph.num_nodes(), expected.graph.num_nodes());
    EXPECT_EQ(actual.graph.edge_pairs(), expected.graph.edge_pairs());
    EXPECT_TRUE(std::ranges::equal(actual.graph.in_offsets(), expected.graph.in_offsets()));
    EXPECT_TRUE(std::ranges::equal(actual.graph.edge_positions(), expected.graph.edge_positions()));
    EXPECT_EQ(actual.node_features, expected.node_features);
    EXPECT_EQ(actual.edge_features, expected.edge_features);
    EXPECT_EQ(actual.graph_features, expected.graph_features);
    EXPECT_EQ(actual.bond_of_edge, expected.bond_of_edge);
  }
  EXPECT_FALSE(back[2].error.empty()) << "C1CC has an unclosed ring";
}

TEST(MoleculeExchangeTest, BytesThatEndInsideAMoleculeAreRefused) {
  std::string bytes;
  distributed::append_rows(bytes, featurized({"CCO"}));
  for (const std::size_t cut : {std::size_t{1}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_THROW(distributed::rows_from_bytes(std::string_view(bytes).substr(0, cut)), Error) << "cut at " << cut;
  std::string huge = bytes;
  const std::int64_t atoms = std::int64_t{1} << 40;  // the first number after the row's flag
  std::memcpy(huge.data() + 1, &atoms, sizeof atoms);
  EXPECT_THROW(distributed::rows_from_bytes(huge), Error) << "no allocation for a size the bytes cannot hold";
}

TEST(MoleculeExchangeTest, OneProcessFeaturizesEveryRowItself) {
  std::vector<std::pair<std::size_t, std::size_t>> asked;
  const auto at = [](std::size_t row) { return kSmiles.begin() + static_cast<std::ptrdiff_t>(row); };
  const RowFeaturizer featurize = [&](std::size_t first, std::size_t last) {
    asked.emplace_back(first, last);
    return featurized({at(first), at(last)});
  };
  const std::vector<FeaturizedRow> rows = distributed::featurize_shared(kSmiles.size(), featurize);
  EXPECT_EQ(asked, (std::vector<std::pair<std::size_t, std::size_t>>{{0, kSmiles.size()}}));
  EXPECT_EQ(rows.size(), kSmiles.size());
}

}  // namespace
}  // namespace edgewise
