// SplitMix64 against Vigna's reference sequence, its derived draws, and the order-free hashed uniform.
#include "edgewise/core/random.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace edgewise {
namespace {

TEST(SplitMix64Test, GivesTheReferenceSequenceForSeedZero) {
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(rng.next(), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(rng.next(), 0x06C45D188009454FULL);
  EXPECT_EQ(rng.next(), 0xF88BB8A8724C81ECULL);
}

TEST(SplitMix64Test, StateContinuesTheSequence) {
  SplitMix64 rng(42);
  rng.next();
  SplitMix64 resumed(rng.state());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(resumed.next(), rng.next());
}

TEST(SplitMix64Test, DrawsStayInTheirRangesWithTheRightMoments) {
  SplitMix64 rng(7);
  constexpr int n = 200000;
  double sum = 0, sum_squares = 0, normal_sum = 0, normal_squares = 0;
  std::vector<int> counts(5, 0);
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sum_squares += u * u;
    const double v = rng.uniform(-2.0, 3.0);
    ASSERT_GE(v, -2.0);
    ASSERT_LT(v, 3.0);
    const std::uint64_t k = rng.below(5);
    ASSERT_LT(k, 5u);
    ++counts[k];
    const double z = rng.normal();
    ASSERT_TRUE(std::isfinite(z));
    normal_sum += z;
    normal_squares += z * z;
  }
  // Standard errors: about 0.0006 for the uniform mean and 0.002 for the normal's.
  EXPECT_NEAR(sum / n, 0.5, 0.003);
  EXPECT_NEAR(sum_squares / n - 0.25, 1.0 / 12.0, 0.002);
  EXPECT_NEAR(normal_sum / n, 0.0, 0.01);
  EXPECT_NEAR(normal_squares / n, 1.0, 0.02);
  for (const int count : counts) EXPECT_NEAR(count, n / 5, 1000);
}

TEST(HashedUniformTest, DependsOnKeyAndIndexOnly) {
  const double first = hashed_uniform(3, 10);
  hashed_uniform(3, 11);  // other draws in between change nothing
  EXPECT_EQ(hashed_uniform(3, 10), first);
  EXPECT_NE(hashed_uniform(4, 10), first);
  EXPECT_NE(hashed_uniform(3, 9), first);
  double sum = 0;
  for (std::uint64_t i = 0; i < 100000; ++i) sum += hashed_uniform(1, i);
  EXPECT_NEAR(sum / 100000, 0.5, 0.005);
}

// keep_draw is hashed_uniform(key, index) >= rate computed in integers: the same answer for every
// draw, including uniforms that land exactly on the rate.
TEST(HashedUniformTest, KeepDrawIsTheUniformAtOrAboveTheRate) {
  for (const double rate : {0.1, 1.0 / 3.0, 0.5, 0.6, 0.999, 1e-17}) {
    const std::uint64_t threshold = keep_threshold(rate);
    int kept = 0;
    for (std::uint64_t i = 0; i < 20000; ++i) {
      ASSERT_EQ(keep_draw(7, i, threshold), hashed_uniform(7, i) >= rate) << "rate " << rate << ", index " << i;
      kept += keep_draw(7, i, threshold) ? 1 : 0;
    }
    EXPECT_NEAR(kept / 20000.0, 1.0 - rate, 0.015) << "rate " << rate;
  }
  // A uniform exactly at the rate is kept, one just below it is not.
  const double exact = hashed_uniform(7, 3);
  EXPECT_TRUE(keep_draw(7, 3, keep_threshold(exact)));
  EXPECT_FALSE(keep_draw(7, 3, keep_threshold(std::nextafter(exact, 1.0))));
}

}  // namespace
}  // namespace edgewise
