#include "edgewise/models/sampled_training.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/graph/sampling.hpp"
#include "edgewise/models/losses.hpp"
#include "edgewise/models/optimizers.hpp"
#include "node_common.hpp"
#include "sampled_batches.hpp"

namespace edgewise {
namespace {

using detail::Batch;
using detail::BatchPrefetcher;
using detail::derived_seed;

constexpr std::uint64_t kShuffle = 1, kTrainDraws = 2, kValidationDraws = 3;

// The seeds' targets in the rows of a batch's logits: their labels first, -1 for the other rows.
void batch_targets(std::span<const NodeId> seeds, std::span<const Index> labels, Index rows,
                   std::vector<Index>& targets) {
  targets.assign(static_cast<std::size_t>(rows), -1);
  for (std::size_t i = 0; i < seeds.size(); ++i) targets[i] = labels[static_cast<std::size_t>(seeds[i])];
}

// Counts and summed loss of scored rows, for means over many batches.
struct Tally {
  double loss_sum = 0;
  Index correct = 0, scored = 0;

  void add(double mean_loss, const Matrix<float>& logits, std::span<const Index> targets, Index seeds) {
    loss_sum += mean_loss * static_cast<double>(seeds);
    scored += seeds;
    for (Index row = 0; row < seeds; ++row) correct += detail::argmax(logits, row) == targets[row] ? 1 : 0;
  }
  // The tally of every process of the run, on each.
  Tally summed(const Collectives& processes) const {
    return {processes.sum(loss_sum), static_cast<Index>(processes.sum(static_cast<std::uint64_t>(correct))),
            static_cast<Index>(processes.sum(static_cast<std::uint64_t>(scored)))};
  }
  double loss() const { return scored > 0 ? loss_sum / static_cast<double>(scored) : detail::kNaN; }
  double accuracy() const {
    return scored > 0 ? static_cast<double>(correct) / static_cast<double>(scored) : detail::kNaN;
  }
};

std::vector<NodeId> node_ids(std::span<const Index> nodes) { return {nodes.begin(), nodes.end()}; }

// The rows of `nodes` into out ([nodes.size(), rows.cols()]), in blocks across threads.
void gather_rows(const ConstRowsRef<float>& rows, std::span<const NodeId> nodes, float* out) {
  const Index dim = rows.cols();
  parallel_for_blocks(static_cast<Index>(nodes.size()), 512, [&](Index begin, Index end) {
    for (Index i = begin; i < end; ++i) std::copy_n(rows.row(nodes[i]).data(), dim, out + i * dim);
  });
}

// Runs the network layer by layer over every node: each layer on batches of consecutive nodes with
// about inference_edges in-edges, whose blocks take every in-neighbour. The last block is kept until
// the next run (up to inference_edges edges), and where one batch is the whole graph it is built only
// once, as validation runs the same inference every epoch.
class LayerwiseInference {
 public:
  LayerwiseInference(const NodeSource& graph, Index inference_edges)
      : graph_(graph), inference_edges_(inference_edges), neighbors_(graph.in_edges, {kAllNeighbors}, graph.self_loops) {}

  // Layers 0 .. last of the network over every node.
  Matrix<float> run(NodeClassifier<float>& model, Index last) {
    const Index n = graph_.in_edges.num_nodes();
    Matrix<float> current, next, input;
    SparseMatrix<float> sparse_input;
    for (Index layer = 0; layer <= last; ++layer) {
      for (Index first = 0; first < n;) {
        const Index end = batch_end(first);
        const SampledBlocks& block = block_of(first, end);
        const bool sparse = layer == 0 && graph_.gather_sparse_features;
        if (sparse) {
          graph_.gather_sparse_features(block.nodes, sparse_input);
        } else if (layer == 0) {
          input.resize(static_cast<Index>(block.nodes.size()), graph_.feature_dim);
          graph_.gather_features(block.nodes, input.data());
        } else {
          input.resize(static_cast<Index>(block.nodes.size()), current.cols());
          gather_rows(current, block.nodes, input.data());
        }
        const Matrix<float>& out = sparse ? model.forward_layer(layer, block.blocks[0], sparse_input)
                                          : model.forward_layer(layer, block.blocks[0], input);
        if (first == 0) next.resize(n, out.cols());
        next.middleRows(first, end - first) = out;
        first = end;
      }
      std::swap(current, next);
    }
    return current;
  }

