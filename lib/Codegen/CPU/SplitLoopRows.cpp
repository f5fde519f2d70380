//===- SplitLoopRows.cpp - A loop over rows that never meet, per thread ---===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-cpu-split-loop-rows.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include <thread>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYCPUSPLITLOOPROWSPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {

/// The dimension of a value that is the same in every row: defined outside
/// the loop, or computed in it from such values only.
constexpr int64_t kWhole = -1;

/// Each thread computes the body's whole values again: an op computing one
/// may produce this many elements (a counter, an index), no more.
constexpr int64_t kMaxWholeElements = 64;

/// Loops doing less work than this (trip count times the split ops'
/// iterations) keep their ops' own thread loops, or none: a parallel region
/// costs a few microseconds.
constexpr int64_t kMinParallelWork = 1 << 15;

/// Assignments of the carried values' dimensions tried per loop.
constexpr int kMaxAttempts = 64;

/// How an op of the body treats the rows: the dimension of each operand it
/// reads a chunk of rows along (kWhole: it reads the whole value), and the
/// dimension of each result that holds the rows.
struct OpRows {
  SmallVector<int64_t> operands;
  SmallVector<int64_t> results;
};

/// Whether `op`'s tensor results are small enough to compute in every
/// thread, or cost nothing to compute (views, empties, constants, fills,
/// which are remade at the chunk's size where a split op reads them).
bool cheapToRepeat(Operation *op) {
  if (isa<tensor::ExtractSliceOp, tensor::ExpandShapeOp,
          tensor::CollapseShapeOp, tensor::EmptyOp, arith::ConstantOp,
          linalg::FillOp>(op))
    return true;
  return llvm::all_of(op->getResultTypes(), [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return !shaped || (shaped.hasStaticShape() &&
                       shaped.getNumElements() <= kMaxWholeElements);
  });
}

/// The position of dimension `dim` among those a rank-reducing slice keeps.
int64_t keptPosition(const llvm::SmallBitVector &dropped, int64_t dim) {
  int64_t kept = 0;
  for (int64_t d = 0; d < dim; ++d)
    kept += !dropped.test(d);
  return kept;
}

/// The largest number of equal chunks of `rows` up to `threads`.
int64_t equalChunks(int64_t rows, int64_t threads) {
  for (int64_t chunks = std::min(rows, threads); chunks > 1; --chunks)
    if (rows % chunks == 0)
      return chunks;
  return 1;
}

/// One loop's rows: which dimension of each carried value holds them, and
/// how each op of the body treats them.
class LoopRows {
public:
  explicit LoopRows(scf::ForOp loop) : loop(loop) {}

  /// Whether the body keeps its rows apart when the carried values hold
  /// `rows` rows along `carried`.
  bool analyze(ArrayRef<int64_t> carried, int64_t rows);

  /// The iterations of the split ops times the trip count: the work the
  /// threads share (none where it is not known when compiling).
  std::optional<int64_t> splitWork();

  /// Replaces the loop by an scf.forall of as many equal chunks of rows as
  /// `threads` allows, each running the loop on its rows. After a
  /// successful analyze.
  void split(int64_t threads);

private:
  int64_t dimOf(Value value) const {
    auto it = dims.find(value);
    return it == dims.end() ? kWhole : it->second;
  }
  std::optional<OpRows> rowsOf(Operation *op);
  /// Whether the loop yields for carried value `number` an insertion (or a
  /// chain of them) into the value itself.
  bool updatedInPlace(unsigned number);
  std::optional<OpRows> linalgRows(linalg::LinalgOp op);
  std::optional<OpRows> extractRows(tensor::ExtractSliceOp op);
  std::optional<OpRows> insertRows(tensor::InsertSliceOp op);
  /// Whether a slice or an insertion (`op`) covers every row along `dim`
  /// and keeps that dimension.
  template <typename SliceOp>
  bool takesEveryRow(SliceOp op, int64_t dim) const {
    return isConstantIntValue(op.getMixedOffsets()[dim], 0) &&
           isConstantIntValue(op.getMixedSizes()[dim], rows) &&
           isConstantIntValue(op.getMixedStrides()[dim], 1) &&
           !op.getDroppedDims().test(dim);
  }

