//===- MatmulMaps.cpp - Indexing maps of (batched) matmuls ----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "MatmulMaps.h"

#include "lazyc/Runtime/Runtime.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

SmallVector<AffineMap, 3> lazy::matmulMaps(MLIRContext *context, bool batched,
                                           bool transposedA, bool transposedB) {
  unsigned dims = batched ? 4 : 3;
  AffineExpr m = getAffineDimExpr(dims - 3, context),
             n = getAffineDimExpr(dims - 2, context),
             k = getAffineDimExpr(dims - 1, context);
  auto map = [&](AffineExpr rows, AffineExpr columns) {
    SmallVector<AffineExpr, 3> results;
    if (batched)
      results.push_back(getAffineDimExpr(0, context));
    results.append({rows, columns});
    return AffineMap::get(dims, 0, results, context);
  };
  return {transposedA ? map(k, m) : map(m, k),
          transposedB ? map(n, k) : map(k, n), map(m, n)};
}

std::optional<int32_t> lazy::gemmTransposeFlags(linalg::LinalgOp op) {
  bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (int32_t flags = 0;
       flags <= (LAZYRT_GEMM_TRANSPOSE_A | LAZYRT_GEMM_TRANSPOSE_B); ++flags)
    if (ArrayRef<AffineMap>(maps) ==
        ArrayRef<AffineMap>(matmulMaps(op.getContext(), batched,
                                       flags & LAZYRT_GEMM_TRANSPOSE_A,
                                       flags & LAZYRT_GEMM_TRANSPOSE_B)))
      return flags;
  return std::nullopt;
}

linalg::FillOp lazy::zeroFillBefore(linalg::LinalgOp op) {
  Value output = op.getDpsInitOperand(0)->get();
  Operation *previous = op->getPrevNode();
  while (previous && !isa<linalg::FillOp>(previous) &&
         isMemoryEffectFree(previous))
    previous = previous->getPrevNode();
  auto fill = dyn_cast_or_null<linalg::FillOp>(previous);
  if (fill && fill.getDpsInitOperand(0)->get() == output &&
      matchPattern(fill.getDpsInputOperand(0)->get(), m_PosZeroFloat()))
    return fill;
  return nullptr;
}
