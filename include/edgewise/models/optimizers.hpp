/// \file
/// Optimizers over the whole flat parameter buffer, and global gradient-norm clipping.
///
/// Both Adam variants follow torch.optim: with g the gradient and t the step count,
///   m = β1 m + (1 - β1) g,  v = β2 v + (1 - β2) g²,
///   w -= lr / (1 - β1^t) · m / (sqrt(v / (1 - β2^t)) + eps).
/// Adam's weight decay is an L2 term added to g (so it passes through the moments); AdamW's is
/// decoupled: w *= 1 - lr · weight_decay before the update. Decay applies to every parameter.
#pragma once

#include <cstdint>

#include "edgewise/core/parameters.hpp"
#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// Settings of Adam and AdamW; the defaults are PyTorch's for Adam.
struct AdamOptions {
  double lr = 1e-3;  ///< Learning rate.
  double beta1 = 0.9;  ///< Decay of the first-moment average, in [0, 1).
  double beta2 = 0.999;  ///< Decay of the second-moment average, in [0, 1).
  double eps = 1e-8;  ///< Added to the root of the second moment; > 0.
  double weight_decay = 0.0;  ///< Adam: L2 term added to the gradient; AdamW: decoupled decay lr * weight_decay * w.
};

/// Everything Adam carries from one step to the next: restoring it continues training exactly.
template <typename Scalar>
struct AdamState {
  std::int64_t steps = 0;  ///< Steps taken.
  Vector<Scalar> m = {};  ///< First moment, one entry per parameter.
  Vector<Scalar> v = {};  ///< Second moment.
};

/// Adam (Kingma and Ba) over every parameter of one Parameters object, with bias correction.
/// Keeps two moments of size params.size(); not thread-safe.
template <typename Scalar>
class Adam {
 public:
  /// Sizes the moments to the parameters registered so far; register every parameter first.
  /// Throws ArgumentError on options outside their ranges.
  explicit Adam(Parameters<Scalar>& params, const AdamOptions& options = {});

  /// One update from the current gradients (it does not zero them). Throws ArgumentError if
  /// parameters were registered after construction.
  void step();

  /// For warm-up and decay schedules; takes effect at the next step.
  void set_learning_rate(double lr);
  /// The learning rate of the next step.
  double learning_rate() const { return options_.lr; }

  /// The number of steps taken.
  std::int64_t steps() const { return steps_; }
  /// The options, with lr as last set.
  const AdamOptions& options() const { return options_; }

  /// A copy of the step count and moments, for checkpoints.
  AdamState<Scalar> state() const { return {steps_, m_, v_}; }
  /// Continues from a saved state. Throws ArgumentError when the moments do not have one entry per
  /// parameter.
  void restore(const AdamState<Scalar>& state);

 protected:
  /// How weight_decay is applied: as an L2 gradient term, or decoupled from the gradient (AdamW).
  enum class Decay { l2, decoupled };
  /// For AdamW: the same optimizer with decoupled weight decay.
  Adam(Parameters<Scalar>& params, const AdamOptions& options, Decay decay);

 private:
  Parameters<Scalar>& params_;
  AdamOptions options_;
  Decay decay_;
  std::int64_t steps_ = 0;
  Vector<Scalar> m_;  // first moment, one entry per parameter
  Vector<Scalar> v_;  // second moment
};

/// Adam with decoupled weight decay (Loshchilov and Hutter): w -= lr * weight_decay * w at each
/// step, apart from the adaptive gradient step.
template <typename Scalar>
class AdamW : public Adam<Scalar> {
 public:
  /// Throws ArgumentError as Adam's constructor does.
  explicit AdamW(Parameters<Scalar>& params, const AdamOptions& options = {})
      : Adam<Scalar>(params, options, Adam<Scalar>::Decay::decoupled) {}
};

/// Scales every gradient by max_norm / norm when the global L2 norm of all gradients exceeds
/// max_norm, and returns the norm before clipping. A non-finite norm is returned with the gradients
/// left unchanged, so the caller can skip the step. Throws ArgumentError unless max_norm > 0.
template <typename Scalar>
double clip_grad_norm(Parameters<Scalar>& params, double max_norm);

}  // namespace edgewise
