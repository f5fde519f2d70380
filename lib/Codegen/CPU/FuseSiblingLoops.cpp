//===- FuseSiblingLoops.cpp - One loop for a slice and its reader ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-cpu-fuse-sibling-loops.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYCPUFUSESIBLINGLOOPSPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// Whether `read` (in `second`'s body) reads the slice that `write` (in
/// `first`'s body) inserted in the same step, and no other step of `first`
/// overwrites: offsets are the induction variable in one dimension, of the
/// step's size, and the same loop invariants elsewhere; sizes static, unit
/// strides.
static bool readsSliceWrittenInSameStep(tensor::InsertSliceOp write,
                                        scf::ForOp first,
                                        tensor::ExtractSliceOp read,
                                        scf::ForOp second) {
  if (write.getSourceType() != read.getResultType() ||
      write.getStaticSizes() != read.getStaticSizes() ||
      ShapedType::isDynamicShape(write.getStaticSizes()) ||
      !write.hasUnitStride() || !read.hasUnitStride())
    return false;
  std::optional<int64_t> step = getConstantIntValue(first.getStep());
  if (!step)
    return false;
  bool stepsThroughSlices = false;
  for (auto [d, writeOffset, readOffset] :
       llvm::enumerate(write.getMixedOffsets(), read.getMixedOffsets())) {
    auto writeValue = dyn_cast<Value>(writeOffset);
    auto readValue = dyn_cast<Value>(readOffset);
    if (writeValue == first.getInductionVar() ||
        readValue == second.getInductionVar()) {
      if (writeValue != first.getInductionVar() ||
          readValue != second.getInductionVar() ||
          write.getStaticSizes()[d] != *step)
        return false;
      stepsThroughSlices = true;
      continue;
    }
    if (writeValue && !first.isDefinedOutsideOfLoop(writeValue))
      return false;
    if (!isEqualConstantIntOrValue(writeOffset, readOffset))
      return false;
  }
  return stepsThroughSlices;
}

/// Fuses `second` into `first`, its earlier sibling, when `second` reads
/// `first`'s results only as the slices `first` wrote in the same step.
/// Returns the fused loop.
static FailureOr<scf::ForOp> fuseSiblings(RewriterBase &rewriter,
                                          scf::ForOp first, scf::ForOp second) {
  if (!isEqualConstantIntOrValue(first.getLowerBound(),
                                 second.getLowerBound()) ||
      !isEqualConstantIntOrValue(first.getUpperBound(),
                                 second.getUpperBound()) ||
      !isEqualConstantIntOrValue(first.getStep(), second.getStep()) ||
      first.getUnsignedCmp() != second.getUnsignedCmp() ||
      !isMemoryEffectFree(first) || !isMemoryEffectFree(second))
    return failure();

  // Each slice `second` reads of `first`'s results, and the value `first`
  // inserted there.
  SmallVector<std::pair<tensor::ExtractSliceOp, Value>> forwarded;
  auto yield = cast<scf::YieldOp>(first.getBody()->getTerminator());
  for (auto [i, result] : llvm::enumerate(first.getResults())) {
    for (OpOperand &use : result.getUses()) {
      Operation *user = use.getOwner();
      // Users after `second` read the fused loop's results; any other
      // user but `second`'s slices (an op between the loops) stops the
      // fusion.
      Operation *inBlock = second->getBlock()->findAncestorOpInBlock(*user);
      if (inBlock && second->isBeforeInBlock(inBlock))
        continue;
      auto read = dyn_cast<tensor::ExtractSliceOp>(user);
      if (!read || read->getBlock() != second.getBody())
        return failure();
      auto write = yield.getOperand(i).getDefiningOp<tensor::InsertSliceOp>();
      if (!write || write->getBlock() != first.getBody() ||
          write.getDest() != first.getRegionIterArgs()[i] ||
          !readsSliceWrittenInSameStep(write, first, read, second))
        return failure();
      forwarded.emplace_back(read, write.getSource());
    }
  }
  if (forwarded.empty())
    return failure();

  rewriter.setInsertionPoint(second);
  unsigned numFirst = first.getNumResults();
  SmallVector<Value> inits(first.getInitArgs());
  llvm::append_range(inits, second.getInitArgs());
  auto fused = scf::ForOp::create(
      rewriter, first.getLoc(), first.getLowerBound(), first.getUpperBound(),
      first.getStep(), inits,
      [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
        IRMapping mapping;
        mapping.map(first.getInductionVar(), iv);
        mapping.map(first.getRegionIterArgs(), args.take_front(numFirst));
        mapping.map(second.getInductionVar(), iv);
        mapping.map(second.getRegionIterArgs(), args.drop_front(numFirst));
        for (Operation &op : first.getBody()->without_terminator())
          b.clone(op, mapping);
        llvm::SmallPtrSet<Operation *, 4> reads;
        for (auto [read, written] : forwarded) {
          mapping.map(read.getResult(), mapping.lookupOrDefault(written));
          reads.insert(read);
        }
        for (Operation &op : second.getBody()->without_terminator())
          if (!reads.contains(&op))
            b.clone(op, mapping);
        SmallVector<Value> yielded;
        for (scf::ForOp loop : {first, second})
          for (Value value : loop.getBody()->getTerminator()->getOperands())
            yielded.push_back(mapping.lookupOrDefault(value));
        scf::YieldOp::create(b, loc, yielded);
      },
      first.getUnsignedCmp());
  rewriter.replaceOp(second, fused.getResults().drop_front(numFirst));
  rewriter.replaceOp(first, fused.getResults().take_front(numFirst));
  return fused;
}

namespace {
struct LazyCpuFuseSiblingLoopsPass
    : mlir::lazy::impl::LazyCpuFuseSiblingLoopsPassBase<
          LazyCpuFuseSiblingLoopsPass> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) { blocks.push_back(block); });
    IRRewriter rewriter(&getContext());
    for (Block *block : blocks) {
      // Each loop with the next loop of its block (fuseSiblings refuses
      // when an op between them reads the first, which then cannot move
      // down past it); a fused loop tries the loop after it in turn.
      for (auto it = block->begin(); it != block->end();) {
        auto first = dyn_cast<scf::ForOp>(&*it);
        if (!first) {
          ++it;
          continue;
        }
        scf::ForOp second;
        for (Operation *op = first->getNextNode(); op && !second;
             op = op->getNextNode())
          second = dyn_cast<scf::ForOp>(op);
        FailureOr<scf::ForOp> fused = failure();
        if (second)
          fused = fuseSiblings(rewriter, first, second);
        it = succeeded(fused) ? fused->getOperation()->getIterator()
                              : std::next(first->getIterator());
      }
    }
  }
};
} // namespace
