/// \file
/// Choosing training options by K-fold cross-validation inside the training and validation rows of a
/// split (its test rows are never read): candidates from a grid or a preset, each trained and scored
/// on every held-out fold, and the choice: from 4 folds the fastest candidate whose paired t value
/// against the best mean is under 2 in size, with fewer the best mean. `edgewise tune` and Python's
/// `edgewise.tune` run this.
///
///   const std::vector<Split> folds = tuning_folds(split, 5, seed);
///   TuningResult result = tune_molecules(load, folds, {{"epochs", 50}}, grid_candidates(grid, "grid.json"), "rmse", {});
///   nlohmann::json chosen = result.candidates[result.chosen].options;
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "edgewise/core/log.hpp"
#include "edgewise/splits/splits.hpp"
#include "edgewise/tasks/link/link_training.hpp"
#include "edgewise/tasks/molecule/molecule_model.hpp"
#include "edgewise/tasks/node/node_model.hpp"
#include "edgewise/tasks/params.hpp"

namespace edgewise {

/// One candidate's cross-validation.
struct CandidateScores {
  nlohmann::json options = nlohmann::json::object();  ///< the training options it sets (tasks/params.hpp)
  std::vector<double> folds = {};                     ///< the metric of each held-out fold
  double seconds = 0;                                 ///< training and scoring over all folds
  /// The folds' mean.
  double mean() const;
  /// The folds' sample standard deviation (0 for one fold).
  double sd() const;
};

/// The candidates of a cross-validation, scored, and its choice.
struct TuningResult {
  std::string metric;                           ///< scored on each held-out fold
  std::vector<CandidateScores> candidates = {};  ///< in the grid's order
  std::size_t best = 0;                         ///< the candidate of the best mean
  std::size_t chosen = 0;  ///< the one chosen: see the file's comment and paired_test_applies
  /// Mean and t value of the paired fold differences candidate `c` - best (t 0 where they do not vary).
  std::pair<double, double> difference(std::size_t c) const;
  /// What options files keep of it ("cross_validation"): `run` (its "data", "split", "seed" and
  /// "metric"), the number of folds, the chosen candidate and every candidate's scores.
  nlohmann::json record(const nlohmann::json& run, Index folds) const;
};

/// A paired t test over K folds has K - 1 degrees of freedom; with 1 or 2 a t value says little (two
/// fold differences of 0.030 and 0.031 give t = 61; the 5% critical value is 12.7 for 1 and 4.3 for
/// 2), so fewer folds than this choose by the mean alone.
inline constexpr std::size_t kFewestFoldsForThePairedTest = 4;
/// Candidates whose paired t value against the best is under this in size are indistinguishable.
inline constexpr double kIndistinguishableT = 2.0;

/// Whether `folds` folds are enough for the paired t test (kFewestFoldsForThePairedTest).
bool paired_test_applies(std::size_t folds);

/// The candidates of the built-in grid `name` for task `task` ("graph", "molecule", "node" or "link"):
/// "small" is one change at a time from the defaults, each a choice the defaults were made from.
/// ArgumentError for another name.
nlohmann::json tuning_preset(std::string_view task, std::string_view name);
/// The candidates of a grid: an array of candidates (objects of options), or an object mapping
/// options to lists of values, whose every combination is a candidate. Error naming `source` for
/// anything else, an empty grid or an empty list.
nlohmann::json grid_candidates(const nlohmann::json& grid, const std::string& source);

/// The training and validation rows of `split` in `folds` folds (cross_validation_folds, a tenth of
/// each fold's training rows to validate on), drawn by `seed`.
std::vector<Split> tuning_folds(const Split& split, Index folds, std::uint64_t seed);

/// Called after each fold's training: the candidate, the fold and the fold's metric.
using FoldReport = std::function<void(std::size_t candidate, std::size_t fold, double value)>;

/// Reads the molecules for a model configuration (its featurizer), setting its tasks.
using MoleculeLoader = std::function<MoleculeDataset(MoleculeModelConfig& config)>;

/// Cross-validates molecule models: for each candidate, the options `given` with the candidate's
/// (molecule_training_params, options named by `naming`), the molecules loaded for its featurizer,
/// one model trained and scored by `metric` for each of `row_folds` (folds of data rows, so that
/// candidates whose featurizers skip different molecules share them). Throws ArgumentError for
/// options the table refuses and a metric the task type does not have.
TuningResult tune_molecules(const MoleculeLoader& load, const std::vector<Split>& row_folds,
                            const nlohmann::json& given, const nlohmann::json& candidates,
                            const std::string& metric, const LogSettings& log, const FoldReport& report = {},
                            const ParamNaming& naming = {});

/// Cross-validates node classifiers on `data`: for each candidate, the options `given` with the
/// candidate's (node_training_params), one classifier trained and its accuracy on the held-out
/// nodes of each of `folds`.
TuningResult tune_nodes(const NodeGraph& data, const std::vector<Split>& folds, const nlohmann::json& given,
                        const nlohmann::json& candidates, const LogSettings& log, const FoldReport& report = {},
                        const ParamNaming& naming = {.task = "--task node"});

/// The training and validation links of `split` in `folds` folds: each fold holds out one part of
/// them to score, validates on a tenth of the rest and trains on the others, and draws as many
/// non-links for its held-out and validation links among pairs that are no link of `graph_links`
/// (the whole graph's, test links included), by `seed`.
std::vector<LinkSplit> link_tuning_folds(const LinkSplit& split, std::span<const NodePair> graph_links, Index num_nodes,
                                         Index folds, std::uint64_t seed);

/// The figure tune_links scores held-out links by: the metric of `given`, else default_link_metric
/// for the model the given options make for `data` and the fewest held-out non-links of a fold.
LinkMetric link_tuning_metric(const NodeGraph& data, const std::vector<LinkSplit>& folds, const nlohmann::json& given,
                              const ParamNaming& naming = {.task = "--task link"});

/// Cross-validates link predictors on `data`: for each candidate, the options `given` with the
/// candidate's (link_training_params), one model trained on each fold's training links (the encoder
/// seeing those alone) and the figure of its held-out links against their non-links that
/// link_tuning_metric names; a metric given also chooses each model's epoch.
TuningResult tune_links(const NodeGraph& data, const std::vector<LinkSplit>& folds, const nlohmann::json& given,
                        const nlohmann::json& candidates, const LogSettings& log, const FoldReport& report = {},
                        const ParamNaming& naming = {.task = "--task link"});

}  // namespace edgewise
