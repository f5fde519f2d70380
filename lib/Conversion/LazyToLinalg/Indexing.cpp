//===- Indexing.cpp - Rows at runtime indices to tensor slices ------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazy.index_row becomes a rank-reducing tensor.extract_slice and
// lazy.update_row a rank-reducing tensor.insert_slice, at the index read
// from its 0-d tensor and clamped to the leading axis.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

struct IndexRowLowering : OpConversionPattern<IndexRowOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IndexRowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
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
    RowSlice slice =
        rowSlice(rewriter, op.getLoc(), adaptor.getInput(), adaptor.getIndex());
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, adaptor.getValue(), adaptor.getInput(), slice.offsets, slice.sizes,
        slice.strides);
    return success();
  }
};

} // namespace

void mlir::lazy::populateIndexingLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<IndexRowLowering, UpdateRowLowering>(patterns.getContext());
}
