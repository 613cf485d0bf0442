// given_width: the hidden width that the front ends' --hidden / --head-dim options set.
#include <gtest/gtest.h>

#include "edgewise/tasks/common/layer_width.hpp"
#include "support/thrown.hpp"

namespace edgewise {
namespace {

TEST(GivenWidthTest, EitherWidthSetsTheLayersWidth) {
  EXPECT_EQ(given_width({}, 4), std::nullopt);
  EXPECT_EQ(given_width({.hidden = 64}, 4), 64);
  EXPECT_EQ(given_width({.head_dim = 16}, 4), 64);
  EXPECT_EQ(given_width({.hidden = 64, .head_dim = 16}, 4), 64);
}

TEST(GivenWidthTest, RefusesWidthsTheHeadsCannotSplitNamingTheOptions) {
  const WidthOptionNames cli{.hidden = "--hidden", .heads = "--heads", .head_dim = "--head-dim"};
  EXPECT_EQ(testing::argument_error_of([&] { given_width({.hidden = 9}, 2, cli); }),
            "--hidden 9 is not a multiple of --heads 2: each head is hidden / heads wide");
  EXPECT_EQ(testing::argument_error_of([] { given_width({.hidden = 8, .head_dim = 8}, 2); }),
            "hidden 8 and head_dim 8 disagree: 2 heads of width 8 make 16");
  EXPECT_EQ(testing::argument_error_of([] { given_width({}, 0); }), "heads 0: a layer needs at least one head");
}

}  // namespace
}  // namespace edgewise