  scf::ForOp loop;
  int64_t rows = 0;
  SmallVector<int64_t> carried;
  DenseMap<Value, int64_t> dims;
  DenseMap<Operation *, OpRows> opRows;
};

std::optional<OpRows> LoopRows::linalgRows(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // The loop that runs over the rows: the one indexing each split operand
  // at its rows.
  std::optional<unsigned> loopDim;
  for (OpOperand &operand : op->getOpOperands()) {
    int64_t dim = dimOf(operand.get());
    if (dim == kWhole)
      continue;
    auto expr = dyn_cast<AffineDimExpr>(
        maps[operand.getOperandNumber()].getResult(dim));
    if (!expr || (loopDim && *loopDim != expr.getPosition()))
      return std::nullopt;
    loopDim = expr.getPosition();
  }
  OpRows result;
  if (!loopDim) {
    result.operands.assign(op->getNumOperands(), kWhole);
    result.results.assign(op->getNumResults(), kWhole);
    return result;
  }
  if (op.getIteratorTypesArray()[*loopDim] != utils::IteratorType::parallel)
    return std::nullopt;
  // Its body may read only whole values of the step (scalars).
  bool capturesRows = false;
  visitUsedValuesDefinedAbove(op->getRegions(), [&](OpOperand *operand) {
    capturesRows |= dimOf(operand->get()) != kWhole;
  });
  if (capturesRows)
    return std::nullopt;
  // A body reading its position along the rows would read the chunk's.
  bool readsRowIndex = false;
  op->walk([&](linalg::IndexOp index) {
    readsRowIndex |= index.getDim() == *loopDim;
  });
  if (readsRowIndex)
    return std::nullopt;
  for (auto [number, map] : llvm::enumerate(maps)) {
    // Each operand read at its rows by the row loop alone, or not by it.
    int64_t at = kWhole;
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      if (!expr.isFunctionOfDim(*loopDim))
        continue;
      if (at != kWhole || !isa<AffineDimExpr>(expr))
        return std::nullopt;
      at = d;
    }
    Value operand = op->getOperand(number);
    if (dimOf(operand) != kWhole && dimOf(operand) != at)
      return std::nullopt;
    result.operands.push_back(at);
  }
  for (OpOperand &init : op.getDpsInitsMutable()) {
    int64_t at = result.operands[init.getOperandNumber()];
    if (at == kWhole)
      return std::nullopt;
    result.results.push_back(at);
  }
  return result;
}

std::optional<OpRows> LoopRows::extractRows(tensor::ExtractSliceOp op) {
  int64_t dim = dimOf(op.getSource());
  OpRows result;
  result.operands.assign(op->getNumOperands(), kWhole);
  if (!takesEveryRow(op, dim))
    return std::nullopt;
  result.operands[0] = dim;
  result.results.push_back(keptPosition(op.getDroppedDims(), dim));
  return result;
}

std::optional<OpRows> LoopRows::insertRows(tensor::InsertSliceOp op) {
  int64_t dim = dimOf(op.getDest());
  // A chunk of rows cannot be written into a whole value.
  if (dim == kWhole)
    return std::nullopt;
  OpRows result;
  result.operands.assign(op->getNumOperands(), kWhole);
  if (!takesEveryRow(op, dim))
    return std::nullopt;
  int64_t sourceDim = keptPosition(op.getDroppedDims(), dim);
  if (dimOf(op.getSource()) != kWhole && dimOf(op.getSource()) != sourceDim)
    return std::nullopt;
  result.operands[op.getSourceMutable().getOperandNumber()] = sourceDim;
  result.operands[op.getDestMutable().getOperandNumber()] = dim;
  result.results.push_back(dim);
  return result;
}

bool LoopRows::updatedInPlace(unsigned number) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  Value value = yield.getOperand(number);
  while (auto insert = value.getDefiningOp<tensor::InsertSliceOp>())
    value = insert.getDest();
  return value == loop.getRegionIterArgs()[number];
}

