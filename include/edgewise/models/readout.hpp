/// \file
/// Graph-level readout: pools the node rows of each graph in a batch into one row per graph.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "edgewise/core/names.hpp"
#include "edgewise/core/parameters.hpp"
#include "edgewise/core/random.hpp"
#include "edgewise/core/tensor.hpp"
#include "edgewise/graph/batch.hpp"

namespace edgewise {

/// How a graph's node rows are pooled into one row.
enum class ReadoutKind {
  sum,  ///< Sum of the node rows.
  mean,  ///< Mean of the node rows.
  max,  ///< Element-wise maximum (the gradient goes to the winning node).
  attention,  ///< softmax over the graph's nodes of a learned gate h_i . w + b, then a weighted sum
  /// The mean and the sum side by side, [mean ‖ sum / kReadoutSumScale]: the mean for properties that
  /// do not grow with the molecule, the sum for those that do (surface areas, counts of groups).
  mean_sum,
};

/// mean_sum divides its sum by a typical drug-like molecule's heavy-atom count, so that both halves
/// start on a similar scale for such a molecule; the sum stays proportional to the size.
inline constexpr double kReadoutSumScale = 25.0;

/// The names model files and command lines use.
inline constexpr std::pair<ReadoutKind, std::string_view> kReadoutNames[] = {
    {ReadoutKind::sum, "sum"},
    {ReadoutKind::mean, "mean"},
    {ReadoutKind::max, "max"},
    {ReadoutKind::attention, "attention"},
    {ReadoutKind::mean_sum, "mean_sum"}};

/// Parses "sum", "mean", "max", "attention", "mean_sum"; throws ArgumentError otherwise.
ReadoutKind parse_readout(const std::string& name);
/// The name parse_readout accepts.
std::string to_string(ReadoutKind kind);

/// The width of a readout's output for node rows of width `dim`: 2 * dim for mean_sum, else dim.
Index readout_width(ReadoutKind kind, Index dim);

/// h: [N, dim] node rows of a GraphBatch; output: [G, readout_width(kind, dim)]. A graph without
/// nodes pools to zeros.
template <typename Scalar>
class Readout {
 public:
  /// The attention gate registers "<name>.gate" [dim, 1] and "<name>.gate_bias" [1, 1].
  Readout(Parameters<Scalar>& params, const std::string& name, Index dim, ReadoutKind kind);

  /// Glorot-uniform gate and zero gate bias; nothing for the other kinds.
  void reset_parameters(SplitMix64& rng);

  /// batch and h are kept by pointer until backward.
  const Matrix<Scalar>& forward(const GraphBatch& batch, const Matrix<Scalar>& h);

  /// dy: [G, readout_width(kind, dim)]. Returns dh [N, dim]; accumulates the gate's gradients.
  const Matrix<Scalar>& backward(const Matrix<Scalar>& dy);

 private:
  void pool_attention();
  void backward_attention(const Matrix<Scalar>& dy);

  Parameters<Scalar>& params_;
  Index dim_;
  ReadoutKind kind_;
  ParameterHandle gate_;
  ParameterHandle gate_bias_;
  const GraphBatch* batch_ = nullptr;
  const Matrix<Scalar>* h_ = nullptr;
  Vector<Scalar> weights_;            // attention: [N]
  std::vector<Index> argmax_;         // max: [G * dim], the winning node of each output entry
  Matrix<Scalar> y_;
  Matrix<Scalar> dh_;
};

}  // namespace edgewise
