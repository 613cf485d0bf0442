#include "edgewise/models/training_state.hpp"

#include <atomic>
#include <cmath>
#include <sstream>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"

namespace edgewise {
namespace {

// The first non-finite gradient entry's parameter, as "name (value)"; empty when all are finite.
std::string first_nonfinite_gradient(const Parameters<float>& params) {
  const auto grads = params.grads();
  for (const ParameterSlot& slot : params.slots()) {
    const auto values = grads.segment(slot.offset, slot.size());
    for (Index i = 0; i < values.size(); ++i) {
      if (std::isfinite(values[i])) continue;
      std::ostringstream where;
      where << slot.name << " (entry " << i << " of " << slot.size() << " is " << values[i] << ")";
      return where.str();
    }
  }
  return {};
}

// Whether every gradient is finite, checked in blocks across threads: a step of a small batch spent
// as long on this check on one thread as on the optimizer's update on all.
bool gradients_finite(const Parameters<float>& params) {
  const auto grads = params.grads();
  std::atomic<bool> finite = true;
  parallel_for_blocks(grads.size(), 16 * kElementBlock, [&](Index begin, Index end) {
    if (!grads.segment(begin, end - begin).allFinite()) finite.store(false, std::memory_order_relaxed);
  });
  return finite.load();
}

}  // namespace

void check_finite_step(const Parameters<float>& params, double loss, Index epoch, Index batch) {
  if (std::isfinite(loss) && gradients_finite(params)) return;
  std::ostringstream message;
  message << "training diverged in epoch " << epoch << ", batch " << batch << ": the loss is " << loss;
  const std::string gradient = first_nonfinite_gradient(params);
  if (!gradient.empty()) message << "; first non-finite gradient: " << gradient;
  message << ". The weights of this step were not applied; try a lower learning rate, or check the inputs for "
             "infinite values";
  throw DivergenceError(message.str());
}

void check_resumable(const TrainingState& state, Index size, Index epochs) {
  if (state.optimizer.m.size() != size || state.best_weights.size() != size)
    throw ArgumentError("resume: the training state holds " + std::to_string(state.best_weights.size()) +
                        " weights, the model has " + std::to_string(size));
  if (state.epoch < 0 || state.epoch > epochs || state.best_epoch < 0 || state.best_epoch > state.epoch)
    throw ArgumentError("resume: the training state's epoch " + std::to_string(state.epoch) + " (best " +
                        std::to_string(state.best_epoch) + ") does not fit a run of " + std::to_string(epochs) +
                        " epochs");
}

}  // namespace edgewise
