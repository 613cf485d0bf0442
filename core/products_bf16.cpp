#include "products_bf16.hpp"

#include "edgewise/core/parallel.hpp"

#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <utility>
#include <vector>

// The kernel's functions are compiled for AVX-512 BF16 whatever the rest of the build targets, and
// run only after cpu_has_bf16() said yes.
#define EDGEWISE_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512bf16")))
// The AMX tile kernel's, only after cpu_has_amx() said yes.
#define EDGEWISE_AMX_TARGET __attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512bf16")))

namespace edgewise::detail {
namespace {

constexpr Index kLanes = 16;  // floats in an AVX-512 vector, and bf16 pairs in one
// A tile of 6 rows x 4 vectors: 24 accumulators, 4 rhs vectors and a broadcast lhs pair fit the 32
// vector registers, as in the float32 kernel.
constexpr int kTileVectors = 4;
constexpr int kTileRows = 6;
// Inner-dimension entries per pass, even so that a pass ends between two pairs. A pass ends by
// storing the tile's float sums and the next one starts by loading them, which keeps their order.
constexpr Index kDepthBlock = 256;

// x rounded to bfloat16 (to nearest, ties to even) in the high 16 bits, the low 16 zero; a NaN stays
// a (quiet) NaN instead of rounding into the sign bit: for operands at strides the vector packing
// below does not read.
std::uint32_t bf16_high(float x) {
  const auto bits = std::bit_cast<std::uint32_t>(x);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return (bits | 0x00400000u) & 0xFFFF0000u;
  return (bits + 0x7FFFu + ((bits >> 16) & 1u)) & 0xFFFF0000u;
}

// Two floats as the bfloat16 pair VDPBF16PS multiplies: `first` in the low half.
std::uint32_t bf16_pair(float first, float second) { return (bf16_high(first) >> 16) | bf16_high(second); }

// The first `count` (at most 16) floats at `from`, the other lanes zero. A whole vector is a plain
// load: a masked one keeps this core's prefetcher from streaming a large matrix in.
EDGEWISE_BF16_TARGET __m512 load(const float* from, Index count) {
  if (count == kLanes) return _mm512_loadu_ps(from);
  return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << count) - 1u), from);
}

// 32 bfloat16s, low's 16 then high's, each rounded as bf16_high rounds (VCVTNE2PS2BF16 also flushes
// subnormals to zero, which VDPBF16PS would read as zero anyway).
EDGEWISE_BF16_TARGET __m512i bf16_halves(__m512 low, __m512 high) {
  return reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(high, low));
}

