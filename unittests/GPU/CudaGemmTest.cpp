//===- CudaGemmTest.cpp - The runtime's cuBLASLt GEMMs --------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Calls the GEMM entry points generated code calls (Cuda.h) on device
// buffers in every layout they accept, and checks each product against a
// loop in double precision on the host: row-major and column-major
// matrices, operands read transposed, batches (one operand shared by
// stride 0), k = 0, the bias epilogue, f64/f16/bf16, full f32 by default
// and TF32 only when allowed, and a layout cuBLASLt cannot read. Skipped,
// saying why, without a GPU.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Cuda.h"
#include "lazyc/Runtime/NarrowFloats.h"
#include "lazyc/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// A batch of matrices in host memory with explicit strides, as the entry
/// points see them once copied to the device.
struct Matrices {
  int64_t batch, rows, columns;
  int64_t batchStride, rowStride, columnStride;
  std::vector<double> values; // the element at storage index i

  double at(int64_t b, int64_t i, int64_t j) const {
    return values[b * batchStride + i * rowStride + j * columnStride];
  }
  int64_t storageSize() const {
    int64_t last = (batch - 1) * batchStride + (rows - 1) * rowStride +
                   (columns - 1) * columnStride;
    return batch * rows * columns == 0 ? 1 : last + 1;
  }
};

/// Row-major (or column-major with `columnMajor`) matrices filled with
/// deterministic values in [-1, 1).
Matrices matrices(int64_t batch, int64_t rows, int64_t columns, uint32_t seed,
                  bool columnMajor = false) {
  Matrices m{batch, rows, columns, rows * columns, columns, 1, {}};
  if (columnMajor) {
    m.rowStride = 1;
    m.columnStride = rows;
  }
  m.values.resize(static_cast<size_t>(m.storageSize()));
  uint32_t state = seed * 2654435761u + 7;
  for (double &value : m.values) {
    state = state * 1664525u + 1013904223u;
    value = static_cast<float>(state >> 8) / (1 << 23) - 1.0;
  }
  return m;
}

enum class Type { F32, F64, F16, BF16 };

size_t bytesOf(Type type) {
  return type == Type::F64 ? 8 : type == Type::F32 ? 4 : 2;
}

/// `value` rounded to `type`, as stored.
double rounded(Type type, double value) {
  switch (type) {
  case Type::F32:
    return static_cast<float>(value);
  case Type::F64:
    return value;
  case Type::F16:
    return lazyc::float16BitsToFloat(
        lazyc::toFloat16Bits(static_cast<float>(value)));
  case Type::BF16:
    return lazyc::bfloat16BitsToFloat(
        lazyc::toBFloat16Bits(static_cast<float>(value)));
  }
  return value;
}

class CudaGemmTest : public ::testing::Test {
protected:
  void SetUp() override {
    char why[512] = {};
    if (!lazyrt_cuda_available(0, why, sizeof(why)))
      GTEST_SKIP() << "no CUDA driver: " << why;
    lazyrt_cuda_set_current_device(0);
    lazyrt_take_cuda_error();
  }

  void TearDown() override {
    for (void *block : blocks)
      lazyrt_cuda_free(0, block);
    lazyrt_cuda_set_allow_tf32(0);
  }

  /// `m` (rounded to `type` in place) copied to a new device buffer; its
  /// descriptor.
  lazyrt_memref3d upload(Matrices &m, Type type) {
    std::vector<uint8_t> bytes(m.values.size() * bytesOf(type));
    for (size_t i = 0; i < m.values.size(); ++i) {
      m.values[i] = rounded(type, m.values[i]);
      store(type, bytes.data(), i, m.values[i]);
    }
    void *device = lazyrt_cuda_alloc(0, bytes.size());
    EXPECT_NE(device, nullptr) << lazyrt_get_last_error();
    blocks.push_back(device);
    EXPECT_EQ(lazyrt_cuda_copy_to_device(0, device, bytes.data(), bytes.size()),
              0)
        << lazyrt_get_last_error();
    return {device,
            device,
            0,
            {m.batch, m.rows, m.columns},
            {m.batchStride, m.rowStride, m.columnStride}};
  }

