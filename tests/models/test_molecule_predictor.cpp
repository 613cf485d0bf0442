// Finite-difference checks of the readouts and of the whole graph-level network, in double.
#include <gtest/gtest.h>

#include <cmath>

#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "edgewise/core/error.hpp"
#include "edgewise/models/molecule_predictor.hpp"
#include "support/gradcheck.hpp"
#include "support/joined_graphs.hpp"

namespace edgewise {
namespace {

using testing::gradient_error;
using testing::random_matrix;

// Three graphs (5, 1 and 3 nodes) with self-loops, and an empty fourth graph.
struct SmallBatch {
  std::vector<Graph> graphs;
  GraphBatch batch;

  SmallBatch() {
    const GraphOptions loops{.add_self_loops = true, .symmetrize = true};
    graphs.push_back(Graph::from_pairs(5, std::vector<std::pair<Index, Index>>{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {1, 4}}, loops));
    graphs.push_back(Graph::from_pairs(1, {}, loops));
    graphs.push_back(Graph::from_pairs(3, std::vector<std::pair<Index, Index>>{{0, 1}, {0, 2}}, loops));
    graphs.push_back(Graph::from_pairs(0, {}));
    batch = testing::join_graphs(graphs);
  }
};

class ReadoutGradientTest : public ::testing::TestWithParam<ReadoutKind> {};

TEST_P(ReadoutGradientTest, MatchesFiniteDifferences) {
  const SmallBatch b;
  Parameters<double> params;
  Readout<double> readout(params, "readout", 4, GetParam());
  SplitMix64 rng(2);
  readout.reset_parameters(rng);
  Matrix<double> h = random_matrix(b.batch.num_nodes(), 4, rng);
  const Matrix<double> r = random_matrix(b.batch.num_graphs(), readout_width(GetParam(), 4), rng);
  const auto loss = [&] { return readout.forward(b.batch, h).cwiseProduct(r).sum(); };
  loss();
  const Matrix<double> dh = readout.backward(r);
  const Vector<double> analytic = params.grads();
  EXPECT_LT(gradient_error("h", h.data(), dh.data(), h.size(), loss), 1e-6);
  if (params.size() > 0) {
    EXPECT_LT(gradient_error("gate", params.values().data(), analytic.data(), params.size(), loss), 1e-6);
  }
  EXPECT_EQ(readout.forward(b.batch, h).row(3).squaredNorm(), 0.0) << "the empty graph pools to zeros";
}

INSTANTIATE_TEST_SUITE_P(AllKinds, ReadoutGradientTest,
                         ::testing::Values(ReadoutKind::sum, ReadoutKind::mean, ReadoutKind::max, ReadoutKind::attention,
                                           ReadoutKind::mean_sum),
                         [](const auto& test) { return to_string(test.param); });

TEST(ReadoutTest, PoolsByHand) {
  const SmallBatch b;
  Parameters<double> params;
  Matrix<double> h = Matrix<double>::Zero(b.batch.num_nodes(), 1);
  for (Index i = 0; i < h.rows(); ++i) h(i, 0) = static_cast<double>(i);  // graph 0: 0..4, 1: 5, 2: 6..8
  Readout<double> sum(params, "s", 1, ReadoutKind::sum), mean(params, "m", 1, ReadoutKind::mean),
      max(params, "x", 1, ReadoutKind::max);
  EXPECT_EQ(sum.forward(b.batch, h).col(0), Eigen::Vector4d(10, 5, 21, 0));
  EXPECT_EQ(mean.forward(b.batch, h).col(0), Eigen::Vector4d(2, 5, 7, 0));
  EXPECT_EQ(max.forward(b.batch, h).col(0), Eigen::Vector4d(4, 5, 8, 0));
}

// A small network: 3 node features, states 4 wide in 2 heads, a head 5 wide.
MoleculePredictorOptions small_options() {
  MoleculePredictorOptions o;
  o.node_dim = 3;
  o.hidden = 4;
  o.heads = 2;
  o.head_hidden = 5;
  return o;
}

class MoleculePredictorGradientTest : public ::testing::TestWithParam<std::tuple<ScoreFunction, ReadoutKind>> {};

TEST_P(MoleculePredictorGradientTest, MatchesFiniteDifferences) {
  const auto [score, readout] = GetParam();
  const SmallBatch b;
  MoleculePredictorOptions o = small_options();
  o.edge_dim = 2;
  o.tasks = 2;
  o.layers = 2;
  o.score = score;
  o.readout = readout;
  o.dropout = 0.2;
  o.graph_dim = readout == ReadoutKind::mean || readout == ReadoutKind::attention || readout == ReadoutKind::mean_sum
                    ? 3
                    : 0;  // both paths
  if (o.graph_dim > 0) o.graph_feature_scaling = {{0.1, -0.2, 0.3}, {2.0, 0.5, 1.0}};
  Parameters<double> params;
  MoleculePredictor<double> network(params, o);
  SplitMix64 rng(4);
  // Random values everywhere, biases included: with zero biases the empty graph would put the
  // head's ReLU exactly on its kink, where finite differences are meaningless.
  params.values() = random_matrix(params.size(), 1, rng).col(0);
  const Matrix<double> nodes = random_matrix(b.batch.num_nodes(), 3, rng);
  const Matrix<double> edges = random_matrix(b.batch.num_edges(), 2, rng);
  const Matrix<double> graph_features = random_matrix(b.batch.num_graphs(), o.graph_dim, rng);
  const Matrix<double> r = random_matrix(b.batch.num_graphs(), 2, rng);
  const auto loss = [&] {
    SplitMix64 dropout_rng(17);
    return network.forward(b.batch, nodes, &edges, &graph_features, Mode::train(dropout_rng)).cwiseProduct(r).sum();
  };
  loss();
  params.zero_grad();
  network.backward(r);
  const Vector<double> analytic = params.grads();
  // Looser than the per-layer checks: the loss sums two layers, a readout and a head, so rounding
  // in the central difference reaches about 1e-9 absolute, 1e-6 relative to the smallest gradients.
  EXPECT_LT(gradient_error("parameters", params.values().data(), analytic.data(), params.size(), loss, 1e-6, 1e-5),
            1e-5);
}

INSTANTIATE_TEST_SUITE_P(Configurations, MoleculePredictorGradientTest,
                         ::testing::Values(std::tuple{ScoreFunction::scaled_dot, ReadoutKind::sum},
                                           std::tuple{ScoreFunction::additive, ReadoutKind::mean},
                                           std::tuple{ScoreFunction::gatv2, ReadoutKind::attention},
                                           std::tuple{ScoreFunction::scaled_dot, ReadoutKind::max},
                                           std::tuple{ScoreFunction::scaled_dot, ReadoutKind::mean_sum}),
                         [](const auto& test) {
                           return to_string(std::get<0>(test.param)) + "_" + to_string(std::get<1>(test.param));
                         });

TEST(MoleculePredictorTest, RejectsHiddenNotDivisibleByHeads) {
  MoleculePredictorOptions o;
  o.node_dim = 3;
  o.hidden = 10;
  o.heads = 4;
  Parameters<float> params;
  EXPECT_THROW(MoleculePredictor<float>(params, o), ArgumentError);
}

// A network reading two graph features, its weights random.
struct FeatureNetwork {
  MoleculePredictorOptions options = small_options();
  Parameters<double> params;
  std::unique_ptr<MoleculePredictor<double>> network;

