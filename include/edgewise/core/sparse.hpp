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

/// The entries of a compressed sparse matrix by column, rows ascending within each column (the
/// pattern of its transpose), with each entry's position in the matrix's value array. It is made
/// again only when the pattern changes, so a matrix whose values change while its entries stay
/// (features under dropout, which zeros values and keeps them) is read by column without being
/// transposed at every step.
template <typename Scalar>
class ColumnIndex {
 public:
  /// Makes the index for x's pattern, unless it is already that pattern's. x must be compressed.
  void update(const SparseMatrix<Scalar>& x) {
    EDGEWISE_CHECK(x.isCompressed());
    const Index* outer = x.outerIndexPtr();
    const Index* inner = x.innerIndexPtr();
    const Index entries = x.nonZeros();
    if (cols_ == x.cols() && std::equal(outer_.begin(), outer_.end(), outer, outer + x.rows() + 1) &&
        std::equal(inner_.begin(), inner_.end(), inner, inner + entries))
      return;
    cols_ = x.cols();
    outer_.assign(outer, outer + x.rows() + 1);
    inner_.assign(inner, inner + entries);
    offsets_.assign(static_cast<std::size_t>(cols_ + 1), 0);
    for (const Index column : inner_) ++offsets_[static_cast<std::size_t>(column + 1)];
    for (std::size_t c = 1; c < offsets_.size(); ++c) offsets_[c] += offsets_[c - 1];
    rows_.resize(inner_.size());
    positions_.resize(inner_.size());
    std::vector<Index> next(offsets_.begin(), offsets_.end() - 1);
    for (Index r = 0; r < x.rows(); ++r)
      for (Index k = outer[r]; k < outer[r + 1]; ++k) {
        const auto slot = static_cast<std::size_t>(next[static_cast<std::size_t>(inner[k])]++);
        rows_[slot] = r;
        positions_[slot] = k;
      }
  }

  /// The matrix's columns.
  Index cols() const { return cols_; }
  /// The first of column c's entries, which are [begin(c), end(c)).
  Index begin(Index c) const { return offsets_[static_cast<std::size_t>(c)]; }
  /// One past the last of column c's entries.
  Index end(Index c) const { return offsets_[static_cast<std::size_t>(c + 1)]; }
  /// The row of entry k.
  Index row(Index k) const { return rows_[static_cast<std::size_t>(k)]; }
  /// Where entry k's value is in the matrix's value array.
  Index position(Index k) const { return positions_[static_cast<std::size_t>(k)]; }

 private:
  Index cols_ = -1;
  std::vector<Index> outer_, inner_;  // the pattern the index was made for
  std::vector<Index> offsets_;        // [cols + 1]
  std::vector<Index> rows_;           // [entries], by column
  std::vector<Index> positions_;      // [entries], by column
};

}  // namespace edgewise
