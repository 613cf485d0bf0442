#include "edgewise/tasks/link/link_training.hpp"

#include <cmath>
#include <optional>

#include "edgewise/core/error.hpp"
#include "edgewise/core/log.hpp"
#include "edgewise/core/memory.hpp"
#include "edgewise/graph/link_graph.hpp"
#include "edgewise/io/node_graph.hpp"
#include "edgewise/models/metrics.hpp"
#include "edgewise/models/sampled_training.hpp"
#include "edgewise/tasks/common/store_source.hpp"

namespace edgewise {

LinkSplit make_link_split(const SplitSpec& spec, const NodeGraph& data, std::span<const NodePair> links,
                          std::uint64_t seed) {
  const Index nodes = data.nodes.size();
  switch (spec.kind) {
    case SplitKind::random:
      return split_links(links, nodes, spec.fractions.train, spec.fractions.val, seed);
    case SplitKind::folder: {
      const NodeLookup lookup = [&data](std::string_view name) { return data.nodes.find(name).value_or(-1); };
      return read_link_split(spec.folder, nodes, lookup, LinkSet(links), seed);
    }
    default:
      throw ArgumentError("split '" + spec.text + "' applies to other tasks, not to link prediction");
  }
}

std::string link_metrics_text(const LinkMetrics& metrics) {
  return "ROC-AUC " + score_text(metrics.roc_auc, 4) + ", average precision " +
         score_text(metrics.average_precision, 4) + ", Hits@" + std::to_string(metrics.hits_k) + " " +
         score_text(metrics.hits, 4) + ", MRR " + score_text(metrics.mrr, 4);
}

namespace {

LinkModel initialized_model(const LinkModelPlan& plan, NodeInputOptions input, std::vector<std::string> nodes,
                            const LinkTrainingOptions& training) {
  const Logger log(training.log);
  if (!plan.defaults.empty()) log.normal("defaults: " + plan.defaults);
  LinkModelConfig config = plan.config;
  config.input = std::move(input);
  config.nodes = std::move(nodes);
  LinkModel model(std::move(config));
  model.initialize(training.seed);
  log.normal("model: " + std::to_string(model.num_parameters()) + " parameters, embeddings " +
             std::to_string(model.embedding_dim()) + " wide" +
             (model.config().identity_features ? ", identity features (a learned vector for each node)" : ""));
  return model;
}

void log_training(const Logger& log, const LinkTrainingResult& result, bool validated) {
  const double epoch_ms =
      result.history.empty() ? 0 : 1000 * result.history.back().seconds / static_cast<double>(result.epochs_run);
  log.normal("best epoch " + std::to_string(result.best_epoch) + " of " + std::to_string(result.epochs_run) +
             " (validation " + std::string(link_metric_title(result.metric)) + " " +
             score_text(result.best_val_score, 4) + "); " + score_text(epoch_ms, 1) + " ms an epoch");
  if (!validated)
    log.normal("warning: no validation links, so no epoch was judged: the model keeps the last epoch's weights");
}

// The test links scored by `test_scores` against the non-links, or nothing (and a warning) without links.
template <typename Score>
std::optional<LinkMetrics> tested(const Logger& log, std::span<const NodePair> links,
                                  std::span<const NodePair> non_links, Score&& test_scores) {
  std::optional<LinkMetrics> metrics;
  if (links.empty()) {
    log.normal("warning: no test links, so the model was not tested");
  } else {
    metrics = test_scores();
    log.normal("test: " + std::to_string(links.size()) + " links against " + std::to_string(non_links.size()) +
               " non-links, " + link_metrics_text(*metrics));
  }
  log.verbose("peak memory of the process after training: " + std::to_string(std::lround(peak_rss_mb())) + " MB");
  return metrics;
}

// Links of a part to score, and as many non-links.
struct PartToScore {
  std::vector<NodePair> links, non_links;
};

// Links of `part` to score, up to kMostScoredStoreLinks, and as many non-links of the whole graph.
PartToScore scored_store_links(InEdges graph, LinkPart part, const SplitFractions& fractions, std::uint64_t seed) {
  PartToScore scored{sample_hashed_links(graph, part, fractions.train, fractions.val, seed, kMostScoredStoreLinks), {}};
  SplitMix64 rng(seed ^ (0x4E45474154495645ULL + static_cast<std::uint64_t>(part)));
  scored.non_links = draw_non_links_of(graph, static_cast<Index>(scored.links.size()), rng);
  return scored;
}

}  // namespace

TrainedLinkModel train_link_model(const NodeGraph& data, const LinkSplit& split, const LinkModelPlan& plan,
                                  const LinkTrainingOptions& training,
                                  const std::function<void(const LinkEpochReport&)>& on_epoch) {
  const Logger log(training.log);
  LinkModel model = initialized_model(plan, data.input, data.nodes.names(), training);
  const NodeGraph training_graph = with_edges(data, split.train);
  return_freed_memory();
  LinkTrainingResult result = model.fit(training_graph, split, training, on_epoch);
  log_training(log, result, !split.val.empty());
  std::optional<LinkMetrics> test = tested(log, split.test, split.test_negatives, [&] {
    return model.evaluate(training_graph, split.test, split.test_negatives);
  });
  return {std::move(model), std::move(result), training, test, plan.defaults};
}

TrainedLinkModel train_link_model(const GraphStore& store, const SplitFractions& fractions, const LinkModelPlan& plan,
                                  const LinkTrainingOptions& training, const LinkSamplingOptions& sampling,
                                  const std::function<void(const LinkEpochReport&)>& on_epoch) {
  const Logger log(training.log);
  const std::uint64_t seed = training.seed;
  check_split_fractions(fractions.train, fractions.val);
  const LinkGraph seen(store.in_edges(), [&](NodeId a, NodeId b) {
    return hashed_link_part(a, b, fractions.train, fractions.val, seed) == LinkPart::train;
  });
  const PartToScore val = scored_store_links(store.in_edges(), LinkPart::val, fractions, seed);
  const PartToScore test = scored_store_links(store.in_edges(), LinkPart::test, fractions, seed);
  store.release_edge_pages();  // training reads its copy of the training links alone
  log.normal("split by a hash of each pair: " + std::to_string(seen.num_links()) + " training links; " +
             std::to_string(val.links.size()) + " validation and " + std::to_string(test.links.size()) +
             " test links scored, each against as many non-links");
  // The store's structural columns saw every link, the held-out ones included: computed again from
  // the training links, as with_edges does for edge files, they carry none of those to the encoder.
  std::optional<Matrix<float>> training_features;
  if (store.input().features.format == FeatureFormat::structural) {
    training_features = structural_feature_rows(Graph::from_in_edges(seen.in_edges()), store.input());
    EDGEWISE_CHECK(training_features->cols() == store.feature_dim());
    log.verbose("structural features computed again from the training links alone");
    return_freed_memory();  // the copy of the graph the columns were computed on
  }
  NodeInputOptions input = store.input();
  input.features.dim = store.feature_dim();
  LinkModel model = initialized_model(plan, input, {}, training);
  NodeSource source = training_features ? node_source(seen.in_edges(), *training_features, input.add_self_loops)
                                        : store_source(store);
  source.in_edges = seen.in_edges();
  LinkTrainingResult result =
      model.fit_sampled(seen, source, {val.links, val.non_links}, training, sampling, on_epoch);
  log_training(log, result, !val.links.empty());
  std::optional<LinkMetrics> metrics = tested(log, test.links, test.non_links, [&] {
    std::vector<NodePair> pairs = test.links;
    pairs.insert(pairs.end(), test.non_links.begin(), test.non_links.end());
    const std::vector<float> scores = model.score_pairs_sampled(source, pairs, sampling, seed);
    const auto link_scores = std::span(scores).first(test.links.size());
    return link_metrics(link_scores, std::span(scores).subspan(test.links.size()));
  });
  return {std::move(model), std::move(result), training, metrics, plan.defaults};
}

TrainingSummary link_training_summary(const TrainedLinkModel& trained, Index links, const std::string& data_name,
                                      const std::string& split) {
  TrainingSummary summary{.data = data_name,
                          .examples = links,
                          .split = split,
                          .seed = trained.options.seed,
                          .max_epochs = trained.options.epochs,
                          .epochs_run = {trained.result.epochs_run},
                          .best_epochs = {trained.result.best_epoch},
                          .metrics = {{"validation " + std::string(name_of(kLinkMetricNames, trained.result.metric)),
                                       trained.result.best_val_score}}};
  if (!trained.defaults.empty()) summary.defaults = trained.defaults;
  if (trained.test) {
    const LinkMetrics& test = *trained.test;
    summary.metrics.insert(summary.metrics.end(), {{"test roc_auc", test.roc_auc},
                                                   {"test average_precision", test.average_precision},
                                                   {"test hits@" + std::to_string(test.hits_k), test.hits},
                                                   {"test mrr", test.mrr}});
  }
  return summary;
}

}  // namespace edgewise
