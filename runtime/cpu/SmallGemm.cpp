//===- SmallGemm.cpp - f32 products of few rows, without packing ----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the f32 product generated code calls for a thread's
// chunk of few rows: a recurrent step's state times its weight, a layer's
// batch times its weight. OpenBLAS copies both operands into packed panels
// on every call; with few rows, copying the weight costs as much as the
// product (the LSTM spent more time in OpenBLAS's copy than in its kernel).
// Here the weight is read in place, a row of 48 columns at a time, which
// the hardware prefetcher streams from L2, while 8 rows of the product stay
// in 24 AVX-512 registers. Without AVX-512 the caller keeps OpenBLAS.
//
//===----------------------------------------------------------------------===//

#include "Gemm.h"

#include <immintrin.h>

#include <algorithm>

namespace {

/// Rows and 16-float vectors of columns of one register block.
constexpr int kBlockRows = 8;
constexpr int kBlockVectors = 3;
constexpr int kBlockColumns = 16 * kBlockVectors;
/// Rows of B one pass over the blocks reads.
constexpr int64_t kDepth = 128;

/// A `Rows` x (16 * `Vectors`) block of C = (C if `accumulate`) + A * B,
/// the last vector's columns limited by `lastMask`. A's element (i, p) is at
/// a[i * aRowStride + p * aColumnStride].
template <int Rows, int Vectors>
__attribute__((target("avx512f"))) void
multiplyBlock(int64_t k, const float *a, int64_t aRowStride,
              int64_t aColumnStride, const float *b, int64_t ldb, float *c,
              int64_t ldc, __mmask16 lastMask, bool accumulate) {
  __m512 sums[Rows][Vectors];
#pragma clang loop unroll(full)
  for (int r = 0; r < Rows; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < Vectors; ++v)
      sums[r][v] = _mm512_setzero_ps();
  for (int64_t p = 0; p < k; ++p) {
    const float *bRow = b + p * ldb;
    __m512 columns[Vectors];
#pragma clang loop unroll(full)
    for (int v = 0; v < Vectors; ++v)
      columns[v] = v == Vectors - 1
                       ? _mm512_maskz_loadu_ps(lastMask, bRow + 16 * v)
                       : _mm512_loadu_ps(bRow + 16 * v);
    const float *aColumn = a + p * aColumnStride;
#pragma clang loop unroll(full)
    for (int r = 0; r < Rows; ++r) {
      __m512 element = _mm512_set1_ps(aColumn[r * aRowStride]);
#pragma clang loop unroll(full)
      for (int v = 0; v < Vectors; ++v)
        sums[r][v] = _mm512_fmadd_ps(element, columns[v], sums[r][v]);
    }
  }
  lazyrt::storeBlock(sums, c, ldc, lastMask, accumulate);
}

using BlockFunction = void (*)(int64_t, const float *, int64_t, int64_t,
                               const float *, int64_t, float *, int64_t,
                               __mmask16, bool);

template <int Rows, int Vectors> struct Block {
  static constexpr BlockFunction function = &multiplyBlock<Rows, Vectors>;
};
using Blocks =
    lazyrt::KernelTable<BlockFunction, Block, kBlockRows, kBlockVectors>;

} // namespace

bool lazyrt::smallGemmAvailable() {
  static const bool available = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
  }();
  return available;
}

void lazyrt::smallGemm(int64_t m, int64_t n, int64_t k, const float *a,
                       int64_t aRowStride, int64_t aColumnStride,
                       const float *b, int64_t ldb, float *c, int64_t ldc,
                       bool accumulate) {
  // A panel of B (up to kDepth x 48) stays in cache while every block of
  // rows reads it; the depth is bounded so that rows of B a power of two
  // apart do not evict each other. (With k = 0, one pass of depth 0 still
  // writes C's zeros or leaves it as it was.)
  for (int64_t p = 0; p < k || p == 0; p += kDepth) {
    int64_t depth = std::min(k - p, kDepth);
    bool add = accumulate || p > 0;
    for (int64_t j = 0; j < n; j += kBlockColumns) {
      int64_t columns = std::min<int64_t>(n - j, kBlockColumns);
      int vectors = int((columns + 15) / 16);
      int lastColumns = int(columns - 16 * (vectors - 1));
      __mmask16 lastMask = __mmask16((1u << lastColumns) - 1);
      for (int64_t i = 0; i < m; i += kBlockRows) {
        int rows = int(std::min<int64_t>(m - i, kBlockRows));
        Blocks::at(rows, vectors)(depth, a + i * aRowStride + p * aColumnStride,
                                  aRowStride, aColumnStride, b + p * ldb + j,
                                  ldb, c + i * ldc + j, ldc, lastMask, add);
      }
    }
  }
}
