/// \file
/// Dense building blocks of the models: Linear, the activations, Dropout, LayerNorm and the
/// residual FeedForward block.
///
/// Every layer maps [N, in] to [N, out] row-wise (rows = nodes or samples). forward returns a member
/// buffer that is reused, and overwritten, by the next forward call; backward takes dy of the output's
/// shape, ADDS the parameter gradients into Parameters' grad buffer and returns dx. Layers that need
/// their input in backward keep a pointer to it: the input must outlive the backward call.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "edgewise/core/names.hpp"
#include "edgewise/core/parameters.hpp"
#include "edgewise/core/random.hpp"
#include "edgewise/core/sparse.hpp"
#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// y = x W + b with W: [in_dim, out_dim] and b: [1, out_dim], registered as "<name>.weight" and
/// "<name>.bias".
template <typename Scalar>
class Linear {
 public:
  /// Registers the parameters in `params` (which must outlive the layer), zero-initialized; call reset_parameters before use.
  Linear(Parameters<Scalar>& params, const std::string& name, Index in_dim, Index out_dim, bool bias = true);

  /// Glorot-uniform weight scaled by gain, zero bias.
  void reset_parameters(SplitMix64& rng, double gain = 1.0);

  /// x: [N, in_dim], kept by pointer until backward. Returns [N, out_dim].
  const Matrix<Scalar>& forward(const Matrix<Scalar>& x);

  /// dy: [N, out_dim]. dW += xᵀ dy, db += column sums of dy; returns dx = dy Wᵀ, [N, in_dim].
  const Matrix<Scalar>& backward(const Matrix<Scalar>& dy);

  /// backward() without dx, for a layer whose input is data, not an output of another layer.
  void backward_parameters(const Matrix<Scalar>& dy);

  /// Input and output widths.
  /// @{
  Index in_dim() const { return in_dim_; }
  Index out_dim() const { return out_dim_; }
  /// @}

 private:
  Parameters<Scalar>& params_;
  Index in_dim_;
  Index out_dim_;
  ParameterHandle weight_;
  ParameterHandle bias_;
  const Matrix<Scalar>* x_ = nullptr;
  Matrix<Scalar> y_;
  Matrix<Scalar> dx_;
};

// Per-element functions of the activations: value(x) and the derivative dy/dx given x and y.
/// Per-element activation functions, the `Function` argument of Elementwise.
namespace activation {

/// max(x, 0); derivative 0 at x = 0.
struct Relu {
  /// f(x).
  template <typename S>
  S value(S x) const { return x > 0 ? x : S(0); }
  /// f'(x), given x and y = f(x).
  template <typename S>
  S derivative(S x, S /*y*/) const { return x > 0 ? S(1) : S(0); }
};

/// f(x) through f.values() on one element, so that a single value takes the path of a whole array.
template <typename Function, typename S>
S one_value(const Function& f, S x) {
  S y;
  f.values(&x, &y, 1);
  return y;
}

/// alpha (e^x - 1) for x <= 0, whose derivative alpha e^x equals y + alpha. In float, e^x - 1 is
/// Eigen's vectorized exp, or a Taylor polynomial near 0; in double, std::expm1.
struct Elu {
  double alpha = 1.0;  ///< Saturation value for large negative inputs is -alpha.
  /// f(x), bit for bit what values() gives for x.
  template <typename S>
  S value(S x) const { return one_value(*this, x); }
  /// y[k] = f(x[k]) for k < n, each element on the same path whatever n is. x and y must not overlap.
  /// @{
  void values(const float* x, float* y, Index n) const;
  void values(const double* x, double* y, Index n) const;
  /// @}
  /// f'(x), given x and y = f(x).
  template <typename S>
  S derivative(S x, S y) const { return x > 0 ? S(1) : y + static_cast<S>(alpha); }
  /// dx[k] = dy[k] f'(x[k]) given y = f(x), for k < n: bit for bit dy[k] * derivative(x[k], y[k]).
  /// @{
  void gradients_given_output(const float* x, const float* y, const float* dy, float* dx, Index n) const;
  void gradients_given_output(const double* x, const double* y, const double* dy, double* dx, Index n) const;
  /// @}
};

/// The exact GELU, x Φ(x) with the standard normal CDF Φ(x) = (1 + erf(x / √2)) / 2 (not the tanh
/// approximation); its derivative is Φ(x) + x φ(x). In float, erf and exp are Eigen's vectorized
/// approximations (a few ulp from the exact values), which take about a tenth of the time of the
/// scalar library calls; in double, std::erf and std::exp.
struct Gelu {
  /// f(x), bit for bit what values() gives for x.
  template <typename S>
  S value(S x) const { return one_value(*this, x); }
  /// y[k] = f(x[k]) for k < n. Every element takes the same path whatever n is, so a result does not
  /// depend on how a loop is split into chunks. x and y must not overlap.
  /// @{
  void values(const float* x, float* y, Index n) const;
  void values(const double* x, double* y, Index n) const;
  /// @}
  /// f'(x), given x and y = f(x); bit for bit what gradients() gives for x.
  template <typename S>
  S derivative(S x, S /*y*/) const {
    const S unit(1);
    S slope;
    gradients(&x, &unit, &slope, 1);
    return slope;
  }
  /// dx[k] = dy[k] f'(x[k]) for k < n, chunking-independent as values() is. dx may alias dy.
  /// @{
  void gradients(const float* x, const float* dy, float* dx, Index n) const;
  void gradients(const double* x, const double* dy, double* dx, Index n) const;
  /// @}
};

}  // namespace activation

