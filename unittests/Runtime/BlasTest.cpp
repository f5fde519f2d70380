//===- BlasTest.cpp - Tests of the runtime's GEMM entry points ------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Calls _mlir_ciface_lazyrt_matmul_f32/f64 and the bf16/f16 ones (C += A * B;
// with flags, A or B stored transposed, or C overwritten) on hand-built memref
// descriptors: row-major, sub-matrices of larger buffers (leading dimension
// larger than the row), offsets, and non-unit inner strides (the plain-loop
// fallback). Every result is compared with a naive triple loop in double.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/NarrowFloats.h"
#include "lazyc/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

#include <strings.h>
#include <vector>

namespace {

template <typename T> struct MemrefOf;
template <> struct MemrefOf<float> {
  using type = lazyrt_memref2d_f32;
};
template <> struct MemrefOf<double> {
  using type = lazyrt_memref2d_f64;
};

void matmul(lazyrt_memref2d_f32 *a, lazyrt_memref2d_f32 *b,
            lazyrt_memref2d_f32 *c) {
  _mlir_ciface_lazyrt_matmul_f32(a, b, c, 0);
}
void matmul(lazyrt_memref2d_f64 *a, lazyrt_memref2d_f64 *b,
            lazyrt_memref2d_f64 *c) {
  _mlir_ciface_lazyrt_matmul_f64(a, b, c, 0);
}

/// A strided 2-D view into a buffer the test owns.
template <typename T> struct View {
  std::vector<T> *storage;
  int64_t offset, rows, cols, rowStride, colStride;

  T &at(int64_t i, int64_t j) const {
    return (*storage)[offset + i * rowStride + j * colStride];
  }
  typename MemrefOf<T>::type memref() const {
    return {storage->data(),
            storage->data(),
            offset,
            {rows, cols},
            {rowStride, colStride}};
  }
};

template <typename T> std::vector<T> randomBuffer(size_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<T> buffer(count);
  for (T &element : buffer)
    element = static_cast<T>(value(engine));
  return buffer;
}

/// Runs the runtime's GEMM on the views and checks C against
/// C_before + A * B computed in double, and that no element of C's buffer
/// outside the view changed.
template <typename T>
void checkGemm(const View<T> &a, const View<T> &b, const View<T> &c,
               double tolerance) {
  ASSERT_EQ(a.cols, b.rows);
  ASSERT_EQ(a.rows, c.rows);
  ASSERT_EQ(b.cols, c.cols);
  std::vector<T> before = *c.storage;
  std::vector<double> expected(c.rows * c.cols);
  for (int64_t i = 0; i < c.rows; ++i)
    for (int64_t j = 0; j < c.cols; ++j) {
      double sum = static_cast<double>(c.at(i, j));
      for (int64_t p = 0; p < a.cols; ++p)
        sum +=
            static_cast<double>(a.at(i, p)) * static_cast<double>(b.at(p, j));
      expected[i * c.cols + j] = sum;
    }
  // Positions of C's buffer inside the view.
  std::vector<bool> inside(c.storage->size(), false);
  for (int64_t i = 0; i < c.rows; ++i)
    for (int64_t j = 0; j < c.cols; ++j)
      inside[c.offset + i * c.rowStride + j * c.colStride] = true;

  auto ma = a.memref(), mb = b.memref(), mc = c.memref();
  matmul(&ma, &mb, &mc);

  for (int64_t i = 0; i < c.rows; ++i)
    for (int64_t j = 0; j < c.cols; ++j)
      EXPECT_NEAR(static_cast<double>(c.at(i, j)), expected[i * c.cols + j],
                  tolerance)
          << "C[" << i << ", " << j << "]";
  for (size_t index = 0; index < inside.size(); ++index)
    if (!inside[index])
      EXPECT_EQ((*c.storage)[index], before[index])
          << "element " << index << " outside C was written";
}

// Tolerances: k products of |x| < 1 summed in the element type; the
// accumulated rounding is below k * eps * (sum of |terms|) <= k^2 * eps.
constexpr double kF32Tolerance = 1e-4;
constexpr double kF64Tolerance = 1e-12;

template <typename T> class BlasTest : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BlasTest, ElementTypes);

