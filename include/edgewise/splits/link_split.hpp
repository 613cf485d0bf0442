/// \file
/// Splits of a graph's links for link prediction: which links train the encoder and the scorer, and
/// which, taken out of the graph the encoder sees, validate and test it against pairs that are no
/// link (negatives). Links are undirected: a pair is stored once, smaller node first, and both of
/// its directions go to the same part.
///
///   const UndirectedLinks links = undirected_links(edges);   // self-pairs and repeats counted
///   const LinkSplit split = split_links(links.pairs, nodes, 0.85, 0.05, seed);
///   Graph seen = Graph::from_pairs(nodes, split.train, {.symmetrize = true, .add_self_loops = true});
///
/// The same arguments always give the same split and negatives (SplitMix64 streams of the seed).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "edgewise/core/random.hpp"
#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/graph.hpp"
#include "edgewise/graph/link_graph.hpp"
#include "edgewise/splits/splits.hpp"

namespace edgewise {

/// Two nodes; as a link, stored with first < second.
using NodePair = std::pair<Index, Index>;

/// The distinct undirected links among some node pairs, and what was left out.
struct UndirectedLinks {
  std::vector<NodePair> pairs;  ///< first < second, each once, in order of first appearance
  Index self_pairs = 0;         ///< pairs of a node with itself, left out
  Index repeats = 0;            ///< pairs given before (either way round), left out
};

/// The undirected links of `edges`: each pair ordered, self-pairs and repeats counted and left out.
UndirectedLinks undirected_links(std::span<const NodePair> edges);

/// The links of each part; validation and test links also have as many negatives each, pairs of
/// distinct nodes that are no link of the graph (in any part), none drawn twice.
struct LinkSplit {
  /// Links of each part, disjoint, first < second.
  /// @{
  std::vector<NodePair> train, val, test;
  /// @}
  /// Non-links scored against the validation and the test links.
  /// @{
  std::vector<NodePair> val_negatives, test_negatives;
  /// @}
};

/// A set of node pairs, order within a pair ignored, to tell whether a pair is a link.
class LinkSet {
 public:
  /// The pairs of `links`, each of whose nodes must lie in [0, 2^32).
  explicit LinkSet(std::span<const NodePair> links);
  /// Whether {a, b} is one of the pairs, either way round.
  bool contains(Index a, Index b) const;
  /// Adds {a, b} (the negatives drawn so far, say).
  void insert(Index a, Index b);
  /// Takes out every pair insert added, leaving those of the constructor.
  void forget_inserted() { added_.clear(); }