/// An activation without parameters applied to every element. x: [N, D], kept by pointer until
/// backward; forward returns y [N, D], backward returns dx = dy .* f'(x).
template <typename Scalar, typename Function>
class Elementwise {
 public:
  /// `function` supplies value(x) and derivative(x, y), as the structs of namespace activation do.
  explicit Elementwise(Function function = {}) : function_(function) {}

  /// x: [N, D], kept by pointer until backward. Returns y = f(x), [N, D].
  const Matrix<Scalar>& forward(const Matrix<Scalar>& x);
  /// dy: [N, D]. Returns dx = dy .* f'(x), [N, D].
  const Matrix<Scalar>& backward(const Matrix<Scalar>& dy);

 private:
  Function function_;
  const Matrix<Scalar>* x_ = nullptr;
  Matrix<Scalar> y_;
  Matrix<Scalar> dx_;
};

/// Elementwise max(x, 0).
template <typename Scalar>
class ReLU : public Elementwise<Scalar, activation::Relu> {};

/// Elementwise x for x > 0, alpha (e^x - 1) otherwise.
template <typename Scalar>
class ELU : public Elementwise<Scalar, activation::Elu> {
 public:
  /// `alpha`: negative inputs saturate at -alpha.
  explicit ELU(double alpha = 1.0) : Elementwise<Scalar, activation::Elu>({alpha}) {}
};

/// Elementwise exact GELU, x Φ(x).
template <typename Scalar>
class GELU : public Elementwise<Scalar, activation::Gelu> {};

/// Inverted dropout. In training each element is kept with probability 1 - p and scaled by
/// 1 / (1 - p). The mask is a function of a key drawn from mode.rng once per forward and of the
/// element's row-major index, so it does not depend on the thread count; backward recomputes it
/// from the key instead of storing it. In inference, and when p = 0, forward returns x itself and
/// backward returns dy itself.
template <typename Scalar>
class Dropout {
 public:
  /// Throws ArgumentError unless 0 <= p < 1.
  explicit Dropout(double p);

  /// x: [N, D]. Training with p > 0 needs mode.rng (ArgumentError otherwise). Element (r, c) draws
  /// item id * D + c of the forward's stream, id = mode.node_ids[r] (or r), so rows of a sampled
  /// batch drop what the same nodes drop over the whole graph. Returns [N, D].
  const Matrix<Scalar>& forward(const Matrix<Scalar>& x, Mode mode = Mode::inference());
  /// The same on rows read in place (input features, rows contiguous): x itself when nothing drops.
  ConstRowsRef<Scalar> forward(const ConstRowsRef<Scalar>& x, Mode mode);

  /// The same mask on a sparse x (input features): the result holds the entries of x the mask
  /// keeps, so that products with it skip the dropped ones, and equals the dense forward's.
  /// backward() then masks a dense dy alike.
  const SparseMatrix<Scalar>& forward(const SparseMatrix<Scalar>& x, Mode mode);

  /// dy: [N, D] of the last dense forward; returns dx = dy .* mask / (1 - p).
  const Matrix<Scalar>& backward(const Matrix<Scalar>& dy);

 private:
  bool start(Mode mode, Index rows, Index cols);  // whether this forward drops; draws its mask key
  void apply_mask(Matrix<Scalar>& out, const ConstRowsRef<Scalar>& in) const;
  void keep_entries(const SparseMatrix<Scalar>& x);
  std::uint64_t draw_index(Index row, Index col) const;  // the stream item of element (row, col)

