// Small matrices written out by hand and missing labels, for tests of losses, metrics and training.
#pragma once

#include <initializer_list>
#include <limits>

#include "edgewise/core/tensor.hpp"

namespace edgewise::testing {

// A missing label, in double and in float.
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr float kMissing = std::numeric_limits<float>::quiet_NaN();

// A rows x cols matrix of `values`, row by row. Read through a map rather than std::copy: GCC 12.2
// at -O3 for AVX-512 targets folds the copy of a constant list ending in zeros, such as {1, 1, 1, 0},
// into a broadcast of its first value.
inline Matrix<double> matrix(Index rows, Index cols, std::initializer_list<double> values) {
  return ConstMatrixMap<double>(values.begin(), rows, cols);
}

}  // namespace edgewise::testing
