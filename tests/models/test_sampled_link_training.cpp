// Sampled link training: scores on blocks of every neighbour against the full-batch embeddings',
// training on a planted partition's links held out by a hashed split, its determinism, and what it
// refuses.
#include "edgewise/models/sampled_link_training.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/datasets/sbm.hpp"
#include "edgewise/graph/sampling.hpp"
#include "support/quiet_log.hpp"

namespace edgewise {
namespace {

constexpr NodeClassifierOptions kEncoder{.in_dim = 8, .classes = 16, .layers = 2, .heads = 4, .head_dim = 8,
                                         .output_heads = 1, .score = ScoreFunction::additive, .dropout = 0,
                                         .attention_dropout = 0, .value_dropout = 0};

SbmGraph planted_partition() {
  return stochastic_block_model({.nodes = 200, .communities = 4, .p_in = 0.15, .p_out = 0.005, .feature_dim = 8,
                                 .feature_noise = 1.0, .add_self_loops = true, .seed = 2});
}

using testing::kQuiet;

bool in_training(NodeId a, NodeId b) { return hashed_link_part(a, b, 0.85, 0.05, 0) == LinkPart::train; }

// A link part's links, all of them, and as many non-links of the whole graph.
struct Scored {
  std::vector<NodePair> links, non_links;
};

Scored scored_part(const Graph& graph, LinkPart part, std::uint64_t seed) {
  Scored scored{sample_hashed_links(graph.in_edges(), part, 0.85, 0.05, 0, 1000), {}};
  SplitMix64 rng(seed);
  scored.non_links = draw_non_links_of(graph.in_edges(), static_cast<Index>(scored.links.size()), rng);
  return scored;
}

TEST(SampledLinkTrainingTest, ScoresOnBlocksOfEveryNeighbourAreTheFullBatchScores) {
  const SbmGraph sbm = planted_partition();
  Parameters<float> params;
  NodeClassifier<float> encoder(params, kEncoder);
  LinkScorer scorer(params, PairScorer::mlp, 16);
  SplitMix64 rng(4);
  encoder.reset_parameters(rng);
  scorer.reset_parameters(rng);
  std::vector<NodePair> pairs(sbm.edges.begin(), sbm.edges.begin() + 40);
  for (Index i = 0; i < 40; ++i) pairs.emplace_back(i, 199 - i);
  const Matrix<float> z = node_embeddings(encoder, sbm.graph, EncoderInput(sbm.features));
  const std::vector<float> full = scorer.scores(z, pairs);
  const std::vector<float> sampled = sampled_link_scores(encoder, scorer, node_source(sbm.graph, sbm.features), pairs,
                                                         {.batch_size = 8, .fanouts = {kAllNeighbors, kAllNeighbors}}, 0);
  ASSERT_EQ(sampled.size(), full.size());
  for (std::size_t p = 0; p < full.size(); ++p) EXPECT_NEAR(sampled[p], full[p], 1e-4) << p;
}

TEST(SampledLinkTrainingTest, PredictsHeldOutLinksOfAPlantedPartitionTheSameWayEveryRun) {
  const SbmGraph sbm = planted_partition();
  const LinkGraph seen(sbm.graph.in_edges(), in_training);
  NodeSource source = node_source(sbm.graph, sbm.features);
  source.in_edges = seen.in_edges();
  const Scored val = scored_part(sbm.graph, LinkPart::val, 1), test = scored_part(sbm.graph, LinkPart::test, 2);
  const auto train = [&](Vector<float>& weights) {
    Parameters<float> params;
    NodeClassifier<float> encoder(params, kEncoder);
    LinkScorer scorer(params, PairScorer::dot, 16);
    SplitMix64 rng(1);
    encoder.reset_parameters(rng);
    const LinkTrainingResult result =
        train_link_predictor_sampled(encoder, scorer, params, seen, source, {val.links, val.non_links},
                                     {.epochs = 30, .log = kQuiet}, {.batch_size = 64, .fanouts = {5, 5}});
    std::vector<NodePair> pairs = test.links;
    pairs.insert(pairs.end(), test.non_links.begin(), test.non_links.end());
    const std::vector<float> scores = sampled_link_scores(encoder, scorer, source, pairs, {.fanouts = {5, 5}}, 3);
    const LinkMetrics metrics = link_metrics(std::span(scores).first(test.links.size()),
                                             std::span(scores).subspan(test.links.size()));
    weights = params.values();
    std::printf("sampled training, planted partition: test ROC-AUC %.3f, best epoch %lld\n", metrics.roc_auc,
                static_cast<long long>(result.best_epoch));
    EXPECT_GE(metrics.roc_auc, 0.8);
    EXPECT_LT(result.history.back().train_loss, result.history.front().train_loss);
  };
  Vector<float> first, second;
  train(first);
  train(second);
  EXPECT_EQ(first, second);
}

TEST(SampledLinkTrainingTest, RefusesFanOutsOfAnotherDepthAndAGraphWithoutLinks) {
  const SbmGraph sbm = planted_partition();
  const LinkGraph seen(sbm.graph.in_edges(), in_training);
  NodeSource source = node_source(sbm.graph, sbm.features);
  source.in_edges = seen.in_edges();
  Parameters<float> params;
  NodeClassifier<float> encoder(params, kEncoder);
  LinkScorer scorer(params, PairScorer::dot, 16);
  EXPECT_THROW(train_link_predictor_sampled(encoder, scorer, params, seen, source, {}, {}, {.fanouts = {10}}),
               ArgumentError);
  const LinkGraph none(sbm.graph.in_edges(), [](NodeId, NodeId) { return false; });
  EXPECT_EQ(none.num_links(), 0);
  EXPECT_THROW(train_link_predictor_sampled(encoder, scorer, params, none, source, {}, {}, {}), ArgumentError);
}

}  // namespace
}  // namespace edgewise
