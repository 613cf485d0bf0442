#include "edgewise/tasks/tuning.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "edgewise/core/error.hpp"
#include "edgewise/tasks/molecule/molecule_training.hpp"
#include "edgewise/tasks/node/node_training.hpp"

namespace edgewise {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// The mean and the sample standard deviation (0 for one value).
std::pair<double, double> mean_and_sd(const std::vector<double>& values) {
  const auto n = static_cast<double>(values.size());
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double sum = 0;
  for (const double v : values) sum += (v - mean) * (v - mean);
  return {mean, values.size() > 1 ? std::sqrt(sum / (n - 1)) : 0.0};
}

// `given` with the candidate's options where `given` has none.
json with_candidate(json given, const json& candidate) {
  for (const auto& [name, value] : candidate.items())
    if (!given.contains(name)) given[name] = value;
  return given;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The mean of `metric` over the tasks of the molecules `set`.
double set_metric(const MoleculeModel& model, const MoleculeSet& set, const std::string& metric) {
  for (const auto& [name, value] : molecule_metrics(model, set).means(""))
    if (name == ' ' + metric) return value;
  throw ArgumentError("--metric " + metric + " does not apply to " +
                      (model.config().task_type == TaskType::regression ? "regression" : "classification"));
}

// The best mean, and the candidate chosen.
void choose(TuningResult& result) {
  const bool higher = larger_is_better(result.metric);
  const std::vector<CandidateScores>& candidates = result.candidates;
  std::size_t best = 0;
  for (std::size_t c = 1; c < candidates.size(); ++c)
    if (higher ? candidates[c].mean() > candidates[best].mean() : candidates[c].mean() < candidates[best].mean())
      best = c;
  result.best = best;
  result.chosen = best;
  if (!paired_test_applies(candidates[best].folds.size())) return;
  for (std::size_t c = 0; c < candidates.size(); ++c)
    if (std::abs(result.difference(c).second) < kIndistinguishableT &&
        candidates[c].seconds < candidates[result.chosen].seconds)
      result.chosen = c;
}

// Scores each candidate on each of `folds` folds: prepare(candidate) reads what the candidate needs
// and returns its scorer, whose call with k trains on fold k and gives its metric. Each candidate's
// seconds count its folds, not its preparation. Chooses among them.
template <typename Prepare>
TuningResult cross_validate(const std::string& metric, const json& candidates, std::size_t folds,
                            const FoldReport& report, Prepare&& prepare) {
  TuningResult result{.metric = metric};
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const auto score_fold = prepare(candidates[c]);
    CandidateScores scores{.options = candidates[c]};
    const Clock::time_point start = Clock::now();
    for (std::size_t k = 0; k < folds; ++k) {
      scores.folds.push_back(score_fold(k));
      if (report) report(c, k, scores.folds.back());
    }
    scores.seconds = seconds_since(start);
    result.candidates.push_back(std::move(scores));
  }
  choose(result);
  return result;
}

}  // namespace

double CandidateScores::mean() const { return mean_and_sd(folds).first; }
double CandidateScores::sd() const { return mean_and_sd(folds).second; }

std::pair<double, double> TuningResult::difference(std::size_t c) const {
  const std::vector<double>& candidate = candidates[c].folds;
  const std::vector<double>& of_best = candidates[best].folds;
  std::vector<double> differences(candidate.size());
  for (std::size_t k = 0; k < differences.size(); ++k) differences[k] = candidate[k] - of_best[k];
  const auto [mean, sd] = mean_and_sd(differences);
  return {mean, sd > 0 ? mean / (sd / std::sqrt(static_cast<double>(differences.size()))) : 0.0};
}

json TuningResult::record(const json& run, Index folds) const {
  json scores = json::array();
  for (const CandidateScores& candidate : candidates)
    scores.push_back({{"options", candidate.options},
                      {"folds", candidate.folds},
                      {"mean", candidate.mean()},
                      {"sd", candidate.sd()},
                      {"seconds", candidate.seconds}});
  return {{"data", run.at("data")}, {"split", run.at("split")},   {"folds", folds},          {"seed", run.at("seed")},
          {"metric", run.at("metric")}, {"chosen", chosen}, {"candidates", scores}};
}

bool paired_test_applies(std::size_t folds) { return folds >= kFewestFoldsForThePairedTest; }

json tuning_preset(std::string_view task, std::string_view name) {
  if (name != "small") throw ArgumentError("preset: expected small, got '" + std::string(name) + "'");
  if (task == "link")
    return json::array({json::object(),
                        {{"scorer", "dot"}},
                        {{"non-links", "degree"}},
                        {{"identity-features", true}, {"dropout", 0.2}},
                        {{"layers", 2}, {"hidden", 256}},
                        {{"score", "scaled_dot"}},
                        {{"embedding-dim", 32}}});
  if (task == "node")
    return json::array({json::object(),
                        {{"dropout", 0.6}, {"attention-dropout", 0.6}},
                        {{"dropout", 0.2}, {"attention-dropout", 0.2}},
                        {{"weight-decay", 0.0}},
                        {{"score", "gatv2"}},
                        {{"head-dim", 16}}});
  return json::array({json::object(),
                      {{"score", "gatv2"}},
                      {{"readout", "mean"}},
                      {{"readout", "sum"}},
                      {{"hidden", 128}},
                      {{"descriptors", false}},
                      {{"atom-crippen", false}},
                      {{"dropout", 0.0}},
                      {{"lr", 3e-4}},
                      {{"ensemble", 1}}});
}

