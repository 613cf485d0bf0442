// The epoch loop of every training in models/: molecule training (molecule_predictor_training),
// full-batch, sampled and partitioned node training, and link training. It resumes from a checkpoint,
// runs the epochs, judges each by the early-stopping rule, keeps the weights of the best epoch and
// writes checkpoints; a trainer supplies the epoch's work:
//   double step(Index epoch);                     // trains one epoch, returns its training loss
//   ValidationScores score(Report& report);       // fills the report's validation, returns what it judges
//   void save(TrainingState&) const;              // its optimizer and random state, for checkpoints
//   void restore(const TrainingState&);
// Report is EpochReport (molecule_predictor_training.hpp), NodeEpochReport (node_training.hpp) or
// LinkEpochReport (link_training.hpp). Private to models/.
#pragma once

#include <chrono>
#include <functional>
#include <limits>
#include <string>
#include <string_view>

#include "edgewise/core/log.hpp"
#include "edgewise/core/parameters.hpp"
#include "edgewise/models/link_training.hpp"
#include "edgewise/models/molecule_predictor_training.hpp"
#include "edgewise/models/node_training.hpp"
#include "edgewise/models/training_state.hpp"

namespace edgewise::detail {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// An epoch's validation, as the early-stopping rule judges it.
struct ValidationScores {
  bool measured = false;  ///< false without validation data: every epoch then improves
  double value = kNaN;    ///< the early-stopping metric (node training: accuracy)
  double loss = kNaN;     ///< node training: the validation loss; NaN where the rule does not judge it
};

/// How epochs are judged. An epoch makes progress, restarting the patience count, when its value or
/// (with_loss) its loss is better than the best of any earlier epoch; its weights are kept when both
/// are. ties_count: an equal score counts as better. Molecule training judges its metric alone, strictly;
/// node training both, ties counting, the rule of the GAT reference code.
struct StoppingRule {
  bool larger_better = true;  ///< of the value; a lower loss is better
  bool with_loss = false;
  bool ties_count = false;
  Index patience = 1;  ///< epochs without progress before stopping
};

/// The state of a StoppingRule over the epochs so far.
class EarlyStopping {
 public:
  explicit EarlyStopping(const StoppingRule& rule) : rule_(rule) {}
  /// Records an epoch's scores; returns whether its weights are kept.
  bool record(Index epoch, const ValidationScores& scores);
  /// Whether the epoch just recorded ends training.
  bool exhausted(Index epoch) const { return epoch - last_progress_ >= rule_.patience; }
  // In a checkpoint's progress fields (TrainingState), NaN for "none yet".
  void save(TrainingState& state) const;
  void restore(const TrainingState& state);

 private:
  bool better(double candidate, double best, bool larger_better) const;

  StoppingRule rule_;
  double value_ = kNaN;  // the best of any epoch so far; NaN: none yet
  double loss_ = kNaN;
  Index last_progress_ = 0;
};

/// What run_epochs needs besides the trainer: the last epoch, the rule, the log, its verbose opening
/// line, the value's name, and how the stopping message names what did not improve.
struct EpochSettings {
  Index epochs = 1;
  StoppingRule stopping;
  LogSettings log;
  std::string setup;
  // Each epoch's progress message points to it: node training's is a literal, which a sink may keep
  // after training; molecule training's lives while training runs.
  std::string_view metric;
  std::string judged_by;
};

inline std::string epoch_text(const EpochReport& report, const EpochSettings& settings) {
  return epoch_line(report, settings.epochs, std::string(settings.metric));
}
inline std::string epoch_text(const NodeEpochReport& report, const EpochSettings&) { return node_epoch_line(report); }
inline std::string epoch_text(const LinkEpochReport& report, const EpochSettings& settings) {
  return link_epoch_line(report, settings.metric);
}

/// Runs the trainer's epochs from the first after checkpoints.resume (else 1) until settings.epochs or
/// early stopping; calls on_epoch after each, then checkpoints.save when one is due (not after the epoch
/// that stops training). Leaves the weights of the best epoch in params, fills the result's history,
/// epochs_run and best_epoch (TrainingResult, NodeTrainingResult), and returns the best epoch's scores.
template <typename Trainer, typename Result, typename Report = typename decltype(Result::history)::value_type>
ValidationScores run_epochs(Trainer& trainer, Parameters<float>& params, const EpochSettings& settings,
                            const TrainingCheckpoints& checkpoints, Result& result,
                            const std::function<void(const Report&)>& on_epoch) {
  ValidationScores best;
  Vector<float> best_weights = params.values();
  EarlyStopping stopping(settings.stopping);
  Index first_epoch = 1;
  if (checkpoints.resume) {
    const TrainingState& state = *checkpoints.resume;
    check_resumable(state, params.size(), settings.epochs);
    trainer.restore(state);
    stopping.restore(state);
    best_weights = state.best_weights;
    result.best_epoch = state.best_epoch;
    best = {.measured = true, .value = state.best_validation, .loss = state.best_loss};
    first_epoch = state.epoch + 1;
  }
  const Logger log(settings.log);
  log.verbose(settings.setup);
  const auto start = std::chrono::steady_clock::now();
  for (Index epoch = first_epoch; epoch <= settings.epochs; ++epoch) {
    Report report;
    report.epoch = epoch;
    report.train_loss = trainer.step(epoch);
    const ValidationScores scores = trainer.score(report);
    report.improved = stopping.record(epoch, scores);
    if (report.improved) {
      result.best_epoch = epoch;
      best = scores;
      best_weights = params.values();
    }
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.history.push_back(report);
    result.epochs_run = epoch;
    if (on_epoch) on_epoch(report);
    if (log.enabled(LogLevel::normal)) {
      const EpochProgress progress{.epoch = epoch,
                                   .epochs = settings.epochs,
                                   .train_loss = report.train_loss,
                                   .metric = settings.metric,
                                   .validation = scores.value,
                                   .seconds = report.seconds};
      log.normal(epoch_text(report, settings), &progress);
    }
    if (stopping.exhausted(epoch)) {
      log.verbose("stopping early: no improvement " + settings.judged_by + " for " +
                  std::to_string(settings.stopping.patience) + " epochs; keeping epoch " +
                  std::to_string(result.best_epoch));
      break;
    }
    if (checkpoint_due(checkpoints, epoch)) {
      TrainingState state{.epoch = epoch,
                          .best_weights = best_weights,
                          .best_epoch = result.best_epoch,
                          .best_validation = best.value,
                          .best_loss = best.loss};
      trainer.save(state);
      stopping.save(state);
      checkpoints.save(state);
    }
  }
  params.values() = best_weights;
  return best;
}

}  // namespace edgewise::detail