 private:
  // The end of the batch that starts at `first`: at least one node, whatever its degree.
  Index batch_end(Index first) const {
    const auto offsets = graph_.in_edges.offsets;
    const Index n = graph_.in_edges.num_nodes();
    Index end = first + 1;
    while (end < n && offsets[end + 1] - offsets[first] <= inference_edges_) ++end;
    return end;
  }

  // The block of nodes [first, end) and every in-neighbour of theirs.
  const SampledBlocks& block_of(Index first, Index end) {
    const bool whole = first == 0 && end == graph_.in_edges.num_nodes();
    if (whole && whole_graph_) return block_;
    targets_.resize(static_cast<std::size_t>(end - first));
    for (Index i = first; i < end; ++i) targets_[i - first] = static_cast<NodeId>(i);
    neighbors_.sample(targets_, 0, block_);
    whole_graph_ = whole;
    return block_;
  }

  const NodeSource& graph_;
  Index inference_edges_;
  NeighborSampler neighbors_;
  std::vector<NodeId> targets_;
  SampledBlocks block_;
  bool whole_graph_ = false;  // whether block_ is the whole graph's
};

class SampledTrainer {
 public:
  SampledTrainer(NodeClassifier<float>& model, Parameters<float>& params, const NodeSource& graph,
                 std::span<const Index> labels, const Split& split, const NodeTrainingOptions& options,
                 const SamplingOptions& sampling, const Collectives& processes)
      : model_(model),
        params_(params),
        graph_(graph),
        labels_(labels),
        train_nodes_(node_ids(split.train)),
        val_nodes_(node_ids(split.val)),
        batch_size_(sampling.batch_size),
        seed_(options.seed),
        exact_validation_(sampling.exact_validation),
        inference_(exact_validation_ ? std::optional<LayerwiseInference>(std::in_place, graph, sampling.inference_edges)
                                     : std::nullopt),
        val_targets_(exact_validation_ ? detail::part_targets(labels, split.val, model.options().classes, "validation")
                                       : std::vector<Index>{}),
        prefetcher_(graph, sampling.fanouts.empty() ? default_fanouts(model.options().layers) : sampling.fanouts),
        owner_(processes.size() > 1 ? detail::shared_partition(graph.in_edges, processes)
                                    : std::vector<std::int32_t>{}),
        processes_(processes),
        steps_(params, options) {}

  double step(Index epoch) {
    order_ = train_nodes_;
    SplitMix64 shuffle(derived_seed(seed_, kShuffle, static_cast<std::uint64_t>(epoch)));
    for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[shuffle.below(i)]);
    train_tally_ = {};
    for_each_batch(order_, kTrainDraws, epoch,
                   [&](const Batch& batch, std::span<const NodeId> seeds, Index b, double share) {
      params_.zero_grad();
      double loss = 0;
      if (!seeds.empty()) {
        // Dropout by graph-wide ids: where the fan-outs take every neighbour, the step is the full-batch one.
        const Matrix<float>& logits = batch.forward(model_, Mode::train(steps_.dropout_rng, batch.blocks.nodes));
        batch_targets(seeds, labels_, logits.rows(), targets_);
        loss = cross_entropy_loss(dlogits_, logits, targets_);
        train_tally_.add(loss, logits, targets_, static_cast<Index>(seeds.size()));
        dlogits_ *= static_cast<float>(share);
        model_.backward_blocks(dlogits_);
      }
      // The gradients and loss of all processes; each continues from rank 0's dropout generator, as a
      // process without seeds drew nothing.
      processes_.sum_gradients(params_);
      steps_.dropout_rng = SplitMix64(processes_.from_rank_0(steps_.dropout_rng.state()));
      loss = processes_.sum(loss * share);
      check_finite_step(params_, loss, epoch, b + 1);
      steps_.optimizer.step();
    });
    train_tally_ = train_tally_.summed(processes_);
    return train_tally_.loss();
  }