json grid_candidates(const json& grid, const std::string& source) {
  if (grid.is_array()) {
    for (const json& candidate : grid)
      if (!candidate.is_object()) throw Error(source + ": each candidate must be an object of options, got " + candidate.dump());
    if (grid.empty()) throw Error(source + ": the grid has no candidates");
    return grid;
  }
  if (!grid.is_object()) throw Error(source + ": expected an array of candidates or an object of option value lists");
  json candidates = json::array({json::object()});
  for (const auto& [name, values] : grid.items()) {
    if (!values.is_array() || values.empty())
      throw Error(source + ": option '" + name + "' needs a non-empty list of values, got " + values.dump());
    json product = json::array();
    for (const json& candidate : candidates)
      for (const json& value : values) {
        json next = candidate;
        next[name] = value;
        product.push_back(std::move(next));
      }
    candidates = std::move(product);
  }
  return candidates;
}

std::vector<Split> tuning_folds(const Split& split, Index folds, std::uint64_t seed) {
  std::vector<Index> rows = split.train;
  rows.insert(rows.end(), split.val.begin(), split.val.end());
  return cross_validation_folds(rows, folds, 0.1, seed);
}

TuningResult tune_molecules(const MoleculeLoader& load, const std::vector<Split>& row_folds, const json& given,
                            const json& candidates, const std::string& metric, const LogSettings& log,
                            const FoldReport& report, const ParamNaming& naming) {
  return cross_validate(metric, candidates, row_folds.size(), report, [&](const json& candidate) {
    MoleculeTrainingPlan plan = molecule_training_params(with_candidate(given, candidate), naming).plan;
    plan.training.log = log;
    MoleculeDataset data = load(plan.config);  // also sets the configuration's tasks
    return [&, plan, data = std::move(data)](std::size_t k) {
      const Split fold = molecule_split(row_folds[k], data);
      const TrainedMoleculeModel trained = train_molecule_model(data, fold, plan);
      return set_metric(trained.model, molecule_set(data, fold.test), metric);
    };
  });
}

TuningResult tune_nodes(const NodeGraph& data, const std::vector<Split>& folds, const json& given,
                        const json& candidates, const LogSettings& log, const FoldReport& report,
                        const ParamNaming& naming) {
  return cross_validate("accuracy", candidates, folds.size(), report, [&](const json& candidate) {
    NodeTrainingParams params = node_training_params(with_candidate(given, candidate), naming);
    params.training.log = log;
    return [&, params](std::size_t k) {
      const NodeTrainingSettings settings = node_training_settings(params.network, params.training,
                                                                   params.regularization, data, folds[k], params.batching);
      return train_node_model(data, folds[k], settings).model.evaluate(data, folds[k].test).metrics.accuracy;
    };
  });
}

std::vector<LinkSplit> link_tuning_folds(const LinkSplit& split, std::span<const NodePair> graph_links, Index num_nodes,
                                         Index folds, std::uint64_t seed) {
  std::vector<NodePair> links = split.train;
  links.insert(links.end(), split.val.begin(), split.val.end());
  std::vector<Index> rows(links.size());
  std::iota(rows.begin(), rows.end(), Index{0});
  const auto pairs = [&links](const std::vector<Index>& part) {
    std::vector<NodePair> chosen;
    chosen.reserve(part.size());
    for (const Index row : part) chosen.push_back(links[static_cast<std::size_t>(row)]);
    return chosen;
  };
  std::vector<LinkSplit> link_folds;
  LinkSet excluded(graph_links);
  SplitMix64 rng(seed ^ 0x464F4C44534E4547ULL);  // the folds' non-links, a stream apart from the shuffle's
  for (const Split& fold : cross_validation_folds(rows, folds, 0.1, seed)) {
    LinkSplit link_fold{.train = pairs(fold.train), .val = pairs(fold.val), .test = pairs(fold.test),
                        .val_negatives = {}, .test_negatives = {}};
    link_fold.val_negatives = draw_non_links(static_cast<Index>(link_fold.val.size()), num_nodes, excluded, rng);
    link_fold.test_negatives = draw_non_links(static_cast<Index>(link_fold.test.size()), num_nodes, excluded, rng);
    excluded.forget_inserted();
    link_folds.push_back(std::move(link_fold));
  }
  return link_folds;
}

LinkMetric link_tuning_metric(const NodeGraph& data, const std::vector<LinkSplit>& folds, const json& given,
                              const ParamNaming& naming) {
  const LinkTrainingParams params = link_training_params(given, naming);
  if (params.training.metric) return *params.training.metric;
  std::size_t fewest = std::numeric_limits<std::size_t>::max();
  for (const LinkSplit& fold : folds) fewest = std::min(fewest, fold.test_negatives.size());
  return default_link_metric(params.model(data).config.identity_features, fewest);
}

TuningResult tune_links(const NodeGraph& data, const std::vector<LinkSplit>& folds, const json& given,
                        const json& candidates, const LogSettings& log, const FoldReport& report,
                        const ParamNaming& naming) {
  const LinkMetric metric = link_tuning_metric(data, folds, given, naming);
  return cross_validate(std::string(name_of(kLinkMetricNames, metric)), candidates, folds.size(), report,
                        [&](const json& candidate) {
    LinkTrainingParams params = link_training_params(with_candidate(given, candidate), naming);
    params.training.log = log;
    return [&, params](std::size_t k) {
      const TrainedLinkModel trained = train_link_model(data, folds[k], params.model(data), params.training);
      if (!trained.test) throw ArgumentError("tune: fold " + std::to_string(k + 1) + " holds out no links to score");
      return link_metric_value(*trained.test, metric);
    };
  });
}

}  // namespace edgewise
