// The link commands of the edgewise tool, run as a user would: train --task link on a small graph of
// two communities, then predict pairs, recommend and embed with the saved model, and the errors that
// guard them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli.hpp"
#include "support/untrained_model.hpp"

namespace {

using edgewise::testing::CliRun;

class CliLinkTest : public edgewise::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_two_communities();
  }

  // Two 6-cliques with string ids joined by one edge; each community's nodes share a feature.
  void write_two_communities() const {
    std::ofstream edges(path("edges.txt")), features(path("features.txt"));
    for (const std::string community : {"a", "b"}) {
      for (int i = 0; i < 6; ++i) {
        const std::string node = community + std::to_string(i);
        for (int j = i + 1; j < 6; ++j) edges << node << ' ' << community << j << '\n';
        features << node << ' ' << (community == "a" ? 0 : 1) << '\n';
      }
    }
    edges << "a0 b0\n";
  }

  std::string train_arguments() const {
    return "train --task link --node-ids string --edges " + path("edges.txt") + " --features " + path("features.txt") +
           " --split-sizes 0.7,0.15,0.15 --epochs 20 --embedding-dim 8 --out " + path("links.ew");
  }
  std::string graph() const {
    return " --model " + path("links.ew") + " --edges " + path("edges.txt") + " --features " + path("features.txt");
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }
};

