// Cross-validation's parts below the front ends: grids and presets as candidates the parameter tables
// read, folds inside the training and validation rows, the paired differences and the record that
// options files keep.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "edgewise/tasks/tuning.hpp"
#include "support/thrown.hpp"

namespace edgewise {
namespace {

using json = nlohmann::json;

TEST(TuningTest, AGridObjectIsEveryCombinationOfItsValues) {
  const json candidates = grid_candidates(json::parse(R"({"hidden": [8, 16], "readout": ["sum", "mean"]})"), "grid.json");
  ASSERT_EQ(candidates.size(), 4u);
  EXPECT_EQ(candidates[0], json({{"hidden", 8}, {"readout", "sum"}}));
  EXPECT_EQ(candidates[3], json({{"hidden", 16}, {"readout", "mean"}}));
  const json list = json::parse(R"([{"hidden": 8}, {}])");
  EXPECT_EQ(grid_candidates(list, "grid.json"), list);
  EXPECT_THROW(grid_candidates(json::array(), "grid.json"), Error);
  EXPECT_THROW(grid_candidates(json::parse(R"({"hidden": []})"), "grid.json"), Error);
  EXPECT_THROW(grid_candidates(json::parse(R"([8])"), "grid.json"), Error);
}

TEST(TuningTest, PresetsAreCandidatesTheTablesRead) {
  for (const std::string task : {"graph", "node"}) {
    const json preset = tuning_preset(task, "small");
    EXPECT_EQ(preset[0], json::object()) << task;  // the defaults first
    for (const json& candidate : preset) EXPECT_NO_THROW(read_training_options(task, candidate, {})) << candidate;
  }
  EXPECT_EQ(testing::argument_error_of([] { tuning_preset("graph", "large"); }), "preset: expected small, got 'large'");
}

TEST(TuningTest, FoldsHoldOutEveryTrainingAndValidationRowOnceAndNoTestRow) {
  const Split split{.train = {0, 1, 2, 3, 4, 5, 6, 7}, .val = {8, 9}, .test = {10, 11}};
  const std::vector<Split> folds = tuning_folds(split, 5, 3);
  ASSERT_EQ(folds.size(), 5u);
  std::vector<Index> held_out;
  for (const Split& fold : folds) {
    held_out.insert(held_out.end(), fold.test.begin(), fold.test.end());
    for (const std::vector<Index>* part : {&fold.train, &fold.val, &fold.test})
      for (const Index row : *part) EXPECT_LT(row, 10);
  }
  std::ranges::sort(held_out);
  EXPECT_EQ(held_out, (std::vector<Index>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(tuning_folds(split, 5, 3)[0].test, folds[0].test);  // the seed decides
}

TEST(TuningTest, DifferencesArePairedByFoldAndTheRecordKeepsEveryScore) {
  TuningResult result{.metric = "rmse"};
  result.candidates = {{.options = json::object(), .folds = {1.0, 2.0, 3.0, 4.0}, .seconds = 2},
                       {.options = {{"hidden", 8}}, .folds = {1.1, 2.3, 3.1, 4.3}, .seconds = 1}};
  const auto [mean, t] = result.difference(1);
  EXPECT_NEAR(mean, 0.2, 1e-12);
  // Differences 0.1, 0.3, 0.1, 0.3: sd 0.11547, t = 0.2 / (0.11547 / 2).
  EXPECT_NEAR(t, 0.2 / (std::sqrt(0.04 / 3.0) / 2.0), 1e-9);
  EXPECT_EQ(result.difference(0), std::make_pair(0.0, 0.0));
  EXPECT_NEAR(result.candidates[1].sd(), std::sqrt(((1.1 - 2.7) * (1.1 - 2.7) + 0.16 + 0.16 + 1.6 * 1.6) / 3), 1e-12);
  const json record = result.record({{"data", "d.csv"}, {"split", "random"}, {"seed", 0}, {"metric", "rmse"}}, 4);
  EXPECT_EQ(record["folds"], 4);
  EXPECT_EQ(record["candidates"][1]["options"], json({{"hidden", 8}}));
  EXPECT_EQ(record["candidates"][1]["folds"].size(), 4u);
  EXPECT_TRUE(paired_test_applies(4));
  EXPECT_FALSE(paired_test_applies(3));
}

}  // namespace
}  // namespace edgewise
