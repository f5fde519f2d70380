//===- BlockReductions.cpp - Float sums accurate at any length ------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-block-reductions.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYBLOCKREDUCTIONSPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {

/// A float sum (or product) among a generic's results: which result, the
/// op of the body that folds each term into its accumulator (`acc + term`
/// or `acc * term`), and the term. Every other result of the generic is a
/// value per term (its map has every reduction loop, its old value is
/// unread): a producer fused into the sum that also yields its values.
struct Sum {
  unsigned result;
  Operation *combiner;
  Value term;
};

/// The float sum of `op`, if it is one as `Sum` describes.
std::optional<Sum> floatSumOf(linalg::GenericOp op) {
  if (op.getNumReductionLoops() == 0 || !op.hasPureTensorSemantics() ||
      !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
        // A 0 reads a broadcast unit dimension ([2, 1] along a row).
        return map.isProjectedPermutation(/*allowZeroInResults=*/true);
      }))
    return std::nullopt;
  SmallVector<unsigned> reductionLoops;
  op.getReductionDims(reductionLoops);
  Operation *yield = op.getBlock()->getTerminator();
  std::optional<Sum> sum;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    unsigned result = init.getOperandNumber() - op.getNumDpsInputs();
    AffineMap map = op.getMatchingIndexingMap(&init);
    BlockArgument accumulator = op.getMatchingBlockArgument(&init);
    if (llvm::all_of(reductionLoops, [&](unsigned loop) {
          return map.isFunctionOfDim(loop);
        })) {
      if (!accumulator.use_empty())
        return std::nullopt;
      continue;
    }
    if (sum || !isa<FloatType>(accumulator.getType()) ||
        !accumulator.hasOneUse())
      return std::nullopt;
    Operation *combiner = *accumulator.getUsers().begin();
    if (!isa<arith::AddFOp, arith::MulFOp>(combiner) ||
        !combiner->getResult(0).hasOneUse() ||
        yield->getOperand(result) != combiner->getResult(0))
      return std::nullopt;
    Value term = combiner->getOperand(0) == accumulator
                     ? combiner->getOperand(1)
                     : combiner->getOperand(0);
    if (term == accumulator)
      return std::nullopt;
    sum = Sum{result, combiner, term};
  }
  return sum;
}

/// `lhs` combined with `rhs` as `combiner` combines.
Value combine(OpBuilder &b, Location loc, Operation *combiner, Value lhs,
              Value rhs) {
  if (isa<arith::MulFOp>(combiner))
    return arith::MulFOp::create(b, loc, lhs, rhs);
  return arith::AddFOp::create(b, loc, lhs, rhs);
}

/// A tensor of `sizes` and `element` type filled with `combiner`'s identity.
Value identityTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                     Type element, Operation *combiner) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, element);
  TypedAttr identity =
      b.getFloatAttr(element, isa<arith::MulFOp>(combiner) ? 1.0 : 0.0);
  Value constant = arith::ConstantOp::create(b, loc, identity);
  return linalg::FillOp::create(b, loc, constant, empty).getResult(0);
}

/// Whether `value` is a fill with `combiner`'s identity.
bool isIdentityFill(Value value, Operation *combiner) {
  auto fill = value.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  FloatAttr constant;
  if (!matchPattern(fill.getDpsInputs().front(), m_Constant(&constant)))
    return false;
  double identity = isa<arith::MulFOp>(combiner) ? 1.0 : 0.0;
  // +0.0, not -0.0: -0.0 + -0.0 is -0.0, which a +0.0 start would lose.
  return constant.getValue().isExactlyValue(identity) &&
         !constant.getValue().isNegZero();
}

