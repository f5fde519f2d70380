//===- MapToKernels.cpp - Loop nests of the host function as kernels ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-gpu-map-to-kernels.
//
//===----------------------------------------------------------------------===//

#include "Launch.h"

#include "lazyc/Codegen/GPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPUMAPTOKERNELSPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using mlir::lazy::createLaunch;
using mlir::lazy::kHostBufferAttr;

/// Whether `op`, or an op in its regions, reads or writes the contents of a
/// buffer (allocating or freeing one does not count).
static bool touchesBufferContents(Operation *op) {
  WalkResult result = op->walk([](Operation *inner) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!effects)
      return WalkResult::advance();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &instance : instances) {
      if (!isa<MemoryEffects::Read, MemoryEffects::Write>(instance.getEffect()))
        continue;
      Value value = instance.getValue();
      if (value && isa<BaseMemRefType>(value.getType()))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `op` must stay on the host and be searched for kernels: it
/// contains a parallel loop, a call (of the runtime: the host function's
/// output-shape checks) or an allocation (a while loop's body making the
/// buffers of its next iteration).
static bool isHostControlFlow(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return isa<scf::ParallelOp, func::CallOp, memref::AllocOp,
                   memref::DeallocOp>(inner)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

static bool isContiguous(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  return type.getLayout().isIdentity();
}

/// Replaces `copy` with the loop nest that copies element by element.
static scf::ParallelOp copyLoop(memref::CopyOp copy) {
  Location loc = copy.getLoc();
  OpBuilder builder(copy);
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto type = cast<MemRefType>(copy.getTarget().getType());
  SmallVector<Value> lowers(type.getRank(), zero), steps(type.getRank(), one),
      uppers;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    uppers.push_back(
        memref::DimOp::create(builder, loc, copy.getTarget(), dim));
  auto loop = scf::ParallelOp::create(
      builder, loc, lowers, uppers, steps,
      [&](OpBuilder &inner, Location loc, ValueRange indices) {
        Value element =
            memref::LoadOp::create(inner, loc, copy.getSource(), indices);
        memref::StoreOp::create(inner, loc, element, copy.getTarget(), indices);
      });
  copy.erase();
  return loop;
}

namespace {
struct LazyGpuMapToKernelsPass
    : mlir::lazy::impl::LazyGpuMapToKernelsPassBase<LazyGpuMapToKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (threadsPerBlock < 1 || threadsPerBlock > 1024) {
      getOperation().emitError("threads-per-block must be in [1, 1024], not ")
          << threadsPerBlock;
      return signalPassFailure();
    }
    for (Block &block : getOperation().getBody())
      if (failed(mapBlock(block)))
        return signalPassFailure();
  }

  /// Maps the loop nests of a host block (and of host control flow in it)
  /// to kernels.
  LogicalResult mapBlock(Block &block) {
    SmallVector<Operation *> serial;
    auto flushSerial = [&]() -> LogicalResult {
      LogicalResult result = success();
      if (!serial.empty())
        result = mapToOneThread(serial);
      serial.clear();
      return result;
    };
    for (Operation &op : llvm::make_early_inc_range(block)) {
      // A kernel already (lazy-gpu-row-kernels).
      if (isa<gpu::LaunchOp>(op)) {
        if (failed(flushSerial()))
          return failure();
        continue;
      }
      if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        if (failed(flushSerial()) || failed(mapParallelLoop(loop)))
          return failure();
        continue;
      }
      if (isHostControlFlow(&op)) {
        if (failed(flushSerial()))
          return failure();
        for (Region &region : op.getRegions())
          for (Block &inner : region)
            if (failed(mapBlock(inner)))
              return failure();
        continue;
      }
      if (touchesBufferContents(&op)) {
        // Copies between whole buffers stay on the host (lazy-gpu-device-
        // buffers makes them device copies); strided ones (into a slice of
        // a concatenation, ...) become kernels.
        if (auto copy = dyn_cast<memref::CopyOp>(op)) {
          if (failed(flushSerial()))
            return failure();
          if (!isContiguous(copy.getSource()) ||
              !isContiguous(copy.getTarget()))
            if (failed(mapParallelLoop(copyLoop(copy))))
              return failure();
          continue;
        }
        serial.push_back(&op);
        continue;
      }
      // Pure ops may sit between the ops of one serial kernel: those that
      // compute on its values join it (a 0-d op is a load, arithmetic and
      // a store), others (index arithmetic, constants) stay on the host.
      // Anything else ends it.
      if (isMemoryEffectFree(&op)) {
        if (llvm::any_of(op.getOperands(), [&](Value operand) {
              Operation *definition = operand.getDefiningOp();
              return definition && llvm::is_contained(serial, definition);
            }))
          serial.push_back(&op);
        continue;
      }
      if (failed(flushSerial()))
        return failure();
    }
    return flushSerial();
  }

  /// One thread per iteration of `loop`: its iteration space linearized
  /// (innermost dimension fastest), in blocks of threadsPerBlock threads.
  LogicalResult mapParallelLoop(scf::ParallelOp loop) {
    if (loop.getNumResults() != 0)
      return loop.emitError("a parallel loop with reductions cannot be "
                            "mapped to GPU threads");
    Location loc = loop.getLoc();
    OpBuilder builder(loop);
    SmallVector<Value> tripCounts;
    Value total = arith::ConstantIndexOp::create(builder, loc, 1);
    for (auto [lower, upper, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      Value extent = arith::SubIOp::create(builder, loc, upper, lower);
      Value count = arith::CeilDivSIOp::create(builder, loc, extent, step);
      tripCounts.push_back(count);
      total = arith::MulIOp::create(builder, loc, total, count);
    }
    Value threads =
        arith::ConstantIndexOp::create(builder, loc, threadsPerBlock);
    // An empty loop still launches one block (a grid of none is an error);
    // its threads are all out of range.
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value blocks = arith::MaxSIOp::create(
        builder, loc, arith::CeilDivSIOp::create(builder, loc, total, threads),
        one);
    gpu::LaunchOp launch = createLaunch(builder, loc, blocks, threads);

    builder.setInsertionPoint(launch.getBody().front().getTerminator());
    Value block = launch.getBlockIds().x, thread = launch.getThreadIds().x;
    Value linear = arith::AddIOp::create(
        builder, loc, arith::MulIOp::create(builder, loc, block, threads),
        thread);
    Value inRange = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ult, linear, total);
    auto guard = scf::IfOp::create(builder, loc, inRange);
    builder.setInsertionPoint(guard.thenBlock()->getTerminator());
    auto position = affine::AffineDelinearizeIndexOp::create(
        builder, loc, linear, tripCounts,
        /*hasOuterBound=*/true);
    IRMapping mapping;
    for (auto [index, iv, lower, step] : llvm::enumerate(
             loop.getInductionVars(), loop.getLowerBound(), loop.getStep())) {
      Value offset =
          arith::MulIOp::create(builder, loc, position.getResult(index), step);
      mapping.map(iv, arith::AddIOp::create(builder, loc, lower, offset));
    }
    for (Operation &op : loop.getBody()->without_terminator())
      builder.clone(op, mapping);
    loop.erase();
    return success();
  }

  /// Moves `ops` (consecutive in their block but for pure ops between them)
  /// into a kernel of one thread, in place of the last of them. The values
  /// it computes that the host needs (a loop's condition, a branch's) are
  /// stored to device cells and copied back to host memory after it.
  LogicalResult mapToOneThread(ArrayRef<Operation *> ops) {
    llvm::SmallPtrSet<Operation *, 8> moved(ops.begin(), ops.end());
    auto inGroup = [&](Operation *user) {
      return moved.contains(user) ||
             llvm::any_of(ops, [&](Operation *ancestor) {
               return ancestor->isProperAncestor(user);
             });
    };
    SmallVector<Value> needed;
    for (Operation *op : ops)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(),
                         [&](Operation *user) { return !inGroup(user); })) {
          if (!MemRefType::isValidElementType(result.getType()))
            return op->emitError("computes a value of type ")
                   << result.getType()
                   << " on the GPU that the host needs: it cannot be copied "
                      "to the host";
          needed.push_back(result);
        }

    Location loc = ops.back()->getLoc();
    OpBuilder builder(ops.back());
    SmallVector<Value> cells;
    for (Value value : needed)
      cells.push_back(memref::AllocOp::create(
          builder, loc, MemRefType::get({}, value.getType())));
    gpu::LaunchOp launch = createLaunch(builder, loc);
    Operation *terminator = launch.getBody().front().getTerminator();
    for (Operation *op : ops)
      op->moveBefore(terminator);
    builder.setInsertionPoint(terminator);
    for (auto [value, cell] : llvm::zip(needed, cells))
      memref::StoreOp::create(builder, loc, value, cell);

    // Host cells on the function's stack frame once (not once per
    // iteration of a host loop around the kernel).
    auto atEntry = OpBuilder::atBlockBegin(
        &launch->getParentOfType<func::FuncOp>().getBody().front());
    builder.setInsertionPointAfter(launch);
    for (auto [value, cell] : llvm::zip(needed, cells)) {
      auto host = memref::AllocaOp::create(atEntry, loc,
                                           cast<MemRefType>(cell.getType()));
      host->setAttr(kHostBufferAttr, builder.getUnitAttr());
      memref::CopyOp::create(builder, loc, cell, host);
      Value copied = memref::LoadOp::create(builder, loc, host, ValueRange());
      memref::DeallocOp::create(builder, loc, cell);
      value.replaceUsesWithIf(copied, [&](OpOperand &use) {
        return !launch->isProperAncestor(use.getOwner());
      });
    }
    return success();
  }
};
} // namespace
