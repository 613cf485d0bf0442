// Data built in memory instead of read from files: molecules from a list of SMILES with their
// targets, sets of a dataset's rows for training, and node graphs from a Graph with features and
// labels, trained, saved and loaded like graphs read from files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/datasets/sbm.hpp"
#include "edgewise/chem/molecule_dataset.hpp"
#include "edgewise/tasks/molecule/molecule_model.hpp"
#include "edgewise/tasks/molecule/molecule_training.hpp"
#include "edgewise/tasks/node/node_model.hpp"
#include "edgewise/splits/splits.hpp"
#include "support/thrown.hpp"
#include "support/matrices.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;
using testing::argument_error_of;
using testing::thrown_by;

using testing::kMissing;

Matrix<float> column(std::initializer_list<float> values) {
  Matrix<float> m(static_cast<Index>(values.size()), 1);
  Index row = 0;
  for (const float value : values) m(row++, 0) = value;
  return m;
}

TEST(MoleculesFromSmiles, KeepsOrderTargetsAndTrimmedSmiles) {
  const MoleculeDataset data = molecules_from_smiles({" CCO", "c1ccccc1 ", "O"}, column({1.5f, kMissing, -2}), {"y"});
  EXPECT_EQ(data.tasks, (std::vector<std::string>{"y"}));
  EXPECT_EQ(data.smiles, (std::vector<std::string>{"CCO", "c1ccccc1", "O"}));
  EXPECT_EQ(data.lines, (std::vector<std::size_t>{1, 2, 3}));
  ASSERT_EQ(data.size(), 3);
  EXPECT_EQ(data.molecules[1].graph.num_nodes(), 6);
  EXPECT_EQ(data.targets(0, 0), 1.5f);
  EXPECT_TRUE(std::isnan(data.targets(1, 0)));
  EXPECT_EQ(data.targets(2, 0), -2.0f);
}

TEST(MoleculesFromSmiles, WithoutTargetsForPrediction) {
  const MoleculeDataset data = molecules_from_smiles({"CCO", "CCN"});
  EXPECT_EQ(data.size(), 2);
  EXPECT_EQ(data.targets.rows(), 2);
  EXPECT_EQ(data.targets.cols(), 0);
}

TEST(MoleculesFromSmiles, InvalidSmilesFailsNamingItsPosition) {
  const auto error =
      thrown_by<InvalidMoleculeError>([] { molecules_from_smiles({"CCO", "C1CC", "CCN"}, column({1, 2, 3}), {"y"}); });
  EXPECT_EQ(error.file(), "SMILES list");
  EXPECT_EQ(error.line(), 2u);
  EXPECT_EQ(error.text(), "C1CC");
  EXPECT_NE(error.reason().find("invalid SMILES"), std::string::npos) << error.reason();
}

TEST(MoleculesFromSmiles, SkipPolicyDropsInvalidRowsWithTheirTargets) {
  const MoleculeDataset data = molecules_from_smiles({"CCO", "C1CC", "not a molecule", "CCN"}, column({1, 2, 3, 4}),
                                                     {"y"}, InvalidMoleculePolicy::skip);
  EXPECT_EQ(data.smiles, (std::vector<std::string>{"CCO", "CCN"}));
  EXPECT_EQ(data.lines, (std::vector<std::size_t>{1, 4}));
  ASSERT_EQ(data.targets.rows(), 2);
  EXPECT_EQ(data.targets(0, 0), 1.0f);
  EXPECT_EQ(data.targets(1, 0), 4.0f);
  ASSERT_EQ(data.skipped.size(), 2u);
  EXPECT_EQ(data.skipped[0].line, 2u);
  EXPECT_EQ(data.skipped[1].smiles, "not a molecule");
  EXPECT_FALSE(data.skipped[1].reason.empty());
}

TEST(MoleculesFromSmiles, RefusesTargetsOfTheWrongShapeOrInfinite) {
  EXPECT_NE(argument_error_of([] { molecules_from_smiles({"CCO", "CCN"}, column({1}), {"y"}); }).find("[1, 1]"),
            std::string::npos);
  EXPECT_NE(argument_error_of([] { molecules_from_smiles({"CCO"}, column({1}), {}); }).find("0 task names"),
            std::string::npos);
  const std::string infinite = argument_error_of(
      [] { molecules_from_smiles({"CCO", "CCN"}, column({1, std::numeric_limits<float>::infinity()}), {"y"}); });
  EXPECT_NE(infinite.find("SMILES 2"), std::string::npos) << infinite;
}

