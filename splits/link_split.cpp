#include "edgewise/splits/link_split.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>

#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "edgewise/core/names.hpp"
#include "edgewise/splits/splits.hpp"

namespace edgewise {
namespace {

constexpr Index kMaxLinkNode = Index{1} << 32;

// One key per unordered pair: the smaller node in the high half.
std::uint64_t key_of(Index a, Index b) {
  const auto [low, high] = std::minmax(a, b);
  return (static_cast<std::uint64_t>(low) << 32) | static_cast<std::uint64_t>(high);
}

std::vector<NodePair> pairs_at(std::span<const NodePair> links, const std::vector<Index>& positions) {
  std::vector<NodePair> pairs;
  pairs.reserve(positions.size());
  for (const Index position : positions) pairs.push_back(links[static_cast<std::size_t>(position)]);
  return pairs;
}

void check_link_nodes(std::span<const NodePair> links, Index num_nodes) {
  if (num_nodes > kMaxLinkNode)
    throw ArgumentError("link prediction takes graphs of up to 2^32 nodes, got " + std::to_string(num_nodes));
  for (const auto& [a, b] : links)
    if (a < 0 || b < 0 || a >= num_nodes || b >= num_nodes || a == b)
      throw ArgumentError("link (" + std::to_string(a) + ", " + std::to_string(b) +
                          ") is no pair of distinct nodes of " + std::to_string(num_nodes));
}

// The validation and then the test negatives, as many as their links, drawn by draw_non_links
// among nodes below num_nodes, none a pair of `excluded`.
void draw_negatives(LinkSplit& split, Index num_nodes, LinkSet& excluded, std::uint64_t seed) {
  SplitMix64 rng(seed ^ 0x4E45474154495645ULL);  // a stream of its own, apart from the shuffle's
  split.val_negatives = draw_non_links(static_cast<Index>(split.val.size()), num_nodes, excluded, rng);
  split.test_negatives = draw_non_links(static_cast<Index>(split.test.size()), num_nodes, excluded, rng);
}

}  // namespace

UndirectedLinks undirected_links(std::span<const NodePair> edges) {
  UndirectedLinks links;
  std::unordered_set<std::uint64_t> seen;
  for (const auto& [a, b] : edges) {
    if (a == b) {
      ++links.self_pairs;
    } else if (!seen.insert(key_of(a, b)).second) {
      ++links.repeats;
    } else {
      links.pairs.emplace_back(std::min(a, b), std::max(a, b));
    }
  }
  return links;
}

LinkSet::LinkSet(std::span<const NodePair> links) {
  sorted_.reserve(links.size());
  for (const auto& [a, b] : links) {
    if (a < 0 || b < 0 || a >= kMaxLinkNode || b >= kMaxLinkNode)
      throw ArgumentError("link (" + std::to_string(a) + ", " + std::to_string(b) + ") has a node outside [0, 2^32)");
    sorted_.push_back(key_of(a, b));
  }
  std::ranges::sort(sorted_);
}

bool LinkSet::contains(Index a, Index b) const {
  const std::uint64_t key = key_of(a, b);
  return std::ranges::binary_search(sorted_, key) || added_.contains(key);
}

void LinkSet::insert(Index a, Index b) {
  if (!contains(a, b)) added_.insert(key_of(a, b));
}

namespace {

// `count` pairs whose nodes draw_node draws, as draw_non_links describes.
template <typename Excluded, typename DrawNode>
std::vector<NodePair> draw_pairs(Index count, Excluded& excluded, DrawNode draw_node) {
  std::vector<NodePair> drawn;
  drawn.reserve(static_cast<std::size_t>(std::max<Index>(count, 0)));
  // A draw misses mostly on sparse graphs' few links; this many misses in a row means the pairs are
  // nearly used up.
  constexpr Index kMaxMisses = 1000;
  Index misses = 0;
  while (static_cast<Index>(drawn.size()) < count) {
    const Index a = draw_node(), b = draw_node();
    if (a == b || excluded.contains(a, b)) {
      if (++misses == kMaxMisses)
        throw ArgumentError("cannot draw " + std::to_string(count) +
                            " pairs of nodes that are no link: the graph is nearly complete (" +
                            std::to_string(drawn.size()) + " drawn)");
      continue;
    }
    misses = 0;
    excluded.insert(a, b);
    drawn.emplace_back(std::min(a, b), std::max(a, b));
  }
  return drawn;
}

// The links of a graph held as CSR, and the pairs drawn so far, as draw_pairs excludes them.
class GraphLinksAndDrawn {
 public:
  explicit GraphLinksAndDrawn(InEdges graph) : graph_(graph) {}

