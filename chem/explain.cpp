#include "edgewise/chem/explain.hpp"

#include <GraphMol/MolDraw2D/MolDraw2DSVG.h>
#include <GraphMol/ROMol.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

constexpr int kLegendHeight = 60;

struct Rgb {
  double r, g, b;
};

// Linear ramp from pale yellow (weight 0) to deep red (weight 1).
Rgb ramp(double t) {
  constexpr Rgb low{1.0, 0.97, 0.80}, high{0.80, 0.08, 0.10};
  t = std::clamp(t, 0.0, 1.0);
  return {low.r + t * (high.r - low.r), low.g + t * (high.g - low.g), low.b + t * (high.b - low.b)};
}

std::string hex(const Rgb& c) {
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", static_cast<int>(c.r * 255 + 0.5), static_cast<int>(c.g * 255 + 0.5),
                static_cast<int>(c.b * 255 + 0.5));
  return text;
}

std::map<int, RDKit::DrawColour> colours(const std::vector<double>& weights, double maximum) {
  std::map<int, RDKit::DrawColour> map;
  for (std::size_t k = 0; k < weights.size(); ++k) {
    const Rgb c = ramp(maximum > 0 ? weights[k] / maximum : 0.0);
    map[static_cast<int>(k)] = RDKit::DrawColour(c.r, c.g, c.b);
  }
  return map;
}

std::string legend_svg(int width, int height, double maximum) {
  const int x0 = 40, x1 = width - 40, y = height - kLegendHeight + 12;
  std::string svg = "<defs><linearGradient id='edgewise-ramp'>";
  for (const double t : {0.0, 0.5, 1.0})
    svg += "<stop offset='" + std::to_string(t) + "' stop-color='" + hex(ramp(t)) + "'/>";
  svg += "</linearGradient></defs>";
  svg += "<rect x='" + std::to_string(x0) + "' y='" + std::to_string(y) + "' width='" + std::to_string(x1 - x0) +
         "' height='14' fill='url(#edgewise-ramp)' stroke='#444'/>";
  char high[32];
  std::snprintf(high, sizeof high, "%.3g", maximum);
  const auto label = [&](int x, const std::string& anchor, const std::string& text) {
    return "<text x='" + std::to_string(x) + "' y='" + std::to_string(y + 30) + "' font-family='sans-serif' font-size='12' text-anchor='" +
           anchor + "'>" + text + "</text>";
  };
  svg += label(x0, "start", "0");
  svg += label((x0 + x1) / 2, "middle", "attention received (last layer, mean over heads)");
  svg += label(x1, "end", high);
  return svg;
}

}  // namespace

AttentionShading attention_received(const MoleculeGraph& molecule, const Matrix<float>& alpha) {
  const Graph& g = molecule.graph;
  if (alpha.rows() != g.num_edges()) throw ArgumentError("attention_received: alpha must have one row per edge");
  AttentionShading shading;
  shading.atoms.assign(static_cast<std::size_t>(g.num_nodes()), 0.0);
  Index bonds = 0;
  for (const Index b : molecule.bond_of_edge) bonds = std::max(bonds, b + 1);
  shading.bonds.assign(static_cast<std::size_t>(bonds), 0.0);
  for (Index e = 0; e < g.num_edges(); ++e) {
    const double weight = alpha.row(e).cast<double>().mean();
    shading.atoms[g.source(e)] += weight;
    if (molecule.bond_of_edge[e] >= 0) shading.bonds[molecule.bond_of_edge[e]] += weight / 2;
  }
  return shading;
}

std::string attention_svg(const RDKit::ROMol& molecule, const AttentionShading& shading, const std::string& title,
                          int width, int height) {
  const double maximum = std::max(shading.atoms.empty() ? 0.0 : *std::max_element(shading.atoms.begin(), shading.atoms.end()),
                                  shading.bonds.empty() ? 0.0 : *std::max_element(shading.bonds.begin(), shading.bonds.end()));
  std::vector<int> atoms(shading.atoms.size()), bonds(shading.bonds.size());
  for (std::size_t k = 0; k < atoms.size(); ++k) atoms[k] = static_cast<int>(k);
  for (std::size_t k = 0; k < bonds.size(); ++k) bonds[k] = static_cast<int>(k);
  const auto atom_colours = colours(shading.atoms, maximum);
  const auto bond_colours = colours(shading.bonds, maximum);

  RDKit::MolDraw2DSVG drawer(width, height, width, height - kLegendHeight);
  drawer.drawOptions().fillHighlights = true;
  drawer.drawOptions().continuousHighlight = true;
  drawer.drawMolecule(molecule, title, &atoms, &bonds, &atom_colours, &bond_colours);
  drawer.finishDrawing();
  std::string svg = drawer.getDrawingText();
  const auto end = svg.rfind("</svg>");
  if (end == std::string::npos) throw Error("RDKit produced no SVG drawing");
  svg.insert(end, legend_svg(width, height, maximum) + "\n");
  return svg;
}

}  // namespace edgewise
