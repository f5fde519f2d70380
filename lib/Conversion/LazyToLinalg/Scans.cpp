//===- Scans.cpp - Positions of extremes and running sums -----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazy.argmax / lazy.argmin become one linalg.generic that reduces the axis
// into two accumulators, the extreme so far and its position, in order (a
// strict comparison keeps the first). lazy.cumsum becomes a loop nest with
// the summed axis outside the dimensions after it, so that the innermost
// loop reads the previous row contiguously and LLVM can vectorize it.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// Whether `x` replaces the extreme `best` so far: strictly beyond it, or a
/// NaN where `best` is not (numpy's argmax/argmin return the first NaN).
Value replacesExtreme(OpBuilder &b, Location loc, Value x, Value best,
                      bool isMax) {
  if (!isa<FloatType>(x.getType()))
    return arith::CmpIOp::create(
        b, loc,
        integerPredicate(isMax ? arith::CmpIPredicate::sgt
                               : arith::CmpIPredicate::slt,
                         x.getType()),
        x, best);
  Value beyond = arith::CmpFOp::create(
      b, loc, isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x,
      best);
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value bestIsNumber =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, best, best);
  return arith::OrIOp::create(
      b, loc, beyond, arith::AndIOp::create(b, loc, isNaN, bestIsNumber));
}

template <typename OpTy> struct ArgReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  static constexpr bool isMax = std::is_same_v<OpTy, ArgMaxOp>;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = inputType.getRank(), axis = op.getAxis();
    Type element = inputType.getElementType(), i64 = rewriter.getI64Type();

    // The accumulators: the input's shape without the axis.
    SmallVector<int64_t> shape;
    SmallVector<Value> dynamicSizes;
    SmallVector<AffineExpr> kept;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis)
        continue;
      shape.push_back(inputType.getDimSize(d));
      kept.push_back(rewriter.getAffineDimExpr(d));
      if (inputType.isDynamicDim(d))
        dynamicSizes.push_back(tensor::DimOp::create(rewriter, loc, input, d));
    }
    auto filled = [&](Type type, TypedAttr value) {
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, shape, type, dynamicSizes);
      Value constant = arith::ConstantOp::create(rewriter, loc, value);
      return linalg::FillOp::create(rewriter, loc, constant, empty)
          .getResult(0);
    };
    Value best = filled(element, reductionIdentity(rewriter,
                                                   isMax ? ReductionKind::Max
                                                         : ReductionKind::Min,
                                                   element));
    Value position = filled(i64, rewriter.getI64IntegerAttr(0));

    AffineMap reduced = AffineMap::get(rank, 0, kept, rewriter.getContext());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators[axis] = utils::IteratorType::reduction;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{best.getType(), position.getType()}, input,
        ValueRange{best, position},
        {rewriter.getMultiDimIdentityMap(rank), reduced, reduced}, iterators,
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          Value here = arith::IndexCastOp::create(
              b, nestedLoc, i64, linalg::IndexOp::create(b, nestedLoc, axis));
          Value replace =
              replacesExtreme(b, nestedLoc, args[0], args[1], isMax);
          linalg::YieldOp::create(
              b, nestedLoc,
              ValueRange{arith::SelectOp::create(b, nestedLoc, replace, args[0],
                                                 args[1]),
                         arith::SelectOp::create(b, nestedLoc, replace, here,
                                                 args[2])});
        });
    Value result = generic.getResult(1);
    if (op.getKeepDims())
      result = buildReshape(rewriter, loc, result,
                            cast<RankedTensorType>(op.getType()), dynamicSizes);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct CumsumLowering : OpConversionPattern<CumsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CumsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank(), axis = op.getAxis();
    bool reverse = op.getReverse();
    bool isFloat = isa<FloatType>(type.getElementType());

    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lower(rank, zero), steps(rank, one), upper;
    for (int64_t d = 0; d < rank; ++d)
      upper.push_back(tensor::DimOp::create(rewriter, loc, input, d));
    Value last = arith::SubIOp::create(rewriter, loc, upper[axis], one);
    Value empty = createEmptyLike(rewriter, loc, type, input);

    // Element j of the axis is x[j] plus the result at its predecessor
    // (j - 1, or j + 1 from the end); the first reads no predecessor.
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lower, upper, steps, empty,
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs,
            ValueRange results) -> scf::ValueVector {
          SmallVector<Value> here(ivs);
          if (reverse)
            here[axis] = arith::SubIOp::create(b, nestedLoc, last, ivs[axis]);
          Value x = tensor::ExtractOp::create(b, nestedLoc, input, here);
          Value isFirst = arith::CmpIOp::create(
              b, nestedLoc, arith::CmpIPredicate::eq, ivs[axis], zero);
          SmallVector<Value> previous(here);
          Value neighbour =
              reverse ? arith::AddIOp::create(b, nestedLoc, here[axis], one)
                            .getResult()
                      : arith::SubIOp::create(b, nestedLoc, here[axis], one)
                            .getResult();
          // Clamped so the first element's (unused) read stays in bounds.
          previous[axis] = arith::SelectOp::create(b, nestedLoc, isFirst,
                                                   here[axis], neighbour);
          Value before =
              tensor::ExtractOp::create(b, nestedLoc, results[0], previous);
          Value sum =
              isFloat
                  ? arith::AddFOp::create(b, nestedLoc, before, x).getResult()
                  : arith::AddIOp::create(b, nestedLoc, before, x).getResult();
          Value value = arith::SelectOp::create(b, nestedLoc, isFirst, x, sum);
          return {
              tensor::InsertOp::create(b, nestedLoc, value, results[0], here)};
        });
    rewriter.replaceOp(op, nest.results);
    return success();
  }
};

} // namespace

void mlir::lazy::populateScanLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ArgReduceLowering<ArgMaxOp>, ArgReduceLowering<ArgMinOp>,
               CumsumLowering>(patterns.getContext());
}