template <typename T> double tolerance() {
  return sizeof(T) == 4 ? kF32Tolerance : kF64Tolerance;
}

TYPED_TEST(BlasTest, RowMajorAccumulatesIntoC) {
  using T = TypeParam;
  constexpr int64_t m = 7, k = 13, n = 5;
  std::vector<T> sa = randomBuffer<T>(m * k, 1), sb = randomBuffer<T>(k * n, 2),
                 sc = randomBuffer<T>(m * n, 3); // C pre-filled: C += A*B.
  View<T> a{&sa, 0, m, k, k, 1}, b{&sb, 0, k, n, n, 1}, c{&sc, 0, m, n, n, 1};
  checkGemm(a, b, c, tolerance<T>());
}

TYPED_TEST(BlasTest, ExactSmallProduct) {
  // Integers: the result is exact whatever the summation order.
  using T = TypeParam;
  std::vector<T> sa = {1, 2, 3, 4, 5, 6};    // 2x3
  std::vector<T> sb = {7, 8, 9, 10, 11, 12}; // 3x2
  std::vector<T> sc = {100, 200, 300, 400};  // 2x2, accumulated into
  typename MemrefOf<T>::type a{sa.data(), sa.data(), 0, {2, 3}, {3, 1}};
  typename MemrefOf<T>::type b{sb.data(), sb.data(), 0, {3, 2}, {2, 1}};
  typename MemrefOf<T>::type c{sc.data(), sc.data(), 0, {2, 2}, {2, 1}};
  matmul(&a, &b, &c);
  // [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [58 64; 139 154].
  EXPECT_EQ(sc, (std::vector<T>{158, 264, 439, 554}));
}

TYPED_TEST(BlasTest, SubMatricesWithLargerLeadingDimension) {
  // A, B and C are windows of larger row-major buffers, at offsets.
  using T = TypeParam;
  constexpr int64_t m = 9, k = 6, n = 11;
  std::vector<T> sa = randomBuffer<T>(3 + m * 10, 4),
                 sb = randomBuffer<T>(5 + k * 17, 5),
                 sc = randomBuffer<T>(2 + m * 16, 6);
  View<T> a{&sa, 3, m, k, 10, 1}, b{&sb, 5, k, n, 17, 1},
      c{&sc, 2, m, n, 16, 1};
  checkGemm(a, b, c, tolerance<T>());
}

TYPED_TEST(BlasTest, LargerProduct) {
  using T = TypeParam;
  constexpr int64_t m = 64, k = 100, n = 48;
  std::vector<T> sa = randomBuffer<T>(m * k, 7), sb = randomBuffer<T>(k * n, 8),
                 sc(m * n, T(0));
  View<T> a{&sa, 0, m, k, k, 1}, b{&sb, 0, k, n, n, 1}, c{&sc, 0, m, n, n, 1};
  checkGemm(a, b, c, sizeof(T) == 4 ? 1e-4 : 1e-12);
}

TYPED_TEST(BlasTest, NonUnitInnerStrideFallsBackToLoops) {
  // A is the transpose of a k x m row-major buffer (strides [1, m]); B has
  // an inner stride of 2; C is column-major (strides [1, m]).
  using T = TypeParam;
  constexpr int64_t m = 5, k = 4, n = 3;
  std::vector<T> sa = randomBuffer<T>(k * m, 9),
                 sb = randomBuffer<T>(k * n * 2, 10),
                 sc = randomBuffer<T>(m * n, 11);
  View<T> a{&sa, 0, m, k, 1, m}, b{&sb, 0, k, n, 2 * n, 2},
      c{&sc, 0, m, n, 1, m};
  checkGemm(a, b, c, tolerance<T>());
}