  bool contains(Index a, Index b) const {
    if (drawn_.contains(key_of(a, b))) return true;
    const auto first = graph_.sources.begin() + graph_.offsets[b], last = graph_.sources.begin() + graph_.offsets[b + 1];
    return std::find(first, last, static_cast<NodeId>(a)) != last;
  }
  void insert(Index a, Index b) { drawn_.insert(key_of(a, b)); }

 private:
  InEdges graph_;
  std::unordered_set<std::uint64_t> drawn_;
};

}  // namespace

std::vector<NodePair> draw_non_links(Index count, Index num_nodes, LinkSet& excluded, SplitMix64& rng) {
  if (num_nodes < 2) throw ArgumentError("cannot draw pairs of distinct nodes among " + std::to_string(num_nodes));
  const auto nodes = static_cast<std::uint64_t>(num_nodes);
  return draw_pairs(count, excluded, [&] { return static_cast<Index>(rng.below(nodes)); });
}

std::vector<NodePair> draw_degree_weighted_non_links(Index count, std::span<const NodePair> links, LinkSet& excluded,
                                                     SplitMix64& rng) {
  if (links.empty()) throw ArgumentError("cannot draw nodes by their links: there are none");
  const std::uint64_t ends = 2 * static_cast<std::uint64_t>(links.size());
  return draw_pairs(count, excluded, [&] {
    const std::uint64_t end = rng.below(ends);
    const NodePair& link = links[static_cast<std::size_t>(end / 2)];
    return end % 2 == 0 ? link.first : link.second;
  });
}

LinkSplit split_links(std::span<const NodePair> links, Index num_nodes, double train_fraction, double val_fraction,
                      std::uint64_t seed) {
  check_link_nodes(links, num_nodes);
  const Split parts = random_split(static_cast<Index>(links.size()), train_fraction, val_fraction, seed);
  LinkSplit split{.train = pairs_at(links, parts.train), .val = pairs_at(links, parts.val),
                  .test = pairs_at(links, parts.test), .val_negatives = {}, .test_negatives = {}};
  LinkSet excluded(links);
  draw_negatives(split, num_nodes, excluded, seed);
  return split;
}

LinkPart hashed_link_part(Index a, Index b, double train_fraction, double val_fraction, std::uint64_t seed) {
  const double u = SplitMix64(key_of(a, b) ^ (seed * 0x9E3779B97F4A7C15ULL) ^ 0x4C494E4B53504C54ULL).uniform();
  return u < train_fraction ? LinkPart::train : u < train_fraction + val_fraction ? LinkPart::val : LinkPart::test;
}

std::vector<NodePair> sample_hashed_links(InEdges graph, LinkPart part, double train_fraction, double val_fraction,
                                          std::uint64_t seed, Index count) {
  check_split_fractions(train_fraction, val_fraction);
  if (count < 0) throw ArgumentError("cannot sample " + std::to_string(count) + " links");
  std::vector<NodePair> kept;
  kept.reserve(static_cast<std::size_t>(count));
  SplitMix64 rng(seed ^ 0x5245534552564F49ULL);
  std::uint64_t seen = 0;
  for (Index target = 0; target < graph.num_nodes(); ++target)
    for (Index e = graph.offsets[target]; e < graph.offsets[target + 1]; ++e) {
      const Index source = graph.sources[static_cast<std::size_t>(e)];
      // Each link once: from its smaller node.
      if (source >= target || hashed_link_part(source, target, train_fraction, val_fraction, seed) != part) continue;
      if (static_cast<Index>(kept.size()) < count) {
        kept.emplace_back(source, target);
      } else if (const std::uint64_t slot = rng.below(seen + 1); slot < kept.size()) {
        kept[slot] = {source, target};
      }
      ++seen;
    }
  return kept;
}

std::vector<NodePair> draw_non_links_of(InEdges graph, Index count, SplitMix64& rng) {
  if (graph.num_nodes() < 2)
    throw ArgumentError("cannot draw pairs of distinct nodes among " + std::to_string(graph.num_nodes()));
  const auto nodes = static_cast<std::uint64_t>(graph.num_nodes());
  GraphLinksAndDrawn excluded(graph);
  return draw_pairs(count, excluded, [&] { return static_cast<Index>(rng.below(nodes)); });
}

std::vector<NodePair> draw_step_non_links(const LinkGraph& graph, Index count, bool by_degree, SplitMix64& rng) {
  if (graph.num_nodes() < 2)
    throw ArgumentError("cannot draw pairs of distinct nodes among " + std::to_string(graph.num_nodes()));
  // The graph's links alone are excluded: what was drawn may be drawn again.
  struct LinksOf {
    const LinkGraph& graph;
    bool contains(Index a, Index b) const {
      return graph.linked(static_cast<NodeId>(a), static_cast<NodeId>(b));
    }
    void insert(Index, Index) {}
  } excluded{graph};
  const auto nodes = static_cast<std::uint64_t>(graph.num_nodes());
  return draw_pairs(count, excluded, [&]() -> Index {
    return by_degree ? graph.draw_linked_node(rng) : static_cast<Index>(rng.below(nodes));
  });
}

namespace {

// Reads files of node pairs; for a split folder (with the graph's links), checks each pair against
// the graph's links and the pairs read before.
class LinkFileReader {
 public:
  LinkFileReader(Index num_nodes, const NodeLookup& lookup, const LinkSet* graph_links)
      : num_nodes_(num_nodes), lookup_(lookup), graph_links_(graph_links) {}

