// The node commands of the edgewise tool, run as a user would: train on a small graph of two
// communities, then predict, embed and eval with the saved model, and the errors that guard them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>
#include <string>

#include "edgewise/tasks/node/node_model.hpp"
#include "support/cli.hpp"

namespace {

namespace fs = std::filesystem;

using edgewise::testing::CliRun;

class CliNodeTest : public edgewise::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_two_communities();
  }

  // Two 4-cliques with string ids joined by one edge; each community's nodes share a feature.
  void write_two_communities() const {
    std::ofstream edges(path("edges.txt")), labels(path("labels.txt")), features(path("features.txt"));
    for (const std::string community : {"a", "b"}) {
      for (int i = 0; i < 4; ++i) {
        const std::string node = community + std::to_string(i);
        for (int j = i + 1; j < 4; ++j) edges << node << ' ' << community << j << '\n';
        labels << node << ' ' << (community == "a" ? "red" : "blue") << '\n';
        features << node << ' ' << (community == "a" ? 0 : 1) << ' ' << 2 + i << '\n';
      }
    }
    edges << "a0 b0\n";
  }

  std::string train_arguments(const std::string& split = "stratified:0.5,0.25,0.25") const {
    return "train --task node --node-ids string --edges " + path("edges.txt") + " --labels " + path("labels.txt") +
           " --features " + path("features.txt") + " --split " + split + " --epochs 30 --out " + path("model.ew");
  }
};

TEST_F(CliNodeTest, TrainsThenPredictsEmbedsAndEvaluates) {
  const CliRun train = run_cli(train_arguments());
  ASSERT_EQ(train.status, 0) << train.output;
  EXPECT_NE(train.output.find("epoch   30"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find("macro-F1"), std::string::npos) << train.output;

  const std::string graph = " --model " + path("model.ew") + " --edges " + path("edges.txt") + " --features " +
                            path("features.txt");
  ASSERT_EQ(run_cli("predict" + graph + " --out " + path("predictions.tsv")).status, 0);
  const std::string predictions = read("predictions.tsv");
  EXPECT_EQ(predictions.substr(0, predictions.find('\n')), "node\tpredicted\tred\tblue");
  EXPECT_EQ(predictions.substr(predictions.find('\n') + 1, 3), "a0\t");  // the training order

  ASSERT_EQ(run_cli("embed" + graph + " --out " + path("embeddings.tsv")).status, 0);
  EXPECT_EQ(read("embeddings.tsv").substr(0, 8), "node\th0\t");

  const CliRun eval = run_cli("eval" + graph + " --labels " + path("labels.txt"));
  ASSERT_EQ(eval.status, 0) << eval.output;
  EXPECT_NE(eval.output.find("labeled: 8 nodes"), std::string::npos) << eval.output;
}

// Training calibrates the probabilities on the validation nodes: predict --coverage adds each node's
// prediction set, and eval scores the probabilities and the sets.
TEST_F(CliNodeTest, PredictionSetsAndProbabilityScores) {
  const CliRun train = run_cli(train_arguments("stratified:0.25,0.5,0.25") + " -v");
  ASSERT_EQ(train.status, 0) << train.output;
  EXPECT_NE(train.output.find("probabilities calibrated on 4 validation nodes: temperature"), std::string::npos)
      << train.output;
  EXPECT_NE(train.output.find("probabilities: NLL"), std::string::npos) << train.output;
  const std::string graph = " --model " + path("model.ew") + " --edges " + path("edges.txt") + " --features " +
                            path("features.txt");
  const CliRun info = run_cli("info " + path("model.ew"), 0);
  EXPECT_NE(info.output.find("calibration"), std::string::npos) << info.output;

  // Four calibration nodes give sets of coverage up to 0.8.
  ASSERT_EQ(run_cli("predict" + graph + " --coverage 0.8 --out " + path("sets.tsv")).status, 0);
  std::istringstream lines(read("sets.tsv"));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "node\tpredicted\tset\tred\tblue");
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string node, predicted, set;
    fields >> node >> predicted >> set;
    EXPECT_TRUE(set == predicted || set == "red|blue") << line;
  }
  const CliRun too_sure = run_cli("predict" + graph + " --coverage 0.9");
  EXPECT_NE(too_sure.status, 0);
  EXPECT_NE(too_sure.output.find("needs at least 9 calibration rows"), std::string::npos) << too_sure.output;

  const CliRun eval = run_cli("eval" + graph + " --labels " + path("labels.txt") + " --coverage 0.75");
  ASSERT_EQ(eval.status, 0) << eval.output;
  EXPECT_NE(eval.output.find("expected calibration error"), std::string::npos) << eval.output;
  EXPECT_NE(eval.output.find("prediction sets meant to hold 75 % of labels: coverage"), std::string::npos)
      << eval.output;
}

