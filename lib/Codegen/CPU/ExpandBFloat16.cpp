//===- ExpandBFloat16.cpp - Integer code for bf16 conversions -------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-expand-bf16.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYEXPANDBFLOAT16PASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// Rewrites an integer-to-bf16 conversion (a Bool mask cast to bf16, as a
/// relu's gradient makes) into a conversion to f32, exact for integers of
/// up to 24 bits, and a truncf to bf16, which the expansion below turns
/// into integer code; LLVM would call a routine per element. Wider
/// integers are left alone: going through f32 would round twice.
static void convertSmallIntegersThroughF32(Operation *root) {
  SmallVector<Operation *> conversions;
  root->walk([&](Operation *op) {
    if (!isa<arith::UIToFPOp, arith::SIToFPOp>(op) ||
        !getElementTypeOrSelf(op->getResult(0).getType()).isBF16())
      return;
    unsigned width = getElementTypeOrSelf(op->getOperand(0).getType())
                         .getIntOrFloatBitWidth();
    if (width <= (isa<arith::SIToFPOp>(op) ? 25u : 24u))
      conversions.push_back(op);
  });
  for (Operation *op : conversions) {
    OpBuilder b(op);
    Type bf16 = op->getResult(0).getType();
    Type f32 = b.getF32Type();
    if (auto vector = dyn_cast<VectorType>(bf16))
      f32 = vector.clone(f32);
    Value wide =
        isa<arith::UIToFPOp>(op)
            ? arith::UIToFPOp::create(b, op->getLoc(), f32, op->getOperand(0))
                  .getResult()
            : arith::SIToFPOp::create(b, op->getLoc(), f32, op->getOperand(0))
                  .getResult();
    Value narrow = arith::TruncFOp::create(b, op->getLoc(), bf16, wide);
    op->getResult(0).replaceAllUsesWith(narrow);
    op->erase();
  }
}

namespace {
struct LazyExpandBFloat16Pass
    : mlir::lazy::impl::LazyExpandBFloat16PassBase<LazyExpandBFloat16Pass> {
  void runOnOperation() override {
    // The patterns rewrite conversions to and from bf16; without one, a
    // rewrite driver's walk of a large trace is time for nothing.
    auto isBFloat16 = [](Type type) {
      return getElementTypeOrSelf(type).isBF16();
    };
    convertSmallIntegersThroughF32(getOperation());
    WalkResult found = getOperation()->walk([&](Operation *op) {
      if (isa<arith::ExtFOp, arith::TruncFOp>(op) &&
          (isBFloat16(op->getOperand(0).getType()) ||
           isBFloat16(op->getResult(0).getType())))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (!found.wasInterrupted())
      return;
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
