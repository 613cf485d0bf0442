// `edgewise train --options FILE`, run as a user would: each option of the file is read by its row
// of the task's parameter table, and a value the option refuses names the file and the option.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli.hpp"

namespace {

using edgewise::testing::CliRun;

class CliOptionsFileTest : public edgewise::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    std::ofstream csv(path("molecules.csv"));
    csv << "smiles,y\n";
    for (int length = 1; length <= 10; ++length) csv << std::string(static_cast<std::size_t>(length), 'C') << "O," << length << '\n';
  }

  // train --task graph with an options file holding `options`.
  CliRun train(const std::string& options, const std::string& extra = "") const {
    std::ofstream(path("options.json")) << R"({"format": "edgewise options", "version": 1, "task": "graph", "options": )"
                                        << options << "}";
    return run_cli("train --task graph --data " + path("molecules.csv") + " --targets y --epochs 1 --ensemble 1 --options " +
                   path("options.json") + " --force --out " + path("model.ew") + " " + extra);
  }
};

TEST_F(CliOptionsFileTest, ARefusedValueNamesTheFileAndTheOption) {
  const CliRun run = train(R"({"hidden": 0})");
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.output.find(path("options.json") + ": option 'hidden': value 0 is below the minimum of 1"),
            std::string::npos)
      << run.output;
  EXPECT_FALSE(std::filesystem::exists(path("model.ew")));

  const CliRun text = train(R"({"lr": "fast"})");
  EXPECT_EQ(text.status, 1);
  EXPECT_NE(text.output.find(path("options.json") + ": option 'lr': 'fast' is not a number"), std::string::npos)
      << text.output;

  const CliRun other_task = train(R"({"fanout": "10,5"})");
  EXPECT_EQ(other_task.status, 1);
  EXPECT_NE(other_task.output.find(path("options.json") + ": 'fanout' applies to --task node and link only"), std::string::npos)
      << other_task.output;
}

TEST_F(CliOptionsFileTest, ValuesAsTextAreReadAsTheCommandLineReadsThem) {
  // The command line's --hidden wins over the file's.
  const CliRun run = train(R"({"hidden": "16", "heads": "2", "descriptors": "off"})", "--hidden 8");
  ASSERT_EQ(run.status, 0) << run.output;
  const CliRun info = run_cli("info " + path("model.ew"), 0);
  EXPECT_NE(info.output.find("graph_dim            0\n"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("heads                2\n"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("hidden               8\n"), std::string::npos) << info.output;
}

}  // namespace
