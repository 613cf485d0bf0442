#include "edgewise/core/parameters.hpp"

#include <algorithm>
#include <cmath>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"

namespace edgewise {

template <typename Scalar>
ParameterHandle Parameters<Scalar>::add(const std::string& name, Index rows, Index cols) {
  if (rows < 0 || cols < 0) throw ArgumentError("parameter " + name + ": negative shape");
  if (find(name).slot >= 0) throw ArgumentError("parameter " + name + " is registered twice");
  const Index offset = size();
  slots_.push_back({name, rows, cols, offset});
  values_.resize(static_cast<std::size_t>(offset + rows * cols), Scalar(0));
  grads_.resize(values_.size(), Scalar(0));
  return {static_cast<Index>(slots_.size()) - 1};
}

template <typename Scalar>
ParameterHandle Parameters<Scalar>::find(const std::string& name) const {
  for (std::size_t s = 0; s < slots_.size(); ++s)
    if (slots_[s].name == name) return {static_cast<Index>(s)};
  return {};
}

namespace {
template <typename Scalar>
void fill_uniform(MatrixMap<Scalar> w, double bound, SplitMix64& rng) {
  for (Index r = 0; r < w.rows(); ++r)
    for (Index c = 0; c < w.cols(); ++c) w(r, c) = static_cast<Scalar>(rng.uniform(-bound, bound));
}
}  // namespace

template <typename Scalar>
void glorot_uniform(MatrixMap<Scalar> w, Index fan_in, Index fan_out, SplitMix64& rng, double gain) {
  fill_uniform(w, gain * std::sqrt(6.0 / static_cast<double>(std::max<Index>(fan_in + fan_out, 1))), rng);
}

template <typename Scalar>
void kaiming_uniform(MatrixMap<Scalar> w, Index fan_in, SplitMix64& rng) {
  fill_uniform(w, std::sqrt(6.0 / static_cast<double>(std::max<Index>(fan_in, 1))), rng);
}

template <typename Scalar>
void Parameters<Scalar>::zero_grad() {
  parallel_for_blocks(size(), 16 * kElementBlock, [this](Index begin, Index end) {
    std::fill(grads_.begin() + begin, grads_.begin() + end, Scalar(0));
  });
}

template class Parameters<float>;
template class Parameters<double>;
template void glorot_uniform<float>(MatrixMap<float>, Index, Index, SplitMix64&, double);
template void glorot_uniform<double>(MatrixMap<double>, Index, Index, SplitMix64&, double);
template void kaiming_uniform<float>(MatrixMap<float>, Index, SplitMix64&);
template void kaiming_uniform<double>(MatrixMap<double>, Index, SplitMix64&);

}  // namespace edgewise
