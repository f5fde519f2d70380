//===- Blas.cpp - GEMM through OpenBLAS -----------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the GEMM entry points generated code calls for
// linalg.matmul on f32 and f64. OpenBLAS runs single-threaded here: the
// generated code has already split the product over OpenMP threads, and two
// thread pools fighting over the cores is what made libtorch 2-5x slower on
// small machines.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Runtime.h"

#include <cblas.h>

#include <mutex>

namespace {

void useOneBlasThread() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

/// C += A * B, with a plain loop for layouts BLAS cannot take (non-unit
/// inner strides, overlapping rows such as broadcasts).
template <typename T, typename Memref, typename Gemm>
void matmul(Memref *a, Memref *b, Memref *c, int32_t flags, Gemm gemm) {
  bool transposeA = flags & LAZYRT_GEMM_TRANSPOSE_A;
  bool transposeB = flags & LAZYRT_GEMM_TRANSPOSE_B;
  bool overwrite = flags & LAZYRT_GEMM_OVERWRITE;
  int64_t m = c->sizes[0], n = c->sizes[1];
  int64_t k = transposeA ? a->sizes[0] : a->sizes[1];
  T *pa = a->aligned + a->offset, *pb = b->aligned + b->offset,
    *pc = c->aligned + c->offset;
  if (m == 0 || n == 0)
    return;
  // BLAS needs unit inner strides and leading dimensions of at least the
  // row length (a single row may have any row stride: it is never used).
  auto blasCompatible = [](int64_t rows, int64_t columns,
                           const int64_t *strides) {
    return strides[1] == 1 && (rows == 1 || strides[0] >= columns);
  };
  // Sizes as stored.
  int64_t aRows = transposeA ? k : m, aColumns = transposeA ? m : k;
  int64_t bRows = transposeB ? n : k, bColumns = transposeB ? k : n;
  if (k > 0 && blasCompatible(aRows, aColumns, a->strides) &&
      blasCompatible(bRows, bColumns, b->strides) &&
      blasCompatible(m, n, c->strides)) {
    useOneBlasThread();
    auto leading = [](int64_t stride, int64_t columns) {
      return stride < columns ? columns : stride;
    };
    gemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans,
         transposeB ? CblasTrans : CblasNoTrans, m, n, k, T(1), pa,
         leading(a->strides[0], aColumns), pb, leading(b->strides[0], bColumns),
         overwrite ? T(0) : T(1), pc, leading(c->strides[0], n));
    return;
  }
  if (overwrite)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        pc[i * c->strides[0] + j * c->strides[1]] = T(0);
  auto elementA = [&](int64_t i, int64_t p) {
    return transposeA ? pa[p * a->strides[0] + i * a->strides[1]]
                      : pa[i * a->strides[0] + p * a->strides[1]];
  };
  auto elementB = [&](int64_t p, int64_t j) {
    return transposeB ? pb[j * b->strides[0] + p * b->strides[1]]
                      : pb[p * b->strides[0] + j * b->strides[1]];
  };
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        pc[i * c->strides[0] + j * c->strides[1]] +=
            elementA(i, p) * elementB(p, j);
}

} // namespace

extern "C" void _mlir_ciface_lazyrt_matmul_f32(lazyrt_memref2d_f32 *a,
                                               lazyrt_memref2d_f32 *b,
                                               lazyrt_memref2d_f32 *c,
                                               int32_t flags) {
  matmul<float>(a, b, c, flags, cblas_sgemm);
}

extern "C" void _mlir_ciface_lazyrt_matmul_f64(lazyrt_memref2d_f64 *a,
                                               lazyrt_memref2d_f64 *b,
                                               lazyrt_memref2d_f64 *c,
                                               int32_t flags) {
  matmul<double>(a, b, c, flags, cblas_dgemm);
}
