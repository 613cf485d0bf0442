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

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
};

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
  double learning_rate() const { return options_.lr; }

  std::int64_t steps() const { return steps_; }
  const AdamOptions& options() const { return options_; }

 protected:
  enum class Decay { l2, decoupled };
  Adam(Parameters<Scalar>& params, const AdamOptions& options, Decay decay);

 private:
  Parameters<Scalar>& params_;
  AdamOptions options_;
  Decay decay_;
  std::int64_t steps_ = 0;
  Vector<Scalar> m_;  // first moment, one entry per parameter
  Vector<Scalar> v_;  // second moment
};

template <typename Scalar>
class AdamW : public Adam<Scalar> {
 public:
  explicit AdamW(Parameters<Scalar>& params, const AdamOptions& options = {})
      : Adam<Scalar>(params, options, Adam<Scalar>::Decay::decoupled) {}
};

/// Scales every gradient by max_norm / norm when the global L2 norm of all gradients exceeds
/// max_norm, and returns the norm before clipping. A non-finite norm is returned with the gradients
/// left unchanged, so the caller can skip the step. Throws ArgumentError unless max_norm > 0.
template <typename Scalar>
double clip_grad_norm(Parameters<Scalar>& params, double max_norm);

}  // namespace edgewise
