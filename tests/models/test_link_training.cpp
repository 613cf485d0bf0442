// Link prediction: the scorers' loss against hand-computed values and finite differences, the link
// metrics by hand, and full-batch training on a planted partition.
#include "edgewise/models/link_training.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "edgewise/core/error.hpp"
#include "edgewise/datasets/sbm.hpp"
#include "support/quiet_log.hpp"

namespace edgewise {
namespace {

Matrix<float> three_embeddings() {
  Matrix<float> z(3, 2);
  z << 1, 2, 0.5f, -1, -2, 0.25f;
  return z;
}

TEST(LinkScoresTest, AreDotProductsOfTheEnds) {
  const std::vector<NodePair> pairs = {{0, 1}, {1, 2}, {0, 2}};
  EXPECT_EQ(link_scores(three_embeddings(), pairs), (std::vector<float>{-1.5f, -1.25f, -1.5f}));
  EXPECT_THROW(link_scores(three_embeddings(), std::vector<NodePair>{{0, 3}}), ArgumentError);
}

// The dot-product scorer, which has no weights.
LinkScorer dot_scorer(Index dim) {
  static Parameters<float> none;
  return LinkScorer(none, PairScorer::dot, dim);
}

TEST(LinkLossTest, HandComputed) {
  // A link scored -1.5 and a non-link scored -1.25: (softplus(-1.5) + 1.5 + softplus(-1.25)) / 2.
  Matrix<float> dz;
  LinkScorer dot = dot_scorer(2);
  const std::vector<NodePair> links = {{0, 1}}, non_links = {{1, 2}};
  const auto softplus = [](double x) { return std::log1p(std::exp(x)); };
  const auto sigmoid = [](double x) { return 1 / (1 + std::exp(-x)); };
  EXPECT_NEAR(link_loss(dot, dz, three_embeddings(), links, non_links), (softplus(-1.5) + 1.5 + softplus(-1.25)) / 2,
              1e-6);
  // Node 0 is only in the link: d/dz0 = (sigmoid(-1.5) - 1) / 2 * z1.
  EXPECT_NEAR(dz(0, 0), (sigmoid(-1.5) - 1) / 2 * 0.5, 1e-6);
  EXPECT_NEAR(dz(0, 1), (sigmoid(-1.5) - 1) / 2 * -1, 1e-6);
  EXPECT_THROW(link_loss(dot, dz, three_embeddings(), {}, {}), ArgumentError);
}

// Central differences of link_loss by every entry of `values` against the gradient `analytic`, in
// steps small enough not to cross the MLP's kinks (no pre-activation here lies that close to 0).
void expect_central_differences(LinkScorer& scorer, Matrix<float>& z, std::span<float> values,
                                std::span<const float> analytic, const std::vector<NodePair>& links,
                                const std::vector<NodePair>& non_links, const char* what) {
  Matrix<float> scratch;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float saved = values[i], step = 1e-3f;
    values[i] = saved + step;
    const double up = link_loss(scorer, scratch, z, links, non_links);
    values[i] = saved - step;
    const double down = link_loss(scorer, scratch, z, links, non_links);
    values[i] = saved;
    EXPECT_NEAR(analytic[i], (up - down) / (2 * step), 3e-4) << what << " entry " << i;
  }
}

TEST(LinkLossTest, GradientMatchesCentralDifferences) {
  SplitMix64 rng(3);
  Matrix<float> z(6, 4);
  for (Index i = 0; i < z.size(); ++i) z.data()[i] = static_cast<float>(rng.normal() * 0.7);
  const std::vector<NodePair> links = {{0, 1}, {2, 3}, {1, 4}}, non_links = {{0, 5}, {3, 4}, {1, 2}, {0, 3}};
  for (const PairScorer kind : {PairScorer::dot, PairScorer::mlp, PairScorer::dot_mlp}) {
    Parameters<float> params;
    LinkScorer scorer(params, kind, 4);
    scorer.reset_parameters(rng);
    Matrix<float> dz;
    params.zero_grad();
    link_loss(scorer, dz, z, links, non_links);
    const Matrix<float> dz_analytic = dz;
    const std::vector<float> dweights(params.grads().data(), params.grads().data() + params.size());
    expect_central_differences(scorer, z, {z.data(), static_cast<std::size_t>(z.size())},
                               {dz_analytic.data(), static_cast<std::size_t>(dz_analytic.size())}, links, non_links,
                               "embedding");
    expect_central_differences(scorer, z, {params.values().data(), static_cast<std::size_t>(params.size())}, dweights,
                               links, non_links, "scorer weight");
    EXPECT_EQ(params.size(), kind == PairScorer::dot ? 0 : 4 * 4 + 4 + 4 + 1);
  }
}

TEST(LinkMetricsTest, HandComputed) {
  // Links 3 and 1 against non-links 2, 0 and 1: 4.5 of 6 pairs ordered right (the tie counts one
  // half); precision 1 at recall 0.5, then 0.5 at recall 1.
  const std::vector<float> links = {3, 1}, non_links = {2, 0, 1};
  const LinkMetrics k1 = link_metrics(links, non_links, 1);
  EXPECT_NEAR(k1.roc_auc, 0.75, 1e-12);
  EXPECT_NEAR(k1.average_precision, 0.75, 1e-12);
  EXPECT_EQ(k1.hits, 0.5);                            // above the highest non-link (2): link 3
  EXPECT_EQ(link_metrics(links, non_links, 3).hits, 1.0);  // above the third highest (0): both
  EXPECT_TRUE(std::isnan(link_metrics(links, non_links, 4).hits));  // fewer non-links than K: undefined
  // Link 3 ranks 1st; link 1 has one non-link above and one tied: rank 1 + 1 + 0.5 = 2.5.
  EXPECT_NEAR(k1.mrr, (1 + 1 / 2.5) / 2, 1e-12);
  EXPECT_THROW(link_metrics(links, {}, 1), ArgumentError);
}

using testing::kQuiet;

TEST(RecommendLinksTest, BestScoringNodesThatAreNoLinkYet) {
  // Node 0 at (1, 0): node 1 scores 2 but is linked already, node 2 scores 1, nodes 3 and 5 tie at
  // 0 (the smaller first), node 4 scores -1.
  Matrix<float> z(6, 2);
  z << 1, 0, 2, 0, 1, 0, 0, 1, -1, 0, 0, -1;
  const std::vector<NodeId> known = {1};
  LinkScorer dot = dot_scorer(2);
  const std::vector<ScoredNode> top = recommend_links(dot, z, 0, 3, known);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].node, 2);
  EXPECT_EQ(top[0].score, 1.0f);
  EXPECT_EQ(top[1].node, 3);
  EXPECT_EQ(top[2].node, 5);
  EXPECT_EQ(recommend_links(dot, z, 0, 10, known).size(), 4u);  // all but itself and node 1
  EXPECT_THROW(recommend_links(dot, z, 6, 1, known), ArgumentError);
}

