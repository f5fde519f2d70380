//===- UnitVectorDims.cpp - Vectors without unit dimensions ---------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-drop-unit-vector-dims.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYDROPUNITVECTORDIMSPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyDropUnitVectorDimsPass
    : mlir::lazy::impl::LazyDropUnitVectorDimsPassBase<
          LazyDropUnitVectorDimsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    vector::populateDropUnitDimWithShapeCastPatterns(patterns);
    // The shape casts they insert between ops cancel out.
    vector::ShapeCastOp::getCanonicalizationPatterns(patterns, context);
    vector::BroadcastOp::getCanonicalizationPatterns(patterns, context);
    vector::ExtractOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
