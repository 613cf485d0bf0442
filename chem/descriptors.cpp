#include "descriptors.hpp"

#include <GraphMol/Descriptors/ConnectivityDescriptors.h>
#include <GraphMol/Descriptors/Crippen.h>
#include <GraphMol/Descriptors/Lipinski.h>
#include <GraphMol/Descriptors/Property.h>
#include <GraphMol/GraphMol.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/QueryAtom.h>
#include <GraphMol/RingInfo.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/Substruct/SubstructMatch.h>
#include <Query/AndQuery.h>
#include <Query/EqualityQuery.h>
#include <Query/OrQuery.h>
#include <RDGeneral/RDConfig.h>

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

// Matching RDKit bit for bit needs its rounding: this file is built without fused multiply-add
// (io/CMakeLists.txt), which -march=native would otherwise put into the sums of products.

namespace edgewise::detail {
namespace {

// The computed property that keeps a molecule's contributions. RDKit's own (_crippenLogPContribs)
// lands on the molecule with hydrogens, which it then discards.
const std::string kCrippenProperty = "_edgewise_CrippenContributions";

// SubstructMatch's default limit on the matches it returns (SubstructMatchParameters::maxMatches).
constexpr unsigned int kRdkitMaxMatches = 1000;

// Atomic numbers below this one are told apart by a pattern atom's element filter.
constexpr std::size_t kFilteredElements = 128;
using ElementSet = std::bitset<kFilteredElements>;

// The elements an atom query can pass (a superset), read from its tree: a test of the atomic number,
// or of the atom type (the atomic number plus 1000 if aromatic), passes one element; an AND the
// elements all its children pass, an OR those any passes. Any other test, and any negation, may
// pass every element.
ElementSet possible_elements(const RDKit::Atom::QUERYATOM_QUERY& query) {
  const ElementSet every = ElementSet().set();
  const std::string& test = query.getDescription();
  if (query.getNegation()) return every;
  if (test == "AtomAtomicNum" || test == "AtomType") {
    const auto* equality = dynamic_cast<const Queries::EqualityQuery<int, const RDKit::Atom*, true>*>(&query);
    if (equality == nullptr || equality->getTol() != 0) return every;
    const int element = test == "AtomType" ? equality->getVal() % 1000 : equality->getVal();
    if (element < 0 || static_cast<std::size_t>(element) >= kFilteredElements) return every;
    return ElementSet().set(static_cast<std::size_t>(element));
  }
  const bool all_of = test == "AtomAnd";
  if ((!all_of && test != "AtomOr") || query.beginChildren() == query.endChildren()) return every;
  ElementSet passed = all_of ? every : ElementSet();
  for (auto child = query.beginChildren(); child != query.endChildren(); ++child)
    passed = all_of ? passed & possible_elements(**child) : passed | possible_elements(**child);
  return passed;
}

// The values that the atom tests in kAtomTests read, in that order: what RDKit's query functions
// (GraphMol/QueryOps.h) return for an atom, read once.
constexpr std::array<std::string_view, 7> kAtomTests = {"AtomAtomicNum",   "AtomType",        "AtomFormalCharge",
                                                        "AtomHCount",      "AtomTotalDegree", "AtomIsAliphatic",
                                                        "AtomIsAromatic"};
using AtomValues = std::array<int, kAtomTests.size()>;
constexpr std::size_t kAtomicNumSlot = 0;
constexpr std::size_t kTotalDegreeSlot = 4;
static_assert(kAtomTests[kAtomicNumSlot] == "AtomAtomicNum" && kAtomTests[kTotalDegreeSlot] == "AtomTotalDegree");

AtomValues atom_values(const RDKit::Atom& atom) {
  const int aromatic = atom.getIsAromatic() ? 1 : 0;
  return {atom.getAtomicNum(),
          atom.getAtomicNum() + 1000 * aromatic,
          atom.getFormalCharge(),
          static_cast<int>(atom.getTotalNumHs(/*includeNeighbors=*/true)),
          static_cast<int>(atom.getTotalDegree()),
          1 - aromatic,
          aromatic};
}

// The same for bonds.
constexpr std::array<std::string_view, 2> kBondTests = {"BondOrder", "SingleOrAromaticBond"};
using BondValues = std::array<int, kBondTests.size()>;

BondValues bond_values(const RDKit::Bond& bond) {
  const RDKit::Bond::BondType type = bond.getBondType();
  return {static_cast<int>(type), type == RDKit::Bond::SINGLE || type == RDKit::Bond::AROMATIC ? 1 : 0};
}

// Whether a query reads only what an atom or bond shows alike with its hydrogens implicit or made
// explicit, the values above: elements, aromaticity, charge, bond orders, the total number of
// hydrogens (bonded ones included) and of neighbours (hydrogens included). Not, for instance, the
// explicit degree.
template <typename Query>
bool same_with_hydrogens_explicit(const Query& query) {
  const std::string& test = query.getDescription();
  const auto reads = [&](const auto& tests) { return std::find(tests.begin(), tests.end(), test) != tests.end(); };
  if (test != "AtomAnd" && test != "AtomOr" && !reads(kAtomTests) && !reads(kBondTests)) return false;
  return std::all_of(query.beginChildren(), query.endChildren(),
                     [](const auto& child) { return same_with_hydrogens_explicit(*child); });
}

// An RDKit query tree of ANDs, ORs and equality tests of the values above, evaluated on those values
// computed once for an atom or bond: the same result as the query's Match, without the virtual calls
// down its tree or the getters each test calls again (RDKit's getTotalNumHs walks the neighbours).
class FlatQuery {
 public:
  // Nullopt for a tree with another test or another kind of node.
  template <typename Query, std::size_t N>
  static std::optional<FlatQuery> of(const Query& query, const std::array<std::string_view, N>& tests) {
    FlatQuery flat;
    if (!flat.add(query, tests)) return std::nullopt;
    return flat;
  }

  template <std::size_t N>
  bool passes(const std::array<int, N>& values) const {
    return passes(values.data(), 0);
  }

 private:
  enum class Kind : std::uint8_t { equals, all_of, any_of };
  // In preorder: a node's children follow it, each after the subtree of the one before.
  struct Node {
    Kind kind = Kind::equals;
    bool negated = false;
    std::size_t slot = 0;  // the value an equality test reads
    int value = 0;
    int tolerance = 0;
    std::size_t subtree = 1;  // this node and its descendants
  };

  template <typename Query, std::size_t N>
  bool add(const Query& query, const std::array<std::string_view, N>& tests) {
    using Equality = Queries::EqualityQuery<int, typename Query::DATA_FUNC_ARG_TYPE, true>;
    using And = Queries::AndQuery<int, typename Query::DATA_FUNC_ARG_TYPE, true>;
    using Or = Queries::OrQuery<int, typename Query::DATA_FUNC_ARG_TYPE, true>;
    const std::size_t at = nodes_.size();
    nodes_.push_back({});
    nodes_[at].negated = query.getNegation();
    if (typeid(query) == typeid(Equality)) {
      const auto slot = std::find(tests.begin(), tests.end(), query.getDescription());
      if (slot == tests.end() || query.beginChildren() != query.endChildren()) return false;
      const auto& equality = static_cast<const Equality&>(query);
      nodes_[at].slot = static_cast<std::size_t>(slot - tests.begin());
      nodes_[at].value = equality.getVal();
      nodes_[at].tolerance = equality.getTol();
      return true;
    }
    if (typeid(query) == typeid(And)) {
      nodes_[at].kind = Kind::all_of;
    } else if (typeid(query) == typeid(Or)) {
      nodes_[at].kind = Kind::any_of;
    } else {
      return false;
    }
    for (auto child = query.beginChildren(); child != query.endChildren(); ++child)
      if (!add(**child, tests)) return false;
    nodes_[at].subtree = nodes_.size() - at;
    return true;
  }

