// Attention received per atom and bond, and the SVG drawing with its legend.
#include <gtest/gtest.h>

#include "edgewise/core/error.hpp"
#include "edgewise/chem/explain.hpp"

namespace edgewise {
namespace {

TEST(ExplainTest, AttentionReceivedSumsOutgoingWeights) {
  // Ethanol CCO: bonds 0 (C0-C1) and 1 (C1-O2) give edges 0..3, then self-loops 4..6.
  const SmilesResult parsed = parse_smiles("CCO");
  const MoleculeGraph m = featurize(*parsed.molecule, FeaturizerSpec{});
  Matrix<float> alpha(7, 2);
  // Two heads; each row's mean is the value listed.
  const float mean[7] = {0.2f, 0.4f, 0.1f, 0.3f, 0.8f, 0.5f, 0.7f};
  for (Index e = 0; e < 7; ++e) alpha.row(e) << mean[e] - 0.05f, mean[e] + 0.05f;
  const AttentionShading s = attention_received(m, alpha);
  ASSERT_EQ(s.atoms.size(), 3u);
  ASSERT_EQ(s.bonds.size(), 2u);
  EXPECT_NEAR(s.atoms[0], 0.2 + 0.8, 1e-6);        // edge 0 (C0 -> C1) and its self-loop
  EXPECT_NEAR(s.atoms[1], 0.4 + 0.1 + 0.5, 1e-6);  // edges 1 (C1 -> C0), 2 (C1 -> O2), self-loop
  EXPECT_NEAR(s.atoms[2], 0.3 + 0.7, 1e-6);
  EXPECT_NEAR(s.bonds[0], 0.3, 1e-6);
  EXPECT_NEAR(s.bonds[1], 0.2, 1e-6);
}

TEST(ExplainTest, SvgHasTheMoleculeTheTitleAndTheLegend) {
  const SmilesResult parsed = parse_smiles("c1ccccc1O");
  const MoleculeGraph m = featurize(*parsed.molecule, FeaturizerSpec{});
  Matrix<float> alpha = Matrix<float>::Constant(m.graph.num_edges(), 4, 0.25f);
  const std::string svg = attention_svg(*parsed.molecule, attention_received(m, alpha), "phenol");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("edgewise-ramp"), std::string::npos);
  EXPECT_NE(svg.find("attention received"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("fill:#CC14"), std::string::npos) << "the most attended atom gets the deepest colour";
  EXPECT_THROW(attention_received(m, Matrix<float>::Zero(3, 4)), ArgumentError);
}

}  // namespace
}  // namespace edgewise