  /// The device buffer of `descriptor` (holding `count` elements) read back
  /// into `m`'s values, after the queued work is done.
  void download(const lazyrt_memref3d &descriptor, Matrices &m, Type type) {
    ASSERT_EQ(lazyrt_cuda_synchronize(0), 0) << lazyrt_get_last_error();
    std::vector<uint8_t> bytes(m.values.size() * bytesOf(type));
    ASSERT_EQ(lazyrt_cuda_copy_to_host(0, bytes.data(), descriptor.aligned,
                                       bytes.size()),
              0)
        << lazyrt_get_last_error();
    for (size_t i = 0; i < m.values.size(); ++i)
      m.values[i] = load(type, bytes.data(), i);
  }

  static void store(Type type, uint8_t *bytes, size_t i, double value) {
    switch (type) {
    case Type::F32: {
      float v = static_cast<float>(value);
      std::memcpy(bytes + 4 * i, &v, 4);
      break;
    }
    case Type::F64:
      std::memcpy(bytes + 8 * i, &value, 8);
      break;
    case Type::F16: {
      uint16_t v = lazyc::toFloat16Bits(static_cast<float>(value));
      std::memcpy(bytes + 2 * i, &v, 2);
      break;
    }
    case Type::BF16: {
      uint16_t v = lazyc::toBFloat16Bits(static_cast<float>(value));
      std::memcpy(bytes + 2 * i, &v, 2);
      break;
    }
    }
  }

  static double load(Type type, const uint8_t *bytes, size_t i) {
    switch (type) {
    case Type::F32: {
      float v;
      std::memcpy(&v, bytes + 4 * i, 4);
      return v;
    }
    case Type::F64: {
      double v;
      std::memcpy(&v, bytes + 8 * i, 8);
      return v;
    }
    case Type::F16: {
      uint16_t v;
      std::memcpy(&v, bytes + 2 * i, 2);
      return lazyc::float16BitsToFloat(v);
    }
    case Type::BF16: {
      uint16_t v;
      std::memcpy(&v, bytes + 2 * i, 2);
      return lazyc::bfloat16BitsToFloat(v);
    }
    }
    return 0;
  }

  /// C (+)= op(A) op(B) through the entry point of `type`, checked against
  /// the double-precision product of the rounded inputs: the largest error,
  /// relative to 1 + |expected|.
  double runAndCompare(Type type, Matrices a, Matrices b, Matrices c,
                       int32_t flags) {
    bool transposeA = flags & LAZYRT_GEMM_TRANSPOSE_A;
    bool transposeB = flags & LAZYRT_GEMM_TRANSPOSE_B;
    lazyrt_memref3d da = upload(a, type), db = upload(b, type),
                    dc = upload(c, type);
    switch (type) {
    case Type::F32:
      _mlir_ciface_lazyrt_cuda_matmul_f32(&da, &db, &dc, flags);
      break;
    case Type::F64:
      _mlir_ciface_lazyrt_cuda_matmul_f64(&da, &db, &dc, flags);
      break;
    case Type::F16:
      _mlir_ciface_lazyrt_cuda_matmul_f16(&da, &db, &dc, flags);
      break;
    case Type::BF16:
      _mlir_ciface_lazyrt_cuda_matmul_bf16(&da, &db, &dc, flags);
      break;
    }
    const char *error = lazyrt_take_cuda_error();
    EXPECT_EQ(error, nullptr) << error;
    Matrices got = c;
    download(dc, got, type);
    int64_t k = transposeA ? a.rows : a.columns;
    double worst = 0;
    for (int64_t batch = 0; batch < c.batch; ++batch)
      for (int64_t i = 0; i < c.rows; ++i)
        for (int64_t j = 0; j < c.columns; ++j) {
          double expected =
              (flags & LAZYRT_GEMM_OVERWRITE) ? 0 : c.at(batch, i, j);
          for (int64_t p = 0; p < k; ++p)
            expected += (transposeA ? a.at(batch, p, i) : a.at(batch, i, p)) *
                        (transposeB ? b.at(batch, j, p) : b.at(batch, p, j));
          expected = rounded(type, expected);
          worst = std::max(worst, std::abs(got.at(batch, i, j) - expected) /
                                      (1 + std::abs(expected)));
        }
    return worst;
  }

