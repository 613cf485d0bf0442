// Finite-difference gradient checking shared by the layer and kernel tests (double precision).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "edgewise/core/random.hpp"
#include "edgewise/core/tensor.hpp"

namespace edgewise::testing {

// Largest relative difference between an analytic gradient and central differences of `loss`
// with respect to `values` (perturbed in place and restored). Relative to max(|a|, |n|, 1e-3), so
// tiny gradients are compared absolutely. Prints the worst entry, labelled, when it exceeds `report`.
inline double gradient_error(const std::string& label, double* values, const double* analytic, Index count,
                             const std::function<double()>& loss, double step = 1e-6, double report = 1e-6) {
  double worst = 0.0;
  Index worst_index = -1;
  double worst_numeric = 0.0;
  for (Index i = 0; i < count; ++i) {
    const double saved = values[i];
    values[i] = saved + step;
    const double up = loss();
    values[i] = saved - step;
    const double down = loss();
    values[i] = saved;
    const double numeric = (up - down) / (2.0 * step);
    const double error = std::abs(numeric - analytic[i]) / std::max({std::abs(numeric), std::abs(analytic[i]), 1e-3});
    if (error > worst) {
      worst = error;
      worst_index = i;
      worst_numeric = numeric;
    }
  }
  if (worst > report)
    std::printf("%s: worst relative error %.3g at %lld (analytic %.9g, numeric %.9g)\n", label.c_str(), worst,
                static_cast<long long>(worst_index), analytic[worst_index], worst_numeric);
  return worst;
}

// A matrix of uniform(-1, 1) entries, for inputs and for the weights R of a loss sum(R .* y).
inline Matrix<double> random_matrix(Index rows, Index cols, SplitMix64& rng) {
  Matrix<double> m(rows, cols);
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < cols; ++c) m(r, c) = rng.uniform(-1.0, 1.0);
  return m;
}

}  // namespace edgewise::testing