std::optional<OpRows> LoopRows::rowsOf(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    std::optional<OpRows> result = linalgRows(linalgOp);
    // An op reading no rows is checked as any other whole op below.
    if (!result || !llvm::all_of(result->operands,
                                 [](int64_t dim) { return dim == kWhole; }))
      return result;
  }
  auto extract = dyn_cast<tensor::ExtractSliceOp>(op);
  if (extract && dimOf(extract.getSource()) != kWhole)
    return extractRows(extract);
  auto insert = dyn_cast<tensor::InsertSliceOp>(op);
  if (insert && (dimOf(insert.getDest()) != kWhole ||
                 dimOf(insert.getSource()) != kWhole))
    return insertRows(insert);
  // Any other op reads whole values only, also inside its regions, is free
  // of memory effects (it may run in every thread) and cheap to repeat.
  bool readsRows = llvm::any_of(
      op->getOperands(), [&](Value value) { return dimOf(value) != kWhole; });
  visitUsedValuesDefinedAbove(op->getRegions(), [&](OpOperand *operand) {
    readsRows |= dimOf(operand->get()) != kWhole;
  });
  if (readsRows || !isMemoryEffectFree(op) || !cheapToRepeat(op))
    return std::nullopt;
  OpRows result;
  result.operands.assign(op->getNumOperands(), kWhole);
  result.results.assign(op->getNumResults(), kWhole);
  return result;
}

bool LoopRows::analyze(ArrayRef<int64_t> carriedDims, int64_t rowCount) {
  rows = rowCount;
  carried.assign(carriedDims.begin(), carriedDims.end());
  dims.clear();
  opRows.clear();
  for (auto [argument, dim] : llvm::zip(loop.getRegionIterArgs(), carried))
    dims[argument] = dim;
  for (Operation &op : loop.getBody()->without_terminator()) {
    std::optional<OpRows> result = rowsOf(&op);
    if (!result)
      return false;
    for (auto [value, dim] : llvm::zip(op.getResults(), result->results))
      if (dim != kWhole)
        dims[value] = dim;
    opRows[&op] = std::move(*result);
  }
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [value, dim] : llvm::zip(yield.getOperands(), carried))
    if (dimOf(value) != kWhole && dimOf(value) != dim)
      return false;
  return true;
}

std::optional<int64_t> LoopRows::splitWork() {
  int64_t work = 0;
  for (auto &[op, rowsOfOp] : opRows) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || llvm::all_of(rowsOfOp.operands,
                                  [](int64_t dim) { return dim == kWhole; }))
      continue;
    int64_t iterations = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(range) ||
          __builtin_mul_overflow(iterations, range, &iterations))
        return std::nullopt;
    }
    if (__builtin_add_overflow(work, iterations, &work))
      return std::nullopt;
  }
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips || trips->getActiveBits() > 62 ||
      __builtin_mul_overflow(work, trips->getSExtValue(), &work))
    return std::nullopt;
  return work;
}