  // As RDKit's EqualityQuery, AndQuery and OrQuery match: queryCmp's tolerance, children in order up to
  // the first that settles the result, then the negation.
  bool passes(const int* values, std::size_t at) const {
    const Node& node = nodes_[at];
    bool result = false;
    if (node.kind == Kind::equals) {
      const int difference = node.value - values[node.slot];
      result = difference <= node.tolerance && difference >= -node.tolerance;
    } else {
      const bool all_of = node.kind == Kind::all_of;
      result = all_of;
      for (std::size_t child = at + 1; child < at + node.subtree; child += nodes_[child].subtree) {
        if (passes(values, child) != all_of) {
          result = !all_of;
          break;
        }
      }
    }
    return result != node.negated;
  }

  std::vector<Node> nodes_;
};

// A molecule as RDKit's addHs makes it, without building it: its own atoms, then for each of them
// in index order its getTotalNumHs() hydrogens, each bonded to it alone (addHs's order, checked on
// every molecule of the shared tables). Patterns whose queries read what looks the same either way
// (same_with_hydrogens_explicit) match the molecule's own atoms and bonds as they are, and every
// added hydrogen and its bond as one of each from a built molecule.
class WithHydrogens {
 public:
  // A bond of an own atom: the atom at its other end, and what bond queries read of it.
  struct OwnBond {
    const RDKit::Bond* bond;
    unsigned int other;
    BondValues values;
  };

  // Reads each own atom's values and bonds once, for the many patterns tried on it.
  explicit WithHydrogens(const RDKit::ROMol& molecule) : molecule_(molecule), own_atoms_(molecule.getNumAtoms()) {
    first_hydrogen_.reserve(own_atoms_ + 1);
    own_values_.reserve(own_atoms_);
    first_own_bond_.reserve(own_atoms_ + 1);
    own_bonds_.reserve(2 * molecule.getNumBonds());
    for (const RDKit::Atom* atom : molecule.atoms()) {
      first_hydrogen_.push_back(num_atoms());
      bonded_to_.insert(bonded_to_.end(), atom->getTotalNumHs(), atom->getIdx());
      own_values_.push_back(atom_values(*atom));
      first_own_bond_.push_back(own_bonds_.size());
      for (const RDKit::Bond* bond : molecule.atomBonds(atom))
        own_bonds_.push_back({bond, bond->getOtherAtomIdx(atom->getIdx()), bond_values(*bond)});
    }
    first_hydrogen_.push_back(num_atoms());
    first_own_bond_.push_back(own_bonds_.size());
  }

  unsigned int num_atoms() const { return own_atoms_ + static_cast<unsigned int>(bonded_to_.size()); }
  unsigned int own_atoms() const { return own_atoms_; }
  bool added(unsigned int atom) const { return atom >= own_atoms_; }
  const RDKit::Atom* own_atom(unsigned int atom) const { return molecule_.getAtomWithIdx(atom); }
  const AtomValues& own_values(unsigned int atom) const { return own_values_[atom]; }
  unsigned int total_degree(unsigned int atom) const {
    return static_cast<unsigned int>(own_values_[atom][kTotalDegreeSlot]);
  }
  // The atomic number: 1 for an added hydrogen.
  std::size_t element(unsigned int atom) const {
    return added(atom) ? 1 : static_cast<std::size_t>(own_values_[atom][kAtomicNumSlot]);
  }
  // The atom itself, or the one an added hydrogen is bonded to.
  unsigned int heavy_atom(unsigned int atom) const { return added(atom) ? bonded_to_[atom - own_atoms_] : atom; }
  // In RDKit's order of the atom's bonds.
  std::span<const OwnBond> own_bonds(unsigned int atom) const {
    return std::span(own_bonds_).subspan(first_own_bond_[atom], first_own_bond_[atom + 1] - first_own_bond_[atom]);
  }
  std::pair<unsigned int, unsigned int> added_hydrogens(unsigned int atom) const {
    return {first_hydrogen_[atom], first_hydrogen_[atom + 1]};
  }

  // The molecule built by addHs, for RDKit's own matching; built on the first call.
  const RDKit::ROMol& built() const {
    if (!built_) built_.reset(RDKit::MolOps::addHs(molecule_));
    return *built_;
  }

 private:
  const RDKit::ROMol& molecule_;
  unsigned int own_atoms_;
  std::vector<unsigned int> first_hydrogen_;  // [own_atoms + 1]: where each own atom's hydrogens start
  std::vector<unsigned int> bonded_to_;       // the own atom of each added hydrogen
  std::vector<AtomValues> own_values_;
  std::vector<std::size_t> first_own_bond_;  // [own_atoms + 1]: where each own atom's bonds start
  std::vector<OwnBond> own_bonds_;
  mutable std::unique_ptr<RDKit::ROMol> built_;
};

// An added hydrogen and its bond, as addHs makes them: bonded to one atom by a single bond, with
// no hydrogens, charge or ring.
const RDKit::ROMol& hydrogen_on_carbon() {
  static const std::unique_ptr<const RDKit::ROMol> molecule = [] {
    RDKit::SmilesParserParams params;
    params.removeHs = false;
    return std::unique_ptr<const RDKit::ROMol>(RDKit::SmilesToMol("[H]C", params));
  }();
  return *molecule;
}

// A pattern atom that turns away atoms of elements its query cannot pass with a bit test, before
// the query's tree of virtual calls: most atoms, for most of Crippen's patterns.
class PatternAtom {
 public:
  explicit PatternAtom(const RDKit::Atom* atom)
      : atom_(atom),
        elements_(atom->hasQuery() ? possible_elements(*atom->getQuery()) : ElementSet().set()),
        flat_(atom->hasQuery() ? FlatQuery::of(*atom->getQuery(), kAtomTests) : std::nullopt),
        matches_added_hydrogen_(matches(hydrogen_on_carbon().getAtomWithIdx(0))) {}

  bool matches(const RDKit::Atom* atom) const {
    const auto element = static_cast<std::size_t>(atom->getAtomicNum());
    return may_pass(element) && atom_->Match(atom);
  }

  bool matches(const WithHydrogens& molecule, unsigned int atom) const {
    if (molecule.added(atom)) return matches_added_hydrogen_;
    if (!flat_) return matches(molecule.own_atom(atom));
    return may_pass(molecule.element(atom)) && flat_->passes(molecule.own_values(atom));
  }

  // Whether this atom may pass an atom of the element: every one at or past kFilteredElements may.
  bool may_pass(std::size_t element) const { return element >= kFilteredElements || elements_.test(element); }

 private:
  const RDKit::Atom* atom_;
  ElementSet elements_;
  std::optional<FlatQuery> flat_;  // the query, when FlatQuery can read it
  bool matches_added_hydrogen_;
};

// The atoms that root a match of the pattern, as getCrippenAtomContribs finds them: each match's
// first atom, in SubstructMatch's order, at most kRdkitMaxMatches of them.
std::vector<unsigned int> match_roots(const RDKit::ROMol& molecule, const RDKit::ROMol& pattern) {
  std::vector<RDKit::MatchVectType> matches;
  RDKit::SubstructMatch(molecule, pattern, matches, /*uniquify=*/false, /*recursionPossible=*/true);
  std::vector<unsigned int> roots;
  for (const RDKit::MatchVectType& match : matches) roots.push_back(static_cast<unsigned int>(match[0].second));
  return roots;
}

// A pattern of at most kMaxTreeAtoms atoms that form a tree in which each atom after the first is
// bonded to an earlier one, as every Crippen pattern is, and whose queries look the same with
// hydrogens implicit or explicit: its matches rooted at one atom are found by extending the match
// atom by atom along the bonds of the molecule with hydrogens, which is what SubstructMatch finds,
// without its search of the whole molecule nor the molecule built.
class TreePattern {
 public:
  static constexpr std::size_t kMaxTreeAtoms = 8;

