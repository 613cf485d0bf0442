// ColumnIndex: a sparse matrix's entries by column, against Eigen's transpose; SparseRowsView:
// rows gathered from a matrix's arrays, against its dense rows.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "edgewise/core/random.hpp"
#include "edgewise/core/sparse.hpp"

namespace edgewise {
namespace {

// [rows, cols] with about a fifth of the entries non-zero, and an empty row and column.
SparseMatrix<float> random_sparse(Index rows, Index cols, std::uint64_t seed) {
  SplitMix64 rng(seed);
  Matrix<float> dense = Matrix<float>::Zero(rows, cols);
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < cols; ++c)
      if (r != 1 && c != 2 && rng.next() % 5 == 0) dense(r, c) = static_cast<float>(rng.next() % 100) + 1.0f;
  return dense.sparseView();
}

// Checks that index lists x's entries column by column, rows ascending, as x's transpose stores them.
void expect_columns_of(const ColumnIndex<float>& index, const SparseMatrix<float>& x) {
  const SparseMatrix<float> transposed = x.transpose();
  ASSERT_EQ(index.cols(), x.cols());
  for (Index c = 0; c < x.cols(); ++c) {
    Index k = index.begin(c);
    for (SparseMatrix<float>::InnerIterator it(transposed, c); it; ++it, ++k) {
      ASSERT_LT(k, index.end(c)) << "column " << c;
      EXPECT_EQ(index.row(k), it.index()) << "column " << c;
      EXPECT_EQ(x.valuePtr()[index.position(k)], it.value()) << "column " << c;
    }
    EXPECT_EQ(k, index.end(c)) << "column " << c;
  }
}

TEST(ColumnIndex, ListsEachColumnsEntriesInRowOrderWithTheirValues) {
  const SparseMatrix<float> x = random_sparse(40, 30, 1);
  ColumnIndex<float> index;
  index.update(x);
  expect_columns_of(index, x);
  EXPECT_EQ(index.begin(2), index.end(2));  // the empty column
}

TEST(ColumnIndex, FollowsNewValuesAndANewPatternOfTheSameSize) {
  const SparseMatrix<float> first = random_sparse(40, 30, 2);
  ColumnIndex<float> index;
  index.update(first);
  SparseMatrix<float> dropped = first;
  for (Index k = 0; k < dropped.nonZeros(); k += 2) dropped.valuePtr()[k] = 0.0f;  // what dropout does
  index.update(dropped);
  expect_columns_of(index, dropped);

  // As many entries in other places: every entry moved one column to the right.
  const Matrix<float> dense = first.toDense();
  Matrix<float> shifted(dense.rows(), dense.cols());
  for (Index c = 0; c < dense.cols(); ++c) shifted.col((c + 1) % dense.cols()) = dense.col(c);
  const SparseMatrix<float> moved = shifted.sparseView();
  ASSERT_EQ(moved.nonZeros(), first.nonZeros());
  index.update(moved);
  expect_columns_of(index, moved);
}

TEST(SparseRowsViewTest, GathersThePickedRowsInOrderIntoAReusedMatrix) {
  const SparseMatrix<float> x = random_sparse(6, 9, 3);
  const SparseRowsView<float, Index> view{x.outerIndexPtr(), x.innerIndexPtr(), x.valuePtr(), x.cols()};
  ASSERT_TRUE(view.ascending(x.rows()));
  const Matrix<float> dense = x.toDense();
  SparseMatrix<float> out;
  for (const std::vector<std::int32_t>& picked : {std::vector<std::int32_t>{4, 1, 4, 0}, std::vector<std::int32_t>{5}}) {
    view.gather(std::span<const std::int32_t>(picked), out);
    ASSERT_EQ(out.rows(), static_cast<Index>(picked.size()));
    ASSERT_EQ(out.cols(), x.cols());
    ASSERT_TRUE(out.isCompressed());
    const Matrix<float> gathered = out.toDense();
    for (std::size_t i = 0; i < picked.size(); ++i)
      EXPECT_EQ(gathered.row(static_cast<Index>(i)), dense.row(picked[i])) << "row " << i;
  }
}

TEST(SparseRowsViewTest, TellsRowsWhoseColumnsDoNotAscend) {
  const std::vector<Index> offsets = {0, 2, 4};
  const std::vector<std::int32_t> sorted = {0, 3, 1, 2}, unsorted = {0, 3, 2, 1}, repeated = {0, 3, 2, 2};
  const std::vector<float> values = {1, 2, 3, 4};
  EXPECT_TRUE((SparseRowsView<float, std::int32_t>{offsets.data(), sorted.data(), values.data(), 4}.ascending(2)));
  EXPECT_FALSE((SparseRowsView<float, std::int32_t>{offsets.data(), unsorted.data(), values.data(), 4}.ascending(2)));
  EXPECT_FALSE((SparseRowsView<float, std::int32_t>{offsets.data(), repeated.data(), values.data(), 4}.ascending(2)));
}

}  // namespace
}  // namespace edgewise