  double p_;
  bool masked_ = false;  // whether the last forward dropped elements
  std::uint64_t key_ = 0;
  std::vector<std::int32_t> row_ids_;  // the forward's Mode::node_ids, for backward; empty: row r is node r
  Index rows_ = 0;
  Index cols_ = 0;
  Matrix<Scalar> y_;
  SparseMatrix<Scalar> sparse_y_;
  std::vector<Scalar> entry_factors_;  // sparse forward: each entry's mask factor
  std::vector<Index> kept_offsets_;    // sparse forward: the kept entries before each row
  Matrix<Scalar> dx_;
};

/// Normalizes each row over its dim features: y = (x - mean) / sqrt(var + eps) * gamma + beta, with
/// the biased variance. gamma: [1, dim] ("<name>.gamma", initialized to 1), beta: [1, dim]
/// ("<name>.beta", initialized to 0).
template <typename Scalar>
class LayerNorm {
 public:
  /// Registers gamma = 1 and beta = 0 in `params` (which must outlive the layer). eps is added to the
  /// variance.
  LayerNorm(Parameters<Scalar>& params, const std::string& name, Index dim, double eps = 1e-5);

  /// gamma = 1, beta = 0, as after construction.
  void reset_parameters();

  /// x: [N, dim]. Returns [N, dim]; keeps the normalized x and 1/std per row for backward.
  const Matrix<Scalar>& forward(const Matrix<Scalar>& x);

  /// dy: [N, dim]. Returns dx = rstd (g - mean(g) - x̂ mean(g .* x̂)) with g = dy .* gamma, per row.
  const Matrix<Scalar>& backward(const Matrix<Scalar>& dy);

  /// The normalized width.
  Index dim() const { return dim_; }

 private:
  Parameters<Scalar>& params_;
  Index dim_;
  double eps_;
  ParameterHandle gamma_;
  ParameterHandle beta_;
  Matrix<Scalar> normalized_;  // x̂: [N, dim]
  Vector<Scalar> rstd_;        // [N]
  Matrix<Scalar> y_;
  Matrix<Scalar> dx_;
};

/// The activations a FeedForward block (and the models built from it) can use.
enum class Activation { relu, gelu, elu };

/// The names model files use.
inline constexpr std::pair<Activation, std::string_view> kActivationNames[] = {
    {Activation::relu, "relu"}, {Activation::gelu, "gelu"}, {Activation::elu, "elu"}};

/// The name model files use for `activation`.
std::string to_string(Activation activation);

/// Settings of a FeedForward block.
struct FeedForwardOptions {
  Index dim = 0;  ///< Input and output width; must be >= 1.
  Index hidden_dim = 0;  ///< 0: 4 * dim
  Activation activation = Activation::gelu;  ///< Between the two linear layers.
  double dropout = 0.0;  ///< on the block's output, before the residual sum
  bool bias = true;  ///< Whether both linear layers have a bias.
};

/// Residual position-wise block: y = x + Dropout(Linear2(act(Linear1(x)))), Linear1: dim -> hidden,
/// Linear2: hidden -> dim, registered as "<name>.linear1.*" and "<name>.linear2.*".
template <typename Scalar>
class FeedForward {
 public:
  /// Throws ArgumentError on dim < 1, hidden_dim < 0 or a dropout rate outside [0, 1).
  FeedForward(Parameters<Scalar>& params, const std::string& name, const FeedForwardOptions& options);

  /// Glorot-uniform weights and zero biases in both linear layers.
  void reset_parameters(SplitMix64& rng);

  /// x: [N, dim], kept by pointer until backward. Returns [N, dim].
  const Matrix<Scalar>& forward(const Matrix<Scalar>& x, Mode mode = Mode::inference());

  /// dy: [N, dim]. Returns dx [N, dim] = dy + the gradient through the inner branch.
  const Matrix<Scalar>& backward(const Matrix<Scalar>& dy);

  /// The options with hidden_dim resolved (never 0).
  const FeedForwardOptions& options() const { return options_; }

 private:
  using AnyActivation = std::variant<ReLU<Scalar>, GELU<Scalar>, ELU<Scalar>>;

  FeedForwardOptions options_;
  Linear<Scalar> linear1_;
  AnyActivation activation_;
  Linear<Scalar> linear2_;
  Dropout<Scalar> dropout_;
  Matrix<Scalar> y_;
  Matrix<Scalar> dx_;
};

}  // namespace edgewise
