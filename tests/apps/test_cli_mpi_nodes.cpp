// `edgewise train --task node` under mpirun: the graph is cut into one part a process; in full-batch
// training the processes exchange the halo rows of every hidden layer, in sampled training each runs
// the seeds its part owns. Both train the one-process model up to the order of float sums (sampled:
// when every neighbour is drawn), also with parts that hold no training node and nodes without
// in-edges, and from part stores that each process maps alone. Skipped in a build without MPI.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli.hpp"

namespace edgewise {
namespace {

class CliMpiNodeTest : public testing::CliTest {
 protected:
  void SetUp() override {
    if (std::string(EDGEWISE_MPIEXEC).empty()) GTEST_SKIP() << "built without MPI (EDGEWISE_MPI)";
    CliTest::SetUp();
    write_graph();
  }

  // 160 nodes in four rings of 40 with chords, each ring's nodes sharing a noisy feature pattern, and
  // a few edges between rings. Only the first two rings are labelled (by ring), so a part cut from the
  // others holds no training node. Nodes 150-159 only send edges: under --directed --no-self-loops
  // they have no in-edges.
  void write_graph() const {
    std::ofstream edges(path("edges.txt")), labels(path("labels.txt")), features(path("features.txt"));
    for (int node = 0; node < 160; ++node) {
      const int ring = node / 40, first = ring * 40, at = node - first;
      if (node < 150) edges << first + (at + 1) % 40 << ' ' << node << '\n' << first + (at + 7) % 40 << ' ' << node << '\n';
      if (node >= 150) edges << node << ' ' << first + (at * 3) % 40 << '\n';
      if (node % 13 == 0) edges << (node + 40) % 160 << ' ' << node << '\n';
      if (ring < 2) labels << node << ' ' << (ring == 0 ? "left" : "right") << '\n';
      features << node;
      for (int column = 0; column < 6; ++column)
        features << ' ' << ((column == ring || column == ring + 2) ? 1.0 : 0.0) + 0.1 * ((node * 7 + column * 3) % 5);
      features << '\n';
    }
  }

  std::string train(const std::string& extra, const std::string& model) const {
    return "train --task node --edges " + path("edges.txt") + " --labels " + path("labels.txt") + " --features " +
           path("features.txt") + " --feature-format dense --split stratified:0.5,0.25,0.25 --epochs 30 --patience 100 "
           "--seed 3 --hidden 8 --heads 2 --lr 0.05 --dropout 0.2 --attention-dropout 0.2 --out " + path(model) + extra;
  }

  // Each node's class probabilities from `model`, predicted by one process.
  std::vector<double> probabilities(const std::string& model, const std::string& extra) const {
    const testing::CliRun run = run_cli("predict --model " + path(model) + " --edges " + path("edges.txt") +
                                        " --features " + path("features.txt") + extra + " --out " + path(model + ".tsv"));
    EXPECT_EQ(run.status, 0) << run.output;
    std::vector<double> values;
    std::istringstream lines(read(model + ".tsv"));
    std::string line;
    std::getline(lines, line);  // the header
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string field;
      std::getline(fields, field, '\t');  // the node
      std::getline(fields, field, '\t');  // the predicted class
      while (std::getline(fields, field, '\t')) values.push_back(std::stod(field));
    }
    return values;
  }

  // Trains with 1 process and with each of `processes`, and compares every node's probabilities.
  // extra: input options, which prediction takes too; training: the training's own.
  void expect_one_process_model(const std::string& extra, std::initializer_list<int> processes,
                                const std::string& training = "") {
    const testing::CliRun one = run_cli(train(extra + training, "one.ew"));
    ASSERT_EQ(one.status, 0) << one.output;
    const std::vector<double> expected = probabilities("one.ew", extra);
    ASSERT_EQ(expected.size(), 320U);
    bool part_without_training_nodes = false;
    for (const int count : processes) {
      const std::string model = std::to_string(count) + "_processes.ew";
      const testing::CliRun run = testing::run_cli_processes(count, train(extra + training, model), path("run.txt"));
      ASSERT_EQ(run.status, 0) << run.output;
      ASSERT_NE(run.output.find("graph cut into " + std::to_string(count) + " parts by METIS"), std::string::npos)
          << run.output;
      const std::size_t counts = run.output.find("training nodes ");
      part_without_training_nodes |= (run.output.substr(counts, run.output.find('\n', counts) - counts) + " ")
                                         .find(" 0 ") != std::string::npos;
      const std::vector<double> got = probabilities(model, extra);
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], expected[i], 1e-4) << count << " processes, value " << i << "\n" << run.output;
    }
    EXPECT_TRUE(part_without_training_nodes) << "no part without training nodes was tested";
  }
};

TEST_F(CliMpiNodeTest, PartsTrainTheOneProcessModel) { expect_one_process_model("", {2, 3}); }

TEST_F(CliMpiNodeTest, NodesWithoutInEdgesAndFourParts) {
  expect_one_process_model(" --directed --no-self-loops", {4});
}

