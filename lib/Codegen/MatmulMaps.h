//===- MatmulMaps.h - Indexing maps of (batched) matmuls --------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the indexing maps that lazy-fold-transpose-into-matmul
// gives a matmul reading a transposed operand in place, and what the passes
// that hand matmuls on buffers to a library (lazy-cpu-gemm-to-blas,
// lazy-gpu-gemm-to-cublas) read from them.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_CODEGEN_MATMULMAPS_H
#define LAZYC_LIB_CODEGEN_MATMULMAPS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"

#include <optional>

namespace mlir::lazy {

/// The maps of a matmul over (m, n, k), or of a batch_matmul over
/// (b, m, n, k) with the batch first in every map: A read as (m, k), or as
/// stored transposed (k, m); B as (k, n), or (n, k); C as (m, n).
SmallVector<AffineMap, 3> matmulMaps(MLIRContext *context, bool batched,
                                     bool transposedA, bool transposedB);

/// The runtime's LAZYRT_GEMM_TRANSPOSE_* flags of a matmul or batch_matmul
/// with the maps above, or nothing for any other indexing.
std::optional<int32_t> gemmTransposeFlags(linalg::LinalgOp op);

/// The fill of +0 into `op`'s output just before it (past ops without
/// memory effects: views, casts, constants), or null. A library GEMM that
/// overwrites its output makes the fill unnecessary.
linalg::FillOp zeroFillBefore(linalg::LinalgOp op);

} // namespace mlir::lazy

#endif // LAZYC_LIB_CODEGEN_MATMULMAPS_H
