//===- Indexing.cpp - Rows at runtime indices to tensor slices ------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazy.index_row becomes a rank-reducing tensor.extract_slice and
// lazy.update_row a rank-reducing tensor.insert_slice, at the index read
// from its 0-d tensor and clamped to the leading axis. lazy.gather becomes
// a parallel linalg.generic over the indices that extracts each element
// (so it fuses with the ops producing its indices and consuming its
// result); lazy.scatter_add, whose writes may collide, a loop nest over the
// updates that adds each into the result in order.
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

/// The row offsets, sizes and strides of `input` at the 0-d `index`,
/// clamped to [0, rows - 1].
struct RowSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

RowSlice rowSlice(OpBuilder &b, Location loc, Value input, Value index) {
  auto type = cast<RankedTensorType>(input.getType());
  Value position = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tensor::ExtractOp::create(b, loc, index, ValueRange{}));
  Value rows = tensor::DimOp::create(b, loc, input, 0);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, rows, one);
  position = arith::MaxSIOp::create(
      b, loc, arith::MinSIOp::create(b, loc, position, last), zero);
  RowSlice slice;
  slice.offsets.assign(type.getRank(), b.getIndexAttr(0));
  slice.offsets[0] = position;
  slice.sizes.push_back(b.getIndexAttr(1));
  for (int64_t d = 1; d < type.getRank(); ++d)
    slice.sizes.push_back(tensor::getMixedSize(b, loc, input, d));
  slice.strides.assign(type.getRank(), b.getIndexAttr(1));
  return slice;
}

/// Whether the rows of `tensor` (its dimensions after the first) are known
/// to hold no elements: a slice of one would have offsets into a dimension
/// of size 0, which the slice ops' verifiers reject.
bool hasEmptyRows(Value tensor) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(tensor.getType()).getShape();
  return !shape.empty() && llvm::is_contained(shape.drop_front(), 0);
}

struct IndexRowLowering : OpConversionPattern<IndexRowOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IndexRowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (hasEmptyRows(adaptor.getInput())) {
      // An empty row: only its (dynamic) sizes, which are the input's.
      RankedTensorType type = op.getType();
      SmallVector<Value> dynamicSizes;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          dynamicSizes.push_back(tensor::DimOp::create(
              rewriter, op.getLoc(), adaptor.getInput(), d + 1));
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type, dynamicSizes);
      return success();
    }
    RowSlice slice =
        rowSlice(rewriter, op.getLoc(), adaptor.getInput(), adaptor.getIndex());
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getType(), adaptor.getInput(), slice.offsets, slice.sizes,
        slice.strides);
    return success();
  }
};

struct UpdateRowLowering : OpConversionPattern<UpdateRowOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(UpdateRowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Writing an empty row changes nothing.
    if (hasEmptyRows(adaptor.getInput())) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    RowSlice slice =
        rowSlice(rewriter, op.getLoc(), adaptor.getInput(), adaptor.getIndex());
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, adaptor.getValue(), adaptor.getInput(), slice.offsets, slice.sizes,
        slice.strides);
    return success();
  }
};

/// The position an index selects along an axis of `size` elements: an
/// integer `index` counts from the end when negative and is clamped to
/// [0, size - 1] (a kernel cannot raise an error; the API checks bounds it
/// can see).
Value axisPosition(OpBuilder &b, Location loc, Value index, Value size) {
  Value position = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, position, zero);
  position = arith::SelectOp::create(
      b, loc, negative, arith::AddIOp::create(b, loc, position, size),
      position);
  Value last = arith::SubIOp::create(b, loc, size, one);
  return arith::MaxSIOp::create(
      b, loc, arith::MinSIOp::create(b, loc, position, last), zero);
}

struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), indices = adaptor.getIndices();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getAxis();
    Value size = tensor::DimOp::create(rewriter, loc, input, axis);
    Value init = createEmptyLike(rewriter, loc, type, indices);
    Value result = buildParallelGeneric(
        rewriter, loc, indices, rewriter.getMultiDimIdentityMap(type.getRank()),
        init, [&](OpBuilder &b, Location nestedLoc, ValueRange args) -> Value {
          SmallVector<Value> position;
          for (int64_t d = 0, e = type.getRank(); d < e; ++d)
            position.push_back(d == axis
                                   ? axisPosition(b, nestedLoc, args[0], size)
                                   : linalg::IndexOp::create(b, nestedLoc, d));
          return tensor::ExtractOp::create(b, nestedLoc, input, position);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ScatterAddLowering : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value updates = adaptor.getUpdates(), indices = adaptor.getIndices();
    auto updatesType = cast<RankedTensorType>(updates.getType());
    int64_t axis = op.getAxis();
    Value size = tensor::DimOp::create(rewriter, loc, adaptor.getInput(), axis);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lower(updatesType.getRank(), zero),
        steps(updatesType.getRank(), one), upper;
    for (int64_t d = 0, e = updatesType.getRank(); d < e; ++d)
      upper.push_back(tensor::DimOp::create(rewriter, loc, updates, d));
    bool isFloat = isa<FloatType>(updatesType.getElementType());
    // The loop adds into a copy: bufferization would otherwise write into
    // the input's buffer, which may be a function argument the caller
    // still reads. (A linalg.copy: canonicalization erases an identity
    // linalg.generic.)
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    Value copy =
        linalg::CopyOp::create(
            rewriter, loc, adaptor.getInput(),
            createEmptyLike(rewriter, loc, inputType, adaptor.getInput()))
            .getResult(0);
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lower, upper, steps, copy,
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs,
            ValueRange accumulators) -> scf::ValueVector {
          Value update = tensor::ExtractOp::create(b, nestedLoc, updates, ivs);
          Value index = tensor::ExtractOp::create(b, nestedLoc, indices, ivs);
          SmallVector<Value> target(ivs);
          target[axis] = axisPosition(b, nestedLoc, index, size);
          Value current =
              tensor::ExtractOp::create(b, nestedLoc, accumulators[0], target);
          Value sum = isFloat
                          ? arith::AddFOp::create(b, nestedLoc, current, update)
                                .getResult()
                          : arith::AddIOp::create(b, nestedLoc, current, update)
                                .getResult();
          return {tensor::InsertOp::create(b, nestedLoc, sum, accumulators[0],
                                           target)};
        });
    rewriter.replaceOp(op, nest.results);
    return success();
  }
};

} // namespace

void mlir::lazy::populateIndexingLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<IndexRowLowering, UpdateRowLowering, GatherLowering,
               ScatterAddLowering>(patterns.getContext());
}
