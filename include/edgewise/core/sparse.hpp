/// \file
/// Sparse row-major matrices, for bag-of-words node features (Cora: 1,433 columns, about 18
/// non-zeros a row), whose products cost in proportion to the non-zeros.
#pragma once

#include <Eigen/SparseCore>
#include <algorithm>
#include <span>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// A compressed sparse row matrix, one node per row as in Matrix.
template <typename Scalar>
using SparseMatrix = Eigen::SparseMatrix<Scalar, Eigen::RowMajor, Index>;

/// Node features with fewer non-zeros than this fraction of their cells (bags of words) are read as
/// sparse rows in training, where products cost in proportion to the non-zeros.
inline constexpr double sparse_feature_density = 0.1;

/// The arrays of a compressed sparse row matrix of `cols` columns, held elsewhere: row r's entries are
/// offsets[r] .. offsets[r + 1] - 1 of columns and values.
template <typename Scalar, typename Column>
struct SparseRowsView {
  const Index* offsets;   ///< [rows + 1]
  const Column* columns;  ///< the column of each non-zero
  const Scalar* values;   ///< the value of each non-zero
  Index cols;             ///< the matrix's columns

  /// Whether the columns of each of the first `rows` rows ascend strictly, as SparseMatrix needs them.
  bool ascending(Index rows) const {
    for (Index r = 0; r < rows; ++r)
      for (Index k = offsets[r] + 1; k < offsets[r + 1]; ++k)
        if (columns[k] <= columns[k - 1]) return false;
    return true;
  }

  /// The rows `picked`, in that order, as `out` [picked.size(), cols]; reuses out's storage. The
  /// columns must ascend within each row.
  template <typename Row>
  void gather(std::span<const Row> picked, SparseMatrix<Scalar>& out) const {
    const auto rows = static_cast<Index>(picked.size());
    out.resize(rows, cols);  // compressed, no entries
    Index entries = 0;
    for (const Row r : picked) entries += offsets[r + 1] - offsets[r];
    out.resizeNonZeros(entries);
    Index* outer = out.outerIndexPtr();
    for (Index i = 0; i < rows; ++i) {
      const Index r = picked[static_cast<std::size_t>(i)];
      std::copy(columns + offsets[r], columns + offsets[r + 1], out.innerIndexPtr() + outer[i]);
      std::copy(values + offsets[r], values + offsets[r + 1], out.valuePtr() + outer[i]);
      outer[i + 1] = outer[i] + offsets[r + 1] - offsets[r];
    }
  }
};

}  // namespace edgewise