// Suggestions are scored a chunk of 65,536 candidates at a time: the best of every chunk compete.
TEST(LinkTrainingTest, RecommendsAcrossChunksOfCandidates) {
  constexpr Index kNodes = 70'000;
  Matrix<float> z = Matrix<float>::Zero(kNodes, 2);
  z(0, 0) = 1;
  for (const Index node : {5, 65'536, 69'999}) z(node, 0) = static_cast<float>(node);  // in the first and the second chunk
  Parameters<float> params;
  LinkScorer dot(params, PairScorer::dot, 2);
  const std::vector<NodeId> known = {69'999, 0};
  const std::vector<ScoredNode> top = recommend_links(dot, z, 0, 2, known);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].node, 65'536);
  EXPECT_EQ(top[1].node, 5);
  EXPECT_EQ(recommend_links(dot, z, 0, kNodes, known).size(), static_cast<std::size_t>(kNodes - 2));
}

// Four planted communities whose features tell them apart: 9 links in 10 lie inside a community,
// against 1 non-link in 4, so telling communities apart alone gives a ROC-AUC of about 0.82 (0.9 *
// 0.75 + half the ties); the links the encoder sees add the rest.
TEST(LinkTrainingTest, PredictsHeldOutLinksOfAPlantedPartition) {
  const SbmGraph sbm = stochastic_block_model(
      {.nodes = 200, .communities = 4, .p_in = 0.15, .p_out = 0.005, .feature_dim = 8, .feature_noise = 1.0,
       .add_self_loops = true, .seed = 2});
  const LinkSplit split = split_links(sbm.edges, 200, 0.85, 0.05, 0);
  const Graph seen = Graph::from_pairs(200, split.train, {.add_self_loops = true, .symmetrize = true});
  for (const PairScorer kind : {PairScorer::dot, PairScorer::mlp}) {
    Parameters<float> params;
    NodeClassifier<float> encoder(params, {.in_dim = 8, .classes = 16, .layers = 2, .heads = 4, .head_dim = 8,
                                           .output_heads = 1, .score = ScoreFunction::additive, .dropout = 0,
                                           .attention_dropout = 0, .value_dropout = 0});
    LinkScorer scorer(params, kind, 16);
    SplitMix64 rng(1);
    encoder.reset_parameters(rng);
    scorer.reset_parameters(rng);
    const EncoderInput input(sbm.features);
    const LinkTrainingResult result =
        train_link_predictor(encoder, scorer, params, seen, input, split, {.epochs = 100, .log = kQuiet});
    const Matrix<float> z = node_embeddings(encoder, seen, input);
    const std::vector<float> links = scorer.scores(z, split.test);
    const LinkMetrics test = link_metrics(links, scorer.scores(z, split.test_negatives));
    std::printf("planted partition links, %s scorer: test ROC-AUC %.3f, AP %.3f, best epoch %lld of %zu\n",
                kind == PairScorer::dot ? "dot" : "mlp", test.roc_auc, test.average_precision,
                static_cast<long long>(result.best_epoch), result.history.size());
    EXPECT_GE(test.roc_auc, 0.8);
    EXPECT_GE(result.best_val_score, 0.8);
    EXPECT_LT(result.history.back().train_loss, result.history.front().train_loss);
  }

  // Non-links between busy nodes train it as well.
  Parameters<float> params;
  NodeClassifier<float> encoder(params, {.in_dim = 8, .classes = 16, .layers = 2, .heads = 4, .head_dim = 8,
                                         .output_heads = 1, .score = ScoreFunction::additive, .dropout = 0,
                                         .attention_dropout = 0, .value_dropout = 0});
  LinkScorer dot(params, PairScorer::dot, 16);
  SplitMix64 again(1);
  encoder.reset_parameters(again);
  const EncoderInput input(sbm.features);
  train_link_predictor(encoder, dot, params, seen, input, split,
                       {.epochs = 100, .non_links = NonLinkSampling::degree, .log = kQuiet});
  const Matrix<float> z_degree = node_embeddings(encoder, seen, input);
  EXPECT_GE(link_metrics(link_scores(z_degree, split.test), link_scores(z_degree, split.test_negatives)).roc_auc, 0.8);
}