TEST_F(CliLinkTest, TrainsThenScoresPairsRecommendsAndEmbeds) {
  const CliRun train = run_cli(train_arguments() + " --save-split " + path("split"));
  ASSERT_EQ(train.status, 0) << train.output;
  EXPECT_NE(train.output.find("12 nodes, 31 links"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find("split 21 / 5 / 5 links"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find("test: 5 links against 5 non-links, ROC-AUC"), std::string::npos) << train.output;
  for (const char* file : {"train.txt", "val.txt", "test.txt", "val_negatives.txt", "test_negatives.txt"})
    EXPECT_TRUE(std::filesystem::exists(path("split") + "/" + file)) << file;

  // The saved split trains the same model again.
  const CliRun again = run_cli(train_arguments() + " --split " + path("split") + " --force");
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_EQ(again.output.substr(again.output.find("test:")), train.output.substr(train.output.find("test:")));

  write("pairs.txt", "a1 a2\nb3 a4\n");
  const CliRun predict = run_cli("predict" + graph() + " --pairs " + path("pairs.txt") + " --out " + path("s.tsv"));
  ASSERT_EQ(predict.status, 0) << predict.output;
  const std::string scores = read("s.tsv");
  EXPECT_EQ(scores.substr(0, scores.find('\n')), "node_a\tnode_b\tscore\tprobability");
  EXPECT_NE(scores.find("\na1\ta2\t"), std::string::npos) << scores;
  EXPECT_NE(scores.find("\nb3\ta4\t"), std::string::npos) << scores;

  // A CSV table of pairs, with a header and a quoted field, scores the same.
  write("pairs.csv", "node_a,node_b\n\"a1\",a2\r\nb3,a4\n");
  const CliRun csv = run_cli("predict" + graph() + " --pairs " + path("pairs.csv") + " --out " + path("c.tsv"));
  ASSERT_EQ(csv.status, 0) << csv.output;
  EXPECT_NE(csv.output.find("pairs.csv:1 ('node_a,node_b') read as a header"), std::string::npos) << csv.output;
  EXPECT_EQ(read("c.tsv"), scores);
  write("pairs.csv", "a1,a2\nb3,zz\n");
  const CliRun unknown = run_cli("predict" + graph() + " --pairs " + path("pairs.csv"));
  EXPECT_NE(unknown.status, 0);
  EXPECT_NE(unknown.output.find("pairs.csv:2: unknown node 'zz' ('b3,zz')"), std::string::npos) << unknown.output;
  // A first record naming one node is a pair with a typo, not a header.
  write("pairs.csv", "a1,zz\nb3,a4\n");
  const CliRun first = run_cli("predict" + graph() + " --pairs " + path("pairs.csv"));
  EXPECT_NE(first.status, 0);
  EXPECT_NE(first.output.find("pairs.csv:1: unknown node 'zz' ('a1,zz')"), std::string::npos) << first.output;

  const CliRun recommend = run_cli("recommend" + graph() + " --nodes a1,b2 --k 3");
  ASSERT_EQ(recommend.status, 0) << recommend.output;
  EXPECT_NE(recommend.output.find("node\trank\tsuggested\tscore\na1\t1\t"), std::string::npos) << recommend.output;
  EXPECT_NE(recommend.output.find("\nb2\t3\t"), std::string::npos) << recommend.output;

  ASSERT_EQ(run_cli("embed" + graph() + " --out " + path("z.tsv")).status, 0);
  const std::string embeddings = read("z.tsv");
  EXPECT_EQ(embeddings.substr(0, embeddings.find('\n')), "node\th0\th1\th2\th3\th4\th5\th6\th7");

  const CliRun info = run_cli("info " + path("links.ew"), 0);
  EXPECT_NE(info.output.find("link prediction model"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("test roc_auc"), std::string::npos) << info.output;
}

TEST_F(CliLinkTest, TrainsOnAGraphStoreInSampledMiniBatches) {
  const CliRun build = run_cli("graph build --node-ids string --edges " + path("edges.txt") + " --features " +
                               path("features.txt") + " --out " + path("g.ewg"));
  ASSERT_EQ(build.status, 0) << build.output;
  const std::string train_on_store = "train --task link --graph " + path("g.ewg") +
                                     " --split-sizes 0.6,0.2,0.2 --epochs 5 --embedding-dim 8 --batch-size 4 "
                                     "--fanout 3,3 --out " + path("store.ew");
  const CliRun train = run_cli(train_on_store + " -v");
  ASSERT_EQ(train.status, 0) << train.output;
  EXPECT_NE(train.output.find("12 nodes, 31 links"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find("split by a hash of each pair"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find("in batches of 4 with as many non-links, fan-out 3,3"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find("identity features off (a graph store"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find("test: "), std::string::npos) << train.output;
  EXPECT_EQ(train.output.find("structural features computed again"), std::string::npos) << train.output;
  // Without given features, the store's structural columns saw every link: training computes them
  // again from the training links.
  ASSERT_EQ(run_cli("graph build --node-ids string --edges " + path("edges.txt") + " --out " + path("s.ewg")).status, 0);
  const CliRun structural = run_cli("train --task link --graph " + path("s.ewg") + " --epochs 2 --embedding-dim 8 " +
                                    "--out " + path("s.ew") + " -v");
  ASSERT_EQ(structural.status, 0) << structural.output;
  EXPECT_NE(structural.output.find("structural features computed again from the training links alone"),
            std::string::npos)
      << structural.output;
  // The same seed splits and trains the same way.
  const CliRun again = run_cli(train_on_store + " --force");
  ASSERT_EQ(again.status, 0) << again.output;
  const auto test_line = [](const std::string& output) {
    const std::size_t start = output.find("test: ");
    return output.substr(start, output.find('\n', start) - start);
  };
  EXPECT_EQ(test_line(again.output), test_line(train.output));
  const CliRun info = run_cli("info " + path("store.ew"), 0);
  EXPECT_NE(info.output.find("random by a hash of each pair"), std::string::npos) << info.output;

  // Its pairs are scored, and its nodes embedded, on the store, exactly.
  const std::string store_model = " --model " + path("store.ew") + " --graph " + path("g.ewg");
  write("pairs.txt", "a1 a2\nb3 a4\n");
  const CliRun predict = run_cli("predict" + store_model + " --pairs " + path("pairs.txt") + " --out " + path("s.tsv"));
  ASSERT_EQ(predict.status, 0) << predict.output;
  EXPECT_NE(read("s.tsv").find("\na1\ta2\t"), std::string::npos) << read("s.tsv");
  ASSERT_EQ(run_cli("embed" + store_model + " --out " + path("z.tsv")).status, 0);
  const std::string embeddings = read("z.tsv");
  EXPECT_EQ(std::count(embeddings.begin(), embeddings.end(), '\n'), 13) << embeddings;
  const CliRun recommend = run_cli("recommend" + store_model + " --nodes a1 --k 2");
  ASSERT_EQ(recommend.status, 0) << recommend.output;
  EXPECT_NE(recommend.output.find("node\trank\tsuggested\tscore\na1\t1\tb"), std::string::npos) << recommend.output;

  const auto expect_error = [&](const std::string& arguments, const std::string& message) {
    const CliRun run = run_cli(arguments);
    EXPECT_NE(run.status, 0) << arguments;
    EXPECT_NE(run.output.find(message), std::string::npos) << arguments << "\n" << run.output;
  };
  expect_error(train_on_store + " --force --save-split " + path("split"), "there are no split files to write");
  expect_error(train_on_store + " --force --identity-features", "reads the stored features alone");
  expect_error(train_on_store + " --force --edges " + path("edges.txt"), "leave out --edges and --features");
  std::filesystem::create_directories(path("split"));
  for (const char* file : {"train.txt", "val.txt", "test.txt"}) write(std::string("split/") + file, "a1 a2\n");
  expect_error(train_on_store + " --force --split " + path("split"), "a graph store's links are split at random");
  expect_error("recommend" + store_model + " --nodes zz", "--nodes: 'zz' is not a node of " + path("g.ewg"));
}

TEST_F(CliLinkTest, NamesWhatItCannotUse) {
  const auto expect_error = [&](const std::string& arguments, const std::string& message) {
    const CliRun run = run_cli(arguments);
    EXPECT_NE(run.status, 0) << arguments;
    EXPECT_NE(run.output.find(message), std::string::npos) << arguments << "\n" << run.output;
  };
  expect_error(train_arguments() + " --labels " + path("edges.txt"), "--labels applies to --task node only");
  expect_error(train_arguments() + " --readout sum", "--readout applies to --task molecule only");
  expect_error(train_arguments() + " --fanout 5,5", "apply to link training on a graph store (--graph");
  expect_error(train_arguments() + " --directed", "link prediction reads a graph as undirected");
  expect_error(train_arguments() + " --checkpoint-every 5", "link training keeps none");
  expect_error("train --task node --edges " + path("edges.txt") + " --embedding-dim 8 --out " + path("n.ew"),
               "--embedding-dim applies to --task link only");
  ASSERT_EQ(run_cli(train_arguments()).status, 0);
  write("pairs.txt", "a1 a2\na1 zz\n");
  expect_error("predict" + graph() + " --pairs " + path("pairs.txt"),
               path("pairs.txt") + ":2: unknown node 'zz' ('a1 zz')");
  write("pairs.txt", "a1 a1\n");
  expect_error("predict" + graph() + " --pairs " + path("pairs.txt"), ":1: a node paired with itself");
  expect_error("predict" + graph(), "--pairs is required for a link prediction model");
  expect_error("predict" + graph() + " --smiles CCO", "--smiles applies to other models");
  expect_error("recommend" + graph() + " --nodes zz", "--nodes: 'zz' is not a node of");
  expect_error("eval" + graph(), "is a link prediction model");
  edgewise::testing::save_untrained_molecule_model(path("molecule.ew"));
  expect_error("predict --model " + path("molecule.ew") + " --smiles CCO --pairs " + path("pairs.txt"),
               "--pairs applies to link prediction models");
  expect_error("recommend --model " + path("molecule.ew") + " --edges " + path("edges.txt") + " --nodes a1",
               "not a link prediction model");
  expect_error(train_arguments() + " --force --split " + path("nowhere"), "is neither random nor a folder");
}

}  // namespace