TYPED_TEST(BlasTest, OnlyCHasNonUnitInnerStride) {
  using T = TypeParam;
  constexpr int64_t m = 3, k = 5, n = 4;
  std::vector<T> sa = randomBuffer<T>(m * k, 12),
                 sb = randomBuffer<T>(k * n, 13),
                 sc = randomBuffer<T>(1 + m * n * 3, 14);
  View<T> a{&sa, 0, m, k, k, 1}, b{&sb, 0, k, n, n, 1},
      c{&sc, 1, m, n, 3 * n, 3};
  checkGemm(a, b, c, tolerance<T>());
}

TYPED_TEST(BlasTest, SingleRowAndColumnWithDegenerateStrides) {
  // MLIR may give size-1 dimensions any stride (here 1): the leading
  // dimension passed to BLAS must still be valid.
  using T = TypeParam;
  constexpr int64_t k = 6, n = 5;
  std::vector<T> sa = randomBuffer<T>(k, 15), sb = randomBuffer<T>(k * n, 16),
                 sc = randomBuffer<T>(n, 17);
  View<T> a{&sa, 0, 1, k, 1, 1}, b{&sb, 0, k, n, n, 1}, c{&sc, 0, 1, n, 1, 1};
  checkGemm(a, b, c, tolerance<T>());

  // A k x 1 column times a 1 x n row: an outer product, C is m x n.
  constexpr int64_t m = 4;
  std::vector<T> col = randomBuffer<T>(m, 18), row = randomBuffer<T>(n, 19),
                 outer = randomBuffer<T>(m * n, 20);
  View<T> x{&col, 0, m, 1, 1, 1}, y{&row, 0, 1, n, n, 1},
      z{&outer, 0, m, n, n, 1};
  checkGemm(x, y, z, tolerance<T>());
}

// A has unit inner stride but row stride 0: every row is the same k values
// (a broadcast view). Runtime.h promises C += A * B for "any
// unit-inner-stride" matrix. (Regression: a row stride smaller than the row
// length was replaced by the row length, so BLAS read past A's buffer.)
TYPED_TEST(BlasTest, BroadcastRowsWithZeroRowStride) {
  using T = TypeParam;
  constexpr int64_t m = 4, k = 6, n = 3;
  std::vector<T> sa = randomBuffer<T>(k, 22), sb = randomBuffer<T>(k * n, 23),
                 sc = randomBuffer<T>(m * n, 24);
  View<T> a{&sa, 0, m, k, 0, 1}, b{&sb, 0, k, n, n, 1}, c{&sc, 0, m, n, n, 1};
  checkGemm(a, b, c, tolerance<T>());
}

TYPED_TEST(BlasTest, EmptyDimensionsLeaveCUnchanged) {
  using T = TypeParam;
  // k = 0: C += (m x 0) * (0 x n) adds nothing.
  std::vector<T> sa(1), sb(1), sc = randomBuffer<T>(6, 21);
  std::vector<T> before = sc;
  typename MemrefOf<T>::type a{sa.data(), sa.data(), 0, {2, 0}, {0, 1}};
  typename MemrefOf<T>::type b{sb.data(), sb.data(), 0, {0, 3}, {3, 1}};
  typename MemrefOf<T>::type c{sc.data(), sc.data(), 0, {2, 3}, {3, 1}};
  matmul(&a, &b, &c);
  EXPECT_EQ(sc, before);
  // m = 0 and n = 0 do nothing either.
  typename MemrefOf<T>::type a0{sa.data(), sa.data(), 0, {0, 4}, {4, 1}};
  typename MemrefOf<T>::type b0{sb.data(), sb.data(), 0, {4, 0}, {0, 1}};
  typename MemrefOf<T>::type c0{sc.data(), sc.data(), 0, {0, 0}, {0, 1}};
  matmul(&a0, &b0, &c0);
  EXPECT_EQ(sc, before);
}

} // namespace

