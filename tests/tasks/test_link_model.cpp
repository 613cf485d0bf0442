// Link prediction as one model: the links a graph holds, the graph without the held-out links,
// training on a planted partition, saving and loading, scoring pairs, suggestions and splits.
#include "edgewise/tasks/link/link_model.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/datasets/sbm.hpp"
#include "edgewise/tasks/link/link_training.hpp"
#include "edgewise/tasks/model.hpp"
#include "support/thrown.hpp"
#include "support/quiet_log.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;

using testing::kQuiet;

class LinkModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("edgewise_link_model_" + std::to_string(::getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  std::string path(const std::string& name) const { return (folder_ / name).string(); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }

  fs::path folder_;
};

// Four planted communities of 50 nodes whose 8 features tell them apart, as a graph in memory.
NodeGraph planted_partition() {
  const SbmGraph sbm = stochastic_block_model({.nodes = 200, .communities = 4, .p_in = 0.15, .p_out = 0.005,
                                               .feature_dim = 8, .feature_noise = 1.0, .add_self_loops = true,
                                               .seed = 2});
  return make_node_graph(sbm.graph, sbm.features);
}

NodeClassifierOptions small_encoder() {
  NodeClassifierOptions encoder = default_link_encoder();
  encoder.heads = 2;
  encoder.head_dim = 8;
  encoder.classes = 16;
  return encoder;
}

TEST(GraphLinksTest, AreTheUndirectedEdgesWithoutSelfLoops) {
  const NodeGraph data = make_node_graph(
      Graph::from_pairs(4, std::vector<NodePair>{{0, 1}, {2, 1}, {3, 3}}, {.add_self_loops = true, .symmetrize = true}),
      Matrix<float>::Ones(4, 1));
  std::vector<NodePair> links = graph_links(data);
  std::ranges::sort(links);
  EXPECT_EQ(links, (std::vector<NodePair>{{0, 1}, {1, 2}}));
}

TEST(WithEdgesTest, RecomputesStructuralFeaturesFromTheEdgesKept) {
  // A star: the centre's degree column differs once three of its four edges are held out.
  const fs::path edges = fs::temp_directory_path() / ("edgewise_star_" + std::to_string(::getpid()) + ".txt");
  std::ofstream(edges) << "0 1\n0 2\n0 3\n0 4\n";
  const NodeGraph data = read_node_graph({.edges = edges}, {});
  fs::remove(edges);
  const NodeGraph seen = with_edges(data, std::vector<NodePair>{{0, 1}});
  EXPECT_EQ(seen.graph.num_edges(), 2 + 5);  // both ways, and the self-loops
  EXPECT_EQ(seen.nodes.size(), 5);
  EXPECT_NE(seen.features.row(0), data.features.row(0));
  // Features read from a file (here, given) stay as they are.
  const NodeGraph given = make_node_graph(data.graph, Matrix<float>::Identity(5, 5));
  EXPECT_EQ(with_edges(given, std::vector<NodePair>{{0, 1}}).features.row(0), given.features.row(0));
}

TEST_F(LinkModelTest, TrainsOnTheTrainingLinksAndScoresHeldOutOnes) {
  const NodeGraph data = planted_partition();
  const std::vector<NodePair> links = graph_links(data);
  const LinkSplit split = make_link_split(parse_link_split("random", parse_split_fractions("0.85,0.05,0.1")), data,
                                          links, 0);
  for (const PairScorer scorer : {PairScorer::dot, PairScorer::mlp, PairScorer::dot_mlp}) {
    TrainedLinkModel trained =
        train_link_model(data, split, {.config = {.network = small_encoder(), .scorer = scorer}},
                         {.epochs = 100, .seed = 1, .log = kQuiet});
    ASSERT_TRUE(trained.test.has_value());
    std::printf("planted partition, link model (%s): test %s\n", name_of(kPairScorerNames, scorer).data(),
                link_metrics_text(*trained.test).c_str());
    EXPECT_GE(trained.test->roc_auc, 0.8);
    EXPECT_EQ(trained.model.config().nodes.size(), 200u);
    // The test figures are those of the graph of the training links, as LinkModel::evaluate gives them.
    const LinkMetrics again = trained.model.evaluate(with_edges(data, split.train), split.test, split.test_negatives);
    EXPECT_EQ(again.roc_auc, trained.test->roc_auc);

    trained.model.set_training_summary(
        link_training_summary(trained, static_cast<Index>(links.size()), "planted", "random"));
    trained.model.save(path("links.ew"));
    AnyModel loaded = load_any_model(path("links.ew"));
    ASSERT_TRUE(std::holds_alternative<LinkModel>(loaded));
    LinkModel& model = std::get<LinkModel>(loaded);
    EXPECT_EQ(model.task(), Task::link);
    EXPECT_EQ(model.config().scorer, scorer);
    EXPECT_EQ(model.score_pairs(data, split.test), trained.model.score_pairs(data, split.test));
    EXPECT_EQ(model.training_summary()->metrics.back().first, "test mrr");
    EXPECT_THROW(model.score_pairs(data, std::vector<NodePair>{{0, 200}}), ArgumentError);
  }
}

TEST_F(LinkModelTest, IdentityFeaturesTieTheModelToItsTrainingNodes) {
  const NodeGraph data = planted_partition();
  const LinkSplit split = split_links(graph_links(data), 200, 0.85, 0.05, 0);
  TrainedLinkModel trained =
      train_link_model(data, split, {.config = {.network = small_encoder(), .identity_features = true}},
                       {.epochs = 100, .seed = 1, .log = kQuiet});
  ASSERT_TRUE(trained.test.has_value());
  EXPECT_GE(trained.test->roc_auc, 0.8);
  EXPECT_EQ(trained.model.config().network.in_dim, 8 + 200);  // the features, then a column per node
  trained.model.save(path("identity.ew"));
  const LinkModel loaded = LinkModel::load(path("identity.ew"));
  EXPECT_TRUE(loaded.config().identity_features);
  EXPECT_EQ(loaded.score_pairs(data, split.test), trained.model.score_pairs(data, split.test));

  // Another graph's node 0 is not the node whose vector the model learned.
  const SbmGraph other = stochastic_block_model({.nodes = 150, .feature_dim = 8, .seed = 4});
  const std::string error =
      testing::argument_error_of([&] { loaded.embed(make_node_graph(other.graph, other.features)); });
  EXPECT_NE(error.find("nodes of its training graph only"), std::string::npos) << error;
  EXPECT_THROW(LinkModel({.input = data.input, .identity_features = true}), ArgumentError);  // which nodes?
}

TEST_F(LinkModelTest, RecommendsNodesThatAreNoLinkYet) {
  const NodeGraph data = planted_partition();
  LinkModel model({.network = small_encoder(), .input = data.input});
  model.initialize(0);
  const std::vector<Index> nodes = {0, 7};
  const std::vector<std::vector<ScoredNode>> suggestions = model.recommend(data, nodes, 5);
  ASSERT_EQ(suggestions.size(), 2u);
  const LinkSet known(graph_links(data));
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    ASSERT_EQ(suggestions[i].size(), 5u);
    for (const ScoredNode& suggested : suggestions[i]) {
      EXPECT_NE(suggested.node, nodes[i]);
      EXPECT_FALSE(known.contains(nodes[i], suggested.node));
      const std::vector<NodePair> pair = {{nodes[i], suggested.node}};
      EXPECT_FLOAT_EQ(suggested.score, model.score_pairs(data, pair)[0]);
    }
  }
  EXPECT_THROW(model.recommend(data, std::vector<Index>{-1}, 5), ArgumentError);
}

