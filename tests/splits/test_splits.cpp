// Random splits, cross-validation folds and split folders in Chemprop's layout.
#include "edgewise/splits/splits.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <numeric>
#include <sstream>

#include "edgewise/core/error.hpp"
#include "edgewise/io/csv.hpp"
#include "support/shared_data.hpp"
#include "support/split_checks.hpp"
#include "support/thrown.hpp"

namespace edgewise {
namespace {

using testing::thrown_by;

namespace fs = std::filesystem;

using testing::all_rows;
using testing::expect_partition_of;
using testing::sorted;

void expect_sizes(const Split& split, std::size_t train, std::size_t val, std::size_t test) {
  EXPECT_EQ(split.train.size(), train);
  EXPECT_EQ(split.val.size(), val);
  EXPECT_EQ(split.test.size(), test);
}

TEST(RandomSplit, SameSeedSameSplit) {
  const Split a = random_split(1128, 0.8, 0.1, 7);
  const Split b = random_split(1128, 0.8, 0.1, 7);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.val, b.val);
  EXPECT_EQ(a.test, b.test);
}

TEST(RandomSplit, OtherSeedOtherSplit) {
  const Split a = random_split(1128, 0.8, 0.1, 0);
  const Split b = random_split(1128, 0.8, 0.1, 1);
  EXPECT_NE(a.train, b.train);
  EXPECT_NE(sorted(a.test), sorted(b.test));
}

TEST(RandomSplit, PartsAreDisjointAndCoverEveryRow) {
  for (const Index n : {0, 1, 2, 10, 1128}) {
    expect_partition_of(random_split(n, 0.8, 0.1, 3), n);
  }
}

TEST(RandomSplit, SizesAreFloorsOfCumulativeFractionsTimesRows) {
  expect_sizes(random_split(1128, 0.8, 0.1, 0), 902, 113, 113);
  expect_sizes(random_split(10, 0.7, 0.2, 0), 7, 2, 1);
  expect_sizes(random_split(10, 0.7, 0.3, 0), 7, 3, 0);
  // The products are 56.99999999999999 and 28.999999999999996.
  expect_sizes(random_split(100, 0.57, 0.29, 0), 57, 29, 14);
  expect_sizes(random_split(3, 0.5, 0.5, 0), 1, 2, 0);
  expect_sizes(random_split(5, 1.0, 0.0, 0), 5, 0, 0);
  expect_sizes(random_split(5, 0.0, 0.0, 0), 0, 0, 5);
}

TEST(RandomSplit, ShufflesRows) {
  const Split split = random_split(100, 1.0, 0.0, 11);
  std::vector<Index> identity(100);
  std::iota(identity.begin(), identity.end(), Index{0});
  EXPECT_NE(split.train, identity);
}

TEST(RandomSplit, FractionsOutOfRangeAreRejected) {
  EXPECT_THROW(random_split(10, -0.1, 0.1, 0), ArgumentError);
  EXPECT_THROW(random_split(10, 0.8, -0.1, 0), ArgumentError);
  EXPECT_THROW(random_split(10, 1.1, 0.0, 0), ArgumentError);
  EXPECT_THROW(random_split(10, 0.8, 0.3, 0), ArgumentError);
  EXPECT_THROW(random_split(10, std::nan(""), 0.1, 0), ArgumentError);
  EXPECT_THROW(random_split(-1, 0.8, 0.1, 0), ArgumentError);
  EXPECT_THROW(group_split({"a"}, 0.9, 0.2), ArgumentError);
}

TEST(GroupSplit, GroupsGoLargestFirstToTheFirstPartWithRoomKeepingRowOrder) {
  const Split split = group_split({"a", "b", "a", "c", "b", "a"}, 0.5, 0.34);
  EXPECT_EQ(split.train, (std::vector<Index>{0, 2, 5}));
  EXPECT_EQ(split.val, (std::vector<Index>{1, 4}));
  EXPECT_EQ(split.test, (std::vector<Index>{3}));
}

// BBBP's shape under a scaffold split: a large group of class 1, class 0 only in small groups of two,
// and many singletons of class 1 (rows 60..99) that the largest-first split leaves to validation and
// test.
struct GroupedLabels {
  std::vector<std::string> keys;
  Matrix<float> labels = Matrix<float>(100, 1);
};

GroupedLabels bbbp_like_groups() {
  GroupedLabels data;
  for (Index row = 0; row < 100; ++row) {
    const bool pair = row >= 40 && row < 60;
    data.keys.push_back(row < 40 ? "ring" : pair ? "pair" + std::to_string(row / 2) : "single" + std::to_string(row));
    data.labels(row, 0) = pair ? 0.0f : 1.0f;
  }
  return data;
}

std::set<float> classes_of(const std::vector<Index>& rows, const Matrix<float>& labels) {
  std::set<float> classes;
  for (const Index row : rows) classes.insert(labels(row, 0));
  return classes;
}

TEST(ClassBalancedGroupSplit, EveryPartReceivesBothClassesWhereTheGroupsAllow) {
  const GroupedLabels data = bbbp_like_groups();
  const Split largest_first = group_split(data.keys, 0.8, 0.1);
  EXPECT_EQ(classes_of(largest_first.val, data.labels), std::set<float>{1.0f});  // what the balance avoids

  const Split split = class_balanced_group_split(data.keys, data.labels, 0.8, 0.1, 0);
  EXPECT_EQ(split.train.size(), 80u);
  EXPECT_EQ(split.val.size(), 10u);
  EXPECT_EQ(split.test.size(), 10u);
  for (const std::vector<Index>* part : {&split.train, &split.val, &split.test})
    EXPECT_EQ(classes_of(*part, data.labels), (std::set<float>{0.0f, 1.0f}));
  std::map<std::string, int> part_of_key;
  for (int p = 0; const std::vector<Index>* part : {&split.train, &split.val, &split.test}) {
    for (const Index row : *part) {
      const auto [it, inserted] = part_of_key.emplace(data.keys[static_cast<std::size_t>(row)], p);
      EXPECT_EQ(it->second, p) << "group " << it->first << " is in two parts";
    }
    ++p;
  }
  EXPECT_EQ(part_of_key.at("ring"), 0);  // a group larger than half the validation part goes first
}

TEST(ClassBalancedGroupSplit, TheSeedOrdersTheSmallGroups) {
  const GroupedLabels data = bbbp_like_groups();
  const Split first = class_balanced_group_split(data.keys, data.labels, 0.8, 0.1, 3);
  const Split again = class_balanced_group_split(data.keys, data.labels, 0.8, 0.1, 3);
  const Split other = class_balanced_group_split(data.keys, data.labels, 0.8, 0.1, 4);
  EXPECT_EQ(first.val, again.val);
  EXPECT_EQ(first.test, again.test);
  EXPECT_NE(sorted(first.val), sorted(other.val));
}

TEST(ClassBalancedGroupSplit, MissingLabelsAndBadArguments) {
  GroupedLabels data = bbbp_like_groups();
  data.labels.setConstant(std::numeric_limits<float>::quiet_NaN());
  const Split split = class_balanced_group_split(data.keys, data.labels, 0.8, 0.1, 0);
  EXPECT_EQ(split.train.size() + split.val.size() + split.test.size(), 100u);
  EXPECT_THROW(class_balanced_group_split(data.keys, Matrix<float>(3, 1), 0.8, 0.1, 0), ArgumentError);
  EXPECT_THROW(class_balanced_group_split(data.keys, data.labels, 0.9, 0.2, 0), ArgumentError);
}

// Rows 100..139 of a table, as a split's train and validation rows might be.
std::vector<Index> some_rows() {
  std::vector<Index> rows(40);
  std::iota(rows.begin(), rows.end(), Index{100});
  return rows;
}

TEST(CrossValidationFolds, HeldOutPartsCoverTheRowsOnceAndEachFoldPartitionsThem) {
  const std::vector<Index> rows = some_rows();
  const std::vector<Split> folds = cross_validation_folds(rows, 3, 0.1, 5);
  ASSERT_EQ(folds.size(), 3u);
  std::vector<Index> held_out;
  for (const Split& fold : folds) {
    held_out.insert(held_out.end(), fold.test.begin(), fold.test.end());
    EXPECT_EQ(all_rows(fold), rows);  // train, val and test of one fold: every row once
  }
  EXPECT_EQ(sorted(held_out), rows);
  // 40 rows in 3 parts: 13, 13, 14; of the other 27 or 26 rows, floor(0.1 * count) validate.
  expect_sizes(folds[0], 25, 2, 13);
  expect_sizes(folds[1], 25, 2, 13);
  expect_sizes(folds[2], 24, 2, 14);
}

TEST(CrossValidationFolds, SameSeedSameFoldsOtherSeedOthers) {
  const std::vector<Index> rows = some_rows();
  const std::vector<Split> a = cross_validation_folds(rows, 4, 0.1, 1), b = cross_validation_folds(rows, 4, 0.1, 1);
  const std::vector<Split> c = cross_validation_folds(rows, 4, 0.1, 2);
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].train, b[k].train);
    EXPECT_EQ(a[k].val, b[k].val);
    EXPECT_EQ(a[k].test, b[k].test);
  }
  EXPECT_NE(a[0].test, c[0].test);
  EXPECT_NE(sorted(a[0].val), sorted(a[1].val));  // each fold draws its own validation rows
}

