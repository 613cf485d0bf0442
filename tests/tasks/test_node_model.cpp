// NodeModel end to end: graphs read from files (features, normalization, labels by class name),
// training on a stochastic block model, node id order, and model files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/datasets/sbm.hpp"
#include "edgewise/tasks/node/node_model.hpp"
#include "edgewise/models/model_file.hpp"
#include "support/thrown.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;
using testing::argument_error_of;

class NodeModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    set_num_threads(2);
    folder_ = fs::temp_directory_path() / ("edgewise_node_model_" + std::to_string(::getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(folder_ / name) << text;
    return folder_ / name;
  }

  // A planted partition written as files: edges, labels "c<block>" and dense features.
  NodeGraphFiles write_sbm(const SbmOptions& options) const {
    const SbmGraph sbm = stochastic_block_model(options);
    std::string edges, labels, features;
    for (const auto& [u, v] : sbm.edges) edges += std::to_string(u) + ' ' + std::to_string(v) + '\n';
    for (Index node = 0; node < static_cast<Index>(sbm.labels.size()); ++node) {
      labels += std::to_string(node) + " c" + std::to_string(sbm.labels[static_cast<std::size_t>(node)]) + '\n';
      features += std::to_string(node);
      for (Index f = 0; f < sbm.features.cols(); ++f) features += ' ' + std::to_string(sbm.features(node, f));
      features += '\n';
    }
    return {.edges = write("sbm_edges.txt", edges),
            .labels = write("sbm_labels.txt", labels),
            .features = write("sbm_features.txt", features)};
  }

  std::string path(const std::string& name) const { return (folder_ / name).string(); }

  fs::path folder_;
};

constexpr NodeInputOptions kDenseInput = {.features = {.format = FeatureFormat::dense}};

NodeClassifierOptions small_network() {
  NodeClassifierOptions network;
  network.heads = 4;
  network.head_dim = 4;
  network.dropout = 0.2;
  network.attention_dropout = 0.2;
  return network;
}

NodeModel trained(const NodeGraph& data, const Split& split, Index epochs) {
  NodeModel model({.network = small_network(), .classes = data.labels.class_names, .input = data.input});
  model.initialize(3);
  model.fit(data, split, {.epochs = epochs, .seed = 5});
  return model;
}

Split train_only(std::vector<Index> nodes) {
  Split split;
  split.train = std::move(nodes);
  return split;
}

std::vector<std::string> names_in_output_order(const NodeModel& model, const NodeIndex& nodes) {
  std::vector<std::string> names;
  for (const Index node : model.output_order(nodes)) names.emplace_back(nodes.name(node));
  return names;
}

// The regularization rule reads the feature format, then the training labels a class.
TEST(NodeTrainingDefaultsTest, FollowTheFeaturesAndTheTrainingLabelsPerClass) {
  NodeGraph data;
  data.labels.class_names = {"a", "b"};
  data.input.features.format = FeatureFormat::sparse;
  Split split;
  split.train.resize(2 * static_cast<std::size_t>(kFewLabelsPerClass));  // exactly the limit: the GAT recipe
  NodeTrainingDefaults few = default_node_training(data, split);
  EXPECT_EQ(few.dropout, 0.6);
  EXPECT_EQ(few.attention_dropout, 0.6);
  EXPECT_EQ(few.weight_decay, 5e-4);
  EXPECT_EQ(few.reason, "25 training labels a class (at most 25)");

  split.train.resize(split.train.size() + 2);
  const NodeTrainingDefaults many = default_node_training(data, split);
  EXPECT_EQ(many.dropout, 0.5);
  EXPECT_EQ(many.attention_dropout, 0.1);
  EXPECT_EQ(many.weight_decay, 0.0);
  EXPECT_EQ(many.reason, "26 training labels a class (more than 25)");

  data.input.features.format = FeatureFormat::structural;
  const NodeTrainingDefaults structural = default_node_training(data, split);
  EXPECT_EQ(structural.dropout, 0.1);
  EXPECT_EQ(structural.attention_dropout, 0.1);
  EXPECT_EQ(structural.weight_decay, 5e-4);
  EXPECT_EQ(structural.reason, "structural features");
}

