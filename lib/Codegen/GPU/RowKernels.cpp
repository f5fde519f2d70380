//===- RowKernels.cpp - Row reductions and their neighbours as kernels ----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-gpu-row-kernels.
//
//===----------------------------------------------------------------------===//

#include "Launch.h"

#include "lazyc/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPUROWKERNELSPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {

/// The extent of a loop: its static size, or the dimension of the operand
/// it is read from (two dynamic extents are the same only when read from the
/// same dimension of the same buffer).
struct Extent {
  int64_t size = ShapedType::kDynamic;
  Value buffer;
  int64_t dim = 0;

  bool isOne() const { return size == 1; }
  bool operator==(const Extent &other) const {
    if (size != other.size)
      return false;
    return !ShapedType::isDynamic(size) ||
           (buffer == other.buffer && dim == other.dim);
  }
};

/// How the partial results of one output of a reduction combine: the op of
/// the payload that folds an element into the output, and its identity.
struct Combiner {
  Operation *op;
  gpu::AllReduceOperation kind;
  TypedAttr identity;
};

/// A linalg op of a row kernel: its loops split into the row (the leading
/// `rowLoops`, whose non-unit extents are the kernel's rows) and the columns
/// that the threads of a block share.
struct RowOp {
  linalg::LinalgOp op;
  SmallVector<Extent> extents;
  unsigned rowLoops = 0;
  /// One per output when the op reduces its columns; empty otherwise.
  SmallVector<Combiner> combiners;
};

/// The combiner of output `init` of `op`: the payload folds each element
/// into the output with one associative op that a warp shuffle can carry
/// (a 32- or 64-bit integer or float).
std::optional<Combiner> combinerOf(linalg::LinalgOp op, OpOperand &init) {
  BlockArgument accumulator = op.getMatchingBlockArgument(&init);
  if (!accumulator.hasOneUse())
    return std::nullopt;
  Operation *combiner = *accumulator.getUsers().begin();
  Operation *yield = op.getBlock()->getTerminator();
  unsigned position = init.getOperandNumber() - op.getNumDpsInputs();
  if (combiner->getNumOperands() != 2 || combiner->getNumResults() != 1 ||
      yield->getOperand(position) != combiner->getResult(0))
    return std::nullopt;
  Type type = combiner->getResult(0).getType();
  if (!type.isF32() && !type.isF64() && !type.isInteger(32) &&
      !type.isInteger(64))
    return std::nullopt;

  using Kind = gpu::AllReduceOperation;
  std::optional<Kind> kind =
      llvm::TypeSwitch<Operation *, std::optional<Kind>>(combiner)
          .Case<arith::AddFOp, arith::AddIOp>([](auto) { return Kind::ADD; })
          .Case<arith::MulFOp, arith::MulIOp>([](auto) { return Kind::MUL; })
          .Case([](arith::MaximumFOp) { return Kind::MAXIMUMF; })
          .Case([](arith::MinimumFOp) { return Kind::MINIMUMF; })
          .Case([](arith::MaxNumFOp) { return Kind::MAXNUMF; })
          .Case([](arith::MinNumFOp) { return Kind::MINNUMF; })
          .Case([](arith::MaxSIOp) { return Kind::MAXSI; })
          .Case([](arith::MinSIOp) { return Kind::MINSI; })
          .Case([](arith::MaxUIOp) { return Kind::MAXUI; })
          .Case([](arith::MinUIOp) { return Kind::MINUI; })
          .Case([](arith::AndIOp) { return Kind::AND; })
          .Case([](arith::OrIOp) { return Kind::OR; })
          .Case([](arith::XOrIOp) { return Kind::XOR; })
          .Default([](Operation *) { return std::nullopt; });
  // Upstream's neutral element of addf is +0.0, which turns a sum of
  // negative zeros positive: -0.0 is the identity of IEEE addition.
  std::optional<TypedAttr> identity =
      isa<arith::AddFOp>(combiner)
          ? Builder(op.getContext())
                .getFloatAttr(
                    type,
                    APFloat::getZero(cast<FloatType>(type).getFloatSemantics(),
                                     /*Negative=*/true))
          : arith::getNeutralElement(combiner);
  if (!kind || !identity)
    return std::nullopt;
  return Combiner{combiner, *kind, *identity};
}

