// Dense float products with bfloat16 operands and float32 sums, for CPUs with AVX-512 BF16: the
// pieces products.cpp's multiply_floats runs in place of its float32 ones. Private to core.
#pragma once

#include <cstdint>

#include "edgewise/core/products.hpp"

namespace edgewise::detail {

/// Whether this CPU runs the bf16 kernel (AVX-512 F, BW and BF16, checked once at run time).
bool cpu_has_bf16();

/// rhs rounded to bfloat16, two inner-dimension rows to a 32-bit word: word (q, j) holds rhs(2q, j)
/// in its low half and rhs(2q + 1, j) in its high half (zero past the last row), `width` words a row
/// (the columns rounded up to whole vectors, zero past the last), and rows of zeros after the last pair
/// up to a multiple of 16 pairs (whole AMX tiles).
struct Bf16Rhs {
  const std::uint32_t* words;
  Index width;
};

/// rhs packed as Bf16Rhs into the calling thread's buffer, kept for its next product.
Bf16Rhs pack_bf16_rhs(const FloatMatrixView& rhs);

/// Rows [begin, end) of dst = lhs * rhs (Product::add: +=; start_row starts the sums as in
/// multiply_floats), lhs rounded to bfloat16 (to nearest, ties to even) and each element summed in
/// float32 over the inner dimension, a pair of products per step: in order with AVX-512 BF16, and on
/// AMX tiles (in the order of Intel's TDPBF16PS) where the CPU has them and lhs is row-major or the
/// transpose of a row-major matrix. Either way an element's bits never depend on how rows are cut
/// among threads. Call only where cpu_has_bf16().
void multiply_rows_bf16(float* dst, Index dst_row_stride, const FloatMatrixView& lhs, const Bf16Rhs& rhs, Index cols,
                        Index begin, Index end, Product mode, const float* start_row);

}  // namespace edgewise::detail