  explicit FeatureNetwork(ColumnScaling scaling, GraphFeatureBound bound = {}) {
    options.layers = 1;
    options.graph_dim = 2;
    options.graph_feature_scaling = std::move(scaling);
    options.graph_feature_bound = bound;
    network = std::make_unique<MoleculePredictor<double>>(params, options);
    SplitMix64 rng(8);
    params.values() = random_matrix(params.size(), 1, rng).col(0);
  }
};

TEST(MoleculePredictorTest, StandardizesAndBoundsGraphFeatures) {
  const SmallBatch b;
  SplitMix64 rng(6);
  const Matrix<double> nodes = random_matrix(b.batch.num_nodes(), 3, rng);
  Matrix<double> raw(4, 2), by_hand(4, 2), legacy(4, 2);
  // Column 0: shift 10, scale 2. Column 1: shift -1, scale 0.5; its last two values lie 10 and 30
  // standard deviations out: the first passes unchanged, the second grows as 20 + log(1 + 10).
  raw << 10, -1, 12, -0.5, 7, 4, 20, 14;
  by_hand << 0, 0, 1, 1, -1.5, 10, 5, 20 + std::log1p(10.0);
  legacy << 0, 0, 1, 1, -1.5, 6, 5, 6;  // files that record no bound clip at 6
  FeatureNetwork scaled({{10.0, -1.0}, {2.0, 0.5}});
  FeatureNetwork plain({});
  ASSERT_EQ(scaled.params.values(), plain.params.values());
  const Matrix<double> expected = plain.network->forward(b.batch, nodes, nullptr, &by_hand);
  EXPECT_TRUE(scaled.network->forward(b.batch, nodes, nullptr, &raw).isApprox(expected, 1e-12));

  plain.network->set_graph_feature_scaling({{10.0, -1.0}, {2.0, 0.5}});
  EXPECT_TRUE(plain.network->forward(b.batch, nodes, nullptr, &raw).isApprox(expected, 1e-12));
  EXPECT_EQ(plain.network->options().graph_feature_scaling.shift, (std::vector<double>{10.0, -1.0}));

  FeatureNetwork clipping({{10.0, -1.0}, {2.0, 0.5}}, kLegacyGraphFeatureBound);
  EXPECT_TRUE(clipping.network->forward(b.batch, nodes, nullptr, &raw)
                  .isApprox(FeatureNetwork({}).network->forward(b.batch, nodes, nullptr, &legacy), 1e-12));
}

TEST(MoleculePredictorTest, RefusesAGraphFeatureScalingOfAnotherWidth) {
  FeatureNetwork network({});
  EXPECT_THROW(network.network->set_graph_feature_scaling(ColumnScaling::identity(3)), ArgumentError);
  MoleculePredictorOptions options = network.options;
  options.graph_feature_scaling = ColumnScaling::identity(1);
  Parameters<float> params;
  EXPECT_THROW(MoleculePredictor<float>(params, options), ArgumentError);
}

TEST(MoleculePredictorTest, OptionsJsonKeepsTheGraphFeatureScalingAndOlderFilesHaveNone) {
  MoleculePredictorOptions options;
  options.graph_dim = 2;
  options.graph_feature_scaling = {{1.5, -2.0}, {0.25, 3.0}};
  const nlohmann::json j = options;
  const auto restored = j.get<MoleculePredictorOptions>();
  EXPECT_EQ(restored.graph_feature_scaling.shift, options.graph_feature_scaling.shift);
  EXPECT_EQ(restored.graph_feature_scaling.scale, options.graph_feature_scaling.scale);
  EXPECT_EQ(restored.graph_feature_bound, GraphFeatureBound{});
  nlohmann::json older = j;
  older.erase("graph_feature_scaling");
  older.erase("graph_feature_bound");
  EXPECT_EQ(older.get<MoleculePredictorOptions>().graph_feature_scaling.columns(), 0);
  EXPECT_EQ(older.get<MoleculePredictorOptions>().graph_feature_bound, kLegacyGraphFeatureBound);
}

}  // namespace
}  // namespace edgewise
