/// \file
/// Sparse row-major matrices, for bag-of-words node features (Cora: 1,433 columns, about 18
/// non-zeros a row), whose products cost in proportion to the non-zeros.
#pragma once

#include <Eigen/SparseCore>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// A compressed sparse row matrix, one node per row as in Matrix.
template <typename Scalar>
using SparseMatrix = Eigen::SparseMatrix<Scalar, Eigen::RowMajor, Index>;

/// Below this fraction of non-zeros, the node classifier trains on a sparse copy of its features.
inline constexpr double kSparseFeatureDensity = 0.1;

}  // namespace edgewise