// The first `count` (at most 16) floats at `first` and at `second` as bf16 pairs, lane j holding
// (first[j], second[j]); second null: zeros. Lanes past count are zero.
EDGEWISE_BF16_TARGET __m512i pairs_of(const float* first, const float* second, Index count) {
  alignas(64) static constexpr std::uint16_t kInterleave[32] = {0,  16, 1,  17, 2,  18, 3,  19, 4,  20, 5,
                                                                21, 6,  22, 7,  23, 8,  24, 9,  25, 10, 26,
                                                                11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  const __m512i halves = bf16_halves(load(first, count), second == nullptr ? _mm512_setzero_ps() : load(second, count));
  return _mm512_permutexvar_epi16(_mm512_load_si512(kInterleave), halves);
}

// `floats` (at most 32) consecutive floats as (floats + 1) / 2 bf16 pairs, in order.
EDGEWISE_BF16_TARGET void consecutive_pairs(const float* from, Index floats, std::uint32_t* to) {
  const Index low_count = std::min<Index>(floats, kLanes), high_count = floats - low_count;
  const __m512i words = bf16_halves(load(from, low_count), load(from + kLanes, high_count));
  _mm512_mask_storeu_epi32(to, static_cast<__mmask16>((1u << ((floats + 1) / 2)) - 1u), words);
}

// One pass of one tile: `pairs` pairs of each lhs row times `pairs` rows of the packed rhs panel.
struct Bf16Tile {
  const std::uint32_t* lhs;  // pair q of the tile's row r at lhs[r * lhs_row_step + q * lhs_pair_step]
  Index lhs_row_step, lhs_pair_step;
  const std::uint32_t* rhs;  // the panel's first column; rows rhs_width apart
  Index rhs_width;
  float* dst;
  Index dst_row_stride;
  Index pairs;
  Index last_width;        // columns of dst in the tile's last vector
  bool accumulate;         // start from dst, else from start_row
  const float* start_row;  // the panel's columns of the row every sum starts from; null: zeros
};

// The loops over rows and vectors are unrolled so that the sums stay in registers throughout.
template <int Rows, int Vectors>
EDGEWISE_BF16_TARGET void bf16_tile(const Bf16Tile& t) {
  __mmask16 masks[Vectors];
#pragma GCC unroll 4
  for (int v = 0; v < Vectors; ++v)
    masks[v] = v + 1 == Vectors ? static_cast<__mmask16>((1u << t.last_width) - 1u) : static_cast<__mmask16>(0xFFFF);
  __m512 sums[Rows][Vectors];
#pragma GCC unroll 6
  for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < Vectors; ++v) {
      if (t.accumulate) {
        sums[r][v] = _mm512_maskz_loadu_ps(masks[v], t.dst + r * t.dst_row_stride + v * kLanes);
      } else {
        sums[r][v] = t.start_row != nullptr ? _mm512_maskz_loadu_ps(masks[v], t.start_row + v * kLanes)
                                            : _mm512_setzero_ps();
      }
    }
  for (Index q = 0; q < t.pairs; ++q) {
    __m512bh rhs_row[Vectors];
#pragma GCC unroll 4
    for (int v = 0; v < Vectors; ++v)
      rhs_row[v] = reinterpret_cast<__m512bh>(_mm512_loadu_si512(t.rhs + q * t.rhs_width + v * kLanes));
    const std::uint32_t* lhs = t.lhs + q * t.lhs_pair_step;
#pragma GCC unroll 6
    for (int r = 0; r < Rows; ++r) {
      const auto x = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(lhs[r * t.lhs_row_step])));
#pragma GCC unroll 4
      for (int v = 0; v < Vectors; ++v) sums[r][v] = _mm512_dpbf16_ps(sums[r][v], x, rhs_row[v]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < Vectors; ++v)
      _mm512_mask_storeu_ps(t.dst + r * t.dst_row_stride + v * kLanes, masks[v], sums[r][v]);
}

using Bf16Kernel = void (*)(const Bf16Tile&);

template <int Rows, int... Vectors>
constexpr std::array<Bf16Kernel, sizeof...(Vectors)> tiles_of_rows(std::integer_sequence<int, Vectors...>) {
  return {&bf16_tile<Rows, Vectors + 1>...};
}

template <int... Rows>
constexpr auto tile_table(std::integer_sequence<int, Rows...>) {
  return std::array{tiles_of_rows<Rows + 1>(std::make_integer_sequence<int, kTileVectors>())...};
}

// kTiles[rows - 1][vectors - 1]: the tile kernel for that many rows and vectors.
constexpr auto kTiles = tile_table(std::make_integer_sequence<int, kTileRows>());

