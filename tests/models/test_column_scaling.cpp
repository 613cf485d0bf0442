// ColumnScaling: hand-computed means and standard deviations ignoring NaN, constant and empty columns,
// the round trip, and the JSON form's checks.
#include "edgewise/models/column_scaling.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(ColumnScalingTest, StandardizesEachColumnIgnoringNaN) {
  Matrix<float> values(4, 3);
  values << 1, 7, kNaN,  //
      2, 7, kNaN,        //
      kNaN, 7, kNaN,     //
      6, 7, kNaN;
  const ColumnScaling scaling = ColumnScaling::standardize(values);
  ASSERT_EQ(scaling.columns(), 3);
  EXPECT_DOUBLE_EQ(scaling.shift[0], 3.0);
  // Values 1, 2, 6 around 3: squared deviations 4, 1, 9 over n = 3 (the population deviation).
  EXPECT_NEAR(scaling.scale[0], std::sqrt(14.0 / 3.0), 1e-9);
  EXPECT_DOUBLE_EQ(scaling.shift[1], 7.0);
  EXPECT_DOUBLE_EQ(scaling.scale[1], 1.0) << "a constant column keeps scale 1";
  EXPECT_DOUBLE_EQ(scaling.scale[2], 1.0) << "an empty column keeps scale 1";

  const Matrix<float> scaled = scaling.to_scaled(values);
  EXPECT_NEAR(scaled(3, 0), (6 - 3) / scaling.scale[0], 1e-6);
  EXPECT_TRUE(std::isnan(scaled(2, 0)));
  const Matrix<float> back = scaling.to_original(scaled);
  EXPECT_NEAR(back(0, 0), 1.0f, 1e-6);
  EXPECT_NEAR(back(1, 1), 7.0f, 1e-6);
}

TEST(ColumnScalingTest, IdentityChangesNothing) {
  const ColumnScaling identity = ColumnScaling::identity(2);
  Matrix<float> values(1, 2);
  values << -3.5f, 9.0f;
  EXPECT_EQ(identity.to_scaled(values), values);
  EXPECT_EQ(identity.to_original(values), values);
}

TEST(ColumnScalingTest, JsonRoundTripsAndRefusesBadScales) {
  const ColumnScaling scaling{{1.5, -2.0}, {0.5, 3.0}};
  const ColumnScaling restored = nlohmann::json(scaling).get<ColumnScaling>();
  EXPECT_EQ(restored.shift, scaling.shift);
  EXPECT_EQ(restored.scale, scaling.scale);
  EXPECT_THROW((nlohmann::json{{"shift", {0.0, 1.0}}, {"scale", {1.0}}}.get<ColumnScaling>()), ArgumentError);
  EXPECT_THROW((nlohmann::json{{"shift", {0.0}}, {"scale", {-1.0}}}.get<ColumnScaling>()), ArgumentError);
}

}  // namespace
}  // namespace edgewise
