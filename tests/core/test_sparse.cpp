// SparseRowsView: rows gathered from a matrix's arrays, against their dense rows.
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
