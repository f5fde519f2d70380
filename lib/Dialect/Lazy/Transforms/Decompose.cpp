//===- Decompose.cpp - Rewrite composite lazy ops into primitives ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the `lazy-decompose` pass: a mean becomes a sum and a
// division. Softmax and log-softmax are lowered to linalg whole
// (convert-lazy-to-linalg), where their row maximum can ignore NaN.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"
#include "lazyc/Dialect/Lazy/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYDECOMPOSEPASS
#include "lazyc/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// The divisor must be a static count.
static LogicalResult requireStaticShape(PatternRewriter &rewriter,
                                        Operation *op, ShapedType type) {
  if (type.hasStaticShape())
    return success();
  return rewriter.notifyMatchFailure(op, "dynamic shapes are decomposed "
                                         "during lowering");
}

/// mean(x) = sum(x) / (number of reduced elements).
struct DecomposeMeanPattern : OpRewritePattern<ReduceMeanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceMeanOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType inputType = op.getInput().getType();
    if (failed(requireStaticShape(rewriter, op, inputType)))
      return failure();
    int64_t count = 1;
    for (int64_t axis : op.getAxes())
      count *= inputType.getDimSize(axis);
    Location loc = op.getLoc();
    Value sum = ReduceSumOp::create(rewriter, loc, op.getInput(), op.getAxes(),
                                    op.getKeepDims());
    RankedTensorType resultType = op.getType();
    auto countAttr = DenseElementsAttr::get(
        resultType,
        rewriter.getFloatAttr(resultType.getElementType(), double(count)));
    Value divisor = ConstantOp::create(rewriter, loc, countAttr);
    rewriter.replaceOpWithNewOp<DivOp>(op, sum, divisor);
    return success();
  }
};

struct LazyDecomposePass
    : mlir::lazy::impl::LazyDecomposePassBase<LazyDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateLazyDecomposePatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

void mlir::lazy::populateLazyDecomposePatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeMeanPattern>(patterns.getContext());
}