TYPED_TEST(BlasTest, TransposedOperandsAndOverwrite) {
  // Every combination of the flags, through BLAS (unit inner strides) and
  // through the loop fallback (inner stride 2). A transposed operand is
  // stored transposed: `a` holds the k x m matrix A^T.
  using T = TypeParam;
  constexpr int64_t m = 6, k = 5, n = 4;
  for (int32_t flags = 0; flags < 8; ++flags) {
    for (int64_t inner : {1, 2}) {
      bool ta = flags & LAZYRT_GEMM_TRANSPOSE_A;
      bool tb = flags & LAZYRT_GEMM_TRANSPOSE_B;
      bool overwrite = flags & LAZYRT_GEMM_OVERWRITE;
      int64_t aRows = ta ? k : m, aCols = ta ? m : k;
      int64_t bRows = tb ? n : k, bCols = tb ? k : n;
      std::vector<T> sa = randomBuffer<T>(aRows * aCols * inner, 20 + flags),
                     sb = randomBuffer<T>(bRows * bCols * inner, 30 + flags),
                     sc = randomBuffer<T>(m * n * inner, 40 + flags);
      auto a = [&](int64_t i, int64_t p) {
        return ta ? sa[(p * aCols + i) * inner] : sa[(i * aCols + p) * inner];
      };
      auto b = [&](int64_t p, int64_t j) {
        return tb ? sb[(j * bCols + p) * inner] : sb[(p * bCols + j) * inner];
      };
      std::vector<double> expected(m * n);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double sum = overwrite ? 0.0 : double(sc[(i * n + j) * inner]);
          for (int64_t p = 0; p < k; ++p)
            sum += double(a(i, p)) * double(b(p, j));
          expected[i * n + j] = sum;
        }
      typename MemrefOf<T>::type ma{
          sa.data(), sa.data(), 0, {aRows, aCols}, {aCols * inner, inner}};
      typename MemrefOf<T>::type mb{
          sb.data(), sb.data(), 0, {bRows, bCols}, {bCols * inner, inner}};
      typename MemrefOf<T>::type mc{
          sc.data(), sc.data(), 0, {m, n}, {n * inner, inner}};
      if constexpr (sizeof(T) == 4)
        _mlir_ciface_lazyrt_matmul_f32(&ma, &mb, &mc, flags);
      else
        _mlir_ciface_lazyrt_matmul_f64(&ma, &mb, &mc, flags);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          EXPECT_NEAR(double(sc[(i * n + j) * inner]), expected[i * n + j],
                      tolerance<T>())
              << "flags " << flags << ", inner stride " << inner << ", C[" << i
              << ", " << j << "]";
    }
  }
}

TYPED_TEST(BlasTest, OverwriteWithEmptyInnerDimensionZeroesC) {
  using T = TypeParam;
  std::vector<T> sa(1), sb(1), sc = {5, 6, 7, 8};
  typename MemrefOf<T>::type a{sa.data(), sa.data(), 0, {2, 0}, {0, 1}};
  typename MemrefOf<T>::type b{sb.data(), sb.data(), 0, {0, 2}, {2, 1}};
  typename MemrefOf<T>::type c{sc.data(), sc.data(), 0, {2, 2}, {2, 1}};
  if constexpr (sizeof(T) == 4)
    _mlir_ciface_lazyrt_matmul_f32(&a, &b, &c, LAZYRT_GEMM_OVERWRITE);
  else
    _mlir_ciface_lazyrt_matmul_f64(&a, &b, &c, LAZYRT_GEMM_OVERWRITE);
  EXPECT_EQ(sc, (std::vector<T>{0, 0, 0, 0}));
}

/// Restores the bf16 kernel a test chose.
struct BFloat16KernelScope {
  std::string kernel = lazyrt_bf16_gemm_kernel();
  ~BFloat16KernelScope() { lazyrt_set_bf16_gemm_kernel(kernel.c_str()); }
};

