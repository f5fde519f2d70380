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
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPUMAPTOKERNELSPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using mlir::lazy::createLaunch;
using mlir::lazy::isHostBuffer;
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

/// Whether `alloc` holds a shape for `memref.reshape` (the bufferized
/// `tensor.from_elements` of a reshape's dynamic sizes): a small buffer of
/// integers that only stores of sizes, loads and reshapes use.
static bool isShapeBuffer(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape() || type.getRank() != 1 ||
      !type.getElementType().isIntOrIndex())
    return false;
  bool reshaped = false;
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (auto reshape = dyn_cast<memref::ReshapeOp>(user)) {
      if (use.get() != reshape.getShape())
        return false;
      reshaped = true;
    } else if (auto store = dyn_cast<memref::StoreOp>(user)) {
      if (use.get() != store.getMemRef())
        return false;
    } else if (!isa<memref::LoadOp, memref::DeallocOp>(user)) {
      return false;
    }
  }
  return reshaped;
}

/// Shape buffers (isShapeBuffer) become host memory on the function's stack
/// frame: the host computes the sizes and builds the reshaped view, so no
/// kernel writes them and no copy brings them back.
static void placeShapeBuffersOnHost(func::FuncOp function) {
  SmallVector<memref::AllocOp> shapes;
  function.walk([&](memref::AllocOp alloc) {
    if (isShapeBuffer(alloc))
      shapes.push_back(alloc);
  });
  auto atEntry = OpBuilder::atBlockBegin(&function.getBody().front());
  for (memref::AllocOp alloc : shapes) {
    auto host =
        memref::AllocaOp::create(atEntry, alloc.getLoc(), alloc.getType());
    host->setAttr(kHostBufferAttr, atEntry.getUnitAttr());
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.replaceAllUsesWith(host.getResult());
    alloc.erase();
  }
}

/// Whether `op` is host work on host memory: a load or store of a host
/// buffer, a reshape by a host shape.
static bool isHostWork(Operation &op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return isHostBuffer(load.getMemRef());
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return isHostBuffer(store.getMemRef());
  if (auto reshape = dyn_cast<memref::ReshapeOp>(op))
    return isHostBuffer(reshape.getShape());
  return false;
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
        builder.createOrFold<memref::DimOp>(loc, copy.getTarget(), dim));
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

/// The copy of `branch` if it does nothing but copy one whole buffer (a
/// tied result copied where its buffers differ), else null.
static memref::CopyOp conditionalCopy(scf::IfOp branch) {
  if (branch.getNumResults() != 0 || !branch.getElseRegion().empty())
    return nullptr;
  Block *then = branch.thenBlock();
  auto copy = dyn_cast<memref::CopyOp>(then->front());
  if (!copy || std::next(then->begin()) != std::prev(then->end()) ||
      copy.getSource().getType() != copy.getTarget().getType())
    return nullptr;
  return copy;
}

/// Replaces `branch` (see conditionalCopy) with a loop nest of the copy's
/// width whose body copies an element where the condition holds.
static scf::ParallelOp guardedCopyLoop(scf::IfOp branch, memref::CopyOp copy) {
  copy->moveBefore(branch);
  scf::ParallelOp loop = copyLoop(copy);
  Block *body = loop.getBody();
  OpBuilder builder = OpBuilder::atBlockBegin(body);
  auto guard = scf::IfOp::create(builder, branch.getLoc(),
                                 branch.getCondition(), /*withElse=*/false);
  Operation *guardTerminator = guard.thenBlock()->getTerminator();
  for (Operation &op :
       llvm::make_early_inc_range(llvm::drop_begin(body->without_terminator())))
    op.moveBefore(guardTerminator);
  branch.erase();
  return loop;
}

/// The bytes one thread moves per access of a vectorized elementwise
/// kernel: 128-bit loads and stores (ld.global.v4.f32).
constexpr int64_t kVectorBytes = 16;

/// The values of `loop`'s body that vary along its innermost dimension.
static llvm::DenseSet<Value> innermostDependents(scf::ParallelOp loop) {
  llvm::DenseSet<Value> dependent = {loop.getInductionVars().back()};
  for (Operation &op : loop.getBody()->without_terminator())
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return dependent.contains(v); }))
      dependent.insert(op.result_begin(), op.result_end());
  return dependent;
}

