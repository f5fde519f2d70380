//===- Reductions.cpp - Lower reductions, matmul and composites -----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers the ops that reduce: reduce_* to linalg.generic with
// reduction iterators, matmul to linalg.matmul / linalg.batch_matmul, and the
// composites lazy-decompose leaves behind (dynamic shapes) directly.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::lazy;

/// Returns the number of elements `axes` of `input` span, as a scalar of
/// `element` type.
static Value reducedElementCount(OpBuilder &b, Location loc, Value input,
                                 ArrayRef<int64_t> axes, Type element) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t staticCount = 1;
  Value dynamicCount;
  for (int64_t axis : axes) {
    if (!type.isDynamicDim(axis)) {
      staticCount *= type.getDimSize(axis);
      continue;
    }
    Value dim = tensor::DimOp::create(b, loc, input, axis);
    dynamicCount =
        dynamicCount ? arith::MulIOp::create(b, loc, dynamicCount, dim) : dim;
  }
  Value count = arith::ConstantIndexOp::create(b, loc, staticCount);
  if (dynamicCount)
    count = arith::MulIOp::create(b, loc, count, dynamicCount);
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  return arith::SIToFPOp::create(b, loc, element, asInt);
}

/// Map from the input's iteration space to a tensor with `axis` removed.
static AffineMap dropAxisMap(OpBuilder &b, int64_t rank, int64_t axis) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      exprs.push_back(b.getAffineDimExpr(d));
  return AffineMap::get(rank, 0, exprs, b.getContext());
}

namespace {

template <typename OpTy, ReductionKind Kind>
struct ReductionLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       buildReduction(rewriter, op.getLoc(), adaptor.getInput(),
                                      op.getAxes(), Kind, op.getKeepDims()));
    return success();
  }
};

/// mean = sum / count, for shapes lazy-decompose could not handle.
struct ReduceMeanLowering : OpConversionPattern<ReduceMeanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReduceMeanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    Value sum = buildReduction(rewriter, loc, input, op.getAxes(),
                               ReductionKind::Sum, op.getKeepDims());
    auto sumType = cast<RankedTensorType>(sum.getType());
    Value count = reducedElementCount(rewriter, loc, input, op.getAxes(),
                                      sumType.getElementType());
    Value mean = buildParallelGeneric(
        rewriter, loc, sum, rewriter.getMultiDimIdentityMap(sumType.getRank()),
        createEmptyLike(rewriter, loc, sumType, sum),
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
          return arith::DivFOp::create(b, bodyLoc, args[0], count);
        });
    rewriter.replaceOp(op, mean);
    return success();
  }
};

