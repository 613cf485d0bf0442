/// \file
/// Link prediction on graphs too large to run whole: mini-batch training of the encoder and scorer
/// of link_training.hpp on sampled neighbourhoods (graph/sampling.hpp), as PyTorch Geometric's
/// LinkNeighborLoader trains.
///
/// Each epoch takes links_per_epoch training links, drawn uniformly from the graph the encoder sees
/// (a LinkGraph, which holds the training links alone), batch_size at a time, each batch with as many
/// non-links (pairs that are no link of that graph: uniform, or by degree as the options say). The
/// batch's seeds are the distinct nodes of its pairs: their blocks are sampled around them, the
/// network runs over the blocks (NodeClassifier::forward_blocks) and one Adam step is taken on the
/// mean binary cross-entropy of the pairs' scores. A background thread samples the next batch while
/// the network runs. After each epoch the validation links and their non-links are scored the same
/// way in inference mode, with the same draws every epoch, and early stopping keeps the weights of
/// the best validation ROC-AUC (run_epochs, as full-batch link training). Every draw comes from
/// seeds derived from options.seed, the epoch and the batch: the same seed, data and thread count
/// give the same weights.
///
///   const LinkGraph seen(store.in_edges(), in_training);       // the training links alone
///   NodeSource source = store_source(store);
///   source.in_edges = seen.in_edges();
///   train_link_predictor_sampled(encoder, scorer, params, seen, source, {val, val_negatives}, {}, {});
///   const std::vector<float> scores = sampled_link_scores(encoder, scorer, source, test, {}, seed);
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "edgewise/graph/link_graph.hpp"
#include "edgewise/models/link_training.hpp"
#include "edgewise/models/sampled_training.hpp"

namespace edgewise {

/// Settings of sampled link training and scoring.
struct LinkSamplingOptions {
  Index batch_size = 512;             ///< training links a step, each with a non-link
  Index links_per_epoch = Index{1} << 20;  ///< training links drawn an epoch, with replacement
  std::vector<Index> fanouts = {};    ///< one per layer, seeds first (NeighborSampler); empty: default_fanouts

  /// Whether every setting is the same.
  bool operator==(const LinkSamplingOptions&) const = default;
};

/// Links to score against non-links.
struct ScoredLinks {
  std::span<const NodePair> links;      ///< label 1
  std::span<const NodePair> non_links;  ///< label 0
};

/// Trains `encoder` and `scorer` (their parameters in params) on sampled mini-batches, as the file
/// comment says. seen: the graph of the training links; source: its in-edges (seen.in_edges()) and
/// the features of its nodes; validation: scored after every epoch (no early stopping when it has
/// no links). Throws ArgumentError for a graph without links, options or inputs that do not fit
/// (the source's features not the encoder's width, fan-outs not one a layer), DivergenceError when
/// a step's loss or gradient is not finite.
LinkTrainingResult train_link_predictor_sampled(NodeClassifier<float>& encoder, LinkScorer& scorer,
                                                Parameters<float>& params, const LinkGraph& seen,
                                                const NodeSource& source, ScoredLinks validation,
                                                const LinkTrainingOptions& options, const LinkSamplingOptions& sampling,
                                                const std::function<void(const LinkEpochReport&)>& on_epoch = {});

/// The logit of a link for each pair, each scored on blocks sampled around its nodes in batches of
/// 2 × batch_size pairs, in inference mode, with draws from `seed`.
std::vector<float> sampled_link_scores(NodeClassifier<float>& encoder, LinkScorer& scorer, const NodeSource& source,
                                       std::span<const NodePair> pairs, const LinkSamplingOptions& sampling,
                                       std::uint64_t seed);

}  // namespace edgewise
