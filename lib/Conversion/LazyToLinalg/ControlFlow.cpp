//===- ControlFlow.cpp - lazy.if and lazy.while to scf --------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazy.if becomes scf.if and lazy.while scf.while, with their regions moved
// over (their ops are converted in place, so fusion and tiling later see
// linalg inside the scf regions). A 0-d i1 predicate is read with
// tensor.extract; lazy.yield becomes scf.yield, or scf.condition at the end
// of a loop's condition region.
//
// A counted lazy.while (its condition `counter < bound`, its body stepping
// the counter by a constant) becomes an scf.for instead: bufferization
// copies every value an scf.while's condition passes on, at every step
// (an ONNX LSTM's two states and its counter), where an scf.for's carried
// values stay in place.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {

Value readPredicate(OpBuilder &b, Location loc, Value predicate) {
  return tensor::ExtractOp::create(b, loc, predicate, ValueRange{});
}

struct IfLowering : OpConversionPattern<IfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ifOp =
        scf::IfOp::create(rewriter, loc, op.getResultTypes(),
                          readPredicate(rewriter, loc, adaptor.getCondition()),
                          /*addThenBlock=*/false, /*addElseBlock=*/false);
    rewriter.inlineRegionBefore(op.getThenRegion(), ifOp.getThenRegion(),
                                ifOp.getThenRegion().end());
    rewriter.inlineRegionBefore(op.getElseRegion(), ifOp.getElseRegion(),
                                ifOp.getElseRegion().end());
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

/// A lazy.while that counts: carried value `counter`, a 0-d signed integer,
/// runs while `counter < bound` (bound defined above the loop), and the body
/// steps it by the constant `step` > 0.
struct CountedLoop {
  unsigned counter;
  Value bound;
  int64_t step;
};

std::optional<CountedLoop> matchCountedLoop(WhileOp op) {
  Block &condition = op.getCondition().front();
  if (condition.getOperations().size() != 2)
    return std::nullopt;
  auto compare = dyn_cast<CompareOp>(condition.front());
  auto yield = cast<YieldOp>(condition.getTerminator());
  if (!compare || compare.getPredicate() != ComparePredicate::lt ||
      yield.getValues().front() != compare.getResult())
    return std::nullopt;
  auto counter = dyn_cast<BlockArgument>(compare.getLhs());
  Value bound = compare.getRhs();
  if (!counter || counter.getOwner() != &condition ||
      op->isAncestor(bound.getParentRegion()->getParentOp()))
    return std::nullopt;
  Type element = cast<RankedTensorType>(counter.getType()).getElementType();
  if (!element.isInteger() || isUnsignedInteger(element))
    return std::nullopt;

  // The body yields counter + step.
  Block &body = op.getBody().front();
  unsigned index = counter.getArgNumber();
  Value counterInBody = body.getArgument(index);
  auto next =
      cast<YieldOp>(body.getTerminator()).getValues()[index].getDefiningOp();
  auto add = dyn_cast_or_null<AddOp>(next);
  if (!add || add->getBlock() != &body)
    return std::nullopt;
  Value stepValue = add.getLhs() == counterInBody   ? add.getRhs()
                    : add.getRhs() == counterInBody ? add.getLhs()
                                                    : Value();
  DenseIntElementsAttr stepAttr;
  if (!stepValue || !matchPattern(stepValue, m_Constant(&stepAttr)))
    return std::nullopt;
  APInt step = stepAttr.getSplatValue<APInt>();
  if (!step.isStrictlyPositive())
    return std::nullopt;
  // The while loop wraps where counter + step passes the type's largest
  // value; scf.for must not get there. A step of 1 stops at bound first.
  if (!step.isOne()) {
    DenseIntElementsAttr boundAttr;
    if (!matchPattern(bound, m_Constant(&boundAttr)))
      return std::nullopt;
    APInt last = boundAttr.getSplatValue<APInt>();
    bool overflow = false;
    (void)last.sadd_ov(step - 1, overflow);
    if (overflow)
      return std::nullopt;
  }
  return CountedLoop{index, bound, step.getSExtValue()};
}