TEST(CheckTargetsLabelled, RefusesATaskWithoutASingleLabelNamingTheSourceAndTheTask) {
  Matrix<float> targets(3, 2);
  targets << 1, kMissing, 2, kMissing, kMissing, kMissing;
  const std::vector<std::string> smiles = {"CCO", "CCN", "CCC"};
  try {
    check_targets_labelled(molecules_from_smiles(smiles, targets, {"logS", "pKa"}), "mine.csv");
    ADD_FAILURE() << "no error for a task without labels";
  } catch (const ArgumentError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("mine.csv: target 'pKa' has no labels"), std::string::npos) << message;
    EXPECT_NE(message.find("all 3 molecules"), std::string::npos) << message;
  }
  targets(2, 1) = 7;
  EXPECT_NO_THROW(check_targets_labelled(molecules_from_smiles(smiles, targets, {"logS", "pKa"}), "mine.csv"));
}

TEST(MoleculeSet, SelectsRowsWithTheirTargets) {
  const MoleculeDataset data = molecules_from_smiles({"C", "CC", "CCC"}, column({1, 2, 3}), {"y"});
  const std::vector<Index> rows = {2, 0};
  const MoleculeSet set = molecule_set(data, rows);
  ASSERT_EQ(set.molecules.size(), 2u);
  EXPECT_EQ(set.molecules[0], &data.molecules[2]);
  EXPECT_EQ(set.molecules[1], &data.molecules[0]);
  EXPECT_EQ(set.targets(0, 0), 3.0f);
  EXPECT_EQ(set.targets(1, 0), 1.0f);
  EXPECT_EQ(molecule_set(data).molecules.size(), 3u);
  const std::vector<Index> outside = {3};
  EXPECT_NE(argument_error_of([&] { molecule_set(data, outside); }).find("row 3"), std::string::npos);
}

TEST(MoleculeSet, TrainsAModelFromSmilesInMemory) {
  set_num_threads(2);
  const MoleculeDataset data =
      molecules_from_smiles({"C", "CC", "CCC", "CCCC", "CCCCC", "CCCCCC"}, column({1, 2, 3, 4, 5, 6}), {"carbons"});
  MoleculeModelConfig config;
  config.network.hidden = 16;
  config.network.heads = 2;
  config.network.layers = 1;
  config.network.head_hidden = 16;
  config.network.dropout = 0;
  config.tasks = data.tasks;
  MoleculeModel model(config);
  model.initialize(1);
  TrainingOptions training;
  training.epochs = 150;
  training.batch_size = 6;
  training.learning_rate = 3e-3;
  training.seed = 2;
  model.fit(molecule_set(data), {}, training);
  const SmilesPredictions predictions = model.predict_smiles({"CCC", "C(", "CCCCC"});
  ASSERT_EQ(predictions.valid, (std::vector<std::size_t>{0, 2}));
  ASSERT_EQ(predictions.invalid.size(), 1u);
  EXPECT_EQ(predictions.invalid[0].first, 1u);
  EXPECT_NEAR(predictions.values(0, 0), 3.0f, 0.5f);
  EXPECT_NEAR(predictions.values(1, 0), 5.0f, 0.5f);
}

// Two triangles joined by one edge, with self-loops and both directions, as attention needs.
Graph two_triangles() {
  const std::vector<std::pair<Index, Index>> edges = {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}, {2, 3}};
  return Graph::from_pairs(6, edges, {.add_self_loops = true, .symmetrize = true});
}

TEST(MakeNodeGraph, NamesNodesByIdAndDescribesDenseFeatures) {
  const NodeGraph data =
      make_node_graph(two_triangles(), Matrix<float>::Ones(6, 3), {.classes = {0, 0, 0, 1, 1, -1}, .class_names = {"a", "b"}});
  EXPECT_EQ(data.nodes.size(), 6);
  EXPECT_EQ(data.nodes.name(4), "4");
  EXPECT_EQ(data.graph.num_edges(), 20);
  EXPECT_EQ(data.input.features.format, FeatureFormat::dense);
  EXPECT_EQ(data.input.features.dim, 3);
  EXPECT_EQ(data.labels.num_labeled(), 5);
}

TEST(MakeNodeGraph, WithoutLabelsEveryNodeIsUnlabeled) {
  const NodeGraph data = make_node_graph(two_triangles(), Matrix<float>::Zero(6, 2));
  EXPECT_EQ(data.labels.classes, std::vector<Index>(6, -1));
  EXPECT_EQ(data.labels.num_classes(), 0);
}