  std::vector<void *> blocks;
};

TEST_F(CudaGemmTest, EveryTransposeOfRowMajorMatrices) {
  const int64_t m = 37, k = 70, n = 45;
  for (int32_t transposes = 0; transposes < 4; ++transposes) {
    bool ta = transposes & LAZYRT_GEMM_TRANSPOSE_A;
    bool tb = transposes & LAZYRT_GEMM_TRANSPOSE_B;
    Matrices a = ta ? matrices(1, k, m, 1) : matrices(1, m, k, 1);
    Matrices b = tb ? matrices(1, n, k, 2) : matrices(1, k, n, 2);
    for (int32_t overwrite : {0, int32_t(LAZYRT_GEMM_OVERWRITE)})
      EXPECT_LT(runAndCompare(Type::F32, a, b, matrices(1, m, n, 3),
                              transposes | overwrite),
                1e-5)
          << "transposes " << transposes << ", overwrite " << overwrite;
  }
}

TEST_F(CudaGemmTest, ColumnMajorOperandsAndOutput) {
  const int64_t m = 33, k = 17, n = 20;
  for (int mask = 0; mask < 8; ++mask)
    EXPECT_LT(runAndCompare(Type::F32, matrices(1, m, k, 4, mask & 1),
                            matrices(1, k, n, 5, mask & 2),
                            matrices(1, m, n, 6, mask & 4), 0),
              1e-5)
        << "column-major: A " << (mask & 1) << ", B " << (mask & 2) << ", C "
        << (mask & 4);
}

TEST_F(CudaGemmTest, BatchesWithASharedOperand) {
  Matrices a = matrices(3, 16, 24, 7);
  Matrices b = matrices(3, 24, 8, 8);
  // One B for the whole batch.
  b.batchStride = 0;
  b.values.resize(static_cast<size_t>(b.storageSize()));
  EXPECT_LT(runAndCompare(Type::F32, a, b, matrices(3, 16, 8, 9),
                          LAZYRT_GEMM_OVERWRITE),
            1e-5);
  EXPECT_LT(runAndCompare(Type::F32, matrices(4, 24, 16, 10),
                          matrices(4, 8, 24, 11), matrices(4, 16, 8, 12),
                          LAZYRT_GEMM_TRANSPOSE_A | LAZYRT_GEMM_TRANSPOSE_B),
            1e-5);
}

TEST_F(CudaGemmTest, EmptyInnerDimension) {
  // C = A B with k = 0 is zero; C += A B leaves C.
  for (int32_t overwrite : {0, int32_t(LAZYRT_GEMM_OVERWRITE)})
    for (Type type : {Type::F32, Type::F64, Type::BF16})
      EXPECT_EQ(runAndCompare(type, matrices(2, 5, 0, 1), matrices(2, 0, 7, 2),
                              matrices(2, 5, 7, 3), overwrite),
                0.0);
}

TEST_F(CudaGemmTest, OtherElementTypes) {
  const int64_t m = 64, k = 96, n = 48;
  EXPECT_LT(runAndCompare(Type::F64, matrices(1, m, k, 1), matrices(1, k, n, 2),
                          matrices(1, m, n, 3), LAZYRT_GEMM_OVERWRITE),
            1e-13);
  // f32 accumulation, one rounding at the end: within an ulp or two of the
  // narrow type.
  EXPECT_LT(runAndCompare(Type::F16, matrices(1, m, k, 1), matrices(1, k, n, 2),
                          matrices(1, m, n, 3), LAZYRT_GEMM_OVERWRITE),
            2e-3);
  EXPECT_LT(runAndCompare(Type::BF16, matrices(1, m, k, 1),
                          matrices(1, k, n, 2), matrices(1, m, n, 3),
                          LAZYRT_GEMM_OVERWRITE),
            1.6e-2);
}

