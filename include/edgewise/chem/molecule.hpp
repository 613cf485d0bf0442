/// \file
/// Molecules from SMILES: parsing with RDKit, and featurization into attention-ready graphs.
///
/// Every SMILES ends in one of four outcomes, all handled: a molecule; a syntax error (RDKit returns
/// null and logs the reason, which is captured); a sanitization failure (valence, kekulization:
/// RDKit throws MolSanitizeException); or a molecule without atoms. Single atoms and
/// multi-fragment SMILES (salts) are valid molecules.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "edgewise/core/names.hpp"
#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/featured_graph.hpp"

namespace RDKit {
class ROMol;
}  // namespace RDKit

namespace edgewise {
namespace detail {
class DescriptorSet;
}

/// The outcome of parse_smiles: a molecule or RDKit's reason for refusing the SMILES.
struct SmilesResult {
  std::shared_ptr<RDKit::ROMol> molecule;  ///< null on failure
  std::string error;                       ///< RDKit's reason when molecule is null
};

/// The default limit on the atoms of one molecule: drug-like molecules have under 100 heavy atoms, a
/// 100-residue peptide about 800. Parsing costs time linear in the atoms, except for RDKit's
/// stereochemistry perception, which grows as atoms^3 on long chains that carry stereo marks (a
/// 1,000-atom chain: about 1 s).
inline constexpr Index kDefaultMaxAtoms = 1000;

/// How parse_smiles reads a SMILES.
struct SmilesOptions {
  /// A molecule with more atoms (as written, explicit hydrogens included) is refused before RDKit
  /// sanitizes it; 0: no limit.
  Index max_atoms = kDefaultMaxAtoms;
  /// Flag every atom that could be a stereocenter (RDKit's _ChiralityPossible), as RDKit's own
  /// SmilesToMol does. Only the NumAtomStereoCenters and NumUnspecifiedAtomStereoCenters descriptors
  /// read the flags, and finding them ranks every atom, at a cost growing as atoms^3 on long chains:
  /// smiles_options() sets it only for a featurizer that needs it.
  bool flag_possible_stereocenters = true;
};

/// Why a molecule of `atoms` atoms is refused under the limit `max_atoms` (0: none); empty when it is
/// within the limit. The SMILES and SD readers give the same reason.
std::string atom_limit_error(Index atoms, Index max_atoms);

/// RDKit writes its errors and warnings to global logs, printed on stderr. From the first molecule
/// edgewise reads, it captures them per thread instead, so that each molecule RDKit refuses is
/// reported once, by edgewise, with RDKit's lines as its reason. Lines about a molecule RDKit did
/// read (warnings such as "not removing hydrogen atom without neighbors") go to `sink` as "RDKit on
/// '<SMILES>': <lines>" (SD records: "RDKit on <file> line <n>: <lines>"), one call at a time;
/// without a sink (the default) they are dropped.
void set_rdkit_warning_sink(std::function<void(std::string_view)> sink);
/// Starts that capture if it has not started; parse_smiles calls it. For readers that call RDKit
/// directly.
void capture_rdkit_logs();
/// RDKit's lines logged on the calling thread since the last call, without time stamps, joined by
/// "; "; cleared.
std::string take_rdkit_log();
/// Takes the calling thread's lines (take_rdkit_log) about a molecule RDKit did read and hands them
/// to the warning sink as "RDKit on <molecule>: <lines>"; nothing when there are none.
void report_rdkit_warnings(const std::string& molecule);

/// Parses and sanitizes one SMILES as RDKit's SmilesToMol does; surrounding whitespace is ignored.
/// Never throws for bad input: every failure RDKit raises for the SMILES (syntax, sanitization,
/// CXSMILES extensions, RDKit's invariants) and a molecule over options.max_atoms or without atoms
/// come back as the result's error.
SmilesResult parse_smiles(const std::string& smiles, const SmilesOptions& options = {});

/// How the featurizer writes molecular descriptors: as RDKit computes them (a network standardizes
/// them by its training set's statistics), or as sign(x) log(1 + |x|), the form of model files written
/// before networks standardized their descriptors.
enum class DescriptorValues { raw, log_compressed };

/// The names model files use.
inline constexpr std::pair<DescriptorValues, std::string_view> kDescriptorValuesNames[] = {
    {DescriptorValues::raw, "raw"}, {DescriptorValues::log_compressed, "log_compressed"}};

/// The featurizer's vocabulary. Saved with every model so prediction encodes molecules exactly as
/// training did; a model file written with another version is refused.
struct FeaturizerSpec {
  int version = 1;  ///< Featurizer version; models from another version are refused.
  std::vector<int> elements = {1, 5, 6, 7, 8, 9, 11, 14, 15, 16, 17, 19, 34, 35, 53};  ///< then "other"  ///< Atomic numbers with their own one-hot slot.
  int max_degree = 5;  ///< Degrees 0..max_degree have a slot, higher ones share one.
  std::vector<int> formal_charges = {-2, -1, 0, 1, 2};  ///< Formal charges with their own slot, others share one.
  int max_hydrogens = 4;  ///< Hydrogen counts 0..max_hydrogens have a slot, higher ones share one.
  bool self_loops = true;  ///< each atom also attends to itself, through an edge flagged as a self-loop
  /// Each atom also carries its Wildman-Crippen logP and molar-refractivity contributions (RDKit),
  /// with those of its hydrogens added in.
  bool crippen_contributions = false;
  /// RDKit descriptor names (RDKit::Descriptors::Properties) computed per molecule as graph features;
  /// empty for none.
  std::vector<std::string> descriptors;
  DescriptorValues descriptor_values = DescriptorValues::raw;  ///< How descriptors are written.