void LoopRows::split(int64_t threads) {
  int64_t chunks = equalChunks(rows, threads), chunk = rows / chunks;
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  auto forall = scf::ForallOp::create(b, loc, {b.getIndexAttr(chunks)},
                                      loop.getInitArgs(), std::nullopt);
  b.setInsertionPointToStart(forall.getBody());
  Value first =
      arith::MulIOp::create(b, loc, forall.getInductionVar(0),
                            arith::ConstantIndexOp::create(b, loc, chunk));
  // The offsets, sizes and strides of the chunk's rows of a value of
  // `type` whose rows are along `dim`.
  struct Slice {
    SmallVector<OpFoldResult> offsets, sizes, strides;
  };
  auto chunkSlice = [&](Type type, int64_t dim) {
    auto tensor = cast<RankedTensorType>(type);
    Slice slice{SmallVector<OpFoldResult>(tensor.getRank(), b.getIndexAttr(0)),
                getAsIndexOpFoldResult(b.getContext(), tensor.getShape()),
                SmallVector<OpFoldResult>(tensor.getRank(), b.getIndexAttr(1))};
    slice.offsets[dim] = first;
    slice.sizes[dim] = b.getIndexAttr(chunk);
    return slice;
  };
  auto chunkType = [&](Type type, int64_t dim) {
    auto tensor = cast<RankedTensorType>(type);
    SmallVector<int64_t> shape(tensor.getShape());
    shape[dim] = chunk;
    return tensor.clone(shape);
  };

  // The loop on the chunk's rows of the carried values. A value the loop
  // replaces at each step (an RNN's state) starts in a buffer of its own:
  // bufferized, a loop-carried buffer that is sometimes a slice and
  // sometimes a new allocation gets a layout of unknown strides, whose
  // reads are not vectorized. One the loop updates in place (its outputs,
  // written a step at a time) is written in the shared result directly.
  SmallVector<Value> inits;
  for (auto [number, shared, dim] :
       llvm::enumerate(forall.getRegionIterArgs(), carried)) {
    Slice slice = chunkSlice(shared.getType(), dim);
    Value init = tensor::ExtractSliceOp::create(b, loc, shared, slice.offsets,
                                                slice.sizes, slice.strides);
    if (!updatedInPlace(number))
      init = bufferization::AllocTensorOp::create(
          b, loc, cast<RankedTensorType>(init.getType()), ValueRange(), init);
    inits.push_back(init);
  }
  auto chunkLoop =
      scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                         loop.getStep(), inits);
  OpBuilder prologue(chunkLoop);
  OpBuilder body = OpBuilder::atBlockBegin(chunkLoop.getBody());
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), chunkLoop.getInductionVar());
  mapping.map(loop.getRegionIterArgs(), chunkLoop.getRegionIterArgs());

  // The chunk's rows along `dim` of a value, split so or whole: an empty
  // tensor, a fill or a splat made at the chunk's size, else a slice (taken
  // once, before the loop, of a value from outside it).
  DenseMap<std::pair<Value, int64_t>, Value> wholeChunks;
  std::function<Value(Value, int64_t)> chunkOf = [&](Value value,
                                                     int64_t dim) -> Value {
    if (dimOf(value) != kWhole)
      return mapping.lookup(value);
    if (Value known = wholeChunks.lookup({value, dim}))
      return known;
    bool outside = !loop.getRegion().isAncestor(value.getParentRegion());
    OpBuilder &at = outside ? prologue : body;
    Type type = chunkType(value.getType(), dim);
    Operation *producer = value.getDefiningOp();
    DenseElementsAttr splat;
    Value result;
    if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(producer);
        empty && empty.getType().hasStaticShape()) {
      result = tensor::EmptyOp::create(at, loc,
                                       cast<RankedTensorType>(type).getShape(),
                                       getElementTypeOrSelf(type));
    } else if (auto fill = dyn_cast_or_null<linalg::FillOp>(producer)) {
      Value init = chunkOf(fill.output(), dim);
      result = linalg::FillOp::create(
                   at, loc, mapping.lookupOrDefault(fill.value()), init)
                   .getResult(0);
    } else if (matchPattern(value, m_Constant(&splat)) && splat.isSplat()) {
      result = arith::ConstantOp::create(
          at, loc, splat.resizeSplat(cast<ShapedType>(type)));
    } else {
      Slice slice = chunkSlice(value.getType(), dim);
      result = tensor::ExtractSliceOp::create(
          at, loc, cast<RankedTensorType>(type), mapping.lookupOrDefault(value),
          slice.offsets, slice.sizes, slice.strides);
    }
    wholeChunks[{value, dim}] = result;
    return result;
  };
  auto mapped = [&](ArrayRef<OpFoldResult> values) {
    SmallVector<OpFoldResult> result;
    for (OpFoldResult value : values)
      result.push_back(isa<Value>(value) ? OpFoldResult(mapping.lookupOrDefault(
                                               cast<Value>(value)))
                                         : value);
    return result;
  };

  for (Operation &op : loop.getBody()->without_terminator()) {
    const OpRows &rowsOfOp = opRows.at(&op);
    if (llvm::all_of(rowsOfOp.operands,
                     [](int64_t dim) { return dim == kWhole; })) {
      body.clone(op, mapping);
      continue;
    }
    Operation *chunked;
    if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op)) {
      int64_t dim = rowsOfOp.operands[0];
      SmallVector<OpFoldResult> sizes = mapped(extract.getMixedSizes());
      sizes[dim] = body.getIndexAttr(chunk);
      chunked = tensor::ExtractSliceOp::create(
          body, loc, chunkType(extract.getType(), rowsOfOp.results[0]),
          mapping.lookup(extract.getSource()),
          mapped(extract.getMixedOffsets()), sizes,
          mapped(extract.getMixedStrides()));
    } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
      int64_t dim = rowsOfOp.results[0];
      SmallVector<OpFoldResult> sizes = mapped(insert.getMixedSizes());
      sizes[dim] = body.getIndexAttr(chunk);
      Value source = chunkOf(
          insert.getSource(),
          rowsOfOp.operands[insert.getSourceMutable().getOperandNumber()]);
      chunked = tensor::InsertSliceOp::create(
          body, loc, source, mapping.lookup(insert.getDest()),
          mapped(insert.getMixedOffsets()), sizes,
          mapped(insert.getMixedStrides()));
    } else {
      auto linalgOp = cast<linalg::LinalgOp>(op);
      SmallVector<Value> operands;
      for (auto [value, dim] :
           llvm::zip(linalgOp->getOperands(), rowsOfOp.operands))
        operands.push_back(dim == kWhole ? mapping.lookupOrDefault(value)
                                         : chunkOf(value, dim));
      SmallVector<Type> types;
      for (auto [type, dim] :
           llvm::zip(linalgOp->getResultTypes(), rowsOfOp.results))
        types.push_back(chunkType(type, dim));
      // Its body may read scalars the step computed: cloned with the mapping.
      chunked = cloneWithoutRegions(body, &op, types, operands);
      for (auto [from, to] : llvm::zip(op.getRegions(), chunked->getRegions()))
        from.cloneInto(&to, mapping);
    }
    mapping.map(op.getResults(), chunked->getResults());
  }
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  SmallVector<Value> yielded;
  for (auto [value, dim] : llvm::zip(yield.getOperands(), carried))
    yielded.push_back(chunkOf(value, dim));
  scf::YieldOp::create(body, loc, yielded);

  // Each chunk's results written into the shared results.
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  for (auto [result, shared, dim] :
       llvm::zip(chunkLoop.getResults(), forall.getRegionIterArgs(), carried)) {
    Slice slice = chunkSlice(shared.getType(), dim);
    tensor::ParallelInsertSliceOp::create(b, loc, result, shared, slice.offsets,
                                          slice.sizes, slice.strides);
  }
  loop.replaceAllUsesWith(forall.getResults());
  loop.erase();
  // The whole values that only split ops read were remade at the chunk's
  // size: their whole copies are dead.
  SmallVector<Operation *> bodyOps =
      llvm::map_to_vector(chunkLoop.getBody()->without_terminator(),
                          [](Operation &op) { return &op; });
  for (Operation *op : llvm::reverse(bodyOps))
    if (isOpTriviallyDead(op))
      op->erase();
}

