//===- Patterns.h - Shared pieces of the lazy-to-linalg lowering -*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the pattern groups of the lowering (one file each) and
// the IR-building helpers they share. Internal to LazycLazyToLinalg.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_CONVERSION_LAZYTOLINALG_PATTERNS_H
#define LAZYC_LIB_CONVERSION_LAZYTOLINALG_PATTERNS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::lazy {

void populateElementwiseLoweringPatterns(RewritePatternSet &patterns);
void populateDataMovementLoweringPatterns(RewritePatternSet &patterns);
void populateReductionLoweringPatterns(RewritePatternSet &patterns);
void populateRandomLoweringPatterns(RewritePatternSet &patterns);
void populateControlFlowLoweringPatterns(RewritePatternSet &patterns);
void populateIndexingLoweringPatterns(RewritePatternSet &patterns);
void populateScanLoweringPatterns(RewritePatternSet &patterns);

/// Builds the scalar computation of a generic's body from its block
/// arguments (inputs first, then the output).
using ScalarBodyBuilder =
    function_ref<Value(OpBuilder &, Location, ValueRange inputs)>;

/// Returns a `tensor.empty` of `type` whose dynamic sizes are taken from the
/// same dimensions of `shapeSource`.
Value createEmptyLike(OpBuilder &b, Location loc, RankedTensorType type,
                      Value shapeSource);

/// Returns a `linalg.generic` with all-parallel iterators over the shape of
/// `init` that reads `inputs` through `inputMaps` and writes `body`'s result.
Value buildParallelGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                           ArrayRef<AffineMap> inputMaps, Value init,
                           ScalarBodyBuilder body);

/// The reductions the lowering emits.
enum class ReductionKind { Sum, Max, Min };

/// Reduces `input` over `axes` (dropping them, or keeping them as size 1)
/// into a fresh accumulator initialized with the reduction's identity.
Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, ReductionKind kind,
                     bool keepDims = false);

/// The value every element of an empty reduction produces: 0, or the
/// float infinity / integer limit on the losing side.
TypedAttr reductionIdentity(OpBuilder &b, ReductionKind kind, Type element);

/// Combines two scalars of a reduction (NaN-propagating for floats).
Value combineReduction(OpBuilder &b, Location loc, ReductionKind kind,
                       Value lhs, Value rhs);

/// Reshapes `value` to `type` with tensor.collapse_shape / expand_shape (any
/// reshape with the same number of elements). The dynamic dimensions of
/// `type` take their sizes from `dynamicSizes`, in order.
Value buildReshape(OpBuilder &b, Location loc, Value value,
                   RankedTensorType type, ValueRange dynamicSizes = {});

} // namespace mlir::lazy

#endif // LAZYC_LIB_CONVERSION_LAZYTOLINALG_PATTERNS_H
