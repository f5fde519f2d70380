//===- FuseElementwise.cpp - Elementwise fusion without recomputation -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-fuse-elementwise.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYFUSEELEMENTWISEPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// A producer whose body is at most two cheap arithmetic ops (x - mean, a
/// scale, a select) costs less to recompute in each consumer than to store
/// and reload.
static bool isCheapToRecompute(Operation *producer) {
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!generic)
    return false;
  unsigned ops = 0;
  for (Operation &op : generic.getBody()->without_terminator()) {
    if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::NegFOp,
             arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::SelectOp,
             arith::CmpFOp, arith::CmpIOp, arith::MaximumFOp,
             arith::MinimumFOp>(op))
      return false;
    ++ops;
  }
  return ops <= 2;
}

/// Fuses a producer that its consumer reads each element of once: through a
/// permutation of the consumer's loops, possibly dropping loops of size 1 (a
/// keep_dims reduction's kept dimension). A producer with several uses is
/// fused only if it is cheap to recompute.
static bool fusesWithoutRecomputation(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  if (!producer || (!producer->hasOneUse() && !isCheapToRecompute(producer)))
    return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  if (!consumer)
    return false;
  AffineMap map = consumer.getMatchingIndexingMap(fused);
  if (!map.isProjectedPermutation())
    return false;
  SmallVector<int64_t> ranges = consumer.getStaticLoopRanges();
  for (unsigned loop = 0, e = map.getNumDims(); loop < e; ++loop)
    if (!map.isFunctionOfDim(loop) && ranges[loop] != 1)
      return false;
  return true;
}

namespace {
struct LazyFuseElementwisePass
    : mlir::lazy::impl::LazyFuseElementwisePassBase<LazyFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 fusesWithoutRecomputation);
    linalg::populateConstantFoldLinalgOperations(patterns,
                                                 fusesWithoutRecomputation);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