  // Empty (tree() false) when the pattern is not such a tree.
  explicit TreePattern(const RDKit::ROMol& pattern) {
    if (!read(pattern)) {
      atoms_.clear();
      links_.clear();
    }
  }

  bool tree() const { return !atoms_.empty(); }
  std::size_t size() const { return atoms_.size(); }

  // The number of matches rooted at the atom, counted up to `limit` (past it, any number above).
  std::size_t count_rooted_at(const WithHydrogens& molecule, unsigned int root, std::size_t limit) const {
    if (!atoms_[0].matches(molecule, root)) return 0;
    Match matched{};
    matched[0] = root;
    std::size_t count = 0;
    extend(molecule, matched, 1, limit, count);
    return count;
  }

 private:
  using Match = std::array<unsigned int, kMaxTreeAtoms>;  // the molecule atom of each pattern atom

  // The bond from a pattern atom to an earlier one.
  struct Link {
    const RDKit::Bond* bond = nullptr;  // null for the first atom
    unsigned int earlier = 0;
    bool matches_added_bond = false;  // whether a hydrogen's bond passes its query
    std::optional<FlatQuery> flat;    // the bond's query, when FlatQuery can read it

    bool matches(const WithHydrogens::OwnBond& other) const {
      return flat ? flat->passes(other.values) : bond->Match(other.bond);
    }
  };

  // Reads the pattern's atoms and the bond of each to an earlier one; false if it is not such a tree.
  bool read(const RDKit::ROMol& pattern) {
    if (pattern.getNumAtoms() > kMaxTreeAtoms) return false;
    const RDKit::Bond* added_bond = hydrogen_on_carbon().getBondWithIdx(0);
    for (const RDKit::Atom* atom : pattern.atoms()) {
      if (!atom->hasQuery() || !same_with_hydrogens_explicit(*atom->getQuery())) return false;
      atoms_.emplace_back(atom);
      if (atom->getIdx() == 0) {
        links_.push_back({});
        continue;
      }
      std::vector<const RDKit::Bond*> to_earlier;
      for (const RDKit::Bond* bond : pattern.atomBonds(atom))
        if (bond->getOtherAtomIdx(atom->getIdx()) < atom->getIdx()) to_earlier.push_back(bond);
      if (to_earlier.size() != 1) return false;  // not a tree, or not in this order
      const RDKit::Bond* bond = to_earlier.front();
      if (!bond->hasQuery() || !same_with_hydrogens_explicit(*bond->getQuery())) return false;
      links_.push_back({bond, bond->getOtherAtomIdx(atom->getIdx()), bond->Match(added_bond),
                        FlatQuery::of(*bond->getQuery(), kBondTests)});
    }
    return true;
  }

  // Matches pattern atom k, bonded to an earlier matched atom, in every way, and counts the full matches.
  void extend(const WithHydrogens& molecule, Match& matched, std::size_t k, std::size_t limit, std::size_t& count) const {
    if (k == atoms_.size()) {
      ++count;
      return;
    }
    const Link& link = links_[k];
    const unsigned int anchor = matched[link.earlier];
    // Tries the neighbour `next` of the anchor as pattern atom k; false once past the limit.
    const auto try_neighbour = [&](unsigned int next, bool bond_matches) {
      const auto taken = matched.begin() + static_cast<std::ptrdiff_t>(k);
      if (std::find(matched.begin(), taken, next) != taken) return true;
      if (!bond_matches || !atoms_[k].matches(molecule, next)) return true;
      matched[k] = next;
      extend(molecule, matched, k + 1, limit, count);
      return count <= limit;
    };
    if (molecule.added(anchor)) {
      try_neighbour(molecule.heavy_atom(anchor), link.matches_added_bond);
      return;
    }
    for (const WithHydrogens::OwnBond& bond : molecule.own_bonds(anchor))
      if (!try_neighbour(bond.other, link.matches(bond))) return;
    for (auto [hydrogen, end] = molecule.added_hydrogens(anchor); hydrogen < end; ++hydrogen)
      if (!try_neighbour(hydrogen, link.matches_added_bond)) return;
  }

  std::vector<PatternAtom> atoms_;
  std::vector<Link> links_;
};

// Crippen's parameters, in their order, each with its pattern's first atom and the pattern as a tree.
struct CrippenPattern {
  const RDKit::Descriptors::CrippenParams* param;
  PatternAtom root;
  TreePattern tree;
};

// The patterns, and for each element the positions of those whose first atom may pass it, in order.
struct CrippenPatterns {
  std::vector<CrippenPattern> patterns;
  std::array<std::vector<std::size_t>, kFilteredElements> by_element;

