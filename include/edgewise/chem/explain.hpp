/// \file
/// Attention maps drawn on molecules: which atoms and bonds a model attends to.
#pragma once

#include <string>
#include <vector>

#include "edgewise/core/tensor.hpp"
#include "edgewise/chem/molecule.hpp"

namespace edgewise {

/// Weights for drawing a molecule shaded by attention.
struct AttentionShading {
  std::vector<double> atoms;  ///< per RDKit atom index
  std::vector<double> bonds;  ///< per RDKit bond index
};

/// From attention weights alpha [E, H] on a molecule's edges (graph edge order): the attention atom j
/// receives is sum over its edges j -> i, self-loop included, of alpha averaged over heads (how much
/// the molecule attends to j); a bond's weight is the mean of its two directed edges.
AttentionShading attention_received(const MoleculeGraph& molecule, const Matrix<float>& alpha);

/// An SVG of the molecule (RDKit's MolDraw2DSVG) with atoms and bonds filled from pale to deep red
/// by weight relative to the largest, a color bar with its scale below, and `title` as the legend.
std::string attention_svg(const RDKit::ROMol& molecule, const AttentionShading& shading, const std::string& title,
                          int width = 520, int height = 460);

}  // namespace edgewise
