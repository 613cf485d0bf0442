/// \file
/// Matrix products run in parallel with results that never depend on the thread count. Eigen's own
/// threaded products size their blocking by the thread count, so the same seed trained different
/// weights at 1 and 2 threads. edgewise keeps Eigen on one thread (core/parallel.cpp sets it when
/// the library loads) and runs products here instead:
/// - dense float products, the ones training and prediction spend their time in, in a kernel of its
///   own (core/products.cpp) that sums each result element over the inner dimension in order, one
///   multiply-add at a time: however the rows are cut among threads, every element gets the same
///   bits. It keeps a tile of the result in registers and reads the operands in place, where
///   Eigen's product first copies both into its blocked layout, which cost the small products of
///   molecule batches as much as the arithmetic;
/// - all others (double, a sparse lhs, a destination whose rows are not contiguous) cut into blocks
///   fixed by the shapes alone, each block a one-thread Eigen product: any number of threads runs
///   the same blocks and sums them in the same order.
///
/// Dense float products run at a precision set for the whole process (set_precision): float32, or
/// bf16, whose operands are rounded to bfloat16 and summed in float32 at twice the multiply-adds per
/// instruction, where the CPU has AVX-512 BF16 (as PyTorch's autocast and oneDNN do on CPUs). Either
/// way an element's bits do not depend on the thread count.
#pragma once

#include <algorithm>
#include <string_view>
#include <type_traits>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/core/sparse.hpp"

