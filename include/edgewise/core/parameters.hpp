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

/// Where one named parameter lives in the flat buffers.
struct ParameterSlot {
  std::string name;  ///< Unique within a Parameters, e.g. "layer0.attention.weight".
  Index rows = 0;  ///< The parameter's shape is [rows, cols].
  Index cols = 0;  ///< The parameter's shape is [rows, cols].
  Index offset = 0;  ///< into values() and grads()

  /// rows * cols.
  Index size() const { return rows * cols; }
};

/// Identifies a slot of one Parameters object; stays valid as the buffers grow.
struct ParameterHandle {
  Index slot = -1;  ///< Index into Parameters::slots(); -1 for none.
};

/// The values and gradients of every parameter of a model, each in one contiguous buffer.
///
/// add() must not run concurrently with any other use; mapping slots from several threads is
/// fine. Layers keep a reference to it, so it must outlive them.
template <typename Scalar>
class Parameters {
 public:
  /// Adds a zero-initialized [rows, cols] parameter. Throws ArgumentError on a repeated name.
  ParameterHandle add(const std::string& name, Index rows, Index cols);

  /// The [rows, cols] view of a parameter's values or gradients. The view points into the buffer,
  /// so it is invalidated when add() grows it: map again after registering more parameters.
  /// @{
  MatrixMap<Scalar> value(ParameterHandle h) { return map(values_, h); }
  ConstMatrixMap<Scalar> value(ParameterHandle h) const { return map(values_, h); }
  MatrixMap<Scalar> grad(ParameterHandle h) { return map(grads_, h); }
  ConstMatrixMap<Scalar> grad(ParameterHandle h) const { return map(grads_, h); }
  /// @}

  /// Every value or gradient as one flat vector of size(), in slot order. Invalidated by add().
  /// @{
  Eigen::Map<Vector<Scalar>> values() { return {values_.data(), size()}; }
  Eigen::Map<const Vector<Scalar>> values() const { return {values_.data(), size()}; }
  Eigen::Map<Vector<Scalar>> grads() { return {grads_.data(), size()}; }
  Eigen::Map<const Vector<Scalar>> grads() const { return {grads_.data(), size()}; }
  /// @}

  /// Sets every gradient to 0, in blocks across threads; call before each backward pass, which
  /// accumulates.
  void zero_grad();

  /// The total number of scalars.
  Index size() const { return static_cast<Index>(values_.size()); }
  /// Every slot, in registration order.
  const std::vector<ParameterSlot>& slots() const { return slots_; }
  /// The slot of `h`, which must come from this object's add() or find().
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