/// Softmax and log-softmax in the stable form, for any shape: a max
/// reduction, exp(x - max), a sum reduction and the final normalization.
template <typename OpTy, bool IsLog>
struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t rank = type.getRank();
    int64_t axis = op.getAxisAttr().getInt();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap rowMap = dropAxisMap(rewriter, rank, axis);

    // The max only shifts the exponents: a NaN in the row makes the sum,
    // and so every result, NaN whatever the max is. maxnumf, which need
    // not order NaNs and signed zeros, is half of maximumf's x86 code.
    Value max = buildReduction(rewriter, loc, x, axis, ReductionKind::MaxNum);
    Value exp = buildParallelGeneric(
        rewriter, loc, {x, max}, {identity, rowMap},
        createEmptyLike(rewriter, loc, type, x),
        [](OpBuilder &b, Location bodyLoc, ValueRange args) {
          Value shifted = arith::SubFOp::create(b, bodyLoc, args[0], args[1]);
          return math::ExpOp::create(b, bodyLoc, shifted).getResult();
        });
    Value sum = buildReduction(rewriter, loc, exp, axis, ReductionKind::Sum);
    Value result;
    if (IsLog) {
      result = buildParallelGeneric(
          rewriter, loc, {x, max, sum}, {identity, rowMap, rowMap},
          createEmptyLike(rewriter, loc, type, x),
          [](OpBuilder &b, Location bodyLoc, ValueRange args) {
            Value shifted = arith::SubFOp::create(b, bodyLoc, args[0], args[1]);
            Value logSum = math::LogOp::create(b, bodyLoc, args[2]);
            return arith::SubFOp::create(b, bodyLoc, shifted, logSum)
                .getResult();
          });
    } else {
      // Each row times its sum's reciprocal (as PyTorch and ONNX Runtime
      // compute it): one division per row rather than per element, whose
      // vector form is the slowest instruction of the loop.
      auto rowType = cast<RankedTensorType>(sum.getType());
      Value reciprocal = buildParallelGeneric(
          rewriter, loc, {sum},
          {rewriter.getMultiDimIdentityMap(rowType.getRank())},
          createEmptyLike(rewriter, loc, rowType, sum),
          [](OpBuilder &b, Location bodyLoc, ValueRange args) {
            Value one = arith::ConstantOp::create(
                b, bodyLoc, b.getFloatAttr(args[0].getType(), 1.0));
            return arith::DivFOp::create(b, bodyLoc, one, args[0]).getResult();
          });
      result = buildParallelGeneric(
          rewriter, loc, {exp, reciprocal}, {identity, rowMap},
          createEmptyLike(rewriter, loc, type, x),
          [](OpBuilder &b, Location bodyLoc, ValueRange args) {
            return arith::MulFOp::create(b, bodyLoc, args[0], args[1])
                .getResult();
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Matmul: linalg.matmul for rank 2, linalg.batch_matmul for rank 3, and
/// batch dimensions collapsed into one above that. With two or more dynamic
/// batch dimensions (eager mode), one linalg.generic contraction over all
/// dimensions instead: expanding the collapsed product back would need a
/// memref.expand_shape with two dynamic sizes in one group, which
/// upstream's expand-strided-metadata crashes on (MLIR 22).
struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    RankedTensorType resultType = op.getType();
    int64_t rank = resultType.getRank();

    // A product with no elements (a size known to be 0) is just its shape:
    // collapsing [?, 0] batch dimensions would give memref.collapse_shape
    // a static 0 where its verifier wants a dynamic size (MLIR 22).
    if (llvm::is_contained(resultType.getShape(), 0)) {
      SmallVector<Value> dynamicSizes;
      for (int64_t d = 0; d < rank; ++d)
        if (resultType.isDynamicDim(d))
          dynamicSizes.push_back(
              tensor::DimOp::create(rewriter, loc, d == rank - 1 ? rhs : lhs, d)
                  .getResult());
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, resultType,
                                                   dynamicSizes);
      return success();
    }

    int64_t dynamicBatch = 0;
    for (int64_t d = 0; d + 2 < rank; ++d)
      dynamicBatch += resultType.isDynamicDim(d);
    if (dynamicBatch > 1) {
      rewriter.replaceOp(op,
                         buildContraction(rewriter, loc, lhs, rhs, resultType));
      return success();
    }

    if (rank > 3) {
      // [b0, ..., bk, m, n] -> [b0*...*bk, m, n] and back.
      ReassociationIndices batch;
      for (int64_t d = 0; d < rank - 2; ++d)
        batch.push_back(d);
      SmallVector<ReassociationIndices> groups = {
          batch, {rank - 2}, {rank - 1}};
      Value lhs3 = tensor::CollapseShapeOp::create(rewriter, loc, lhs, groups);
      Value rhs3 = tensor::CollapseShapeOp::create(rewriter, loc, rhs, groups);
      Value product = buildProduct(rewriter, loc, lhs3, rhs3);
      // The result type may know batch sizes that one operand leaves dynamic.
      int64_t batchSize = 1;
      for (int64_t d = 0; d < rank - 2; ++d)
        batchSize =
            resultType.isDynamicDim(d) || ShapedType::isDynamic(batchSize)
                ? ShapedType::kDynamic
                : batchSize * resultType.getDimSize(d);
      auto productType =
          RankedTensorType::get({batchSize, resultType.getDimSize(rank - 2),
                                 resultType.getDimSize(rank - 1)},
                                resultType.getElementType());
      if (product.getType() != productType)
        product = tensor::CastOp::create(rewriter, loc, productType, product);
      SmallVector<OpFoldResult> outputShape;
      for (int64_t d = 0; d < rank; ++d) {
        if (!resultType.isDynamicDim(d)) {
          outputShape.push_back(
              rewriter.getIndexAttr(resultType.getDimSize(d)));
          continue;
        }
        // Batch and row sizes come from the lhs, columns from the rhs.
        Value source = d == rank - 1 ? rhs : lhs;
        outputShape.push_back(
            tensor::DimOp::create(rewriter, loc, source, d).getResult());
      }
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
          op, resultType, product, groups, outputShape);
      return success();
    }
    rewriter.replaceOp(op, buildProduct(rewriter, loc, lhs, rhs));
    return success();
  }

  /// Builds `[b..., m, k] x [b..., k, n]` as one generic: loops
  /// (b..., m, n, k), k the reduction, into a zero-filled accumulator.
  static Value buildContraction(OpBuilder &b, Location loc, Value lhs,
                                Value rhs, RankedTensorType resultType) {
    int64_t rank = resultType.getRank();
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (resultType.isDynamicDim(d))
        dynamicSizes.push_back(
            tensor::DimOp::create(b, loc, d == rank - 1 ? rhs : lhs, d));
    Type element = resultType.getElementType();
    Value empty = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                          element, dynamicSizes);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
    SmallVector<AffineExpr> batch;
    for (int64_t d = 0; d < rank - 2; ++d)
      batch.push_back(b.getAffineDimExpr(d));
    AffineExpr m = b.getAffineDimExpr(rank - 2);
    AffineExpr n = b.getAffineDimExpr(rank - 1);
    AffineExpr k = b.getAffineDimExpr(rank);
    auto map = [&](AffineExpr row, AffineExpr column) {
      SmallVector<AffineExpr> exprs(batch);
      exprs.push_back(row);
      exprs.push_back(column);
      return AffineMap::get(rank + 1, 0, exprs, b.getContext());
    };
    SmallVector<AffineMap> maps = {map(m, k), map(k, n), map(m, n)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    bool isFloat = isa<FloatType>(element);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{resultType}, ValueRange{lhs, rhs}, ValueRange{init},
        maps, iterators,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          Value product =
              isFloat
                  ? arith::MulFOp::create(nested, nestedLoc, args[0], args[1])
                        .getResult()
                  : arith::MulIOp::create(nested, nestedLoc, args[0], args[1])
                        .getResult();
          Value sum =
              isFloat
                  ? arith::AddFOp::create(nested, nestedLoc, args[2], product)
                        .getResult()
                  : arith::AddIOp::create(nested, nestedLoc, args[2], product)
                        .getResult();
          linalg::YieldOp::create(nested, nestedLoc, sum);
        });
    return generic.getResult(0);
  }

  /// Builds the rank-2 or rank-3 product into a zero-filled accumulator.
  static Value buildProduct(OpBuilder &b, Location loc, Value lhs, Value rhs) {
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    int64_t rank = lhsType.getRank();
    SmallVector<int64_t> shape(lhsType.getShape().drop_back());
    shape.push_back(rhsType.getDimSize(rank - 1));
    if (rank == 3 && ShapedType::isDynamic(shape[0]))
      shape[0] = rhsType.getDimSize(0);
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (!ShapedType::isDynamic(shape[d]))
        continue;
      Value source = d == rank - 1 ? rhs : lhs;
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, source, d));
    }
    Type element = lhsType.getElementType();
    auto resultType = RankedTensorType::get(shape, element);
    Value empty = tensor::EmptyOp::create(b, loc, shape, element, dynamicSizes);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
    if (rank == 2)
      return linalg::MatmulOp::create(b, loc, TypeRange{resultType},
                                      ValueRange{lhs, rhs}, ValueRange{init})
          .getResult(0);
    return linalg::BatchMatmulOp::create(b, loc, TypeRange{resultType},
                                         ValueRange{lhs, rhs}, ValueRange{init})
        .getResult(0);
  }
};