// Rows [begin, end) of lhs over inner entries [first, first + depth) as bf16 pairs (the last pair's
// second half zero when depth is odd), laid out for reading them fast: a row's pairs side by side
// where its floats are, else (the transpose of a row-major matrix, x^T in a weight gradient) one
// pair of every row side by side. Returns {row step, pair step}.
EDGEWISE_BF16_TARGET std::pair<Index, Index> pack_lhs(const FloatMatrixView& lhs, Index begin, Index end,
                                                      Index first, Index depth, std::uint32_t* to) {
  const Index rows = end - begin, pairs = (depth + 1) / 2;
  const auto at = [&](Index r, Index p) { return lhs.data + r * lhs.row_stride + p * lhs.col_stride; };
  if (lhs.col_stride == 1) {
    for (Index r = begin; r < end; ++r)
      for (Index p = 0; p < depth; p += 2 * kLanes)
        consecutive_pairs(at(r, first + p), std::min(2 * kLanes, depth - p), to + (r - begin) * pairs + p / 2);
    return {pairs, 1};
  }
  if (lhs.row_stride == 1) {
    for (Index q = 0; q < pairs; ++q) {
      const Index p = first + 2 * q;
      for (Index r = begin; r < end; r += kLanes) {
        const Index count = std::min(kLanes, end - r);
        const __m512i words = pairs_of(at(r, p), 2 * q + 1 < depth ? at(r, p + 1) : nullptr, count);
        _mm512_mask_storeu_epi32(to + q * rows + (r - begin), static_cast<__mmask16>((1u << count) - 1u), words);
      }
    }
    return {1, rows};
  }
  for (Index r = begin; r < end; ++r)
    for (Index q = 0; q < pairs; ++q)
      to[(r - begin) * pairs + q] =
          bf16_pair(*at(r, first + 2 * q), 2 * q + 1 < depth ? *at(r, first + 2 * q + 1) : 0.0f);
  return {pairs, 1};
}

}  // namespace

bool cpu_has_bf16() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512bf16");
  return has;
}

namespace {

// Pairs [begin, end) of the packed rhs.
EDGEWISE_BF16_TARGET void pack_rhs_pairs(const FloatMatrixView& rhs, Index width, Index begin, Index end,
                                         std::uint32_t* to) {
  for (Index q = begin; q < end; ++q) {
    const float* first = rhs.data + 2 * q * rhs.row_stride;
    const float* second = 2 * q + 1 < rhs.rows ? first + rhs.row_stride : nullptr;
    std::uint32_t* row = to + q * width;
    if (rhs.col_stride == 1) {  // whole vectors, the padding included
      for (Index j = 0; j < rhs.cols; j += kLanes)
        _mm512_storeu_si512(row + j, pairs_of(first + j, second == nullptr ? nullptr : second + j,
                                              std::min(kLanes, rhs.cols - j)));
    } else {
      for (Index j = 0; j < rhs.cols; ++j)
        row[j] = bf16_pair(first[j * rhs.col_stride], second == nullptr ? 0.0f : second[j * rhs.col_stride]);
      std::fill(row + rhs.cols, row + width, 0u);
    }
  }
}

// Pairs per block of a packed rhs cut among threads: a deep rhs (dy of a weight gradient, over all
// the rows of a batch) is packed by every thread.
constexpr Index kRhsPairBlock = 64;

// AMX (Intel's tile registers): one TDPBF16PS adds a 16 x 32 bf16 tile times a 32 x 16 one to 16 x 16
// float sums. A tile row is 64 bytes: 16 bf16 pairs of one lhs row, or one packed rhs row's 16
// columns, so Bf16Rhs is its rhs layout as it is, given pair rows padded with zeros to whole tiles.
constexpr Index kAmxRows = 16;       // rows of every tile
constexpr Index kAmxPairs = 16;      // bf16 pairs in a tile row
constexpr int kAmxResultTiles = 4;   // 16-column sums tiles per pass: tmm0-3; lhs tmm4, rhs tmm5-7
constexpr Index kAmxPanel = kAmxResultTiles * kLanes;

Index whole_tiles_of_pairs(Index pairs) { return (pairs + kAmxPairs - 1) / kAmxPairs * kAmxPairs; }

// Linux lends a process the tile registers' 8 KiB of state only when asked (arch_prctl
// ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA); a tile instruction without it kills the process.
bool os_lends_tiles() {
  constexpr long kRequestPermission = 0x1023, kTileData = 18;
  return syscall(SYS_arch_prctl, kRequestPermission, kTileData) == 0;
}

bool cpu_has_amx() {
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
    const bool tiles = ((edx >> 24) & 1u) != 0, bf16 = ((edx >> 22) & 1u) != 0;  // AMX-TILE, AMX-BF16
    return cpu_has_bf16() && tiles && bf16 && os_lends_tiles();
  }();
  return has;
}

