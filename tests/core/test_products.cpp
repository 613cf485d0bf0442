// multiply(): close to the exact product and the same to the last bit at any number of threads,
// for dst = and dst +=, transposed operands, blocks of a matrix as dst and a sparse lhs. Float
// products run edgewise's kernel, whose every element is the in-order sum over the inner dimension
// (checked element by element, at widths around each vector width); other products are Eigen's, cut
// by rows, along the inner dimension, or not at all.
#include "edgewise/core/products.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "edgewise/core/random.hpp"
#include "support/environment.hpp"

namespace edgewise {
namespace {

template <typename Scalar = float>
Matrix<Scalar> random_matrix(Index rows, Index cols, std::uint64_t seed) {
  SplitMix64 rng(seed);
  Matrix<Scalar> m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<Scalar>(rng.uniform() * 2.0 - 1.0);
  return m;
}

template <typename Scalar>
bool same_bits(const Matrix<Scalar>& a, const Matrix<Scalar>& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(Scalar)) == 0;
}

// |a - b| within float rounding of sums of `depth` products of numbers in [-1, 1].
template <typename Scalar>
void expect_close(const Matrix<Scalar>& a, const Matrix<double>& reference, Index depth) {
  ASSERT_EQ(a.rows(), reference.rows());
  ASSERT_EQ(a.cols(), reference.cols());
  const double tolerance = 1e-6 * static_cast<double>(depth);
  for (Index i = 0; i < a.rows(); ++i)
    for (Index j = 0; j < a.cols(); ++j) ASSERT_NEAR(a(i, j), reference(i, j), tolerance) << i << ", " << j;
}

// Keeps the 1-thread result (the first run) and expects every later one to equal it bit for bit.
template <typename Scalar>
void expect_bits_of_one_thread(const Matrix<Scalar>& result, int threads, Matrix<Scalar>& one_thread) {
  if (threads == 1) one_thread = result;
  EXPECT_TRUE(same_bits(result, one_thread)) << threads << " threads";
}

// start + sum over p of lhs(i, p) * rhs(p, j), added in order of p, each with one rounding where
// the machine multiplies and adds in one instruction, as the kernel's compiled code does there.
float in_order_sum(const Matrix<float>& lhs, const Matrix<float>& rhs, Index i, Index j, float start) {
  float sum = start;
  for (Index p = 0; p < lhs.cols(); ++p) {
#ifdef __FMA__
    sum = std::fma(lhs(i, p), rhs(p, j), sum);
#else
    sum += lhs(i, p) * rhs(p, j);
#endif
  }
  return sum;
}

class ProductTest : public ::testing::Test {
 protected:
  void TearDown() override { set_num_threads(0); }
};

template <typename Scalar>
class ProductCutTest : public ProductTest {};
using ProductScalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ProductCutTest, ProductScalars);

struct Shape {
  Index rows, depth, cols;
  const char* cut;
};

// Shapes for each of Eigen's cuts (float products run the kernel at all of them): by rows (at least
// two row blocks), along the inner dimension (a short result over many nodes, as a weight
// gradient), and none.
constexpr Shape kShapes[] = {
    {2 * kProductRowBlock + 37, 64, 48, "rows"},
    {64, 2 * kProductDepthBlock + 101, 48, "inner dimension"},
    {40, (kProductPartialSums + 1) * kProductDepthBlock + 5, 24, "inner dimension, more blocks than partial sums"},
    {kProductRowBlock, 2 * kProductDepthBlock - 1, 1, "none"},
    {13, 7, 5, "none"},
};

TYPED_TEST(ProductCutTest, EveryThreadCountGivesTheSameBitsCloseToTheExactProduct) {
  using Scalar = TypeParam;
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(std::to_string(shape.rows) + " x " + std::to_string(shape.depth) + " x " +
                 std::to_string(shape.cols) + ", cut: " + shape.cut);
    const Matrix<Scalar> lhs = random_matrix<Scalar>(shape.rows, shape.depth, 1);
    const Matrix<Scalar> rhs = random_matrix<Scalar>(shape.depth, shape.cols, 2);
    const Matrix<Scalar> start = random_matrix<Scalar>(shape.rows, shape.cols, 3);
    const Matrix<double> exact = lhs.template cast<double>() * rhs.template cast<double>();
    Matrix<Scalar> assigned_once, added_once;
    for (const int threads : {1, 2, 3}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      set_num_threads(threads);
      Matrix<Scalar> assigned;
      multiply(assigned, lhs, rhs);
      Matrix<Scalar> added = start;
      multiply(added, lhs, rhs, Product::add);
      expect_close(assigned, exact, shape.depth);
      expect_close(added, Matrix<double>(exact + start.template cast<double>()), shape.depth);
      expect_bits_of_one_thread(assigned, threads, assigned_once);
      expect_bits_of_one_thread(added, threads, added_once);
    }
  }
}