namespace edgewise {

/// Result rows per block of a product cut by rows.
inline constexpr Index kProductRowBlock = 128;
/// Inner-dimension entries per block of a product cut along it (a short, wide result such as a weight
/// gradient, whose inner dimension runs over the nodes).
inline constexpr Index kProductDepthBlock = 256;
/// Partial sums of a product cut along its inner dimension: block b goes to sum b mod 16, so that
/// the memory they take does not grow with the inner dimension.
inline constexpr Index kProductPartialSums = 16;

/// The arithmetic of dense float products.
enum class Precision {
  float32,  ///< float operands and sums
  bf16,     ///< operands rounded to bfloat16 (to nearest, ties to even), float32 sums
};

/// Sets the precision of every dense float product from now on, for the whole process, as
/// set_num_threads() sets the threads. bf16 runs float32 on a CPU without AVX-512 BF16.
void set_precision(Precision precision);

/// The precision dense float products run at: the one set (float32 unless set), or float32 where
/// the CPU cannot run bf16.
Precision precision();

/// Whether this CPU runs bf16 products (AVX-512 BF16).
bool bf16_available();

/// "float32" or "bf16".
std::string_view precision_name(Precision precision);

/// The precision of that name; ArgumentError naming the choices otherwise.
Precision parse_precision(std::string_view name);

/// The precision that runs the default models faster on this CPU: bf16 on AMD CPUs with AVX-512 BF16
/// (Zen 4 and later, whose VDPBF16PS runs twice float32's multiply-adds per cycle), float32 on others
/// (Intel's runs VDPBF16PS at half float32's rate, and its AMX tiles gained too little whole-workload
/// time to be worth different numbers).
Precision fastest_precision();

/// The precision a user chose: "float32", "bf16", or "auto" (fastest_precision()); ArgumentError
/// naming the choices otherwise.
Precision precision_of_choice(std::string_view choice);

/// The precision the command-line tool and the Python module start from (the library itself starts
/// from float32): the choice in the environment variable EDGEWISE_PRECISION where it is set and not
/// empty, else "auto". ArgumentError naming the variable on a value other than float32, bf16 or auto.
Precision default_precision();

/// Whether multiply() overwrites its destination or adds to it.
enum class Product { assign, add };

/// dst[0, n) += scale * src[0, n), 16 elements at a time: the rows of sparse products, which Eigen's
/// expressions of dynamic size ran with more loop overhead than arithmetic at widths such as 64.
template <typename Scalar>
void add_scaled(Scalar* dst, Scalar scale, const Scalar* src, Index n) {
  constexpr Index kChunk = 16;
  using Chunk = Eigen::Matrix<Scalar, 1, kChunk>;
  Index c = 0;
  for (; c + kChunk <= n; c += kChunk) Eigen::Map<Chunk>(dst + c) += scale * Eigen::Map<const Chunk>(src + c);
  for (; c < n; ++c) dst[c] += scale * src[c];
}

namespace detail {

/// A dense float matrix in memory: element (r, c) at data[r * row_stride + c * col_stride].
struct FloatMatrixView {
  const float* data;
  Index rows, cols, row_stride, col_stride;
};

/// Whether T is a dense Eigen matrix or expression whose elements lie in memory at fixed strides.
template <typename T>
constexpr bool kInMemory = std::is_base_of_v<Eigen::DenseBase<T>, T> &&
                           (Eigen::internal::traits<T>::Flags & Eigen::DirectAccessBit) != 0;

template <typename T>
FloatMatrixView view_of(const T& m) {
  return {m.data(), m.rows(), m.cols(), m.rowStride(), m.colStride()};
}

/// dst = lhs * rhs (Product::add: dst += lhs * rhs) for a dst whose rows, dst_row_stride apart, are
/// contiguous, at precision(): each element summed over the inner dimension in order, rows cut among threads. With
/// Product::assign, a start_row (rhs.cols floats) starts every row's sums in place of zeros.
void multiply_floats(float* dst, Index dst_row_stride, const FloatMatrixView& lhs, const FloatMatrixView& rhs,
                     Product mode, const float* start_row = nullptr);

/// Whether multiply_sparse_rows takes a product: a compressed sparse lhs by rows (checked when called)
/// times a dense rhs in memory, into a dst in memory.
template <typename Dst, typename Lhs, typename Rhs>
constexpr bool kSparseRowsTake = std::is_same_v<Lhs, SparseMatrix<typename Lhs::Scalar>> &&
                                 kInMemory<std::decay_t<Dst>> && kInMemory<Rhs>;

/// dst (+)= lhs * rhs for a compressed sparse lhs and dst and rhs of contiguous rows: each row of dst
/// the sum of its entries' rows of rhs, in the entries' order, as Eigen's product sums them. A row's
/// sum is kept in registers 64 columns at a time (add_scaled for the rest).
template <typename Dst, typename Lhs, typename Rhs>
void multiply_sparse_rows(Dst& dst, const Lhs& lhs, const Rhs& rhs, Product mode) {
  using Scalar = typename Lhs::Scalar;
  using Chunk = Eigen::Matrix<Scalar, 1, 64>;
  const Index cols = rhs.cols();
  const auto* outer = lhs.outerIndexPtr();
  const auto* inner = lhs.innerIndexPtr();
  const Scalar* values = lhs.valuePtr();
  parallel_for_blocks(lhs.rows(), kProductRowBlock, [&](Index begin, Index end) {
    for (Index r = begin; r < end; ++r) {
      Scalar* out = dst.data() + r * dst.rowStride();
      if (mode == Product::assign) std::fill_n(out, cols, Scalar(0));
      Index c = 0;
      for (; c + Chunk::SizeAtCompileTime <= cols; c += Chunk::SizeAtCompileTime) {
        Chunk sum = Eigen::Map<const Chunk>(out + c);
        for (auto k = outer[r]; k < outer[r + 1]; ++k)
          sum += values[k] * Eigen::Map<const Chunk>(rhs.data() + inner[k] * rhs.rowStride() + c);
        Eigen::Map<Chunk>(out + c) = sum;
      }
      if (c < cols)
        for (auto k = outer[r]; k < outer[r + 1]; ++k)
          add_scaled(out + c, values[k], rhs.data() + inner[k] * rhs.rowStride() + c, cols - c);
    }
  });
}

template <typename Dst, typename Lhs, typename Rhs>
constexpr bool kFloatKernelTakes = std::is_same_v<typename std::decay_t<Dst>::Scalar, float> &&
                                   kInMemory<std::decay_t<Dst>> && kInMemory<Lhs> && kInMemory<Rhs>;

}  // namespace detail

/// dst = lhs * rhs (Product::add: dst += lhs * rhs), dst aliasing neither operand. Dense float
/// operands in memory, into a dst of contiguous rows, go to detail::multiply_floats. Otherwise a
/// result of at least two row blocks is cut into blocks of rows; else a dense lhs with an inner
/// dimension of at least two depth blocks is cut along it, each block's product added to its
/// partial sum in block order and the partial sums to dst in their order; else it is one product.
template <typename Dst, typename Lhs, typename Rhs>
void multiply(Dst&& dst, const Lhs& lhs, const Rhs& rhs, Product mode = Product::assign) {
  using Scalar = typename std::decay_t<Dst>::Scalar;
  const Index rows = lhs.rows(), depth = lhs.cols();
  if (mode == Product::assign) dst.resize(rows, rhs.cols());  // a block of the right shape stays as it is
  if constexpr (detail::kFloatKernelTakes<Dst, Lhs, Rhs>) {
    if (dst.colStride() == 1 || dst.cols() == 1) {
      detail::multiply_floats(dst.data(), dst.rowStride(), detail::view_of(lhs), detail::view_of(rhs), mode);
      return;
    }
  }
  if constexpr (detail::kSparseRowsTake<Dst, Lhs, Rhs>) {
    if (lhs.isCompressed() && dst.colStride() == 1 && rhs.colStride() == 1) {
      detail::multiply_sparse_rows(dst, lhs, rhs, mode);
      return;
    }
  }
  if (rows >= 2 * kProductRowBlock) {
    parallel_for_blocks(rows, kProductRowBlock, [&](Index begin, Index end) {
      auto block = dst.middleRows(begin, end - begin);
      if (mode == Product::add) {
        block.noalias() += lhs.middleRows(begin, end - begin) * rhs;
      } else {
        block.noalias() = lhs.middleRows(begin, end - begin) * rhs;
      }
    });
    return;
  }
  constexpr bool sparse_lhs = std::is_base_of_v<Eigen::SparseMatrixBase<Lhs>, Lhs>;
  if (!sparse_lhs && depth >= 2 * kProductDepthBlock) {
    const Index blocks = (depth + kProductDepthBlock - 1) / kProductDepthBlock;
    std::vector<Matrix<Scalar>> partial(static_cast<std::size_t>(std::min(blocks, kProductPartialSums)));
    parallel_for(static_cast<Index>(partial.size()), [&](Index sum) {
      Matrix<Scalar>& into = partial[static_cast<std::size_t>(sum)];
      into.setZero(rows, rhs.cols());
      for (Index block = sum; block < blocks; block += kProductPartialSums) {
        const Index begin = block * kProductDepthBlock, count = std::min(kProductDepthBlock, depth - begin);
        into.noalias() += lhs.middleCols(begin, count) * rhs.middleRows(begin, count);
      }
    });
    if (mode == Product::assign) dst.setZero();
    for (const Matrix<Scalar>& sum : partial) dst += sum;
    return;
  }
  if (mode == Product::add) {
    dst.noalias() += lhs * rhs;
  } else {
    dst.noalias() = lhs * rhs;
  }
}

/// dst = bias + lhs * rhs, the row `bias` (rhs.cols() values) added to every row: a layer's bias and
/// product in one pass over dst, with the bits of dst.rowwise() = bias followed by multiply(...,
/// Product::add).
template <typename Dst, typename Lhs, typename Rhs, typename Bias>
void multiply_from_bias(Dst&& dst, const Lhs& lhs, const Rhs& rhs, const Bias& bias) {
  EDGEWISE_CHECK(bias.size() == rhs.cols());
  dst.resize(lhs.rows(), rhs.cols());
  if constexpr (detail::kFloatKernelTakes<Dst, Lhs, Rhs> && detail::kInMemory<Bias>) {
    if ((dst.colStride() == 1 || dst.cols() == 1) && bias.innerStride() == 1) {
      detail::multiply_floats(dst.data(), dst.rowStride(), detail::view_of(lhs), detail::view_of(rhs), Product::assign,
                              bias.data());
      return;
    }
  }
  dst.rowwise() = bias;
  multiply(dst, lhs, rhs, Product::add);
}

}  // namespace edgewise
