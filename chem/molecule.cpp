#include "edgewise/chem/molecule.hpp"

#include <GraphMol/Descriptors/Property.h>
#include <GraphMol/GraphMol.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/RingInfo.h>
#include <GraphMol/SanitException.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <RDGeneral/RDLog.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <streambuf>

#include "descriptors.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/json_integers.hpp"

namespace edgewise {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// RDKit's log lines start with a time stamp such as "[09:05:38] "; the reason is what follows.
std::string without_time_stamp(const std::string& line) {
  if (line.size() > 11 && line[0] == '[' && line[9] == ']' && line[10] == ' ') return line.substr(11);
  return line;
}

// The log's non-empty lines, without time stamps, joined by "; ".
std::string log_reason(const std::string& log) {
  std::istringstream lines(log);
  std::string line, reason;
  while (std::getline(lines, line)) {
    line = without_time_stamp(trim(line));
    if (line.empty()) continue;
    if (!reason.empty()) reason += "; ";
    reason += line;
  }
  return reason;
}

// RDKit writes its errors and warnings to global logs, on stderr by default. Those logs write here
// instead: each thread's lines collect in its own string, so that the parse that caused them can
// take them as its reason, and concurrent parses never share a buffer. The stream itself holds no
// state that a write changes (no put area, no error state), so threads may share it.
class ThreadCaptureBuffer : public std::streambuf {
 public:
  static std::string& captured() {
    thread_local std::string text;
    return text;
  }

 protected:
  int overflow(int c) override {
    if (c != traits_type::eof()) captured().push_back(static_cast<char>(c));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* text, std::streamsize count) override {
    captured().append(text, static_cast<std::size_t>(count));
    return count;
  }
};

struct WarningSink {
  std::mutex mutex;
  std::function<void(std::string_view)> write;
};

WarningSink& warning_sink() {
  static WarningSink sink;
  return sink;
}

// The SMILES parser alone, without sanitization: linear in the input's length. Null on a syntax error.
std::unique_ptr<RDKit::RWMol> parse_unsanitized(const std::string& smiles) {
  RDKit::SmilesParserParams params;
  params.sanitize = false;
  params.removeHs = false;
  return std::unique_ptr<RDKit::RWMol>(RDKit::SmilesToMol(smiles, params));
}

// What RDKit's SmilesToMol does after parsing, step by step: sanitize while removing hydrogens, then
// perceive stereochemistry with the legacy code. SmilesToMol asks that code to flag every possible
// stereocenter, which ranks all atoms by CIP priority even when the SMILES has no stereo marks, at a
// cost growing as atoms^3 on long chains (4,000 atoms: 80 s). Only the stereocenter-counting
// descriptors read those flags; without them, a molecule without stereo marks skips the ranking.
void sanitize(RDKit::RWMol& molecule, bool flag_possible_stereocenters) {
  RDKit::MolOps::removeHs(molecule, /*implicitOnly=*/false, /*updateExplicitCount=*/true, /*sanitize=*/true);
  RDKit::MolOps::assignStereochemistry(molecule, /*cleanIt=*/true, /*force=*/true, flag_possible_stereocenters);
}

SmilesResult failure(std::string reason) { return {nullptr, std::move(reason)}; }

SmilesResult parse_and_sanitize(const std::string& text, const SmilesOptions& options) {
  std::unique_ptr<RDKit::RWMol> molecule = parse_unsanitized(text);
  if (!molecule) {
    const std::string reason = take_rdkit_log();
    return failure(reason.empty() ? "SMILES syntax error" : reason);
  }
  const auto atoms = static_cast<Index>(molecule->getNumAtoms());
  if (atoms == 0) return failure("molecule has no atoms");
  if (std::string reason = atom_limit_error(atoms, options.max_atoms); !reason.empty())
    return failure(std::move(reason));
  sanitize(*molecule, options.flag_possible_stereocenters);
  if (molecule->getNumAtoms() == 0) return failure("molecule has no atoms");
  report_rdkit_warnings("'" + text + "'");
  return {std::shared_ptr<RDKit::ROMol>(std::move(molecule)), ""};
}

}  // namespace

