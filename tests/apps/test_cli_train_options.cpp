// The options of `train` that both tasks read: one meaning each, so that --hidden and --head-dim
// set the same width for a molecule model and a node classifier, and the options of one task are
// refused for the other. --precision chooses the arithmetic of the products for both.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <utility>

#include "edgewise/core/products.hpp"
#include "support/cli.hpp"
#include "support/environment.hpp"

namespace {

using edgewise::testing::CliRun;

class CliTrainOptionsTest : public edgewise::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_small_molecules("molecules.csv");
    std::ofstream edges(path("edges.txt")), labels(path("labels.txt"));
    for (int community = 0; community < 2; ++community)
      for (int i = 0; i < 4; ++i) {
        const int node = 4 * community + i;
        for (int j = i + 1; j < 4; ++j) edges << node << ' ' << 4 * community + j << '\n';
        labels << node << ' ' << community << '\n';
      }
    edges << "0 4\n";
  }

  std::string molecule_training(const std::string& options, const std::string& out) const {
    return "train --task molecule --data " + path("molecules.csv") +
           " --layers 1 --head-hidden 8 --epochs 2 --ensemble 1 --no-descriptors --batch-size 4 "
           "--split-sizes 0.5,0.25,0.25 --quiet " +
           options + " --out " + path(out);
  }

  std::string node_training(const std::string& options, const std::string& out) const {
    return "train --task node --edges " + path("edges.txt") + " --labels " + path("labels.txt") +
           " --split stratified:0.5,0.25,0.25 --epochs 3 --quiet " + options + " --out " + path(out);
  }

  std::string bytes_of(const std::string& name) const {
    std::ifstream in(path(name), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  void expect_error(const std::string& arguments, const std::string& message) const {
    const CliRun run = run_cli(arguments);
    EXPECT_EQ(run.status, 1) << arguments;
    EXPECT_NE(run.output.find(message), std::string::npos) << run.output;
  }
};

TEST_F(CliTrainOptionsTest, HiddenAndHeadDimGiveOneWidthForBothTasks) {
  ASSERT_EQ(run_cli(molecule_training("--heads 2 --hidden 8", "hidden.ew")).status, 0);
  ASSERT_EQ(run_cli(molecule_training("--heads 2 --head-dim 4", "head_dim.ew")).status, 0);
  ASSERT_EQ(run_cli(molecule_training("--heads 2 --hidden 8 --head-dim 4", "both.ew")).status, 0);
  EXPECT_EQ(read("hidden.ew"), read("head_dim.ew"));
  EXPECT_EQ(read("hidden.ew"), read("both.ew"));

  ASSERT_EQ(run_cli(node_training("--heads 2 --hidden 8", "nodes_hidden.ew")).status, 0);
  ASSERT_EQ(run_cli(node_training("--heads 2 --head-dim 4", "nodes_head_dim.ew")).status, 0);
  EXPECT_EQ(read("nodes_hidden.ew"), read("nodes_head_dim.ew"));
  EXPECT_NE(read("nodes_hidden.ew"), read("hidden.ew"));
}

TEST_F(CliTrainOptionsTest, RefusesWidthsThatHeadsCannotSplit) {
  expect_error(molecule_training("--heads 2 --hidden 9", "x.ew"), "--hidden 9 is not a multiple of --heads 2");
  expect_error(node_training("--heads 2 --hidden 9", "x.ew"), "--hidden 9 is not a multiple of --heads 2");
  expect_error(node_training("--heads 2 --hidden 8 --head-dim 8", "x.ew"),
               "--hidden 8 and --head-dim 8 disagree: 2 heads of width 8 make 16");
  expect_error(molecule_training("--heads 3", "x.ew"), "--heads 3 does not divide --task molecule's default --hidden 64");
}

TEST_F(CliTrainOptionsTest, RefusesTheOtherTasksOptionsBothWays) {
  expect_error(node_training("--readout mean", "x.ew"), "--readout applies to --task molecule only");
  expect_error(node_training("--data " + path("molecules.csv"), "x.ew"), "--data applies to --task molecule only");
  expect_error(molecule_training("--output-heads 2", "x.ew"), "--output-heads applies to --task node only");
  expect_error(molecule_training("--edges " + path("edges.txt"), "x.ew"), "--edges applies to --task node and link only");
  expect_error(molecule_training("--embedding-dim 8", "x.ew"), "--embedding-dim applies to --task link only");
}

TEST_F(CliTrainOptionsTest, HelpGivesTheDefaultsOfEveryTaskReadingAnOption) {
  const CliRun help = run_cli("train --help", 0);
  ASSERT_EQ(help.status, 0);
  EXPECT_NE(help.output.find("Attention heads of each hidden layer (--task molecule: 4; --task node: 8; --task link: 4)"),
            std::string::npos)
      << help.output;
  EXPECT_NE(help.output.find("(--task molecule: 0.001; --task node: 0.005; --task link: 0.01)"), std::string::npos)
      << help.output;
  EXPECT_NE(help.output.find("(--task molecule: 0.8,0.1,0.1; --task link: 0.85,0.05,0.1)"), std::string::npos)
      << help.output;
}

// Without the option a run computes at EDGEWISE_PRECISION's choice (float32 under ctest: see
// tests/CMakeLists.txt), else at auto's; bf16 trains other weights where the CPU has it, and says it
// runs float32 where not.
TEST_F(CliTrainOptionsTest, PrecisionChoicesAndTheirDefault) {
  for (const auto& [options, name] : {std::pair{"", "plain.ew"}, {"--precision float32", "float32.ew"},
                                      {"--precision bf16", "bf16.ew"}, {"--precision auto", "auto.ew"}}) {
    const CliRun run = run_cli(molecule_training(options, name));
    ASSERT_EQ(run.status, 0) << options << ": " << run.output;
    EXPECT_EQ(run.output.find("no AVX-512 BF16") != std::string::npos,
              options == std::string("--precision bf16") && !edgewise::bf16_available())
        << run.output;
  }
  const auto file_of = [](edgewise::Precision p) { return p == edgewise::Precision::bf16 ? "bf16.ew" : "float32.ew"; };
  EXPECT_EQ(bytes_of("bf16.ew") != bytes_of("float32.ew"), edgewise::bf16_available());
  EXPECT_EQ(bytes_of("plain.ew"), bytes_of(file_of(edgewise::default_precision())));
  EXPECT_EQ(bytes_of("auto.ew"), bytes_of(file_of(edgewise::fastest_precision())));

  CliRun from_environment, bad_environment;
  {
    const edgewise::testing::ScopedEnvironment variable("EDGEWISE_PRECISION", "bf16");
    from_environment = run_cli(molecule_training("", "environment.ew"));
    variable.assign("fp16");
    bad_environment = run_cli(molecule_training("", "x.ew"));
  }
  ASSERT_EQ(from_environment.status, 0) << from_environment.output;
  EXPECT_EQ(bytes_of("environment.ew"), bytes_of("bf16.ew"));
  EXPECT_NE(bad_environment.status, 0);
  EXPECT_NE(bad_environment.output.find("environment variable EDGEWISE_PRECISION: precision 'fp16': expected auto, "
                                        "float32 or bf16"),
            std::string::npos)
      << bad_environment.output;

  const CliRun refused = run_cli(molecule_training("--precision fp16", "x.ew"));
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.output.find("--precision: fp16 not in {auto,float32,bf16}"), std::string::npos) << refused.output;
}

}  // namespace