TEST(CrossValidationFolds, RefusesFewerThanTwoFoldsOrMoreFoldsThanRows) {
  EXPECT_THROW(cross_validation_folds(some_rows(), 1, 0.1, 0), ArgumentError);
  EXPECT_THROW(cross_validation_folds(some_rows(), 41, 0.1, 0), ArgumentError);
  EXPECT_THROW(cross_validation_folds(some_rows(), 5, 1.0, 0), ArgumentError);
  EXPECT_EQ(cross_validation_folds(some_rows(), 40, 0.0, 0).back().test.size(), 1u);  // leave one out
}

// Splits that Chemprop wrote for the shared data, beside the checkout.
fs::path peer_split(const std::string& name) {
  return fs::path(EDGEWISE_SOURCE_DIR) / ".." / "shared" / "peers" / "chemprop" / name;
}


class SplitDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("edgewise_splits_" + std::to_string(::getpid()));
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string dir() const { return folder_.string(); }

  void write(const std::string& name, const std::string& text) const {
    std::ofstream(folder_ / name, std::ios::binary) << text;
  }

  std::string contents(const std::string& name) const {
    std::ifstream in(folder_ / name, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  void write_files(const std::string& train, const std::string& val, const std::string& test) const {
    write("train.txt", train);
    write("val.txt", val);
    write("test.txt", test);
  }

  // The ParseError that reading the folder throws.
  ParseError read_error(Index n) const {
    return thrown_by<ParseError>([&] { read_split_directory(dir(), n); });
  }

  void expect_read_error(Index n, const std::string& file, std::size_t line, const std::string& text,
                         const std::string& reason_part) const {
    const ParseError error = read_error(n);
    EXPECT_EQ(error.file(), (folder_ / file).string());
    EXPECT_EQ(error.line(), line);
    EXPECT_EQ(error.text(), text);
    EXPECT_NE(error.reason().find(reason_part), std::string::npos) << error.what();
  }

  fs::path folder_;
};

TEST_F(SplitDirectoryTest, RoundTrip) {
  const Split split = random_split(50, 0.6, 0.2, 5);
  write_split_directory(dir(), split);
  const Split read = read_split_directory(dir(), 50);
  EXPECT_EQ(read.train, split.train);
  EXPECT_EQ(read.val, split.val);
  EXPECT_EQ(read.test, split.test);
  EXPECT_EQ(std::distance(fs::directory_iterator(folder_), fs::directory_iterator()), 3);
}

TEST_F(SplitDirectoryTest, CreatesTheFolder) {
  const std::string nested = (folder_ / "a" / "b").string();
  write_split_directory(nested, {{0}, {1}, {}});
  EXPECT_EQ(read_split_directory(nested, 2).val, (std::vector<Index>{1}));
}

TEST_F(SplitDirectoryTest, WhitespaceAndBlankLinesAreIgnoredAndRowsNeedNotBeCovered) {
  write_files(" 3 \r\n\n\t0\n", "\n", "5");
  const Split split = read_split_directory(dir(), 10);
  EXPECT_EQ(split.train, (std::vector<Index>{3, 0}));
  EXPECT_TRUE(split.val.empty());
  EXPECT_EQ(split.test, (std::vector<Index>{5}));
}

TEST_F(SplitDirectoryTest, TextThatIsNotAnIntegerNamesFileAndLine) {
  write_files("0\n1\n", "2\n\nx3\n", "4\n");
  expect_read_error(10, "val.txt", 3, "x3", "not a row index");
  write_files("0\n1.5\n", "", "");
  expect_read_error(10, "train.txt", 2, "1.5", "not a row index");
  write_files("0\n", "", "1 2\n");
  expect_read_error(10, "test.txt", 1, "1 2", "not a row index");
}

TEST_F(SplitDirectoryTest, NegativeIndexNamesFileAndLine) {
  write_files("0\n-1\n", "", "");
  expect_read_error(10, "train.txt", 2, "-1", "negative");
}

TEST_F(SplitDirectoryTest, IndexBeyondTheDatasetNamesFileAndLine) {
  write_files("0\n", "9\n", "10\n");
  expect_read_error(10, "test.txt", 1, "10", "out of range; the dataset has 10 rows");
}

TEST_F(SplitDirectoryTest, DuplicateWithinAFileNamesBothLines) {
  write_files("0\n4\n4\n", "", "");
  expect_read_error(10, "train.txt", 3, "4", "already listed at " + (folder_ / "train.txt").string() + ":2");
}

TEST_F(SplitDirectoryTest, DuplicateAcrossFilesNamesBothFiles) {
  write_files("0\n4\n", "1\n", "2\n\n4\n");
  expect_read_error(10, "test.txt", 3, "4", "already listed at " + (folder_ / "train.txt").string() + ":2");
}

TEST_F(SplitDirectoryTest, MissingFileIsAnError) {
  write("train.txt", "0\n");
  write("val.txt", "1\n");
  try {
    read_split_directory(dir(), 10);
    FAIL() << "no exception thrown";
  } catch (const ParseError& e) {
    FAIL() << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("test.txt: cannot open"), std::string::npos) << e.what();
  }
}

