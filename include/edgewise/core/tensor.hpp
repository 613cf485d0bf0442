/// \file
/// Dense matrix types shared by every module. Node features are row-major [rows = nodes, cols = features],
/// so the features of one node are contiguous and kernels can gather whole rows.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

/// Everything edgewise defines: tensors and parameters, graphs, attention, layers and models, file
/// readers and writers, and datasets.
namespace edgewise {

/// Sizes, counts and indices throughout the API (signed, as Eigen's).
using Index = std::int64_t;

/// A dense row-major matrix; node features are [N, features], one node per contiguous row.
template <typename Scalar>
using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// A dense column vector.
template <typename Scalar>
using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

/// A Matrix view of memory owned elsewhere (parameter slots); writable or read-only.
/// @{
template <typename Scalar>
using MatrixMap = Eigen::Map<Matrix<Scalar>>;

template <typename Scalar>
using ConstMatrixMap = Eigen::Map<const Matrix<Scalar>>;
/// @}

/// Read-only rows bound without a copy: a Matrix, a ConstMatrixMap or a block of whole rows, whose
/// consecutive rows may lie further apart than their width. Functions that read input features take
/// this, so that features held in a caller's buffer reach the network in place.
template <typename Scalar>
using ConstRowsRef = Eigen::Ref<const Matrix<Scalar>>;

/// Read-only rows [rows, cols] that keep their storage alive: a Matrix of their own, or a caller's
/// buffer (a NumPy array) that `keeper` holds, read in place. Copies share the rows. As a
/// ConstMatrixMap, Eigen reads it as a matrix; assigning rebinds it to the other rows.
template <typename Scalar>
class SharedRows : public ConstMatrixMap<Scalar> {
 public:
  SharedRows() : ConstMatrixMap<Scalar>(nullptr, 0, 0) {}
  /// Takes the matrix over (a copy of an lvalue).
  SharedRows(Matrix<Scalar> owned) : SharedRows(std::make_shared<const Matrix<Scalar>>(std::move(owned))) {}
  /// A copy of any other matrix expression.
  template <typename Derived>
  SharedRows(const Eigen::MatrixBase<Derived>& values) : SharedRows(Matrix<Scalar>(values)) {}
  /// Rows at `data`, `cols` scalars apart, valid while `keeper` is held.
  SharedRows(const Scalar* data, Index rows, Index cols, std::shared_ptr<const void> keeper)
      : ConstMatrixMap<Scalar>(data, rows, cols), keeper_(std::move(keeper)) {}

  /// Shares the other's rows. There are no moves: a moved-from object would still view rows it no
  /// longer keeps, so moving copies.
  SharedRows(const SharedRows&) = default;
  /// Views and keeps the other's rows from now on.
  SharedRows& operator=(const SharedRows& other) {
    if (this != &other) rebind(other);
    return *this;
  }

 private:
  explicit SharedRows(std::shared_ptr<const Matrix<Scalar>> owned)
      : ConstMatrixMap<Scalar>(owned->data(), owned->rows(), owned->cols()), keeper_(std::move(owned)) {}

  // A Map's assignment would copy values; Eigen's documented way to point one elsewhere is to
  // construct it anew in place.
  void rebind(const SharedRows& other) {
    new (static_cast<ConstMatrixMap<Scalar>*>(this)) ConstMatrixMap<Scalar>(other.data(), other.rows(), other.cols());
    keeper_ = other.keeper_;
  }

  std::shared_ptr<const void> keeper_;
};

/// A row-major block of `rows` rows whose consecutive rows are `stride` scalars apart. Kernels take
/// these so that q, k and v can be column blocks of one fused projection without copies.
template <typename Scalar>
struct RowView {
  Scalar* data = nullptr;  ///< The first scalar of row 0; not owned.
  Index stride = 0;  ///< Scalars from one row's start to the next's.

  /// Pointer to the start of row r.
  Scalar* row(Index r) const { return data + r * stride; }
};

/// Writable view of m's rows from column first_col on; valid while m is not resized.
template <typename Scalar>
RowView<Scalar> rows_of(Matrix<Scalar>& m, Index first_col = 0) {
  return {m.data() + first_col, static_cast<Index>(m.cols())};
}

/// Read-only view, also of a mutable matrix.
template <typename Scalar>
RowView<const Scalar> read_rows(const Matrix<Scalar>& m, Index first_col = 0) {
  return {m.data() + first_col, static_cast<Index>(m.cols())};
}

}  // namespace edgewise

namespace edgewise {

/// out += the sum of m's rows, added in row order. Eigen's colwise().sum() may order the additions
/// differently with the thread count, which would make gradients depend on it. The columns go in
/// chunks of 16, each summed in a register over all rows: adding whole rows to out loaded and stored
/// out at every row, with the overhead of a dynamic-size expression each time.
template <typename Out, typename M>
void add_row_sums(Out&& out, const M& m) {
  using Scalar = typename M::Scalar;
  constexpr Index kChunk = 16;
  const Index cols = m.cols();
  Index c = 0;
  for (; c + kChunk <= cols; c += kChunk) {
    Eigen::Matrix<Scalar, 1, kChunk> sums = out.template segment<kChunk>(c);
    for (Index r = 0; r < m.rows(); ++r) sums += m.row(r).template segment<kChunk>(c);
    out.template segment<kChunk>(c) = sums;
  }
  if (c < cols)
    for (Index r = 0; r < m.rows(); ++r) out.tail(cols - c) += m.row(r).tail(cols - c);
}

}  // namespace edgewise