// A labels CSV in MUSAE's Facebook layout (id,facebook_id,page_name,page_type): the second column is
// an id of another site, a class per node, which must be refused naming the column read.
TEST_F(CliNodeTest, LabelColumnsAreChosenByNameAndAnIdColumnIsRefusedAsLabels) {
  {
    std::ofstream labels(path("pages.csv"));
    labels << "id,facebook_id,page_name,page_type\n";
    for (const std::string community : {"a", "b"})
      for (int i = 0; i < 4; ++i)
        labels << community << i << ',' << 1000 + i + (community == "a" ? 0 : 10) << ",page " << community << i << ','
               << (community == "a" ? "tvshow" : "government") << '\n';
  }
  std::string arguments = train_arguments();
  arguments.replace(arguments.find(path("labels.txt")), path("labels.txt").size(), path("pages.csv"));
  const CliRun refused = run_cli(arguments);
  EXPECT_EQ(refused.status, 1) << refused.output;
  // The header is found (string ids: nothing else names 'id'), and said to be.
  EXPECT_NE(refused.output.find("'id,facebook_id,page_name,page_type' read as a header"), std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("the 8 labelled nodes fall into 8 classes in column 1 (0-based), fewer than two nodes a class"),
            std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("--label-column"), std::string::npos) << refused.output;

  const CliRun trained = run_cli(arguments + " --label-column page_type --id-column id --force");
  ASSERT_EQ(trained.status, 0) << trained.output;
  EXPECT_NE(trained.output.find("8 labeled in 2 classes"), std::string::npos) << trained.output;
  const CliRun by_index = run_cli(arguments + " --label-column 3 --force");
  EXPECT_EQ(by_index.status, 0) << by_index.output;
  const CliRun eval = run_cli("eval --model " + path("model.ew") + " --edges " + path("edges.txt") + " --features " +
                              path("features.txt") + " --labels " + path("pages.csv") + " --label-column page_type");
  ASSERT_EQ(eval.status, 0) << eval.output;
  EXPECT_NE(eval.output.find("labeled: 8 nodes"), std::string::npos) << eval.output;
}

TEST_F(CliNodeTest, ClassesWithoutATrainingNodeAreNamed) {
  {
    std::ofstream labels(path("rare.txt"));
    for (const std::string community : {"a", "b"})
      for (int i = 0; i < 4; ++i) labels << community << i << ' ' << (community == "b" && i == 3 ? "green" : community) << '\n';
  }
  std::string arguments = train_arguments();
  arguments.replace(arguments.find(path("labels.txt")), path("labels.txt").size(), path("rare.txt"));
  const CliRun run = run_cli(arguments);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("warning: 1 of 3 classes in column 1 (0-based) of " + path("rare.txt") +
                            " have no training node, so the model cannot predict them (the smallest, 'green', has 1 node)"),
            std::string::npos)
      << run.output;
}

