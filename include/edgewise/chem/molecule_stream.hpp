/// \file
/// The molecule stream: one SMILES at a time, parse -> descriptors -> featurize, into its feature
/// rows or the reason it has none. Prediction streams SMILES through it a window at a time (with
/// run_ordered_pipeline, MoleculeModel::predict_smiles); the training readers featurize through it
/// into whole graphs.
///
///   const SmilesFeaturizer featurizer(spec);
///   SmilesRow row{.smiles = "CCO"};
///   if (featurizer.featurize(row)) batcher.assemble(...row.rows..., ...row.descriptors.data()...);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "edgewise/chem/molecule.hpp"

namespace edgewise {

/// One input SMILES and what the stream made of it: the molecule's feature rows and descriptor row
/// (the molecule itself is gone by then), or why there are none. Its buffers are kept when it is
/// featurized again.
struct SmilesRow {
  std::string smiles;              ///< the input
  bool valid = false;              ///< false when RDKit could not read the SMILES or compute its features
  std::string error;               ///< RDKit's reason when not valid
  MoleculeRows rows;               ///< the atom and bond rows, as featurize() writes them
  std::vector<float> descriptors;  ///< [graph_dim]: the descriptor row
};

/// One molecule featurized as a whole graph, or why there is none.
struct FeaturizedMolecule {
  std::optional<MoleculeGraph> graph;  ///< empty when RDKit cannot read or featurize the molecule
  std::string error;                   ///< RDKit's reason
};

/// Parses, computes descriptors and featurizes molecules with one featurizer's settings, its
/// descriptors looked up once. The const members may run on many threads at once, each on its own
/// rows. A SMILES RDKit cannot read, one with more atoms than the limit, and one whose features
/// RDKit cannot compute (MoleculeError) become that row's error; they never throw.
class SmilesFeaturizer {
 public:
  /// Throws ArgumentError naming the first descriptor of `spec` this RDKit build does not know.
  explicit SmilesFeaturizer(FeaturizerSpec spec, Index max_atoms = kDefaultMaxAtoms);

  /// Parses row.smiles and writes its descriptors, then its rows (which reuse the descriptors' Crippen
  /// typing), or sets row.error ("unreadable SMILES" when RDKit gives no reason). The molecule is
  /// destroyed here, by the thread that made it, while its memory is in cache. Returns row.valid.
  bool featurize(SmilesRow& row) const;

  /// The featurize() graph of `smiles`, descriptors included, or RDKit's reason.
  FeaturizedMolecule graph(const std::string& smiles) const;
  /// The same for a molecule already read (an SD record).
  FeaturizedMolecule graph(const RDKit::ROMol& molecule) const;

  /// The featurizer's settings.
  const FeaturizerSpec& spec() const { return spec_; }

 private:
  FeaturizerSpec spec_;
  SmilesOptions options_;
  DescriptorCalculator descriptors_;
};

}  // namespace edgewise
