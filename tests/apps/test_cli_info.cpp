// `edgewise train` output settings (--quiet, --verbose, --plot) and `edgewise info` on the model
// files it writes, for a molecule model and a node classifier, as a user runs them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "edgewise/models/model_file.hpp"
#include "support/cli.hpp"

namespace {

namespace fs = std::filesystem;

using edgewise::testing::CliRun;

class CliInfoTest : public edgewise::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_small_molecules("molecules.csv");
    write_two_communities();
  }

  // For `info`, which runs no parallel loop and has no --threads. Output goes to a file, so the tool
  // sees no terminal and prints plain lines.
  CliRun run_plain(const std::string& arguments) const { return run_cli(arguments, 0); }

  void write_two_communities() const {
    std::ofstream edges(path("edges.txt")), labels(path("labels.txt"));
    for (const std::string community : {"a", "b"}) {
      for (int i = 0; i < 4; ++i) {
        const std::string node = community + std::to_string(i);
        for (int j = i + 1; j < 4; ++j) edges << node << ' ' << community << j << '\n';
        labels << node << ' ' << (community == "a" ? "red" : "blue") << '\n';
      }
    }
    edges << "a0 b0\n";
  }

  std::string molecule_training(const std::string& out) const {
    return "train --task molecule --data " + path("molecules.csv") +
           " --smiles-column smiles --targets logS --hidden 8 --heads 2 --layers 1 --head-hidden 8 --epochs 4 "
           "--ensemble 1 --readout sum --no-descriptors --no-atom-crippen "
           "--batch-size 4 --split-sizes 0.5,0.25,0.25 --seed 5 --out " +
           path(out);
  }

  std::string node_training(const std::string& out) const {
    return "train --task node --node-ids string --edges " + path("edges.txt") + " --labels " + path("labels.txt") +
           " --split stratified:0.5,0.25,0.25 --epochs 6 --out " + path(out);
  }
};

// A line of `edgewise info`: the name indented by two and padded to 22 columns, then the value.
std::string row_start(const std::string& name, const std::string& value = "") {
  std::string text = "  " + name;
  text.resize(22, ' ');
  return "\n" + text + " " + value;
}

std::string row(const std::string& name, const std::string& value) { return row_start(name, value) + "\n"; }

std::size_t count_lines_starting(const std::string& text, const std::string& prefix) {
  std::size_t n = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) n += line.starts_with(prefix);
  return n;
}

