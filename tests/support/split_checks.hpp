// Checks on the parts of a split.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "edgewise/splits/splits.hpp"

namespace edgewise::testing {

inline std::vector<Index> sorted(std::vector<Index> rows) {
  std::ranges::sort(rows);
  return rows;
}

// The rows of all three parts, sorted.
inline std::vector<Index> all_rows(const Split& split) {
  std::vector<Index> rows = split.train;
  rows.insert(rows.end(), split.val.begin(), split.val.end());
  rows.insert(rows.end(), split.test.begin(), split.test.end());
  return sorted(rows);
}

// The parts hold every row 0 .. n-1 once.
inline void expect_partition_of(const Split& split, Index n) {
  std::vector<Index> expected(static_cast<std::size_t>(n));
  std::iota(expected.begin(), expected.end(), Index{0});
  EXPECT_EQ(all_rows(split), expected);
}

}  // namespace edgewise::testing