void capture_rdkit_logs() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Never destroyed: RDKit's loggers, destroyed with its library after this program's statics,
    // flush their stream on the way out.
    static auto* const stream = new std::ostream(new ThreadCaptureBuffer);
    if (!rdErrorLog) RDLog::InitLogs();  // a C++ program starts without RDKit's logs
    for (const RDLogger& log : {rdErrorLog, rdWarningLog}) {
      if (!log) continue;
      log->ClearTee();
      if (log->df_owner) delete log->dp_dest;
      log->dp_dest = stream;
      log->df_owner = false;
    }
  });
}

std::string take_rdkit_log() {
  std::string text;
  std::swap(text, ThreadCaptureBuffer::captured());
  return log_reason(text);
}

void report_rdkit_warnings(const std::string& molecule) {
  const std::string lines = take_rdkit_log();
  if (lines.empty()) return;
  WarningSink& sink = warning_sink();
  const std::lock_guard lock(sink.mutex);
  if (sink.write) sink.write("RDKit on " + molecule + ": " + lines);
}

std::string atom_limit_error(Index atoms, Index max_atoms) {
  if (max_atoms <= 0 || atoms <= max_atoms) return "";
  return "molecule has " + std::to_string(atoms) + " atoms, more than the limit of " + std::to_string(max_atoms);
}

SmilesOptions smiles_options(const FeaturizerSpec& spec, Index max_atoms) {
  const auto reads_flags = [](const std::string& name) {
    return name == "NumAtomStereoCenters" || name == "NumUnspecifiedAtomStereoCenters";
  };
  return {.max_atoms = max_atoms,
          .flag_possible_stereocenters = std::any_of(spec.descriptors.begin(), spec.descriptors.end(), reads_flags)};
}

void set_rdkit_warning_sink(std::function<void(std::string_view)> sink) {
  capture_rdkit_logs();
  WarningSink& target = warning_sink();
  const std::lock_guard lock(target.mutex);
  target.write = std::move(sink);
}

