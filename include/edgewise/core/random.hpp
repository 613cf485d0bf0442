/// \file
/// Seeded random numbers. SplitMix64 is small, fast, and reproducible across platforms, which
/// std::uniform_*_distribution is not; every random choice in edgewise goes through it.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <span>

namespace edgewise {

/// Vigna's SplitMix64 generator: 64 bits of state, the same sequence on every platform. Not
/// thread-safe; parallel loops use hashed_uniform or one generator per item.
class SplitMix64 {
 public:
  /// Every seed, 0 included, gives a good stream.
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

  /// The whole generator state: SplitMix64(state()) continues the same sequence (checkpoints).
  std::uint64_t state() const { return state_; }

  /// The next 64 random bits.
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

  /// Uniform integer in [0, n); n must be positive. The modulo bias is below 2^-40 for n < 2^24.
  std::uint64_t below(std::uint64_t n) { return next() % n; }

  /// Standard normal by Box-Muller.
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1], so the log is finite
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }

 private:
  std::uint64_t state_;
};

}  // namespace edgewise

namespace edgewise {

/// Whether a forward pass trains: stochastic layers (dropout) draw from rng only when training.
struct Mode {
  bool training = false;  ///< Training mode: dropout is active.
  SplitMix64* rng = nullptr;  ///< Not owned; required when training with dropout.
  /// Not owned, optional: the graph-wide id of each row the layers see (row r is node node_ids[r]).
  /// Dropout draws a row's mask, and attention dropout an edge's, from these ids, so a sampled batch
  /// drops exactly what a forward over the whole graph drops for the same nodes and edges. Empty:
  /// row r is node r.
  std::span<const std::int32_t> node_ids;

  /// Inference: no dropout, no random numbers.
  static Mode inference() { return {}; }
  /// Training, drawing from `rng`, which must outlive the forward call.
  static Mode train(SplitMix64& rng) { return {true, &rng, {}}; }
  /// Training on rows that are the nodes `ids` of a larger graph (see node_ids).
  static Mode train(SplitMix64& rng, std::span<const std::int32_t> ids) { return {true, &rng, ids}; }
};

/// A counter-based uniform in [0, 1) for item `index` of a stream keyed by `key`: lets parallel loops
/// draw dropout masks that do not depend on the thread count or on iteration order.
inline double hashed_uniform(std::uint64_t key, std::uint64_t index) {
  SplitMix64 mixer(key ^ (index * 0xD1B54A32D192ED03ULL));
  return mixer.uniform();
}

/// A dropout draw in integers: keep_draw(key, index, keep_threshold(rate)) is exactly
/// hashed_uniform(key, index) >= rate. The uniform's 53 bits are compared with ceil(rate * 2^53)
/// instead of being converted to double, which AVX2 cannot do for 4 lanes at once.
/// @{
inline std::uint64_t keep_threshold(double rate) { return static_cast<std::uint64_t>(std::ceil(rate * 0x1.0p53)); }
inline bool keep_draw(std::uint64_t key, std::uint64_t index, std::uint64_t threshold) {
  SplitMix64 mixer(key ^ (index * 0xD1B54A32D192ED03ULL));
  return (mixer.next() >> 11) >= threshold;
}
/// @}

/// A dropout factor: `scale` when keep_draw(key, index, threshold) keeps item `index`, else 0.
template <typename Scalar>
inline Scalar keep_factor(std::uint64_t key, std::uint64_t index, std::uint64_t threshold, Scalar scale) {
  // Through int32 and a product, not a choice: GCC vectorizes loops over this with AVX2 and AVX-512,
  // and a bool converted straight to float stops it.
  return static_cast<Scalar>(static_cast<std::int32_t>(keep_draw(key, index, threshold))) * scale;
}

/// The stream index of head `head` of edge source -> target (graph-wide ids) among `heads`: an
/// edge's attention-dropout draw depends on its ends, not on where the edge is stored.
inline std::uint64_t edge_draw_index(std::int64_t target, std::int64_t source, std::int64_t heads, std::int64_t head) {
  const std::uint64_t pair = (static_cast<std::uint64_t>(target) << 32) | static_cast<std::uint32_t>(source);
  return pair * static_cast<std::uint64_t>(heads) + static_cast<std::uint64_t>(head);
}

}  // namespace edgewise