TEST(LinkTrainingTest, RefusesASplitWithoutTrainingLinks) {
  const SbmGraph sbm = stochastic_block_model({.nodes = 20, .communities = 2, .feature_dim = 4, .seed = 1});
  Parameters<float> params;
  NodeClassifier<float> encoder(params, {.in_dim = 4, .classes = 8});
  LinkScorer dot(params, PairScorer::dot, 8);
  EXPECT_THROW(train_link_predictor(encoder, dot, params, sbm.graph, EncoderInput(sbm.features), LinkSplit{}, {}),
               ArgumentError);
}

// Another validation metric judges the epochs: the best epoch's figure is the validation Hits@50 of
// the weights kept, and each epoch line names it.
TEST(LinkTrainingTest, KeepsTheEpochOfTheBestValidationFigureOfTheMetricChosen) {
  const SbmGraph sbm = stochastic_block_model(
      {.nodes = 300, .communities = 4, .p_in = 0.15, .p_out = 0.005, .feature_dim = 8, .feature_noise = 1.0,
       .add_self_loops = true, .seed = 3});
  const LinkSplit split = split_links(sbm.edges, 300, 0.7, 0.2, 0);
  ASSERT_GE(split.val_negatives.size(), 50u);
  const Graph seen = Graph::from_pairs(300, split.train, {.add_self_loops = true, .symmetrize = true});
  Parameters<float> params;
  NodeClassifier<float> encoder(params, {.in_dim = 8, .classes = 16, .layers = 2, .heads = 2, .head_dim = 8,
                                         .output_heads = 1, .dropout = 0, .attention_dropout = 0, .value_dropout = 0});
  LinkScorer dot(params, PairScorer::dot, 16);
  SplitMix64 rng(1);
  encoder.reset_parameters(rng);
  const EncoderInput input(sbm.features);
  std::vector<std::string> lines;
  const LinkTrainingResult result = train_link_predictor(
      encoder, dot, params, seen, input, split, {.epochs = 20, .metric = LinkMetric::hits, .log = kQuiet},
      [&](const LinkEpochReport& report) { lines.push_back(link_epoch_line(report, validation_label(LinkMetric::hits))); });
  const Matrix<float> z = node_embeddings(encoder, seen, input);
  const LinkMetrics kept = link_metrics(link_scores(z, split.val), link_scores(z, split.val_negatives));
  EXPECT_NEAR(result.best_val_score, kept.hits, 1e-9);
  for (const LinkEpochReport& report : result.history) EXPECT_LE(report.val_score, result.best_val_score);
  EXPECT_NE(lines.front().find("val hits@50 "), std::string::npos) << lines.front();

  // Hits@50 needs 50 validation non-links.
  LinkSplit small = split;
  small.val.resize(10);
  small.val_negatives.resize(10);
  EXPECT_THROW(train_link_predictor(encoder, dot, params, seen, input, small, {.metric = LinkMetric::hits}),
               ArgumentError);
}

