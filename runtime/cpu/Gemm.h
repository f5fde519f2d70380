//===- Gemm.h - Row-major GEMM for the runtime's own kernels ----*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the matrix product the runtime's kernels (attention)
// run their tiles with: OpenBLAS's as Blas.cpp loads it (single-threaded:
// the kernels split their work over OpenMP threads themselves), or plain
// loops where OpenBLAS could not be loaded; and the runtime's own GEMM
// kernels (few rows in f32, bf16 with dot products).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_CPU_GEMM_H
#define LAZYC_RUNTIME_CPU_GEMM_H

#include <immintrin.h>

#include <array>
#include <cstdint>
#include <utility>

namespace lazyrt {

/// The register-block kernels of every size up to Rows x Vectors, for a
/// kernel chosen at run time by a block's size: at(rows, vectors) is
/// Kernel<rows, vectors>::function.
template <typename Function, template <int, int> class Kernel, int Rows,
          int Vectors>
class KernelTable {
  template <int... Index>
  static constexpr std::array<Function, Rows * Vectors>
  make(std::integer_sequence<int, Index...>) {
    return {Kernel<Index / Vectors + 1, Index % Vectors + 1>::function...};
  }
  static constexpr std::array<Function, Rows * Vectors> table =
      make(std::make_integer_sequence<int, Rows * Vectors>());

public:
  static Function at(int rows, int vectors) {
    return table[(rows - 1) * Vectors + vectors - 1];
  }
};

/// Stores a register block's sums into C at `c` (adding C's values when
/// `accumulate`): row r's vector v at c + r * ldc + 16 * v, the last
/// vector's columns limited by `lastMask`.
template <int Rows, int Vectors>
__attribute__((target("avx512f"), always_inline)) inline void
storeBlock(const __m512 (&sums)[Rows][Vectors], float *c, int64_t ldc,
           __mmask16 lastMask, bool accumulate) {
#pragma clang loop unroll(full)
  for (int r = 0; r < Rows; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < Vectors; ++v) {
      float *out = c + r * ldc + 16 * v;
      __mmask16 mask = v == Vectors - 1 ? lastMask : __mmask16(0xFFFF);
      __m512 sum = sums[r][v];
      if (accumulate)
        sum = _mm512_add_ps(sum, _mm512_maskz_loadu_ps(mask, out));
      _mm512_mask_storeu_ps(out, mask, sum);
    }
}

/// C = alpha * op(A) * op(B) + beta * C on row-major matrices, C m x n and
/// the product's inner size k; op(X) is X or, when its flag is set, X^T.
/// With beta 0, C is written without being read.
void gemm(bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k,
          float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
          float beta, float *c, int64_t ldc);
void gemm(bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k,
          double alpha, const double *a, int64_t lda, const double *b,
          int64_t ldb, double beta, double *c, int64_t ldc);

/// Whether smallGemm can run here (it needs AVX-512).
bool smallGemmAvailable();

/// C = A * B (plus C when `accumulate`) for f32, C m x n row-major with
/// leading dimension ldc, B k x n row-major with ldb, and A's element (i, p)
/// at a[i * aRowStride + p * aColumnStride] (so A may be stored transposed).
/// Reads B in place, without packing: for products of few rows, where
/// packing B costs as much as the product. Needs smallGemmAvailable().
void smallGemm(int64_t m, int64_t n, int64_t k, const float *a,
               int64_t aRowStride, int64_t aColumnStride, const float *b,
               int64_t ldb, float *c, int64_t ldc, bool accumulate);

/// Whether the CPU has AVX512-BF16 (with AVX-512 BW and VL), which
/// bfloat16Gemm needs.
bool bfloat16DotProductsAvailable();
/// Whether AVX512-BF16's dot products, timed once against the f32 FMA, do
/// more work per second here: then bf16 products run bfloat16Gemm rather
/// than widening their operands for the f32 GEMM.
bool bfloat16DotProductsFaster();

/// Whether bf16 products run on the dot products now (the kernel
/// lazyrt_bf16_gemm_kernel names).
bool bfloat16DotProductsChosen();

/// C = A * B (plus C when `accumulate`) for bf16 A and B (their bits) and
/// an f32 C, C m x n row-major with leading dimension ldc, A's element
/// (i, p) at a[i * aRowStride + p * aColumnStride] and B's (p, j) at
/// b[p * bRowStride + j * bColumnStride] (any layout of either). Products
/// are exact and sums rounded to f32 (`vdpbf16ps` adds two products to each
/// lane), but subnormal inputs and results are zeros. Needs
/// bfloat16DotProductsAvailable().
void bfloat16Gemm(int64_t m, int64_t n, int64_t k, const uint16_t *a,
                  int64_t aRowStride, int64_t aColumnStride, const uint16_t *b,
                  int64_t bRowStride, int64_t bColumnStride, float *c,
                  int64_t ldc, bool accumulate);

} // namespace lazyrt

#endif // LAZYC_RUNTIME_CPU_GEMM_H
