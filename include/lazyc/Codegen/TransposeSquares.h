//===- TransposeSquares.h - Transposes through registers --------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazy-cpu-tile-and-vectorize moves a transpose of 32-bit values through
// registers in square tiles when both swapped dimensions are multiples of
// the square's side; lazy-fold-transpose-into-matmul keeps such transposes
// of a product's right operand, which are then cheap next to the product.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_CODEGEN_TRANSPOSESQUARES_H
#define LAZYC_CODEGEN_TRANSPOSESQUARES_H

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::lazy {

/// The side of the squares: 16 rows of 16 32-bit values, transposed by
/// AVX-512's unpacks and lane shuffles (VectorTransposeLowering::
/// Shuffle16x16).
inline constexpr int64_t kTransposeSquare = 16;

/// Whether a transpose of 32-bit `element`s swapping dimensions of `sizes`
/// (static, else false) moves through registers in squares.
inline bool transposesInSquares(Type element, ArrayRef<int64_t> sizes) {
  return element.isIntOrFloat() && element.getIntOrFloatBitWidth() == 32 &&
         llvm::all_of(sizes, [](int64_t size) {
           return !ShapedType::isDynamic(size) && size % kTransposeSquare == 0;
         });
}

} // namespace mlir::lazy

#endif // LAZYC_CODEGEN_TRANSPOSESQUARES_H
