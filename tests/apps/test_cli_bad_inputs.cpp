// The edgewise tool on the bad-input corpus (tests/data/bad/cases.json) and on damaged model files:
// every run must end with exit status 1 (an error, not a crash or an internal error), print a message
// naming the file, line and problem, and leave nothing in the output folder: no --out file and no
// temporary file. Also: outputs are replaced only with --force, and a failed run keeps the old file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "edgewise/io/csv.hpp"
#include "support/damaged_models.hpp"
#include "support/odd_molecules.hpp"
#include "support/cli.hpp"
#include "support/untrained_model.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(EDGEWISE_SOURCE_DIR) / "tests" / "data" / "bad";

using edgewise::testing::CliRun;

std::string replaced(std::string text, const std::string& key, const std::string& value) {
  for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

class CliBadInputTest : public edgewise::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    fs::create_directories(folder_ / "outputs");
    edgewise::testing::save_untrained_molecule_model(path("model.ew"));
  }
  std::string out() const { return (folder_ / "outputs" / "out.file").string(); }


  // A run that must fail cleanly: status 1, every fragment in the message, the output folder empty.
  void expect_clean_failure(const std::string& arguments, const std::vector<std::string>& fragments) const {
    SCOPED_TRACE(arguments);
    const CliRun run = run_cli(arguments);
    EXPECT_EQ(run.status, 1) << run.output;
    EXPECT_EQ(run.output.find("internal error"), std::string::npos) << run.output;
    for (const std::string& fragment : fragments)
      EXPECT_NE(run.output.find(fragment), std::string::npos) << fragment << " not in: " << run.output;
    EXPECT_TRUE(fs::is_empty(folder_ / "outputs")) << "left behind: " << fs::directory_iterator(folder_ / "outputs")->path();
  }

  // Paths of the output folder other than out(), such as temporary files.
  std::vector<fs::path> strays() const {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(folder_ / "outputs"))
      if (entry.path() != out()) found.push_back(entry.path());
    return found;
  }
};

TEST_F(CliBadInputTest, EveryCorpusCaseFailsCleanly) {
  const nlohmann::json manifest = nlohmann::json::parse(std::ifstream(kCorpus / "cases.json"));
  std::size_t runs = 0;
  for (const auto& c : manifest["cases"]) {
    if (!c.contains("cli")) continue;
    const std::string file = c["file"];
    std::vector<std::string> fragments = {c["line"].get<int>() > 0 ? file + ":" + std::to_string(c["line"].get<int>())
                                                                   : file};
    for (const auto& fragment : c["expect"]) fragments.push_back(fragment);
    for (const auto& name : c["cli"]) {
      std::string arguments = manifest["commands"][name.get<std::string>()];
      arguments = replaced(arguments, "{file}", (kCorpus / file).string());
      arguments = replaced(arguments, "{dir}", kCorpus.string());
      arguments = replaced(arguments, "{molecule_model}", path("model.ew"));
      arguments = replaced(arguments, "{out}", out());
      expect_clean_failure(arguments, fragments);
      ++runs;
    }
  }
  EXPECT_GE(runs, 50u);
}

TEST_F(CliBadInputTest, PredictGivesEveryOddMoleculeAValueOrItsReason) {
  const std::string file = edgewise::testing::kOddMolecules.string();
  const CliRun run = run_cli("predict --model " + path("model.ew") + " --data " + file + " --smiles-column smiles --out " + out());
  ASSERT_EQ(run.status, 0) << run.output;
  const edgewise::CsvTable predictions = edgewise::read_csv(out());
  const auto expected = edgewise::testing::odd_molecules();
  ASSERT_EQ(predictions.num_rows(), expected.size());
  EXPECT_EQ(predictions.header, (std::vector<std::string>{"smiles", "y", "error"}));
  for (std::size_t row = 0; row < expected.size(); ++row) {
    const auto& [name, smiles, expect, line] = expected[row];
    const std::vector<std::string>& fields = predictions.rows[row];
    if (expect == "valid") {
      EXPECT_FALSE(fields[1].empty()) << name << ": " << fields[2];
      EXPECT_TRUE(fields[2].empty()) << name << ": " << fields[2];
    } else {
      EXPECT_TRUE(fields[1].empty()) << name;
      EXPECT_NE(fields[2].find(expect), std::string::npos) << name << ": " << fields[2];
    }
  }
}