// bf16 and f16 A and B accumulated into f32 C: every flag, unit and
// non-unit inner strides, rows longer than 8 (F16C converts 8 at a time)
// with a tail. The operands are random narrow values (and, for f16, some
// subnormals); the reference multiplies their exact values in double, so the
// only error allowed is the f32 accumulation's.
// bf16 runs once with each kernel this CPU has.
TEST(NarrowBlasTest, BFloat16AndFloat16IntoFloat32) {
  constexpr int64_t m = 5, k = 19, n = 11;
  std::mt19937 engine(7);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  BFloat16KernelScope scope;
  for (const char *kernel : {"widened", "avx512-bf16", "f16"}) {
    bool isBFloat16 = std::string(kernel) != "f16";
    if (isBFloat16 && !lazyrt_set_bf16_gemm_kernel(kernel))
      continue;
    auto toBits = [&](float x) {
      return isBFloat16 ? lazyc::toBFloat16Bits(x) : lazyc::toFloat16Bits(x);
    };
    auto fromBits = [&](uint16_t bits) {
      return double(isBFloat16 ? lazyc::bfloat16BitsToFloat(bits)
                               : lazyc::float16BitsToFloat(bits));
    };
    for (int32_t flags = 0; flags < 8; ++flags) {
      for (int64_t inner : {1, 2}) {
        bool ta = flags & LAZYRT_GEMM_TRANSPOSE_A;
        bool tb = flags & LAZYRT_GEMM_TRANSPOSE_B;
        bool overwrite = flags & LAZYRT_GEMM_OVERWRITE;
        int64_t aRows = ta ? k : m, aCols = ta ? m : k;
        int64_t bRows = tb ? n : k, bCols = tb ? k : n;
        std::vector<uint16_t> sa(aRows * aCols * inner),
            sb(bRows * bCols * inner);
        for (uint16_t &bits : sa)
          bits = toBits(value(engine));
        for (size_t i = 0; i < sb.size(); ++i)
          // Every seventh f16 value a subnormal (below 2^-14).
          sb[i] = toBits(!isBFloat16 && i % 7 == 0 ? value(engine) * 0x1p-16f
                                                   : value(engine));
        std::vector<float> sc(m * n);
        for (float &x : sc)
          x = value(engine);
        auto a = [&](int64_t i, int64_t p) {
          return fromBits(ta ? sa[(p * aCols + i) * inner]
                             : sa[(i * aCols + p) * inner]);
        };
        auto b = [&](int64_t p, int64_t j) {
          return fromBits(tb ? sb[(j * bCols + p) * inner]
                             : sb[(p * bCols + j) * inner]);
        };
        std::vector<double> expected(m * n);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double sum = overwrite ? 0.0 : double(sc[i * n + j]);
            for (int64_t p = 0; p < k; ++p)
              sum += a(i, p) * b(p, j);
            expected[i * n + j] = sum;
          }
        lazyrt_memref2d_u16 ma{
            sa.data(), sa.data(), 0, {aRows, aCols}, {aCols * inner, inner}};
        lazyrt_memref2d_u16 mb{
            sb.data(), sb.data(), 0, {bRows, bCols}, {bCols * inner, inner}};
        lazyrt_memref2d_f32 mc{sc.data(), sc.data(), 0, {m, n}, {n, 1}};
        if (isBFloat16)
          _mlir_ciface_lazyrt_matmul_bf16_f32(&ma, &mb, &mc, flags);
        else
          _mlir_ciface_lazyrt_matmul_f16_f32(&ma, &mb, &mc, flags);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j)
            EXPECT_NEAR(double(sc[i * n + j]), expected[i * n + j], 1e-5)
                << kernel << ", flags " << flags << ", inner stride " << inner
                << ", C[" << i << ", " << j << "]";
      }
    }
  }
}

