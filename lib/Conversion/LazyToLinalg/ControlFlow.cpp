//===- ControlFlow.cpp - lazy.if and lazy.while to scf --------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazy.if becomes scf.if and lazy.while scf.while, with their regions moved
// over (their ops are converted in place, so fusion and tiling later see
// linalg inside the scf regions). A 0-d i1 predicate is read with
// tensor.extract; lazy.yield becomes scf.yield, or scf.condition at the end
// of a loop's condition region.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {

Value readPredicate(OpBuilder &b, Location loc, Value predicate) {
  return tensor::ExtractOp::create(b, loc, predicate, ValueRange{});
}

struct IfLowering : OpConversionPattern<IfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ifOp =
        scf::IfOp::create(rewriter, loc, op.getResultTypes(),
                          readPredicate(rewriter, loc, adaptor.getCondition()),
                          /*addThenBlock=*/false, /*addElseBlock=*/false);
    rewriter.inlineRegionBefore(op.getThenRegion(), ifOp.getThenRegion(),
                                ifOp.getThenRegion().end());
    rewriter.inlineRegionBefore(op.getElseRegion(), ifOp.getElseRegion(),
                                ifOp.getElseRegion().end());
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

struct WhileLowering : OpConversionPattern<WhileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WhileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The generic builder: empty regions, which the lazy ones replace.
    auto whileOp =
        scf::WhileOp::create(rewriter, op.getLoc(), op.getResultTypes(),
                             adaptor.getInits(), ArrayRef<NamedAttribute>{});
    rewriter.inlineRegionBefore(op.getCondition(), whileOp.getBefore(),
                                whileOp.getBefore().end());
    rewriter.inlineRegionBefore(op.getBody(), whileOp.getAfter(),
                                whileOp.getAfter().end());
    rewriter.replaceOp(op, whileOp.getResults());
    return success();
  }
};

struct YieldLowering : OpConversionPattern<YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *parent = op->getParentOp();
    if (auto whileOp = dyn_cast<scf::WhileOp>(parent);
        whileOp && op->getParentRegion() == &whileOp.getBefore()) {
      Value more = readPredicate(rewriter, op.getLoc(), adaptor.getValues()[0]);
      rewriter.replaceOpWithNewOp<scf::ConditionOp>(
          op, more, whileOp.getBefore().front().getArguments());
      return success();
    }
    if (!isa<scf::IfOp, scf::WhileOp>(parent))
      return rewriter.notifyMatchFailure(op, "parent not lowered yet");
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, adaptor.getValues());
    return success();
  }
};

} // namespace

void mlir::lazy::populateControlFlowLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<IfLowering, WhileLowering, YieldLowering>(patterns.getContext());
}
