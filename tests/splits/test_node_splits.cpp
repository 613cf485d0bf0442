// Node splits: Planetoid-style per-class and stratified splits, and split files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "edgewise/core/error.hpp"
#include "edgewise/splits/splits.hpp"
#include "support/shared_data.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;

// Classes of 30, 25, 40 and 22 nodes, interleaved, with every seventh node unlabeled.
std::vector<Index> four_classes() {
  std::vector<Index> remaining = {30, 25, 40, 22}, labels;
  for (Index node = 0; std::any_of(remaining.begin(), remaining.end(), [](Index r) { return r > 0; }); ++node) {
    if (node % 7 == 3) {
      labels.push_back(-1);
      continue;
    }
    const auto c = static_cast<std::size_t>(node % 4);
    if (remaining[c] == 0) continue;
    --remaining[c];
    labels.push_back(static_cast<Index>(c));
  }
  return labels;
}

std::vector<Index> class_counts(const std::vector<Index>& part, const std::vector<Index>& labels) {
  std::vector<Index> counts(4, 0);
  for (const Index node : part) ++counts[static_cast<std::size_t>(labels[static_cast<std::size_t>(node)])];
  return counts;
}

// Parts sorted, disjoint, and holding only labeled nodes.
void expect_well_formed(const Split& split, const std::vector<Index>& labels) {
  std::set<Index> seen;
  for (const auto* part : {&split.train, &split.val, &split.test}) {
    EXPECT_TRUE(std::is_sorted(part->begin(), part->end()));
    for (const Index node : *part) {
      EXPECT_TRUE(seen.insert(node).second) << "node " << node << " is in two parts";
      EXPECT_GE(labels[static_cast<std::size_t>(node)], 0) << "node " << node << " is unlabeled";
    }
  }
}

Index labeled_count(const std::vector<Index>& labels) {
  return std::count_if(labels.begin(), labels.end(), [](Index l) { return l >= 0; });
}

TEST(PerClassSplitTest, TakesExactlyKPerClassThenValAndTest) {
  const std::vector<Index> labels = four_classes();
  const Split split = per_class_split(labels, {.train_per_class = 5, .val = 40, .test = 50, .seed = 3});
  expect_well_formed(split, labels);
  EXPECT_EQ(class_counts(split.train, labels), std::vector<Index>(4, 5));
  EXPECT_EQ(split.val.size(), 40u);
  EXPECT_EQ(split.test.size(), 50u);
}

TEST(PerClassSplitTest, IsAFunctionOfTheSeed) {
  const std::vector<Index> labels = four_classes();
  const PerClassSplitOptions options{.train_per_class = 5, .val = 40, .test = 50, .seed = 3};
  const Split a = per_class_split(labels, options), b = per_class_split(labels, options);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.val, b.val);
  EXPECT_EQ(a.test, b.test);
  PerClassSplitOptions other = options;
  other.seed = 4;
  EXPECT_NE(per_class_split(labels, other).train, a.train);
}

TEST(PerClassSplitTest, UsesEveryRemainingNodeWhenAskedTo) {
  const std::vector<Index> labels = four_classes();
  const Index rest = labeled_count(labels) - 4 * 22;
  const Split split = per_class_split(labels, {.train_per_class = 22, .val = 10, .test = rest - 10});
  expect_well_formed(split, labels);
  EXPECT_EQ(static_cast<Index>(split.train.size() + split.val.size() + split.test.size()), labeled_count(labels));
}

TEST(PerClassSplitTest, RejectsSmallClassesAndOversizedParts) {
  const std::vector<Index> labels = four_classes();
  try {
    per_class_split(labels, {.train_per_class = 23});
    FAIL() << "class 3 has only 22 nodes";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("class 3 has 22"), std::string::npos) << e.what();
  }
  EXPECT_THROW(per_class_split(labels, {.train_per_class = 5, .val = 60, .test = 40}), ArgumentError);
  EXPECT_THROW(per_class_split(labels, {.train_per_class = -1}), ArgumentError);
}

TEST(StratifiedSplitTest, SplitsEveryClassByTheFractions) {
  const std::vector<Index> labels = four_classes();
  const Split split = stratified_split(labels, 0.6, 0.2, 9);
  expect_well_formed(split, labels);
  // floor(n * 0.6) and floor(n * 0.2) of 30, 25, 40, 22; the test part takes the rest.
  EXPECT_EQ(class_counts(split.train, labels), (std::vector<Index>{18, 15, 24, 13}));
  EXPECT_EQ(class_counts(split.val, labels), (std::vector<Index>{6, 5, 8, 4}));
  EXPECT_EQ(class_counts(split.test, labels), (std::vector<Index>{6, 5, 8, 5}));

  const Split again = stratified_split(labels, 0.6, 0.2, 9);
  EXPECT_EQ(again.train, split.train);
  EXPECT_EQ(again.test, split.test);
  EXPECT_NE(stratified_split(labels, 0.6, 0.2, 10).train, split.train);
}