// Palette 1 with every tile in use 16 rows of 64 bytes.
struct alignas(64) TileConfig {
  std::uint8_t palette = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t bytes_per_row[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  std::uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};

// The tile instructions are assembly the compiler cannot see into: memory written before one must be
// written by then, and what one stores read only after it.
inline void compiler_barrier() { asm volatile("" ::: "memory"); }

// Where a panel's 16 x (Tiles x 16) sums start and end: `start` (rows `start_stride` bytes apart;
// stride 0 repeats one row) or zeros where null, and `out`.
struct AmxSums {
  const float* start;
  long start_stride;
  float* out;
  long out_stride;
};

// The panel's sums plus lhs (16 rows of `pairs` pairs, `pairs` a whole number of tiles) times the packed
// rhs's panel of `Tiles` x 16 columns at `rhs`.
template <int Tiles>
EDGEWISE_AMX_TARGET void amx_panel(const std::uint32_t* lhs, Index pairs, const std::uint32_t* rhs, Index rhs_width,
                                   const AmxSums& sums) {
  const long lhs_stride = pairs * 4, rhs_stride = rhs_width * 4;
  compiler_barrier();
  if (sums.start == nullptr) {
    _tile_zero(0);
    if constexpr (Tiles > 1) _tile_zero(1);
    if constexpr (Tiles > 2) _tile_zero(2);
    if constexpr (Tiles > 3) _tile_zero(3);
  } else {
    _tile_loadd(0, sums.start, sums.start_stride);
    if constexpr (Tiles > 1) _tile_loadd(1, sums.start + kLanes, sums.start_stride);
    if constexpr (Tiles > 2) _tile_loadd(2, sums.start + 2 * kLanes, sums.start_stride);
    if constexpr (Tiles > 3) _tile_loadd(3, sums.start + 3 * kLanes, sums.start_stride);
  }
  for (Index q = 0; q < pairs; q += kAmxPairs) {
    const std::uint32_t* panel = rhs + q * rhs_width;
    _tile_loadd(4, lhs + q, lhs_stride);
    _tile_loadd(5, panel, rhs_stride);
    _tile_dpbf16ps(0, 4, 5);
    if constexpr (Tiles > 1) {
      _tile_loadd(6, panel + kLanes, rhs_stride);
      _tile_dpbf16ps(1, 4, 6);
    }
    if constexpr (Tiles > 2) {
      _tile_loadd(7, panel + 2 * kLanes, rhs_stride);
      _tile_dpbf16ps(2, 4, 7);
    }
    if constexpr (Tiles > 3) {
      _tile_loadd(5, panel + 3 * kLanes, rhs_stride);
      _tile_dpbf16ps(3, 4, 5);
    }
  }
  _tile_stored(0, sums.out, sums.out_stride);
  if constexpr (Tiles > 1) _tile_stored(1, sums.out + kLanes, sums.out_stride);
  if constexpr (Tiles > 2) _tile_stored(2, sums.out + 2 * kLanes, sums.out_stride);
  if constexpr (Tiles > 3) _tile_stored(3, sums.out + 3 * kLanes, sums.out_stride);
  compiler_barrier();
}

using AmxPanel = void (*)(const std::uint32_t*, Index, const std::uint32_t*, Index, const AmxSums&);
constexpr std::array<AmxPanel, kAmxResultTiles> kAmxPanels = {&amx_panel<1>, &amx_panel<2>, &amx_panel<3>,
                                                              &amx_panel<4>};

// The first `rows` rows of lhs from `first` as bf16 pairs, `pairs` a row (zero past the last pair and
// after the last row, to 16 rows).
EDGEWISE_AMX_TARGET void pack_amx_rows(const float* first, Index row_stride, Index rows, Index depth, Index pairs,
                                       std::uint32_t* to) {
  const Index filled = (depth + 1) / 2;
  for (Index r = 0; r < rows; ++r) {
    std::uint32_t* row = to + r * pairs;
    for (Index p = 0; p < depth; p += 2 * kLanes)
      consecutive_pairs(first + r * row_stride + p, std::min(2 * kLanes, depth - p), row + p / 2);
    std::fill(row + filled, row + pairs, 0u);
  }
  std::fill(to + rows * pairs, to + kAmxRows * pairs, 0u);
}

// Transposes 16 vectors of 16 words: word i of words[j] becomes word j of words[i].
EDGEWISE_BF16_TARGET void transpose_words(__m512i words[16]) {
  __m512i t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(words[i], words[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(words[i], words[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    words[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
    words[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
    words[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
    words[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  for (int i = 0; i < 16; i += 8)
    for (int j = 0; j < 4; ++j) {
      t[i + j] = _mm512_shuffle_i32x4(words[i + j], words[i + j + 4], 0x88);
      t[i + j + 4] = _mm512_shuffle_i32x4(words[i + j], words[i + j + 4], 0xdd);
    }
  for (int j = 0; j < 8; ++j) {
    words[j] = _mm512_shuffle_i32x4(t[j], t[j + 8], 0x88);
    words[j + 8] = _mm512_shuffle_i32x4(t[j], t[j + 8], 0xdd);
  }
}

// pack_amx_rows for the transpose of a row-major matrix (x^T in a weight gradient), whose rows lie
// side by side: 16 pairs of every row at a time, transposed.
EDGEWISE_AMX_TARGET void pack_amx_columns(const float* first, Index col_stride, Index rows, Index depth, Index pairs,
                                          std::uint32_t* to) {
  const Index filled = (depth + 1) / 2;
  for (Index q0 = 0; q0 < pairs; q0 += kAmxPairs) {
    __m512i words[kAmxPairs];
    for (Index i = 0; i < kAmxPairs; ++i) {
      const Index p = 2 * (q0 + i);
      const float* second = p + 1 < depth ? first + (p + 1) * col_stride : nullptr;
      words[i] = q0 + i < filled ? pairs_of(first + p * col_stride, second, rows) : _mm512_setzero_si512();
    }
    transpose_words(words);
    for (Index r = 0; r < kAmxRows; ++r) _mm512_storeu_si512(to + r * pairs + q0, words[r]);
  }
}

// multiply_rows_bf16 for a row-major lhs, or the transpose of one, on tiles, 16 rows at a time. A
// panel of whole tiles starts from and ends in dst itself; one at the last rows or columns goes
// through `sums`, as its tiles would reach past dst. An element's sum never depends on the rows beside
// it, so its bits do not depend on the cut.
EDGEWISE_AMX_TARGET void multiply_rows_amx(float* dst, Index dst_row_stride, const FloatMatrixView& lhs,
                                           const Bf16Rhs& rhs, Index cols, Index begin, Index end, Product mode,
                                           const float* start_row) {
  constexpr long kFloatBytes = sizeof(float), kSumsStride = kAmxPanel * kFloatBytes;
  const Index pairs = whole_tiles_of_pairs((lhs.cols + 1) / 2);
  const long dst_stride = dst_row_stride * kFloatBytes;
  thread_local std::vector<std::uint32_t> packed;
  packed.resize(static_cast<std::size_t>(kAmxRows * pairs));
  alignas(64) float sums[kAmxRows * kAmxPanel];
  static const TileConfig config;
  compiler_barrier();
  _tile_loadconfig(&config);
  for (Index row = begin; row < end; row += kAmxRows) {
    const Index rows = std::min(kAmxRows, end - row);
    if (lhs.col_stride == 1) {
      pack_amx_rows(lhs.data + row * lhs.row_stride, lhs.row_stride, rows, lhs.cols, pairs, packed.data());
    } else {
      pack_amx_columns(lhs.data + row, lhs.col_stride, rows, lhs.cols, pairs, packed.data());
    }
    for (Index col = 0; col < cols; col += kAmxPanel) {
      const Index width = std::min(kAmxPanel, cols - col);
      const AmxPanel panel = kAmxPanels[static_cast<std::size_t>((width + kLanes - 1) / kLanes - 1)];
      float* out = dst + row * dst_row_stride + col;
      const float* start = mode == Product::add ? out : start_row != nullptr ? start_row + col : nullptr;
      const long start_stride = mode == Product::add ? dst_stride : 0;
      if (rows == kAmxRows && width % kLanes == 0) {
        panel(packed.data(), pairs, rhs.words + col, rhs.width, {start, start_stride, out, dst_stride});
        continue;
      }
      for (Index r = 0; r < kAmxRows; ++r) {
        float* sum = sums + r * kAmxPanel;
        std::fill(sum, sum + kAmxPanel, 0.0f);
        if (start != nullptr && r < rows) std::copy_n(start + r * (start_stride / kFloatBytes), width, sum);
      }
      panel(packed.data(), pairs, rhs.words + col, rhs.width, {sums, kSumsStride, sums, kSumsStride});
      for (Index r = 0; r < rows; ++r) std::copy_n(sums + r * kAmxPanel, width, out + r * dst_row_stride);
    }
  }
  _tile_release();
}

}  // namespace

Bf16Rhs pack_bf16_rhs(const FloatMatrixView& rhs) {
  thread_local std::vector<std::uint32_t> packed;
  const Index width = (rhs.cols + kLanes - 1) / kLanes * kLanes, pairs = (rhs.rows + 1) / 2;
  packed.resize(static_cast<std::size_t>(whole_tiles_of_pairs(pairs) * width));
  std::uint32_t* to = packed.data();
  parallel_for_blocks(pairs, kRhsPairBlock,
                      [&](Index begin, Index end) { pack_rhs_pairs(rhs, width, begin, end, to); });
  std::fill(packed.begin() + pairs * width, packed.end(), 0u);  // the tiles' padding
  return {to, width};
}

void multiply_rows_bf16(float* dst, Index dst_row_stride, const FloatMatrixView& lhs, const Bf16Rhs& rhs, Index cols,
                        Index begin, Index end, Product mode, const float* start_row) {
  if ((lhs.col_stride == 1 || lhs.row_stride == 1) && cpu_has_amx()) {
    multiply_rows_amx(dst, dst_row_stride, lhs, rhs, cols, begin, end, mode, start_row);
    return;
  }
  constexpr Index panel = kTileVectors * kLanes;
  thread_local std::vector<std::uint32_t> packed_lhs;
  for (Index depth_begin = 0; depth_begin < lhs.cols; depth_begin += kDepthBlock) {
    const Index depth = std::min(kDepthBlock, lhs.cols - depth_begin);
    Bf16Tile t{};
    t.pairs = (depth + 1) / 2;
    packed_lhs.resize(static_cast<std::size_t>((end - begin) * t.pairs));
    const auto [row_step, pair_step] = pack_lhs(lhs, begin, end, depth_begin, depth, packed_lhs.data());
    t.lhs_row_step = row_step;
    t.lhs_pair_step = pair_step;
    t.rhs_width = rhs.width;
    t.dst_row_stride = dst_row_stride;
    t.accumulate = mode == Product::add || depth_begin > 0;
    for (Index col = 0; col < cols; col += panel) {
      const Index width = std::min(panel, cols - col);
      const Index vectors = (width + kLanes - 1) / kLanes;
      t.last_width = width - (vectors - 1) * kLanes;
      t.rhs = rhs.words + depth_begin / 2 * rhs.width + col;
      t.start_row = start_row != nullptr ? start_row + col : nullptr;
      for (Index row = begin; row < end; row += kTileRows) {
        t.lhs = packed_lhs.data() + (row - begin) * row_step;
        t.dst = dst + row * dst_row_stride + col;
        kTiles[static_cast<std::size_t>(std::min<Index>(kTileRows, end - row) - 1)][static_cast<std::size_t>(vectors - 1)](t);
      }
    }
  }
}

}  // namespace edgewise::detail