  /// The widths of the node, edge and graph features featurize() writes.
  /// @{
  Index atom_dim() const;
  Index bond_dim() const;
  Index graph_dim() const { return static_cast<Index>(descriptors.size()); }
  /// @}
};

/// The SmilesOptions that featurizing with `spec` needs, with the given atom limit.
SmilesOptions smiles_options(const FeaturizerSpec& spec, Index max_atoms = kDefaultMaxAtoms);

/// The descriptor names this RDKit build computes (RDKit::Descriptors::Properties).
std::vector<std::string> available_descriptors();
/// Throws ArgumentError naming the first descriptor this RDKit build does not know.
void check_descriptors(const std::vector<std::string>& names);

/// A FeaturizerSpec's descriptors, looked up in RDKit's registry once. Those that share work (the
/// Crippen and the path-based chi and kappa descriptors) are computed together, with RDKit's values.
/// compute() may run on many threads at once, each on its own molecules.
class DescriptorCalculator {
 public:
  /// Throws ArgumentError naming the first descriptor this RDKit build does not know.
  explicit DescriptorCalculator(const std::vector<std::string>& names,
                                DescriptorValues values = DescriptorValues::raw);
  /// Movable, not copyable.
  /// @{
  DescriptorCalculator(DescriptorCalculator&&) noexcept;
  DescriptorCalculator& operator=(DescriptorCalculator&&) noexcept;
  /// @}
  ~DescriptorCalculator();

  /// The number of descriptors compute() writes.
  Index size() const { return size_; }
  /// Writes the molecule's descriptors in the form chosen at construction (0 where RDKit gives a
  /// value that is not finite) to out[0 .. size()).
  void compute(const RDKit::ROMol& molecule, float* out) const;

 private:
  std::unique_ptr<const detail::DescriptorSet> descriptors_;  // null when there are none
  Index size_ = 0;
  DescriptorValues values_ = DescriptorValues::raw;
};

/// JSON form stored in model files, for nlohmann::json; from_json throws for missing fields.
/// @{
void to_json(nlohmann::json& j, const FeaturizerSpec& spec);
void from_json(const nlohmann::json& j, FeaturizerSpec& spec);
/// @}

/// One molecule as a graph. Each bond gives two directed edges (a -> b then b -> a, in RDKit's bond
/// order) carrying the bond's features; self-loops, if enabled, follow by atom index.
/// node_features: [atoms, spec.atom_dim()]; edge_features: [edges, spec.bond_dim()].
struct MoleculeGraph : FeaturedGraph {
  std::vector<Index> bond_of_edge;  ///< [edges]: the RDKit bond index of each edge, -1 for self-loops
};

/// Atom features, one-hot unless noted: element (spec.elements, then other), degree (0..max, then
/// more), formal charge (spec list, then other), chirality tag (none, CW, CCW, other), total
/// hydrogens (0..max, then more), hybridization (S, SP, SP2, SP3, SP3D, SP3D2, other), aromatic,
/// in ring, and mass / 100 (a number). Bond features: type (single, double, triple, aromatic),
/// conjugated, in ring, stereo (none, any, Z, E, cis, trans), and self-loop.
MoleculeGraph featurize(const RDKit::ROMol& molecule, const FeaturizerSpec& spec);
/// Same, with the spec's descriptors computed by `descriptors` (built once for many molecules).
MoleculeGraph featurize(const RDKit::ROMol& molecule, const FeaturizerSpec& spec,
                        const DescriptorCalculator& descriptors);

/// One molecule's feature rows and edges as featurize() makes them (descriptors aside), in buffers
/// kept when rewritten. Written right after parsing, they let the molecule be destroyed at once,
/// while its memory is still in cache; a MoleculeBatcher joins many into one batch.
struct MoleculeRows {
  Index atoms = 0;               ///< The molecule's atoms
  Index edges = 0;               ///< Its directed edges: two per bond, then self-loops if the spec has them
  std::vector<float> node_rows;  ///< [atoms, atom_dim] row after row
  std::vector<float> edge_rows;  ///< [edges, bond_dim] row after row
  std::vector<NodeId> sources;   ///< [edges]: atom indices within the molecule
  std::vector<NodeId> targets;   ///< [edges]

  /// Replaces the rows with those of `molecule` as `spec` says. With spec.crippen_contributions, the
  /// molecule's Crippen typing is reused if its descriptors were computed first.
  void write(const RDKit::ROMol& molecule, const FeaturizerSpec& spec);
};

/// Joins molecules' MoleculeRows into one FeaturedBatch: the rows and the graph FeaturedBatch::assemble
/// gives for their featurize() graphs, without a MoleculeGraph per molecule. The batch's and the
/// batcher's buffers are reused, so a batcher kept across batches allocates only when a batch is
/// larger than any before it.
class MoleculeBatcher {
 public:
  /// Joins rows written with `spec`. Not thread-safe: use one batcher per thread.
  explicit MoleculeBatcher(FeaturizerSpec spec);

  /// descriptor_rows: one pointer per molecule to its spec.graph_dim() descriptors, as
  /// DescriptorCalculator::compute writes them; not read when the spec has no descriptors. Throws
  /// ArgumentError for rows of other widths than the spec's.
  void assemble(std::span<const MoleculeRows* const> molecules, std::span<const float* const> descriptor_rows,
                FeaturedBatch& batch);

  /// The spec given at construction.
  const FeaturizerSpec& spec() const { return spec_; }

 private:
  FeaturizerSpec spec_;
  std::vector<Index> node_offsets_;
  std::vector<Index> edge_offsets_;
  std::vector<NodeId> sources_;
  std::vector<NodeId> targets_;
};

}  // namespace edgewise
