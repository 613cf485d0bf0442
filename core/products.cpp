#include "edgewise/core/products.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "products_bf16.hpp"

namespace edgewise {
namespace {
std::atomic<Precision> chosen_precision = Precision::float32;
}  // namespace

void set_precision(Precision precision) { chosen_precision = precision; }

Precision precision() {
  return chosen_precision == Precision::bf16 && bf16_available() ? Precision::bf16 : Precision::float32;
}

bool bf16_available() { return detail::cpu_has_bf16(); }

std::string_view precision_name(Precision precision) { return precision == Precision::bf16 ? "bf16" : "float32"; }

Precision parse_precision(std::string_view name) {
  if (name == "float32") return Precision::float32;
  if (name == "bf16") return Precision::bf16;
  throw ArgumentError("precision '" + std::string(name) + "': expected float32 or bf16");
}

Precision fastest_precision() {
  return bf16_available() && __builtin_cpu_is("amd") ? Precision::bf16 : Precision::float32;
}

Precision precision_of_choice(std::string_view choice) {
  if (choice == "auto") return fastest_precision();
  if (choice == "float32" || choice == "bf16") return parse_precision(choice);
  throw ArgumentError("precision '" + std::string(choice) + "': expected auto, float32 or bf16");
}

Precision default_precision() {
  const char* choice = std::getenv("EDGEWISE_PRECISION");
  if (choice == nullptr || *choice == '\0') return fastest_precision();
  try {
    return precision_of_choice(choice);
  } catch (const ArgumentError& error) {
    throw ArgumentError(std::string("environment variable EDGEWISE_PRECISION: ") + error.what());
  }
}

}  // namespace edgewise

