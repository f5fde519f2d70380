//===- ExactNarrowFloats.cpp - Rounding of emulated f16/bf16 ops ----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-exact-narrow-floats.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYEXACTNARROWFLOATSPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// Whether every float of `attribute` (a scalar or dense constant) is a
/// value of the float type `narrow`.
static bool holdsNarrowValues(Attribute attribute, Type narrow) {
  auto isNarrow = [&](APFloat value) {
    bool losesInfo = false;
    value.convert(cast<FloatType>(narrow).getFloatSemantics(),
                  APFloat::rmNearestTiesToEven, &losesInfo);
    return !losesInfo;
  };
  if (auto scalar = dyn_cast<FloatAttr>(attribute))
    return isNarrow(scalar.getValue());
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attribute))
    return llvm::all_of(dense.getValues<APFloat>(), isNarrow);
  return false;
}

/// Whether `value` (a wide float) is always a value of `narrow`, the float
/// type it is rounded to: a narrow value widened, a constant of narrow
/// values, or what negation, absolute value, min, max and select make of
/// such values. Rounding it to
/// `narrow` changes nothing (but a NaN's sign and payload, which the
/// rounding would make the quiet NaN's).
static bool isNarrowValue(Value value, Type narrow, int depth = 0) {
  if (depth > 8)
    return false;
  Operation *op = value.getDefiningOp();
  if (!op)
    return false;
  if (auto ext = dyn_cast<arith::ExtFOp>(op))
    return getElementTypeOrSelf(ext.getIn().getType()) == narrow;
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return holdsNarrowValues(constant.getValue(), narrow);
  if (isa<arith::NegFOp, math::AbsFOp>(op))
    return isNarrowValue(op->getOperand(0), narrow, depth + 1);
  if (isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
          arith::MinNumFOp>(op))
    return isNarrowValue(op->getOperand(0), narrow, depth + 1) &&
           isNarrowValue(op->getOperand(1), narrow, depth + 1);
  if (auto select = dyn_cast<arith::SelectOp>(op))
    return isNarrowValue(select.getTrueValue(), narrow, depth + 1) &&
           isNarrowValue(select.getFalseValue(), narrow, depth + 1);
  return false;
}

namespace {
struct LazyExactNarrowFloatsPass
    : mlir::lazy::impl::LazyExactNarrowFloatsPassBase<
          LazyExactNarrowFloatsPass> {
  void runOnOperation() override {
    // Without `contract`, extf(truncf(x)) no longer folds to x: each
    // emulated op keeps its rounding to f16 / bf16.
    SmallVector<arith::ExtFOp> exact;
    getOperation()->walk([&](Operation *op) {
      if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
        ext->removeAttr(ext.getFastmathAttrName());
        // The rounding of an op whose result is a narrow value anyway
        // (a negation, a max, a select of narrow values) can go.
        auto trunc = ext.getIn().getDefiningOp<arith::TruncFOp>();
        if (trunc && trunc.getIn().getType() == ext.getType() &&
            isNarrowValue(trunc.getIn(), getElementTypeOrSelf(trunc.getType())))
          exact.push_back(ext);
      } else if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
        trunc->removeAttr(trunc.getFastmathAttrName());
      }
    });
    for (arith::ExtFOp ext : exact) {
      ext.getResult().replaceAllUsesWith(
          ext.getIn().getDefiningOp<arith::TruncFOp>().getIn());
      ext.erase();
    }
  }
};
} // namespace