/// Accumulates `op`'s sum in `wide` (f32 for f16/bf16 data, f64 for a sum
/// of unknown length) and rounds the result once. Returns the wide op.
linalg::GenericOp widenAccumulator(RewriterBase &rewriter, linalg::GenericOp op,
                                   const Sum &sum, FloatType wide) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value init = op.getDpsInits()[sum.result];
  SmallVector<Value> inits(op.getDpsInits());
  inits[sum.result] =
      identityTensor(rewriter, loc, tensor::getMixedSizes(rewriter, loc, init),
                     wide, sum.combiner);
  Block *body = op.getBlock();
  unsigned inputs = op.getNumDpsInputs();
  auto wideOp = linalg::GenericOp::create(
      rewriter, loc, ValueRange(inits).getTypes(), op.getDpsInputs(), inits,
      op.getIndexingMapsArray(), op.getIteratorTypesArray(),
      [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
        IRMapping mapping;
        mapping.map(body->getArguments(), args);
        for (Operation &inner : body->without_terminator())
          if (&inner != sum.combiner)
            b.clone(inner, mapping);
        SmallVector<Value> yields;
        for (Value value : body->getTerminator()->getOperands())
          yields.push_back(mapping.lookupOrDefault(value));
        Value wideTerm = arith::ExtFOp::create(
            b, bodyLoc, wide, mapping.lookupOrDefault(sum.term));
        yields[sum.result] = combine(b, bodyLoc, sum.combiner,
                                     args[inputs + sum.result], wideTerm);
        linalg::YieldOp::create(b, bodyLoc, yields);
      });

  // The result in the data's type: the wide sum rounded once, with the
  // original accumulator's start folded in unless it is the identity.
  bool startsAtIdentity = isIdentityFill(init, sum.combiner);
  auto initType = cast<RankedTensorType>(init.getType());
  unsigned rank = initType.getRank();
  SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  Operation *combiner = sum.combiner;
  auto narrow = linalg::GenericOp::create(
      rewriter, loc, TypeRange{initType}, wideOp.getResult(sum.result), init,
      maps, parallel, [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
        Value total = args[0];
        if (!startsAtIdentity)
          total = combine(
              b, bodyLoc, combiner, total,
              arith::ExtFOp::create(b, bodyLoc, wide, args[1]).getResult());
        linalg::YieldOp::create(
            b, bodyLoc,
            arith::TruncFOp::create(b, bodyLoc, initType.getElementType(),
                                    total)
                .getResult());
      });
  SmallVector<Value> results(wideOp->getResults());
  results[sum.result] = narrow.getResult(0);
  rewriter.replaceOp(op, results);
  return wideOp;
}

/// `op` with each run of adjacent reduction loops that every operand reads
/// contiguously collapsed into one loop (a sum of everything of [n, 4] is
/// one long row, cut into whole vectors, not n blocks of 4-wide columns);
/// `op` itself if there is none.
linalg::GenericOp collapseAdjacentReductions(RewriterBase &rewriter,
                                             linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<ReassociationIndices> runs;
  for (int64_t loop = 0, e = iterators.size(); loop < e;) {
    ReassociationIndices run;
    while (loop < e && iterators[loop] == utils::IteratorType::reduction)
      run.push_back(loop++);
    if (run.size() > 1 && linalg::areDimSequencesPreserved(maps, {run}))
      runs.push_back(run);
    if (run.empty())
      ++loop;
  }
  if (runs.empty())
    return op;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, runs, rewriter);
  if (failed(collapsed))
    return op;
  rewriter.replaceOp(op, collapsed->results);
  return cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
}

/// Where a reduction loop is cut: the loop, and how many consecutive
/// iterations each block sums.
struct Cut {
  unsigned loop;
  int64_t block;
};

/// The largest divisor of `n` that is a multiple of `step` in
/// [`lowest`, `highest`], if any.
std::optional<int64_t> divisorIn(int64_t n, int64_t step, int64_t lowest,
                                 int64_t highest) {
  for (int64_t block = highest / step * step; block >= std::max(lowest, step);
       block -= step)
    if (n % block == 0)
      return block;
  return std::nullopt;
}