/// `op` as a candidate for a row kernel: a generic, fill or copy on buffers
/// whose reduction loops (if any) are its innermost, each of whose outputs
/// of a reduction has a combiner, and whose loop extents are known.
std::optional<RowOp> analyze(Operation *operation) {
  if (!isa<linalg::GenericOp, linalg::FillOp, linalg::CopyOp>(operation))
    return std::nullopt;
  auto op = cast<linalg::LinalgOp>(operation);
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  RowOp row{op, {}, 0, {}};

  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned parallel = 0;
  while (parallel < iterators.size() &&
         iterators[parallel] == utils::IteratorType::parallel)
    ++parallel;
  if (llvm::any_of(llvm::drop_begin(iterators, parallel),
                   [](utils::IteratorType type) {
                     return type != utils::IteratorType::reduction;
                   }))
    return std::nullopt;
  row.rowLoops = parallel;
  if (parallel > 0 && parallel < iterators.size()) {
    // The threads of a block walk the innermost loop: they read consecutive
    // elements only if it indexes the inputs' innermost dimension (a sum
    // over columns is coalesced as lazy-gpu-map-to-kernels maps it, a
    // thread per column). A reduction of everything has no such choice:
    // there it would be one thread.
    unsigned innermost = iterators.size() - 1;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (!isa<MemRefType>(input->get().getType()) ||
          llvm::none_of(llvm::seq(parallel, innermost + 1), [&](unsigned loop) {
            return map.isFunctionOfDim(loop);
          }))
        continue;
      if (map.getNumResults() == 0 ||
          map.getResults().back() !=
              getAffineDimExpr(innermost, op.getContext()))
        return std::nullopt;
    }
  }
  if (parallel < iterators.size())
    for (OpOperand &init : op.getDpsInitsMutable()) {
      std::optional<Combiner> combiner = combinerOf(op, init);
      if (!combiner)
        return std::nullopt;
      row.combiners.push_back(*combiner);
    }

  // Each loop's extent is a dimension of an operand (shapesToLoops maps the
  // operands' dimensions, in operand order, to the loops).
  SmallVector<std::pair<Value, int64_t>> operandDims;
  for (OpOperand &operand : op->getOpOperands())
    if (auto type = dyn_cast<ShapedType>(operand.get().getType()))
      for (int64_t dim = 0; dim < type.getRank(); ++dim)
        operandDims.push_back({operand.get(), dim});
  AffineMap shapesToLoops = op.getShapesToLoopsMap();
  if (!shapesToLoops)
    return std::nullopt;
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  for (auto [loop, size] : llvm::enumerate(sizes)) {
    auto dim = dyn_cast<AffineDimExpr>(shapesToLoops.getResult(loop));
    if (!dim)
      return std::nullopt;
    auto [buffer, index] = operandDims[dim.getPosition()];
    row.extents.push_back({size, buffer, index});
  }
  return row;
}

/// The non-unit extents of the first `loops` loops of `op`: its rows.
SmallVector<Extent> rowsOf(const RowOp &op, unsigned loops) {
  SmallVector<Extent> rows;
  for (const Extent &extent : ArrayRef(op.extents).take_front(loops))
    if (!extent.isOne())
      rows.push_back(extent);
  return rows;
}

/// Splits `op`'s loops into `rows` and columns: a reduction's rows are its
/// parallel loops; an elementwise op's, the longest leading run of loops
/// whose non-unit extents are `rows`. Fails if there is none.
LogicalResult splitRows(RowOp &op, ArrayRef<Extent> rows) {
  if (!op.combiners.empty())
    return success(ArrayRef(rowsOf(op, op.rowLoops)) == rows);
  std::optional<unsigned> longest;
  for (unsigned loops = 0; loops <= op.extents.size(); ++loops)
    if (ArrayRef(rowsOf(op, loops)) == rows)
      longest = loops;
  if (!longest)
    return failure();
  op.rowLoops = *longest;
  return success();
}

/// Whether `map`, an access of `op`, reads or writes only its own row: unit
/// loops read as 0, the access's leading results are the row's non-unit
/// loops in order and no other result depends on them.
bool isRowLocal(const RowOp &op, AffineMap map) {
  MLIRContext *context = map.getContext();
  SmallVector<AffineExpr> dims;
  SmallVector<unsigned> rowDims;
  for (auto [loop, extent] : llvm::enumerate(op.extents)) {
    dims.push_back(extent.isOne() ? getAffineConstantExpr(0, context)
                                  : getAffineDimExpr(loop, context));
    if (loop < op.rowLoops && !extent.isOne())
      rowDims.push_back(loop);
  }
  AffineMap access = simplifyAffineMap(
      map.replaceDimsAndSymbols(dims, {}, map.getNumDims(), 0));
  if (access.getNumResults() < rowDims.size())
    return false;
  for (auto [position, result] : llvm::enumerate(access.getResults())) {
    AffineExpr expr = result;
    if (position < rowDims.size()) {
      if (expr != getAffineDimExpr(rowDims[position], context))
        return false;
      continue;
    }
    if (llvm::any_of(rowDims,
                     [&](unsigned dim) { return expr.isFunctionOfDim(dim); }))
      return false;
  }
  return true;
}