TEST(NodeBatchingTest, FullBatchBytesCountLayersByTheirWidthsAndHeads) {
  const NodeClassifierOptions network{.in_dim = 3, .classes = 2};  // 8 heads of 8, one output head
  // features 4*10*3; hidden layer 48*10*64 + 16*20*8; output layer 48*10*2 + 16*20*1
  EXPECT_DOUBLE_EQ(full_batch_bytes(10, 20, network), 120 + 30720 + 2560 + 960 + 320);
}

TEST(NodeBatchingTest, SamplesWhenAskedOrWhenTheGraphDoesNotFitAQuarterOfTheMemory) {
  const NodeClassifierOptions network{.in_dim = 1433, .classes = 7};
  const BatchingChoice small = choose_node_batching(2708, 13264, network);
  EXPECT_FALSE(small.sampled);
  EXPECT_NE(small.reason.find("within a quarter"), std::string::npos) << small.reason;

  const BatchingChoice asked = choose_node_batching(2708, 13264, network, {.batch_size = 64});
  EXPECT_TRUE(asked.sampled);
  EXPECT_EQ(asked.sampling.batch_size, 64);
  EXPECT_EQ(asked.sampling.fanouts, (std::vector<Index>{15, 10}));
  EXPECT_TRUE(asked.sampling.exact_validation) << "the whole graph fits, so validation runs on it";

  const Index nodes = static_cast<Index>(full_batch_budget_bytes() / 1000);  // 3 kB a node at least
  const BatchingChoice big = choose_node_batching(nodes, 16 * nodes, network, {.fanouts = {5, 5}});
  EXPECT_TRUE(big.sampled);
  EXPECT_EQ(big.sampling.fanouts, (std::vector<Index>{5, 5}));
  EXPECT_FALSE(big.sampling.exact_validation);
  EXPECT_TRUE(choose_node_batching(nodes, 16 * nodes, network).sampled);
  EXPECT_NE(choose_node_batching(nodes, 16 * nodes, network).reason.find("over a quarter"), std::string::npos);
}

TEST_F(NodeModelTest, LearnsAStochasticBlockModel) {
  const NodeGraphFiles files =
      write_sbm({.nodes = 400, .communities = 4, .p_in = 0.05, .p_out = 0.005, .seed = 11});
  const NodeGraph data = read_node_graph(files, kDenseInput);
  ASSERT_EQ(data.nodes.size(), 400);
  ASSERT_EQ(data.labels.class_names, (std::vector<std::string>{"c0", "c1", "c2", "c3"}));
  const Split split = stratified_split(data.labels.classes, 0.2, 0.2, 1);
  const NodeModel model = trained(data, split, 300);
  const NodeEvaluation test = model.evaluate(data, split.test);
  std::printf("stochastic block model: test accuracy %.3f, macro-F1 %.3f\n", test.metrics.accuracy,
              test.metrics.macro_f1);
  EXPECT_GE(test.metrics.accuracy, 0.9);
}

// 1,200 nodes: the projections are cut into row blocks and the weight gradients along the nodes.
TEST_F(NodeModelTest, EveryThreadCountTrainsTheSameModel) {
  const NodeGraphFiles files =
      write_sbm({.nodes = 1200, .communities = 4, .p_in = 0.02, .p_out = 0.002, .seed = 12});
  const NodeGraph data = read_node_graph(files, kDenseInput);
  const Split split = stratified_split(data.labels.classes, 0.2, 0.2, 1);
  Matrix<float> at_one_thread;
  for (const int threads : {1, 2, 3}) {
    set_num_threads(threads);
    const Matrix<float> probabilities = trained(data, split, 10).predict(data);
    if (threads == 1) at_one_thread = probabilities;
    EXPECT_EQ(probabilities, at_one_thread) << threads << " threads";
  }
}

