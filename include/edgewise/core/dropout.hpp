/// \file
/// Dropout on rows, with masks drawn from hashed streams (random.hpp): the one loop that the Dropout
/// layer on a sampled block's rows and attention's value dropout share.
#pragma once

#include <cstdint>

#include "edgewise/core/parallel.hpp"
#include "edgewise/core/random.hpp"
#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// out(r, c) = in(r, c) * keep_factor of item id * cols + c of the stream keyed by `key`, for r <
/// rows and c < cols, where id = ids[r], or r when ids is null: 0 with probability `rate`, else
/// 1 / (1 - rate). A node drops the same elements in every block of the graph its row is read in,
/// and the mask does not depend on the thread count. Rows across threads; out may be in.
template <typename Scalar>
void drop_rows(RowView<Scalar> out, RowView<const Scalar> in, Index rows, Index cols, std::uint64_t key, double rate,
               const std::int32_t* ids) {
  const std::uint64_t threshold = keep_threshold(rate);
  const auto scale = static_cast<Scalar>(1.0 / (1.0 - rate));
  parallel_for_row_blocks(rows, cols, [=](Index begin, Index end) {
    for (Index r = begin; r < end; ++r) {
      const auto first = static_cast<std::uint64_t>((ids ? Index{ids[r]} : r) * cols);
      const Scalar* from = in.row(r);
      Scalar* to = out.row(r);
      for (Index c = 0; c < cols; ++c) to[c] = from[c] * keep_factor(key, first + c, threshold, scale);
    }
  });
}

}  // namespace edgewise
