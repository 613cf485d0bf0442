#include "edgewise/models/column_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "edgewise/core/error.hpp"

namespace edgewise {

ColumnScaling ColumnScaling::standardize(const Matrix<float>& values) {
  ColumnScaling scaling = identity(values.cols());
  for (Index c = 0; c < values.cols(); ++c) {
    double sum = 0, sum_squares = 0;
    Index count = 0;
    for (Index m = 0; m < values.rows(); ++m) {
      const double y = values(m, c);
      if (std::isnan(y)) continue;
      sum += y;
      sum_squares += y * y;
      ++count;
    }
    if (count == 0) continue;
    const double mean = sum / static_cast<double>(count);
    const double variance = std::max(0.0, sum_squares / static_cast<double>(count) - mean * mean);
    const auto column = static_cast<std::size_t>(c);
    scaling.shift[column] = mean;
    if (variance > 1e-12 * std::max(1.0, mean * mean)) scaling.scale[column] = std::sqrt(variance);
  }
  return scaling;
}

ColumnScaling ColumnScaling::identity(Index columns) {
  const auto n = static_cast<std::size_t>(columns);
  return {std::vector<double>(n, 0.0), std::vector<double>(n, 1.0)};
}

Matrix<float> ColumnScaling::to_scaled(const Matrix<float>& original) const {
  EDGEWISE_CHECK(static_cast<std::size_t>(original.cols()) == shift.size());
  Matrix<float> scaled(original.rows(), original.cols());
  for (Index c = 0; c < original.cols(); ++c) {
    const auto column = static_cast<std::size_t>(c);
    scaled.col(c) = ((original.col(c).cast<double>().array() - shift[column]) / scale[column]).cast<float>();
  }
  return scaled;
}

Matrix<float> ColumnScaling::to_original(const Matrix<float>& scaled) const {
  EDGEWISE_CHECK(static_cast<std::size_t>(scaled.cols()) == shift.size());
  Matrix<float> original(scaled.rows(), scaled.cols());
  for (Index c = 0; c < scaled.cols(); ++c) {
    const auto column = static_cast<std::size_t>(c);
    original.col(c) = (scaled.col(c).cast<double>().array() * scale[column] + shift[column]).cast<float>();
  }
  return original;
}

void to_json(nlohmann::json& j, const ColumnScaling& scaling) {
  j = nlohmann::json{{"shift", scaling.shift}, {"scale", scaling.scale}};
}

void from_json(const nlohmann::json& j, ColumnScaling& scaling) {
  j.at("shift").get_to(scaling.shift);
  j.at("scale").get_to(scaling.scale);
  if (scaling.shift.size() != scaling.scale.size()) throw ArgumentError("column scaling: shift and scale differ in length");
  for (const double s : scaling.scale)
    if (!(std::isfinite(s) && s > 0)) throw ArgumentError("column scaling: scale must be positive and finite");
}

}  // namespace edgewise