  // The pairs of `path`; `links`: whether they must be links of the graph, else must not be.
  std::vector<NodePair> read(const std::string& path, bool links) { return parse(read_file(path), path, links); }

  // The pairs of `text`, named `name` in errors.
  std::vector<NodePair> parse(std::string_view text, const std::string& name, bool links) {
    std::vector<NodePair> pairs;
    for (std::size_t line = 1; !text.empty(); ++line) {
      const std::size_t end = text.find('\n');
      const std::string_view entry = trimmed(text.substr(0, end));
      if (!entry.empty()) pairs.push_back(checked(entry, name, line, links));
      text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    }
    return pairs;
  }

  // The pair of nodes named a and b, given as `entry` on line `line` of `path`.
  NodePair checked(std::string_view a_name, std::string_view b_name, std::string_view entry, const std::string& path,
                   std::size_t line, bool links) {
    const Index a = node(a_name, entry, path, line);
    const Index b = node(b_name, entry, path, line);
    const auto fail = [&](const std::string& reason) { throw ParseError(path, line, std::string(entry), reason); };
    if (a == b) fail("a node paired with itself");
    if (graph_links_ == nullptr) return {a, b};
    if (graph_links_->contains(a, b) != links)
      fail(links ? "not an edge of the graph" : "an edge of the graph, listed as a negative");
    const auto [listed, added] = listed_.try_emplace(std::minmax(a, b), path + ":" + std::to_string(line));
    if (!added) fail("already listed at " + listed->second);
    return std::minmax(a, b);
  }