SmilesResult parse_smiles(const std::string& smiles, const SmilesOptions& options) {
  const std::string text = trim(smiles);
  if (text.empty()) return failure("empty SMILES");
  // RDKit's lexer passes over some bytes that no SMILES holds ("C\xc3\xbfC" reads as methane). What
  // follows a space or tab (CXSMILES extensions, a name) is RDKit's to judge.
  const auto smiles_end = std::find_if(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t'; });
  const auto foreign = std::find_if(text.begin(), smiles_end, [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte >= 0x7f;
  });
  if (foreign != smiles_end)
    return failure("byte " + std::to_string(foreign - text.begin() + 1) +
                   " is not a SMILES character (SMILES are printable ASCII)");
  capture_rdkit_logs();
  take_rdkit_log();  // lines another step left on this thread are not this molecule's
  // Whatever RDKit throws for one molecule is that molecule's reason: sanitization failures, CXSMILES
  // errors, its invariants (Invar::Invariant), Boost's casts inside its parsers. What RDKit logged
  // about it is dropped: the exception says the same.
  try {
    return parse_and_sanitize(text, options);
  } catch (const RDKit::MolSanitizeException& e) {
    return failure(std::string("sanitization failed: ") + e.what());
  } catch (const std::exception& e) {
    return failure(std::string("RDKit: ") + e.what());
  } catch (...) {
    return failure("RDKit failed without a reason");
  }
}

namespace {

// Writes a one-hot block: slot `index` of `count` (the last slot catches anything out of range).
struct FeatureWriter {
  float* row;
  Index column = 0;

  void one_hot(Index index, Index count) {
    const Index slot = index >= 0 && index < count - 1 ? index : count - 1;
    row[column + slot] = 1.0f;
    column += count;
  }
  void flag(bool value) { row[column++] = value ? 1.0f : 0.0f; }
  void number(double value) { row[column++] = static_cast<float>(value); }
};

Index index_in(const std::vector<int>& values, int value) {
  const auto it = std::find(values.begin(), values.end(), value);
  return it == values.end() ? -1 : static_cast<Index>(it - values.begin());
}

constexpr Index kChiralitySlots = 4;
constexpr Index kHybridizationSlots = 7;
constexpr Index kBondTypeSlots = 4;
constexpr Index kStereoSlots = 6;
constexpr Index kCrippenColumns = 2;  // logP and molar refractivity, the last columns of an atom row

Index chirality_slot(RDKit::Atom::ChiralType tag) {
  switch (tag) {
    case RDKit::Atom::CHI_UNSPECIFIED: return 0;
    case RDKit::Atom::CHI_TETRAHEDRAL_CW: return 1;
    case RDKit::Atom::CHI_TETRAHEDRAL_CCW: return 2;
    default: return 3;
  }
}

Index hybridization_slot(RDKit::Atom::HybridizationType type) {
  switch (type) {
    case RDKit::Atom::S: return 0;
    case RDKit::Atom::SP: return 1;
    case RDKit::Atom::SP2: return 2;
    case RDKit::Atom::SP3: return 3;
    case RDKit::Atom::SP3D: return 4;
    case RDKit::Atom::SP3D2: return 5;
    default: return 6;
  }
}

Index bond_type_slot(RDKit::Bond::BondType type) {
  switch (type) {
    case RDKit::Bond::SINGLE: return 0;
    case RDKit::Bond::DOUBLE: return 1;
    case RDKit::Bond::TRIPLE: return 2;
    default: return 3;  // aromatic, and the rare dative or other kinds
  }
}

Index stereo_slot(RDKit::Bond::BondStereo stereo) {
  switch (stereo) {
    case RDKit::Bond::STEREONONE: return 0;
    case RDKit::Bond::STEREOANY: return 1;
    case RDKit::Bond::STEREOZ: return 2;
    case RDKit::Bond::STEREOE: return 3;
    case RDKit::Bond::STEREOCIS: return 4;
    case RDKit::Bond::STEREOTRANS: return 5;
    default: return 0;
  }
}

void write_atom(float* row, const RDKit::Atom& atom, const FeaturizerSpec& spec) {
  FeatureWriter w{row};
  const auto elements = static_cast<Index>(spec.elements.size());
  const Index element = index_in(spec.elements, atom.getAtomicNum());
  w.one_hot(element < 0 ? elements : element, elements + 1);
  w.one_hot(atom.getDegree(), spec.max_degree + 2);
  const auto charges = static_cast<Index>(spec.formal_charges.size());
  const Index charge = index_in(spec.formal_charges, atom.getFormalCharge());
  w.one_hot(charge < 0 ? charges : charge, charges + 1);
  w.one_hot(chirality_slot(atom.getChiralTag()), kChiralitySlots);
  w.one_hot(atom.getTotalNumHs(), spec.max_hydrogens + 2);
  w.one_hot(hybridization_slot(atom.getHybridization()), kHybridizationSlots);
  w.flag(atom.getIsAromatic());
  w.flag(atom.getOwningMol().getRingInfo()->numAtomRings(atom.getIdx()) > 0);
  w.number(atom.getMass() / 100.0);
}

void write_bond(float* row, const RDKit::Bond& bond) {
  FeatureWriter w{row};
  w.one_hot(bond_type_slot(bond.getBondType()), kBondTypeSlots);
  w.flag(bond.getIsConjugated());
  w.flag(bond.getOwningMol().getRingInfo()->numBondRings(bond.getIdx()) > 0);
  w.one_hot(stereo_slot(bond.getStereo()), kStereoSlots);
  w.flag(false);  // not a self-loop
}

}  // namespace

Index FeaturizerSpec::atom_dim() const {
  return static_cast<Index>(elements.size() + 1) + (max_degree + 2) + static_cast<Index>(formal_charges.size() + 1) +
         kChiralitySlots + (max_hydrogens + 2) + kHybridizationSlots + 3 +
         (crippen_contributions ? kCrippenColumns : 0);
}

Index FeaturizerSpec::bond_dim() const { return kBondTypeSlots + 2 + kStereoSlots + 1; }

void to_json(nlohmann::json& j, const FeaturizerSpec& spec) {
  j = {{"version", spec.version},         {"elements", spec.elements},
       {"max_degree", spec.max_degree},   {"formal_charges", spec.formal_charges},
       {"max_hydrogens", spec.max_hydrogens}, {"self_loops", spec.self_loops},
       {"crippen_contributions", spec.crippen_contributions},
       {"descriptors", spec.descriptors},
       {"descriptor_values", name_of(kDescriptorValuesNames, spec.descriptor_values)}};
}

void from_json(const nlohmann::json& j, FeaturizerSpec& spec) {
  get_integer_to(j.at("version"), spec.version);
  get_integer_to(j.at("elements"), spec.elements);
  get_integer_to(j.at("max_degree"), spec.max_degree);
  get_integer_to(j.at("formal_charges"), spec.formal_charges);
  get_integer_to(j.at("max_hydrogens"), spec.max_hydrogens);
  j.at("self_loops").get_to(spec.self_loops);
  spec.crippen_contributions = j.value("crippen_contributions", false);  // absent from files written before it existed
  j.at("descriptors").get_to(spec.descriptors);
  // Files written before descriptors were standardized by the network hold log-compressed ones.
  spec.descriptor_values = value_named(kDescriptorValuesNames, j.value("descriptor_values", "log_compressed"),
                                       "featurizer descriptor_values");
}

std::vector<std::string> available_descriptors() { return RDKit::Descriptors::Properties::getAvailableProperties(); }

void check_descriptors(const std::vector<std::string>& names) {
  const std::vector<std::string> available = available_descriptors();
  for (const std::string& name : names) {
    if (std::find(available.begin(), available.end(), name) == available.end())
      throw ArgumentError("molecular descriptor '" + name + "' is not available in this RDKit build");
  }
}

namespace {

// Runs an RDKit computation on one molecule; what RDKit throws becomes that molecule's MoleculeError.
template <typename Step>
auto rdkit_step(const char* what, Step&& step) {
  try {
    return step();
  } catch (const std::exception& e) {
    throw MoleculeError(std::string("RDKit could not compute the ") + what + ": " + e.what());
  } catch (...) {
    throw MoleculeError(std::string("RDKit could not compute the ") + what);
  }
}

float descriptor_value(double value, DescriptorValues form) {
  if (!std::isfinite(value)) return 0.0f;
  if (form == DescriptorValues::raw) return static_cast<float>(value);
  return static_cast<float>(std::copysign(std::log1p(std::abs(value)), value));
}

}  // namespace

DescriptorCalculator::DescriptorCalculator(const std::vector<std::string>& names, DescriptorValues values)
    : size_(static_cast<Index>(names.size())), values_(values) {
  if (names.empty()) return;
  check_descriptors(names);
  descriptors_ = std::make_unique<const detail::DescriptorSet>(names);
}

DescriptorCalculator::DescriptorCalculator(DescriptorCalculator&&) noexcept = default;
DescriptorCalculator& DescriptorCalculator::operator=(DescriptorCalculator&&) noexcept = default;
DescriptorCalculator::~DescriptorCalculator() = default;

void DescriptorCalculator::compute(const RDKit::ROMol& molecule, float* out) const {
  if (!descriptors_) return;
  const std::vector<double> values = rdkit_step("descriptors", [&] { return descriptors_->compute(molecule); });
  EDGEWISE_CHECK(static_cast<Index>(values.size()) == size_);
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = descriptor_value(values[i], values_);
}

namespace {

// Writes each heavy atom's logP and molar-refractivity/10 contributions, its hydrogens' included, to
// out[atom * stride] and out[atom * stride + 1]. The atom typing is the one the Crippen descriptors
// kept on the molecule when they were computed first, else a new one that is not kept: the molecule
// may be shared with other threads here.
void write_crippen_contributions(const RDKit::ROMol& molecule, float* out, Index stride) {
  const std::shared_ptr<const detail::CrippenContributions> contributions = rdkit_step(
      "Crippen contributions", [&] { return detail::crippen_contributions(molecule, detail::KeepOnMolecule::no); });
  for (std::size_t i = 0; i < contributions->heavy_atom.size(); ++i) {
    const auto heavy = static_cast<Index>(contributions->heavy_atom[i]);
    out[heavy * stride] += static_cast<float>(contributions->logp[i]);
    out[heavy * stride + 1] += static_cast<float>(contributions->refractivity[i] / 10.0);
  }
}

Index edge_count(const RDKit::ROMol& molecule, const FeaturizerSpec& spec) {
  return 2 * static_cast<Index>(molecule.getNumBonds()) + (spec.self_loops ? molecule.getNumAtoms() : 0);
}

// Writes one molecule's feature rows into zeroed memory, node_rows: [atoms, atom_dim] and edge_rows:
// [edges, bond_dim], and its edges with node ids shifted by first_node; bond_of_edge may be null.
void write_molecule(const RDKit::ROMol& molecule, const FeaturizerSpec& spec, float* node_rows, float* edge_rows,
                    NodeId* sources, NodeId* targets, Index* bond_of_edge, NodeId first_node) {
  const Index atom_dim = spec.atom_dim(), bond_dim = spec.bond_dim();
  for (const RDKit::Atom* atom : molecule.atoms()) write_atom(node_rows + atom->getIdx() * atom_dim, *atom, spec);
  if (spec.crippen_contributions)
    write_crippen_contributions(molecule, node_rows + atom_dim - kCrippenColumns, atom_dim);
  Index e = 0;
  for (const RDKit::Bond* bond : molecule.bonds()) {
    const auto a = static_cast<NodeId>(bond->getBeginAtomIdx()), b = static_cast<NodeId>(bond->getEndAtomIdx());
    for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
      sources[e] = first_node + from;
      targets[e] = first_node + to;
      write_bond(edge_rows + e * bond_dim, *bond);
      if (bond_of_edge) bond_of_edge[e] = bond->getIdx();
      ++e;
    }
  }
  const auto atoms = static_cast<NodeId>(molecule.getNumAtoms());
  for (NodeId atom = 0; spec.self_loops && atom < atoms; ++atom, ++e) {
    sources[e] = targets[e] = first_node + atom;
    edge_rows[e * bond_dim + bond_dim - 1] = 1.0f;
    if (bond_of_edge) bond_of_edge[e] = -1;
  }
}

MoleculeGraph featurize_graph(const RDKit::ROMol& molecule, const FeaturizerSpec& spec) {
  const auto atoms = static_cast<Index>(molecule.getNumAtoms());
  const Index edges = edge_count(molecule, spec);
  MoleculeGraph result;
  result.node_features = Matrix<float>::Zero(atoms, spec.atom_dim());
  result.edge_features = Matrix<float>::Zero(edges, spec.bond_dim());
  result.bond_of_edge.resize(static_cast<std::size_t>(edges));
  std::vector<NodeId> sources(static_cast<std::size_t>(edges)), targets(static_cast<std::size_t>(edges));
  write_molecule(molecule, spec, result.node_features.data(), result.edge_features.data(), sources.data(),
                 targets.data(), result.bond_of_edge.data(), 0);
  result.graph.assign(atoms, sources, targets);
  return result;
}

}  // namespace