  const std::vector<std::size_t>& for_element(std::size_t element) const {
    return by_element[std::min(element, kFilteredElements - 1)];
  }
};

const CrippenPatterns& crippen_patterns() {
  static const CrippenPatterns crippen = [] {
    CrippenPatterns result;
    for (const RDKit::Descriptors::CrippenParams& param : *RDKit::Descriptors::CrippenParamCollection::getParams())
      result.patterns.push_back(
          {&param, PatternAtom(param.dp_pattern->getAtomWithIdx(0)), TreePattern(*param.dp_pattern)});
    // The last list also serves elements past the filter, which every pattern atom may pass.
    for (std::size_t element = 0; element < kFilteredElements; ++element)
      for (std::size_t p = 0; p < result.patterns.size(); ++p)
        if (element == kFilteredElements - 1 || result.patterns[p].root.may_pass(element))
          result.by_element[element].push_back(p);
    return result;
  }();
  return crippen;
}

// The atoms that root a match of the tree pattern, in index order, when SubstructMatch would find
// no more than kRdkitMaxMatches matches in all, so that none is cut; nullopt otherwise.
std::optional<std::vector<unsigned int>> tree_match_roots(const WithHydrogens& molecule, const TreePattern& pattern) {
  if (!pattern.tree()) return std::nullopt;
  std::vector<unsigned int> roots;
  std::size_t matches = 0;
  for (unsigned int atom = 0; atom < molecule.num_atoms(); ++atom) {
    const std::size_t rooted = pattern.count_rooted_at(molecule, atom, kRdkitMaxMatches - matches);
    if (rooted > 0) roots.push_back(atom);
    matches += rooted;
    if (matches > kRdkitMaxMatches) return std::nullopt;
  }
  return roots;
}

void set_type(CrippenContributions& contributions, unsigned int atom, const CrippenPattern& pattern) {
  contributions.logp[atom] = pattern.param->logp;
  contributions.refractivity[atom] = pattern.param->mr;
}

// Whether some untyped atom passes the pattern's first atom, where every match of it is rooted.
bool may_root_a_match(const WithHydrogens& molecule, const PatternAtom& root, const std::vector<bool>& typed) {
  for (unsigned int atom = 0; atom < molecule.num_atoms(); ++atom)
    if (!typed[atom] && root.matches(molecule, atom)) return true;
  return false;
}

// RDKit's typing pattern by pattern, as getCrippenAtomContribs runs it: each pattern's match roots
// not typed yet take its values. A tree pattern whose first atom passes no untyped atom is skipped,
// since none of its matches could type one; the other trees are matched from each atom, and the
// remaining patterns (and trees with more than kRdkitMaxMatches matches, whose cut only RDKit's
// search order tells) by RDKit on the molecule built with its hydrogens.
void type_pattern_by_pattern(const WithHydrogens& molecule, CrippenContributions& contributions) {
  std::vector<bool> typed(molecule.num_atoms(), false);
  std::size_t untyped = typed.size();
  for (const CrippenPattern& pattern : crippen_patterns().patterns) {
    if (untyped == 0) return;
    // The shortcut reads the own atoms as they are: exact only for the queries trees allow.
    if (pattern.tree.tree() && !may_root_a_match(molecule, pattern.root, typed)) continue;
    std::optional<std::vector<unsigned int>> roots = tree_match_roots(molecule, pattern.tree);
    if (!roots) roots = match_roots(molecule.built(), *pattern.param->dp_pattern);
    for (const unsigned int atom : *roots) {
      if (typed[atom]) continue;
      typed[atom] = true;
      --untyped;
      set_type(contributions, atom, pattern);
    }
  }
}

// Whether RDKit's search could cut the tree pattern's matches: whether it has more than
// kRdkitMaxMatches. Each match roots at an atom of an element its first atom may pass. Its second
// atom is one of the root's at most max_degree neighbours, and each later one a neighbour of an
// earlier atom's match other than one matched already, so at most max_degree * (max_degree -
// 1)^(size - 2) matches root at each such atom. Only past that bound are the matches counted.
bool may_be_cut(const WithHydrogens& molecule, const CrippenPattern& pattern, unsigned int max_degree) {
  std::size_t roots = 0;
  for (unsigned int atom = 0; atom < molecule.num_atoms(); ++atom)
    roots += pattern.root.may_pass(molecule.element(atom)) ? 1 : 0;
  std::size_t bound = roots;
  for (std::size_t k = 1; k < pattern.tree.size() && bound <= kRdkitMaxMatches; ++k)
    bound *= k == 1 ? max_degree : max_degree - 1;
  return bound > kRdkitMaxMatches && !tree_match_roots(molecule, pattern.tree);
}

// RDKit's typing atom by atom: each atom tries the patterns whose first atom may pass its element, in
// order, and takes the first with a match rooted at it; trees are matched from the atom alone, the
// other patterns by RDKit, once for the molecule. The result is RDKit's unless a pattern that typed
// an atom has more matches than RDKit's search keeps; then this returns false.
bool type_atom_by_atom(const WithHydrogens& molecule, CrippenContributions& contributions) {
  const CrippenPatterns& crippen = crippen_patterns();
  std::vector<std::vector<bool>> rdkit_roots(crippen.patterns.size());  // filled when first needed
  std::vector<bool> typed_some(crippen.patterns.size(), false);
  const auto roots_at = [&](std::size_t p, unsigned int atom) {
    const CrippenPattern& pattern = crippen.patterns[p];
    if (pattern.tree.tree()) return pattern.tree.count_rooted_at(molecule, atom, 0) > 0;
    std::vector<bool>& roots = rdkit_roots[p];
    if (roots.empty()) {
      roots.assign(molecule.num_atoms(), false);
      for (const unsigned int root : match_roots(molecule.built(), *pattern.param->dp_pattern)) roots[root] = true;
    }
    return static_cast<bool>(roots[atom]);
  };
  for (unsigned int atom = 0; atom < molecule.num_atoms(); ++atom) {
    for (const std::size_t p : crippen.for_element(molecule.element(atom))) {
      if (!roots_at(p, atom)) continue;
      set_type(contributions, atom, crippen.patterns[p]);
      typed_some[p] = true;
      break;
    }
  }
  unsigned int max_degree = 1;  // an added hydrogen's
  for (unsigned int atom = 0; atom < molecule.own_atoms(); ++atom)
    max_degree = std::max(max_degree, molecule.total_degree(atom));
  for (std::size_t p = 0; p < crippen.patterns.size(); ++p)
    if (typed_some[p] && crippen.patterns[p].tree.tree() && may_be_cut(molecule, crippen.patterns[p], max_degree))
      return false;
  return true;
}

// RDKit's getCrippenAtomContribs, with its result: each atom takes the values of the first pattern,
// in the parameters' order, that a match of roots at it. RDKit searches the whole molecule for every
// one of its 110 patterns; typing atom by atom tries about a handful per atom, and falls back to
// typing pattern by pattern only where RDKit's cut of a pattern's matches could change the result.
void type_atoms(const WithHydrogens& molecule, CrippenContributions& contributions) {
  if (type_atom_by_atom(molecule, contributions)) return;
  std::fill(contributions.logp.begin(), contributions.logp.end(), 0.0);
  std::fill(contributions.refractivity.begin(), contributions.refractivity.end(), 0.0);
  type_pattern_by_pattern(molecule, contributions);
}

std::shared_ptr<const CrippenContributions> type_crippen_atoms(const RDKit::ROMol& molecule) {
  // The molecule calcCrippenDescriptors types: all hydrogens explicit, no coordinates.
  const WithHydrogens with_hydrogens(molecule);
  auto result = std::make_shared<CrippenContributions>();
  const unsigned int atoms = with_hydrogens.num_atoms();
  result->logp.resize(atoms);
  result->refractivity.resize(atoms);
  type_atoms(with_hydrogens, *result);
  result->molecule_atoms = with_hydrogens.own_atoms();
  result->heavy_atom.reserve(atoms);
  for (unsigned int atom = 0; atom < atoms; ++atom) result->heavy_atom.push_back(with_hydrogens.heavy_atom(atom));
  return result;
}

// What an earlier call kept on this molecule; null if nothing, or if atoms were added or removed since.
std::shared_ptr<const CrippenContributions> kept_crippen_contributions(const RDKit::ROMol& molecule) {
  std::shared_ptr<const CrippenContributions> kept;
  if (!molecule.getPropIfPresent(kCrippenProperty, kept)) return nullptr;
  return kept->molecule_atoms == molecule.getNumAtoms() ? kept : nullptr;
}

// The left-to-right sum from 0, the order RDKit's Crippen descriptors add in.
double sum_in_order(const std::vector<double>& values) { return std::accumulate(values.begin(), values.end(), 0.0); }

// Connectivity (chi) and shape (kappa) terms of the paths of 2, 3 and 4 bonds, in slot length - 2.
struct PathTerms {
  std::array<double, 3> chi_n{}, chi_v{};  // sums over the paths of the products of the atoms' terms
  std::array<double, 3> count{};           // the number of paths
};

constexpr std::size_t kMaxPathBonds = 4;

// RDKit's paths (findAllPathsOfLengthN, without hydrogens) are walks along bonds between non-hydrogen
// atoms: each atom new, except that the last step of a walk may return to an atom other than the
// one before last (ring closure: a ring of its length, or a ring with a tail). RDKit walks from each
// atom in index order, to each neighbor in index order, so the walks of one length come in
// lexicographic order of their atom indices; of the walks along the same set of bonds it keeps the
// first. Each chi sums its paths' products in that order, and this enumeration follows it exactly.
class PathWalker {
 public:
  PathWalker(const RDKit::ROMol& molecule, std::vector<double> n_terms, std::vector<double> v_terms)
      : neighbors_(molecule.getNumAtoms()), n_terms_(std::move(n_terms)), v_terms_(std::move(v_terms)) {
    for (const RDKit::Bond* bond : molecule.bonds()) {
      const RDKit::Atom* begin = bond->getBeginAtom();
      const RDKit::Atom* end = bond->getEndAtom();
      if (begin->getAtomicNum() == 1 || end->getAtomicNum() == 1) continue;
      neighbors_[begin->getIdx()].push_back(end->getIdx());
      neighbors_[end->getIdx()].push_back(begin->getIdx());
    }
    for (std::vector<unsigned int>& list : neighbors_) std::sort(list.begin(), list.end());
  }

  PathTerms walk() {
    for (unsigned int start = 0; start < neighbors_.size(); ++start) {
      path_[0] = start;
      extend(1);
    }
    return terms_;
  }

 private:
  // Extends the simple walk path_[0 .. atoms) by one step in every way, in neighbor order.
  void extend(std::size_t atoms) {
    const unsigned int last = path_[atoms - 1];
    for (const unsigned int next : neighbors_[last]) {
      path_[atoms] = next;
      const auto visited_end = path_.begin() + static_cast<std::ptrdiff_t>(atoms);
      const auto earlier = std::find(path_.begin(), visited_end, next);
      if (earlier == visited_end) {
        if (atoms >= 2) add_if_first(atoms + 1, std::nullopt);
        if (atoms < kMaxPathBonds) extend(atoms + 1);
      } else if (atoms >= 3 && next != path_[atoms - 2]) {
        add_if_first(atoms + 1, static_cast<std::size_t>(earlier - path_.begin()));
      }
    }
  }

