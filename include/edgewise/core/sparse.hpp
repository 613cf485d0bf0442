/// \file
/// Sparse row-major matrices, for bag-of-words node features (Cora: 1,433 columns, about 18
/// non-zeros a row), whose products cost in proportion to the non-zeros.
#pragma once

#include <Eigen/SparseCore>
#include <algorithm>
#include <span>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
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
  /// columns must ascend within each row. Copies rows across threads.
  template <typename Row>
  void gather(std::span<const Row> picked, SparseMatrix<Scalar>& out) const {
    const auto rows = static_cast<Index>(picked.size());
    out.resize(rows, cols);  // compressed, no entries
    Index* outer = out.outerIndexPtr();
    for (Index i = 0; i < rows; ++i) {
      const Index r = picked[static_cast<std::size_t>(i)];
      outer[i + 1] = outer[i] + offsets[r + 1] - offsets[r];
    }
    out.resizeNonZeros(outer[rows]);
    typename SparseMatrix<Scalar>::StorageIndex* to_columns = out.innerIndexPtr();
    Scalar* to_values = out.valuePtr();
    parallel_for_blocks(rows, kRowsABlock, [&](Index begin, Index end) {
      for (Index i = begin; i < end; ++i) {
        prefetch_row(picked, i, end);
        const Index r = picked[static_cast<std::size_t>(i)];
        std::copy(columns + offsets[r], columns + offsets[r + 1], to_columns + outer[i]);
        std::copy(values + offsets[r], values + offsets[r + 1], to_values + outer[i]);
      }
    });
  }

 private:
  static constexpr Index kRowsABlock = 1024;

  // Asks the caches for the entries of the row a few picks ahead (before `end`): rows picked from a
  // large matrix are far apart, and waiting for each one's entries took most of the gather's time.
  // (The serial loop placing the rows has read every picked row's offsets already.)
  template <typename Row>
  void prefetch_row(std::span<const Row> picked, Index i, Index end) const {
    constexpr Index kAhead = 8;
    if (i + kAhead >= end) return;
    const Index first = offsets[picked[static_cast<std::size_t>(i + kAhead)]];
    __builtin_prefetch(columns + first);
    __builtin_prefetch(values + first);
  }
};

}  // namespace edgewise
