// SharedRows: rows that keep their storage alive, whether a matrix of their own or a caller's buffer.
// add_row_sums: each column's sum in row order, to the bit.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "edgewise/core/tensor.hpp"

namespace edgewise {
namespace {

TEST(SharedRows, TakesAMatrixOverAndCopiesShareIt) {
  Matrix<float> values(2, 3);
  values << 1, 2, 3, 4, 5, 6;
  const float* storage = values.data();
  const SharedRows<float> rows(std::move(values));
  EXPECT_EQ(rows.data(), storage);  // taken over, not copied
  const SharedRows<float> copy = rows;
  EXPECT_EQ(copy.data(), storage);
  EXPECT_EQ(copy(1, 2), 6.0f);
  EXPECT_EQ(Matrix<float>(copy.row(1)), (Matrix<float>(1, 3) << 4, 5, 6).finished());
}

TEST(SharedRows, ReadsACallersBufferInPlaceWhileItsKeeperLives) {
  auto buffer = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4});
  std::weak_ptr<std::vector<float>> watch = buffer;
  SharedRows<float> rows(buffer->data(), 2, 2, buffer);
  EXPECT_EQ(rows.data(), buffer->data());
  buffer.reset();
  ASSERT_FALSE(watch.expired());  // the rows hold it
  EXPECT_EQ(rows(1, 0), 3.0f);
  rows = SharedRows<float>(Matrix<float>::Constant(3, 1, 7.0f));  // assignment rebinds, and lets go
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(rows.rows(), 3);
  EXPECT_EQ(rows(2, 0), 7.0f);
}

TEST(SharedRows, CopiesAnyOtherExpressionAndBindsToConstRowsRefWithoutACopy) {
  const SharedRows<float> rows(Matrix<float>::Identity(3, 3) * 2.0f);
  EXPECT_EQ(rows(1, 1), 2.0f);
  EXPECT_EQ(rows(0, 1), 0.0f);
  const ConstRowsRef<float> ref = rows;
  EXPECT_EQ(ref.data(), rows.data());
  EXPECT_EQ(SharedRows<float>().size(), 0);
}

// Widths around the 16-column chunks, an expression as the summand (as LayerNorm's gamma gradient
// sums a product; an absolute value here, which no compiler can fuse into the sum), and a column as
// the destination (the attention kernels' per-head sums).
TEST(AddRowSums, AddsEachColumnInRowOrderAtEveryWidth) {
  for (const Index cols : {1, 7, 16, 17, 33, 64, 100}) {
    SCOPED_TRACE(cols);
    const Matrix<float> m = Matrix<float>::Random(37, cols);
    const Matrix<float> start = Matrix<float>::Random(1, cols);
    Matrix<float> expected = start, expected_absolute = start;
    for (Index r = 0; r < m.rows(); ++r)
      for (Index c = 0; c < cols; ++c) {
        expected(0, c) += m(r, c);
        expected_absolute(0, c) += std::abs(m(r, c));
      }
    Matrix<float> sums = start;
    add_row_sums(sums.row(0), m);
    EXPECT_EQ(sums, expected);
    Matrix<float> absolute_sums = start;
    add_row_sums(absolute_sums.row(0), m.cwiseAbs());
    EXPECT_EQ(absolute_sums, expected_absolute);
    Vector<float> column = start.transpose();
    add_row_sums(column.transpose(), m);
    EXPECT_EQ(Matrix<float>(column.transpose()), expected);
  }
}

}  // namespace
}  // namespace edgewise