/// Runs `multiply` on C (m x n, leading dimension ldc) and checks it against
/// C + A * B computed in double (C zero when `overwrite`), within the bound
/// for f32 sums of k + 1 terms, (k + 2) u (|C| + sum |a b|), u = 2^-24; and
/// that the element past each row's end is untouched. `a(i, p)` and
/// `b(p, j)` give the operands' exact values. At most 5 failures each.
template <typename A, typename B, typename Multiply>
void checkFloat32Product(int64_t m, int64_t n, int64_t k, bool overwrite,
                         const A &a, const B &b, std::vector<float> &sc,
                         int64_t ldc, const std::string &what,
                         const Multiply &multiply) {
  std::vector<double> expected(m * n), bound(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double c = overwrite ? 0.0 : double(sc[i * ldc + j]);
      double sum = c, magnitude = std::fabs(c);
      for (int64_t p = 0; p < k; ++p) {
        sum += a(i, p) * b(p, j);
        magnitude += std::fabs(a(i, p) * b(p, j));
      }
      expected[i * n + j] = sum;
      bound[i * n + j] = double(k + 2) * std::ldexp(1.0, -24) * magnitude;
    }
  std::vector<float> padding(m);
  for (int64_t i = 0; i < m; ++i)
    padding[i] = sc[i * ldc + n];
  multiply();
  int failures = 0;
  for (int64_t i = 0; i < m && failures < 5; ++i) {
    EXPECT_EQ(sc[i * ldc + n], padding[i])
        << what << ": written past row " << i << "'s end";
    for (int64_t j = 0; j < n && failures < 5; ++j) {
      double got = sc[i * ldc + j];
      if (std::fabs(got - expected[i * n + j]) > bound[i * n + j]) {
        ++failures;
        ADD_FAILURE() << what << ": C[" << i << ", " << j << "] = " << got
                      << ", expected " << expected[i * n + j] << " within "
                      << bound[i * n + j];
      }
    }
  }
}

// f32 products of up to 256 rows with an untransposed B run the runtime's
// own kernel (SmallGemm.cpp: blocks of 8 rows by 48 columns, the last
// vector masked, B read 128 rows at a time) where the CPU has AVX-512, and
// OpenBLAS elsewhere; from 257 rows on, or with B transposed, OpenBLAS.
// Sizes on both sides of every block edge, A stored either way, C
// accumulated or overwritten, leading dimensions longer than the rows. The
// bound is the classical one for a sum of k + 1 terms in f32:
// (k + 2) u (|C| + sum |a b|), u = 2^-24.
TEST(BlasTest, ShapesAroundTheSmallProductKernelsBlocks) {
  const int64_t rowCounts[] = {1, 7, 8, 9, 17, 256, 257};
  const int64_t columnCounts[] = {1, 15, 16, 17, 48, 49, 100};
  const int64_t depths[] = {1, 128, 129, 300};
  unsigned seed = 100;
  for (int64_t m : rowCounts)
    for (int64_t n : columnCounts)
      for (int64_t k : depths)
        for (int32_t flags :
             {0, int(LAZYRT_GEMM_TRANSPOSE_A), int(LAZYRT_GEMM_OVERWRITE),
              LAZYRT_GEMM_TRANSPOSE_A | LAZYRT_GEMM_OVERWRITE,
              int(LAZYRT_GEMM_TRANSPOSE_B)}) {
          bool ta = flags & LAZYRT_GEMM_TRANSPOSE_A;
          bool tb = flags & LAZYRT_GEMM_TRANSPOSE_B;
          bool overwrite = flags & LAZYRT_GEMM_OVERWRITE;
          int64_t aRows = ta ? k : m, aCols = ta ? m : k;
          int64_t bRows = tb ? n : k, bCols = tb ? k : n;
          // Leading dimensions 3 longer than the rows.
          int64_t lda = aCols + 3, ldb = bCols + 3, ldc = n + 3;
          std::vector<float> sa = randomBuffer<float>(aRows * lda, ++seed),
                             sb = randomBuffer<float>(bRows * ldb, ++seed),
                             sc = randomBuffer<float>(m * ldc, ++seed);
          auto a = [&](int64_t i, int64_t p) {
            return double(ta ? sa[p * lda + i] : sa[i * lda + p]);
          };
          auto b = [&](int64_t p, int64_t j) {
            return double(tb ? sb[j * ldb + p] : sb[p * ldb + j]);
          };
          lazyrt_memref2d_f32 ma{
              sa.data(), sa.data(), 0, {aRows, aCols}, {lda, 1}};
          lazyrt_memref2d_f32 mb{
              sb.data(), sb.data(), 0, {bRows, bCols}, {ldb, 1}};
          lazyrt_memref2d_f32 mc{sc.data(), sc.data(), 0, {m, n}, {ldc, 1}};
          checkFloat32Product(
              m, n, k, overwrite, a, b, sc, ldc,
              "m " + std::to_string(m) + ", n " + std::to_string(n) + ", k " +
                  std::to_string(k) + ", flags " + std::to_string(flags),
              [&] { _mlir_ciface_lazyrt_matmul_f32(&ma, &mb, &mc, flags); });
        }
}