/// Whether `buffer`'s rows start at multiples of `alignment` bytes (given a
/// base aligned to that: the device allocator's blocks are aligned to 256
/// bytes) and its innermost dimension is contiguous.
static bool hasAlignedRows(MemRefType type, int64_t alignment) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1)
    return false;
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  strides.back() = 0;
  strides.push_back(offset);
  return llvm::all_of(strides, [&](int64_t stride) {
    return !ShapedType::isDynamic(stride) &&
           (stride * elementBytes) % alignment == 0;
  });
}

/// The elements each thread of `loop`'s kernel takes along its innermost
/// dimension (whose dependents are `dependent`, innermostDependents): as
/// many as fill a 128-bit access of its widest element type, if every load
/// and store that varies along that dimension reads or writes consecutive
/// elements there (the dimension indexes only their innermost index), every
/// other op that varies along it is elementwise on numbers, and the
/// dimension's trip count is a static multiple of it; else 1.
static int64_t vectorWidthOf(scf::ParallelOp loop,
                             const llvm::DenseSet<Value> &dependent) {
  Value innermost = loop.getInductionVars().back();
  std::optional<int64_t> lower =
      getConstantIntValue(loop.getLowerBound().back());
  std::optional<int64_t> upper =
      getConstantIntValue(loop.getUpperBound().back());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep().back());
  if (!lower || !upper || !step || *lower != 0 || *step != 1)
    return 1;
  SmallVector<std::pair<MemRefType, int64_t>> accesses; // type, element bytes
  int64_t widest = 0;
  for (Operation &op : loop.getBody()->without_terminator()) {
    bool varies = llvm::any_of(op.getOperands(),
                               [&](Value v) { return dependent.contains(v); });
    if (op.getNumRegions() != 0)
      return 1;
    // A store the dimension does not reach keeps a thread per element.
    if (!varies && isa<memref::StoreOp>(op))
      return 1;
    if (!varies)
      continue;
    auto load = dyn_cast<memref::LoadOp>(op);
    auto store = dyn_cast<memref::StoreOp>(op);
    if (load || store) {
      ValueRange indices = load ? load.getIndices() : store.getIndices();
      MemRefType type = load ? load.getMemRefType() : store.getMemRefType();
      if (indices.empty() || indices.back() != innermost ||
          llvm::any_of(indices.drop_back(),
                       [&](Value v) { return dependent.contains(v); }))
        return 1;
      Type element = type.getElementType();
      if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 ||
          !llvm::isPowerOf2_64(element.getIntOrFloatBitWidth()))
        return 1;
      int64_t bytes = element.getIntOrFloatBitWidth() / 8;
      widest = std::max(widest, bytes);
      accesses.push_back({type, bytes});
      continue;
    }
    // Elementwise arithmetic on numbers (not on indices: an index_cast of
    // the position would need a vector of positions).
    if (!OpTrait::hasElementwiseMappableTraits(&op) ||
        llvm::any_of(op.getOperandTypes(),
                     [](Type t) { return !t.isIntOrFloat(); }) ||
        llvm::any_of(op.getResultTypes(),
                     [](Type t) { return !t.isIntOrFloat(); }))
      return 1;
  }
  if (widest == 0 || kVectorBytes / widest < 2)
    return 1;
  int64_t width = kVectorBytes / widest;
  if (*upper % width != 0)
    return 1;
  for (auto [type, bytes] : accesses)
    if (!hasAlignedRows(type, width * bytes))
      return 1;
  return width;
}