TEST_F(CliNodeTest, MlpBaselineKeepsStructuralFeaturesOfTheEdges) {
  const std::string structural = "train --task node --node-ids string --edges " + path("edges.txt") + " --labels " +
                                 path("labels.txt") + " --split stratified:0.5,0.25,0.25 --epochs 5 --mlp";
  const CliRun train = run_cli(structural + " --out " + path("mlp.ew"));
  ASSERT_EQ(train.status, 0) << train.output;
  EXPECT_NE(train.output.find("(structural)"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find("attention over self-loops only (--mlp)"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find("the edges only shape the structural features"), std::string::npos) << train.output;
  ASSERT_EQ(run_cli("predict --model " + path("mlp.ew") + " --edges " + path("edges.txt") + " --out " +
                    path("p.tsv")).status, 0);
  const std::string predictions = read("p.tsv");
  EXPECT_EQ(predictions.substr(0, predictions.find('\n')), "node\tpredicted\tred\tblue");

  const CliRun refused = run_cli(structural + " --no-self-loops --out " + path("none.ew"));
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.output.find("--mlp"), std::string::npos) << refused.output;
}

TEST_F(CliNodeTest, DefaultsFollowTheDataAndAreRecordedInTheModel) {
  const std::string structural = "train --task node --node-ids string --edges " + path("edges.txt") + " --labels " +
                                 path("labels.txt") + " --split stratified:0.5,0.25,0.25 --epochs 2";
  const CliRun defaults = run_cli(structural + " --out " + path("defaults.ew"));
  ASSERT_EQ(defaults.status, 0) << defaults.output;
  const std::string rule = "dropout 0.1, attention dropout 0.1, weight decay 0.0005 for structural features";
  EXPECT_NE(defaults.output.find("defaults: " + rule), std::string::npos) << defaults.output;
  EXPECT_EQ(edgewise::NodeModel::load(path("defaults.ew")).config().network.dropout, 0.1);
  const CliRun info = run_cli("info " + path("defaults.ew"), 0);
  EXPECT_NE(info.output.find("defaults             " + rule + "\n"), std::string::npos) << info.output;

  // Only what was not given is the rule's.
  const CliRun given = run_cli(structural + " --dropout 0.5 --weight-decay 0 --out " + path("given.ew"));
  ASSERT_EQ(given.status, 0) << given.output;
  EXPECT_NE(given.output.find("defaults: attention dropout 0.1 for structural features"), std::string::npos)
      << given.output;
  const edgewise::NodeClassifierOptions network = edgewise::NodeModel::load(path("given.ew")).config().network;
  EXPECT_EQ(network.dropout, 0.5);
  EXPECT_EQ(network.attention_dropout, 0.1);
  const CliRun all_given = run_cli(structural + " --dropout 0.5 --attention-dropout 0.2 --weight-decay 0 --out " +
                                   path("all_given.ew"));
  ASSERT_EQ(all_given.status, 0) << all_given.output;
  EXPECT_EQ(all_given.output.find("defaults"), std::string::npos) << all_given.output;
  EXPECT_EQ(run_cli("info " + path("all_given.ew"), 0).output.find("defaults"), std::string::npos);

  // Features read from a file, with two training labels a class: the GAT recipe.
  const CliRun featured = run_cli(train_arguments());
  ASSERT_EQ(featured.status, 0) << featured.output;
  EXPECT_NE(featured.output.find("defaults: dropout 0.6, attention dropout 0.6, weight decay 0.0005 for 2 training "
                                 "labels a class (at most 25)"),
            std::string::npos)
      << featured.output;
  EXPECT_EQ(edgewise::NodeModel::load(path("model.ew")).config().network.dropout, 0.6);
}

TEST_F(CliNodeTest, MlpModelPredictsTheSameWhateverTheEdges) {
  const CliRun train = run_cli(train_arguments() + " --mlp");
  ASSERT_EQ(train.status, 0) << train.output;
  EXPECT_NE(train.output.find("the edge list only names the nodes"), std::string::npos) << train.output;

  // The same nodes joined across the communities instead of within them.
  std::ofstream crossed(path("crossed.txt"));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) crossed << 'a' << i << " b" << j << '\n';
  crossed.close();
  const std::string model = " --model " + path("model.ew") + " --features " + path("features.txt");
  ASSERT_EQ(run_cli("predict" + model + " --edges " + path("edges.txt") + " --out " + path("p1.tsv")).status, 0);
  ASSERT_EQ(run_cli("predict" + model + " --edges " + path("crossed.txt") + " --out " + path("p2.tsv")).status, 0);
  EXPECT_EQ(read("p1.tsv"), read("p2.tsv"));
  ASSERT_EQ(run_cli("embed" + model + " --edges " + path("edges.txt") + " --out " + path("e1.tsv")).status, 0);
  ASSERT_EQ(run_cli("embed" + model + " --edges " + path("crossed.txt") + " --out " + path("e2.tsv")).status, 0);
  EXPECT_EQ(read("e1.tsv"), read("e2.tsv"));

  // Without --mlp the crossed edges change the predictions.
  ASSERT_EQ(run_cli(train_arguments() + " --force").status, 0);
  ASSERT_EQ(run_cli("predict" + model + " --edges " + path("edges.txt") + " --out " + path("g1.tsv")).status, 0);
  ASSERT_EQ(run_cli("predict" + model + " --edges " + path("crossed.txt") + " --out " + path("g2.tsv")).status, 0);
  EXPECT_NE(read("g1.tsv"), read("g2.tsv"));
}

