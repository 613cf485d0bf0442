// Splits of a graph's links for link prediction: parts by undirected pair, negatives that are no link.
#include "edgewise/splits/link_split.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>

#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"

namespace edgewise {
namespace {

// Node i is named "n<i>".
const NodeLookup kNamed = [](std::string_view name) -> Index {
  Index node = -1;
  if (!name.starts_with("n")) return -1;
  const auto [end, error] = std::from_chars(name.data() + 1, name.data() + name.size(), node);
  return error == std::errc() && end == name.data() + name.size() ? node : -1;
};
const NodeNamer kNames = [](Index node) { return std::string("n").append(std::to_string(node)); };

// Every pair of a ring of n nodes and its chords to the node two further on: 2n links.
std::vector<NodePair> ring_with_chords(Index n) {
  std::vector<NodePair> links;
  for (Index i = 0; i < n; ++i) {
    links.emplace_back(std::min(i, (i + 1) % n), std::max(i, (i + 1) % n));
    links.emplace_back(std::min(i, (i + 2) % n), std::max(i, (i + 2) % n));
  }
  return links;
}

TEST(UndirectedLinksTest, OrdersPairsAndLeavesOutSelfPairsAndRepeats) {
  const std::vector<NodePair> edges = {{3, 1}, {1, 3}, {2, 2}, {0, 4}, {1, 3}, {4, 0}, {2, 5}};
  const UndirectedLinks links = undirected_links(edges);
  EXPECT_EQ(links.pairs, (std::vector<NodePair>{{1, 3}, {0, 4}, {2, 5}}));
  EXPECT_EQ(links.self_pairs, 1);
  EXPECT_EQ(links.repeats, 3);
}

TEST(LinkSetTest, KnowsAPairEitherWayRound) {
  LinkSet set(std::vector<NodePair>{{1, 3}, {0, 4}});
  EXPECT_TRUE(set.contains(3, 1));
  EXPECT_TRUE(set.contains(0, 4));
  EXPECT_FALSE(set.contains(1, 4));
  set.insert(4, 1);
  EXPECT_TRUE(set.contains(1, 4));
  set.forget_inserted();
  EXPECT_FALSE(set.contains(1, 4));
  EXPECT_TRUE(set.contains(1, 3));
}

// A star of 10 leaves around node 0, the link 11-12, and nodes 13-19 with no link: drawn by their
// links, non-links never touch a node without one.
TEST(DrawNonLinksTest, ByDegreeLeaveOutNodesWithoutLinks) {
  std::vector<NodePair> links;
  for (Index leaf = 1; leaf <= 10; ++leaf) links.emplace_back(0, leaf);
  links.emplace_back(11, 12);
  LinkSet excluded(links);
  SplitMix64 rng(5);
  const std::vector<NodePair> drawn = draw_degree_weighted_non_links(40, links, excluded, rng);
  ASSERT_EQ(drawn.size(), 40u);
  std::set<NodePair> distinct(drawn.begin(), drawn.end());
  EXPECT_EQ(distinct.size(), 40u);
  const LinkSet given(links);
  for (const auto& [a, b] : drawn) {
    EXPECT_LT(b, 13) << a << "-" << b;
    EXPECT_FALSE(given.contains(a, b)) << a << "-" << b << " is a link";
  }
  LinkSet none(std::vector<NodePair>{});
  EXPECT_THROW(draw_degree_weighted_non_links(1, {}, none, rng), ArgumentError);
  EXPECT_THROW(draw_non_links(1, 1, none, rng), ArgumentError);
}

TEST(SplitLinksTest, PartsAreDisjointAndNegativesAreNoLinks) {
  const std::vector<NodePair> links = ring_with_chords(50);  // 100 links
  const LinkSplit split = split_links(links, 50, 0.85, 0.05, 7);
  EXPECT_EQ(split.train.size(), 85u);
  EXPECT_EQ(split.val.size(), 5u);
  EXPECT_EQ(split.test.size(), 10u);
  std::set<NodePair> seen;
  for (const auto* part : {&split.train, &split.val, &split.test})
    for (const NodePair& link : *part) EXPECT_TRUE(seen.insert(link).second) << "a link in two parts";
  EXPECT_EQ(seen, std::set<NodePair>(links.begin(), links.end()));
  EXPECT_EQ(split.val_negatives.size(), split.val.size());
  EXPECT_EQ(split.test_negatives.size(), split.test.size());
  std::set<NodePair> negatives;
  for (const auto* part : {&split.val_negatives, &split.test_negatives})
    for (const auto& [a, b] : *part) {
      EXPECT_LT(a, b);
      EXPECT_GE(a, 0);
      EXPECT_LT(b, 50);
      EXPECT_FALSE(seen.contains({a, b})) << a << "-" << b << " is a link";
      EXPECT_TRUE(negatives.insert({a, b}).second) << a << "-" << b << " drawn twice";
    }
}

TEST(SplitLinksTest, TheSeedFixesLinksAndNegatives) {
  const std::vector<NodePair> links = ring_with_chords(40);
  const LinkSplit a = split_links(links, 40, 0.8, 0.1, 3), b = split_links(links, 40, 0.8, 0.1, 3);
  const LinkSplit c = split_links(links, 40, 0.8, 0.1, 4);
  EXPECT_EQ(a.test, b.test);
  EXPECT_EQ(a.test_negatives, b.test_negatives);
  EXPECT_NE(a.test, c.test);
  EXPECT_NE(a.val_negatives, c.val_negatives);
}

TEST(SplitLinksTest, RefusesWhatIsNoLinkOrLeavesNoNegatives) {
  EXPECT_THROW(split_links(std::vector<NodePair>{{0, 5}}, 5, 0.8, 0.1, 0), ArgumentError);  // node 5 of 5
  EXPECT_THROW(split_links(std::vector<NodePair>{{2, 2}}, 5, 0.8, 0.1, 0), ArgumentError);
  EXPECT_THROW(split_links(ring_with_chords(10), 10, 1.5, 0.1, 0), ArgumentError);
  // Every pair of 5 nodes is a link: no negatives to draw.
  std::vector<NodePair> complete;
  for (Index a = 0; a < 5; ++a)
    for (Index b = a + 1; b < 5; ++b) complete.emplace_back(a, b);
  EXPECT_THROW(split_links(complete, 5, 0.6, 0.2, 0), ArgumentError);
}

TEST(HashedLinkSplitTest, PutsBothDirectionsInOnePartAndEachPartTakesItsFraction) {
  int parts[3] = {0, 0, 0};
  for (Index a = 0; a < 300; ++a)
    for (Index b = a + 1; b < 300; ++b) {
      const LinkPart part = hashed_link_part(a, b, 0.7, 0.1, 5);
      EXPECT_EQ(part, hashed_link_part(b, a, 0.7, 0.1, 5));
      ++parts[static_cast<int>(part)];
    }
  const double pairs = 300.0 * 299 / 2;  // 44,850: a part's share is within 0.01 of its fraction
  EXPECT_NEAR(parts[0] / pairs, 0.7, 0.01);
  EXPECT_NEAR(parts[1] / pairs, 0.1, 0.01);
  EXPECT_NEAR(parts[2] / pairs, 0.2, 0.01);
  // Another seed, another split.
  int moved = 0;
  for (Index b = 1; b < 300; ++b) moved += hashed_link_part(0, b, 0.7, 0.1, 5) != hashed_link_part(0, b, 0.7, 0.1, 6);
  EXPECT_GT(moved, 50);
}

TEST(HashedLinkSplitTest, SamplesLinksOfAPartAndNonLinksOfTheGraph) {
  const std::vector<NodePair> links = ring_with_chords(400);
  const Graph graph = Graph::from_pairs(400, links, {.add_self_loops = true, .symmetrize = true});
  const std::vector<NodePair> val = sample_hashed_links(graph.in_edges(), LinkPart::val, 0.8, 0.1, 2, 1000);
  const std::vector<NodePair> some = sample_hashed_links(graph.in_edges(), LinkPart::val, 0.8, 0.1, 2, 10);
  const LinkSet all(links);
  std::set<NodePair> distinct;
  for (const auto& [a, b] : val) {
    EXPECT_LT(a, b);
    EXPECT_TRUE(all.contains(a, b));
    EXPECT_EQ(hashed_link_part(a, b, 0.8, 0.1, 2), LinkPart::val);
    distinct.emplace(a, b);
  }
  EXPECT_EQ(distinct.size(), val.size());
  const auto in_val = std::ranges::count_if(
      links, [](const NodePair& link) { return hashed_link_part(link.first, link.second, 0.8, 0.1, 2) == LinkPart::val; });
  EXPECT_EQ(static_cast<std::ptrdiff_t>(val.size()), in_val);  // all of them: fewer than 1000
  ASSERT_EQ(some.size(), 10U);
  for (const NodePair& link : some) EXPECT_TRUE(distinct.contains(link));
  EXPECT_THROW(sample_hashed_links(graph.in_edges(), LinkPart::val, 0.8, 0.3, 2, 10), ArgumentError);

  SplitMix64 rng(3);
  const std::vector<NodePair> non_links = draw_non_links_of(graph.in_edges(), 500, rng);
  ASSERT_EQ(non_links.size(), 500U);
  EXPECT_EQ(std::set<NodePair>(non_links.begin(), non_links.end()).size(), 500U);
  for (const auto& [a, b] : non_links) {
    EXPECT_LT(a, b);
    EXPECT_FALSE(all.contains(a, b));
  }
}

TEST(HashedLinkSplitTest, StepNonLinksAreNoLinksAndByDegreeLeaveOutNodesWithoutLinks) {
  // A ring of 40 with chords among nodes 0 .. 39 of 60: nodes 40 .. 59 have no links.
  const Graph graph = Graph::from_pairs(60, ring_with_chords(40), {.add_self_loops = true, .symmetrize = true});
  const LinkGraph seen(graph.in_edges(), [](NodeId, NodeId) { return true; });
  SplitMix64 rng(5);
  const std::vector<NodePair> uniform = draw_step_non_links(seen, 500, false, rng);
  const std::vector<NodePair> by_degree = draw_step_non_links(seen, 500, true, rng);
  ASSERT_EQ(uniform.size(), 500U);
  ASSERT_EQ(by_degree.size(), 500U);
  bool reached_unlinked = false;
  for (const auto& [a, b] : uniform) {
    EXPECT_LT(a, b);
    EXPECT_FALSE(seen.linked(static_cast<NodeId>(a), static_cast<NodeId>(b)));
    reached_unlinked = reached_unlinked || b >= 40;
  }
  EXPECT_TRUE(reached_unlinked);
  for (const auto& [a, b] : by_degree) {
    EXPECT_FALSE(seen.linked(static_cast<NodeId>(a), static_cast<NodeId>(b)));
    EXPECT_LT(b, 40);
  }
}

class LinkSplitFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() / ("edgewise_link_split_" + std::to_string(::getpid()));
    std::filesystem::remove_all(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }
  std::string path(const std::string& name) const { return (folder_ / name).string(); }
  // Writes the split folder's file `name`.
  void write(const std::string& name, const std::string& text) const {
    std::filesystem::create_directories(folder_);
    std::ofstream(path(name)) << text;
  }
  // The message read_link_split throws for the folder, or empty.
  std::string error_of(const LinkSet& graph) const {
    try {
      read_link_split(folder_.string(), 12, kNamed, graph, 0);
    } catch (const Error& error) {
      return error.what();
    }
    return "";
  }

