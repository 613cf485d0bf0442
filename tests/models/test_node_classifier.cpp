// The node-level network: finite-difference checks in double, and full-batch training on a planted
// partition graph (accuracy, reproducibility, best weights kept).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/models/model_file.hpp"
#include "edgewise/models/node_training.hpp"
#include "support/gradcheck.hpp"

namespace edgewise {
namespace {

using testing::gradient_error;
using testing::random_matrix;

// Seven nodes with self-loops: a path, a triangle, a node with only its self-loop, and one edge in
// a single direction, so in-degrees range from 1 to 3.
Graph small_graph() {
  const std::vector<std::pair<Index, Index>> edges = {{0, 1}, {1, 2}, {2, 3}, {4, 5}, {5, 6}, {6, 4}};
  Graph symmetric = Graph::from_pairs(7, edges, {.add_self_loops = true, .symmetrize = true});
  std::vector<std::pair<Index, Index>> pairs = symmetric.edge_pairs();
  pairs.emplace_back(3, 6);  // 3 -> 6 only
  return Graph::from_pairs(7, pairs);
}

NodeClassifierOptions small_options(ScoreFunction score, bool residual_and_norm) {
  NodeClassifierOptions o;
  o.in_dim = 5;
  o.classes = 3;
  o.layers = residual_and_norm ? 3 : 2;
  o.heads = 2;
  o.head_dim = 3;
  o.output_heads = 2;
  o.score = score;
  o.dropout = 0.3;
  o.attention_dropout = 0.3;
  o.residual = residual_and_norm;
  o.layer_norm = residual_and_norm;
  return o;
}

// The relative error of a network's parameter gradients against central differences of
// sum(logits * r), at random parameters (biases and LayerNorm's gamma and beta included) and
// features, these given as a SparseMatrix when `sparse`.
double gradient_error_of(const NodeClassifierOptions& options, std::uint64_t seed, bool sparse) {
  const Graph graph = small_graph();
  Parameters<double> params;
  NodeClassifier<double> network(params, options);
  SplitMix64 rng(seed);
  params.values() = random_matrix(params.size(), 1, rng).col(0);
  const Matrix<double> features = random_matrix(graph.num_nodes(), 5, rng);
  const SparseMatrix<double> sparse_features = features.sparseView();
  const Matrix<double> r = random_matrix(graph.num_nodes(), 3, rng);
  // The same seed every call: the same dropout masks, so the loss is a smooth function.
  const auto loss = [&] {
    SplitMix64 dropout_rng(23);
    const Matrix<double>& logits = sparse ? network.forward(graph, sparse_features, Mode::train(dropout_rng))
                                          : network.forward(graph, features, Mode::train(dropout_rng));
    return logits.cwiseProduct(r).sum();
  };
  loss();
  params.zero_grad();
  network.backward(r);
  const Vector<double> analytic = params.grads();
  return gradient_error("parameters", params.values().data(), analytic.data(), params.size(), loss);
}

class NodeClassifierGradientTest : public ::testing::TestWithParam<std::tuple<ScoreFunction, bool>> {};

TEST_P(NodeClassifierGradientTest, MatchesFiniteDifferences) {
  const auto [score, residual_and_norm] = GetParam();
  // Central differences at step 1e-6 carry about 1e-9 of rounding and truncation error: 1e-6 of the
  // 1e-3 floor of the relative error.
  EXPECT_LT(gradient_error_of(small_options(score, residual_and_norm), 5, false), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Configurations, NodeClassifierGradientTest,
                         ::testing::Combine(::testing::Values(ScoreFunction::additive, ScoreFunction::scaled_dot,
                                                              ScoreFunction::gatv2),
                                            ::testing::Bool()),
                         [](const auto& test) {
                           return to_string(std::get<0>(test.param)) +
                                  (std::get<1>(test.param) ? "_residual_layer_norm" : "_plain");
                         });

// One layer reads the features directly, sparse ones as they are, and passes them no gradient.
TEST(NodeClassifierTest, OneLayerGradientsMatchFiniteDifferences) {
  NodeClassifierOptions options = small_options(ScoreFunction::additive, false);
  options.layers = 1;
  EXPECT_LT(gradient_error_of(options, 7, true), 1e-5);
  EXPECT_LT(gradient_error_of(options, 7, false), 1e-5);
}

TEST(NodeClassifierTest, SparseFeaturesGiveTheDenseLogitsAndGradients) {
  const Graph graph = small_graph();
  for (const bool residual_and_norm : {false, true}) {
    for (const Index layers : {Index{1}, Index{2}}) {
      NodeClassifierOptions options = small_options(ScoreFunction::additive, residual_and_norm);
      if (!residual_and_norm) options.layers = layers;
      Parameters<double> params;
      NodeClassifier<double> network(params, options);
      SplitMix64 rng(6);
      params.values() = random_matrix(params.size(), 1, rng).col(0);
      Matrix<double> features = random_matrix(graph.num_nodes(), 5, rng);
      for (Index k = 0; k < features.size(); ++k)
        if (k % 2 == 1) features.data()[k] = 0.0;
      const SparseMatrix<double> sparse = features.sparseView();
      const Matrix<double> r = random_matrix(graph.num_nodes(), 3, rng);

      const auto run = [&](const auto& input) {
        SplitMix64 dropout_rng(23);
        const Matrix<double> logits = network.forward(graph, input, Mode::train(dropout_rng));
        params.zero_grad();
        network.backward(r);
        return std::pair{logits, Vector<double>(params.grads())};
      };
      const auto [dense_logits, dense_grads] = run(features);
      const auto [sparse_logits, sparse_grads] = run(sparse);
      const std::string where = "layers " + std::to_string(options.layers);
      EXPECT_LT((sparse_logits - dense_logits).cwiseAbs().maxCoeff(), 1e-12) << where;
      EXPECT_LT((sparse_grads - dense_grads).cwiseAbs().maxCoeff(), 1e-12) << where;
    }
  }
}

// The first layer's weight gradient splits the features among the threads by their entries;
// features of another pattern, or not compressed, must still give the dense gradients.
TEST(NodeClassifierTest, SparseFeaturesOfAnotherPatternOrUncompressedGiveTheDenseGradients) {
  const Graph graph = small_graph();
  NodeClassifierOptions options = small_options(ScoreFunction::additive, false);
  options.layers = 2;
  Parameters<double> params;
  NodeClassifier<double> network(params, options);
  SplitMix64 rng(8);
  params.values() = random_matrix(params.size(), 1, rng).col(0);
  const Matrix<double> r = random_matrix(graph.num_nodes(), 3, rng);
  const auto gradients = [&](const auto& input) {
    SplitMix64 dropout_rng(29);
    network.forward(graph, input, Mode::train(dropout_rng));
    params.zero_grad();
    network.backward(r);
    return Vector<double>(params.grads());
  };
  for (const Index zero_every : {2, 3}) {
    Matrix<double> features = random_matrix(graph.num_nodes(), 5, rng);
    for (Index k = 0; k < features.size(); ++k)
      if (k % zero_every == 1) features.data()[k] = 0.0;
    SparseMatrix<double> sparse = features.sparseView();
    const Vector<double> dense_grads = gradients(features);
    EXPECT_LT((gradients(sparse) - dense_grads).cwiseAbs().maxCoeff(), 1e-12) << "zero every " << zero_every;
    sparse.uncompress();
    ASSERT_FALSE(sparse.isCompressed());
    EXPECT_LT((gradients(sparse) - dense_grads).cwiseAbs().maxCoeff(), 1e-12) << "uncompressed, " << zero_every;
  }
}

// Skewed features (one in every row, the others rare) split unevenly among threads; each feature's
// gradient still sums its rows in node order, so every thread count gives the same bits.
TEST(NodeClassifierTest, SparseGradientsDoNotDependOnTheThreadCount) {
  const Graph graph = small_graph();
  NodeClassifierOptions options = small_options(ScoreFunction::additive, false);
  Parameters<double> params;
  NodeClassifier<double> network(params, options);
  SplitMix64 rng(9);
  params.values() = random_matrix(params.size(), 1, rng).col(0);
  Matrix<double> features = random_matrix(graph.num_nodes(), 5, rng);
  for (Index i = 0; i < features.rows(); ++i)
    for (Index c = 1; c < features.cols(); ++c)
      if ((i + c) % 4 != 0) features(i, c) = 0.0;
  const SparseMatrix<double> sparse = features.sparseView();
  const Matrix<double> r = random_matrix(graph.num_nodes(), 3, rng);
  const auto gradients = [&](int threads) {
    set_num_threads(threads);
    SplitMix64 dropout_rng(31);
    network.forward(graph, sparse, Mode::train(dropout_rng));
    params.zero_grad();
    network.backward(r);
    set_num_threads(0);
    return Vector<double>(params.grads());
  };
  const Vector<double> one = gradients(1);
  for (const int threads : {2, 3, 7}) EXPECT_TRUE(gradients(threads) == one) << threads << " threads";
}

TEST(NodeClassifierTest, DefaultsFollowTheGatRecipe) {
  NodeClassifierOptions o;
  o.in_dim = 1433;
  o.classes = 7;
  Parameters<float> params;
  const NodeClassifier<float> network(params, o);
  EXPECT_EQ(network.hidden_dim(), 64);
  // Layer 1: W [1433, 64], a_src and a_dst [8, 8], bias [64]; layer 2: W [64, 7], a_src and a_dst
  // [1, 7], bias [7]. PyTorch Geometric's GAT on Cora has the same 92 373 parameters.
  EXPECT_EQ(params.size(), 1433 * 64 + 2 * 64 + 64 + 64 * 7 + 2 * 7 + 7);
}

TEST(NodeClassifierTest, OptionsRoundTripThroughJson) {
  NodeClassifierOptions o = small_options(ScoreFunction::gatv2, true);
  o.dropout = 0.25;
  const nlohmann::json j = o;
  EXPECT_FALSE(j.contains("output_score"));  // files of networks without one stay as they were
  const auto back = j.get<NodeClassifierOptions>();
  EXPECT_EQ(nlohmann::json(back), j);
  EXPECT_EQ(back.score, ScoreFunction::gatv2);
  EXPECT_FALSE(back.output_score.has_value());
  EXPECT_TRUE(back.residual);
  o.output_score = ScoreFunction::scaled_dot;
  EXPECT_EQ(nlohmann::json(o).get<NodeClassifierOptions>().output_score, ScoreFunction::scaled_dot);
}

// The output layer scores by its own function, the hidden layers by theirs: its query and key
// projections are the only parameters added, and the gradients still match.
TEST(NodeClassifierTest, OutputLayerScoresByItsOwnFunction) {
  NodeClassifierOptions options = small_options(ScoreFunction::additive, false);
  options.output_score = ScoreFunction::scaled_dot;
  EXPECT_LT(gradient_error_of(options, 11, false), 1e-5);
  EXPECT_LT(gradient_error_of(options, 11, true), 1e-5);

  Parameters<double> additive_params, mixed_params;
  const NodeClassifierOptions additive = small_options(ScoreFunction::additive, false);
  NodeClassifier<double> additive_network(additive_params, additive);
  NodeClassifier<double> mixed_network(mixed_params, options);
  // The output layer's input is 2 heads of 3; it loses its 2 heads' a_src and a_dst of 3 classes and
  // gains a query and a key projection as wide as its values.
  const Index output_width = options.output_heads * options.classes, input_width = options.heads * options.head_dim;
  EXPECT_EQ(mixed_params.size(), additive_params.size() - 2 * output_width + 2 * input_width * output_width);
}

TEST(NodeClassifierTest, ReloadsFromAModelFile) {
  const Graph graph = small_graph();
  SplitMix64 rng(6);
  const Matrix<float> features = random_matrix(graph.num_nodes(), 5, rng).cast<float>();
  Parameters<float> params;
  NodeClassifier<float> network(params, small_options(ScoreFunction::gatv2, true));
  network.reset_parameters(rng);
  const std::string path =
      (std::filesystem::temp_directory_path() / ("edgewise_node_classifier_" + std::to_string(::getpid()))).string();
  save_model(path, {{"node_classifier", network.options()}}, params);
  const ModelFile file = load_model(path);
  std::filesystem::remove(path);

  Parameters<float> loaded_params;
  NodeClassifier<float> loaded(loaded_params, file.config.at("node_classifier").get<NodeClassifierOptions>());
  restore_parameters(loaded_params, file.parameters, path);
  EXPECT_EQ(predict_node_probabilities(loaded, graph, features), predict_node_probabilities(network, graph, features));
}

TEST(NodeClassifierTest, RejectsBadOptions) {
  Parameters<float> params;
  NodeClassifierOptions o = small_options(ScoreFunction::additive, false);
  o.residual = true;  // two layers: no two hidden layers of equal width
  EXPECT_THROW(NodeClassifier<float>(params, o), ArgumentError);
  o = small_options(ScoreFunction::additive, false);
  o.classes = 0;
  EXPECT_THROW(NodeClassifier<float>(params, o), ArgumentError);
}

TEST(NodeClassifierTest, HiddenIsTheInputOfTheOutputLayer) {
  const Graph graph = small_graph();
  SplitMix64 rng(3);
  const Matrix<float> features = random_matrix(graph.num_nodes(), 5, rng).cast<float>();
  NodeClassifierOptions o = small_options(ScoreFunction::additive, false);

  Parameters<float> params;
  NodeClassifier<float> network(params, o);
  EXPECT_THROW(network.hidden(), ArgumentError);
  network.reset_parameters(rng);
  const Matrix<float> embeddings = embed_nodes(network, graph, features);
  EXPECT_EQ(embeddings.rows(), graph.num_nodes());
  EXPECT_EQ(embeddings.cols(), 6);

  o.layers = 1;
  Parameters<float> single_params;
  NodeClassifier<float> single(single_params, o);
  single.reset_parameters(rng);
  EXPECT_EQ(embed_nodes(single, graph, features), features);
}

TEST(NodeClassifierTest, ProbabilitiesSumToOne) {
  const Graph graph = small_graph();
  SplitMix64 rng(8);
  const Matrix<float> features = (10.0 * random_matrix(graph.num_nodes(), 5, rng)).cast<float>();
  Parameters<float> params;
  NodeClassifier<float> network(params, small_options(ScoreFunction::scaled_dot, true));
  network.reset_parameters(rng);
  const Matrix<float> p = predict_node_probabilities(network, graph, features);
  ASSERT_EQ(p.rows(), graph.num_nodes());
  ASSERT_EQ(p.cols(), 3);
  EXPECT_GE(p.minCoeff(), 0.0f);
  for (Index i = 0; i < p.rows(); ++i) EXPECT_NEAR(p.row(i).sum(), 1.0f, 1e-6f) << "node " << i;
  EXPECT_EQ(predict_node_probabilities(network, graph, features), p) << "inference is deterministic";
}

// Three communities of 40 nodes, edges inside with probability 0.15 and across with 0.01; features
// are the one-hot class plus Gaussian noise of standard deviation 1, so features alone classify
// poorly and the neighbourhood has to help. 5 training nodes per class, 30 validation, 75 test.
struct PlantedPartition {
  static constexpr Index kClasses = 3, kPerClass = 40, kFeatures = 6;
  Graph graph;
  Matrix<float> features;
  std::vector<Index> labels;
  Split split;

  PlantedPartition() {
    SplitMix64 rng(2024);
    const Index n = kClasses * kPerClass;
    for (Index i = 0; i < n; ++i) labels.push_back(i / kPerClass);
    std::vector<std::pair<Index, Index>> edges;
    for (Index i = 0; i < n; ++i)
      for (Index j = i + 1; j < n; ++j)
        if (rng.uniform() < (labels[i] == labels[j] ? 0.15 : 0.01)) edges.emplace_back(i, j);
    graph = Graph::from_pairs(n, edges, {.add_self_loops = true, .symmetrize = true});
    features.resize(n, kFeatures);
    for (Index i = 0; i < n; ++i)
      for (Index f = 0; f < kFeatures; ++f)
        features(i, f) = static_cast<float>((f == labels[i] ? 1.0 : 0.0) + rng.normal());
    split = per_class_split(labels, {.train_per_class = 5, .val = 30, .test = 75, .seed = 7});
  }

  NodeClassifierOptions options() const {
    NodeClassifierOptions o;
    o.in_dim = kFeatures;
    o.classes = kClasses;
    return o;
  }
};

TEST(NodeTrainingTest, LearnsAPlantedPartition) {
  const PlantedPartition data;
  Parameters<float> params;
  NodeClassifier<float> model(params, data.options());
  SplitMix64 rng(1);
  model.reset_parameters(rng);
  const auto start = std::chrono::steady_clock::now();
  const NodeTrainingResult result =
      train_node_classifier(model, params, data.graph, data.features, data.labels, data.split, {.epochs = 300});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const NodeEvaluation test = evaluate_node_classifier(model, data.graph, data.features, data.labels, data.split.test);
  std::printf("planted partition: test accuracy %.3f, macro-F1 %.3f, best epoch %lld of %zu, %.2f s\n",
              test.metrics.accuracy, test.metrics.macro_f1, static_cast<long long>(result.best_epoch),
              result.history.size(), seconds);
  EXPECT_EQ(test.metrics.count, 75);
  EXPECT_GE(test.metrics.accuracy, 0.9);
  EXPECT_LT(result.history.back().train_loss, result.history.front().train_loss);
}

TEST(NodeTrainingTest, LogsEachEpochThroughTheSinkAtItsLevel) {
  const PlantedPartition data;
  for (const LogLevel level : {LogLevel::quiet, LogLevel::normal, LogLevel::verbose}) {
    Parameters<float> params;
    NodeClassifier<float> model(params, data.options());
    SplitMix64 rng(1);
    model.reset_parameters(rng);
    std::vector<std::string> lines;
    std::vector<EpochProgress> progress;
    NodeTrainingOptions options{.epochs = 40, .patience = 2};
    options.log = {.level = level, .sink = [&](const LogMessage& m) {
                     if (m.progress) progress.push_back(*m.progress);
                     lines.emplace_back(m.text);
                   }};
    const NodeTrainingResult result =
        train_node_classifier(model, params, data.graph, data.features, data.labels, data.split, options);
    const std::size_t epochs = result.history.size();
    if (level == LogLevel::quiet) {
      EXPECT_TRUE(lines.empty());
      continue;
    }
    ASSERT_EQ(progress.size(), epochs);
    for (std::size_t i = 0; i < epochs; ++i) {
      const NodeEpochReport& report = result.history[i];
      EXPECT_EQ(progress[i].epoch, report.epoch);
      EXPECT_EQ(progress[i].epochs, 40);
      EXPECT_EQ(progress[i].metric, "accuracy");
      EXPECT_EQ(progress[i].validation, report.val_accuracy);
      EXPECT_EQ(progress[i].train_loss, report.train_loss);
    }
    const std::size_t first_epoch_line = level == LogLevel::verbose ? 1 : 0;
    ASSERT_GE(lines.size(), first_epoch_line + epochs);
    EXPECT_EQ(lines[first_epoch_line], node_epoch_line(result.history.front()));
    EXPECT_TRUE(lines[first_epoch_line].starts_with("epoch    1  loss ")) << lines[first_epoch_line];
    if (level == LogLevel::normal) {
      EXPECT_EQ(lines.size(), epochs);
    }
    if (level == LogLevel::verbose) {
      EXPECT_EQ(lines.front(), "training on 15 nodes, validating on 30 by accuracy; at most 40 epochs, patience 2");
      if (epochs < 40) {
        EXPECT_TRUE(lines.back().starts_with("stopping early: no improvement on the validation nodes for 2 epochs"))
            << lines.back();
      } else {
        EXPECT_EQ(lines.back(), node_epoch_line(result.history.back()));
      }
    }
  }
}

TEST(NodeTrainingTest, SameSeedGivesTheSameWeights) {
  const PlantedPartition data;
  const auto train = [&](std::uint64_t seed) {
    Parameters<float> params;
    NodeClassifier<float> model(params, data.options());
    SplitMix64 rng(1);
    model.reset_parameters(rng);
    train_node_classifier(model, params, data.graph, data.features, data.labels, data.split,
                          {.epochs = 30, .seed = seed});
    return Vector<float>(params.values());
  };
  const Vector<float> first = train(11);
  EXPECT_EQ(first, train(11));
  EXPECT_NE(first, train(12)) << "the seed drives the dropout masks";
}

// The GAT reference code's rule: weights are kept at an epoch whose validation accuracy and loss both
// reach the best so far; training stops `patience` epochs after the last epoch that reached either.
TEST(NodeTrainingTest, KeepsTheWeightsOfTheLastEpochBestInAccuracyAndLoss) {
  PlantedPartition data;
  // Wrong labels on a third of the validation nodes: the validation loss turns up as the network grows
  // confident, so training stops early.
  for (std::size_t k = 0; k < data.split.val.size(); k += 3) {
    Index& label = data.labels[static_cast<std::size_t>(data.split.val[k])];
    label = (label + 1) % PlantedPartition::kClasses;
  }
  Parameters<float> params;
  NodeClassifier<float> model(params, data.options());
  SplitMix64 rng(3);
  model.reset_parameters(rng);
  Index reported = 0;
  const NodeTrainingResult result =
      train_node_classifier(model, params, data.graph, data.features, data.labels, data.split,
                            {.epochs = 400, .patience = 10}, [&](const NodeEpochReport&) { ++reported; });
  ASSERT_GT(result.best_epoch, 0);
  EXPECT_EQ(reported, static_cast<Index>(result.history.size()));

  double best_accuracy = -1, best_loss = std::numeric_limits<double>::infinity();
  Index kept = 0, last_progress = 0;
  for (const NodeEpochReport& epoch : result.history) {
    const bool accuracy_at_best = epoch.val_accuracy >= best_accuracy, loss_at_best = epoch.val_loss <= best_loss;
    EXPECT_EQ(epoch.improved, accuracy_at_best && loss_at_best) << "epoch " << epoch.epoch;
    if (accuracy_at_best && loss_at_best) kept = epoch.epoch;
    if (accuracy_at_best || loss_at_best) last_progress = epoch.epoch;
    best_accuracy = std::max(best_accuracy, epoch.val_accuracy);
    best_loss = std::min(best_loss, epoch.val_loss);
  }
  EXPECT_EQ(result.best_epoch, kept);
  EXPECT_EQ(static_cast<Index>(result.history.size()), std::min<Index>(400, last_progress + 10));
  ASSERT_LT(static_cast<Index>(result.history.size()), 400) << "training did not stop early";

  const NodeEpochReport& best = result.history[static_cast<std::size_t>(result.best_epoch - 1)];
  EXPECT_EQ(best.val_accuracy, result.best_val_accuracy);
  EXPECT_EQ(best.val_loss, result.best_val_loss);
  const NodeEvaluation val = evaluate_node_classifier(model, data.graph, data.features, data.labels, data.split.val);
  EXPECT_EQ(val.metrics.accuracy, result.best_val_accuracy);
  EXPECT_DOUBLE_EQ(val.loss, result.best_val_loss);
}

TEST(NodeTrainingTest, WithoutValidationNodesKeepsTheLastEpoch) {
  PlantedPartition data;
  data.split.val.clear();
  Parameters<float> params;
  NodeClassifier<float> model(params, data.options());
  SplitMix64 rng(1);
  model.reset_parameters(rng);
  const NodeTrainingResult result = train_node_classifier(model, params, data.graph, data.features, data.labels,
                                                          data.split, {.epochs = 15, .patience = 5});
  EXPECT_EQ(result.history.size(), 15u);
  EXPECT_EQ(result.best_epoch, 15);
  EXPECT_TRUE(std::isnan(result.best_val_accuracy));
  EXPECT_TRUE(std::isnan(result.history.back().val_loss));
}

TEST(NodeTrainingTest, RejectsUnlabeledTrainingNodes) {
  PlantedPartition data;
  data.labels[static_cast<std::size_t>(data.split.train.front())] = -1;
  Parameters<float> params;
  NodeClassifier<float> model(params, data.options());
  EXPECT_THROW(train_node_classifier(model, params, data.graph, data.features, data.labels, data.split),
               ArgumentError);
}

}  // namespace
}  // namespace edgewise
