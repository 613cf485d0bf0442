// multiply(): the product Eigen computes, cut into blocks that any number of threads runs with the
// same result to the last bit, for each way of cutting (rows, inner dimension, none), for dst = and
// dst +=, for transposed operands, blocks of a matrix as dst and a sparse lhs.
#include "edgewise/core/products.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include "edgewise/core/random.hpp"

namespace edgewise {
namespace {

Matrix<float> random_matrix(Index rows, Index cols, std::uint64_t seed) {
  SplitMix64 rng(seed);
  Matrix<float> m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.uniform()) * 2.0f - 1.0f;
  return m;
}

bool same_bits(const Matrix<float>& a, const Matrix<float>& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::equal(a.data(), a.data() + a.size(), b.data(), [](float x, float y) {
           return std::bit_cast<std::uint32_t>(x) == std::bit_cast<std::uint32_t>(y);
         });
}

// |a - b| within float rounding of sums of `depth` products of numbers in [-1, 1].
void expect_close(const Matrix<float>& a, const Matrix<double>& reference, Index depth) {
  ASSERT_EQ(a.rows(), reference.rows());
  ASSERT_EQ(a.cols(), reference.cols());
  const double tolerance = 1e-6 * static_cast<double>(depth);
  for (Index i = 0; i < a.rows(); ++i)
    for (Index j = 0; j < a.cols(); ++j) ASSERT_NEAR(a(i, j), reference(i, j), tolerance) << i << ", " << j;
}

// Keeps the 1-thread result (the first run) and expects every later one to equal it bit for bit.
void expect_bits_of_one_thread(const Matrix<float>& result, int threads, Matrix<float>& one_thread) {
  if (threads == 1) one_thread = result;
  EXPECT_TRUE(same_bits(result, one_thread)) << threads << " threads";
}

class ProductTest : public ::testing::Test {
 protected:
  void TearDown() override { set_num_threads(0); }
};

struct Shape {
  Index rows, depth, cols;
  const char* cut;
};

// Shapes for each cut: by rows (at least two row blocks), along the inner dimension (a short result
// over many nodes, as a weight gradient), and none.
constexpr Shape kShapes[] = {
    {2 * kProductRowBlock + 37, 64, 48, "rows"},
    {64, 2 * kProductDepthBlock + 101, 48, "inner dimension"},
    {40, (kProductPartialSums + 1) * kProductDepthBlock + 5, 24, "inner dimension, more blocks than partial sums"},
    {kProductRowBlock, 2 * kProductDepthBlock - 1, 1, "none"},
    {13, 7, 5, "none"},
};

TEST_F(ProductTest, EveryThreadCountGivesTheSameBitsCloseToTheExactProduct) {
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(std::to_string(shape.rows) + " x " + std::to_string(shape.depth) + " x " +
                 std::to_string(shape.cols) + ", cut: " + shape.cut);
    const Matrix<float> lhs = random_matrix(shape.rows, shape.depth, 1);
    const Matrix<float> rhs = random_matrix(shape.depth, shape.cols, 2);
    const Matrix<float> start = random_matrix(shape.rows, shape.cols, 3);
    const Matrix<double> exact = lhs.cast<double>() * rhs.cast<double>();
    Matrix<float> assigned_once, added_once;
    for (const int threads : {1, 2, 3}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      set_num_threads(threads);
      Matrix<float> assigned;
      multiply(assigned, lhs, rhs);
      Matrix<float> added = start;
      multiply(added, lhs, rhs, Product::add);
      expect_close(assigned, exact, shape.depth);
      expect_close(added, exact + start.cast<double>(), shape.depth);
      expect_bits_of_one_thread(assigned, threads, assigned_once);
      expect_bits_of_one_thread(added, threads, added_once);
    }
  }
}

TEST_F(ProductTest, TransposedOperandsAndBlocksAsDestination) {
  // A weight gradient x^T dy into a block of a larger matrix, and dy W^T: both cut.
  const Matrix<float> x = random_matrix(3 * kProductDepthBlock, 40, 4);
  const Matrix<float> dy = random_matrix(3 * kProductDepthBlock, 24, 5);
  const Matrix<float> w = random_matrix(40, 24, 6);
  Matrix<float> first_gradient, first_dx;
  for (const int threads : {1, 2}) {
    set_num_threads(threads);
    Matrix<float> gradient = Matrix<float>::Zero(40, 30);
    multiply(gradient.leftCols(24), x.transpose(), dy, Product::add);
    Matrix<float> dx;
    multiply(dx, dy, w.transpose());
    expect_close(gradient.leftCols(24), x.cast<double>().transpose() * dy.cast<double>(), x.rows());
    EXPECT_TRUE(gradient.rightCols(6).isZero(0.0f)) << "multiply wrote outside its block";
    expect_close(dx, dy.cast<double>() * w.cast<double>().transpose(), w.cols());
    expect_bits_of_one_thread(gradient, threads, first_gradient);
    expect_bits_of_one_thread(dx, threads, first_dx);
  }
}

TEST_F(ProductTest, SparseRowsAreCutLikeDenseOnes) {
  Matrix<float> dense = random_matrix(2 * kProductRowBlock + 5, 3 * kProductDepthBlock, 7);
  dense = (dense.array() > 0.9f).select(dense, 0.0f);  // about 5 % non-zeros, as bag-of-words features
  const SparseMatrix<float> sparse = dense.sparseView();
  const Matrix<float> w = random_matrix(dense.cols(), 16, 8);
  Matrix<float> first;
  for (const int threads : {1, 2}) {
    set_num_threads(threads);
    Matrix<float> product;
    multiply(product, sparse, w);
    expect_close(product, dense.cast<double>() * w.cast<double>(), dense.cols());
    expect_bits_of_one_thread(product, threads, first);
  }
}

}  // namespace
}  // namespace edgewise
