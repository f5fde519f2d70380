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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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

/// A 1-D gather from a view whose innermost stride is not 1 (a gather from
/// a slice with a step) as one conditional load per lane: LLVM lowering
/// takes gathers from unit-stride memrefs only.
struct StridedGatherAsLoads : OpRewritePattern<vector::GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::GatherOp gather,
                                PatternRewriter &rewriter) const override {
    auto base = dyn_cast<MemRefType>(gather.getBase().getType());
    VectorType type = gather.getVectorType();
    if (!base || base.isLastDimUnitStride() || type.getRank() != 1 ||
        type.isScalable())
      return failure();
    Location loc = gather.getLoc();
    Value result = gather.getPassThru();
    SmallVector<Value> position(gather.getOffsets());
    Value offset = position.back();
    for (int64_t lane = 0, e = type.getDimSize(0); lane < e; ++lane) {
      Value enabled =
          vector::ExtractOp::create(rewriter, loc, gather.getMask(), lane);
      Value index =
          vector::ExtractOp::create(rewriter, loc, gather.getIndices(), lane);
      if (!index.getType().isIndex())
        index = arith::IndexCastOp::create(rewriter, loc,
                                           rewriter.getIndexType(), index);
      position.back() = arith::AddIOp::create(rewriter, loc, offset, index);
      Value previous = result;
      result =
          scf::IfOp::create(
              rewriter, loc, enabled,
              [&](OpBuilder &b, Location nestedLoc) {
                Value element = memref::LoadOp::create(
                    b, nestedLoc, gather.getBase(), position);
                scf::YieldOp::create(b, nestedLoc,
                                     vector::InsertOp::create(
                                         b, nestedLoc, element, previous, lane)
                                         .getResult());
              },
              [&](OpBuilder &b, Location nestedLoc) {
                scf::YieldOp::create(b, nestedLoc, previous);
              })
              .getResult(0);
    }
    rewriter.replaceOp(gather, result);
    return success();
  }
};

struct LazyScalarVectorTransfersPass
    : mlir::lazy::impl::LazyScalarVectorTransfersPassBase<
          LazyScalarVectorTransfersPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<BroadcastReadAsLoad, StridedGatherAsLoads>(&getContext());
    vector::populateVectorGatherLoweringPatterns(patterns);
    vector::populateScalarVectorTransferLoweringPatterns(
        patterns, /*benefit=*/1, /*allowMultipleUses=*/true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
