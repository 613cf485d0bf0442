#include "edgewise/models/layers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>

#include <unsupported/Eigen/SpecialFunctions>

#include "edgewise/core/dropout.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/core/products.hpp"

namespace edgewise {
namespace {

std::string shape(Index rows, Index cols) { return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]"; }

template <typename Scalar>
void require_cols(const std::string& layer, const Matrix<Scalar>& x, Index cols) {
  if (x.cols() != cols)
    throw ArgumentError(layer + ": input has " + std::to_string(x.cols()) + " columns, expected " +
                        std::to_string(cols));
}

// dy must have the shape of the output of the last forward.
template <typename Scalar>
void require_output_shape(const std::string& layer, const Matrix<Scalar>& dy, Index rows, Index cols) {
  if (dy.rows() != rows || dy.cols() != cols)
    throw ArgumentError(layer + ": dy is " + shape(dy.rows(), dy.cols()) + " but the last forward returned " +
                        shape(rows, cols));
}

// Eigen's vectorized erf, exp and expm1 round differently from their scalar fallbacks, so every
// element goes through a whole block of kLanes floats: a shorter tail is computed in a zero-padded
// block.
constexpr Index kLanes = 16;
using FloatBlock = Eigen::Array<float, kLanes, 1>;

// out[k] = kernel(a, b)[k] for k < n, kLanes elements at a time.
template <typename Kernel>
void in_float_blocks(const float* a, const float* b, float* out, Index n, Kernel kernel) {
  Index k = 0;
  for (; k + kLanes <= n; k += kLanes)
    Eigen::Map<FloatBlock>(out + k) = kernel(Eigen::Map<const FloatBlock>(a + k), Eigen::Map<const FloatBlock>(b + k));
  if (k == n) return;
  FloatBlock tail_a = FloatBlock::Zero(), tail_b = FloatBlock::Zero();
  std::copy(a + k, a + n, tail_a.data());
  std::copy(b + k, b + n, tail_b.data());
  const FloatBlock result = kernel(tail_a, tail_b);
  std::copy(result.data(), result.data() + (n - k), out + k);
}

template <typename S>
constexpr S kInvSqrt2 = static_cast<S>(1.0 / std::numbers::sqrt2);
template <typename S>
constexpr S kInvSqrt2Pi = static_cast<S>(std::numbers::inv_sqrtpi / std::numbers::sqrt2);

}  // namespace

// ---- Linear ----

template <typename Scalar>
Linear<Scalar>::Linear(Parameters<Scalar>& params, const std::string& name, Index in_dim, Index out_dim, bool bias)
    : params_(params), in_dim_(in_dim), out_dim_(out_dim) {
  if (in_dim < 1 || out_dim < 1)
    throw ArgumentError("Linear " + name + ": dimensions must be positive, got " + shape(in_dim, out_dim));
  weight_ = params_.add(name + ".weight", in_dim, out_dim);
  if (bias) bias_ = params_.add(name + ".bias", 1, out_dim);
}

template <typename Scalar>
void Linear<Scalar>::reset_parameters(SplitMix64& rng, double gain) {
  glorot_uniform(params_.value(weight_), in_dim_, out_dim_, rng, gain);
  if (bias_.slot >= 0) params_.value(bias_).setZero();
}

template <typename Scalar>
const Matrix<Scalar>& Linear<Scalar>::forward(const Matrix<Scalar>& x) {
  require_cols("Linear", x, in_dim_);
  x_ = &x;
  if (bias_.slot >= 0) {
    multiply_from_bias(y_, x, params_.value(weight_), params_.value(bias_).row(0));
  } else {
    multiply(y_, x, params_.value(weight_));
  }
  return y_;
}

template <typename Scalar>
const Matrix<Scalar>& Linear<Scalar>::backward(const Matrix<Scalar>& dy) {
  backward_parameters(dy);
  multiply(dx_, dy, params_.value(weight_).transpose());
  return dx_;
}

template <typename Scalar>
void Linear<Scalar>::backward_parameters(const Matrix<Scalar>& dy) {
  require_output_shape("Linear", dy, y_.rows(), y_.cols());
  multiply(params_.grad(weight_), x_->transpose(), dy, Product::add);
  if (bias_.slot >= 0) add_row_sums(params_.grad(bias_).row(0), dy);
}

// ---- Element-wise activations ----

// GCC 12's AVX-512 intrinsics start some results from a self-initialized `__Y` (GCC bug 105593,
// fixed in GCC 13), which -Wuninitialized reports where they are inlined here on AVX-512 machines.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"

// 1 where u > 0, else 0, for u of at least the smallest subnormal in size: Eigen's select() takes
// its lanes one by one with a branch each, which mispredicts on mixed signs and cost 8 ns a value.
FloatBlock positive_lanes(const FloatBlock& u) { return ((u * 1e30f) * 1e30f).max(0.0f).min(1.0f); }

// e^x - 1 for x <= 0, vectorized: Eigen's expm1 calls the scalar expm1f lane by lane, which took
// 8 % of Cora's training. Above -1/4, where e^x - 1 would cancel to fewer correct bits, the Taylor
// polynomial to x^6 / 720: its error, under |x|^7 / 5040, is below 6e-8 of the value there. Both are
// taken in every lane and blended by a 0/1 weight, exactly (the polynomial of x clamped to -1/4 is
// finite, and e^x - 1 is for any x <= 0).
FloatBlock exp_minus_one(const FloatBlock& x) {
  const FloatBlock near_zero = x.max(-0.25f);
  FloatBlock taylor = 1.0f + near_zero * (1.0f / 6.0f);
  for (const float k : {5.0f, 4.0f, 3.0f, 2.0f}) taylor = 1.0f + near_zero * (1.0f / k) * taylor;
  const FloatBlock use_taylor = positive_lanes(x + 0.25f);
  return use_taylor * (near_zero * taylor) + (1.0f - use_taylor) * (x.exp() - 1.0f);
}

#pragma GCC diagnostic pop

void activation::Elu::values(const float* x, float* y, Index n) const {
  const auto scale = static_cast<float>(alpha);
  in_float_blocks(x, x, y, n, [scale](const auto& in, const auto&) -> FloatBlock {
    return in.max(0.0f) + scale * exp_minus_one(in.min(0.0f));
  });
}

void activation::Elu::values(const double* x, double* y, Index n) const {
  for (Index k = 0; k < n; ++k) y[k] = x[k] > 0 ? x[k] : alpha * std::expm1(x[k]);
}

// The float loop would branch on each sign, and signs follow no pattern: the two sides are blended
// by exact 0/1 weights instead (y + alpha is finite, as y >= -alpha).
void activation::Elu::gradients_given_output(const float* x, const float* y, const float* dy, float* dx,
                                             Index n) const {
  const auto scale = static_cast<float>(alpha);
  for (; n >= kLanes; n -= kLanes, x += kLanes, y += kLanes, dy += kLanes, dx += kLanes) {
    const FloatBlock positive = positive_lanes(Eigen::Map<const FloatBlock>(x));
    const FloatBlock slope = positive + (1.0f - positive) * (Eigen::Map<const FloatBlock>(y) + scale);
    Eigen::Map<FloatBlock>{dx} = Eigen::Map<const FloatBlock>(dy) * slope;
  }
  for (Index k = 0; k < n; ++k) dx[k] = dy[k] * derivative(x[k], y[k]);
}

void activation::Elu::gradients_given_output(const double* x, const double* y, const double* dy, double* dx,
                                             Index n) const {
  for (Index k = 0; k < n; ++k) dx[k] = dy[k] * derivative(x[k], y[k]);
}

void activation::Gelu::values(const float* x, float* y, Index n) const {
  in_float_blocks(x, x, y, n, [](const auto& in, const auto&) -> FloatBlock {
    return in * (0.5f * (1.0f + (in * kInvSqrt2<float>).erf()));
  });
}

void activation::Gelu::values(const double* x, double* y, Index n) const {
  // Three passes, so that the scalar erf is the only loop the compiler cannot vectorize.
  for (Index k = 0; k < n; ++k) y[k] = x[k] * kInvSqrt2<double>;
  for (Index k = 0; k < n; ++k) y[k] = std::erf(y[k]);
  for (Index k = 0; k < n; ++k) y[k] = x[k] * (0.5 * (1.0 + y[k]));
}

void activation::Gelu::gradients(const float* x, const float* dy, float* dx, Index n) const {
  in_float_blocks(x, dy, dx, n, [](const auto& in, const auto& grad) -> FloatBlock {
    const FloatBlock cdf = 0.5f * (1.0f + (in * kInvSqrt2<float>).erf());
    const FloatBlock density = (-0.5f * in * in).exp() * kInvSqrt2Pi<float>;
    return grad * (cdf + in * density);
  });
}

void activation::Gelu::gradients(const double* x, const double* dy, double* dx, Index n) const {
  for (Index k = 0; k < n; ++k) {
    const double cdf = 0.5 * (1.0 + std::erf(x[k] * kInvSqrt2<double>));
    const double density = std::exp(-0.5 * x[k] * x[k]) * kInvSqrt2Pi<double>;
    dx[k] = dy[k] * (cdf + x[k] * density);
  }
}

template <typename Scalar, typename Function>
const Matrix<Scalar>& Elementwise<Scalar, Function>::forward(const Matrix<Scalar>& x) {
  x_ = &x;
  y_.resize(x.rows(), x.cols());
  parallel_for_blocks(x.size(), kElementBlock, [&](Index begin, Index end) {
    const Scalar* in = x.data() + begin;
    Scalar* out = y_.data() + begin;
    if constexpr (requires { function_.values(in, out, end - begin); }) {
      function_.values(in, out, end - begin);
    } else {
      for (Index k = 0; k < end - begin; ++k) out[k] = function_.value(in[k]);
    }
  });
  return y_;
}

template <typename Scalar, typename Function>
const Matrix<Scalar>& Elementwise<Scalar, Function>::backward(const Matrix<Scalar>& dy) {
  require_output_shape("activation", dy, y_.rows(), y_.cols());
  dx_.resize(dy.rows(), dy.cols());
  const Scalar *x = x_->data(), *y = y_.data(), *grad = dy.data();
  Scalar* dx = dx_.data();
  parallel_for_blocks(dy.size(), kElementBlock, [=, this](Index begin, Index end) {
    if constexpr (requires { function_.gradients(x, grad, dx, end - begin); }) {
      function_.gradients(x + begin, grad + begin, dx + begin, end - begin);
    } else if constexpr (requires { function_.gradients_given_output(x, y, grad, dx, end - begin); }) {
      function_.gradients_given_output(x + begin, y + begin, grad + begin, dx + begin, end - begin);
    } else {
      for (Index k = begin; k < end; ++k) dx[k] = grad[k] * function_.derivative(x[k], y[k]);
    }
  });
  return dx_;
}

// ---- Dropout ----

template <typename Scalar>
Dropout<Scalar>::Dropout(double p) : p_(p) {
  if (!(p >= 0.0 && p < 1.0)) throw ArgumentError("Dropout: p must be in [0, 1), got " + std::to_string(p));
}

template <typename Scalar>
bool Dropout<Scalar>::start(Mode mode, Index rows, Index cols) {
  const bool masked = mode.training && p_ > 0.0;
  if (masked && mode.rng == nullptr) throw ArgumentError("Dropout: training needs a random generator");
  if (masked && !mode.node_ids.empty() && static_cast<Index>(mode.node_ids.size()) < rows)
    throw ArgumentError("Dropout: " + std::to_string(mode.node_ids.size()) + " node ids for " + std::to_string(rows) +
                        " rows");
  masked_ = masked;
  rows_ = rows;
  cols_ = cols;
  if (masked_) key_ = mode.rng->next();
  if (masked_) row_ids_.assign(mode.node_ids.begin(), mode.node_ids.begin() + (mode.node_ids.empty() ? 0 : rows));
  return masked_;
}

template <typename Scalar>
const Matrix<Scalar>& Dropout<Scalar>::forward(const Matrix<Scalar>& x, Mode mode) {
  if (!start(mode, x.rows(), x.cols())) return x;
  apply_mask(y_, x);
  return y_;
}

template <typename Scalar>
ConstRowsRef<Scalar> Dropout<Scalar>::forward(const ConstRowsRef<Scalar>& x, Mode mode) {
  if (!start(mode, x.rows(), x.cols())) return x;
  apply_mask(y_, x);
  return y_;
}

template <typename Scalar>
const SparseMatrix<Scalar>& Dropout<Scalar>::forward(const SparseMatrix<Scalar>& x, Mode mode) {
  if (!start(mode, x.rows(), x.cols())) return x;
  if (x.isCompressed()) {
    keep_entries(x);
  } else {
    SparseMatrix<Scalar> compressed = x;
    compressed.makeCompressed();
    keep_entries(compressed);
  }
  return sparse_y_;
}

// sparse_y_ = the entries of x that the mask keeps, scaled. The products that read it skip the
// dropped ones, and their sums keep the bits they had with them: adding a zero leaves a sum as it is.
template <typename Scalar>
void Dropout<Scalar>::keep_entries(const SparseMatrix<Scalar>& x) {
  const auto scale = static_cast<Scalar>(1.0 / (1.0 - p_));
  const std::uint64_t threshold = keep_threshold(p_);
  const Index rows = x.rows();
  const Index* outer = x.outerIndexPtr();
  const Index* inner = x.innerIndexPtr();
  const Scalar* values = x.valuePtr();
  entry_factors_.resize(static_cast<std::size_t>(x.nonZeros()));
  kept_offsets_.assign(static_cast<std::size_t>(rows + 1), 0);
  Scalar* factors = entry_factors_.data();
  Index* kept_in_row = kept_offsets_.data() + 1;
  const std::uint64_t key = key_;
  // The element (r, c) draws what it draws in the dense row-major forward: hash(key, r * cols + c).
  parallel_for(rows, [=, this](Index r) {
    const std::uint64_t first = draw_index(r, 0);
    Index kept = 0;
    for (Index k = outer[r]; k < outer[r + 1]; ++k) {
      factors[k] = keep_factor(key, first + static_cast<std::uint64_t>(inner[k]), threshold, scale);
      kept += factors[k] != Scalar(0) ? 1 : 0;
    }
    kept_in_row[r] = kept;
  });
  for (Index r = 0; r < rows; ++r) kept_offsets_[r + 1] += kept_offsets_[r];
  sparse_y_.resize(rows, x.cols());
  sparse_y_.resizeNonZeros(kept_offsets_.back());
  std::copy(kept_offsets_.begin(), kept_offsets_.end(), sparse_y_.outerIndexPtr());
  Index* y_inner = sparse_y_.innerIndexPtr();
  Scalar* y_values = sparse_y_.valuePtr();
  const Index* kept_before = kept_offsets_.data();
  // Every entry is written and the slot moves on past kept ones only: a branch on a coin flip was
  // mispredicted half the time. A dropped entry's slot is taken by the next kept one; the loop ends
  // once the row's kept entries are written, so no slot of the next row is touched.
  parallel_for(rows, [=](Index r) {
    Index to = kept_before[r];
    for (Index k = outer[r]; k < outer[r + 1] && to < kept_before[r + 1]; ++k) {
      y_inner[to] = inner[k];
      y_values[to] = values[k] * factors[k];
      to += factors[k] != Scalar(0) ? 1 : 0;
    }
  });
}

template <typename Scalar>
const Matrix<Scalar>& Dropout<Scalar>::backward(const Matrix<Scalar>& dy) {
  require_output_shape("Dropout", dy, rows_, cols_);
  if (!masked_) return dy;
  apply_mask(dx_, dy);
  return dx_;
}

template <typename Scalar>
void Dropout<Scalar>::apply_mask(Matrix<Scalar>& out, const ConstRowsRef<Scalar>& in) const {
  EDGEWISE_CHECK(in.outerStride() == in.cols());  // the loop below reads the rows as one array
  out.resize(in.rows(), in.cols());
  if (!row_ids_.empty()) {
    drop_rows(rows_of(out), {in.data(), in.outerStride()}, in.rows(), in.cols(), key_, p_, row_ids_.data());
    return;
  }
  const auto scale = static_cast<Scalar>(1.0 / (1.0 - p_));
  const Scalar* from = in.data();
  Scalar* to = out.data();
  const std::uint64_t key = key_;
  const std::uint64_t threshold = keep_threshold(p_);
  // Captures by value let the compiler vectorize the loop.
  parallel_for_blocks(in.size(), kElementBlock, [=](Index begin, Index end) {
    for (Index k = begin; k < end; ++k) to[k] = from[k] * keep_factor(key, k, threshold, scale);
  });
}

template <typename Scalar>
std::uint64_t Dropout<Scalar>::draw_index(Index row, Index col) const {
  return static_cast<std::uint64_t>((row_ids_.empty() ? row : Index{row_ids_[static_cast<std::size_t>(row)]}) * cols_ +
                                    col);
}

// ---- LayerNorm ----

template <typename Scalar>
LayerNorm<Scalar>::LayerNorm(Parameters<Scalar>& params, const std::string& name, Index dim, double eps)
    : params_(params), dim_(dim), eps_(eps) {
  if (dim < 1) throw ArgumentError("LayerNorm " + name + ": dim must be positive, got " + std::to_string(dim));
  if (!(eps > 0.0)) throw ArgumentError("LayerNorm " + name + ": eps must be positive, got " + std::to_string(eps));
  gamma_ = params_.add(name + ".gamma", 1, dim);
  beta_ = params_.add(name + ".beta", 1, dim);
  reset_parameters();
}

template <typename Scalar>
void LayerNorm<Scalar>::reset_parameters() {
  params_.value(gamma_).setOnes();
  params_.value(beta_).setZero();
}

namespace {

// Eigen's sum of a row of whole packets that starts on a packet boundary, in its order: two
// accumulators over alternate packets, joined, then the last odd packet, then across the lanes.
// `packet(i)` gives the row's i-th packet, or what the sum adds for it.
template <typename Scalar, typename PacketAt>
Scalar packet_sum(Index packets, const PacketAt& packet) {
  using namespace Eigen::internal;
  using Packet = typename packet_traits<Scalar>::type;
  Packet sum0 = packet(0);
  if (packets > 1) {
    Packet sum1 = packet(1);
    Index i = 2;
    for (; i + 1 < packets; i += 2) {
      sum0 = padd(sum0, packet(i));
      sum1 = padd(sum1, packet(i + 1));
    }
    sum0 = padd(sum0, sum1);
    if (i < packets) sum0 = padd(sum0, packet(i));
  }
  return predux(sum0);
}

// LayerNorm's forward on one row of whole, aligned packets: the operations of the row expressions in
// LayerNorm::forward, with the same roundings, without their size and alignment checks at each of
// the five, about half its time on rows of 64 floats. The results are the same bits: each
// element-wise step is one operation a lane, and the sums are Eigen's.
template <typename Scalar>
Scalar normalize_row_in_packets(const Scalar* x, Scalar* centered, Scalar* y, const Scalar* gamma, const Scalar* beta,
                                Index dim, Scalar eps) {
  using namespace Eigen::internal;
  using Packet = typename packet_traits<Scalar>::type;
  constexpr Index lanes = packet_traits<Scalar>::size;
  const Index packets = dim / lanes;
  const Scalar mean = packet_sum<Scalar>(packets, [&](Index i) { return pload<Packet>(x + i * lanes); }) /
                      static_cast<Scalar>(dim);
  const Packet mean_lanes = pset1<Packet>(mean);
  for (Index i = 0; i < packets; ++i) pstore(centered + i * lanes, psub(pload<Packet>(x + i * lanes), mean_lanes));
  const Scalar squares = packet_sum<Scalar>(packets, [&](Index i) {
    const Packet c = pload<Packet>(centered + i * lanes);
    return pmul(c, c);
  });
  const Scalar rstd = Scalar(1) / std::sqrt(squares / static_cast<Scalar>(dim) + eps);
  const Packet rstd_lanes = pset1<Packet>(rstd);
  for (Index i = 0; i < packets; ++i) {
    const Packet c = pmul(pload<Packet>(centered + i * lanes), rstd_lanes);
    pstore(centered + i * lanes, c);
    pstore(y + i * lanes, padd(pmul(c, ploadu<Packet>(gamma + i * lanes)), ploadu<Packet>(beta + i * lanes)));
  }
  return rstd;
}

// LayerNorm's backward on one row of whole, aligned packets, as normalize_row_in_packets is its
// forward: the operations of the row expressions in LayerNorm::backward, with the same roundings.
template <typename Scalar>
void normalize_gradient_row_in_packets(const Scalar* dy, const Scalar* normalized, const Scalar* gamma, Scalar rstd,
                                       Scalar* dx, Index dim) {
  using namespace Eigen::internal;
  using Packet = typename packet_traits<Scalar>::type;
  constexpr Index lanes = packet_traits<Scalar>::size;
  const Index packets = dim / lanes;
  for (Index i = 0; i < packets; ++i)
    pstore(dx + i * lanes, pmul(pload<Packet>(dy + i * lanes), ploadu<Packet>(gamma + i * lanes)));
  const auto scalar_dim = static_cast<Scalar>(dim);
  const Scalar mean_g = packet_sum<Scalar>(packets, [&](Index i) { return pload<Packet>(dx + i * lanes); }) / scalar_dim;
  const Scalar mean_g_xhat = packet_sum<Scalar>(packets, [&](Index i) {
                               return pmul(pload<Packet>(dx + i * lanes), pload<Packet>(normalized + i * lanes));
                             }) /
                             scalar_dim;
  const Packet rstd_lanes = pset1<Packet>(rstd), mean_g_lanes = pset1<Packet>(mean_g),
               mean_g_xhat_lanes = pset1<Packet>(mean_g_xhat);
  for (Index i = 0; i < packets; ++i) {
    const Packet centered = psub(pload<Packet>(dx + i * lanes), mean_g_lanes);
    const Packet projected = pmul(pload<Packet>(normalized + i * lanes), mean_g_xhat_lanes);
    pstore(dx + i * lanes, pmul(rstd_lanes, psub(centered, projected)));
  }
}

// Whether rows of `dim` scalars from `data` all start on a packet boundary and hold whole packets.
template <typename Scalar>
bool rows_in_whole_packets(const Scalar* data, Index dim) {
  constexpr Index lanes = Eigen::internal::packet_traits<Scalar>::size;
  constexpr auto packet_bytes = static_cast<std::uintptr_t>(lanes * sizeof(Scalar));
  return lanes > 1 && dim % lanes == 0 && reinterpret_cast<std::uintptr_t>(data) % packet_bytes == 0;
}

}  // namespace

template <typename Scalar>
const Matrix<Scalar>& LayerNorm<Scalar>::forward(const Matrix<Scalar>& x) {
  require_cols("LayerNorm", x, dim_);
  const Index n = x.rows();
  normalized_.resize(n, dim_);
  rstd_.resize(n);
  y_.resize(n, dim_);
  const auto gamma = params_.value(gamma_).row(0);
  const auto beta = params_.value(beta_).row(0);
  const auto dim = static_cast<Scalar>(dim_);
  const auto eps = static_cast<Scalar>(eps_);
  if (rows_in_whole_packets(x.data(), dim_) && rows_in_whole_packets(normalized_.data(), dim_) &&
      rows_in_whole_packets(y_.data(), dim_)) {
    parallel_for(n, [&](Index r) {
      rstd_(r) = normalize_row_in_packets(x.row(r).data(), normalized_.row(r).data(), y_.row(r).data(), gamma.data(),
                                          beta.data(), dim_, eps);
    });
    return y_;
  }
  parallel_for(n, [&](Index r) {
    auto centered = normalized_.row(r);
    centered.array() = x.row(r).array() - x.row(r).mean();
    rstd_(r) = Scalar(1) / std::sqrt(centered.squaredNorm() / dim + eps);
    centered *= rstd_(r);
    y_.row(r) = centered.cwiseProduct(gamma) + beta;
  });
  return y_;
}

template <typename Scalar>
const Matrix<Scalar>& LayerNorm<Scalar>::backward(const Matrix<Scalar>& dy) {
  require_output_shape("LayerNorm", dy, y_.rows(), y_.cols());
  add_row_sums(params_.grad(gamma_).row(0), dy.cwiseProduct(normalized_));
  add_row_sums(params_.grad(beta_).row(0), dy);
  dx_.resize(dy.rows(), dim_);
  const auto gamma = params_.value(gamma_).row(0);
  const auto dim = static_cast<Scalar>(dim_);
  if (rows_in_whole_packets(dy.data(), dim_) && rows_in_whole_packets(normalized_.data(), dim_) &&
      rows_in_whole_packets(dx_.data(), dim_)) {
    parallel_for(dy.rows(), [&](Index r) {
      normalize_gradient_row_in_packets(dy.row(r).data(), normalized_.row(r).data(), gamma.data(), rstd_(r),
                                        dx_.row(r).data(), dim_);
    });
    return dx_;
  }
  parallel_for(dy.rows(), [&](Index r) {
    auto g = dx_.row(r);  // dL/dx̂, turned into dL/dx in place
    g = dy.row(r).cwiseProduct(gamma);
    const Scalar mean_g = g.sum() / dim;
    const Scalar mean_g_xhat = g.dot(normalized_.row(r)) / dim;
    g.array() = rstd_(r) * (g.array() - mean_g - normalized_.row(r).array() * mean_g_xhat);
  });
  return dx_;
}

// ---- FeedForward ----

std::string to_string(Activation activation) { return name_of(kActivationNames, activation); }

namespace {
FeedForwardOptions resolved(FeedForwardOptions options) {
  if (options.dim < 1) throw ArgumentError("FeedForward: dim must be positive, got " + std::to_string(options.dim));
  if (options.hidden_dim < 0)
    throw ArgumentError("FeedForward: hidden_dim must not be negative, got " + std::to_string(options.hidden_dim));
  if (options.hidden_dim == 0) options.hidden_dim = 4 * options.dim;
  return options;
}
}  // namespace

template <typename Scalar>
FeedForward<Scalar>::FeedForward(Parameters<Scalar>& params, const std::string& name, const FeedForwardOptions& options)
    : options_(resolved(options)),
      linear1_(params, name + ".linear1", options_.dim, options_.hidden_dim, options_.bias),
      linear2_(params, name + ".linear2", options_.hidden_dim, options_.dim, options_.bias),
      dropout_(options_.dropout) {
  switch (options_.activation) {
    case Activation::relu:
      activation_.template emplace<ReLU<Scalar>>();
      break;
    case Activation::gelu:
      activation_.template emplace<GELU<Scalar>>();
      break;
    case Activation::elu:
      activation_.template emplace<ELU<Scalar>>();
      break;
  }
}

template <typename Scalar>
void FeedForward<Scalar>::reset_parameters(SplitMix64& rng) {
  linear1_.reset_parameters(rng);
  linear2_.reset_parameters(rng);
}

template <typename Scalar>
const Matrix<Scalar>& FeedForward<Scalar>::forward(const Matrix<Scalar>& x, Mode mode) {
  const Matrix<Scalar>& hidden = linear1_.forward(x);
  const Matrix<Scalar>& activated =
      std::visit([&](auto& f) -> const Matrix<Scalar>& { return f.forward(hidden); }, activation_);
  const Matrix<Scalar>& branch = dropout_.forward(linear2_.forward(activated), mode);
  y_ = x + branch;
  return y_;
}

template <typename Scalar>
const Matrix<Scalar>& FeedForward<Scalar>::backward(const Matrix<Scalar>& dy) {
  const Matrix<Scalar>& dactivated = linear2_.backward(dropout_.backward(dy));
  const Matrix<Scalar>& dhidden =
      std::visit([&](auto& f) -> const Matrix<Scalar>& { return f.backward(dactivated); }, activation_);
  dx_ = dy + linear1_.backward(dhidden);
  return dx_;
}

template class Linear<float>;
template class Linear<double>;
template class Elementwise<float, activation::Relu>;
template class Elementwise<double, activation::Relu>;
template class Elementwise<float, activation::Elu>;
template class Elementwise<double, activation::Elu>;
template class Elementwise<float, activation::Gelu>;
template class Elementwise<double, activation::Gelu>;
template class Dropout<float>;
template class Dropout<double>;
template class LayerNorm<float>;
template class LayerNorm<double>;
template class FeedForward<float>;
template class FeedForward<double>;

}  // namespace edgewise