 private:
  NodePair checked(std::string_view entry, const std::string& path, std::size_t line, bool links) {
    const std::size_t gap = entry.find_first_of(" \t");
    if (gap == std::string_view::npos)
      throw ParseError(path, line, std::string(entry), "expected two node names separated by blanks");
    return checked(entry.substr(0, gap), trimmed(entry.substr(gap)), entry, path, line, links);
  }

  Index node(std::string_view name, std::string_view entry, const std::string& path, std::size_t line) const {
    const Index id = lookup_(name);
    if (id < 0 || id >= num_nodes_)
      throw ParseError(path, line, std::string(entry), "unknown node '" + std::string(name) + "'");
    return id;
  }

  Index num_nodes_;
  const NodeLookup& lookup_;
  const LinkSet* graph_links_;  // null: any pair of distinct nodes, as often as listed
  std::map<NodePair, std::string> listed_;  // where each pair was listed
};

std::string link_file_text(std::span<const NodePair> pairs, const NodeNamer& name) {
  std::string text;
  for (const auto& [a, b] : pairs) text += name(a) + '\t' + name(b) + '\n';
  return text;
}

}  // namespace

LinkSplit read_link_split(const std::string& dir, Index num_nodes, const NodeLookup& lookup,
                          const LinkSet& graph_links, std::uint64_t seed) {
  const auto path = [&](std::size_t file) { return (std::filesystem::path(dir) / kLinkSplitFiles[file]).string(); };
  const bool val_negatives = std::filesystem::exists(path(3)), test_negatives = std::filesystem::exists(path(4));
  if (val_negatives != test_negatives)
    throw ArgumentError(dir + ": has " + kLinkSplitFiles[val_negatives ? 3 : 4] + " without " +
                        kLinkSplitFiles[val_negatives ? 4 : 3] + "; give both negatives files, or neither to draw them");
  LinkFileReader reader(num_nodes, lookup, &graph_links);
  LinkSplit split;
  split.train = reader.read(path(0), true);
  split.val = reader.read(path(1), true);
  split.test = reader.read(path(2), true);
  if (val_negatives) {
    split.val_negatives = reader.read(path(3), false);
    split.test_negatives = reader.read(path(4), false);
  } else {
    LinkSet excluded = graph_links;
    draw_negatives(split, num_nodes, excluded, seed);
  }
  return split;
}

std::vector<NodePair> read_node_pairs(const std::string& path, Index num_nodes, const NodeLookup& lookup) {
  return LinkFileReader(num_nodes, lookup, nullptr).read(path, true);
}

NodePair named_pair(std::string_view a, std::string_view b, const std::string& path, std::size_t line,
                    Index num_nodes, const NodeLookup& lookup) {
  const std::string entry = std::string(a) + "," + std::string(b);
  return LinkFileReader(num_nodes, lookup, nullptr).checked(a, b, entry, path, line, true);
}

std::vector<NodePair> parse_node_pairs(std::string_view text, const std::string& name, Index num_nodes,
                                       const NodeLookup& lookup) {
  return LinkFileReader(num_nodes, lookup, nullptr).parse(text, name, true);
}

void write_link_split(const std::string& dir, const LinkSplit& split, bool overwrite, const NodeNamer& name) {
  const std::vector<NodePair>* parts[] = {&split.train, &split.val, &split.test, &split.val_negatives,
                                          &split.test_negatives};
  std::vector<std::pair<std::filesystem::path, std::string>> files;
  for (std::size_t file = 0; file < std::size(parts); ++file)
    files.emplace_back(std::filesystem::path(dir) / kLinkSplitFiles[file], link_file_text(*parts[file], name));
  if (!overwrite)
    for (const auto& [path, text] : files)
      if (std::filesystem::exists(path) && read_file(path.string()) != text)
        throw Error(path.string() + ": already exists with other contents; pass overwrite to replace it");
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw Error(dir + ": cannot create the split folder: " + error.message());
  for (const auto& [path, text] : files) write_file_atomically(path.string(), text);
}

}  // namespace edgewise