// The kernel's contract, element by element: rows and columns around every vector width and tile
// size (1 to 16 lanes, 6 rows), inner dimensions across its depth blocks of 256, a transposed rhs
// (copied into padded rows) and a block of a wider matrix as dst, whose other columns it must not
// touch.
TEST_F(ProductTest, FloatElementsAreTheInOrderSumsAtWidthsAroundVectors) {
  const Index widths[] = {1, 7, 8, 9, 15, 16, 17, 31, 33, 47, 63, 64, 65, 100};
  for (const Index rows : {1, 6, 7, 13})
    for (const Index depth : {0, 1, 257, 600})
      for (const Index cols : widths)
        for (const bool transposed_rhs : {false, true}) {
          SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(depth) + " x " + std::to_string(cols) +
                       (transposed_rhs ? ", rhs transposed" : ""));
          const Matrix<float> lhs = random_matrix(rows, depth, 11);
          const Matrix<float> rhs = random_matrix(depth, cols, 12);
          const Matrix<float> rhs_transposed = rhs.transpose();
          const Matrix<float> outside = random_matrix(rows, cols + 3, 13);
          Matrix<float> assigned = outside, added = outside;
          if (transposed_rhs) {
            multiply(assigned.leftCols(cols), lhs, rhs_transposed.transpose());
            multiply(added.leftCols(cols), lhs, rhs_transposed.transpose(), Product::add);
          } else {
            multiply(assigned.leftCols(cols), lhs, rhs);
            multiply(added.leftCols(cols), lhs, rhs, Product::add);
          }
          for (Index i = 0; i < rows; ++i) {
            for (Index j = 0; j < cols; ++j) {
              ASSERT_EQ(assigned(i, j), in_order_sum(lhs, rhs, i, j, 0.0f)) << i << ", " << j;
              ASSERT_EQ(added(i, j), in_order_sum(lhs, rhs, i, j, outside(i, j))) << i << ", " << j;
            }
            for (Index j = cols; j < cols + 3; ++j) {
              ASSERT_EQ(assigned(i, j), outside(i, j)) << "wrote outside its block at " << i << ", " << j;
              ASSERT_EQ(added(i, j), outside(i, j)) << "wrote outside its block at " << i << ", " << j;
            }
          }
        }
}

// Since each element is its own sum, a product of some rows gives the bits of those rows of the
// whole product, wherever the rows start: no cut among threads can change a result.
TEST_F(ProductTest, FloatRowsGiveTheBitsOfTheWholeProduct) {
  const Matrix<float> lhs = random_matrix(2 * kProductRowBlock + 11, 300, 14);
  const Matrix<float> rhs = random_matrix(300, 70, 15);
  Matrix<float> whole;
  multiply(whole, lhs, rhs);
  for (const auto& [begin, count] : {std::pair<Index, Index>{0, 1}, {5, 1}, {7, 100}, {121, 140}}) {
    Matrix<float> part;
    multiply(part, lhs.middleRows(begin, count), rhs);
    EXPECT_TRUE(same_bits(part, Matrix<float>(whole.middleRows(begin, count)))) << begin << " + " << count;
  }
}

// A layer's bias and product in one pass: the bits of writing the bias into every row and adding
// the product to it, with the kernel and with Eigen (double).
TYPED_TEST(ProductCutTest, ProductFromBiasEqualsTheProductAddedToBiasRows) {
  using Scalar = TypeParam;
  for (const Index depth : {0, 5, 300})
    for (const Index cols : {3, 16, 70}) {
      SCOPED_TRACE(std::to_string(depth) + " deep, " + std::to_string(cols) + " columns");
      const Matrix<Scalar> lhs = random_matrix<Scalar>(2 * kProductRowBlock + 9, depth, 16);
      const Matrix<Scalar> rhs = random_matrix<Scalar>(depth, cols, 17);
      const Matrix<Scalar> bias = random_matrix<Scalar>(1, cols, 18);
      Matrix<Scalar> expected(lhs.rows(), cols);
      expected.rowwise() = bias.row(0);
      multiply(expected, lhs, rhs, Product::add);
      Matrix<Scalar> result;
      multiply_from_bias(result, lhs, rhs, bias.row(0));
      EXPECT_TRUE(same_bits(result, expected));
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
    expect_close(Matrix<float>(gradient.leftCols(24)), Matrix<double>(x.cast<double>().transpose() * dy.cast<double>()),
                 x.rows());
    EXPECT_TRUE(gradient.rightCols(6).isZero(0.0f)) << "multiply wrote outside its block";
    expect_close(dx, Matrix<double>(dy.cast<double>() * w.cast<double>().transpose()), w.cols());
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
    expect_close(product, Matrix<double>(dense.cast<double>() * w.cast<double>()), dense.cols());
    expect_bits_of_one_thread(product, threads, first);
  }
}