/// `images` [N, C, H, W] inside `padding` ([top, bottom, left, right])
/// zeros: a zero-filled tensor with the images written into its interior by
/// a loop. (`x + 0.0`: an identity loop would fold away, and inserting the
/// images themselves becomes a strided memref.copy on buffers, which the
/// runtime does element by element.) lazy-cpu-convolution-layout
/// recognizes this form and pads while it transposes.
static Value padImages(OpBuilder &b, Location loc, Value images,
                       ArrayRef<int64_t> padding) {
  Type element = getElementTypeOrSelf(images.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, images);
  SmallVector<OpFoldResult> paddedSizes = sizes;
  for (int d = 0; d < 2; ++d) {
    int64_t extra = padding[2 * d] + padding[2 * d + 1];
    OpFoldResult &size = paddedSizes[2 + d];
    if (std::optional<int64_t> known = getConstantIntValue(size))
      size = b.getIndexAttr(*known + extra);
    else
      size =
          arith::AddIOp::create(b, loc, cast<Value>(size),
                                arith::ConstantIndexOp::create(b, loc, extra))
              .getResult();
  }
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  Value empty = tensor::EmptyOp::create(b, loc, paddedSizes, element);
  Value filled = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  // Empty images pad to zeros only (a slice may not start in an empty
  // dimension).
  if (llvm::is_contained(cast<RankedTensorType>(images.getType()).getShape(),
                         0))
    return filled;
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                       b.getIndexAttr(padding[0]),
                                       b.getIndexAttr(padding[2])};
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  Value interior =
      tensor::ExtractSliceOp::create(b, loc, filled, offsets, sizes, strides);
  AffineMap identity = b.getMultiDimIdentityMap(4);
  Value copied =
      linalg::GenericOp::create(
          b, loc, interior.getType(), images, interior,
          ArrayRef<AffineMap>{identity, identity},
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
            linalg::YieldOp::create(
                nested, nestedLoc,
                arith::AddFOp::create(nested, nestedLoc, args[0], zero)
                    .getResult());
          })
          .getResult(0);
  return tensor::InsertSliceOp::create(b, loc, copied, filled, offsets, sizes,
                                       strides);
}