MoleculeGraph featurize(const RDKit::ROMol& molecule, const FeaturizerSpec& spec,
                        const DescriptorCalculator& descriptors) {
  // Descriptors first: the Crippen ones keep their atom typing on the molecule for the atom columns.
  Matrix<float> graph_features;
  if (!spec.descriptors.empty()) {
    EDGEWISE_CHECK(descriptors.size() == spec.graph_dim());
    graph_features.resize(1, spec.graph_dim());
    descriptors.compute(molecule, graph_features.data());
  }
  MoleculeGraph result = featurize_graph(molecule, spec);
  result.graph_features = std::move(graph_features);
  return result;
}

MoleculeGraph featurize(const RDKit::ROMol& molecule, const FeaturizerSpec& spec) {
  if (spec.descriptors.empty()) return featurize_graph(molecule, spec);
  return featurize(molecule, spec, DescriptorCalculator(spec.descriptors, spec.descriptor_values));
}

MoleculeBatcher::MoleculeBatcher(FeaturizerSpec spec) : spec_(std::move(spec)) {}

void MoleculeRows::write(const RDKit::ROMol& molecule, const FeaturizerSpec& spec) {
  atoms = static_cast<Index>(molecule.getNumAtoms());
  edges = edge_count(molecule, spec);
  node_rows.assign(static_cast<std::size_t>(atoms * spec.atom_dim()), 0.0f);
  edge_rows.assign(static_cast<std::size_t>(edges * spec.bond_dim()), 0.0f);
  sources.resize(static_cast<std::size_t>(edges));
  targets.resize(static_cast<std::size_t>(edges));
  write_molecule(molecule, spec, node_rows.data(), edge_rows.data(), sources.data(), targets.data(), nullptr, 0);
}

