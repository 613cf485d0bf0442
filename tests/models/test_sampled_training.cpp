// Sampled mini-batch training and layer-wise inference: blocks of every in-neighbour give the
// full-batch forward and gradients of the seeds exactly (in double, with dropout drawing the same
// masks by graph-wide ids), layer-wise inference gives the
// full-batch logits and hidden rows, sparse feature rows give the dense rows' results, and sampled
// training learns, repeats itself and resumes.
#include "edgewise/models/sampled_training.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/datasets/sbm.hpp"
#include "edgewise/graph/sampling.hpp"
#include "support/gradcheck.hpp"
#include "support/random_graph.hpp"

namespace edgewise {
namespace {

using testing::random_node_graph;

using testing::random_matrix;

NodeClassifierOptions network(Index layers, bool residual_and_norm, double dropout = 0) {
  return {.in_dim = 5, .classes = 3, .layers = layers, .heads = 2, .head_dim = 3, .output_heads = 2,
          .score = ScoreFunction::additive, .dropout = dropout, .attention_dropout = dropout,
          .value_dropout = dropout, .residual = residual_and_norm, .layer_norm = residual_and_norm};
}

// The rows of `all` for `nodes`, in their order.
Matrix<double> rows_of_nodes(const Matrix<double>& all, std::span<const NodeId> nodes) {
  Matrix<double> rows(static_cast<Index>(nodes.size()), all.cols());
  for (std::size_t i = 0; i < nodes.size(); ++i) rows.row(static_cast<Index>(i)) = all.row(nodes[i]);
  return rows;
}

class BlocksTest : public ::testing::TestWithParam<std::tuple<Index, bool, double>> {};

TEST_P(BlocksTest, EveryNeighbourGivesTheFullBatchLogitsAndGradientsOfTheSeeds) {
  const auto [layers, residual_and_norm, dropout] = GetParam();
  const Graph graph = random_node_graph(60, 150, 3);
  Parameters<double> params;
  NodeClassifier<double> model(params, network(layers, residual_and_norm, dropout));
  SplitMix64 rng(4);
  params.values() = random_matrix(params.size(), 1, rng).col(0);
  const Matrix<double> features = random_matrix(graph.num_nodes(), 5, rng);
  const Matrix<double> r = random_matrix(graph.num_nodes(), 3, rng);

  NeighborSampler sampler(graph.in_edges(), std::vector<Index>(static_cast<std::size_t>(layers), kAllNeighbors));
  SampledBlocks batch;
  const std::vector<NodeId> seeds = {7, 3, 41, 0, 59};
  sampler.sample(seeds, 0, batch);

  // Full batch, with a loss on the seeds' rows only. Training draws dropout masks from a generator
  // in the same state for both.
  SplitMix64 full_rng(9), blocks_rng(9);
  Matrix<double> full_logits = model.forward(graph, features, Mode::train(full_rng));
  Matrix<double> dfull = Matrix<double>::Zero(graph.num_nodes(), 3);
  for (const NodeId seed : seeds) dfull.row(seed) = r.row(seed);
  params.zero_grad();
  model.backward(dfull);
  const Vector<double> full_grads = params.grads();

  const Matrix<double> batch_features = rows_of_nodes(features, batch.nodes);
  const Matrix<double>& logits =
      model.forward_blocks(batch.blocks, batch_features, Mode::train(blocks_rng, batch.nodes));
  ASSERT_EQ(logits.rows(), batch.hop_sizes[0]);
  Matrix<double> dblocks = Matrix<double>::Zero(logits.rows(), 3);
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    EXPECT_LT((logits.row(static_cast<Index>(i)) - full_logits.row(seeds[i])).cwiseAbs().maxCoeff(), 1e-12);
    dblocks.row(static_cast<Index>(i)) = r.row(seeds[i]);
  }
  params.zero_grad();
  model.backward_blocks(dblocks);
  EXPECT_LT((params.grads() - full_grads).cwiseAbs().maxCoeff(), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Networks, BlocksTest,
                         ::testing::Values(std::tuple<Index, bool, double>{1, false, 0.0},
                                           std::tuple<Index, bool, double>{2, false, 0.0},
                                           std::tuple<Index, bool, double>{3, true, 0.0},
                                           std::tuple<Index, bool, double>{2, false, 0.4},
                                           std::tuple<Index, bool, double>{3, true, 0.4}),
                         [](const auto& test) {
                           return std::to_string(std::get<0>(test.param)) + "_layers" +
                                  (std::get<1>(test.param) ? "_residual_layer_norm" : "") +
                                  (std::get<2>(test.param) > 0 ? "_dropout" : "");
                         });

// Bags of words as sparse rows give the dense rows' logits and gradients, dropout included: its masks
// are drawn by graph-wide id and column in both.
TEST_P(BlocksTest, SparseFeaturesGiveTheDenseFeaturesLogitsAndGradients) {
  const auto [layers, residual_and_norm, dropout] = GetParam();
  const Graph graph = random_node_graph(60, 150, 3);
  Parameters<float> params;
  NodeClassifier<float> model(params, network(layers, residual_and_norm, dropout));
  SplitMix64 rng(4);
  model.reset_parameters(rng);
  NeighborSampler sampler(graph.in_edges(), std::vector<Index>(static_cast<std::size_t>(layers), 4));
  SampledBlocks batch;
  sampler.sample(std::vector<NodeId>{7, 3, 41, 0, 59}, 0, batch);
  Matrix<float> features = random_matrix(static_cast<Index>(batch.nodes.size()), 5, rng).cast<float>();
  features = (features.array() > 0.5f).select(features, 0.0f);
  const SparseMatrix<float> sparse = features.sparseView();
  const auto run = [&](auto&& forward) {
    SplitMix64 masks(9);
    Matrix<float> logits = forward(Mode::train(masks, batch.nodes));
    params.zero_grad();
    model.backward_blocks(Matrix<float>::Ones(logits.rows(), logits.cols()));
    return std::pair{logits, Vector<float>(params.grads())};
  };
  const auto [dense_logits, dense_grads] =
      run([&](Mode mode) { return model.forward_blocks(batch.blocks, features, mode); });
  const auto [sparse_logits, sparse_grads] =
      run([&](Mode mode) { return model.forward_blocks(batch.blocks, sparse, mode); });
  EXPECT_LT((sparse_logits - dense_logits).cwiseAbs().maxCoeff(), 1e-5f);
  EXPECT_LT((sparse_grads - dense_grads).cwiseAbs().maxCoeff(), 1e-4f);
}

TEST(NodeClassifierBlocksTest, RejectsBlocksThatDoNotFitTheNetwork) {
  const Graph graph = random_node_graph(10, 20, 1);
  Parameters<float> params;
  NodeClassifier<float> model(params, {.in_dim = 2, .classes = 2, .layers = 2});
  const Matrix<float> features = Matrix<float>::Zero(10, 2);
  const std::vector<Graph> one = {graph};
  EXPECT_THROW(model.forward_blocks(one, features, Mode::inference()), ArgumentError);
  const Graph small = random_node_graph(5, 5, 2);
  const std::vector<Graph> growing = {small, graph};
  EXPECT_THROW(model.forward_blocks(growing, Matrix<float>::Zero(5, 2), Mode::inference()), ArgumentError);
}

// The fraction of `nodes` whose largest logit is their label's.
double accuracy_of(const Matrix<float>& logits, const std::vector<Index>& labels, const std::vector<Index>& nodes) {
  Index correct = 0;
  for (const Index node : nodes) {
    Index predicted = 0;
    logits.row(node).maxCoeff(&predicted);
    correct += predicted == labels[node] ? 1 : 0;
  }
  return static_cast<double>(correct) / static_cast<double>(nodes.size());
}

struct Sbm {
  SbmGraph data = stochastic_block_model(
      {.nodes = 600, .communities = 3, .p_in = 0.03, .p_out = 0.003, .feature_dim = 8, .feature_noise = 2.0, .seed = 5});
  Split split = per_class_split(data.labels, {.train_per_class = 40, .val = 100, .test = 300, .seed = 1});
  NodeClassifierOptions options{.in_dim = 8, .classes = 3, .heads = 4, .head_dim = 4, .dropout = 0.2,
                                .attention_dropout = 0.2, .value_dropout = 0.2};
};

TEST(LayerwiseInferenceTest, GivesTheFullBatchLogitsAndHiddenRows) {
  const Sbm sbm;
  for (const Index budget : {Index{1}, Index{50}, Index{1} << 20}) {
    SCOPED_TRACE("inference edges " + std::to_string(budget));
    Parameters<float> params;
    NodeClassifier<float> model(params, sbm.options);
    SplitMix64 rng(2);
    model.reset_parameters(rng);
    const Matrix<float> full = model.forward(sbm.data.graph, sbm.data.features);
    const Matrix<float> hidden = model.hidden();
    const NodeSource source = node_source(sbm.data.graph, sbm.data.features);
    const Matrix<float> logits = layerwise_logits(model, source, {.inference_edges = budget});
    EXPECT_LT((logits - full).cwiseAbs().maxCoeff(), 1e-4);
    EXPECT_LT((layerwise_hidden(model, source, {.inference_edges = budget}) - hidden).cwiseAbs().maxCoeff(), 1e-4);
  }
}

// Features mostly of zeros reach the network as sparse rows, in batches and layer by layer, with the
// full-batch forward's logits.
TEST(LayerwiseInferenceTest, SparseFeaturesGiveTheFullBatchLogits) {
  const Sbm sbm;
  Matrix<float> features = Matrix<float>::Zero(sbm.data.graph.num_nodes(), 40);
  for (Index r = 0; r < features.rows(); ++r) features(r, r % 40) = 1.0f + sbm.data.features(r, 0);  // one word
  const NodeSource source = node_source(sbm.data.graph, features);
  ASSERT_TRUE(source.gather_sparse_features);
  NodeClassifierOptions options = sbm.options;
  options.in_dim = 40;
  Parameters<float> params;
  NodeClassifier<float> model(params, options);
  SplitMix64 rng(2);
  model.reset_parameters(rng);
  const Matrix<float> full = model.forward(sbm.data.graph, features);
  EXPECT_LT((layerwise_logits(model, source, {.inference_edges = 50}) - full).cwiseAbs().maxCoeff(), 1e-4);
  EXPECT_FALSE(node_source(sbm.data.graph, sbm.data.features).gather_sparse_features);  // dense features
}

// With every neighbour and one batch of all training nodes, a sampled step is the full-batch step,
// dropout included: both draw their masks by graph-wide ids from generators in the same state.
TEST(SampledTrainingTest, EveryNeighbourInOneBatchTrainsAsFullBatchDoes) {
  const Sbm sbm;
  const NodeTrainingOptions options{
      .epochs = 15, .learning_rate = 0.01, .patience = 100, .seed = 3, .log = {.level = LogLevel::quiet, .sink = {}}};
  const auto trained = [&](bool sampled) {
    Parameters<float> params;
    NodeClassifier<float> model(params, sbm.options);
    SplitMix64 init(1);
    model.reset_parameters(init);
    if (sampled)
      train_node_classifier_sampled(model, params, node_source(sbm.data.graph, sbm.data.features), sbm.data.labels,
                                    sbm.split, options, {.batch_size = 1024, .fanouts = {kAllNeighbors, kAllNeighbors}});
    else
      train_node_classifier(model, params, sbm.data.graph, sbm.data.features, sbm.data.labels, sbm.split, options);
    return Vector<float>(params.values());
  };
  const Vector<float> full = trained(false), sampled = trained(true);
  // Only the order of float sums differs.
  EXPECT_LT((full - sampled).cwiseAbs().maxCoeff(), 1e-3f);
}

TEST(SampledTrainingTest, LearnsRepeatsItselfAndResumes) {
  const Sbm sbm;
  const NodeSource source = node_source(sbm.data.graph, sbm.data.features);
  const NodeTrainingOptions options{
      .epochs = 30, .learning_rate = 0.01, .weight_decay = 0, .patience = 100, .seed = 3, .log = {.level = LogLevel::quiet, .sink = {}}};
  const SamplingOptions sampling{.batch_size = 32, .fanouts = {5, 3}};
  Parameters<float> params;
  NodeClassifier<float> model(params, sbm.options);
  const auto initialize = [&] {
    SplitMix64 init(1);
    model.reset_parameters(init);
  };
  initialize();
  std::vector<std::pair<Vector<float>, TrainingState>> saved;
  const TrainingCheckpoints every_ten{
      .every = 10, .save = [&](const TrainingState& state) { saved.emplace_back(params.values(), state); }};
  const NodeTrainingResult result =
      train_node_classifier_sampled(model, params, source, sbm.data.labels, sbm.split, options, sampling, {}, every_ten);
  const Vector<float> weights = params.values();
  const double accuracy = accuracy_of(layerwise_logits(model, source), sbm.data.labels, sbm.split.test);
  std::printf("sampled training on a block model: test accuracy %.3f, best epoch %lld\n", accuracy,
              static_cast<long long>(result.best_epoch));
  EXPECT_GE(accuracy, 0.85);
  EXPECT_LT(result.history.back().train_loss, result.history.front().train_loss);

  initialize();
  train_node_classifier_sampled(model, params, source, sbm.data.labels, sbm.split, options, sampling);
  EXPECT_EQ(std::memcmp(params.values().data(), weights.data(), sizeof(float) * weights.size()), 0)
      << "the same seed gives the same weights";
  ASSERT_EQ(saved.size(), 3u);
  initialize();
  params.values() = saved[1].first;
  train_node_classifier_sampled(model, params, source, sbm.data.labels, sbm.split, options, sampling, {},
                                {.resume = &saved[1].second});
  EXPECT_EQ(std::memcmp(params.values().data(), weights.data(), sizeof(float) * weights.size()), 0)
      << "resumed after epoch 20";
}

TEST(SampledTrainingTest, ExactValidationScoresTheWholeGraphLayerByLayer) {
  const Sbm sbm;
  const NodeSource source = node_source(sbm.data.graph, sbm.data.features);
  Parameters<float> params;
  NodeClassifier<float> model(params, sbm.options);
  SplitMix64 init(1);
  model.reset_parameters(init);
  double reported = -1;
  train_node_classifier_sampled(model, params, source, sbm.data.labels, sbm.split,
                                {.epochs = 1, .seed = 2, .log = {.level = LogLevel::quiet, .sink = {}}},
                                {.batch_size = 64, .fanouts = {4, 4}, .exact_validation = true},
                                [&](const NodeEpochReport& report) { reported = report.val_accuracy; });
  EXPECT_DOUBLE_EQ(reported, accuracy_of(layerwise_logits(model, source), sbm.data.labels, sbm.split.val));
}

TEST(SampledTrainingTest, RejectsFanoutsAndBatchSizesThatDoNotFit) {
  const Sbm sbm;
  const NodeSource source = node_source(sbm.data.graph, sbm.data.features);
  Parameters<float> params;
  NodeClassifier<float> model(params, sbm.options);
  EXPECT_THROW(train_node_classifier_sampled(model, params, source, sbm.data.labels, sbm.split, {},
                                             {.fanouts = {5, 5, 5}}),
               ArgumentError);
  EXPECT_THROW(train_node_classifier_sampled(model, params, source, sbm.data.labels, sbm.split, {}, {.batch_size = 0}),
               ArgumentError);
  const std::vector<Index> short_labels(10, 0);
  EXPECT_THROW(train_node_classifier_sampled(model, params, source, short_labels, sbm.split), ArgumentError);
}

TEST(SampledTrainingTest, DefaultFanoutsAreFifteenThenTen) {
  EXPECT_EQ(default_fanouts(1), (std::vector<Index>{15}));
  EXPECT_EQ(default_fanouts(3), (std::vector<Index>{15, 10, 10}));
}

}  // namespace
}  // namespace edgewise
