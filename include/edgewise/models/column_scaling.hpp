/// \file
/// A per-column affine map fitted to data: regression targets are trained in standardized units, and
/// a MoleculePredictor standardizes its graph features (molecular descriptors) the same way.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// Per-column affine map between original and scaled units: original = scaled * scale + shift.
struct ColumnScaling {
  std::vector<double> shift;  ///< [columns]
  std::vector<double> scale;  ///< [columns]

  /// Mean and standard deviation of each column of values [M, columns], ignoring NaN; a constant or
  /// empty column gets scale 1.
  static ColumnScaling standardize(const Matrix<float>& values);
  /// shift 0 and scale 1 for each of `columns` columns.
  static ColumnScaling identity(Index columns);

  /// The number of columns mapped; 0 for a default-constructed scaling.
  Index columns() const { return static_cast<Index>(shift.size()); }

  /// Maps [M, columns] values from original to scaled units (NaN stays NaN), and back.
  /// @{
  Matrix<float> to_scaled(const Matrix<float>& original) const;
  Matrix<float> to_original(const Matrix<float>& scaled) const;
  /// @}
};

/// JSON form ({"shift": [...], "scale": [...]}) stored in model files, for nlohmann::json. Reading
/// throws ArgumentError when the lengths differ or a scale is not positive and finite.
/// @{
void to_json(nlohmann::json& j, const ColumnScaling& scaling);
void from_json(const nlohmann::json& j, ColumnScaling& scaling);
/// @}

}  // namespace edgewise
