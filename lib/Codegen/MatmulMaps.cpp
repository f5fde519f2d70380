//===- MatmulMaps.cpp - Indexing maps of (batched) matmuls ----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "MatmulMaps.h"

#include "mlir/IR/AffineExpr.h"

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