  // path_[0 .. atoms) is a walk; closes_at is the index of the atom its last step returns to, if any.
  // Adds it when it is the first of its set of bonds.
  void add_if_first(std::size_t atoms, std::optional<std::size_t> closes_at) {
    if (!first_of_its_bonds(atoms, closes_at)) return;
    const std::size_t slot = atoms - 3;
    terms_.chi_n[slot] += product_along(atoms, n_terms_);
    terms_.chi_v[slot] += product_along(atoms, v_terms_);
    terms_.count[slot] += 1.0;
  }

  // The walks along the same bonds: a simple path read from either end; a ring read from any of its
  // atoms in either direction; a ring with a tail read from the tail's end around either way. The
  // first in lexicographic order is the one checked here.
  bool first_of_its_bonds(std::size_t atoms, std::optional<std::size_t> closes_at) const {
    const std::size_t last = atoms - 1;
    if (!closes_at) return path_[0] < path_[last];
    const bool ring_starts_at_smallest =
        *closes_at > 0 || *std::min_element(path_.begin(), path_.begin() + static_cast<std::ptrdiff_t>(last)) == path_[0];
    return ring_starts_at_smallest && path_[*closes_at + 1] < path_[last - 1];
  }

  // The product of the atoms' terms along the walk, multiplied in walk order, the atom a ring
  // closes at counted once only when it is the walk's first atom (as RDKit does).
  double product_along(std::size_t atoms, const std::vector<double>& terms) const {
    const std::size_t last = atoms - 1;
    double product = 1.0;
    for (std::size_t i = 0; i < last; ++i) product *= terms[path_[i]];
    if (path_[last] != path_[0]) product *= terms[path_[last]];
    return product;
  }

  std::vector<std::vector<unsigned int>> neighbors_;  // non-hydrogen neighbors, ascending
  std::vector<double> n_terms_, v_terms_;  // per atom
  std::array<unsigned int, kMaxPathBonds + 1> path_{};
  PathTerms terms_;
};

// The molecule's SSSR rings by kind, as RDKit's ring counts (Lipinski.cpp) sort them: a ring is
// aromatic when all its bonds are and aliphatic otherwise, saturated when all its bonds are single
// and none aromatic, and a heterocycle when an end of one of its bonds is not carbon (NumHeterocycles:
// one of its atoms). Needs the ring information perceived.
struct RingCounts {
  double all = 0, heterocycles = 0;
  double aromatic = 0, aromatic_heterocycles = 0, aromatic_carbocycles = 0;
  double aliphatic = 0, aliphatic_heterocycles = 0, aliphatic_carbocycles = 0;
  double saturated = 0, saturated_heterocycles = 0, saturated_carbocycles = 0;
};

RingCounts count_rings(const RDKit::ROMol& molecule) {
  const RDKit::RingInfo& rings = *molecule.getRingInfo();
  const auto carbon = [&](unsigned int atom) { return molecule.getAtomWithIdx(atom)->getAtomicNum() == 6; };
  RingCounts counts;
  counts.all = rings.numRings();
  for (const std::vector<int>& ring : rings.atomRings())
    if (!std::all_of(ring.begin(), ring.end(), [&](int atom) { return carbon(static_cast<unsigned int>(atom)); }))
      ++counts.heterocycles;
  for (const std::vector<int>& ring : rings.bondRings()) {
    bool aromatic = true, saturated = true, hetero = false;
    for (const int index : ring) {
      const RDKit::Bond* bond = molecule.getBondWithIdx(static_cast<unsigned int>(index));
      aromatic = aromatic && bond->getIsAromatic();
      saturated = saturated && bond->getBondType() == RDKit::Bond::SINGLE && !bond->getIsAromatic();
      hetero = hetero || !carbon(bond->getBeginAtomIdx()) || !carbon(bond->getEndAtomIdx());
    }
    if (aromatic) {
      ++counts.aromatic;
      ++(hetero ? counts.aromatic_heterocycles : counts.aromatic_carbocycles);
    } else {
      ++counts.aliphatic;
      ++(hetero ? counts.aliphatic_heterocycles : counts.aliphatic_carbocycles);
    }
    if (saturated) {
      ++counts.saturated;
      ++(hetero ? counts.saturated_heterocycles : counts.saturated_carbocycles);
    }
  }
  return counts;
}

// The intermediate results of one molecule, each computed on first use.
class MoleculeTerms {
 public:
  explicit MoleculeTerms(const RDKit::ROMol& molecule) : molecule_(molecule) {}

  const RDKit::ROMol& molecule() const { return molecule_; }

  const CrippenContributions& crippen() {
    if (!crippen_) crippen_ = crippen_contributions(molecule_, KeepOnMolecule::yes);
    return *crippen_;
  }

  const PathTerms& paths() {
    if (!paths_) paths_ = PathWalker(molecule_, chi_n_terms(), chi_v_terms()).walk();
    return *paths_;
  }

  double heavy_atoms() const { return molecule_.getNumHeavyAtoms(); }

  double alpha() {
    if (!alpha_) alpha_ = RDKit::Descriptors::calcHallKierAlpha(molecule_);
    return *alpha_;
  }

  const RingCounts& rings() {
    if (!rings_) rings_ = count_rings(molecule_);
    return *rings_;
  }

 private:
  // RDKit's per-atom terms of the chi-n and chi-v indices (1 / sqrt(delta); 0 for delta 0), from
  // RDKit itself and its cache on the molecule: it exports the function for the chi-v terms, and
  // calcChi0n computes and keeps the chi-n terms.
  std::vector<double> chi_n_terms() const {
    RDKit::Descriptors::calcChi0n(molecule_);
    return molecule_.getProp<std::vector<double>>(RDKit::common_properties::_connectivityNVals);
  }
  std::vector<double> chi_v_terms() const {
    std::vector<double> deltas(molecule_.getNumAtoms());
    RDKit::Descriptors::detail::hkDeltas(molecule_, deltas, /*force=*/false);
    return deltas;
  }