// bf16 products: each operand rounded to bfloat16, then summed in float32.

// x rounded to the nearer of the two bfloat16 values around it, ties to the one with an even last
// bit: written apart from the kernel's bit arithmetic so that the two check each other.
float bf16_rounded(float x) {
  const auto bits = std::bit_cast<std::uint32_t>(x);
  const float below = std::bit_cast<float>(bits & 0xFFFF0000u);  // toward zero
  const float above = std::bit_cast<float>((bits & 0xFFFF0000u) + 0x10000u);
  const double to_below = std::abs(double(x) - double(below)), to_above = std::abs(double(above) - double(x));
  if (to_below != to_above) return to_below < to_above ? below : above;
  return (bits & 0x10000u) == 0 ? below : above;
}

Matrix<double> rounded_to_bf16(const Matrix<float>& m) {
  return m.unaryExpr([](float x) { return double(bf16_rounded(x)); });
}

class Bf16ProductTest : public ProductTest {
 protected:
  void SetUp() override {
    if (!bf16_available()) GTEST_SKIP() << "this CPU has no AVX-512 BF16, so bf16 products run the float32 kernel";
    set_precision(Precision::bf16);
  }
  void TearDown() override {
    set_precision(Precision::float32);
    ProductTest::TearDown();
  }
};

TEST(PrecisionTest, NamesReadBackAndOthersAreRefused) {
  for (const Precision p : {Precision::float32, Precision::bf16}) EXPECT_EQ(parse_precision(precision_name(p)), p);
  EXPECT_THROW(parse_precision("fp16"), ArgumentError);
  EXPECT_EQ(precision(), Precision::float32) << "float32 unless set";
}

// auto is bf16 only where the CPU runs it; the front ends' default follows EDGEWISE_PRECISION, and a
// value there that names no precision is refused with the variable's name.
TEST(PrecisionTest, AutoAndTheEnvironmentsChoice) {
  EXPECT_TRUE(fastest_precision() == Precision::float32 || bf16_available());
  EXPECT_EQ(precision_of_choice("auto"), fastest_precision());
  EXPECT_EQ(precision_of_choice("float32"), Precision::float32);
  EXPECT_EQ(precision_of_choice("bf16"), Precision::bf16);
  EXPECT_THROW(precision_of_choice("fp16"), ArgumentError);
  const edgewise::testing::ScopedEnvironment variable("EDGEWISE_PRECISION", nullptr);
  EXPECT_EQ(default_precision(), fastest_precision());
  variable.assign("");
  EXPECT_EQ(default_precision(), fastest_precision());
  variable.assign("bf16");
  EXPECT_EQ(default_precision(), Precision::bf16);
  variable.assign("half");
  try {
    default_precision();
    ADD_FAILURE() << "EDGEWISE_PRECISION=half was accepted";
  } catch (const ArgumentError& error) {
    EXPECT_STREQ(error.what(),
                 "environment variable EDGEWISE_PRECISION: precision 'half': expected auto, float32 or bf16");
  }
}