  detail::ValidationScores score(NodeEpochReport& report) {
    report.train_accuracy = train_tally_.accuracy();
    if (exact_validation_) {
      const Matrix<float> logits = inference_->run(model_, model_.options().layers - 1);
      report.val_accuracy = detail::accuracy(logits, val_targets_);
      report.val_loss = std::isnan(report.val_accuracy) ? detail::kNaN : cross_entropy_loss(dscratch_, logits, val_targets_);
      return detail::node_scores(report);
    }
    Tally val;
    // The same draws every epoch, so that epochs are compared on the same neighbourhoods.
    for_each_batch(val_nodes_, kValidationDraws, 0, [&](const Batch& batch, std::span<const NodeId> seeds, Index, double) {
      if (seeds.empty()) return;
      const Matrix<float>& logits = batch.forward(model_, Mode::inference());
      batch_targets(seeds, labels_, logits.rows(), targets_);
      val.add(cross_entropy_loss(dscratch_, logits, targets_), logits, targets_, static_cast<Index>(seeds.size()));
    });
    val = val.summed(processes_);
    report.val_accuracy = val.accuracy();
    report.val_loss = val.loss();
    return detail::node_scores(report);
  }

  void save(TrainingState& state) const { steps_.save(state); }
  void restore(const TrainingState& state) { steps_.restore(state); }

  // The part of every node in a run of several processes, else empty.
  std::span<const std::int32_t> owner() const { return owner_; }

 private:
  // Calls work(batch, seeds, index, share) on each batch of `nodes` in order, sampling the next batch
  // meanwhile. In a run of several processes a process takes the seeds of every batch that its part
  // of the graph owns, and share is their fraction of the batch (1 for one process).
  template <typename Work>
  void for_each_batch(std::span<const NodeId> nodes, std::uint64_t purpose, Index epoch, Work&& work) {
    const auto total = static_cast<Index>(nodes.size());
    const Index batches = (total + batch_size_ - 1) / batch_size_;
    const auto batch_of = [&](Index b) {
      return nodes.subspan(b * batch_size_, std::min(batch_size_, total - b * batch_size_));
    };
    const auto seeds_of = [&](Index b) { return owned_seeds(batch_of(b), own_seeds_[b % 2]); };
    const auto draws = [&](Index b) {
      return derived_seed(seed_, purpose, static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(b));
    };
    if (batches > 0) prefetcher_.request(seeds_of(0), draws(0));
    for (Index b = 0; b < batches; ++b) {
      const Batch& batch = prefetcher_.take();
      const std::span<const NodeId> seeds = own_seeds_[b % 2];
      if (b + 1 < batches) prefetcher_.request(seeds_of(b + 1), draws(b + 1));
      const double share = static_cast<double>(seeds.size()) / static_cast<double>(batch_of(b).size());
      work(batch, seeds, b, share);
    }
  }

  // The seeds this process's part owns, in `mine` (all of them in a one-process run); returns them.
  std::span<const NodeId> owned_seeds(std::span<const NodeId> seeds, std::vector<NodeId>& mine) const {
    mine.clear();
    for (const NodeId seed : seeds)
      if (owner_.empty() || owner_[static_cast<std::size_t>(seed)] == processes_.rank()) mine.push_back(seed);
    return mine;
  }

  NodeClassifier<float>& model_;
  Parameters<float>& params_;
  const NodeSource& graph_;
  std::span<const Index> labels_;
  std::vector<NodeId> train_nodes_, val_nodes_, order_;
  Index batch_size_;
  std::uint64_t seed_;
  bool exact_validation_;
  std::optional<LayerwiseInference> inference_;  // for exact validation
  std::vector<Index> val_targets_;  // [N] for exact validation, else empty
  BatchPrefetcher prefetcher_;
  std::vector<std::int32_t> owner_;     // the part of every node in a run of several processes, else empty
  const Collectives& processes_;
  std::vector<NodeId> own_seeds_[2];    // a batch's seeds of this process, for the batch in use and the next
  detail::StepState steps_;
  Tally train_tally_;
  std::vector<Index> targets_;
  Matrix<float> dlogits_, dscratch_;
};

void check_sampled_inputs(const NodeClassifier<float>& model, const NodeSource& graph, std::span<const Index> labels,
                          const SamplingOptions& sampling) {
  if (graph.feature_dim != model.options().in_dim)
    throw ArgumentError("node classification: features have " + std::to_string(graph.feature_dim) +
                        " columns, the model takes " + std::to_string(model.options().in_dim));
  if (static_cast<Index>(labels.size()) != graph.in_edges.num_nodes())
    throw ArgumentError("node classification: " + std::to_string(labels.size()) + " labels for " +
                        std::to_string(graph.in_edges.num_nodes()) + " nodes");
  if (sampling.batch_size < 1)
    throw ArgumentError("sampled training: the batch size must be at least 1, got " + std::to_string(sampling.batch_size));
  if (!sampling.fanouts.empty() && static_cast<Index>(sampling.fanouts.size()) != model.options().layers)
    throw ArgumentError("sampled training: " + std::to_string(sampling.fanouts.size()) + " fan-outs for a network of " +
                        std::to_string(model.options().layers) + " layers; give one per layer");
}

}  // namespace

