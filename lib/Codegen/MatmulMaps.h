//===- MatmulMaps.h - Indexing maps of (batched) matmuls --------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the indexing maps that lazy-fold-transpose-into-matmul
// gives a matmul reading a transposed operand in place and that
// lazy-cpu-gemm-to-blas turns into BLAS transpose flags.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_CODEGEN_MATMULMAPS_H
#define LAZYC_LIB_CODEGEN_MATMULMAPS_H

#include "mlir/IR/AffineMap.h"

namespace mlir::lazy {

/// The maps of a matmul over (m, n, k), or of a batch_matmul over
/// (b, m, n, k) with the batch first in every map: A read as (m, k), or as
/// stored transposed (k, m); B as (k, n), or (n, k); C as (m, n).
SmallVector<AffineMap, 3> matmulMaps(MLIRContext *context, bool batched,
                                     bool transposedA, bool transposedB);

} // namespace mlir::lazy

#endif // LAZYC_LIB_CODEGEN_MATMULMAPS_H
