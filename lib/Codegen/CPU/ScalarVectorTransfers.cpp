//===- ScalarVectorTransfers.cpp - One-element transfers as loads ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-scalar-vector-transfers.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYSCALARVECTORTRANSFERSPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
/// A read whose every vector dimension broadcasts (permutation map results
/// all 0) reads one element: a load and a vector.broadcast.
struct BroadcastReadAsLoad : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    if (!isa<MemRefType>(read.getBase().getType()) || read.getMask())
      return failure();
    bool broadcastsOnly =
        llvm::all_of(read.getPermutationMap().getResults(), [](AffineExpr e) {
          auto constant = dyn_cast<AffineConstantExpr>(e);
          return constant && constant.getValue() == 0;
        });
    if (!broadcastsOnly)
      return failure();
    Value element = memref::LoadOp::create(rewriter, read.getLoc(),
                                           read.getBase(), read.getIndices());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(read, read.getVectorType(),
                                                     element);
    return success();
  }
};

struct LazyScalarVectorTransfersPass
    : mlir::lazy::impl::LazyScalarVectorTransfersPassBase<
          LazyScalarVectorTransfersPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<BroadcastReadAsLoad>(&getContext());
    vector::populateScalarVectorTransferLoweringPatterns(
        patterns, /*benefit=*/1, /*allowMultipleUses=*/true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
