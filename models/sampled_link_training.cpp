#include "edgewise/models/sampled_link_training.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>

#include "edgewise/core/error.hpp"
#include "edgewise/core/names.hpp"
#include "node_common.hpp"
#include "sampled_batches.hpp"

namespace edgewise {
namespace {

using detail::Batch;
using detail::BatchPrefetcher;
using detail::derived_seed;
using detail::kNaN;

constexpr std::uint64_t kTrainLinkPairs = 11, kTrainLinkDraws = 12;

// The pairs of one batch by local id, and their distinct nodes: the batch's seeds, whose rows the
// encoder's output holds in this order.
struct PairBatch {
  std::vector<NodeId> seeds;
  std::vector<NodePair> links, non_links;  // local ids
  std::unordered_map<Index, Index> local_of;

  void clear() {
    seeds.clear();
    links.clear();
    non_links.clear();
    local_of.clear();
  }
  void add(std::vector<NodePair>& part, NodePair pair) { part.emplace_back(local(pair.first), local(pair.second)); }

 private:
  Index local(Index node) {
    const auto [at, added] = local_of.try_emplace(node, static_cast<Index>(seeds.size()));
    if (added) seeds.push_back(static_cast<NodeId>(node));
    return at->second;
  }
};

// Runs batches of pairs, sampling the next batch's blocks on a thread of its own meanwhile:
// fill(b, pairs) chooses batch b's pairs, work(b, sampled, pairs) runs the network on them.
class PairBatches {
 public:
  PairBatches(const NodeSource& source, std::vector<Index> fanouts) : prefetcher_(source, std::move(fanouts)) {}

  template <typename Fill, typename Work>
  void run(Index batches, std::uint64_t seed, Fill&& fill, Work&& work) {
    const auto start = [&](Index b) {
      PairBatch& pairs = pairs_[b % 2];
      pairs.clear();
      fill(b, pairs);
      prefetcher_.request(pairs.seeds, derived_seed(seed, 0, static_cast<std::uint64_t>(b)));
    };
    if (batches > 0) start(0);
    for (Index b = 0; b < batches; ++b) {
      const Batch& sampled = prefetcher_.take();
      if (b + 1 < batches) start(b + 1);
      work(b, sampled, pairs_[b % 2]);
    }
  }

 private:
  PairBatch pairs_[2];          // first: the prefetcher's thread reads them until it is joined
  BatchPrefetcher prefetcher_;
};

// The scores of `pairs` in batches of batch_pairs, in inference mode.
std::vector<float> score_in_batches(NodeClassifier<float>& encoder, LinkScorer& scorer, PairBatches& batches,
                                    std::span<const NodePair> pairs, Index batch_pairs, std::uint64_t seed) {
  std::vector<float> scores;
  scores.reserve(pairs.size());
  const auto total = static_cast<Index>(pairs.size());
  batches.run(
      (total + batch_pairs - 1) / batch_pairs, seed,
      [&](Index b, PairBatch& batch) {
        for (Index p = b * batch_pairs; p < std::min(total, (b + 1) * batch_pairs); ++p)
          batch.add(batch.links, pairs[static_cast<std::size_t>(p)]);
      },
      [&](Index, const Batch& sampled, PairBatch& batch) {
        const std::vector<float> batch_scores = scorer.scores(sampled.forward(encoder, Mode::inference()), batch.links);
        scores.insert(scores.end(), batch_scores.begin(), batch_scores.end());
      });
  return scores;
}

std::vector<Index> fanouts_of(const NodeClassifier<float>& encoder, const LinkSamplingOptions& sampling) {
  const Index layers = encoder.options().layers;
  if (!sampling.fanouts.empty() && static_cast<Index>(sampling.fanouts.size()) != layers)
    throw ArgumentError("sampled link training: " + std::to_string(sampling.fanouts.size()) +
                        " fan-outs for an encoder of " + std::to_string(layers) + " layers; give one per layer");
  if (sampling.batch_size < 1)
    throw ArgumentError("sampled link training: the batch size must be at least 1, got " +
                        std::to_string(sampling.batch_size));
  return sampling.fanouts.empty() ? default_fanouts(layers) : sampling.fanouts;
}

// Sampled mini-batches of training links and non-links an epoch, then the validation pairs scored;
// the trainer run_epochs drives.
class SampledLinkTrainer {
 public:
  SampledLinkTrainer(NodeClassifier<float>& encoder, LinkScorer& scorer, Parameters<float>& params,
                     const LinkGraph& seen, const NodeSource& source, ScoredLinks validation,
                     const LinkTrainingOptions& options, LinkMetric metric, const LinkSamplingOptions& sampling)
      : encoder_(encoder),
        scorer_(scorer),
        params_(params),
        seen_(seen),
        validation_links_(static_cast<Index>(validation.links.size())),
        batch_size_(sampling.batch_size),
        links_per_epoch_(std::min(sampling.links_per_epoch, seen.num_links())),
        non_links_(options.non_links),
        metric_(metric),
        seed_(options.seed),
        batches_(source, fanouts_of(encoder, sampling)),
        steps_(params, options) {
    validation_pairs_.assign(validation.links.begin(), validation.links.end());
    validation_pairs_.insert(validation_pairs_.end(), validation.non_links.begin(), validation.non_links.end());
  }

