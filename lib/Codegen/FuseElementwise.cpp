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
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

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
/// fused only if it is cheap to recompute, or with `multipleUses` (the
/// fused op then keeps its result for the other uses).
static bool fusesWithoutRecomputation(OpOperand *fused,
                                      bool multipleUses = false) {
  Operation *producer = fused->get().getDefiningOp();
  if (!producer || (!multipleUses && !producer->hasOneUse() &&
                    !isCheapToRecompute(producer)))
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

/// Whether `user` (in `consumer`'s block or nested in an op there) comes
/// after `consumer`, so it can read a result of an op put in its place.
static bool comesAfter(Operation *consumer, Operation *user) {
  Operation *ancestor = consumer->getBlock()->findAncestorOpInBlock(*user);
  return ancestor && ancestor != consumer &&
         consumer->isBeforeInBlock(ancestor);
}

namespace {
/// Fuses an elementwise producer with several uses into an elementwise
/// consumer when its result must be stored anyway (a function result, the
/// input of a matmul or a reduction, ...): the fused op computes it once,
/// stores it as an extra result, and uses it directly. Its other users read
/// that result. (Upstream's fusion keeps the producer for them, so the
/// consumer recomputes it: a training step's new velocity, which is both a
/// result and the input of the weight update, cost a second pass over
/// memory, and kept the weight gradient's GEMM from fusing with its only
/// consumer.)
struct FuseStoredProducer : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (!consumer.hasPureTensorSemantics() ||
        consumer.getNumParallelLoops() != consumer.getNumLoops())
      return failure();
    for (OpOperand *operand : consumer.getDpsInputOperands()) {
      auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
      // (A consumer reading it twice, x + x, would still read it.)
      if (!producer || producer->hasOneUse() ||
          llvm::count_if(consumer->getOperands(),
                         [&](Value value) {
                           return value.getDefiningOp() == producer;
                         }) != 1 ||
          !linalg::areElementwiseOpsFusable(operand) ||
          !fusesWithoutRecomputation(operand, /*multipleUses=*/true))
        continue;
      // Ops the driver has not erased yet (a consumer fused a moment ago)
      // are not users.
      llvm::SetVector<Operation *> deadUsers;
      bool stored = false, otherUsersAfter = true;
      for (OpOperand &use : producer->getUses()) {
        Operation *user = use.getOwner();
        if (user == consumer.getOperation())
          continue;
        if (isOpTriviallyDead(user)) {
          deadUsers.insert(user);
          continue;
        }
        stored |= !isa<linalg::GenericOp>(user) ||
                  cast<linalg::GenericOp>(user).getNumReductionLoops() > 0;
        otherUsersAfter &= comesAfter(consumer, user);
      }
      if (!stored || !otherUsersAfter)
        continue;
      for (Operation *dead : deadUsers)
        rewriter.eraseOp(dead);
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, operand);
      if (failed(fused))
        return success(!deadUsers.empty());
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }
};

struct LazyFuseElementwisePass
    : mlir::lazy::impl::LazyFuseElementwisePassBase<LazyFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<FuseStoredProducer>(context, /*benefit=*/2);
    linalg::populateElementwiseOpsFusionPatterns(
        patterns,
        [](OpOperand *fused) { return fusesWithoutRecomputation(fused); });
    linalg::populateConstantFoldLinalgOperations(
        patterns,
        [](OpOperand *fused) { return fusesWithoutRecomputation(fused); });
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
