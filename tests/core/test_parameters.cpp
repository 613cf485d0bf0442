// Parameters: named slots in one flat buffer, their offsets, growth that keeps earlier values, lookup
// by name, and gradients kept apart from values.
#include "edgewise/core/parameters.hpp"

#include <gtest/gtest.h>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

TEST(ParametersTest, SlotsFollowEachOtherInTheFlatBuffer) {
  Parameters<float> params;
  const ParameterHandle weight = params.add("layer.weight", 2, 3);
  const ParameterHandle bias = params.add("layer.bias", 1, 3);
  EXPECT_EQ(params.size(), 9);
  ASSERT_EQ(params.slots().size(), 2u);
  EXPECT_EQ(params.slot(weight).offset, 0);
  EXPECT_EQ(params.slot(bias).offset, 6);
  EXPECT_EQ(params.slot(bias).size(), 3);
  EXPECT_TRUE(params.values().isZero()) << "new parameters start at zero";

  params.value(weight)(1, 2) = 5.0f;  // row-major: flat index 1 * 3 + 2
  params.value(bias)(0, 0) = -1.0f;
  EXPECT_EQ(params.values()[5], 5.0f);
  EXPECT_EQ(params.values()[6], -1.0f);
}

TEST(ParametersTest, GrowingKeepsEarlierValuesAndHandles) {
  Parameters<double> params;
  const ParameterHandle first = params.add("first", 3, 3);
  params.value(first).setConstant(2.0);
  const ParameterHandle second = params.add("second", 100, 10);  // reallocates the buffers
  EXPECT_TRUE((params.value(first).array() == 2.0).all());
  EXPECT_EQ(params.value(second).rows(), 100);
  EXPECT_EQ(params.find("second").slot, second.slot);
  EXPECT_EQ(params.find("third").slot, -1);
}

TEST(ParametersTest, GradientsAreSeparateAndZeroGradClearsThemOnly) {
  Parameters<float> params;
  const ParameterHandle h = params.add("w", 2, 2);
  params.value(h).setConstant(1.0f);
  params.grad(h).setConstant(3.0f);
  EXPECT_TRUE((params.values().array() == 1.0f).all());
  params.zero_grad();
  EXPECT_TRUE(params.grads().isZero());
  EXPECT_TRUE((params.values().array() == 1.0f).all());
}

TEST(ParametersTest, RefusesARepeatedName) {
  Parameters<float> params;
  params.add("w", 1, 1);
  EXPECT_THROW(params.add("w", 2, 2), ArgumentError);
}

}  // namespace
}  // namespace edgewise