TEST_F(LinkModelTest, RefusesDirectedGraphsAndFeaturesOfAnotherWidth) {
  NodeInputOptions directed;
  directed.directed = true;
  directed.features = {.format = FeatureFormat::dense, .dim = 8};
  EXPECT_THROW(LinkModel({.input = directed}), ArgumentError);
  NodeInputOptions four_wide;
  four_wide.features = {.format = FeatureFormat::dense, .dim = 4};
  LinkModel model({.network = small_encoder(), .input = four_wide});
  EXPECT_THROW(model.embed(planted_partition()), ArgumentError);
}

TEST_F(LinkModelTest, FitRefusesAGraphThatStillHoldsTheHeldOutLinks) {
  const NodeGraph data = planted_partition();
  const LinkSplit split = split_links(graph_links(data), 200, 0.8, 0.1, 5);
  LinkModel model({.network = small_encoder(), .input = data.input});
  model.initialize(0);
  const std::string error = testing::argument_error_of([&] { model.fit(data, split, {.epochs = 1, .log = kQuiet}); });
  EXPECT_NE(error.find("without the held-out links"), std::string::npos) << error;
  EXPECT_EQ(model.fit(with_edges(data, split.train), split, {.epochs = 1, .log = kQuiet}).epochs_run, 1);
}

TEST_F(LinkModelTest, ReadsASplitFolderAgainstTheGraph) {
  const NodeGraph data = planted_partition();
  const std::vector<NodePair> links = graph_links(data);
  const LinkSplit split = split_links(links, 200, 0.8, 0.1, 5);
  write_link_split(path("split"), split, false, [&](Index node) { return std::string(data.nodes.name(node)); });
  const LinkSplit read = make_link_split(parse_link_split(path("split"), {}), data, links, 0);
  EXPECT_EQ(read.test, split.test);
  EXPECT_EQ(read.test_negatives, split.test_negatives);
  EXPECT_THROW(parse_link_split("scaffold", {}), ArgumentError);
}

}  // namespace
}  // namespace edgewise