TEST_F(NodeModelTest, SaveAndLoadGiveIdenticalProbabilities) {
  const NodeGraphFiles files = write_sbm({.nodes = 120, .communities = 3, .p_in = 0.1, .seed = 2});
  const NodeGraph data = read_node_graph(files, kDenseInput);
  const NodeModel model = trained(data, stratified_split(data.labels.classes, 0.5, 0.25, 1), 5);
  model.save(path("sbm.ew"));

  const NodeModel loaded = NodeModel::load(path("sbm.ew"));
  EXPECT_EQ(loaded.config().classes, model.config().classes);
  EXPECT_EQ(loaded.config().nodes, data.nodes.names());
  EXPECT_EQ(loaded.config().input.features.format, FeatureFormat::dense);
  EXPECT_EQ(loaded.config().input.features.dim, 16);
  EXPECT_FALSE(loaded.config().calibration);  // fit alone does not calibrate
  const NodeGraph again = loaded.read_graph({.edges = files.edges, .features = files.features});
  EXPECT_EQ(loaded.predict(again), model.predict(data));
  EXPECT_EQ(loaded.embed(again), model.embed(data));
  EXPECT_EQ(loaded.embed(again).cols(), loaded.embedding_dim());
}

// The validation nodes set a temperature: it keeps every node's predicted class, lowers the
// validation NLL, travels in the model file, and gives prediction sets that cover the test nodes.
TEST_F(NodeModelTest, CalibratesItsProbabilitiesOnTheValidationNodes) {
  const NodeGraphFiles files = write_sbm({.nodes = 600, .communities = 4, .p_in = 0.03, .p_out = 0.01, .seed = 4});
  const NodeGraph data = read_node_graph(files, kDenseInput);
  const Split split = stratified_split(data.labels.classes, 0.2, 0.3, 1);
  NodeModel model = trained(data, split, 60);
  const Matrix<float> raw = model.predict(data);
  const ClassUncertaintyScores raw_val = model.score_probabilities(data, split.val, std::nullopt);
  EXPECT_TRUE(std::isnan(raw_val.coverage));
  model.calibrate(data, split.val);
  ASSERT_TRUE(model.config().calibration);
  EXPECT_EQ(model.config().calibration->scores.size(), split.val.size());
  const Matrix<float> calibrated = model.predict(data);
  for (Index node = 0; node < data.nodes.size(); ++node) {
    Index raw_best = 0, best = 0;
    raw.row(node).maxCoeff(&raw_best);
    calibrated.row(node).maxCoeff(&best);
    EXPECT_EQ(best, raw_best) << "node " << node;
    EXPECT_NEAR(calibrated.row(node).sum(), 1, 1e-5);
  }
  EXPECT_LE(model.score_probabilities(data, split.val, std::nullopt).nll, raw_val.nll + 1e-6);
  const ClassUncertaintyScores test = model.score_probabilities(data, split.test, 0.9);
  std::printf("calibrated: temperature %.3f, test NLL %.3f, ECE %.3f, 90 %% sets cover %.3f at %.2f classes\n",
              model.config().calibration->temperature, test.nll, test.ece, test.coverage, test.mean_set_size);
  EXPECT_GE(test.coverage, 0.8);
  EXPECT_GE(test.mean_set_size, 1);

  model.save(path("calibrated.ew"));
  const NodeModel loaded = NodeModel::load(path("calibrated.ew"));
  ASSERT_TRUE(loaded.config().calibration);
  EXPECT_EQ(loaded.config().calibration->temperature, model.config().calibration->temperature);
  EXPECT_EQ(loaded.predict(data), calibrated);
}

TEST_F(NodeModelTest, StringIdsKeepTheirNamesAndTrainingOrder) {
  const NodeInputOptions input = {.ids = NodeIds::string};
  const NodeGraph data = read_node_graph(
      {.edges = write("people.tsv", "alice bob\nbob carol\ncarol dave\ndave alice\nerin alice\n"),
       .labels = write("roles.txt", "alice staff\nbob guest\ncarol staff\ndave guest\nerin staff\n")},
      input);
  ASSERT_EQ(data.labels.class_names, (std::vector<std::string>{"staff", "guest"}));
  trained(data, train_only({0, 1, 2, 3, 4}), 3).save(path("people.ew"));
  const NodeModel loaded = NodeModel::load(path("people.ew"));

  // The same people, written in another order, with one newcomer; carol is gone.
  const NodeGraph later = loaded.read_graph(
      {.edges = write("later.tsv", "frank dave\ndave alice\nerin alice\nbob alice\n"),
       .labels = write("later_roles.txt", "frank guest\nalice staff\n")});
  EXPECT_EQ(names_in_output_order(loaded, later.nodes),
            (std::vector<std::string>{"alice", "bob", "dave", "erin", "frank"}));
  // Labels map to the model's classes by name, whatever order the file gives them.
  EXPECT_EQ(later.labels.classes[static_cast<std::size_t>(*later.nodes.find("frank"))], 1);
  EXPECT_EQ(later.labels.classes[static_cast<std::size_t>(*later.nodes.find("alice"))], 0);
  EXPECT_EQ(loaded.predict(later).rows(), 5);
}