TEST(StratifiedSplitTest, RejectsBadFractions) {
  const std::vector<Index> labels = four_classes();
  EXPECT_THROW(stratified_split(labels, 0.7, 0.4, 0), ArgumentError);
  EXPECT_THROW(stratified_split(labels, -0.1, 0.2, 0), ArgumentError);
  EXPECT_NO_THROW(stratified_split(labels, 0.7, 0.3, 0));
}

class NodeSplitFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("edgewise_node_splits_" + std::to_string(::getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  void write(const std::string& name, const std::string& text) const { std::ofstream(folder_ / name) << text; }

  // Expects read_node_split to throw a ParseError at file:line whose message contains `reason`.
  void expect_parse_error(const std::string& file, std::size_t line, const std::string& reason,
                          const NodeLookup& lookup = {}) const {
    try {
      read_node_split(folder_.string(), 10, lookup);
      FAIL() << "expected a ParseError at " << file << ":" << line;
    } catch (const ParseError& e) {
      EXPECT_EQ(e.file(), (folder_ / file).string());
      EXPECT_EQ(e.line(), line);
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  }

  fs::path folder_;
};

TEST_F(NodeSplitFileTest, RoundTrips) {
  const Split split{{4, 0, 2}, {1, 7}, {9}};
  write_node_split(folder_.string(), split);
  const Split back = read_node_split(folder_.string(), 10);
  EXPECT_EQ(back.train, split.train);
  EXPECT_EQ(back.val, split.val);
  EXPECT_EQ(back.test, split.test);
  EXPECT_NO_THROW(write_node_split(folder_.string(), split)) << "the same contents: nothing to refuse";
  EXPECT_THROW(write_node_split(folder_.string(), {{1}, {}, {}}), Error) << "other contents are kept";
  EXPECT_NO_THROW(write_node_split(folder_.string(), {{1}, {}, {}}, true));
  EXPECT_EQ(read_node_split(folder_.string(), 10).train, std::vector<Index>{1});
}

TEST_F(NodeSplitFileTest, IgnoresBlankLinesAndSurroundingWhitespace) {
  write("train.txt", "3\n\n  5\t\r\n");
  write("val.txt", "");
  write("test.txt", "0");
  const Split split = read_node_split(folder_.string(), 10);
  EXPECT_EQ(split.train, (std::vector<Index>{3, 5}));
  EXPECT_TRUE(split.val.empty());
  EXPECT_EQ(split.test, std::vector<Index>{0});
}

TEST_F(NodeSplitFileTest, ErrorsNameTheFileAndLine) {
  write("train.txt", "1\n2\n");
  write("val.txt", "3\n\nfour\n");
  write("test.txt", "5\n");
  expect_parse_error("val.txt", 3, "not a node index");
  write("val.txt", "3\n-4\n");
  expect_parse_error("val.txt", 2, "node index is negative");
  write("val.txt", "3\n10\n");
  expect_parse_error("val.txt", 2, "node index is out of range; the graph has 10 nodes");
  write("val.txt", "3\n");
  write("test.txt", "5\n2\n");
  expect_parse_error("test.txt", 2, "node 2 is already listed at " + (folder_ / "train.txt").string() + ":2");
  fs::remove(folder_ / "test.txt");
  EXPECT_THROW(read_node_split(folder_.string(), 10), Error);
}

TEST_F(NodeSplitFileTest, MapsNamesThroughTheLookup) {
  const std::vector<std::string> names = {"ann", "bob", "cy", "dee"};
  const NodeLookup lookup = [&](std::string_view text) -> Index {
    const auto it = std::find(names.begin(), names.end(), text);
    return it == names.end() ? -1 : static_cast<Index>(it - names.begin());
  };
  write_node_split(folder_.string(), {{3, 0}, {2}, {}}, false,
                   [&](Index node) { return names[static_cast<std::size_t>(node)]; });
  std::ifstream train(folder_ / "train.txt");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(train), {}), "dee\nann\n");
  const Split split = read_node_split(folder_.string(), 4, lookup);
  EXPECT_EQ(split.train, (std::vector<Index>{3, 0}));
  EXPECT_EQ(split.val, std::vector<Index>{2});

  write("val.txt", "cy\neve\n");
  expect_parse_error("val.txt", 2, "unknown node", lookup);
}

TEST(NodeSplitCoraTest, ReadsThePlanetoidPublicSplit) {
  const fs::path cora = testing::data_dir() / "cora";
  if (!fs::exists(cora / "train.txt")) GTEST_SKIP() << testing::missing_data_reason(cora / "train.txt");
  const Split split = read_node_split(cora.string(), 2708);
  EXPECT_EQ(split.train.size(), 140u);
  EXPECT_EQ(split.val.size(), 500u);
  EXPECT_EQ(split.test.size(), 1000u);
  EXPECT_EQ(split.val.front(), 140);
  EXPECT_EQ(split.test.front(), 1708);
}

}  // namespace
}  // namespace edgewise
