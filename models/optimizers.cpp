#include "edgewise/models/optimizers.hpp"

#include <cmath>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"

namespace edgewise {
namespace {

void require(bool condition, const std::string& what, double value) {
  if (!condition) throw ArgumentError("Adam: " + what + ", got " + std::to_string(value));
}

void check(const AdamOptions& o) {
  require(o.lr >= 0.0, "lr must not be negative", o.lr);
  require(o.beta1 >= 0.0 && o.beta1 < 1.0, "beta1 must be in [0, 1)", o.beta1);
  require(o.beta2 >= 0.0 && o.beta2 < 1.0, "beta2 must be in [0, 1)", o.beta2);
  require(o.eps > 0.0, "eps must be positive", o.eps);
  require(o.weight_decay >= 0.0, "weight_decay must not be negative", o.weight_decay);
}

}  // namespace

template <typename Scalar>
Adam<Scalar>::Adam(Parameters<Scalar>& params, const AdamOptions& options) : Adam(params, options, Decay::l2) {}

template <typename Scalar>
Adam<Scalar>::Adam(Parameters<Scalar>& params, const AdamOptions& options, Decay decay)
    : params_(params), options_(options), decay_(decay) {
  check(options_);
  m_.setZero(params_.size());
  v_.setZero(params_.size());
}

template <typename Scalar>
void Adam<Scalar>::set_learning_rate(double lr) {
  require(lr >= 0.0, "lr must not be negative", lr);
  options_.lr = lr;
}

template <typename Scalar>
void Adam<Scalar>::restore(const AdamState<Scalar>& state) {
  if (state.m.size() != params_.size() || state.v.size() != params_.size() || state.steps < 0)
    throw ArgumentError("Adam: a state with " + std::to_string(state.m.size()) + " moments and " +
                        std::to_string(state.steps) + " steps does not fit " + std::to_string(params_.size()) +
                        " parameters");
  steps_ = state.steps;
  m_ = state.m;
  v_ = state.v;
}

template <typename Scalar>
void Adam<Scalar>::step() {
  if (params_.size() != m_.size())
    throw ArgumentError("Adam: the parameters grew from " + std::to_string(m_.size()) + " to " +
                        std::to_string(params_.size()) + " entries after the optimizer was built");
  ++steps_;
  const AdamOptions& o = options_;
  const double t = static_cast<double>(steps_);
  const auto step_size = static_cast<Scalar>(o.lr / (1.0 - std::pow(o.beta1, t)));
  const auto second_correction = static_cast<Scalar>(1.0 - std::pow(o.beta2, t));
  const auto beta1 = static_cast<Scalar>(o.beta1), beta2 = static_cast<Scalar>(o.beta2);
  const auto eps = static_cast<Scalar>(o.eps);

  const auto l2 = static_cast<Scalar>(decay_ == Decay::l2 ? o.weight_decay : 0.0);
  const auto decoupled = static_cast<Scalar>(decay_ == Decay::decoupled ? 1.0 - o.lr * o.weight_decay : 1.0);
  Scalar* values = params_.values().data();
  const Scalar* grads = params_.grads().data();
  Scalar *first = m_.data(), *second = v_.data();
  // Blocks of a fixed size: the split, and so each element's path through the vectorized loop, does
  // not depend on the thread count.
  parallel_for_blocks(params_.size(), kElementBlock, [=](Index begin, Index end) {
    using Array = Eigen::Array<Scalar, Eigen::Dynamic, 1>;
    Eigen::Map<Array> w(values + begin, end - begin), m(first + begin, end - begin), v(second + begin, end - begin);
    if (decoupled != Scalar(1)) w *= decoupled;
    const auto g = Eigen::Map<const Array>(grads + begin, end - begin) + l2 * w;  // evaluated once per moment
    m = beta1 * m + (Scalar(1) - beta1) * g;
    v = beta2 * v + (Scalar(1) - beta2) * g.square();
    w -= step_size * m / ((v / second_correction).sqrt() + eps);
  });
}

template <typename Scalar>
double clip_grad_norm(Parameters<Scalar>& params, double max_norm) {
  if (!(max_norm > 0.0))
    throw ArgumentError("clip_grad_norm: max_norm must be positive, got " + std::to_string(max_norm));
  auto grads = params.grads();
  const double norm = std::sqrt(grads.template cast<double>().squaredNorm());
  if (std::isfinite(norm) && norm > max_norm) grads *= static_cast<Scalar>(max_norm / norm);
  return norm;
}

template class Adam<float>;
template class Adam<double>;
template class AdamW<float>;
template class AdamW<double>;
template double clip_grad_norm(Parameters<float>&, double);
template double clip_grad_norm(Parameters<double>&, double);

}  // namespace edgewise
