#include "edgewise/splits/link_split.hpp"

#include <algorithm>
#include <string>

#include "edgewise/core/error.hpp"
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
template <typename DrawNode>
std::vector<NodePair> draw_pairs(Index count, LinkSet& excluded, DrawNode draw_node) {
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
  SplitMix64 rng(seed ^ 0x4E45474154495645ULL);  // a stream of its own, apart from the shuffle's
  split.val_negatives = draw_non_links(static_cast<Index>(split.val.size()), num_nodes, excluded, rng);
  split.test_negatives = draw_non_links(static_cast<Index>(split.test.size()), num_nodes, excluded, rng);
  return split;
}

}  // namespace edgewise
