//===- Decompose.cpp - Rewrite composite lazy ops into primitives ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the `lazy-decompose` pass: softmax, log-softmax and
// mean become reductions, broadcasts and elementwise ops.
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

/// The pieces softmax and log-softmax share: `shifted = x - max(x)` and
/// `sum(exp(shifted))` broadcast back to the input shape.
struct StableExpSum {
  Value shifted;
  Value exp;
  Value sum;
};

/// Builds the numerically stable exponent sum along `axis` of `input`.
static StableExpSum buildStableExpSum(PatternRewriter &rewriter, Location loc,
                                      Value input, int64_t axis) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> axes = {axis};
  Value max = ReduceMaxOp::create(rewriter, loc, input, axes,
                                  /*keep_dims=*/true);
  Value maxBroadcast = BroadcastOp::create(rewriter, loc, max, type.getShape());
  Value shifted = SubOp::create(rewriter, loc, input, maxBroadcast);
  Value exp = ExpOp::create(rewriter, loc, shifted);
  Value sum = ReduceSumOp::create(rewriter, loc, exp, axes, /*keep_dims=*/true);
  Value sumBroadcast = BroadcastOp::create(rewriter, loc, sum, type.getShape());
  return {shifted, exp, sumBroadcast};
}

/// Broadcasts need static target shapes.
static LogicalResult requireStaticShape(PatternRewriter &rewriter,
                                        Operation *op, ShapedType type) {
  if (type.hasStaticShape())
    return success();
  return rewriter.notifyMatchFailure(op, "dynamic shapes are decomposed "
                                         "during lowering");
}

/// softmax(x) = exp(x - max) / sum(exp(x - max)).
struct DecomposeSoftmaxPattern : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShape(rewriter, op, op.getType())))
      return failure();
    StableExpSum parts = buildStableExpSum(rewriter, op.getLoc(), op.getInput(),
                                           op.getAxisAttr().getInt());
    rewriter.replaceOpWithNewOp<DivOp>(op, parts.exp, parts.sum);
    return success();
  }
};

/// log_softmax(x) = (x - max) - log(sum(exp(x - max))).
struct DecomposeLogSoftmaxPattern : OpRewritePattern<LogSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LogSoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShape(rewriter, op, op.getType())))
      return failure();
    StableExpSum parts = buildStableExpSum(rewriter, op.getLoc(), op.getInput(),
                                           op.getAxisAttr().getInt());
    Value logSum = LogOp::create(rewriter, op.getLoc(), parts.sum);
    rewriter.replaceOpWithNewOp<SubOp>(op, parts.shifted, logSum);
    return success();
  }
};

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
  patterns.add<DecomposeSoftmaxPattern, DecomposeLogSoftmaxPattern,
               DecomposeMeanPattern>(patterns.getContext());
}