  double step(Index epoch) {
    double loss_sum = 0;
    Index steps = 0;
    const auto epoch_key = static_cast<std::uint64_t>(epoch);
    batches_.run(
        (links_per_epoch_ + batch_size_ - 1) / batch_size_, derived_seed(seed_, kTrainLinkDraws, epoch_key),
        [&](Index b, PairBatch& batch) { draw_pairs(epoch_key, b, batch); },
        [&](Index b, const Batch& sampled, PairBatch& batch) {
          params_.zero_grad();
          const Matrix<float>& z = sampled.forward(encoder_, Mode::train(steps_.dropout_rng, sampled.blocks.nodes));
          const double loss = link_loss(scorer_, dembeddings_, z, batch.links, batch.non_links);
          encoder_.backward_blocks(dembeddings_);
          check_finite_step(params_, loss, epoch, b + 1);
          steps_.optimizer.step();
          loss_sum += loss;
          ++steps;
        });
    return loss_sum / static_cast<double>(steps);
  }

  detail::ValidationScores score(LinkEpochReport& report) {
    report.val_score = kNaN;
    if (validation_links_ == 0) return {};
    // The same draws every epoch, so that epochs are compared on the same neighbourhoods.
    const std::vector<float> scores =
        score_in_batches(encoder_, scorer_, batches_, validation_pairs_, 2 * batch_size_, seed_);
    const auto links = std::span(scores).first(static_cast<std::size_t>(validation_links_));
    report.val_score = link_metric_value(link_metrics(links, std::span(scores).subspan(links.size())), metric_);
    return {.measured = true, .value = report.val_score, .loss = kNaN};
  }

  void save(TrainingState& state) const { steps_.save(state); }
  void restore(const TrainingState& state) { steps_.restore(state); }

 private:
  // Batch b of the epoch: its share of the epoch's links, drawn uniformly, and as many non-links.
  void draw_pairs(std::uint64_t epoch, Index b, PairBatch& batch) const {
    SplitMix64 rng(derived_seed(seed_, kTrainLinkPairs, epoch, static_cast<std::uint64_t>(b)));
    const Index count = std::min(batch_size_, links_per_epoch_ - b * batch_size_);
    for (Index i = 0; i < count; ++i) batch.add(batch.links, seen_.draw_link(rng));
    for (const NodePair& non_link : draw_step_non_links(seen_, count, non_links_ == NonLinkSampling::degree, rng))
      batch.add(batch.non_links, non_link);
  }

  NodeClassifier<float>& encoder_;
  LinkScorer& scorer_;
  Parameters<float>& params_;
  const LinkGraph& seen_;
  std::vector<NodePair> validation_pairs_;  // the links, then the non-links
  Index validation_links_;
  Index batch_size_, links_per_epoch_;
  NonLinkSampling non_links_;
  LinkMetric metric_;
  std::uint64_t seed_;
  PairBatches batches_;
  detail::StepState steps_;
  Matrix<float> dembeddings_;
};

}  // namespace

LinkTrainingResult train_link_predictor_sampled(NodeClassifier<float>& encoder, LinkScorer& scorer,
                                                Parameters<float>& params, const LinkGraph& seen,
                                                const NodeSource& source, ScoredLinks validation,
                                                const LinkTrainingOptions& options, const LinkSamplingOptions& sampling,
                                                const std::function<void(const LinkEpochReport&)>& on_epoch) {
  if (seen.num_links() == 0) throw ArgumentError("sampled link training: the graph has no training links");
  if (options.epochs < 1 || options.patience < 1 || sampling.links_per_epoch < 1)
    throw ArgumentError("sampled link training needs at least 1 epoch, a patience of at least 1 and 1 link an epoch");
  if (source.feature_dim != encoder.options().in_dim || source.in_edges.num_nodes() != seen.num_nodes())
    throw ArgumentError("sampled link training: features " + std::to_string(source.feature_dim) + " wide for " +
                        std::to_string(source.in_edges.num_nodes()) + " nodes, an encoder of " +
                        std::to_string(encoder.options().in_dim) + " inputs and a graph of " +
                        std::to_string(seen.num_nodes()) + " nodes");
  // Sampled batches read the stored features alone, without identity features.
  const LinkMetric metric = options.metric.value_or(default_link_metric(false, validation.non_links.size()));
  check_validation_metric(metric, validation.non_links.size());
  SampledLinkTrainer trainer(encoder, scorer, params, seen, source, validation, options, metric, sampling);
  const Index per_epoch = std::min(sampling.links_per_epoch, seen.num_links());
  const detail::EpochSettings settings{
      .epochs = options.epochs,
      .stopping = {.larger_better = true, .with_loss = false, .ties_count = false, .patience = options.patience},
      .log = options.log,
      .setup = "sampled link training: " + std::to_string(seen.num_links()) + " training links, " +
               std::to_string(per_epoch) + " drawn an epoch in batches of " + std::to_string(sampling.batch_size) +
               " with as many non-links, fan-out " + join(fanouts_of(encoder, sampling), ","),
      .metric = validation_label(metric),
      .judged_by = "in validation " + std::string(link_metric_title(metric))};
  LinkTrainingResult result;
  result.best_val_score = detail::run_epochs(trainer, params, settings, {}, result, on_epoch).value;
  result.metric = metric;
  return result;
}

std::vector<float> sampled_link_scores(NodeClassifier<float>& encoder, LinkScorer& scorer, const NodeSource& source,
                                       std::span<const NodePair> pairs, const LinkSamplingOptions& sampling,
                                       std::uint64_t seed) {
  PairBatches batches(source, fanouts_of(encoder, sampling));
  return score_in_batches(encoder, scorer, batches, pairs, 2 * sampling.batch_size, seed);
}

}  // namespace edgewise
