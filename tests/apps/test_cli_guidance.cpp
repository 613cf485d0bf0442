// What the tool tells a user whose command line or file it cannot take as given: the options that
// would read the file (--comment "#", --no-header, --skip-invalid), the option a mistyped one was
// likely meant as, a target without labels, and --threads on every command that computes.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/cli.hpp"

namespace {

using edgewise::testing::CliRun;

constexpr const char* kTinyTraining =
    " --layers 1 --head-hidden 8 --epochs 2 --ensemble 1 --no-descriptors --batch-size 4 "
    "--split-sizes 0.5,0.25,0.25 --quiet --force";

class CliGuidanceTest : public edgewise::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_small_molecules("molecules.csv");
    write_tpsa_table("tpsa.csv");
  }

  // A table laid out as RDKit's first_5k.tpsa.csv: a '#' comment line, then SMILES,TPSA rows and no header.
  void write_tpsa_table(const std::string& name) const {
    std::ofstream csv(path(name));
    csv << "# TPSA data calculated using Daylight tools\n";
    const char* smiles[] = {"CC1=CC(=O)C=CC1=O", "CCO", "CCCO", "CCCCO", "c1ccccc1", "Cc1ccccc1", "CCN", "CCCN",
                            "CC(C)O", "CCOC", "CCCl", "c1ccncc1", "OCCO", "CC(=O)O", "CCCCCC", "NCCO"};
    double tpsa = 34.14;
    for (const char* s : smiles) csv << s << ',' << (tpsa += 1.5) << '\n';
  }

  void write(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }

  CliRun train(const std::string& data_options, const std::string& out = "model.ew") const {
    return run_cli("train --task graph " + data_options + kTinyTraining + " --out " + path(out));
  }

  static bool has(const CliRun& run, const std::string& fragment) {
    return run.output.find(fragment) != std::string::npos;
  }
};

TEST_F(CliGuidanceTest, AHeaderCellThatIsANumberWarnsOfNoHeader) {
  const std::string warning = "the header's column 2 is '35.64', a number: if the file has no header, pass --no-header";
  const CliRun commented = train("--data " + path("tpsa.csv") + " --comment \"#\"");
  ASSERT_EQ(commented.status, 0) << commented.output;
  EXPECT_TRUE(has(commented, "warning: " + path("tpsa.csv") + ": " + warning)) << commented.output;

  const CliRun predicted = run_cli("predict --model " + path("model.ew") + " --data " + path("tpsa.csv") +
                                   " --comment \"#\" --out " + path("predictions.csv"));
  ASSERT_EQ(predicted.status, 0) << predicted.output;
  EXPECT_TRUE(has(predicted, warning)) << predicted.output;

  const CliRun headerless = train("--data " + path("tpsa.csv") + " --comment \"#\" --no-header --targets 1");
  ASSERT_EQ(headerless.status, 0) << headerless.output;
  EXPECT_FALSE(has(headerless, "warning")) << headerless.output;
  const CliRun named = train("--data " + path("molecules.csv"));
  ASSERT_EQ(named.status, 0) << named.output;
  EXPECT_FALSE(has(named, "warning")) << named.output;
}

TEST_F(CliGuidanceTest, AFailedFirstRowSuggestsTheOptionsThatReadTheFile) {
  const CliRun uncommented = train("--data " + path("tpsa.csv"));
  EXPECT_EQ(uncommented.status, 1) << uncommented.output;
  EXPECT_TRUE(has(uncommented, path("tpsa.csv") + ":2: expected 1 fields, found 2")) << uncommented.output;
  EXPECT_TRUE(has(uncommented, "pass --comment \"#\" and --no-header (line 2 holds data")) << uncommented.output;

  ASSERT_EQ(train("--data " + path("molecules.csv")).status, 0);
  const CliRun predicted = run_cli("predict --model " + path("model.ew") + " --data " + path("tpsa.csv"));
  EXPECT_EQ(predicted.status, 1) << predicted.output;
  EXPECT_TRUE(has(predicted, "pass --comment \"#\"")) << predicted.output;

  const CliRun comment_only = train("--data " + path("tpsa.csv") + " --no-header --targets 1");
  EXPECT_EQ(comment_only.status, 1) << comment_only.output;
  EXPECT_TRUE(has(comment_only, "if they are comments, pass --comment \"#\"")) << comment_only.output;
  EXPECT_FALSE(has(comment_only, "and --no-header")) << comment_only.output;

  const CliRun header_as_row = train("--data " + path("molecules.csv") + " --no-header --targets 1");
  EXPECT_EQ(header_as_row.status, 1) << header_as_row.output;
  EXPECT_TRUE(has(header_as_row, path("molecules.csv") + ":1: invalid SMILES")) << header_as_row.output;
  EXPECT_TRUE(has(header_as_row, "If line 1 is a header, leave out --no-header")) << header_as_row.output;
}

