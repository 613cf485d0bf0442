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

}  // namespace edgewise