  std::filesystem::path folder_;
};

TEST_F(LinkSplitFilesTest, ReadsBackWhatItWrites) {
  const std::vector<NodePair> links = ring_with_chords(12);
  const LinkSplit split = split_links(links, 12, 0.6, 0.2, 4);
  write_link_split(folder_.string(), split, false, kNames);
  const std::string first_val = read_file(path("val.txt")).substr(0, read_file(path("val.txt")).find('\n'));
  EXPECT_EQ(first_val, kNames(split.val[0].first) + "\t" + kNames(split.val[0].second));
  const LinkSplit read = read_link_split(folder_.string(), 12, kNamed, LinkSet(links), 99);
  EXPECT_EQ(read.train, split.train);
  EXPECT_EQ(read.val, split.val);
  EXPECT_EQ(read.test, split.test);
  EXPECT_EQ(read.val_negatives, split.val_negatives);  // read, not drawn from seed 99
  EXPECT_EQ(read.test_negatives, split.test_negatives);
  // The same split again is no change; another is refused unless overwriting.
  write_link_split(folder_.string(), split, false, kNames);
  const LinkSplit other = split_links(links, 12, 0.6, 0.2, 5);
  EXPECT_THROW(write_link_split(folder_.string(), other, false, kNames), Error);
  write_link_split(folder_.string(), other, true, kNames);
  EXPECT_EQ(read_link_split(folder_.string(), 12, kNamed, LinkSet(links), 0).test, other.test);
}

TEST_F(LinkSplitFilesTest, DrawsTheNegativesWhenTheFolderHasNone) {
  const std::vector<NodePair> links = ring_with_chords(12);
  write("train.txt", "n0 n1\nn1\tn2\n\nn2 n3\n");
  write("val.txt", "n4 n5\n");
  write("test.txt", "n6 n8\n n5  n6 \n");
  const LinkSplit split = read_link_split(folder_.string(), 12, kNamed, LinkSet(links), 3);
  EXPECT_EQ(split.train, (std::vector<NodePair>{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_EQ(split.test, (std::vector<NodePair>{{6, 8}, {5, 6}}));
  ASSERT_EQ(split.val_negatives.size(), 1u);
  ASSERT_EQ(split.test_negatives.size(), 2u);
  const LinkSet graph(links);
  for (const auto& [a, b] : split.test_negatives) EXPECT_FALSE(graph.contains(a, b));
  EXPECT_EQ(read_link_split(folder_.string(), 12, kNamed, graph, 3).test_negatives, split.test_negatives);
  write("val_negatives.txt", "n0 n6\n");
  EXPECT_NE(error_of(graph).find("val_negatives.txt without test_negatives.txt"), std::string::npos) << error_of(graph);
}

TEST_F(LinkSplitFilesTest, NamesTheFileLineAndPairOfABadEntry) {
  const LinkSet graph(ring_with_chords(12));
  write("val.txt", "n4 n5\n");
  write("test.txt", "n6 n8\n");
  const auto expect_error = [&](const std::string& train, const std::string& message) {
    write("train.txt", train);
    const std::string error = error_of(graph);
    EXPECT_NE(error.find(message), std::string::npos) << error;
  };
  expect_error("n0 n1\nn1 n77\n", "train.txt:2: unknown node 'n77' ('n1 n77')");
  expect_error("n0 n1\nn3 n3\n", "train.txt:2: a node paired with itself ('n3 n3')");
  expect_error("n0 n1\nn0 n5\n", "train.txt:2: not an edge of the graph ('n0 n5')");
  expect_error("n0 n1\nn1 n0\n", "train.txt:2: already listed at " + path("train.txt") + ":1");
  expect_error("n5 n4\n", "val.txt:1: already listed at " + path("train.txt") + ":1");
  expect_error("n0 n1 n2\n", "train.txt:1: unknown node 'n1 n2'");
  expect_error("n0\n", "train.txt:1: expected two node names separated by blanks ('n0')");
  write("train.txt", "n0 n1\n");
  write("val_negatives.txt", "n0 n6\n");
  write("test_negatives.txt", "n0 n7\nn0 n2\n");
  EXPECT_NE(error_of(graph).find("test_negatives.txt:2: an edge of the graph, listed as a negative ('n0 n2')"),
            std::string::npos)
      << error_of(graph);
}

TEST_F(LinkSplitFilesTest, ReadsPairsToScoreAsGiven) {
  write("pairs.txt", "n3 n1\nn3 n1\nn0 n11\n");
  EXPECT_EQ(read_node_pairs(path("pairs.txt"), 12, kNamed), (std::vector<NodePair>{{3, 1}, {3, 1}, {0, 11}}));
  write("pairs.txt", "n3 n1\nn2 n2\n");
  EXPECT_THROW(read_node_pairs(path("pairs.txt"), 12, kNamed), ParseError);
  EXPECT_THROW(read_node_pairs(path("missing.txt"), 12, kNamed), Error);
}

}  // namespace
}  // namespace edgewise
