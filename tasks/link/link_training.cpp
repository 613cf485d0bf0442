#include "edgewise/tasks/link/link_training.hpp"

#include <cmath>

#include "edgewise/core/error.hpp"
#include "edgewise/core/log.hpp"
#include "edgewise/core/memory.hpp"
#include "edgewise/models/metrics.hpp"

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

TrainedLinkModel train_link_model(const NodeGraph& data, const LinkSplit& split, const LinkModelPlan& plan,
                                  const LinkTrainingOptions& training,
                                  const std::function<void(const LinkEpochReport&)>& on_epoch) {
  const Logger log(training.log);
  if (!plan.defaults.empty()) log.normal("defaults: " + plan.defaults);
  LinkModelConfig config = plan.config;
  config.input = data.input;
  config.nodes = data.nodes.names();
  LinkModel model(std::move(config));
  model.initialize(training.seed);
  log.normal("model: " + std::to_string(model.num_parameters()) + " parameters, embeddings " +
             std::to_string(model.embedding_dim()) + " wide" +
             (model.config().identity_features ? ", identity features (a learned vector for each node)" : ""));
  const NodeGraph training_graph = with_edges(data, split.train);
  LinkTrainingResult result = model.fit(training_graph, split, training, on_epoch);
  const double epoch_ms =
      result.history.empty() ? 0 : 1000 * result.history.back().seconds / static_cast<double>(result.epochs_run);
  log.normal("best epoch " + std::to_string(result.best_epoch) + " of " + std::to_string(result.epochs_run) +
             " (validation ROC-AUC " + score_text(result.best_val_roc_auc, 4) + "); " + score_text(epoch_ms, 1) +
             " ms an epoch");
  if (split.val.empty())
    log.normal("warning: no validation links, so no epoch was judged: the model keeps the last epoch's weights");
  std::optional<LinkMetrics> test;
  if (split.test.empty()) {
    log.normal("warning: no test links, so the model was not tested");
  } else {
    test = model.evaluate(training_graph, split.test, split.test_negatives);
    log.normal("test: " + std::to_string(split.test.size()) + " links against " +
               std::to_string(split.test_negatives.size()) + " non-links, " + link_metrics_text(*test));
  }
  log.verbose("peak memory of the process after training: " + std::to_string(std::lround(peak_rss_mb())) + " MB");
  return {std::move(model), std::move(result), training, test, plan.defaults};
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
                          .metrics = {{"validation roc_auc", trained.result.best_val_roc_auc}}};
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