/// Splits `loop` over threads by rows if its body keeps them apart along
/// some dimension of each carried value (the first assignment that does).
void splitRows(scf::ForOp loop, int64_t threads) {
  ValueRange carried = loop.getRegionIterArgs();
  if (carried.empty())
    return;
  LoopRows loopRows(loop);
  SmallVector<int64_t> dims(carried.size());
  int attempts = 0;
  // Tries every dimension of carried value `i` that has `rows` rows (for
  // the first, any that splits into equal chunks).
  std::function<bool(size_t, int64_t)> assign = [&](size_t i,
                                                    int64_t rows) -> bool {
    if (i == carried.size())
      return ++attempts <= kMaxAttempts && loopRows.analyze(dims, rows);
    auto type = dyn_cast<RankedTensorType>(carried[i].getType());
    if (!type || !type.hasStaticShape())
      return false;
    for (auto [dim, size] : llvm::enumerate(type.getShape())) {
      if (i > 0 ? size != rows : equalChunks(size, threads) < 2)
        continue;
      dims[i] = dim;
      if (assign(i + 1, size))
        return true;
      if (attempts >= kMaxAttempts)
        return false;
    }
    return false;
  };
  if (!assign(0, 0))
    return;
  std::optional<int64_t> work = loopRows.splitWork();
  if (work && *work < kMinParallelWork)
    return;
  loopRows.split(threads);
}

struct LazyCpuSplitLoopRowsPass
    : mlir::lazy::impl::LazyCpuSplitLoopRowsPassBase<LazyCpuSplitLoopRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t threads = numThreads > 0
                          ? int64_t(numThreads)
                          : std::max(1u, std::thread::hardware_concurrency());
    if (threads < 2)
      return;
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (!loop->getParentOfType<LoopLikeOpInterface>())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      splitRows(loop, threads);
  }
};
} // namespace