TEST(MakeNodeGraph, RefusesInconsistentInputs) {
  EXPECT_NE(argument_error_of([] { make_node_graph(two_triangles(), Matrix<float>::Zero(5, 2)); }).find("5 rows"),
            std::string::npos);
  EXPECT_NE(argument_error_of([] {
              make_node_graph(two_triangles(), Matrix<float>::Zero(6, 2), {.classes = {0, 1}, .class_names = {"a", "b"}});
            }).find("2 labels"),
            std::string::npos);
  EXPECT_NE(argument_error_of([] {
              make_node_graph(two_triangles(), Matrix<float>::Zero(6, 2),
                              {.classes = {0, 0, 0, 1, 1, 2}, .class_names = {"a", "b"}});
            }).find("node 5 has class 2"),
            std::string::npos);
  Matrix<float> features = Matrix<float>::Zero(6, 2);
  features(3, 1) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(argument_error_of([&] { make_node_graph(two_triangles(), features); }).find("feature 1 of node 3"),
            std::string::npos);
}

class MakeNodeGraphModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    set_num_threads(2);
    path_ = fs::temp_directory_path() / ("edgewise_in_memory_" + std::to_string(::getpid()) + ".ew");
  }
  void TearDown() override { fs::remove(path_); }

  fs::path path_;
};

TEST_F(MakeNodeGraphModelTest, TrainsPredictsEmbedsAndSavesAModel) {
  SbmGraph sbm = stochastic_block_model({.nodes = 300, .communities = 3, .p_in = 0.06, .p_out = 0.004, .seed = 4});
  const Split split = stratified_split(sbm.labels, 0.3, 0.2, 1);
  const NodeGraph data = make_node_graph(std::move(sbm.graph), std::move(sbm.features),
                                         {.classes = sbm.labels, .class_names = {"x", "y", "z"}});
  NodeClassifierOptions network;
  network.heads = 2;
  network.head_dim = 4;
  network.dropout = network.attention_dropout = network.value_dropout = 0.1;  // a small network
  NodeModel model({.network = network, .classes = data.labels.class_names, .input = data.input});
  model.initialize(7);
  model.fit(data, split, {.epochs = 100, .seed = 3});
  EXPECT_GE(model.evaluate(data, split.test).metrics.accuracy, 0.8);  // chance is 1/3

  const Matrix<float> probabilities = model.predict(data);
  ASSERT_EQ(probabilities.rows(), 300);
  ASSERT_EQ(probabilities.cols(), 3);
  EXPECT_NEAR(probabilities.row(17).sum(), 1.0f, 1e-5f);
  EXPECT_EQ(model.embed(data).cols(), model.embedding_dim());

  model.save(path_.string());
  const NodeModel loaded = NodeModel::load(path_.string());
  EXPECT_EQ(loaded.config().nodes.size(), 300u);
  EXPECT_EQ(loaded.predict(data), probabilities);
}

// Rows in a caller's buffer (a NumPy array, from Python) reach the network in place: full-batch and
// sampled training, with dropout on the features, give the model that a copy of them gives.
TEST_F(MakeNodeGraphModelTest, FeaturesInACallersBufferAreReadInPlaceAndTrainTheSameModel) {
  const SbmGraph sbm = stochastic_block_model({.nodes = 120, .communities = 2, .p_in = 0.1, .p_out = 0.01, .seed = 5});
  const Split split = stratified_split(sbm.labels, 0.4, 0.2, 1);
  const NodeLabels labels{.classes = sbm.labels, .class_names = {"x", "y"}};
  auto buffer = std::make_shared<std::vector<float>>(sbm.features.data(), sbm.features.data() + sbm.features.size());
  const NodeGraph in_place = make_node_graph(
      sbm.graph, SharedRows<float>(buffer->data(), sbm.features.rows(), sbm.features.cols(), buffer), labels);
  const NodeGraph owned = make_node_graph(sbm.graph, sbm.features, labels);
  EXPECT_EQ(in_place.features.data(), buffer->data());
  EXPECT_NE(owned.features.data(), sbm.features.data());
  buffer.reset();  // the graph keeps the rows alive

  NodeClassifierOptions network;
  network.heads = 2;
  network.head_dim = 4;
  for (const bool sampled : {false, true}) {
    const BatchingChoice batching{.sampled = sampled, .sampling = {.batch_size = 32}};
    const auto trained = [&](const NodeGraph& data) {
      NodeModel model({.network = network, .classes = data.labels.class_names, .input = data.input});
      model.initialize(7);
      model.fit(data, split, {.epochs = 20, .seed = 3}, {}, {}, batching);
      return model.predict(data);
    };
    EXPECT_EQ(trained(in_place), trained(owned)) << (sampled ? "sampled" : "full batch");
  }
}

}  // namespace
}  // namespace edgewise