  const RDKit::ROMol& molecule_;
  std::shared_ptr<const CrippenContributions> crippen_;
  std::optional<PathTerms> paths_;
  std::optional<double> alpha_;
  std::optional<RingCounts> rings_;
};

// Hall and Kier's shape indices from path counts (Rev. Comp. Chem. 2, 367-422, 1991, eq. 58-62), in
// RDKit's order of operations; 0 where the denominator is.
double kappa2_from(double paths, double atoms, double alpha) {
  const double denominator = (paths + alpha) * (paths + alpha);
  if (denominator == 0.0) return 0.0;
  return (atoms + alpha - 1) * (atoms + alpha - 2) * (atoms + alpha - 2) / denominator;
}

double kappa3_from(double paths, double atoms, double alpha) {
  const double denominator = (paths + alpha) * (paths + alpha);
  if (denominator == 0.0) return 0.0;
  const bool odd = static_cast<long>(atoms) % 2 != 0;
  return (atoms + alpha - (odd ? 1 : 2)) * (atoms + alpha - 3) * (atoms + alpha - 3) / denominator;
}

// RDKit 2022.09 registers the chi3n and chi3v functions under the names chi2n and chi2v as well, so
// its "chi2n" and "chi2v" are the 3-bond indices. Whichever this build does is found once, by asking
// its registry on a molecule where the two differ.
std::size_t registered_slot(const std::string& name, double (*two_bond_index)(const RDKit::ROMol&, bool)) {
  const std::unique_ptr<RDKit::ROMol> probe(RDKit::SmilesToMol("CCC(C)CC"));
  const double registered = (*RDKit::Descriptors::Properties::getProperty(name))(*probe);
  return registered == two_bond_index(*probe, /*force=*/false) ? 0 : 1;
}

double chi2n(MoleculeTerms& terms) {
  static const std::size_t slot = registered_slot("chi2n", RDKit::Descriptors::calcChi2n);
  return terms.paths().chi_n[slot];
}

double chi2v(MoleculeTerms& terms) {
  static const std::size_t slot = registered_slot("chi2v", RDKit::Descriptors::calcChi2v);
  return terms.paths().chi_v[slot];
}

double kappa2(MoleculeTerms& terms) { return kappa2_from(terms.paths().count[0], terms.heavy_atoms(), terms.alpha()); }

// Kier's flexibility index, kappa1 kappa2 / heavy atoms; 0 without heavy atoms.
double phi(MoleculeTerms& terms) {
  if (terms.heavy_atoms() == 0) return 0.0;
  return RDKit::Descriptors::calcKappa1(terms.molecule()) * kappa2(terms) / terms.heavy_atoms();
}

// RDKit counts a SMARTS pattern's unique matches, and copies the pattern before each match when it
// holds recursive queries ($(...)), as a match writes into those. Here each thread compiles the
// pattern once and matches its own copy: the same count, without a copy a molecule.
template <const char* kSmarts>
double count_unique_matches(const RDKit::ROMol& molecule) {
  thread_local const std::unique_ptr<const RDKit::ROMol> pattern(RDKit::SmartsToMol(kSmarts));
  std::vector<RDKit::MatchVectType> matches;
  RDKit::SubstructMatch(molecule, *pattern, matches);
  return static_cast<double>(matches.size());
}

// The patterns of RDKit 2022.09's NumRotatableBonds (its strict definition, the default of builds
// with RDK_USE_STRICT_ROTOR_DEFINITION), NumHBA, NumHBD, NumHeteroatoms and NumAmideBonds, used only
// where RDKit reports those versions of the definitions; any other RDKit computes them itself.
constexpr char kStrictRotatableBond[] =
    "[!$(*#*)&!D1&!$(C(F)(F)F)&!$(C(Cl)(Cl)Cl)&!$(C(Br)(Br)Br)&!$(C([CH3])([CH3])[CH3])&!$([CD3](=[N,O,S])-!@[#7,O,S!"
    "D1])&!$([#7,O,S!D1]-!@[CD3]=[N,O,S])&!$([CD3](=[N+])-!@[#7!D1])&!$([#7!D1]-!@[CD3]=[N+])]-!@[!$(*#*)&!D1&!$(C(F)("
    "F)F)&!$(C(Cl)(Cl)Cl)&!$(C(Br)(Br)Br)&!$(C([CH3])([CH3])[CH3])]";
constexpr char kHydrogenBondAcceptor[] =
    "[$([O,S;H1;v2]-[!$(*=[O,N,P,S])]),$([O,S;H0;v2]),$([O,S;-]),$([N;v3;!$(N-*=!@[O,N,P,S])]),$([nH0,o,s;+0])]";
constexpr char kHydrogenBondDonor[] = "[N&!H0&v3,N&!H0&+1&v4,O&H1&+0,S&H1&+0,n&H1&+0]";
constexpr char kHeteroatom[] = "[!#6;!#1]";
constexpr char kAmideBond[] = "C(=[O;!R])N";

// The patterns are matched here by walking each atom's bonds, which counts what RDKit's search
// counts (checked against it on every row of the shared molecule tables) in a fraction of its time:
// each recursive query is a search of the whole molecule there. The atom and bond tests below are
// the patterns' SMARTS primitives, as RDKit evaluates them. RDKit stops after kRdkitMaxMatches
// matches; a molecule that might have more is left to its search.

// "C", "O", ...: the element, not aromatic. "c", "n", ...: the element, aromatic.
bool aliphatic(const RDKit::Atom* atom, int element) {
  return atom->getAtomicNum() == element && !atom->getIsAromatic();
}
bool aromatic(const RDKit::Atom* atom, int element) { return atom->getAtomicNum() == element && atom->getIsAromatic(); }
// "[N,O,S]" and "[O,N,P,S]".
bool aliphatic_n_o_s(const RDKit::Atom* atom) {
  return aliphatic(atom, 7) || aliphatic(atom, 8) || aliphatic(atom, 16);
}
bool aliphatic_o_n_p_s(const RDKit::Atom* atom) { return aliphatic_n_o_s(atom) || aliphatic(atom, 15); }

bool in_ring(const RDKit::ROMol& molecule, const RDKit::Bond* bond) {
  return molecule.getRingInfo()->numBondRings(bond->getIdx()) != 0;
}
// "R": in a ring.
bool in_ring(const RDKit::ROMol& molecule, const RDKit::Atom* atom) {
  return molecule.getRingInfo()->numAtomRings(atom->getIdx()) != 0;
}
// "-" and "=": single and double bonds; a SMARTS bond left unwritten is single or aromatic.
bool single(const RDKit::Bond* bond) { return bond->getBondType() == RDKit::Bond::SINGLE; }
bool double_bond(const RDKit::Bond* bond) { return bond->getBondType() == RDKit::Bond::DOUBLE; }
bool single_or_aromatic(const RDKit::Bond* bond) {
  return single(bond) || bond->getBondType() == RDKit::Bond::AROMATIC;
}
bool acyclic_single(const RDKit::ROMol& molecule, const RDKit::Bond* bond) {
  return single(bond) && !in_ring(molecule, bond);
}

// Whether the atom has a bond passing `bond_test` to a neighbor passing `atom_test`.
template <typename BondTest, typename AtomTest>
bool has_neighbor(const RDKit::ROMol& molecule, const RDKit::Atom* atom, BondTest bond_test, AtomTest atom_test) {
  for (const RDKit::Bond* bond : molecule.atomBonds(atom))
    if (bond_test(bond) && atom_test(bond->getOtherAtom(atom))) return true;
  return false;
}

// "$(C(X)(X)X)": an aliphatic carbon with three neighbors passing `end`, by unwritten bonds.
template <typename End>
bool carbon_with_three(const RDKit::ROMol& molecule, const RDKit::Atom* atom, End end) {
  if (!aliphatic(atom, 6)) return false;
  int ends = 0;
  for (const RDKit::Bond* bond : molecule.atomBonds(atom))
    if (single_or_aromatic(bond) && end(bond->getOtherAtom(atom))) ++ends;
  return ends >= 3;
}

// "[CD3]": an aliphatic carbon with three neighbors.
bool trigonal_carbon(const RDKit::Atom* atom) { return aliphatic(atom, 6) && atom->getDegree() == 3; }

// "$([CD3](=X)-!@Y)": a [CD3] with a double bond to an atom passing x and an acyclic single bond to
// one passing y (two different atoms, as the bonds differ).
template <typename X, typename Y>
bool trigonal_carbon_between(const RDKit::ROMol& molecule, const RDKit::Atom* atom, X x, Y y) {
  return trigonal_carbon(atom) && has_neighbor(molecule, atom, double_bond, x) &&
         has_neighbor(molecule, atom, [&](const RDKit::Bond* b) { return acyclic_single(molecule, b); }, y);
}

// "$(Y-!@[CD3]=X)": an atom with an acyclic single bond to a [CD3] that has a double bond to an atom
// passing x (not the atom itself, which it joins by a single bond).
template <typename X>
bool next_to_trigonal_carbon(const RDKit::ROMol& molecule, const RDKit::Atom* atom, X x) {
  const auto double_bonded_to_x = [&](const RDKit::Atom* carbon) {
    return trigonal_carbon(carbon) && has_neighbor(molecule, carbon, double_bond, x);
  };
  return has_neighbor(
      molecule, atom, [&](const RDKit::Bond* b) { return acyclic_single(molecule, b); }, double_bonded_to_x);
}

// The second atom of kStrictRotatableBond: no triple bond, not a terminal atom, not the carbon of a
// CF3, CCl3, CBr3 or tert-butyl group.
bool rotor_end(const RDKit::ROMol& molecule, const RDKit::Atom* atom) {
  const auto element = [](int z) { return [z](const RDKit::Atom* a) { return aliphatic(a, z); }; };
  const auto methyl = [](const RDKit::Atom* a) { return aliphatic(a, 6) && a->getTotalNumHs(true) == 3; };
  const auto triple = [](const RDKit::Bond* b) { return b->getBondType() == RDKit::Bond::TRIPLE; };
  return !has_neighbor(molecule, atom, triple, [](const RDKit::Atom*) { return true; }) && atom->getDegree() != 1 &&
         !carbon_with_three(molecule, atom, element(9)) && !carbon_with_three(molecule, atom, element(17)) &&
         !carbon_with_three(molecule, atom, element(35)) && !carbon_with_three(molecule, atom, methyl);
}

// What the first atom must not be besides: the carbon or the heteroatom of an amide, ester,
// thioamide or amidine-like group, or the carbon or the nitrogen of an amidinium.
bool amide_like(const RDKit::ROMol& molecule, const RDKit::Atom* atom) {
  const auto amide_partner = [](const RDKit::Atom* a) {  // "[#7,O,S!D1]"
    return a->getAtomicNum() == 7 || aliphatic(a, 8) || (aliphatic(a, 16) && a->getDegree() != 1);
  };
  const auto cationic_n = [](const RDKit::Atom* a) { return aliphatic(a, 7) && a->getFormalCharge() == 1; };
  const auto nonterminal_n = [](const RDKit::Atom* a) { return a->getAtomicNum() == 7 && a->getDegree() != 1; };
  return trigonal_carbon_between(molecule, atom, aliphatic_n_o_s, amide_partner) ||
         (amide_partner(atom) && next_to_trigonal_carbon(molecule, atom, aliphatic_n_o_s)) ||
         trigonal_carbon_between(molecule, atom, cationic_n, nonterminal_n) ||
         (nonterminal_n(atom) && next_to_trigonal_carbon(molecule, atom, cationic_n));
}

// kStrictRotatableBond's unique matches: the acyclic single bonds between two rotor ends, one of
// them not amide-like (the first atom of a match).
double strict_rotatable_bonds(MoleculeTerms& terms) {
  const RDKit::ROMol& molecule = terms.molecule();
  if (!molecule.getRingInfo()->isInitialized()) return count_unique_matches<kStrictRotatableBond>(molecule);
  std::size_t count = 0;
  for (const RDKit::Bond* bond : molecule.bonds()) {
    if (!acyclic_single(molecule, bond)) continue;
    const RDKit::Atom *begin = bond->getBeginAtom(), *end = bond->getEndAtom();
    if (rotor_end(molecule, begin) && rotor_end(molecule, end) &&
        (!amide_like(molecule, begin) || !amide_like(molecule, end)))
      ++count;
  }
  // Each bond matches at most both ways round.
  if (2 * count > kRdkitMaxMatches) return count_unique_matches<kStrictRotatableBond>(molecule);
  return static_cast<double>(count);
}

// One atom of kHydrogenBondAcceptor.
bool hydrogen_bond_acceptor(const RDKit::ROMol& molecule, const RDKit::Atom* atom) {
  const unsigned int hydrogens = atom->getTotalNumHs(true);
  if (aliphatic(atom, 8) || aliphatic(atom, 16)) {
    const int valence = atom->getTotalValence();
    const auto not_double_bonded_to_o_n_p_s = [&](const RDKit::Atom* neighbor) {
      return !has_neighbor(molecule, neighbor, double_bond, aliphatic_o_n_p_s);
    };
    return (hydrogens == 1 && valence == 2 && has_neighbor(molecule, atom, single, not_double_bonded_to_o_n_p_s)) ||
           (hydrogens == 0 && valence == 2) || atom->getFormalCharge() == -1;
  }
  if (aliphatic(atom, 7)) {
    const auto acyclic_double = [&](const RDKit::Bond* b) { return double_bond(b) && !in_ring(molecule, b); };
    const auto double_bonded_to_o_n_p_s = [&](const RDKit::Atom* neighbor) {
      return has_neighbor(molecule, neighbor, acyclic_double, aliphatic_o_n_p_s);
    };
    return atom->getTotalValence() == 3 && !has_neighbor(molecule, atom, single, double_bonded_to_o_n_p_s);
  }
  return ((aromatic(atom, 7) && hydrogens == 0) || aromatic(atom, 8) || aromatic(atom, 16)) &&
         atom->getFormalCharge() == 0;
}

// The unique matches of a pattern of one atom: the atoms passing its test. RDKit's search counts
// them where its cut could matter, or where the test could not read the rings.
template <const char* kSmarts, typename AtomTest>
double count_atoms(const RDKit::ROMol& molecule, AtomTest atom_test) {
  if (molecule.getNumAtoms() > kRdkitMaxMatches || !molecule.getRingInfo()->isInitialized())
    return count_unique_matches<kSmarts>(molecule);
  std::size_t count = 0;
  for (const RDKit::Atom* atom : molecule.atoms())
    if (atom_test(atom)) ++count;
  return static_cast<double>(count);
}

double hydrogen_bond_acceptors(MoleculeTerms& terms) {
  const RDKit::ROMol& molecule = terms.molecule();
  return count_atoms<kHydrogenBondAcceptor>(
      molecule, [&](const RDKit::Atom* atom) { return hydrogen_bond_acceptor(molecule, atom); });
}

// One atom of kHydrogenBondDonor. "H" counts an atom's hydrogens, its hydrogen neighbors included;
// "v" is its total valence.
bool hydrogen_bond_donor(const RDKit::Atom* atom) {
  const unsigned int hydrogens = atom->getTotalNumHs(true);
  const int charge = atom->getFormalCharge();
  if (aliphatic(atom, 7)) {
    const int valence = atom->getTotalValence();
    return hydrogens != 0 && (valence == 3 || (charge == 1 && valence == 4));
  }
  return (aliphatic(atom, 8) || aliphatic(atom, 16) || aromatic(atom, 7)) && hydrogens == 1 && charge == 0;
}

double hydrogen_bond_donors(MoleculeTerms& terms) {
  return count_atoms<kHydrogenBondDonor>(terms.molecule(), hydrogen_bond_donor);
}

double heteroatoms(MoleculeTerms& terms) {
  return count_atoms<kHeteroatom>(terms.molecule(), [](const RDKit::Atom* atom) {
    return atom->getAtomicNum() != 6 && atom->getAtomicNum() != 1;
  });
}

// kAmideBond's unique matches: for each aliphatic carbon, every pair of an acyclic aliphatic oxygen
// it holds by a double bond and an aliphatic nitrogen it holds by a single or aromatic bond.
double amide_bonds(MoleculeTerms& terms) {
  const RDKit::ROMol& molecule = terms.molecule();
  if (!molecule.getRingInfo()->isInitialized()) return count_unique_matches<kAmideBond>(molecule);
  std::size_t count = 0;
  for (const RDKit::Atom* carbon : molecule.atoms()) {
    if (!aliphatic(carbon, 6)) continue;
    std::size_t oxygens = 0, nitrogens = 0;
    for (const RDKit::Bond* bond : molecule.atomBonds(carbon)) {
      const RDKit::Atom* other = bond->getOtherAtom(carbon);
      if (double_bond(bond) && aliphatic(other, 8) && !in_ring(molecule, other)) ++oxygens;
      if (single_or_aromatic(bond) && aliphatic(other, 7)) ++nitrogens;
    }
    count += oxygens * nitrogens;
  }
  if (count > kRdkitMaxMatches) return count_unique_matches<kAmideBond>(molecule);
  return static_cast<double>(count);
}

#ifdef RDK_USE_STRICT_ROTOR_DEFINITION
constexpr bool kStrictRotorsByDefault = true;
#else
constexpr bool kStrictRotorsByDefault = false;
#endif

// One of RingCounts' counts, or RDKit's own for a molecule whose rings are not perceived.
template <double RingCounts::*kCount, unsigned int (*kRdkitCount)(const RDKit::ROMol&)>
double ring_count(MoleculeTerms& terms) {
  if (!terms.molecule().getRingInfo()->isInitialized()) return kRdkitCount(terms.molecule());
  return terms.rings().*kCount;
}

bool counts_as_rdkit_2022_09(std::string_view name) {
  if (name == "NumRotatableBonds")
    return kStrictRotorsByDefault && RDKit::Descriptors::NumRotatableBondsVersion == "3.1.0";
  if (name == "NumHBA") return RDKit::Descriptors::NumHBAVersion == "2.0.1";
  if (name == "NumHBD") return RDKit::Descriptors::NumHBDVersion == "2.0.1";
  if (name == "NumHeteroatoms") return RDKit::Descriptors::NumHeteroatomsVersion == "1.0.1";
  if (name == "NumAmideBonds") return RDKit::Descriptors::NumAmideBondsVersion == "1.0.0";
  if (name == "NumRings") return RDKit::Descriptors::NumRingsVersion == "1.0.1";
  const std::pair<std::string_view, const std::string*> ring_count_versions[] = {
      {"NumAromaticRings", &RDKit::Descriptors::NumAromaticRingsVersion},
      {"NumAliphaticRings", &RDKit::Descriptors::NumAliphaticRingsVersion},
      {"NumSaturatedRings", &RDKit::Descriptors::NumSaturatedRingsVersion},
      {"NumHeterocycles", &RDKit::Descriptors::NumHeterocyclesVersion},
      {"NumAromaticHeterocycles", &RDKit::Descriptors::NumAromaticHeterocyclesVersion},
      {"NumAromaticCarbocycles", &RDKit::Descriptors::NumAromaticCarbocyclesVersion},
      {"NumSaturatedHeterocycles", &RDKit::Descriptors::NumSaturatedHeterocyclesVersion},
      {"NumSaturatedCarbocycles", &RDKit::Descriptors::NumSaturatedCarbocyclesVersion},
      {"NumAliphaticHeterocycles", &RDKit::Descriptors::NumAliphaticHeterocyclesVersion},
      {"NumAliphaticCarbocycles", &RDKit::Descriptors::NumAliphaticCarbocyclesVersion}};
  for (const auto& [counted, version] : ring_count_versions)
    if (name == counted) return *version == "1.0.0";
  return true;
}

using SharedDescriptor = double (*)(MoleculeTerms&);

// The descriptors computed here, under RDKit's names.
constexpr std::pair<std::string_view, SharedDescriptor> kSharedDescriptors[] = {
    {"CrippenClogP", [](MoleculeTerms& t) { return sum_in_order(t.crippen().logp); }},
    {"CrippenMR", [](MoleculeTerms& t) { return sum_in_order(t.crippen().refractivity); }},
    {"chi2n", chi2n},
    {"chi3n", [](MoleculeTerms& t) { return t.paths().chi_n[1]; }},
    {"chi4n", [](MoleculeTerms& t) { return t.paths().chi_n[2]; }},
    {"chi2v", chi2v},
    {"chi3v", [](MoleculeTerms& t) { return t.paths().chi_v[1]; }},
    {"chi4v", [](MoleculeTerms& t) { return t.paths().chi_v[2]; }},
    {"kappa2", kappa2},
    {"kappa3", [](MoleculeTerms& t) { return kappa3_from(t.paths().count[1], t.heavy_atoms(), t.alpha()); }},
    {"Phi", phi},
    {"NumRotatableBonds", strict_rotatable_bonds},
    {"NumHBA", hydrogen_bond_acceptors},
    {"NumHBD", hydrogen_bond_donors},
    {"NumHeteroatoms", heteroatoms},
    {"NumAmideBonds", amide_bonds},
    {"NumRings", ring_count<&RingCounts::all, RDKit::Descriptors::calcNumRings>},
    {"NumAromaticRings", ring_count<&RingCounts::aromatic, RDKit::Descriptors::calcNumAromaticRings>},
    {"NumAliphaticRings", ring_count<&RingCounts::aliphatic, RDKit::Descriptors::calcNumAliphaticRings>},
    {"NumSaturatedRings", ring_count<&RingCounts::saturated, RDKit::Descriptors::calcNumSaturatedRings>},
    {"NumHeterocycles", ring_count<&RingCounts::heterocycles, RDKit::Descriptors::calcNumHeterocycles>},
    {"NumAromaticHeterocycles",
     ring_count<&RingCounts::aromatic_heterocycles, RDKit::Descriptors::calcNumAromaticHeterocycles>},
    {"NumAromaticCarbocycles",
     ring_count<&RingCounts::aromatic_carbocycles, RDKit::Descriptors::calcNumAromaticCarbocycles>},
    {"NumSaturatedHeterocycles",
     ring_count<&RingCounts::saturated_heterocycles, RDKit::Descriptors::calcNumSaturatedHeterocycles>},
    {"NumSaturatedCarbocycles",
     ring_count<&RingCounts::saturated_carbocycles, RDKit::Descriptors::calcNumSaturatedCarbocycles>},
    {"NumAliphaticHeterocycles",
     ring_count<&RingCounts::aliphatic_heterocycles, RDKit::Descriptors::calcNumAliphaticHeterocycles>},
    {"NumAliphaticCarbocycles",
     ring_count<&RingCounts::aliphatic_carbocycles, RDKit::Descriptors::calcNumAliphaticCarbocycles>},
};

std::optional<SharedDescriptor> shared_descriptor(std::string_view name) {
  if (!counts_as_rdkit_2022_09(name)) return std::nullopt;
  for (const auto& [known, compute] : kSharedDescriptors)
    if (known == name) return compute;
  return std::nullopt;
}

}  // namespace

std::shared_ptr<const CrippenContributions> crippen_contributions(const RDKit::ROMol& molecule,
                                                                  KeepOnMolecule keep) {
  if (auto kept = kept_crippen_contributions(molecule)) return kept;
  std::shared_ptr<const CrippenContributions> computed = type_crippen_atoms(molecule);
  if (keep == KeepOnMolecule::yes) molecule.setProp(kCrippenProperty, computed, /*computed=*/true);
  return computed;
}

// One output column: computed here, or the index of RDKit's value.
struct DescriptorSet::Column {
  SharedDescriptor shared = nullptr;
  std::size_t rdkit_index = 0;
};

DescriptorSet::DescriptorSet(const std::vector<std::string>& names) {
  std::vector<std::string> rdkit_names;
  for (const std::string& name : names) {
    const std::optional<SharedDescriptor> shared = shared_descriptor(name);
    columns_.push_back(shared ? Column{*shared, 0} : Column{nullptr, rdkit_names.size()});
    if (!shared) rdkit_names.push_back(name);
  }
  if (!rdkit_names.empty()) rdkit_ = std::make_unique<RDKit::Descriptors::Properties>(rdkit_names);
}

DescriptorSet::~DescriptorSet() = default;

std::vector<double> DescriptorSet::compute(const RDKit::ROMol& molecule) const {
  const std::vector<double> rdkit_values = rdkit_ ? rdkit_->computeProperties(molecule) : std::vector<double>{};
  MoleculeTerms terms(molecule);
  std::vector<double> values;
  values.reserve(columns_.size());
  for (const Column& column : columns_)
    values.push_back(column.shared ? column.shared(terms) : rdkit_values[column.rdkit_index]);
  return values;
}

}  // namespace edgewise::detail