namespace {
struct LazyGpuMapToKernelsPass
    : mlir::lazy::impl::LazyGpuMapToKernelsPassBase<LazyGpuMapToKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (threadsPerBlock < 1 || threadsPerBlock > 1024) {
      getOperation().emitError("threads-per-block must be in [1, 1024], not ")
          << static_cast<int64_t>(threadsPerBlock);
      return signalPassFailure();
    }
    placeShapeBuffersOnHost(getOperation());
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
      // The host reads and writes its own memory (the sizes of buffers and
      // launches, shapes).
      if (isHostWork(op)) {
        if (failed(flushSerial()))
          return failure();
        continue;
      }
      // A tied result copied where its buffers differ: a kernel of the
      // copy's width with the condition as a parameter (not one thread
      // copying bytes; a host copy under the branch would make the host
      // wait for the stream before it).
      if (auto branch = dyn_cast<scf::IfOp>(op)) {
        if (memref::CopyOp copy = conditionalCopy(branch)) {
          if (failed(flushSerial()) ||
              failed(mapParallelLoop(guardedCopyLoop(branch, copy))))
            return failure();
          continue;
        }
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
  /// Where the innermost dimension allows (vectorWidthOf), a thread takes
  /// consecutive iterations along it with 128-bit loads and stores.
  LogicalResult mapParallelLoop(scf::ParallelOp loop) {
    if (loop.getNumResults() != 0)
      return loop.emitError("a parallel loop with reductions cannot be "
                            "mapped to GPU threads");
    llvm::DenseSet<Value> vectorized;
    int64_t width = 1;
    if (loop.getNumLoops() > 0) {
      vectorized = innermostDependents(loop);
      width = vectorWidthOf(loop, vectorized);
      if (width == 1)
        vectorized.clear();
    }
    Location loc = loop.getLoc();
    OpBuilder builder(loop);
    SmallVector<Value> tripCounts;
    Value total = arith::ConstantIndexOp::create(builder, loc, 1);
    for (auto [lower, upper, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      Value extent = arith::SubIOp::create(builder, loc, upper, lower);
      Value count = arith::CeilDivSIOp::create(builder, loc, extent, step);
      tripCounts.push_back(count);
    }
    if (width > 1)
      tripCounts.back() = arith::DivUIOp::create(
          builder, loc, tripCounts.back(),
          arith::ConstantIndexOp::create(builder, loc, width));
    for (Value count : tripCounts)
      total = arith::MulIOp::create(builder, loc, total, count);
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
      if (width > 1 && index + 1 == tripCounts.size())
        offset = arith::MulIOp::create(
            builder, loc, offset,
            arith::ConstantIndexOp::create(builder, loc, width));
      mapping.map(iv, arith::AddIOp::create(builder, loc, lower, offset));
    }
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (llvm::any_of(op.getOperands(),
                       [&](Value v) { return vectorized.contains(v); }))
        vectorizeOp(builder, op, width, mapping);
      else
        builder.clone(op, mapping);
    }
    loop.erase();
    return success();
  }

  /// Clones `op`, whose operands vary along the innermost dimension, as its
  /// `width`-lane vector form: consecutive loads and stores become aligned
  /// vector ones; operands that do not vary are broadcast.
  void vectorizeOp(OpBuilder &builder, Operation &op, int64_t width,
                   IRMapping &mapping) {
    Location loc = op.getLoc();
    auto vectorOf = [&](Value value) -> Value {
      Value mapped = mapping.lookupOrDefault(value);
      if (isa<VectorType>(mapped.getType()))
        return mapped;
      return vector::BroadcastOp::create(
                 builder, loc, VectorType::get({width}, mapped.getType()),
                 mapped)
          .getResult();
    };
    auto indices = [&](ValueRange original) {
      return llvm::map_to_vector(
          original, [&](Value v) { return mapping.lookupOrDefault(v); });
    };
    auto alignment = [&](MemRefType type) {
      return llvm::MaybeAlign(width * type.getElementTypeBitWidth() / 8);
    };
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      MemRefType type = load.getMemRefType();
      mapping.map(load.getResult(),
                  vector::LoadOp::create(
                      builder, loc,
                      VectorType::get({width}, type.getElementType()),
                      mapping.lookupOrDefault(load.getMemRef()),
                      indices(load.getIndices()), /*nontemporal=*/false,
                      alignment(type)));
      return;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      vector::StoreOp::create(builder, loc, vectorOf(store.getValueToStore()),
                              mapping.lookupOrDefault(store.getMemRef()),
                              indices(store.getIndices()),
                              /*nontemporal=*/false,
                              alignment(store.getMemRefType()));
      return;
    }
    // Elementwise: the same op on vectors.
    SmallVector<Value> operands =
        llvm::map_to_vector(op.getOperands(), vectorOf);
    Operation *clone = builder.clone(op, mapping);
    clone->setOperands(operands);
    for (OpResult result : clone->getResults())
      result.setType(VectorType::get({width}, result.getType()));
    mapping.map(op.getResults(), clone->getResults());
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