/// The allocation (or function argument) a buffer views.
Value rootOf(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return buffer;
}

/// What the ops of one kernel do to the buffers they share. The blocks of
/// a row kernel run their rows in any order, and a block's threads meet
/// only at barriers: a buffer that the kernel writes must be read and
/// written by each block in its own row only, through one view.
class BufferUse {
public:
  /// Records the accesses of `op` and returns true, or returns false and
  /// records nothing if they would let two rows share a written element.
  bool tryAdd(const RowOp &row) {
    linalg::LinalgOp op = row.op;
    llvm::SmallDenseMap<Value, Use> updated;
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()))
        continue;
      Value root = rootOf(operand.get());
      auto found = updated.find(root);
      Use use = found != updated.end() ? found->second : uses.lookup(root);
      if (!use.view)
        use.view = operand.get();
      use.oneView &= use.view == operand.get();
      use.rowLocal &= isRowLocal(row, op.getMatchingIndexingMap(&operand));
      use.written |= op.isDpsInit(&operand);
      if (use.written && (!use.oneView || !use.rowLocal))
        return false;
      updated[root] = use;
    }
    for (auto &[root, use] : updated)
      uses[root] = use;
    return true;
  }

private:
  struct Use {
    Value view;
    bool oneView = true;
    bool rowLocal = true;
    bool written = false;
  };
  llvm::DenseMap<Value, Use> uses;
};

/// Whether `op` may sit between the ops of a kernel: it is left where it is
/// (allocations, pure ops) or moved after the kernel (frees).
bool mayInterleave(Operation *op) {
  return isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(op) ||
         (op->getNumRegions() == 0 && isMemoryEffectFree(op));
}

Value product(OpBuilder &builder, Location loc, ArrayRef<Value> values) {
  Value result = arith::ConstantIndexOp::create(builder, loc, 1);
  for (Value value : values)
    result = builder.createOrFold<arith::MulIOp>(loc, result, value);
  return result;
}

/// The indices `map` gives at the loop position `indices`.
SmallVector<Value> applyMap(OpBuilder &builder, Location loc, AffineMap map,
                            ArrayRef<Value> indices) {
  SmallVector<OpFoldResult> operands(indices.begin(), indices.end());
  return getValueOrCreateConstantIndexOp(
      builder, loc,
      affine::makeComposedFoldedMultiResultAffineApply(builder, loc, map,
                                                       operands));
}