TEST_F(NodeModelTest, IntegerIdsComeOutInIncreasingOrder) {
  const NodeGraph data = read_node_graph(
      {.edges = write("e.txt", "10 2\n2 7\n7 10\n"), .labels = write("l.txt", "2 a\n7 b\n10 a\n")}, {});
  const NodeModel model = trained(data, train_only({0, 1}), 1);
  EXPECT_EQ(names_in_output_order(model, data.nodes), (std::vector<std::string>{"2", "7", "10"}));
}

TEST_F(NodeModelTest, RefusesLabelsTheModelDoesNotKnow) {
  const NodeGraph data = read_node_graph(
      {.edges = write("e.txt", "0 1\n1 2\n"), .labels = write("l.txt", "0 a\n1 b\n2 a\n")}, {});
  const NodeModel model = trained(data, train_only({0, 1}), 1);
  EXPECT_THROW(model.read_graph({.edges = write("e2.txt", "0 1\n"),
                                 .labels = write("l2.txt", "0 c\n")}),
               ArgumentError);
}

TEST_F(NodeModelTest, NormalizesSparseFeatureRowsAndRemembersIt) {
  const fs::path edges = write("e.txt", "0 1\n1 2\n2 0\n");
  const fs::path features = write("f.txt", "0 0 1 3\n1 2\n2 0:0.5 3:1.5\n");
  const NodeInputOptions input = {.features = {.format = FeatureFormat::sparse}, .normalize_rows = true};
  const NodeGraph data =
      read_node_graph({.edges = edges, .labels = write("l.txt", "0 x\n1 y\n2 x\n"), .features = features}, input);
  ASSERT_EQ(data.features.cols(), 4);
  for (Index node = 0; node < 3; ++node) EXPECT_FLOAT_EQ(data.features.row(node).sum(), 1.0f) << node;
  EXPECT_FLOAT_EQ(data.features(2, 3), 0.75f);

  trained(data, train_only({0, 1}), 1).save(path("sparse.ew"));
  const NodeModel loaded = NodeModel::load(path("sparse.ew"));
  EXPECT_TRUE(loaded.config().input.normalize_rows);
  EXPECT_EQ(loaded.read_graph({.edges = edges, .features = features}).features, data.features);
  // The model reads sparse features: without a features file there is nothing to read.
  EXPECT_THROW(loaded.read_graph({.edges = edges}), ArgumentError);
}

TEST_F(NodeModelTest, ComputesStructuralFeaturesWithoutAFeaturesFile) {
  const NodeGraph data = read_node_graph(
      {.edges = write("e.txt", "0 1\n1 2\n"), .labels = write("l.txt", "0 a\n1 b\n2 a\n3 b\n")}, {});
  EXPECT_EQ(data.nodes.size(), 4);  // node 3 has a label and no edge
  EXPECT_EQ(data.edge_list_nodes, 3);
  EXPECT_EQ(data.input.features.format, FeatureFormat::structural);
  EXPECT_EQ(data.features.cols(), StructuralFeatureOptions{}.max_degree + 1 + StructuralFeatureOptions{}.walk_steps);
  // Structural features are computed: a features file is refused.
  EXPECT_THROW(read_node_graph({.edges = write("e2.txt", "0 1\n"), .features = write("f.txt", "0 1\n")}, {}),
               ArgumentError);
}