/// A counted lazy.while as scf.for over index from the counter's initial
/// value to the bound; the other carried values are its iteration
/// arguments. The counter's final value is the first one at or past the
/// bound (the initial value when the loop does not run).
LogicalResult lowerCountedLoop(WhileOp op, const CountedLoop &loop,
                               ValueRange inits,
                               ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto counterType = cast<RankedTensorType>(inits[loop.counter].getType());
  Type integer = counterType.getElementType();
  auto asIndex = [&](Value tensor) -> Value {
    Value scalar = tensor::ExtractOp::create(rewriter, loc, tensor);
    return arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(),
                                      scalar);
  };
  Value lower = asIndex(inits[loop.counter]);
  Value upper = asIndex(rewriter.getRemappedValue(loop.bound));
  Value step = arith::ConstantIndexOp::create(rewriter, loc, loop.step);
  SmallVector<Value> carried;
  for (auto [i, init] : llvm::enumerate(inits))
    if (i != loop.counter)
      carried.push_back(init);
  auto forOp = scf::ForOp::create(rewriter, loc, lower, upper, step, carried);

  // The body's block moves into the loop's; the counter is the induction
  // variable as a 0-d tensor.
  Block *forBody = forOp.getBody();
  rewriter.setInsertionPointToStart(forBody);
  Value iv = arith::IndexCastOp::create(rewriter, loc, integer,
                                        forOp.getInductionVar());
  SmallVector<Value> arguments;
  for (unsigned i = 0, e = inits.size(), next = 0; i < e; ++i)
    arguments.push_back(i == loop.counter
                            ? Value(tensor::FromElementsOp::create(
                                  rewriter, loc, counterType, iv))
                            : Value(forOp.getRegionIterArgs()[next++]));
  Block &body = op.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  rewriter.inlineBlockBefore(&body, forBody, forBody->end(), arguments);
  SmallVector<Value> yielded(yield.getValues());
  yielded.erase(yielded.begin() + loop.counter);
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<YieldOp>(yield, yielded);

  // After the loop: max(lower, upper) for a step of 1, else lower +
  // ceil(max(upper - lower, 0) / step) * step.
  rewriter.setInsertionPointAfter(forOp);
  Value last;
  if (loop.step == 1) {
    last = arith::MaxSIOp::create(rewriter, loc, lower, upper);
  } else {
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value distance = arith::MaxSIOp::create(
        rewriter, loc, arith::SubIOp::create(rewriter, loc, upper, lower),
        zero);
    Value trips = arith::CeilDivSIOp::create(rewriter, loc, distance, step);
    last = arith::AddIOp::create(
        rewriter, loc, lower,
        arith::MulIOp::create(rewriter, loc, trips, step));
  }
  Value final = tensor::FromElementsOp::create(
      rewriter, loc, counterType,
      ValueRange{arith::IndexCastOp::create(rewriter, loc, integer, last)});
  SmallVector<Value> results(forOp.getResults());
  results.insert(results.begin() + loop.counter, final);
  rewriter.replaceOp(op, results);
  return success();
}

struct WhileLowering : OpConversionPattern<WhileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WhileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<CountedLoop> loop = matchCountedLoop(op))
      return lowerCountedLoop(op, *loop, adaptor.getInits(), rewriter);
    // The generic builder: empty regions, which the lazy ones replace.
    auto whileOp =
        scf::WhileOp::create(rewriter, op.getLoc(), op.getResultTypes(),
                             adaptor.getInits(), ArrayRef<NamedAttribute>{});
    rewriter.inlineRegionBefore(op.getCondition(), whileOp.getBefore(),
                                whileOp.getBefore().end());
    rewriter.inlineRegionBefore(op.getBody(), whileOp.getAfter(),
                                whileOp.getAfter().end());
    rewriter.replaceOp(op, whileOp.getResults());
    return success();
  }
};

struct YieldLowering : OpConversionPattern<YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *parent = op->getParentOp();
    if (auto whileOp = dyn_cast<scf::WhileOp>(parent);
        whileOp && op->getParentRegion() == &whileOp.getBefore()) {
      Value more = readPredicate(rewriter, op.getLoc(), adaptor.getValues()[0]);
      rewriter.replaceOpWithNewOp<scf::ConditionOp>(
          op, more, whileOp.getBefore().front().getArguments());
      return success();
    }
    if (!isa<scf::IfOp, scf::WhileOp, scf::ForOp>(parent))
      return rewriter.notifyMatchFailure(op, "parent not lowered yet");
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, adaptor.getValues());
    return success();
  }
};

} // namespace

void mlir::lazy::populateControlFlowLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<IfLowering, WhileLowering, YieldLowering>(patterns.getContext());
}