// bf16 products with AVX512-BF16's dot products (BFloat16Gemm.cpp: register
// blocks of 6 rows by 64 columns, A packed 96 rows and B 512 columns at a
// time, both 256 deep, as pairs along the depth): sizes on both sides of
// every edge, an odd depth (the last pair padded), each operand stored
// either way (B row-major is packed with vectors, the rest element by
// element), leading dimensions longer than the rows, C accumulated or
// overwritten. The operands are random bf16 values in [-1, 1], never
// subnormal, multiplied exactly in double; the bound is the one for f32
// sums of k + 1 terms, (k + 2) u (|C| + sum |a b|), u = 2^-24.
TEST(BFloat16GemmTest, DotProductsAroundTheBlocks) {
  BFloat16KernelScope scope;
  if (!lazyrt_set_bf16_gemm_kernel("avx512-bf16"))
    GTEST_SKIP() << "this CPU has no AVX512-BF16";
  const int64_t rowCounts[] = {1, 6, 7, 97};
  const int64_t columnCounts[] = {1, 17, 64, 65, 513};
  const int64_t depths[] = {1, 3, 256, 257, 600};
  std::mt19937 engine(11);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int64_t m : rowCounts)
    for (int64_t n : columnCounts)
      for (int64_t k : depths)
        for (int32_t flags :
             {0, int(LAZYRT_GEMM_TRANSPOSE_A), int(LAZYRT_GEMM_TRANSPOSE_B),
              LAZYRT_GEMM_TRANSPOSE_A | LAZYRT_GEMM_TRANSPOSE_B |
                  LAZYRT_GEMM_OVERWRITE}) {
          bool ta = flags & LAZYRT_GEMM_TRANSPOSE_A;
          bool tb = flags & LAZYRT_GEMM_TRANSPOSE_B;
          bool overwrite = flags & LAZYRT_GEMM_OVERWRITE;
          int64_t aRows = ta ? k : m, aCols = ta ? m : k;
          int64_t bRows = tb ? n : k, bCols = tb ? k : n;
          int64_t lda = aCols + 3, ldb = bCols + 3, ldc = n + 3;
          std::vector<uint16_t> sa(aRows * lda), sb(bRows * ldb);
          for (uint16_t &bits : sa)
            bits = lazyc::toBFloat16Bits(value(engine));
          for (uint16_t &bits : sb)
            bits = lazyc::toBFloat16Bits(value(engine));
          std::vector<float> sc(m * ldc);
          for (float &x : sc)
            x = value(engine);
          auto a = [&](int64_t i, int64_t p) {
            return double(lazyc::bfloat16BitsToFloat(ta ? sa[p * lda + i]
                                                        : sa[i * lda + p]));
          };
          auto b = [&](int64_t p, int64_t j) {
            return double(lazyc::bfloat16BitsToFloat(tb ? sb[j * ldb + p]
                                                        : sb[p * ldb + j]));
          };
          lazyrt_memref2d_u16 ma{
              sa.data(), sa.data(), 0, {aRows, aCols}, {lda, 1}};
          lazyrt_memref2d_u16 mb{
              sb.data(), sb.data(), 0, {bRows, bCols}, {ldb, 1}};
          lazyrt_memref2d_f32 mc{sc.data(), sc.data(), 0, {m, n}, {ldc, 1}};
          checkFloat32Product(
              m, n, k, overwrite, a, b, sc, ldc,
              "m " + std::to_string(m) + ", n " + std::to_string(n) + ", k " +
                  std::to_string(k) + ", flags " + std::to_string(flags),
              [&] {
                _mlir_ciface_lazyrt_matmul_bf16_f32(&ma, &mb, &mc, flags);
              });
        }
}

