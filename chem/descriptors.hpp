// RDKit's molecular descriptors computed together, so that the ones built from the same
// intermediate results (Crippen's atom typing, the paths of 2 to 4 bonds) compute them once per
// molecule instead of once per descriptor, and SMARTS counts match a pattern compiled once per thread
// instead of a copy per molecule. The values are RDKit's, bit for bit. Private to io.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace RDKit {
class ROMol;
namespace Descriptors {
class Properties;
}
}  // namespace RDKit

namespace edgewise::detail {

/// Wildman and Crippen's logP and molar refractivity contributions, typed by RDKit, of each atom of
/// a molecule with its hydrogens made explicit (RDKit's addHs order: the molecule's atoms first).
struct CrippenContributions {
  std::vector<double> logp, refractivity;
  std::vector<unsigned int> heavy_atom;  // the molecule's atom each one is, or is bonded to (a hydrogen)
  unsigned int molecule_atoms = 0;       // the molecule's own atoms, the first ones
};

/// Whether crippen_contributions leaves what it computes on the molecule for later calls.
enum class KeepOnMolecule { no, yes };

/// The molecule's contributions: those an earlier call kept on it (a computed property, as RDKit
/// caches its own descriptors), else computed now. Keeping writes to the molecule, so only the one
/// thread that owns it may ask for that. Throws what RDKit throws.
std::shared_ptr<const CrippenContributions> crippen_contributions(const RDKit::ROMol& molecule,
                                                                  KeepOnMolecule keep);

/// A list of RDKit descriptor names (RDKit::Descriptors::Properties), computed in that order. The
/// ones that share intermediate results are computed here from one Crippen typing and one path
/// enumeration, and five SMARTS counts by testing the patterns' primitives atom by atom (RDKit's
/// search, with per-thread patterns, where its cut at 1,000 matches could matter); RDKit computes
/// the others.
/// compute() may run on many threads at once.
class DescriptorSet {
 public:
  /// The names must be RDKit's (check_descriptors).
  explicit DescriptorSet(const std::vector<std::string>& names);
  ~DescriptorSet();

  /// RDKit's values of the descriptors for the molecule, in the order of the names. Keeps the
  /// molecule's Crippen contributions on it when a Crippen descriptor is among them, for the
  /// featurizer's atom columns. Throws what RDKit throws.
  std::vector<double> compute(const RDKit::ROMol& molecule) const;

 private:
  struct Column;
  std::vector<Column> columns_;
  std::unique_ptr<RDKit::Descriptors::Properties> rdkit_;  // the others; null when there are none
};

}  // namespace edgewise::detail