TEST_F(CliNodeTest, PredictAndEvalTakeTrainsInputOptionsThatAgreeWithTheModel) {
  ASSERT_EQ(run_cli(train_arguments()).status, 0);
  const std::string graph =
      " --model " + path("model.ew") + " --edges " + path("edges.txt") + " --features " + path("features.txt");
  const std::string predict = "predict" + graph + " --out " + path("predictions.tsv") + " --force";
  const CliRun same = run_cli(predict + " --node-ids string --feature-format sparse --row-normalize on");
  EXPECT_EQ(same.status, 0) << same.output;

  const CliRun format = run_cli(predict + " --feature-format dense");
  EXPECT_EQ(format.status, 1);
  EXPECT_NE(format.output.find("--feature-format dense: the model was trained with --feature-format sparse"),
            std::string::npos)
      << format.output;
  const CliRun directed = run_cli("eval" + graph + " --labels " + path("labels.txt") + " --directed");
  EXPECT_EQ(directed.status, 1);
  EXPECT_NE(directed.output.find("--directed: the model was trained on an undirected graph"), std::string::npos)
      << directed.output;
}

TEST_F(CliNodeTest, RefusesOptionsOfTheOtherTaskAndExistingOutputs) {
  const CliRun molecule_option = run_cli(train_arguments() + " --readout mean");
  EXPECT_NE(molecule_option.status, 0);
  EXPECT_NE(molecule_option.output.find("--readout applies to --task molecule only"), std::string::npos)
      << molecule_option.output;

  ASSERT_EQ(run_cli(train_arguments()).status, 0);
  const CliRun again = run_cli(train_arguments());
  EXPECT_NE(again.status, 0);
  EXPECT_NE(again.output.find("pass --force"), std::string::npos) << again.output;

  const CliRun smiles = run_cli("predict --model " + path("model.ew") + " --smiles CCO");
  EXPECT_NE(smiles.status, 0);
  EXPECT_NE(smiles.output.find("--smiles applies to other models"), std::string::npos) << smiles.output;
}