// Unset, the metric is Hits@50 for identity features with 50 validation non-links to rank, else
// ROC-AUC; the result names the one that judged the epochs.
TEST(LinkTrainingTest, DefaultMetricIsHitsAt50WithIdentityFeaturesAndFiftyValidationNonLinks) {
  EXPECT_EQ(default_link_metric(true, 50), LinkMetric::hits);
  EXPECT_EQ(default_link_metric(true, 49), LinkMetric::roc_auc);
  EXPECT_EQ(default_link_metric(false, 5000), LinkMetric::roc_auc);
  const SbmGraph sbm = stochastic_block_model({.nodes = 300, .communities = 4, .p_in = 0.15, .p_out = 0.005,
                                               .feature_dim = 8, .add_self_loops = true, .seed = 3});
  const LinkSplit split = split_links(sbm.edges, 300, 0.7, 0.2, 0);
  ASSERT_GE(split.val_negatives.size(), 50u);
  LinkSplit small = split;
  small.val.resize(10);
  small.val_negatives.resize(10);
  const Graph seen = Graph::from_pairs(300, split.train, {.add_self_loops = true, .symmetrize = true});
  const auto metric_judging = [&](bool identity, const LinkSplit& used) {
    const EncoderInput input(sbm.features, identity);
    Parameters<float> params;
    NodeClassifier<float> encoder(params, {.in_dim = input.cols(), .classes = 8, .heads = 2, .head_dim = 4});
    LinkScorer dot(params, PairScorer::dot, 8);
    SplitMix64 rng(1);
    encoder.reset_parameters(rng);
    return train_link_predictor(encoder, dot, params, seen, input, used, {.epochs = 2, .log = kQuiet}).metric;
  };
  EXPECT_EQ(metric_judging(true, split), LinkMetric::hits);
  EXPECT_EQ(metric_judging(true, small), LinkMetric::roc_auc);
  EXPECT_EQ(metric_judging(false, split), LinkMetric::roc_auc);
}

TEST(LinkTrainingTest, IdentityFeaturesAreOneHotColumnsAfterTheFeatures) {
  const SbmGraph sbm = stochastic_block_model({.nodes = 30, .communities = 2, .feature_dim = 4, .seed = 2});
  Matrix<float> appended(30, 4 + 30);
  appended << sbm.features, Matrix<float>::Identity(30, 30);
  // 15 % non-zeros: `dense` is read densely, so the sparse [features | I] is checked against the dense path.
  const EncoderInput identity(sbm.features, true), dense(appended);
  EXPECT_EQ(identity.cols(), 34);
  EXPECT_EQ(EncoderInput(sbm.features).cols(), 4);
  Parameters<float> params;
  NodeClassifier<float> encoder(params, {.in_dim = 34, .classes = 8, .heads = 2, .head_dim = 4});
  SplitMix64 rng(3);
  encoder.reset_parameters(rng);
  const Matrix<float> expected = node_embeddings(encoder, sbm.graph, dense);
  EXPECT_LT((node_embeddings(encoder, sbm.graph, identity) - expected).cwiseAbs().maxCoeff(), 1e-5f);
}

TEST(LinkTrainingTest, IdentityFeaturesAloneLearnPlantedPartitionLinks) {
  const SbmGraph sbm = stochastic_block_model(
      {.nodes = 200, .communities = 4, .p_in = 0.15, .p_out = 0.005, .feature_dim = 8, .seed = 3});
  const LinkSplit split = split_links(sbm.edges, 200, 0.85, 0.05, 0);
  const Graph seen = Graph::from_pairs(200, split.train, {.add_self_loops = true, .symmetrize = true});
  const Matrix<float> no_features(200, 0);
  const EncoderInput input(no_features, true);
  Parameters<float> params;
  NodeClassifier<float> encoder(params, {.in_dim = 200, .classes = 16, .layers = 2, .heads = 4, .head_dim = 8,
                                         .dropout = 0, .attention_dropout = 0, .value_dropout = 0});
  LinkScorer scorer(params, PairScorer::mlp, 16);
  SplitMix64 rng(1);
  encoder.reset_parameters(rng);
  scorer.reset_parameters(rng);
  train_link_predictor(encoder, scorer, params, seen, input, split, {.epochs = 100, .log = kQuiet});
  const Matrix<float> z = node_embeddings(encoder, seen, input);
  const double roc_auc = link_metrics(scorer.scores(z, split.test), scorer.scores(z, split.test_negatives)).roc_auc;
  std::printf("planted partition links from identity features alone: test ROC-AUC %.3f\n", roc_auc);
  EXPECT_GE(roc_auc, 0.8);
}

}  // namespace
}  // namespace edgewise