NodeSource node_source(const Graph& graph, const ConstRowsRef<float>& features, bool self_loops) {
  return node_source(graph.in_edges(), features, self_loops);
}

NodeSource node_source(InEdges in_edges, const ConstRowsRef<float>& features, bool self_loops) {
  NodeSource source{.in_edges = in_edges,
                    .feature_dim = features.cols(),
                    .gather_features = [features](std::span<const NodeId> nodes, float* out) {
                      gather_rows(features, nodes, out);
                    },
                    .self_loops = self_loops};
  if (std::optional<SparseMatrix<float>> sparse = detail::sparse_copy_if_sparse(features)) {
    const auto rows = std::make_shared<const SparseMatrix<float>>(std::move(*sparse));
    const SparseRowsView<float, Index> view{rows->outerIndexPtr(), rows->innerIndexPtr(), rows->valuePtr(), rows->cols()};
    source.gather_sparse_features = [rows, view](std::span<const NodeId> nodes, SparseMatrix<float>& out) {
      view.gather(nodes, out);
    };
  }
  return source;
}

std::vector<Index> default_fanouts(Index layers) {
  std::vector<Index> fanouts(static_cast<std::size_t>(std::max<Index>(layers, 0)), 10);
  if (!fanouts.empty()) fanouts.front() = 15;
  return fanouts;
}

NodeTrainingResult train_node_classifier_sampled(NodeClassifier<float>& model, Parameters<float>& params,
                                                 const NodeSource& graph, std::span<const Index> labels,
                                                 const Split& split, const NodeTrainingOptions& options,
                                                 const SamplingOptions& sampling,
                                                 const std::function<void(const NodeEpochReport&)>& on_epoch,
                                                 const TrainingCheckpoints& checkpoints,
                                                 const Collectives& processes) {
  detail::check_node_training_options(options);
  check_sampled_inputs(model, graph, labels, sampling);
  if (split.train.empty()) throw ArgumentError("node training: the training split is empty");
  const Index classes = model.options().classes;
  detail::part_targets(labels, split.train, classes, "training");  // checks the labels of both parts
  detail::part_targets(labels, split.val, classes, "validation");
  SampledTrainer trainer(model, params, graph, labels, split, options, sampling, processes);
  if (processes.size() > 1)
    detail::log_cut(Logger(options.log), graph.in_edges, trainer.owner(), split.train, processes.size());
  return detail::run_node_epochs(trainer, params, split, options, on_epoch, checkpoints);
}

Matrix<float> layerwise_logits(NodeClassifier<float>& model, const NodeSource& graph, const SamplingOptions& sampling) {
  return LayerwiseInference(graph, sampling.inference_edges).run(model, model.options().layers - 1);
}

Matrix<float> layerwise_hidden(NodeClassifier<float>& model, const NodeSource& graph, const SamplingOptions& sampling) {
  if (model.options().layers == 1) {
    Matrix<float> features(graph.in_edges.num_nodes(), graph.feature_dim);
    std::vector<NodeId> all(static_cast<std::size_t>(features.rows()));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<NodeId>(i);
    graph.gather_features(all, features.data());
    return features;
  }
  return LayerwiseInference(graph, sampling.inference_edges).run(model, model.options().layers - 2);
}

}  // namespace edgewise