// Within float32 rounding of the exact product of the rounded operands, and so far from the exact
// product of the unrounded ones (bfloat16 keeps 8 bits), at rows, inner dimensions and columns
// around the tiles (6 rows of AVX-512 registers, 16 of an AMX tile), pairs, depth blocks and vector
// widths; a transposed lhs and rhs (a weight gradient's x^T, dx = dy W^T); a block of a wider matrix
// as dst, whose other columns stay as they were.
TEST_F(Bf16ProductTest, OperandsAreRoundedToBf16AndSummedInFloat32) {
  for (const Index rows : {1, 6, 7, 13, 16, 17, 40})
    for (const Index depth : {0, 1, 2, 3, 257, 600})
      for (const Index cols : {1, 15, 16, 17, 64, 65, 100})
        for (const bool transposed : {false, true}) {
          SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(depth) + " x " + std::to_string(cols) +
                       (transposed ? ", operands transposed" : ""));
          const Matrix<float> lhs = random_matrix(rows, depth, 21), rhs = random_matrix(depth, cols, 22);
          const Matrix<float> lhs_t = lhs.transpose(), rhs_t = rhs.transpose();
          const Matrix<float> outside = random_matrix(rows, cols + 3, 23);
          Matrix<float> assigned = outside, added = outside;
          if (transposed) {
            multiply(assigned.leftCols(cols), lhs_t.transpose(), rhs_t.transpose());
            multiply(added.leftCols(cols), lhs_t.transpose(), rhs_t.transpose(), Product::add);
          } else {
            multiply(assigned.leftCols(cols), lhs, rhs);
            multiply(added.leftCols(cols), lhs, rhs, Product::add);
          }
          const Matrix<double> exact = rounded_to_bf16(lhs) * rounded_to_bf16(rhs);
          expect_close(Matrix<float>(assigned.leftCols(cols)), exact, depth);
          expect_close(Matrix<float>(added.leftCols(cols)),
                       Matrix<double>(exact + outside.leftCols(cols).cast<double>()), depth);
          EXPECT_TRUE(assigned.rightCols(3) == outside.rightCols(3)) << "wrote outside its block";
          EXPECT_TRUE(added.rightCols(3) == outside.rightCols(3)) << "wrote outside its block";
          if (depth >= 257) {
            const Matrix<double> unrounded = lhs.cast<double>() * rhs.cast<double>();
            EXPECT_GT((assigned.leftCols(cols).cast<double>() - unrounded).cwiseAbs().maxCoeff(), 1e-6 * double(depth))
                << "the operands were not rounded: the float32 kernel ran";
          }
        }
}

TEST_F(Bf16ProductTest, EveryThreadCountGivesTheSameBits) {
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(std::to_string(shape.rows) + " x " + std::to_string(shape.depth) + " x " +
                 std::to_string(shape.cols));
    const Matrix<float> lhs = random_matrix(shape.rows, shape.depth, 24), rhs = random_matrix(shape.depth, shape.cols, 25);
    const Matrix<float> bias = random_matrix(1, shape.cols, 26);
    Matrix<float> first, first_biased;
    for (const int threads : {1, 2, 3}) {
      set_num_threads(threads);
      Matrix<float> product, biased;
      multiply(product, lhs, rhs);
      multiply_from_bias(biased, lhs, rhs, bias.row(0));
      expect_close(product, Matrix<double>(rounded_to_bf16(lhs) * rounded_to_bf16(rhs)), shape.depth);
      expect_bits_of_one_thread(product, threads, first);
      expect_bits_of_one_thread(biased, threads, first_biased);
    }
  }
}

// Rounding must not turn a NaN into a number (its payload's carry would reach the sign bit), nor
// an infinity, nor a float beyond bfloat16's largest finite value, into anything but an infinity.
TEST_F(Bf16ProductTest, NaNsAndInfinitiesSurvive) {
  Matrix<float> lhs = Matrix<float>::Ones(3, 4);
  lhs(0, 1) = std::bit_cast<float>(0x7FFFFFFFu);  // the NaN with every payload bit set
  lhs(1, 2) = std::numeric_limits<float>::infinity();
  lhs(2, 3) = std::numeric_limits<float>::max();  // rounds up past bfloat16's largest value
  const Matrix<float> ones = Matrix<float>::Ones(4, 2);
  Matrix<float> product;
  multiply(product, lhs, ones);
  EXPECT_TRUE(std::isnan(product(0, 0)) && std::isnan(product(0, 1)));
  EXPECT_EQ(product(1, 0), std::numeric_limits<float>::infinity());
  EXPECT_EQ(product(2, 1), std::numeric_limits<float>::infinity());
}

TEST_F(Bf16ProductTest, Float32AgainGivesTheFloat32KernelsBits) {
  const Matrix<float> lhs = random_matrix(50, 70, 27), rhs = random_matrix(70, 33, 28);
  Matrix<float> bf16_product;
  multiply(bf16_product, lhs, rhs);
  EXPECT_EQ(precision(), Precision::bf16);
  set_precision(Precision::float32);
  Matrix<float> float_product;
  multiply(float_product, lhs, rhs);
  for (Index i = 0; i < lhs.rows(); ++i)
    for (Index j = 0; j < rhs.cols(); ++j) ASSERT_EQ(float_product(i, j), in_order_sum(lhs, rhs, i, j, 0.0f));
  EXPECT_FALSE(same_bits(bf16_product, float_product));
}

}  // namespace
}  // namespace edgewise