// Sampled batches whose seeds are divided by part: with every neighbour drawn at every hop, the
// processes' slices hold exactly the one-process batches' computation.
TEST_F(CliMpiNodeTest, SampledBatchesOfEveryNeighbourTrainTheOneProcessModel) {
  expect_one_process_model("", {2, 3}, " --batch-size 16 --fanout -1,-1");
}

TEST_F(CliMpiNodeTest, SampledBatchesOfFewNeighboursLearnTheClasses) {
  const testing::CliRun run = testing::run_cli_processes(2, train(" --batch-size 16", "sampled.ew"), path("run.txt"));
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("graph cut into 2 parts by METIS"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("test: 20 nodes, accuracy 1.0000"), std::string::npos) << run.output;
}

// From a whole store, each process views the whole graph and reads its part's features; from part
// stores (graph partition --stores), each maps its own part alone.
TEST_F(CliMpiNodeTest, PartsOfAGraphStoreAndPartStoresTrainTheOneProcessModel) {
  const testing::CliRun built = run_cli("graph build --edges " + path("edges.txt") + " --labels " + path("labels.txt") +
                                        " --features " + path("features.txt") + " --feature-format dense --out " +
                                        path("g.ewg"));
  ASSERT_EQ(built.status, 0) << built.output;
  const std::string files = " --edges " + path("edges.txt") + " --labels " + path("labels.txt") + " --features " +
                            path("features.txt") + " --feature-format dense";
  std::string arguments = train("", "store_one.ew");
  arguments.replace(arguments.find(files), files.size(), " --graph " + path("g.ewg"));
  const testing::CliRun one_process = run_cli(arguments);
  ASSERT_EQ(one_process.status, 0) << read("output.txt");
  const std::vector<double> expected = probabilities("store_one.ew", "");
  // The test line up to its loss, whose last digits may differ with the order of float sums.
  const auto test_scores = [](const std::string& output) {
    const std::size_t begin = output.find("test: ");
    return begin == std::string::npos ? std::string() : output.substr(begin, output.find(", loss", begin) - begin);
  };
  const auto expect_model = [&](const std::string& model) {
    const std::vector<double> got = probabilities(model, "");
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], expected[i], 1e-4) << model << ", value " << i;
  };
  arguments.replace(arguments.find("store_one.ew"), 12, "store_two.ew");
  const testing::CliRun two = testing::run_cli_processes(2, arguments + " --verbose", path("two.txt"));
  ASSERT_EQ(two.status, 0) << two.output;
  EXPECT_NE(two.output.find("peak memory of each process (MB): "), std::string::npos) << two.output;
  expect_model("store_two.ew");

  const testing::CliRun cut = run_cli("graph partition " + path("g.ewg") + " --parts 3 --stores " + path("parts"));
  ASSERT_EQ(cut.status, 0) << cut.output;
  EXPECT_NE(read("parts/parts.tsv").find("node\tpart\n"), std::string::npos);
  arguments.replace(arguments.find(path("g.ewg")), path("g.ewg").size(), path("parts"));
  arguments.replace(arguments.find("store_two.ew"), 12, "parts_three.ew");
  const testing::CliRun three = testing::run_cli_processes(3, arguments, path("three.txt"));
  ASSERT_EQ(three.status, 0) << three.output;
  EXPECT_NE(three.output.find("part stores in " + path("parts") + ", this process's part 0 of 3"), std::string::npos)
      << three.output;
  EXPECT_NE(three.output.find("test: 20 nodes"), std::string::npos) << three.output;
  ASSERT_NE(test_scores(one_process.output), "") << one_process.output;
  EXPECT_EQ(test_scores(three.output), test_scores(one_process.output)) << "each part scores its own test nodes";
  expect_model("parts_three.ew");

  // Part stores need one process a part, and full batches.
  arguments += " --force";
  const testing::CliRun one = run_cli(arguments);
  EXPECT_NE(one.status, 0);
  EXPECT_NE(one.output.find("graph cut into 3 parts; run 3 processes (mpirun -np 3), this run has 1"), std::string::npos)
      << one.output;
  const testing::CliRun sampled = testing::run_cli_processes(3, arguments + " --batch-size 16", path("sampled.txt"));
  EXPECT_NE(sampled.status, 0);
  EXPECT_NE(sampled.output.find("reach nodes beyond a part's halo"), std::string::npos) << sampled.output;
}

TEST_F(CliMpiNodeTest, TwoRunsOfTwoProcessesWriteTheSameModel) {
  ASSERT_EQ(testing::run_cli_processes(2, train("", "a.ew"), path("a.txt")).status, 0) << read("a.txt");
  ASSERT_EQ(testing::run_cli_processes(2, train("", "b.ew"), path("b.txt")).status, 0) << read("b.txt");
  EXPECT_EQ(read("a.ew"), read("b.ew"));
}

}  // namespace
}  // namespace edgewise