TEST_F(CudaGemmTest, FullF32UnlessTf32IsAllowed) {
  // k = 1024, entries in [-1, 1]: TF32 rounds each operand to 11
  // significant bits (u = 2^-11), so an entry's error is typically
  // 2u * sqrt(k) * rms(a * b), about 1e-2 here (at most 2u * sum |a * b|,
  // about 0.25); full f32 stays near 1e-6. A wrong product would be off by
  // about 1.
  const int64_t m = 256, k = 1024, n = 256;
  Matrices a = matrices(1, m, k, 21), b = matrices(1, k, n, 22),
           c = matrices(1, m, n, 23);
  double full = runAndCompare(Type::F32, a, b, c, LAZYRT_GEMM_OVERWRITE);
  EXPECT_LT(full, 1e-5);
  lazyrt_cuda_set_allow_tf32(1);
  double tf32 = runAndCompare(Type::F32, a, b, c, LAZYRT_GEMM_OVERWRITE);
  lazyrt_cuda_set_allow_tf32(0);
  std::printf("k = 1024: largest relative error %.2e in f32, %.2e with TF32\n",
              full, tf32);
  EXPECT_GT(tf32, 1e-4) << "TF32 allowed but the product is exact to f32";
  EXPECT_LT(tf32, 5e-2);
}

TEST_F(CudaGemmTest, BiasEpilogue) {
  const int64_t m = 40, k = 24, n = 36;
  Matrices a = matrices(1, m, k, 31), b = matrices(1, k, n, 32),
           d = matrices(1, m, n, 33), bias = matrices(1, 1, n, 34);
  lazyrt_memref3d da = upload(a, Type::F32), db = upload(b, Type::F32),
                  dd = upload(d, Type::F32), dbias3 = upload(bias, Type::F32);
  lazyrt_memref1d dbias = {dbias3.allocated, dbias3.aligned, 0, {n}, {1}};
  _mlir_ciface_lazyrt_cuda_matmul_bias_f32(&da, &db, &dbias, &dd, 0);
  const char *error = lazyrt_take_cuda_error();
  ASSERT_EQ(error, nullptr) << error;
  Matrices got = d;
  download(dd, got, Type::F32);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double expected = bias.at(0, 0, j);
      for (int64_t p = 0; p < k; ++p)
        expected += a.at(0, i, p) * b.at(0, p, j);
      ASSERT_NEAR(got.at(0, i, j), expected, 1e-5 * (1 + std::abs(expected)))
          << "row " << i << ", column " << j;
    }
}

TEST_F(CudaGemmTest, UnreadableLayoutIsAnError) {
  Matrices a = matrices(1, 4, 4, 1), b = matrices(1, 4, 4, 2),
           c = matrices(1, 4, 4, 3);
  lazyrt_memref3d da = upload(a, Type::F32), db = upload(b, Type::F32),
                  dc = upload(c, Type::F32);
  // Every other element in both directions: no unit stride.
  da.sizes[1] = da.sizes[2] = 2;
  da.strides[1] = 8;
  da.strides[2] = 2;
  db.sizes[1] = 2;
  dc.sizes[1] = 2;
  _mlir_ciface_lazyrt_cuda_matmul_f32(&da, &db, &dc, LAZYRT_GEMM_OVERWRITE);
  const char *error = lazyrt_take_cuda_error();
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("lazyrt_cuda_matmul_f32: matrix A has no "
                                    "unit stride (strides 8, 2)"),
            std::string::npos)
      << error;
}

} // namespace
