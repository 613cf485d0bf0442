#include "epochs.hpp"

#include <algorithm>
#include <cmath>

namespace edgewise::detail {

bool EarlyStopping::better(double candidate, double best, bool larger_better) const {
  if (std::isnan(candidate)) return false;
  if (std::isnan(best)) return true;
  if (candidate == best) return rule_.ties_count;
  return larger_better ? candidate > best : candidate < best;
}

bool EarlyStopping::record(Index epoch, const ValidationScores& scores) {
  if (!scores.measured) {
    last_progress_ = epoch;
    return true;
  }
  const bool value_better = better(scores.value, value_, rule_.larger_better);
  const bool loss_better = rule_.with_loss && better(scores.loss, loss_, false);
  if (value_better || loss_better) last_progress_ = epoch;
  if (value_better) value_ = scores.value;
  if (loss_better) loss_ = scores.loss;
  return value_better && (loss_better || !rule_.with_loss);
}

void EarlyStopping::save(TrainingState& state) const {
  state.progress_accuracy = value_;
  state.progress_loss = loss_;
  state.last_progress = last_progress_;
}

void EarlyStopping::restore(const TrainingState& state) {
  value_ = std::isnan(state.progress_accuracy) ? state.best_validation : state.progress_accuracy;
  loss_ = std::isnan(state.progress_loss) ? state.best_loss : state.progress_loss;
  last_progress_ = std::max(state.last_progress, state.best_epoch);
}

}  // namespace edgewise::detail