// The kernel is chosen once per process and can be changed by name; an
// unknown name, or the dot products on a CPU without them, change nothing.
TEST(BFloat16GemmTest, KernelChoice) {
  BFloat16KernelScope scope;
  std::string chosen = lazyrt_bf16_gemm_kernel();
  EXPECT_TRUE(chosen == "avx512-bf16" || chosen == "widened") << chosen;
  EXPECT_EQ(lazyrt_set_bf16_gemm_kernel("amx"), 0);
  EXPECT_EQ(lazyrt_set_bf16_gemm_kernel(nullptr), 0);
  EXPECT_EQ(std::string(lazyrt_bf16_gemm_kernel()), chosen);
  EXPECT_EQ(lazyrt_set_bf16_gemm_kernel("widened"), 1);
  EXPECT_EQ(std::string(lazyrt_bf16_gemm_kernel()), "widened");
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  __asm__("cpuid"
          : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx)
          : "a"(7), "c"(1));
  __builtin_cpu_init();
  bool hasDotProducts = __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512vl") && (eax & 32u);
  EXPECT_EQ(lazyrt_set_bf16_gemm_kernel("avx512-bf16"), hasDotProducts ? 1 : 0);
}

// On Zen 4 vdpbf16ps issues as often as the f32 FMA and does twice its
// work, so the timed choice (without LAZYC_BF16_GEMM) must pick it. The
// timing once measured one dependent chain (the compiler dropped the other
// 23): 6 cycles against the FMA's 4, a ratio at the 1.5 threshold, and
// some processes chose the widened kernel (3 of 30 on a quiet machine).
TEST(BFloat16GemmTest, ZenFourTimesTheDotProductsFaster) {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  __asm__("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(1));
  unsigned family = ((eax >> 8) & 0xF) + ((eax >> 20) & 0xFF);
  __asm__("cpuid"
          : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx)
          : "a"(7), "c"(1));
  bool hasDotProducts = eax & 32u;
  __builtin_cpu_init();
  if (!__builtin_cpu_is("amd") || family != 0x19 || !hasDotProducts)
    GTEST_SKIP() << "not a Zen 4 core (AMD family 25 with AVX512-BF16)";
  if (std::getenv("LAZYC_BF16_GEMM"))
    GTEST_SKIP() << "LAZYC_BF16_GEMM overrides the timed choice";
  // (Every test that sets another kernel puts the timed one back.)
  EXPECT_EQ(std::string(lazyrt_bf16_gemm_kernel()), "avx512-bf16");
}

// OpenBLAS is loaded with the kernels this CPU can run: Debian 12's
// OpenBLAS detects some AVX-512 Xeons (in VMs) as a Prescott, whose SSE3
// GEMM ran a GPT-2-small step 4.7x slower; a user's OPENBLAS_CORETYPE
// wins. (This test binary does not link OpenBLAS, so lazyc's loading is
// the first.)
TEST(BlasKernelsTest, MatchTheCpu) {
  std::string kernels = lazyrt_blas_kernels();
  EXPECT_NE(kernels, "none");
  __builtin_cpu_init();
  if (const char *chosen = std::getenv("OPENBLAS_CORETYPE"))
    EXPECT_EQ(strcasecmp(kernels.c_str(), chosen), 0)
        << kernels << " against OPENBLAS_CORETYPE=" << chosen;
  else if (__builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl"))
    EXPECT_EQ(kernels, "SkylakeX");
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    EXPECT_EQ(kernels, "Haswell");
  else
    EXPECT_NE(kernels, "");
}
