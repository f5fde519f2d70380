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

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYEXPANDBFLOAT16PASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyExpandBFloat16Pass
    : mlir::lazy::impl::LazyExpandBFloat16PassBase<LazyExpandBFloat16Pass> {
  void runOnOperation() override {
    // The patterns rewrite conversions to and from bf16; without one, a
    // rewrite driver's walk of a large trace is time for nothing.
    auto isBFloat16 = [](Type type) {
      return getElementTypeOrSelf(type).isBF16();
    };
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