 private:
  std::vector<std::uint64_t> sorted_;         // the links' keys, compact for large graphs
  std::unordered_set<std::uint64_t> added_;  // keys inserted since
};

/// `count` pairs of distinct nodes below num_nodes drawn uniformly from `rng`, none in `excluded` and
/// none twice; each is added to `excluded`. Throws ArgumentError when fewer than `count` such pairs
/// are left (about: the graph is nearly complete).
std::vector<NodePair> draw_non_links(Index count, Index num_nodes, LinkSet& excluded, SplitMix64& rng);

/// The same with each node drawn in proportion to its number of links among `links` (both ends of a
/// link drawn uniformly): non-links between busy nodes, harder to tell from links than uniform ones.
std::vector<NodePair> draw_degree_weighted_non_links(Index count, std::span<const NodePair> links, LinkSet& excluded,
                                                     SplitMix64& rng);

/// A uniform shuffle of `links` (undirected, first < second, distinct: undirected_links's pairs) cut
/// as random_split cuts rows: train = floor(n * train_fraction), val = floor(n * (train_fraction +
/// val_fraction)) - train, test the rest; then the validation and then the test negatives, as many as
/// their links, drawn by draw_non_links among nodes below num_nodes. Nodes whose links all went to
/// validation or test stay nodes of the graph. Throws ArgumentError for fractions random_split
/// refuses, a link whose node is not below num_nodes, or too few non-links.
LinkSplit split_links(std::span<const NodePair> links, Index num_nodes, double train_fraction, double val_fraction,
                      std::uint64_t seed);

/// A part of a link split.
enum class LinkPart { train, val, test };

/// The part of link {a, b} when a graph's links are split by a hash of the pair and the seed instead
/// of a shuffle: the same for both directions, each part taking its fraction of the links on
/// average, and nothing held. A graph store's tens of millions of links are split this way
/// (sampled link training), where a shuffled copy of them would outweigh the graph.
LinkPart hashed_link_part(Index a, Index b, double train_fraction, double val_fraction, std::uint64_t seed);

/// Up to `count` of the links that hashed_link_part puts in `part`, each link of `graph` (held in
/// both directions) considered once and drawn uniformly by one seeded pass of reservoir sampling,
/// the smaller node first: validation or test links to score. Throws ArgumentError for fractions
/// random_split refuses or a negative count.
std::vector<NodePair> sample_hashed_links(InEdges graph, LinkPart part, double train_fraction, double val_fraction,
                                          std::uint64_t seed, Index count);

/// `count` pairs of distinct nodes drawn uniformly from `rng` that are no link of `graph` (each
/// candidate checked against the in-edges of one of its nodes) and none twice, smaller node first:
/// non-links to score against links of a graph held only as CSR. Throws ArgumentError as
/// draw_non_links does.
std::vector<NodePair> draw_non_links_of(InEdges graph, Index count, SplitMix64& rng);

/// `count` pairs of distinct nodes that are no link of `graph`, each node drawn from `rng` uniformly
/// or, with `by_degree`, in proportion to its links; smaller node first, and a pair may come twice:
/// the non-links of one step of sampled link training. Throws ArgumentError as draw_non_links does.
std::vector<NodePair> draw_step_non_links(const LinkGraph& graph, Index count, bool by_degree, SplitMix64& rng);

/// The files of a link split's folder, in LinkSplit's order: train.txt, val.txt, test.txt,
/// val_negatives.txt, test_negatives.txt.
inline constexpr const char* kLinkSplitFiles[] = {"train.txt", "val.txt", "test.txt", "val_negatives.txt",
                                                  "test_negatives.txt"};

/// Reads a link split from the files kLinkSplitFiles names in `dir`: one pair a line, two node names
/// separated by blanks, each found by `lookup`; blank lines are skipped. The three parts' pairs must be
/// links of `graph_links` (the whole graph's), and no pair may be listed twice in them; negatives must
/// be no link of the graph. Without the two negatives files, their negatives are drawn as split_links
/// draws them from `seed` (both files, or neither). Throws ParseError naming the file, line and pair
/// for an unknown node, a node paired with itself, a pair listed twice, a listed link the graph does
/// not have or a negative it has; ArgumentError for one negatives file without the other; Error when
/// a file cannot be read.
LinkSplit read_link_split(const std::string& dir, Index num_nodes, const NodeLookup& lookup,
                          const LinkSet& graph_links, std::uint64_t seed);

/// The pairs of a file, one a line as read_link_split reads them, in the file's order (a pair as
/// given: not ordered, and repeats kept): pairs to score. Throws ParseError naming the file, line and
/// pair for an unknown node or a node paired with itself; Error when the file cannot be read.
std::vector<NodePair> read_node_pairs(const std::string& path, Index num_nodes, const NodeLookup& lookup);
/// The same from the text of such a file, named `name` in errors.
std::vector<NodePair> parse_node_pairs(std::string_view text, const std::string& name, Index num_nodes,
                                       const NodeLookup& lookup);

/// The pair of the nodes named `a` and `b`, each found by `lookup`, as given on line `line` of the
/// file `path` (a table of pairs, say): as read_node_pairs reads a line's pair. Throws ParseError
/// naming the file, line and pair for an unknown node or a node paired with itself.
NodePair named_pair(std::string_view a, std::string_view b, const std::string& path, std::size_t line,
                    Index num_nodes, const NodeLookup& lookup);

/// Writes the five files read_link_split reads, each pair as `name` names its nodes, tab-separated,
/// creating dir if needed. An existing file with other contents is replaced only when overwrite is
/// set; otherwise Error is thrown before any file is written.
void write_link_split(const std::string& dir, const LinkSplit& split, bool overwrite, const NodeNamer& name);

}  // namespace edgewise
