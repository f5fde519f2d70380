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
void matmul(Memref *a, Memref *b, Memref *c, Gemm gemm) {
  int64_t m = a->sizes[0], k = a->sizes[1], n = b->sizes[1];
  if (m == 0 || n == 0 || k == 0)
    return;
  T *pa = a->aligned + a->offset, *pb = b->aligned + b->offset,
    *pc = c->aligned + c->offset;
  // BLAS needs unit inner strides and leading dimensions of at least the
  // row length (a single row may have any row stride: it is never used).
  auto blasCompatible = [](int64_t rows, int64_t columns,
                           const int64_t *strides) {
    return strides[1] == 1 && (rows == 1 || strides[0] >= columns);
  };
  if (blasCompatible(m, k, a->strides) && blasCompatible(k, n, b->strides) &&
      blasCompatible(m, n, c->strides)) {
    useOneBlasThread();
    auto leading = [](int64_t stride, int64_t columns) {
      return stride < columns ? columns : stride;
    };
    gemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, T(1), pa,
         leading(a->strides[0], k), pb, leading(b->strides[0], n), T(1), pc,
         leading(c->strides[0], n));
    return;
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        pc[i * c->strides[0] + j * c->strides[1]] +=
            pa[i * a->strides[0] + p * a->strides[1]] *
            pb[p * b->strides[0] + j * b->strides[1]];
}

} // namespace

extern "C" void _mlir_ciface_lazyrt_matmul_f32(lazyrt_memref2d_f32 *a,
                                               lazyrt_memref2d_f32 *b,
                                               lazyrt_memref2d_f32 *c) {
  matmul<float>(a, b, c, cblas_sgemm);
}

extern "C" void _mlir_ciface_lazyrt_matmul_f64(lazyrt_memref2d_f64 *a,
                                               lazyrt_memref2d_f64 *b,
                                               lazyrt_memref2d_f64 *c) {
  matmul<double>(a, b, c, cblas_dgemm);
}
