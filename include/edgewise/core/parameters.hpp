/// \file
/// One flat buffer holding every parameter of a model, with a twin buffer for gradients.
///
/// Layers register named [rows, cols] slots at construction and keep the returned handle; they map
/// their slot at each use, so the buffer may grow while a model is being assembled. Optimizers,
/// gradient zeroing, gradient checks and model files all walk the flat buffers.
#pragma once

#include <string>
#include <vector>

#include "edgewise/core/random.hpp"
#include "edgewise/core/tensor.hpp"

namespace edgewise {

struct ParameterSlot {
  std::string name;
  Index rows = 0;
  Index cols = 0;
  Index offset = 0;  ///< into values() and grads()

  Index size() const { return rows * cols; }
};

struct ParameterHandle {
  Index slot = -1;
};

template <typename Scalar>
class Parameters {
 public:
  /// Adds a zero-initialized [rows, cols] parameter. Throws ArgumentError on a repeated name.
  ParameterHandle add(const std::string& name, Index rows, Index cols);

  MatrixMap<Scalar> value(ParameterHandle h) { return map(values_, h); }
  ConstMatrixMap<Scalar> value(ParameterHandle h) const { return map(values_, h); }
  MatrixMap<Scalar> grad(ParameterHandle h) { return map(grads_, h); }
  ConstMatrixMap<Scalar> grad(ParameterHandle h) const { return map(grads_, h); }

  Eigen::Map<Vector<Scalar>> values() { return {values_.data(), size()}; }
  Eigen::Map<const Vector<Scalar>> values() const { return {values_.data(), size()}; }
  Eigen::Map<Vector<Scalar>> grads() { return {grads_.data(), size()}; }
  Eigen::Map<const Vector<Scalar>> grads() const { return {grads_.data(), size()}; }

  void zero_grad() { grads().setZero(); }

  Index size() const { return static_cast<Index>(values_.size()); }
  const std::vector<ParameterSlot>& slots() const { return slots_; }
  const ParameterSlot& slot(ParameterHandle h) const { return slots_[static_cast<std::size_t>(h.slot)]; }

  /// The slot with this name, or a handle with slot == -1.
  ParameterHandle find(const std::string& name) const;

 private:
  // Aligned like Eigen's own storage: where a buffer starts decides which leading entries Eigen
  // handles outside its vector loops, whose rounding differs, so malloc's 16-byte alignment would
  // make the same training run give different weights from one process to the next.
  using Buffer = std::vector<Scalar, Eigen::aligned_allocator<Scalar>>;

  MatrixMap<Scalar> map(Buffer& buffer, ParameterHandle h) {
    const ParameterSlot& s = slot(h);
    return {buffer.data() + s.offset, s.rows, s.cols};
  }
  ConstMatrixMap<Scalar> map(const Buffer& buffer, ParameterHandle h) const {
    const ParameterSlot& s = slot(h);
    return {buffer.data() + s.offset, s.rows, s.cols};
  }

  std::vector<ParameterSlot> slots_;
  Buffer values_;
  Buffer grads_;
};

/// Glorot (Xavier) uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)).
template <typename Scalar>
void glorot_uniform(MatrixMap<Scalar> w, Index fan_in, Index fan_out, SplitMix64& rng, double gain = 1.0);

/// Kaiming (He) uniform for ReLU-family layers: U(-a, a) with a = sqrt(6 / fan_in).
template <typename Scalar>
void kaiming_uniform(MatrixMap<Scalar> w, Index fan_in, SplitMix64& rng);

}  // namespace edgewise