/// Conv2d: linalg.conv_2d_nchw_fchw (the same layouts) with the stride and
/// dilation, over the padded images, into a zero-filled accumulator. The
/// CPU pipeline picks the layout its kernels read best
/// (lazy-cpu-convolution-layout).
struct Conv2dLowering : OpConversionPattern<Conv2dOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Conv2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value images = adaptor.getInput(), filters = adaptor.getFilter();
    if (llvm::any_of(op.getPadding(), [](int64_t p) { return p != 0; }))
      images = padImages(rewriter, loc, images, op.getPadding());
    RankedTensorType resultType = op.getType();
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, value);
    };
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < 4; ++d) {
      if (!resultType.isDynamicDim(d))
        continue;
      // N from the images, F from the filters.
      if (d < 2) {
        dynamicSizes.push_back(
            tensor::DimOp::create(rewriter, loc, d == 0 ? images : filters, 0));
        continue;
      }
      // An output row or column: the sweep's positions over the image,
      // (size - dilation (kernel - 1) - 1) / stride + 1 (the verifier
      // checked that the kernel fits).
      int64_t stride = op.getStride()[d - 2],
              dilation = op.getDilation()[d - 2];
      Value size = tensor::DimOp::create(rewriter, loc, images, d);
      Value kernel = tensor::DimOp::create(rewriter, loc, filters, d);
      Value reach = arith::MulIOp::create(
          rewriter, loc,
          arith::SubIOp::create(rewriter, loc, kernel, constant(1)),
          constant(dilation));
      Value room = arith::SubIOp::create(
          rewriter, loc, arith::SubIOp::create(rewriter, loc, size, reach),
          constant(1));
      dynamicSizes.push_back(arith::AddIOp::create(
          rewriter, loc,
          arith::DivUIOp::create(rewriter, loc, room, constant(stride)),
          constant(1)));
    }
    Type element = resultType.getElementType();
    Value empty = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                          element, dynamicSizes);
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(element));
    Value init =
        linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
    rewriter.replaceOp(op, linalg::Conv2DNchwFchwOp::create(
                               rewriter, loc, TypeRange{resultType},
                               ValueRange{images, filters}, ValueRange{init},
                               rewriter.getI64TensorAttr(op.getStride()),
                               rewriter.getI64TensorAttr(op.getDilation())));
    return success();
  }
};

} // namespace

void mlir::lazy::populateReductionLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<Conv2dLowering, ReductionLowering<ReduceSumOp, ReductionKind::Sum>,
           ReductionLowering<ReduceMaxOp, ReductionKind::Max>,
           ReductionLowering<ReduceMinOp, ReductionKind::Min>,
           ReduceMeanLowering, SoftmaxLowering<SoftmaxOp, false>,
           SoftmaxLowering<LogSoftmaxOp, true>, MatmulLowering>(
          patterns.getContext());
}
