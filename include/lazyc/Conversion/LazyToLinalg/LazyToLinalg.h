//===- LazyToLinalg.h - Lower lazy ops to linalg on tensors -----*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the patterns that lower `lazy` ops to linalg, tensor,
// arith and math on tensors.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_CONVERSION_LAZYTOLINALG_LAZYTOLINALG_H
#define LAZYC_CONVERSION_LAZYTOLINALG_LAZYTOLINALG_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::lazy {

/// Adds the patterns lowering every `lazy` op to upstream ops on tensors.
void populateLazyToLinalgConversionPatterns(RewritePatternSet &patterns);

} // namespace mlir::lazy

#endif // LAZYC_CONVERSION_LAZYTOLINALG_LAZYTOLINALG_H