TEST_F(CliBadInputTest, TrainingSkipsTheOddMoleculesOrStopsAtTheFirst) {
  const std::string file = edgewise::testing::kOddMolecules.string();
  const std::string train =
      "train --task graph --data " + file + " --smiles-column smiles --targets y --epochs 1 --hidden 8 --out " + out();
  const auto expected = edgewise::testing::odd_molecules();
  const auto first_invalid = std::find_if(expected.begin(), expected.end(), [](const auto& m) { return !m.valid(); });
  ASSERT_NE(first_invalid, expected.end());
  expect_clean_failure(train, {"mol_odd_molecules.csv:" + std::to_string(first_invalid - expected.begin() + 2),
                               first_invalid->expect});

  const std::string skipped = path("skipped.csv");
  const CliRun run = run_cli(train + " --skip-invalid --skipped-list " + skipped);
  ASSERT_EQ(run.status, 0) << run.output;
  const edgewise::CsvTable list = edgewise::read_csv(skipped);
  std::size_t listed = 0;
  for (std::size_t row = 0; row < expected.size(); ++row) {
    if (expected[row].valid()) continue;
    ASSERT_LT(listed, list.num_rows()) << expected[row].name;
    EXPECT_EQ(list.rows[listed][1], std::to_string(row)) << expected[row].name;
    EXPECT_NE(list.rows[listed][3].find(expected[row].expect), std::string::npos) << list.rows[listed][3];
    ++listed;
  }
  EXPECT_EQ(listed, list.num_rows());
}

// Split files list data rows: with --skip-invalid, a listed row whose molecule was skipped is
// reported and left out, the other rows keep their molecules, and --save-split writes data rows.
TEST_F(CliBadInputTest, SplitFilesCountDataRowsWhenInvalidMoleculesAreSkipped) {
  {
    std::ofstream data(path("data.csv"));
    data << "smiles,y\n";
    for (int row = 0; row < 12; ++row) data << (row % 4 == 1 ? "C1CC(" : std::string(row + 1, 'C')) << ',' << row << '\n';
    fs::create_directories(path("split"));
    std::ofstream(path("split/train.txt")) << "0\n1\n2\n3\n";
    std::ofstream(path("split/val.txt")) << "4\n5\n6\n7\n";
    std::ofstream(path("split/test.txt")) << "8\n9\n10\n11\n";
  }
  const CliRun run = run_cli("train --task graph --data " + path("data.csv") + " --split " + path("split") +
                             " --skip-invalid --skipped-list " + path("skipped.csv") + " --save-split " +
                             path("saved") + " --epochs 1 --hidden 8 --out " + out());
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("the split lists 3 rows whose molecules were skipped (test 1, train 1, val 1)"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("train row 1 (line 3): SMILES Parse Error"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("split 3 / 3 / 3"), std::string::npos) << run.output;
  EXPECT_EQ(read(path("saved/train.txt")), "0\n2\n3\n");
  EXPECT_EQ(read(path("saved/val.txt")), "4\n6\n7\n");
  EXPECT_EQ(read(path("saved/test.txt")), "8\n10\n11\n");
}

TEST_F(CliBadInputTest, EveryDamagedModelFileFailsCleanly) {
  for (const edgewise::testing::DamagedModel& damaged : edgewise::testing::damaged_models(read(path("model.ew")))) {
    std::ofstream(path(damaged.name), std::ios::binary) << damaged.bytes;
    std::vector<std::string> fragments = damaged.expect;
    fragments.push_back(damaged.name);
    expect_clean_failure("predict --model " + path(damaged.name) + " --smiles CCO --out " + out(), fragments);
  }
}

TEST_F(CliBadInputTest, AnExistingOutputIsReplacedOnlyWithForce) {
  std::ofstream(out()) << "precious";
  const std::string predict = "predict --model " + path("model.ew") + " --smiles CCO --out " + out();
  const CliRun refused = run_cli(predict);
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.output.find("pass --force"), std::string::npos) << refused.output;
  EXPECT_EQ(read(out()), "precious");

  const CliRun forced = run_cli(predict + " --force");
  ASSERT_EQ(forced.status, 0) << forced.output;
  EXPECT_EQ(read(out()).substr(0, 15), "smiles,y,error\n");
  EXPECT_TRUE(strays().empty());
}

// A prediction that fails after writing rows (a ragged row near the end of a long input) must keep
// the old output and leave no temporary file.
TEST_F(CliBadInputTest, AFailedRunKeepsTheOldOutputAndLeavesNoTemporaryFile) {
  std::ofstream(out()) << "precious";
  {
    std::ofstream data(path("long.csv"));
    data << "smiles\n";
    for (int i = 0; i < 5000; ++i) data << "CCO\n";
    data << "CCO,1\n";
  }
  const CliRun failed =
      run_cli("predict --model " + path("model.ew") + " --data " + path("long.csv") + " --out " + out() + " --force");
  EXPECT_EQ(failed.status, 1) << failed.output;
  EXPECT_NE(failed.output.find("long.csv:5002: expected 1 fields, found 2"), std::string::npos) << failed.output;
  EXPECT_EQ(read(out()), "precious");
  EXPECT_TRUE(strays().empty()) << strays().front();
}

}  // namespace