TEST_F(CliInfoTest, GraphModelInfoShowsArchitectureTrainingAndMetrics) {
  const CliRun train = run_cli(molecule_training("graph.ew") + " --plot " + path("graph.svg"));
  ASSERT_EQ(train.status, 0) << train.output;
  EXPECT_EQ(count_lines_starting(train.output, "epoch "), 4u) << "piped output keeps one line per epoch";
  EXPECT_EQ(train.output.find('\r'), std::string::npos) << "no progress bar without a terminal";
  EXPECT_NE(train.output.find("test metrics"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find("training curve: " + path("graph.svg")), std::string::npos) << train.output;
  const std::string svg = read("graph.svg");
  EXPECT_TRUE(svg.starts_with("<?xml")) << svg.substr(0, 100);
  EXPECT_NE(svg.find(">validation rmse<"), std::string::npos);

  const CliRun info = run_plain("info " + path("graph.ew"));
  ASSERT_EQ(info.status, 0) << info.output;
  for (const std::string& expected : std::vector<std::string>{
           ": molecule property model (train --task molecule)\n", row("task type", "regression"), row("targets", "logS"),
        "\narchitecture\n", row("layers", "1"), row("heads", "2"), row("readout", "sum"), "\nfeaturizer\n",
        row("data", path("molecules.csv")), row("molecules", "16"),
        row("split", "random 0.5,0.25,0.25: 8 / 4 / 4 (train / validation / test)"), row("seed", "5"),
        row_start("epochs", "at most 4; ran 4, kept epoch "), row_start("validation rmse"), row_start("test rmse"),
        row_start("test r2")})
    EXPECT_NE(info.output.find(expected), std::string::npos) << expected << "\n" << info.output;
}

TEST_F(CliInfoTest, NodeModelInfoShowsClassesTrainingAndMetrics) {
  const CliRun train = run_cli(node_training("node.ew") + " --plot " + path("node.svg"));
  ASSERT_EQ(train.status, 0) << train.output;
  EXPECT_EQ(count_lines_starting(train.output, "epoch "), 6u) << train.output;
  const std::string svg = read("node.svg");
  EXPECT_NE(svg.find(">validation accuracy<"), std::string::npos);
  EXPECT_NE(svg.find(">cross-entropy loss<"), std::string::npos);

  const CliRun info = run_plain("info " + path("node.ew"));
  ASSERT_EQ(info.status, 0) << info.output;
  for (const std::string& expected : std::vector<std::string>{
           ": node classification model (train --task node)\n", row("classes", "red, blue"),
        row("training graph", "8 nodes"), "\narchitecture\n", row("score", "additive"), "\ninput and featurizer\n",
        row("nodes", "8"), row("split", "stratified:0.5,0.25,0.25: 4 / 2 / 2 (train / validation / test)"),
        row_start("epochs", "at most 6; ran "), row_start("validation accuracy"), row_start("test accuracy"),
        row_start("test macro_f1")})
    EXPECT_NE(info.output.find(expected), std::string::npos) << expected << "\n" << info.output;
}

TEST_F(CliInfoTest, FilesWithoutATrainingSummarySayNotRecorded) {
  ASSERT_EQ(run_cli(node_training("node.ew")).status, 0);
  // Saved again without the summary, as files written before it was recorded are.
  const edgewise::ModelFile file = edgewise::load_model(path("node.ew"));
  edgewise::save_model(path("old.ew"), file.config, file.parameters);
  const CliRun info = run_plain("info " + path("old.ew"));
  ASSERT_EQ(info.status, 0) << info.output;
  EXPECT_NE(info.output.find(row("summary", "not recorded (saved by an earlier version)")), std::string::npos)
      << info.output;
  EXPECT_NE(info.output.find(row("classes", "red, blue")), std::string::npos) << info.output;
}

TEST_F(CliInfoTest, InfoRefusesFilesThatAreNotModels) {
  const CliRun csv = run_plain("info " + path("molecules.csv"));
  EXPECT_NE(csv.status, 0);
  EXPECT_NE(csv.output.find("edgewise: error: " + path("molecules.csv") + ": "), std::string::npos) << csv.output;
  const CliRun missing = run_plain("info " + path("none.ew"));
  EXPECT_NE(missing.status, 0);
  EXPECT_NE(missing.output.find("none.ew"), std::string::npos) << missing.output;
}

TEST_F(CliInfoTest, QuietPrintsNothingAndVerboseExplains) {
  const CliRun quiet = run_cli(node_training("quiet.ew") + " --quiet");
  ASSERT_EQ(quiet.status, 0) << quiet.output;
  EXPECT_EQ(quiet.output, "");
  EXPECT_TRUE(fs::exists(path("quiet.ew")));

  const CliRun verbose = run_cli(molecule_training("verbose.ew") + " --verbose --patience 1");
  ASSERT_EQ(verbose.status, 0) << verbose.output;
  EXPECT_NE(verbose.output.find("training on 8 graphs in 2 batches of up to 4, validating on 4 by rmse"),
            std::string::npos)
      << verbose.output;
  EXPECT_GE(count_lines_starting(verbose.output, "epoch "), 1u);

  const CliRun both = run_cli(node_training("both.ew") + " --quiet --verbose");
  EXPECT_NE(both.status, 0);
  EXPECT_NE(both.output.find("--quiet"), std::string::npos) << both.output;
}

TEST_F(CliInfoTest, PlotRefusesToOverwriteWithoutForce) {
  std::ofstream(path("curve.svg")) << "mine";
  const CliRun refused = run_cli(node_training("a.ew") + " --plot " + path("curve.svg"));
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.output.find(path("curve.svg") + ": already exists; pass --force"), std::string::npos)
      << refused.output;
  EXPECT_EQ(read("curve.svg"), "mine");
  EXPECT_FALSE(fs::exists(path("a.ew"))) << "refused before training";

  const CliRun same = run_cli(node_training("b.ew") + " --plot " + folder_.string() + "/./b.ew");
  EXPECT_NE(same.status, 0);
  EXPECT_NE(same.output.find("the same file as --out"), std::string::npos) << same.output;

  ASSERT_EQ(run_cli(node_training("c.ew") + " --plot " + path("curve.svg") + " --force").status, 0);
  EXPECT_TRUE(read("curve.svg").starts_with("<?xml"));
}

}  // namespace