void MoleculeBatcher::assemble(std::span<const MoleculeRows* const> molecules,
                               std::span<const float* const> descriptor_rows, FeaturedBatch& batch) {
  const Index atom_dim = spec_.atom_dim(), bond_dim = spec_.bond_dim(), graph_dim = spec_.graph_dim();
  if (graph_dim > 0 && descriptor_rows.size() != molecules.size())
    throw ArgumentError("MoleculeBatcher: " + std::to_string(descriptor_rows.size()) + " descriptor rows for " +
                        std::to_string(molecules.size()) + " molecules");
  node_offsets_.assign(1, 0);
  edge_offsets_.assign(1, 0);
  for (const MoleculeRows* molecule : molecules) {
    if (molecule->node_rows.size() != static_cast<std::size_t>(molecule->atoms * atom_dim) ||
        molecule->edge_rows.size() != static_cast<std::size_t>(molecule->edges * bond_dim))
      throw ArgumentError("MoleculeBatcher: a molecule's rows are not " + std::to_string(atom_dim) + " and " +
                          std::to_string(bond_dim) + " wide, as the spec's");
    node_offsets_.push_back(node_offsets_.back() + molecule->atoms);
    edge_offsets_.push_back(edge_offsets_.back() + molecule->edges);
  }
  const Index nodes = node_offsets_.back(), edges = edge_offsets_.back();
  if (nodes > std::numeric_limits<NodeId>::max())
    throw GraphError("MoleculeBatcher: " + std::to_string(nodes) + " atoms exceed the limit of 2^31 - 1");
  batch.node_features.resize(nodes, atom_dim);
  batch.edge_features.resize(edges, bond_dim);
  sources_.resize(static_cast<std::size_t>(edges));
  targets_.resize(static_cast<std::size_t>(edges));
  for (std::size_t g = 0; g < molecules.size(); ++g) {
    const MoleculeRows& molecule = *molecules[g];
    const Index first_node = node_offsets_[g], first_edge = edge_offsets_[g];
    std::ranges::copy(molecule.node_rows, batch.node_features.data() + first_node * atom_dim);
    std::ranges::copy(molecule.edge_rows, batch.edge_features.data() + first_edge * bond_dim);
    const auto shift = [first_node](NodeId atom) { return static_cast<NodeId>(first_node + atom); };
    std::ranges::transform(molecule.sources, sources_.begin() + first_edge, shift);
    std::ranges::transform(molecule.targets, targets_.begin() + first_edge, shift);
  }
  batch.batch.assign(node_offsets_, edge_offsets_, sources_, targets_);
  batch.graph_features.resize(graph_dim > 0 ? static_cast<Index>(molecules.size()) : 0, graph_dim);
  for (Index g = 0; g < batch.graph_features.rows(); ++g)
    std::copy_n(descriptor_rows[static_cast<std::size_t>(g)], graph_dim, batch.graph_features.row(g).data());
}

}  // namespace edgewise