TEST_F(CliGuidanceTest, AnUnreadableMoleculeNamesSkipInvalid) {
  write("invalid.csv", "smiles,logS\nCCO,1\nCCN,2\nC1CC,3\nCCC,4\nCCCC,5\nCCCCC,6\nCCCCCC,7\nOCCO,8\nCCCl,9\n");
  const CliRun stopped = train("--data " + path("invalid.csv"));
  EXPECT_EQ(stopped.status, 1) << stopped.output;
  EXPECT_TRUE(has(stopped, path("invalid.csv") + ":4: invalid SMILES")) << stopped.output;
  EXPECT_TRUE(has(stopped, "pass --skip-invalid")) << stopped.output;
  EXPECT_EQ(train("--data " + path("invalid.csv") + " --skip-invalid --skipped-list " + path("skipped.csv")).status, 0);

  write("bad_target.csv", "smiles,logS\nCCO,1\nCCN,n/a\n");
  const CliRun bad_target = train("--data " + path("bad_target.csv"));
  EXPECT_EQ(bad_target.status, 1) << bad_target.output;
  EXPECT_FALSE(has(bad_target, "--skip-invalid")) << bad_target.output;
}

TEST_F(CliGuidanceTest, ATargetWithoutLabelsStopsTrainingNamingFileAndColumn) {
  std::string text = "smiles,logS,pKa\n";
  for (const char* smiles : {"CCO", "CCN", "CCC", "CCCO", "CCCN", "OCCO", "CCCl", "CCCC"})
    text += std::string(smiles) + ",1.5,\n";
  write("unlabelled.csv", text);
  const CliRun run = train("--data " + path("unlabelled.csv"));
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_TRUE(has(run, path("unlabelled.csv") + ": target 'pKa' has no labels")) << run.output;
  EXPECT_EQ(train("--data " + path("unlabelled.csv") + " --targets logS").status, 0);
}

TEST_F(CliGuidanceTest, JsonNodeFeaturesAreReadAsMusaeJsonWithoutFeatureFormat) {
  std::ofstream edges(path("edges.txt")), labels(path("labels.txt")), features(path("features.json"));
  features << '{';
  for (int node = 0; node < 8; ++node) {
    for (int other = node + 1; other < 8; ++other)
      if (node / 4 == other / 4) edges << node << ' ' << other << '\n';
    labels << node << ' ' << node / 4 << '\n';
    features << (node > 0 ? ", " : "") << '"' << node << "\": [" << node / 4 << ", " << 2 + node % 4 << ']';
  }
  edges << "0 4\n";
  features << "}\n";
  edges.close();
  labels.close();
  features.close();
  const CliRun run = run_cli("train --task node --edges " + path("edges.txt") + " --labels " + path("labels.txt") +
                             " --features " + path("features.json") +
                             " --split stratified:0.5,0.25,0.25 --epochs 3 --out " + path("nodes.ew"));
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(has(run, "(musae_json")) << run.output;
  EXPECT_TRUE(has(run_cli("train --help", 0), "(default for a .json --features file)"));
}

TEST_F(CliGuidanceTest, AMistypedOptionGetsTheNearestOne) {
  const CliRun epoch = run_cli("train --epoch 5");
  EXPECT_NE(epoch.status, 0);
  EXPECT_TRUE(has(epoch, "--epoch: did you mean --epochs?")) << epoch.output;
  const CliRun edges = run_cli("graph build --edgs e.txt --out g.ewg");
  EXPECT_NE(edges.status, 0);
  EXPECT_TRUE(has(edges, "--edgs: did you mean --edges?")) << edges.output;
  const CliRun far = run_cli("train --task graph --data " + path("molecules.csv") + " --out m.ew --colour blue");
  EXPECT_NE(far.status, 0);
  EXPECT_TRUE(has(far, "--colour")) << far.output;
  EXPECT_FALSE(has(far, "did you mean")) << far.output;
}

TEST_F(CliGuidanceTest, EveryCommandThatComputesTakesThreads) {
  for (const char* command : {"train", "tune", "predict", "eval", "embed", "explain", "graph build", "graph generate",
                              "graph info", "graph partition"}) {
    const CliRun help = run_cli(std::string(command) + " --help", 0);
    EXPECT_EQ(help.status, 0) << command << ": " << help.output;
    EXPECT_TRUE(has(help, "--threads")) << command << ": " << help.output;
  }
}

TEST_F(CliGuidanceTest, EveryCommandThatRunsAModelTakesPrecision) {
  for (const char* command : {"train", "tune", "predict", "eval", "embed", "explain", "recommend"}) {
    const CliRun help = run_cli(std::string(command) + " --help", 0);
    EXPECT_EQ(help.status, 0) << command << ": " << help.output;
    EXPECT_TRUE(has(help, "--precision")) << command << ": " << help.output;
  }
}

}  // namespace