TEST_F(SplitDirectoryTest, RefusesToReplaceOtherContentsWithoutOverwrite) {
  const Split first = {{0, 1}, {2}, {3}};
  const Split second = {{1, 0}, {2}, {4}};
  write_split_directory(dir(), first);
  write_split_directory(dir(), first);  // the same contents: nothing to refuse

  // train.txt is absent, so only test.txt conflicts; it must be found before train.txt is written.
  fs::remove(folder_ / "train.txt");
  EXPECT_THROW(write_split_directory(dir(), second), Error);
  EXPECT_FALSE(fs::exists(folder_ / "train.txt"));
  EXPECT_EQ(contents("test.txt"), "3\n");

  write_split_directory(dir(), second, /*overwrite=*/true);
  EXPECT_EQ(contents("train.txt"), "1\n0\n");
  EXPECT_EQ(contents("test.txt"), "4\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(folder_), fs::directory_iterator()), 3);
}

TEST(SplitDirectory, ReadsChempropsEsolSplit) {
  const fs::path dir = peer_split("esol_split_seed0");
  if (!fs::exists(dir)) GTEST_SKIP() << dir.string() << " not found: no Chemprop reference splits";
  const Split split = read_split_directory(dir.string(), 1128);
  expect_sizes(split, 902, 113, 113);
  expect_partition_of(split, 1128);
}

}  // namespace
}  // namespace edgewise