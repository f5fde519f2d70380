//===- DataMovement.cpp - Lower constants, reshapes, slices, concats ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers the ops that move data without computing on it to the
// tensor dialect (and constants to arith.constant).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {

struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getValueAttr());
    return success();
  }
};

struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       buildReshape(rewriter, op.getLoc(), adaptor.getInput(),
                                    op.getType(), adaptor.getSizes()));
    return success();
  }
};

/// A strided slice is exactly tensor.extract_slice.
struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    // An empty slice reads nothing (and its start may be one past the end,
    // which tensor.extract_slice rejects).
    if (llvm::is_contained(resultType.getShape(), 0)) {
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, resultType.getShape(),
                                                   resultType.getElementType());
      return success();
    }
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (auto [start, size, step] :
         llvm::zip_equal(op.getStart(), resultType.getShape(), op.getStep())) {
      offsets.push_back(rewriter.getIndexAttr(start));
      sizes.push_back(rewriter.getIndexAttr(size));
      strides.push_back(rewriter.getIndexAttr(step));
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, resultType, adaptor.getInput(), offsets, sizes, strides);
    return success();
  }
};

/// Concat writes each operand into its place in one fresh tensor.
struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t axis = op.getAxisAttr().getInt();
    int64_t rank = resultType.getRank();
    ValueRange inputs = adaptor.getInputs();

    // Sizes of the result: the first operand's, and along the axis the sum.
    SmallVector<OpFoldResult> firstSizes =
        tensor::getMixedSizes(rewriter, loc, inputs.front());
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (!resultType.isDynamicDim(d))
        continue;
      if (d != axis) {
        dynamicSizes.push_back(
            getValueOrCreateConstantIndexOp(rewriter, loc, firstSizes[d]));
        continue;
      }
      Value total = arith::ConstantIndexOp::create(rewriter, loc, 0);
      for (Value input : inputs)
        total = arith::AddIOp::create(
            rewriter, loc, total,
            tensor::DimOp::create(rewriter, loc, input, axis));
      dynamicSizes.push_back(total);
    }
    Value result =
        tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                resultType.getElementType(), dynamicSizes);

    OpFoldResult offset = rewriter.getIndexAttr(0);
    for (Value input : inputs) {
      // Empty operands add nothing (their offset may be one past the end).
      if (llvm::is_contained(cast<RankedTensorType>(input.getType()).getShape(),
                             0))
        continue;
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, input);
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      offsets[axis] = offset;
      // A splat (a padding band of zeros) fills its place: inserting the
      // constant would copy it there, a strided copy on buffers.
      DenseElementsAttr constant;
      if (matchPattern(input, m_Constant(&constant)) && constant.isSplat()) {
        Value slot = tensor::ExtractSliceOp::create(rewriter, loc, result,
                                                    offsets, sizes, strides);
        Value value = arith::ConstantOp::create(
            rewriter, loc, constant.getSplatValue<TypedAttr>());
        input = linalg::FillOp::create(rewriter, loc, value, slot).getResult(0);
      }
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, sizes, strides);
      // Advance along the axis, staying a constant when both sizes are.
      std::optional<int64_t> staticOffset = getConstantIntValue(offset);
      std::optional<int64_t> staticSize = getConstantIntValue(sizes[axis]);
      if (staticOffset && staticSize) {
        offset = rewriter.getIndexAttr(*staticOffset + *staticSize);
        continue;
      }
      offset = arith::AddIOp::create(
                   rewriter, loc,
                   getValueOrCreateConstantIndexOp(rewriter, loc, offset),
                   getValueOrCreateConstantIndexOp(rewriter, loc, sizes[axis]))
                   .getResult();
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::lazy::populateDataMovementLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<ConstantLowering, ReshapeLowering, SliceLowering, ConcatLowering>(
          patterns.getContext());
}