TEST_F(NodeModelTest, SelfLoopsOnlyAttendsToTheNodeItselfWhileStructuralFeaturesSeeTheEdges) {
  const NodeGraphFiles files = {.edges = write("e.txt", "0 1\n1 2\n2 0\n2 3\n"),
                                .labels = write("l.txt", "0 a\n1 b\n2 a\n3 b\n4 a\n")};
  const NodeGraph full = read_node_graph(files, {});
  const NodeGraph mlp = read_node_graph(files, {.self_loops_only = true});
  ASSERT_EQ(mlp.nodes.size(), 5);
  ASSERT_EQ(mlp.graph.num_nodes(), 5);
  ASSERT_EQ(mlp.graph.num_edges(), 5);
  for (Index e = 0; e < mlp.graph.num_edges(); ++e) EXPECT_EQ(mlp.graph.source(e), mlp.graph.target(e)) << e;
  EXPECT_EQ(full.graph.num_edges(), 2 * 4 + 5);
  // The structural features are those of the edges: node 2 has degree 3, node 4 (labels only) 0.
  EXPECT_EQ(mlp.features, full.features);
  EXPECT_EQ(mlp.features(2, 3), 1.0f);
  EXPECT_EQ(mlp.features(4, 0), 1.0f);
  EXPECT_NE(argument_error_of([&] { read_node_graph(files, {.add_self_loops = false, .self_loops_only = true}); })
                .find("self-loops only needs the self-loops"),
            std::string::npos);
}

TEST_F(NodeModelTest, SelfLoopsOnlyIgnoresNeighboursAndIsRecordedInTheModelFile) {
  const NodeGraphFiles files = write_sbm({.nodes = 60, .communities = 2, .p_in = 0.2, .seed = 4});
  NodeInputOptions input = kDenseInput;
  input.self_loops_only = true;
  NodeGraph data = read_node_graph(files, input);
  const NodeModel model = trained(data, stratified_split(data.labels.classes, 0.5, 0.25, 1), 5);
  model.save(path("mlp.ew"));

  // A node's prediction does not move when its neighbours' features change.
  const Matrix<float> before = model.predict(data);
  const Index node = data.graph.num_nodes() - 1;
  Matrix<float> changed = data.features;
  changed.topRows(node).setRandom();
  data.features = std::move(changed);
  const Matrix<float> after = model.predict(data);
  EXPECT_EQ(after.row(node), before.row(node));
  EXPECT_NE(after.topRows(node), before.topRows(node));

  const NodeModel loaded = NodeModel::load(path("mlp.ew"));
  EXPECT_TRUE(loaded.config().input.self_loops_only);
  const NodeGraph again = loaded.read_graph({.edges = files.edges, .features = files.features});
  EXPECT_EQ(again.graph.num_edges(), again.graph.num_nodes());
  EXPECT_EQ(loaded.predict(again), before);
}

TEST_F(NodeModelTest, LoadsModelFilesWrittenBeforeSelfLoopsOnly) {
  const NodeGraph data = read_node_graph(
      {.edges = write("e.txt", "0 1\n1 2\n"), .labels = write("l.txt", "0 a\n1 b\n2 a\n")}, {});
  trained(data, train_only({0, 1}), 1).save(path("new.ew"));
  ModelFile file = load_model(path("new.ew"));
  ASSERT_TRUE(file.config.at("input").contains("self_loops_only"));
  file.config.at("input").erase("self_loops_only");
  save_model(path("old.ew"), file.config, file.parameters);
  const NodeModel old = NodeModel::load(path("old.ew"));
  EXPECT_FALSE(old.config().input.self_loops_only);
  EXPECT_EQ(old.read_graph({.edges = path("e.txt")}).graph.num_edges(), 2 * 2 + 3);
}

TEST_F(NodeModelTest, RefusesAModelOfAnotherKind) {
  Parameters<float> params;
  params.add("w", 1, 1);
  save_model(path("other.ew"), nlohmann::json{{"kind", "molecule-property"}}, params);
  try {
    NodeModel::load(path("other.ew"));
    FAIL() << "loaded a model of another kind";
  } catch (const ModelFormatError& e) {
    EXPECT_NE(std::string(e.what()).find(path("other.ew")), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a node classification model"), std::string::npos) << e.what();
  }
}

TEST_F(NodeModelTest, RefusesAnIncompleteConfiguration) {
  Parameters<float> params;
  params.add("w", 1, 1);
  save_model(path("broken.ew"), nlohmann::json{{"kind", kNodeModelKind}, {"classes", {"a"}}}, params);
  try {
    NodeModel::load(path("broken.ew"));
    FAIL() << "loaded a model without a network";
  } catch (const ModelFormatError& e) {
    EXPECT_NE(std::string(e.what()).find(path("broken.ew")), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("invalid model configuration"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace edgewise
