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

#include "mlir/Dialect/Arith/IR/Arith.h"
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

//===----------------------------------------------------------------------===//
// Integer signedness
//===----------------------------------------------------------------------===//
//
// The lazy types carry signedness (`ui8` is unsigned, `i1` orders
// false < true, the signless `i8`, `i32`, `i64` are signed). The patterns
// build scalar code on the lazy element types, and every integer op whose
// choice depends on signedness comes from the helpers below, which read it
// from the type. The pass then makes every integer type signless
// (makeIntegersSignless), as arith requires: until then the scalar code it
// built is not valid IR.

/// Whether `type`'s integers (a scalar or a tensor of them) are unsigned:
/// `ui8` and `i1`.
bool isUnsignedInteger(Type type);

/// `signedPredicate` (slt, sle, sgt, sge, eq, ne) for integers of `type`:
/// the unsigned predicate for unsigned ones.
arith::CmpIPredicate integerPredicate(arith::CmpIPredicate signedPredicate,
                                      Type type);

/// maxsi/maxui, minsi/minui, divsi/divui and remsi/remui by `lhs`'s type.
Value createIntegerMax(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value createIntegerMin(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value createIntegerDivision(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value createIntegerRemainder(OpBuilder &b, Location loc, Value lhs, Value rhs);

/// Integer `x` as float type `to`: sitofp, or uitofp for unsigned integers.
Value createIntegerToFloat(OpBuilder &b, Location loc, Type to, Value x);

/// Integer `x` as integer type `to` of another width or signedness:
/// extended by `x`'s signedness (extui, extsi), truncated, or the same bits.
Value createIntegerResize(OpBuilder &b, Location loc, Type to, Value x);

/// The smallest (`maximum` false) or largest value of integer `type`.
APInt integerLimit(Type type, bool maximum);

/// Makes every integer type under `root` signless (`ui8` to `i8`): value,
/// block argument and function types and attributes (constants).
void makeIntegersSignless(Operation *root);

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

/// The reductions the lowering emits. MaxNum is a float max whose result
/// for a NaN operand does not matter (`fastmath<nnan>`) and that need not
/// order -0 before +0: a softmax's shift, where a NaN in the row makes the
/// sum NaN whatever the max is.
enum class ReductionKind { Sum, Max, Min, MaxNum };

/// Reduces `input` over `axes` (dropping them, or keeping them as size 1)
/// into a fresh accumulator initialized with the reduction's identity.
Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, ReductionKind kind,
                     bool keepDims = false);

/// The value every element of an empty reduction produces: 0, or the
/// float infinity / integer limit on the losing side.
TypedAttr reductionIdentity(OpBuilder &b, ReductionKind kind, Type element);

/// Combines two scalars of a reduction (NaN-propagating for floats, but
/// for MaxNum, whose combiner is `arith.maxnumf fastmath<nnan>`).
Value combineReduction(OpBuilder &b, Location loc, ReductionKind kind,
                       Value lhs, Value rhs);

/// Reshapes `value` to `type` with tensor.collapse_shape / expand_shape (any
/// reshape with the same number of elements). The dynamic dimensions of
/// `type` take their sizes from `dynamicSizes`, in order.
Value buildReshape(OpBuilder &b, Location loc, Value value,
                   RankedTensorType type, ValueRange dynamicSizes = {});

} // namespace mlir::lazy

#endif // LAZYC_LIB_CONVERSION_LAZYTOLINALG_PATTERNS_H