struct LazyGpuRowKernelsPass
    : mlir::lazy::impl::LazyGpuRowKernelsPassBase<LazyGpuRowKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (maxThreadsPerBlock < 32 || maxThreadsPerBlock > 1024) {
      getOperation().emitError(
          "max-threads-per-block must be in [32, 1024] (whole warps), not ")
          << static_cast<int64_t>(maxThreadsPerBlock);
      return signalPassFailure();
    }
    // The blocks of the host function and its control flow (not the
    // payloads of linalg ops, which kernels replace).
    SmallVector<Block *> blocks;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<linalg::LinalgOp>(op))
        return WalkResult::skip();
      for (Region &region : op->getRegions())
        for (Block &block : region)
          blocks.push_back(&block);
      return WalkResult::advance();
    });
    for (Block *block : blocks)
      for (SmallVector<RowOp> &group : findGroups(*block))
        buildKernel(group);
  }

  /// The kernels of `block`: each reduction of columns, with the ops before
  /// and after it that can share its rows (other reductions included).
  SmallVector<SmallVector<RowOp>> findGroups(Block &block) {
    SmallVector<Operation *> ops =
        llvm::map_to_vector(block, [](Operation &op) { return &op; });
    SmallVector<std::optional<RowOp>> analyses =
        llvm::map_to_vector(ops, analyze);
    llvm::DenseSet<Operation *> taken;
    SmallVector<SmallVector<RowOp>> groups;
    for (auto [position, operation] : llvm::enumerate(ops)) {
      const std::optional<RowOp> &anchor = analyses[position];
      if (!anchor || anchor->combiners.empty() || taken.contains(operation))
        continue;
      SmallVector<Extent> rows = rowsOf(*anchor, anchor->rowLoops);
      BufferUse buffers;
      if (!buffers.tryAdd(*anchor))
        continue;
      // Tries to add ops[i]: true if it joined or may sit between members.
      auto extend = [&](size_t i, SmallVector<RowOp> &members) {
        if (taken.contains(ops[i]))
          return false;
        std::optional<RowOp> candidate = analyses[i]; // splitRows sets rows
        if (!candidate)
          return mayInterleave(ops[i]);
        if (failed(splitRows(*candidate, rows)) || !buffers.tryAdd(*candidate))
          return false;
        members.push_back(*candidate);
        return true;
      };
      SmallVector<RowOp> before, after;
      for (size_t i = position; i-- > 0;)
        if (!extend(i, before))
          break;
      for (size_t i = position + 1; i < ops.size(); ++i)
        if (!extend(i, after))
          break;
      SmallVector<RowOp> group(llvm::reverse(before));
      group.push_back(*anchor);
      llvm::append_range(group, after);
      for (const RowOp &member : group)
        taken.insert(member.op);
      groups.push_back(std::move(group));
    }
    return groups;
  }

  /// Replaces `group` with one kernel in place of its last op: a block per
  /// row; the ops in order, their columns strided over the block's threads
  /// (consecutive threads on consecutive elements), a barrier between two
  /// ops; a reduction combines each thread's partial result across the
  /// block (warp shuffles, then shared memory) and its first thread folds
  /// it into the output.
  void buildKernel(ArrayRef<RowOp> group) {
    Operation *last = group.back().op;
    Location loc = group.front().op->getLoc();
    OpBuilder builder(last);

    // Loop extents, read on the host.
    SmallVector<SmallVector<Value>> sizes;
    SmallVector<Value> columns;
    std::optional<int64_t> widest = 0;
    for (const RowOp &member : group) {
      SmallVector<Value> loopSizes;
      linalg::LinalgOp op = member.op;
      for (Range range : op.createLoopRanges(builder, loc))
        loopSizes.push_back(
            getValueOrCreateConstantIndexOp(builder, loc, range.size));
      columns.push_back(product(
          builder, loc, ArrayRef(loopSizes).drop_front(member.rowLoops)));
      std::optional<int64_t> count = getConstantIntValue(columns.back());
      if (!count)
        widest = std::nullopt;
      else if (widest)
        widest = std::max(*widest, *count);
      sizes.push_back(std::move(loopSizes));
    }
    const RowOp &anchor = *llvm::find_if(
        group, [](const RowOp &member) { return !member.combiners.empty(); });
    size_t anchorIndex = &anchor - group.data();
    SmallVector<Value> rowSizes;
    for (auto [loop, extent] : llvm::enumerate(anchor.extents))
      if (loop < anchor.rowLoops && !extent.isOne())
        rowSizes.push_back(sizes[anchorIndex][loop]);
    Value rows = product(builder, loc, rowSizes);

    // About four elements a thread, in whole warps.
    int64_t threadCount =
        widest ? std::clamp<int64_t>(
                     llvm::alignTo(llvm::divideCeil(*widest, 4), 32), 32,
                     maxThreadsPerBlock)
               : std::min<int64_t>(256, maxThreadsPerBlock);
    Value threads = arith::ConstantIndexOp::create(builder, loc, threadCount);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    std::optional<int64_t> staticRows = getConstantIntValue(rows);
    bool guarded = !staticRows || *staticRows < 1;
    Value grid =
        guarded ? arith::MaxSIOp::create(builder, loc, rows, one) : rows;
    gpu::LaunchOp launch = lazy::createLaunch(builder, loc, grid, threads);

    builder.setInsertionPoint(launch.getBody().front().getTerminator());
    Value row = launch.getBlockIds().x, thread = launch.getThreadIds().x;
    if (guarded) {
      Value inRange = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ult, row, rows);
      auto ifInRange = scf::IfOp::create(builder, loc, inRange);
      builder.setInsertionPoint(ifInRange.thenBlock()->getTerminator());
    }
    SmallVector<Value> rowIndices;
    if (!rowSizes.empty())
      rowIndices = affine::AffineDelinearizeIndexOp::create(
                       builder, loc, row, rowSizes, /*hasOuterBound=*/true)
                       .getResults();
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    for (auto [index, member] : llvm::enumerate(group)) {
      if (index > 0)
        gpu::BarrierOp::create(builder, loc);
      emitOp(builder, loc, member, sizes[index], columns[index], rowIndices,
             thread, threads, zero);
    }

    // Frees between the ops move after the kernel.
    Operation *first = group.front().op;
    for (Operation *op = first; op != last;) {
      Operation *next = op->getNextNode();
      if (isa<memref::DeallocOp>(op))
        op->moveAfter(launch);
      op = next;
    }
    for (const RowOp &member : group)
      member.op->erase();
  }

  /// Emits `member`'s loop over its columns for this block's row.
  void emitOp(OpBuilder &builder, Location loc, const RowOp &member,
              ArrayRef<Value> sizes, Value columns, ArrayRef<Value> rowIndices,
              Value thread, Value threads, Value zero) {
    linalg::LinalgOp op = member.op;
    // The loop position of the row; columns are filled in per element.
    SmallVector<Value> rowPosition;
    unsigned nextRow = 0;
    for (auto [loop, extent] :
         llvm::enumerate(ArrayRef(member.extents).take_front(member.rowLoops)))
      rowPosition.push_back(extent.isOne() ? zero : rowIndices[nextRow++]);
    ArrayRef<Value> columnSizes = sizes.drop_front(member.rowLoops);

    SmallVector<Value> identities;
    for (const Combiner &combiner : member.combiners)
      identities.push_back(
          arith::ConstantOp::create(builder, loc, combiner.identity));
    auto loop =
        scf::ForOp::create(builder, loc, thread, columns, threads, identities);
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> position = rowPosition;
      if (!columnSizes.empty())
        llvm::append_range(position, affine::AffineDelinearizeIndexOp::create(
                                         builder, loc, loop.getInductionVar(),
                                         columnSizes,
                                         /*hasOuterBound=*/true)
                                         .getResults());
      IRMapping mapping;
      Block *body = op.getBlock();
      for (OpOperand *input : op.getDpsInputOperands()) {
        Value value = input->get();
        if (isa<MemRefType>(value.getType()))
          value = memref::LoadOp::create(
              builder, loc, value,
              applyMap(builder, loc, op.getMatchingIndexingMap(input),
                       position));
        mapping.map(op.getMatchingBlockArgument(input), value);
      }
      for (auto [index, init] : llvm::enumerate(op.getDpsInitsMutable())) {
        BlockArgument argument = op.getMatchingBlockArgument(&init);
        if (!member.combiners.empty())
          mapping.map(argument, loop.getRegionIterArgs()[index]);
        else if (!argument.use_empty())
          mapping.map(argument, memref::LoadOp::create(
                                    builder, loc, init.get(),
                                    applyMap(builder, loc,
                                             op.getMatchingIndexingMap(&init),
                                             position)));
      }
      for (Operation &payload : body->without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(payload)) {
          mapping.map(index.getResult(), position[index.getDim()]);
          continue;
        }
        builder.clone(payload, mapping);
      }
      SmallVector<Value> yielded = llvm::map_to_vector(
          body->getTerminator()->getOperands(),
          [&](Value value) { return mapping.lookupOrDefault(value); });
      if (!member.combiners.empty()) {
        scf::YieldOp::create(builder, loc, yielded);
      } else {
        for (auto [value, init] : llvm::zip(yielded, op.getDpsInitsMutable()))
          memref::StoreOp::create(builder, loc, value, init.get(),
                                  applyMap(builder, loc,
                                           op.getMatchingIndexingMap(&init),
                                           position));
      }
    }
    if (member.combiners.empty())
      return;

    // Across the block, then into the output by the first thread.
    SmallVector<Value> totals;
    for (auto [partial, combiner] :
         llvm::zip(loop.getResults(), member.combiners))
      totals.push_back(gpu::AllReduceOp::create(
          builder, loc, partial,
          gpu::AllReduceOperationAttr::get(builder.getContext(), combiner.kind),
          /*uniform=*/true));
    Value isFirst = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, thread, zero);
    auto ifFirst = scf::IfOp::create(builder, loc, isFirst);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
    SmallVector<Value> position = rowPosition;
    position.append(columnSizes.size(), zero);
    for (auto [index, init] : llvm::enumerate(op.getDpsInitsMutable())) {
      SmallVector<Value> indices =
          applyMap(builder, loc, op.getMatchingIndexingMap(&init), position);
      Value old = memref::LoadOp::create(builder, loc, init.get(), indices);
      Operation *combiner = member.combiners[index].op;
      BlockArgument accumulator = op.getMatchingBlockArgument(&init);
      IRMapping mapping;
      for (Value operand : combiner->getOperands())
        mapping.map(operand, operand == accumulator ? old : totals[index]);
      Value folded = builder.clone(*combiner, mapping)->getResult(0);
      memref::StoreOp::create(builder, loc, folded, init.get(), indices);
    }
  }
};
} // namespace
