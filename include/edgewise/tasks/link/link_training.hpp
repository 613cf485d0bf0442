/// \file
/// Training a link predictor as `edgewise train --task link` does, for every front end: the split of
/// a graph's links that a specification names, the training, the test report and its record.
///
///   const std::vector<NodePair> links = graph_links(data);
///   const LinkSplit split = make_link_split(parse_link_split("random", parse_split_fractions("0.85,0.05,0.1")),
///                                           data, links, seed);
///   TrainedLinkModel trained = train_link_model(data, split, {}, {});  // the default model and training
///   trained.model.set_training_summary(link_training_summary(trained, links.size(), "edges.txt", "random"));
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "edgewise/io/graph_store.hpp"
#include "edgewise/tasks/common/split_spec.hpp"
#include "edgewise/tasks/link/link_model.hpp"

namespace edgewise {

/// The split `spec` names of `links`, the whole graph's (graph_links(data)): random in its fractions
/// (split_links), or read from its folder, whose files name nodes as data's edge list does
/// (read_link_split), seeded by `seed`. Throws what those throw, and ArgumentError for a kind of
/// split that applies to other tasks.
LinkSplit make_link_split(const SplitSpec& spec, const NodeGraph& data, std::span<const NodePair> links,
                          std::uint64_t seed);

/// A trained link predictor, how its training went, and its test figures.
struct TrainedLinkModel {
  LinkModel model;             ///< trained, without a training summary
  LinkTrainingResult result;   ///< its epochs, best validation figure and the metric of it
  LinkTrainingOptions options;  ///< what it trained with
  /// The test links against the test negatives, scored on the graph of the training links; absent
  /// without test links.
  std::optional<LinkMetrics> test;
  std::string defaults;  ///< LinkModelPlan::defaults
};

/// Builds a link model of plan.config (its encoder, scorer and identity features; the input options
/// and nodes are data's), initializes it from training.seed, trains it on split.train
/// (LinkModel::fit on the graph of those links, with_edges), stopping early on split.val, and scores
/// split.test on the same graph. Logs on training.log the defaults the data chose, the parameter
/// count, the best epoch and the test figures. on_epoch runs after every
/// epoch on the calling thread and may throw to stop training.
TrainedLinkModel train_link_model(const NodeGraph& data, const LinkSplit& split, const LinkModelPlan& plan,
                                  const LinkTrainingOptions& training,
                                  const std::function<void(const LinkEpochReport&)>& on_epoch = {});

/// Links of each part that training on a graph store scores at most: the validation links after
/// every epoch, the test links at the end, each against as many non-links.
inline constexpr Index kMostScoredStoreLinks = Index{1} << 16;

/// Trains a link predictor on a graph store too large to run whole, on sampled mini-batches
/// (LinkModel::fit_sampled). The links are split by hashed_link_part in `fractions` and
/// training.seed; the encoder sees the training links alone (a LinkGraph). Up to
/// kMostScoredStoreLinks validation and test links are drawn from their parts (sample_hashed_links)
/// and scored on sampled blocks against as many non-links of the whole graph (draw_non_links_of).
/// The model records no node names: it has no identity features. A store's structural features,
/// computed from all of its links, are computed again from the training links for training and
/// scoring (a copy of their graph for the time it takes), so that no held-out link reaches the
/// encoder. Logs as the other overload does.
TrainedLinkModel train_link_model(const GraphStore& store, const SplitFractions& fractions, const LinkModelPlan& plan,
                                  const LinkTrainingOptions& training, const LinkSamplingOptions& sampling,
                                  const std::function<void(const LinkEpochReport&)>& on_epoch = {});

/// The model file's record of the training: the data (named `data_name`) and its number of links,
/// the split (described by `split`), seed, epochs, best validation and test figures, and the
/// defaults the data chose.
TrainingSummary link_training_summary(const TrainedLinkModel& trained, Index links, const std::string& data_name,
                                      const std::string& split);

/// "ROC-AUC 0.931, average precision 0.925, Hits@50 0.612, MRR 0.083", as logs and reports print them.
std::string link_metrics_text(const LinkMetrics& metrics);

}  // namespace edgewise