// The MUSAE Facebook files as downloaded (tests/data/musae_facebook): page names quoted because they
// hold commas and doubled quotes; the class is in page_type.
TEST_F(CliNodeTest, MusaeFacebookFilesAsDownloaded) {
  const std::string musae = std::string(EDGEWISE_SOURCE_DIR) + "/tests/data/musae_facebook/";
  const std::string graph = " --edges " + musae + "musae_facebook_edges.csv --features " + musae +
                            "musae_facebook_features.json";
  const CliRun train = run_cli("train --task node" + graph + " --labels " + musae +
                               "musae_facebook_target.csv --label-column page_type --split stratified:0.6,0.2,0.2 "
                               "--epochs 20 --out " + path("facebook.ew"));
  ASSERT_EQ(train.status, 0) << train.output;
  EXPECT_NE(train.output.find("20 labeled in 4 classes"), std::string::npos) << train.output;
  EXPECT_EQ(train.output.find("warning"), std::string::npos) << train.output;

  const CliRun eval = run_cli("eval --model " + path("facebook.ew") + graph + " --labels " + musae +
                              "musae_facebook_target.csv --label-column page_type");
  ASSERT_EQ(eval.status, 0) << eval.output;
  EXPECT_NE(eval.output.find("labeled: 20 nodes"), std::string::npos) << eval.output;

  // A label the model does not know is named with its line.
  write("new_type.csv", "id,facebook_id,page_name,page_type\n0,1,\"A, B\",tvshow\n1,2,\"C, D\",artist\n");
  const CliRun unknown = run_cli("eval --model " + path("facebook.ew") + graph + " --labels " + path("new_type.csv") +
                                 " --label-column page_type");
  EXPECT_EQ(unknown.status, 1) << unknown.output;
  EXPECT_NE(unknown.output.find("new_type.csv:3: label 'artist' is not one of the model's 4 classes"),
            std::string::npos)
      << unknown.output;
}

// Integer ids anywhere in [0, 2^64 - 1]: social networks' user ids need all 64 bits.
TEST_F(CliNodeTest, IdsAtAndAbove2To63WorkInEveryCommand) {
  const std::vector<std::string> ids = {"9223372036854775807", "9223372036854775808", "9223372036854775809",
                                        "18446744073709551614", "18446744073709551615", "0", "1", "2"};
  {
    std::ofstream edges(path("big_edges.txt")), labels(path("big_labels.txt"));
    for (std::size_t i = 0; i < ids.size(); ++i) {
      for (std::size_t j = i + 1; j < ids.size(); ++j)
        if ((i < 4) == (j < 4)) edges << ids[i] << ' ' << ids[j] << '\n';
      labels << ids[i] << ' ' << (i < 4 ? "x" : "y") << '\n';
    }
    edges << ids[0] << ' ' << ids[7] << '\n';
  }
  const std::string graph = " --edges " + path("big_edges.txt");
  const CliRun train = run_cli("train --task node" + graph + " --labels " + path("big_labels.txt") +
                               " --split stratified:0.5,0.25,0.25 --epochs 5 --out " + path("big.ew"));
  ASSERT_EQ(train.status, 0) << train.output;
  const std::string model = " --model " + path("big.ew") + graph;
  const CliRun predict = run_cli("predict" + model + " --out " + path("big_predictions.tsv"));
  ASSERT_EQ(predict.status, 0) << predict.output;
  const CliRun embed = run_cli("embed" + model + " --out " + path("big_embeddings.tsv"));
  ASSERT_EQ(embed.status, 0) << embed.output;
  const CliRun eval = run_cli("eval" + model + " --labels " + path("big_labels.txt"));
  ASSERT_EQ(eval.status, 0) << eval.output;
  const CliRun info = run_cli("info " + path("big.ew"), 0);
  ASSERT_EQ(info.status, 0) << info.output;
  for (const std::string& written : {read("big_predictions.tsv"), read("big_embeddings.tsv")}) {
    // Rows in the order of the ids' values, each named by its id as written.
    std::istringstream rows(written);
    std::string row;
    std::getline(rows, row);
    for (const std::string& id : {ids[5], ids[6], ids[7], ids[0], ids[1], ids[2], ids[3], ids[4]}) {
      ASSERT_TRUE(std::getline(rows, row)) << written;
      EXPECT_EQ(row.substr(0, row.find('\t')), id) << written;
    }
  }
}

}  // namespace