namespace edgewise::detail {
namespace {

// The widest float vector of the instruction set the file is built for, and the tile of result
// rows x vectors kept in registers: kTileRows * kTileVectors accumulators, the kTileVectors vectors
// of one rhs row and the broadcast lhs element fit the 32 vector registers of AVX-512 and the 16 of
// AVX or SSE.
#if defined(__AVX512F__)
constexpr Index kLanes = 16;
constexpr int kTileVectors = 4;
#elif defined(__AVX__)
constexpr Index kLanes = 8;
constexpr int kTileVectors = 2;
#else
constexpr Index kLanes = 4;
constexpr int kTileVectors = 2;
#endif
constexpr int kTileRows = 6;

// Inner-dimension entries per pass over the tiles of a row block: that deep, a column panel of rhs
// (64 KiB with AVX-512) stays in the core's L2 cache while every tile of the block reads it. A pass
// ends by storing the tile and the next one starts by loading it, which keeps each element's sum in
// its order.
constexpr Index kDepthBlock = 256;

// A result of fewer than two kProductRowBlocks rows is cut into kSmallResultBlocks blocks of whole
// tiles, so that a weight gradient (few rows over a deep inner dimension) still runs on two threads;
// but only a product of at least kParallelProducts multiply-adds: for a smaller one, starting the
// threads costs more than they save.
constexpr Index kSmallResultBlocks = 4;
constexpr Index kParallelProducts = Index{1} << 18;

using Vector = float __attribute__((vector_size(kLanes * sizeof(float))));

// The first `count` floats at `from`, the other lanes 0. A whole vector is one unaligned load;
// fewer floats, at the end of a row, are copied by one call.
Vector load(const float* from, Index count) {
  Vector v{};
  if (count == kLanes) {
    std::memcpy(&v, from, sizeof v);
  } else {
    std::memcpy(&v, from, static_cast<std::size_t>(count) * sizeof(float));
  }
  return v;
}

void store(float* to, const Vector& v, Index count) {
  if (count == kLanes) {
    std::memcpy(to, &v, sizeof v);
  } else {
    std::memcpy(to, &v, static_cast<std::size_t>(count) * sizeof(float));
  }
}

// One depth block of one tile: rows of lhs (any strides) times a panel of rhs whose rows are whole
// vectors in memory, into the same rows of dst.
struct TileOperands {
  const float* lhs;
  Index lhs_row_stride, lhs_col_stride;
  const float* rhs;  // the panel's first column; rows rhs_row_stride apart, zero past the matrix's end
  Index rhs_row_stride;
  float* dst;
  Index dst_row_stride;
  Index depth;
  Index last_width;          // columns of dst in the tile's last vector
  bool accumulate;           // start from dst, else from start_row
  const float* start_row;    // the panel's columns of the row every sum starts from; null: zeros
};

// dst[r, :] = (accumulate ? dst[r, :] : start_row or 0) + sum over p, in order, of lhs(r, p) * rhs[p, :].
template <int Rows, int Vectors>
void tile(const TileOperands& t) {
  Vector sums[Rows][Vectors];
  for (int r = 0; r < Rows; ++r)
    for (int v = 0; v < Vectors; ++v) {
      const Index width = v + 1 == Vectors ? t.last_width : kLanes;
      if (t.accumulate) {
        sums[r][v] = load(t.dst + r * t.dst_row_stride + v * kLanes, width);
      } else {
        sums[r][v] = t.start_row != nullptr ? load(t.start_row + v * kLanes, width) : Vector{};
      }
    }
  for (Index p = 0; p < t.depth; ++p) {
    Vector rhs_row[Vectors];
    for (int v = 0; v < Vectors; ++v) rhs_row[v] = load(t.rhs + p * t.rhs_row_stride + v * kLanes, kLanes);
    for (int r = 0; r < Rows; ++r) {
      const float x = t.lhs[r * t.lhs_row_stride + p * t.lhs_col_stride];
      for (int v = 0; v < Vectors; ++v) sums[r][v] += x * rhs_row[v];
    }
  }
  for (int r = 0; r < Rows; ++r)
    for (int v = 0; v < Vectors; ++v)
      store(t.dst + r * t.dst_row_stride + v * kLanes, sums[r][v], v + 1 == Vectors ? t.last_width : kLanes);
}

using TileKernel = void (*)(const TileOperands&);

template <int Rows, int... Vectors>
constexpr std::array<TileKernel, sizeof...(Vectors)> tiles_of_rows(std::integer_sequence<int, Vectors...>) {
  return {&tile<Rows, Vectors + 1>...};
}

template <int... Rows>
constexpr auto tile_table(std::integer_sequence<int, Rows...>) {
  return std::array{tiles_of_rows<Rows + 1>(std::make_integer_sequence<int, kTileVectors>())...};
}

// kTiles[rows - 1][vectors - 1]: the tile kernel for that many rows and vectors.
constexpr auto kTiles = tile_table(std::make_integer_sequence<int, kTileRows>());

// rhs with rows of whole vectors: the matrix itself where its rows are contiguous and a whole
// number of vectors wide, else a copy with each row padded by zeros. The copy is the calling
// thread's, kept for the next product, since fresh pages cost more than the copy.
struct PackedRhs {
  const float* data;
  Index row_stride;
};

PackedRhs pack_rhs(const FloatMatrixView& rhs) {
  if (rhs.col_stride == 1 && rhs.cols % kLanes == 0) return {rhs.data, rhs.row_stride};
  thread_local std::vector<float> packed;
  const Index width = (rhs.cols + kLanes - 1) / kLanes * kLanes;
  packed.resize(static_cast<std::size_t>(rhs.rows * width));
  float* to = packed.data();
  if (rhs.row_stride == 1) {  // the transpose of a row-major matrix (a weight in dx = dy Wᵀ): read its rows
    for (Index j = 0; j < rhs.cols; ++j)
      for (Index p = 0; p < rhs.rows; ++p) to[p * width + j] = rhs.data[p + j * rhs.col_stride];
  } else {
    for (Index p = 0; p < rhs.rows; ++p)
      for (Index j = 0; j < rhs.cols; ++j) to[p * width + j] = rhs.data[p * rhs.row_stride + j * rhs.col_stride];
  }
  for (Index p = 0; p < rhs.rows; ++p) std::fill(to + p * width + rhs.cols, to + (p + 1) * width, 0.0f);
  return {to, width};
}

// Rows [begin, end) of dst: depth blocks, in each the column panels, in each the row tiles.
void multiply_rows(float* dst, Index dst_row_stride, const FloatMatrixView& lhs, const PackedRhs& rhs, Index cols,
                   Index begin, Index end, Product mode, const float* start_row) {
  constexpr Index panel = kTileVectors * kLanes;
  for (Index depth_begin = 0; depth_begin < lhs.cols; depth_begin += kDepthBlock) {
    TileOperands t{};
    t.lhs_row_stride = lhs.row_stride;
    t.lhs_col_stride = lhs.col_stride;
    t.rhs_row_stride = rhs.row_stride;
    t.dst_row_stride = dst_row_stride;
    t.depth = std::min(kDepthBlock, lhs.cols - depth_begin);
    t.accumulate = mode == Product::add || depth_begin > 0;
    for (Index col = 0; col < cols; col += panel) {
      const Index width = std::min(panel, cols - col);
      const Index vectors = (width + kLanes - 1) / kLanes;
      t.last_width = width - (vectors - 1) * kLanes;
      t.rhs = rhs.data + depth_begin * rhs.row_stride + col;
      t.start_row = start_row != nullptr ? start_row + col : nullptr;
      for (Index row = begin; row < end; row += kTileRows) {
        const Index rows = std::min<Index>(kTileRows, end - row);
        t.lhs = lhs.data + row * lhs.row_stride + depth_begin * lhs.col_stride;
        t.dst = dst + row * dst_row_stride + col;
        kTiles[static_cast<std::size_t>(rows - 1)][static_cast<std::size_t>(vectors - 1)](t);
      }
    }
  }
}

// Result rows per parallel block: for tall results, the whole tiles nearest kProductRowBlock, since
// a tile of fewer rows does less arithmetic per load.
Index row_block(Index rows, Index depth, Index cols) {
  if (rows >= 2 * kProductRowBlock) return (kProductRowBlock + kTileRows - 1) / kTileRows * kTileRows;
  if (rows * depth * cols < kParallelProducts) return rows;
  const Index tiles = (rows + kTileRows - 1) / kTileRows;
  return std::max<Index>(1, (tiles + kSmallResultBlocks - 1) / kSmallResultBlocks) * kTileRows;
}

}  // namespace

void multiply_floats(float* dst, Index dst_row_stride, const FloatMatrixView& lhs, const FloatMatrixView& rhs,
                     Product mode, const float* start_row) {
  const Index rows = lhs.rows, cols = rhs.cols;
  if (rows == 0 || cols == 0) return;
  if (lhs.cols == 0) {
    if (mode == Product::assign)
      for (Index i = 0; i < rows; ++i) {
        float* row = dst + i * dst_row_stride;
        if (start_row != nullptr) {
          std::copy(start_row, start_row + cols, row);
        } else {
          std::fill(row, row + cols, 0.0f);
        }
      }
    return;
  }
  const Index block = row_block(rows, lhs.cols, cols);
  if (precision() == Precision::bf16) {
    const Bf16Rhs packed = pack_bf16_rhs(rhs);
    parallel_for_blocks(rows, block, [&](Index begin, Index end) {
      multiply_rows_bf16(dst, dst_row_stride, lhs, packed, cols, begin, end, mode, start_row);
    });
    return;
  }
  const PackedRhs packed = pack_rhs(rhs);
  parallel_for_blocks(rows, block, [&](Index begin, Index end) {
    multiply_rows(dst, dst_row_stride, lhs, packed, cols, begin, end, mode, start_row);
  });
}

}  // namespace edgewise::detail
