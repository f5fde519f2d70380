//===- AccumulateInRegisters.cpp - Kernel loops that sum in registers -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-gpu-accumulate-in-registers.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/GPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPUACCUMULATEINREGISTERSPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// Whether `buffer`, or a buffer made from it (a view, a cast), is used in
/// `loop` by an op other than `load` and `store`.
static bool usedInLoopBesides(Value buffer, scf::ForOp loop, Operation *load,
                              Operation *store) {
  for (Operation *user : buffer.getUsers()) {
    if (user == load || user == store)
      continue;
    if (loop->isAncestor(user))
      return true;
    for (Value result : user->getResults())
      if (isa<BaseMemRefType>(result.getType()) &&
          usedInLoopBesides(result, loop, nullptr, nullptr))
        return true;
  }
  return false;
}

/// Keeps one element that `loop` loads and stores back each iteration (a
/// reduction's accumulator) in a loop-carried value: loaded before the loop,
/// stored after it. Only for a buffer the function allocated, which nothing
/// but its own views can alias, and which nothing else in the loop touches;
/// and only in a loop without a barrier, where no other thread may read the
/// element before the loop ends. Returns the new loop, or null if there is
/// no such element.
static scf::ForOp promoteOneAccumulator(IRRewriter &rewriter, scf::ForOp loop) {
  if (loop->walk([](Operation *op) {
            return isa<gpu::BarrierOp, gpu::AllReduceOp>(op)
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted())
    return nullptr;
  for (Operation &op : *loop.getBody()) {
    auto store = dyn_cast<memref::StoreOp>(op);
    if (!store || !store.getMemRef().getDefiningOp<memref::AllocOp>() ||
        !llvm::all_of(store.getIndices(), [&](Value index) {
          return loop.isDefinedOutsideOfLoop(index);
        }))
      continue;
    memref::LoadOp load;
    for (Operation *user : store.getMemRef().getUsers())
      if (auto candidate = dyn_cast<memref::LoadOp>(user);
          candidate && candidate->getBlock() == loop.getBody() &&
          candidate->isBeforeInBlock(store) &&
          llvm::equal(candidate.getIndices(), store.getIndices()))
        load = candidate;
    if (!load || usedInLoopBesides(store.getMemRef(), loop, load, store))
      continue;

    Location loc = store.getLoc();
    Value buffer = store.getMemRef();
    SmallVector<Value> indices(store.getIndices());
    rewriter.setInsertionPoint(loop);
    Value initial = memref::LoadOp::create(rewriter, loc, buffer, indices);
    Value next = store.getValueToStore();
    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{next};
        });
    if (failed(replaced))
      return nullptr;
    auto newLoop = cast<scf::ForOp>(replaced->getOperation());
    rewriter.replaceOp(load, newLoop.getRegionIterArgs().back());
    rewriter.eraseOp(store);
    rewriter.setInsertionPointAfter(newLoop);
    memref::StoreOp::create(rewriter, loc, newLoop.getResults().back(), buffer,
                            indices);
    return newLoop;
  }
  return nullptr;
}

namespace {
struct LazyGpuAccumulateInRegistersPass
    : mlir::lazy::impl::LazyGpuAccumulateInRegistersPassBase<
          LazyGpuAccumulateInRegistersPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Inner loops first: their accumulators then sit in the outer loop's
    // body, which may carry them in turn.
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->getParentOfType<gpu::LaunchOp>())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      while (scf::ForOp next = promoteOneAccumulator(rewriter, loop))
        loop = next;
  }
};
} // namespace
