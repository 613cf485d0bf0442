// The split specifications of every front end: parsed into a typed SplitSpec, with errors that name
// the option and the value, and the splits they name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "edgewise/tasks/common/split_spec.hpp"
#include "support/thrown.hpp"

namespace edgewise {
namespace {

TEST(SplitSpecTest, FractionsAreThreeNumbersAddingUpToOne) {
  const SplitFractions sizes = parse_split_fractions(" 0.5, 0.25,0.25");
  EXPECT_DOUBLE_EQ(sizes.train, 0.5);
  EXPECT_DOUBLE_EQ(sizes.val, 0.25);
  EXPECT_DOUBLE_EQ(sizes.test, 0.25);
  EXPECT_EQ(sizes.text, " 0.5, 0.25,0.25");
  EXPECT_EQ(testing::argument_error_of([] { parse_split_fractions("0.8,0.2"); }),
            "--split-sizes: expected three fractions such as 0.8,0.1,0.1, got '0.8,0.2'");
  EXPECT_EQ(testing::argument_error_of([] { parse_split_fractions("0.8,x,0.1"); }),
            "--split-sizes: 'x' is not a number");
  EXPECT_EQ(testing::argument_error_of([] { parse_split_fractions("0.8,0.1,0.2", "split_sizes"); }),
            "split_sizes: the fractions must add up to 1, got '0.8,0.1,0.2'");
}

TEST(SplitSpecTest, MoleculeSplitsAreRandomScaffoldOrAFolder) {
  const SplitSpec random = parse_molecule_split("random", parse_split_fractions("0.6,0.2,0.2"));
  EXPECT_EQ(random.kind, SplitKind::random);
  EXPECT_DOUBLE_EQ(random.fractions.train, 0.6);
  EXPECT_EQ(describe_molecule_split(random, TaskType::regression, 3), "random 0.6,0.2,0.2");
  const SplitSpec scaffold = parse_molecule_split("scaffold");
  EXPECT_EQ(scaffold.kind, SplitKind::scaffold);
  EXPECT_EQ(describe_molecule_split(scaffold, TaskType::regression, 3), "scaffold 0.8,0.1,0.1");
  EXPECT_EQ(describe_molecule_split(scaffold, TaskType::classification, 3),
            "scaffold (class-balanced, seed 3) 0.8,0.1,0.1");
  const std::string folder = ::testing::TempDir();
  const SplitSpec files = parse_molecule_split(folder);
  EXPECT_EQ(files.kind, SplitKind::folder);
  EXPECT_EQ(files.folder, folder);
  EXPECT_EQ(describe_molecule_split(files, TaskType::regression, 0), folder);
  EXPECT_EQ(testing::argument_error_of([] { parse_molecule_split("radnom", {}, "split"); }),
            "split: 'radnom' is neither random, scaffold nor a folder with train.txt, val.txt, test.txt");
}

TEST(SplitSpecTest, NodeSplitsArePerClassStratifiedOrAFolder) {
  const SplitSpec planetoid = parse_node_split("per-class:20");
  EXPECT_EQ(planetoid.kind, SplitKind::per_class);
  EXPECT_EQ(planetoid.per_class.train_per_class, 20);
  EXPECT_EQ(planetoid.per_class.val, 500);
  EXPECT_EQ(planetoid.per_class.test, 1000);
  const SplitSpec counted = parse_node_split("per-class:5,10,15");
  EXPECT_EQ(counted.per_class.val, 10);
  EXPECT_EQ(counted.per_class.test, 15);
  const SplitSpec stratified = parse_node_split("stratified:0.6,0.2,0.2");
  EXPECT_EQ(stratified.kind, SplitKind::stratified);
  EXPECT_DOUBLE_EQ(stratified.fractions.val, 0.2);
  EXPECT_EQ(stratified.text, "stratified:0.6,0.2,0.2");
  EXPECT_EQ(parse_node_split(::testing::TempDir()).kind, SplitKind::folder);
}

TEST(SplitSpecTest, NodeSplitErrorsNameTheOptionAndValue) {
  EXPECT_EQ(testing::argument_error_of([] { parse_node_split("per-class:5,10"); }),
            "--split: expected per-class:K or per-class:K,VAL,TEST, got 'per-class:5,10'");
  EXPECT_EQ(testing::argument_error_of([] { parse_node_split("per-class:x"); }),
            "--split per-class: 'x' is not a number");
  EXPECT_EQ(testing::argument_error_of([] { parse_node_split("per-class:2.5", "split"); }),
            "split: 2.500000 is not a node count");
  EXPECT_EQ(testing::argument_error_of([] { parse_node_split("stratified:0.6,0.2"); }),
            "--split: expected stratified:TRAIN,VAL,TEST with fractions adding up to 1, got 'stratified:0.6,0.2'");
  EXPECT_EQ(testing::argument_error_of([] { parse_node_split("random"); }),
            "--split: 'random' is not per-class:K, stratified:TRAIN,VAL,TEST or a folder");
}

TEST(SplitSpecTest, NodeSplitsAreTheDatasetsSplits) {
  const std::vector<Index> labels = {0, 1, 0, 1, -1, 0, 1, 0, 1, 0};
  const Split stratified = make_node_split(parse_node_split("stratified:0.5,0.25,0.25"), labels, {}, 7);
  const Split expected = stratified_split(labels, 0.5, 0.25, 7);
  EXPECT_EQ(stratified.train, expected.train);
  EXPECT_EQ(stratified.val, expected.val);
  EXPECT_EQ(stratified.test, expected.test);
  const Split per_class = make_node_split(parse_node_split("per-class:1,2,3"), labels, {}, 7);
  const Split reference = per_class_split(labels, {.train_per_class = 1, .val = 2, .test = 3, .seed = 7});
  EXPECT_EQ(per_class.train, reference.train);
  EXPECT_EQ(per_class.val, reference.val);
  EXPECT_EQ(per_class.test, reference.test);
  // A specification of the other task is refused.
  EXPECT_EQ(testing::argument_error_of([&] {
              make_node_split(parse_molecule_split("random"), labels, {}, 0);
            }),
            "split 'random' applies to molecules, not to node classification");
}

}  // namespace
}  // namespace edgewise
