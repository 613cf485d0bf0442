/// \file
/// Matrix products run in parallel with results that never depend on the thread count. Eigen's own
/// threaded products size their blocking by the thread count, so the same seed trained different
/// weights at 1 and 2 threads. edgewise keeps Eigen on one thread (core/parallel.cpp sets it when
/// the library loads) and cuts products here instead, into blocks fixed by the shapes alone, each
/// block a one-thread Eigen product: any number of threads runs the same blocks and sums them in
/// the same order.
#pragma once

#include <algorithm>
#include <type_traits>
#include <vector>

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

/// Whether multiply() overwrites its destination or adds to it.
enum class Product { assign, add };

/// dst = lhs * rhs (Product::add: dst += lhs * rhs), dst aliasing neither operand. A result of at
/// least two row blocks is cut into blocks of rows; else a dense lhs with an inner dimension of at
/// least two depth blocks is cut along it, each block's product added to its partial sum in block
/// order and the partial sums to dst in their order; else it is one product.
template <typename Dst, typename Lhs, typename Rhs>
void multiply(Dst&& dst, const Lhs& lhs, const Rhs& rhs, Product mode = Product::assign) {
  using Scalar = typename std::decay_t<Dst>::Scalar;
  const Index rows = lhs.rows(), depth = lhs.cols();
  if (mode == Product::assign) dst.resize(rows, rhs.cols());  // a block of the right shape stays as it is
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

}  // namespace edgewise