struct LazyBlockReductionsPass
    : mlir::lazy::impl::LazyBlockReductionsPassBase<LazyBlockReductionsPass> {
  using Base::Base;

  /// Whether `op`'s innermost loop, of `range` iterations, is summed in
  /// `lanes` accumulators combined as a tree (otherwise: sequentially).
  bool innermostUsesLanes(linalg::GenericOp op, int64_t range) const {
    if (lanesInRowsOnly && op.getNumParallelLoops() == 0)
      return false;
    return range % lanes == 0 || range <= 4 * lanes;
  }

  /// How many terms of loop `loop` of `op` one accumulator adds in
  /// sequence: its range, divided among lanes for the innermost loop.
  int64_t sequentialFactor(linalg::GenericOp op, unsigned loop) const {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (loop + 1 == ranges.size() && innermostUsesLanes(op, ranges[loop]))
      return llvm::divideCeil(ranges[loop], int64_t(lanes));
    return ranges[loop];
  }

  /// How many terms one accumulator of `op` adds in sequence: the product
  /// of its reduction loops' factors (but `skipLoop`'s).
  int64_t sequentialTerms(linalg::GenericOp op, unsigned skipLoop = ~0u) const {
    int64_t terms = 1;
    for (auto [loop, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
      if (iterator == utils::IteratorType::reduction && loop != skipLoop &&
          __builtin_mul_overflow(terms, sequentialFactor(op, loop), &terms))
        return std::numeric_limits<int64_t>::max();
    return terms;
  }

  /// The cut that brings `op` closer to `maxSequential` terms per
  /// accumulator, or nullopt if it is there. Every range is static.
  std::optional<Cut> planCut(linalg::GenericOp op) const {
    if (sequentialTerms(op) <= maxSequential)
      return std::nullopt;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    unsigned innermost = ranges.size() - 1;
    if (iterators[innermost] == utils::IteratorType::reduction &&
        sequentialFactor(op, innermost) > maxSequential) {
      // A long row: blocks of whole vectors, at most `maxSequential` deep;
      // a divisor of the row if one is not much shorter.
      int64_t n = ranges[innermost], widest = lanes * maxSequential;
      if (n <= widest)
        return Cut{innermost, n >= 2 * lanes ? int64_t(lanes)
                                             : std::max<int64_t>(1, n / 2)};
      return Cut{innermost,
                 divisorIn(n, lanes, widest / 8, widest).value_or(widest)};
    }
    // Otherwise the outermost other reduction loop, in blocks that keep the
    // whole accumulation within `maxSequential` terms. Where the loops
    // inside it already sum about that many, it becomes a parallel loop of
    // partial sums (blocks of 1: no reshape, which would keep a producer
    // out of the sum's tiles; a bias gradient over [B, T] rows).
    for (auto [loop, iterator] : llvm::enumerate(iterators)) {
      if (iterator != utils::IteratorType::reduction || ranges[loop] <= 1 ||
          loop == innermost)
        continue;
      int64_t rest = sequentialTerms(op, loop);
      if (2 * rest >= maxSequential)
        return Cut{static_cast<unsigned>(loop), 1};
      int64_t target = std::max<int64_t>(1, maxSequential / rest);
      int64_t block =
          divisorIn(ranges[loop], 1, std::max<int64_t>(1, target / 2), target)
              .value_or(target);
      return Cut{static_cast<unsigned>(loop), block};
    }
    return std::nullopt;
  }

  /// Cuts `op`'s reduction loop `cut.loop` (static range n) into blocks of
  /// `cut.block`: a sum of each block in a partial result, the n mod block
  /// last iterations summed into the original accumulator, then the
  /// partials folded in. Returns the new reductions.
  SmallVector<linalg::GenericOp> cutLoop(RewriterBase &rewriter,
                                         linalg::GenericOp op, const Sum &sum,
                                         Cut cut) const {
    Location loc = op.getLoc();
    MLIRContext *context = op.getContext();
    rewriter.setInsertionPoint(op);
    unsigned loop = cut.loop;
    int64_t n = op.getStaticLoopRanges()[loop];
    int64_t blocks = n / cut.block, whole = blocks * cut.block;
    int64_t rest = n - whole;
    // With blocks of 1 the loop just becomes parallel: no new loop, no
    // reshape, no rest.
    bool single = cut.block == 1;
    unsigned added = single ? 0 : 1;
    AffineExpr loopExpr = getAffineDimExpr(loop, context);
    auto shifted = [&](AffineExpr expr) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        return expr; // A 0.
      unsigned position = dim.getPosition();
      return getAffineDimExpr(position > loop ? position + added : position,
                              context);
    };
    auto sliceAlong = [&](Value value, unsigned dim, int64_t offset,
                          int64_t size) -> Value {
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, value);
      SmallVector<OpFoldResult> strides(type.getRank(),
                                        rewriter.getIndexAttr(1));
      offsets[dim] = rewriter.getIndexAttr(offset);
      sizes[dim] = rewriter.getIndexAttr(size);
      return tensor::ExtractSliceOp::create(rewriter, loc, value, offsets,
                                            sizes, strides);
    };
    // The groups that expand tensor dimension `position` of a rank `rank`
    // tensor into [blocks, block].
    auto blockGroups = [](int64_t rank, int64_t position) {
      SmallVector<ReassociationIndices> groups;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t first = d + (d > position);
        groups.push_back(d == position ? ReassociationIndices{first, first + 1}
                                       : ReassociationIndices{first});
      }
      return groups;
    };

    // The operands of the blocks: an input or a per-term output that `loop`
    // indexes is cut into [blocks, block] along that dimension (after its
    // first `whole` elements are sliced off); the sum's accumulator becomes
    // the partials, the accumulator's shape with the blocks inserted where
    // the loop order puts them.
    Value init = op.getDpsInits()[sum.result];
    AffineMap initMap =
        op.getMatchingIndexingMap(op.getDpsInitOperand(sum.result));
    unsigned blocksPosition =
        llvm::count_if(initMap.getResults(), [&](AffineExpr expr) {
          auto dim = dyn_cast<AffineDimExpr>(expr);
          return !dim || dim.getPosition() < loop;
        });
    SmallVector<AffineExpr> partialExprs;
    for (AffineExpr expr : initMap.getResults())
      partialExprs.push_back(shifted(expr));
    partialExprs.insert(partialExprs.begin() + blocksPosition, loopExpr);
    SmallVector<OpFoldResult> partialSizes =
        tensor::getMixedSizes(rewriter, loc, init);
    partialSizes.insert(partialSizes.begin() + blocksPosition,
                        rewriter.getIndexAttr(blocks));
    auto initType = cast<RankedTensorType>(init.getType());
    Value partialInit = identityTensor(rewriter, loc, partialSizes,
                                       initType.getElementType(), sum.combiner);

    SmallVector<Value> inputs, inits;
    SmallVector<AffineMap> maps;
    // Where each per-term output's dimension along `loop` is (-1: none).
    SmallVector<int64_t> termPositions;
    for (OpOperand &operand : op->getOpOperands()) {
      bool isInit = op.isDpsInit(&operand);
      unsigned result =
          isInit ? operand.getOperandNumber() - op.getNumDpsInputs() : 0;
      if (isInit && result == sum.result) {
        maps.push_back(
            AffineMap::get(op.getNumLoops() + added, 0, partialExprs, context));
        inits.push_back(partialInit);
        termPositions.push_back(-1);
        continue;
      }
      AffineMap map = op.getMatchingIndexingMap(&operand);
      Value value = operand.get();
      std::optional<unsigned> position = map.getResultPosition(loopExpr);
      SmallVector<AffineExpr> exprs;
      for (AffineExpr expr : map.getResults()) {
        exprs.push_back(shifted(expr));
        if (expr == loopExpr && !single)
          exprs.push_back(getAffineDimExpr(loop + 1, context));
      }
      maps.push_back(
          AffineMap::get(op.getNumLoops() + added, 0, exprs, context));
      if (position && !single) {
        if (rest != 0)
          value = sliceAlong(value, *position, 0, whole);
        auto type = cast<RankedTensorType>(value.getType());
        SmallVector<int64_t> shape(type.getShape());
        shape[*position] = cut.block;
        shape.insert(shape.begin() + *position, blocks);
        value = tensor::ExpandShapeOp::create(
            rewriter, loc, type.clone(shape), value,
            blockGroups(type.getRank(), *position));
      }
      (isInit ? inits : inputs).push_back(value);
      if (isInit)
        termPositions.push_back(position && !single ? int64_t(*position) : -1);
    }
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    if (single)
      iterators[loop] = utils::IteratorType::parallel;
    else
      iterators.insert(iterators.begin() + loop, utils::IteratorType::parallel);
    auto blocked =
        linalg::GenericOp::create(rewriter, loc, ValueRange(inits).getTypes(),
                                  inputs, inits, maps, iterators);
    rewriter.cloneRegionBefore(op.getRegion(), blocked.getRegion(),
                               blocked.getRegion().end());
    // Element indices the body reads: the loop's is block * size + offset
    // (with blocks of 1, the loops and their indices are the same).
    SmallVector<linalg::IndexOp> indices;
    if (!single)
      indices = llvm::to_vector(blocked.getBlock()->getOps<linalg::IndexOp>());
    for (linalg::IndexOp index : indices) {
      uint64_t dim = index.getDim();
      rewriter.setInsertionPoint(index);
      if (dim < loop)
        continue;
      if (dim > loop) {
        rewriter.replaceOpWithNewOp<linalg::IndexOp>(index, dim + 1);
        continue;
      }
      Value outer = linalg::IndexOp::create(rewriter, loc, loop);
      Value inner = linalg::IndexOp::create(rewriter, loc, loop + 1);
      Value size = arith::ConstantIndexOp::create(rewriter, loc, cut.block);
      Value start = arith::MulIOp::create(rewriter, loc, outer, size);
      rewriter.replaceOpWithNewOp<arith::AddIOp>(index, start, inner);
    }
    rewriter.setInsertionPointAfter(blocked);
    // The per-term results of the blocks, in their original shape (their
    // first `whole` elements along the loop's dimension).
    SmallVector<Value> results(op->getNumResults());
    for (auto [result, position] : llvm::enumerate(termPositions)) {
      results[result] = blocked.getResult(result);
      if (position < 0)
        continue;
      auto type = cast<RankedTensorType>(op.getDpsInits()[result].getType());
      results[result] = tensor::CollapseShapeOp::create(
          rewriter, loc, results[result],
          blockGroups(type.getRank(), position));
    }

    SmallVector<linalg::GenericOp> created = {blocked};
    // The last `rest` iterations, summed into the original accumulator;
    // their per-term values placed after the blocks'.
    Value accumulator = init;
    if (rest != 0) {
      rewriter.setInsertionPoint(op);
      SmallVector<Value> tailInputs, tailInits;
      for (OpOperand &operand : op->getOpOperands()) {
        bool isInit = op.isDpsInit(&operand);
        Value value = operand.get();
        std::optional<unsigned> position =
            op.getMatchingIndexingMap(&operand).getResultPosition(loopExpr);
        if (position &&
            !(isInit &&
              operand.getOperandNumber() - op.getNumDpsInputs() == sum.result))
          value = sliceAlong(value, *position, whole, rest);
        (isInit ? tailInits : tailInputs).push_back(value);
      }
      auto tail = linalg::GenericOp::create(
          rewriter, loc, ValueRange(tailInits).getTypes(), tailInputs,
          tailInits, op.getIndexingMapsArray(), op.getIteratorTypesArray());
      rewriter.cloneRegionBefore(op.getRegion(), tail.getRegion(),
                                 tail.getRegion().end());
      // Its element indices along the loop start after the blocks'.
      SmallVector<OpFoldResult> tailOffsets(op.getNumLoops(), OpFoldResult());
      tailOffsets[loop] = rewriter.getIndexAttr(whole);
      linalg::offsetIndices(rewriter, cast<linalg::LinalgOp>(*tail),
                            tailOffsets);
      rewriter.setInsertionPointAfter(tail);
      auto insertAlong = [&](Value part, Value into, int64_t position,
                             int64_t offset) -> Value {
        auto type = cast<RankedTensorType>(into.getType());
        SmallVector<OpFoldResult> offsets(type.getRank(),
                                          rewriter.getIndexAttr(0));
        offsets[position] = rewriter.getIndexAttr(offset);
        SmallVector<OpFoldResult> strides(type.getRank(),
                                          rewriter.getIndexAttr(1));
        return tensor::InsertSliceOp::create(
            rewriter, loc, part, into, offsets,
            tensor::getMixedSizes(rewriter, loc, part), strides);
      };
      for (auto [result, position] : llvm::enumerate(termPositions)) {
        if (position < 0)
          continue;
        Value blocksPart =
            insertAlong(results[result], op.getDpsInits()[result], position, 0);
        results[result] =
            insertAlong(tail.getResult(result), blocksPart, position, whole);
      }
      created.push_back(tail);
      accumulator = tail.getResult(sum.result);
    }

    // The partials folded into the accumulator, in order.
    unsigned partialRank = partialExprs.size();
    SmallVector<AffineExpr> resultExprs;
    SmallVector<utils::IteratorType> foldIterators;
    for (unsigned d = 0; d < partialRank; ++d) {
      foldIterators.push_back(d == blocksPosition
                                  ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel);
      if (d != blocksPosition)
        resultExprs.push_back(getAffineDimExpr(d, context));
    }
    Operation *combiner = sum.combiner;
    auto fold = linalg::GenericOp::create(
        rewriter, loc, TypeRange{initType}, blocked.getResult(sum.result),
        accumulator,
        {rewriter.getMultiDimIdentityMap(partialRank),
         AffineMap::get(partialRank, 0, resultExprs, context)},
        foldIterators, [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
          linalg::YieldOp::create(
              b, bodyLoc, combine(b, bodyLoc, combiner, args[1], args[0]));
        });
    results[sum.result] = fold.getResult(0);
    rewriter.replaceOp(op, results);
    created.push_back(fold);
    return created;
  }

  void runOnOperation() override {
    if (lanes < 1 || maxSequential < 2) {
      getOperation().emitError("lanes must be at least 1 and max-sequential "
                               "at least 2, not ")
          << static_cast<int64_t>(lanes) << " and "
          << static_cast<int64_t>(maxSequential);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> reductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (floatSumOf(op))
        reductions.push_back(op);
    });
    for (linalg::GenericOp op : reductions) {
      std::optional<Sum> sum = floatSumOf(op);
      auto element = cast<FloatType>(
          getElementTypeOrSelf(op->getResult(sum->result).getType()));
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      if (llvm::is_contained(ranges, 0))
        continue;
      bool dynamicLength = false;
      for (auto [range, iterator] :
           llvm::zip(ranges, op.getIteratorTypesArray()))
        dynamicLength |= iterator == utils::IteratorType::reduction &&
                         ShapedType::isDynamic(range);
      // A sum of unknown length accumulates in f64, whose error stays
      // within f32's bound up to 2^35 terms added in sequence; f16 and
      // bf16 in f32.
      FloatType wide;
      if (dynamicLength && element.getWidth() <= 32)
        wide = Float64Type::get(&getContext());
      else if (element.getWidth() < 32)
        wide = Float32Type::get(&getContext());
      if (wide)
        op = widenAccumulator(rewriter, op, *sum, wide);
      if (dynamicLength)
        continue;
      // Adjacent reduction loops are one row to cut, unless the outer one
      // can become a loop of partial sums as it is.
      if (std::optional<Cut> cut = planCut(op); cut && cut->block > 1)
        op = collapseAdjacentReductions(rewriter, op);
      SmallVector<linalg::GenericOp> work = {op};
      while (!work.empty()) {
        linalg::GenericOp next = work.pop_back_val();
        std::optional<Sum> nextSum = floatSumOf(next);
        std::optional<Cut> cut = nextSum ? planCut(next) : std::optional<Cut>();
        if (!cut)
          continue;
        work.append(cutLoop(rewriter, next, *nextSum, *cut));
      }
    }
  }
};

} // namespace
