//===- LazyToLinalg.cpp - The convert-lazy-to-linalg pass -----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the convert-lazy-to-linalg pass and the IR-building
// helpers the pattern groups share.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "lazyc/Conversion/Passes.h"
#include "lazyc/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_CONVERTLAZYTOLINALGPASS
#include "lazyc/Conversion/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

Value mlir::lazy::createEmptyLike(OpBuilder &b, Location loc,
                                  RankedTensorType type, Value shapeSource) {
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d)
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, shapeSource, d));
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynamicSizes);
}

Value mlir::lazy::buildParallelGeneric(OpBuilder &b, Location loc,
                                       ValueRange inputs,
                                       ArrayRef<AffineMap> inputMaps,
                                       Value init, ScalarBodyBuilder body) {
  auto initType = cast<RankedTensorType>(init.getType());
  unsigned rank = initType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{initType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

TypedAttr mlir::lazy::reductionIdentity(OpBuilder &b, ReductionKind kind,
                                        Type element) {
  if (kind == ReductionKind::Sum)
    return b.getZeroAttr(element);
  bool isMax = kind == ReductionKind::Max;
  if (auto floatType = dyn_cast<FloatType>(element))
    return b.getFloatAttr(
        floatType, APFloat::getInf(floatType.getFloatSemantics(), isMax));
  unsigned width = element.getIntOrFloatBitWidth();
  return b.getIntegerAttr(element, isMax ? APInt::getSignedMinValue(width)
                                         : APInt::getSignedMaxValue(width));
}

Value mlir::lazy::combineReduction(OpBuilder &b, Location loc,
                                   ReductionKind kind, Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case ReductionKind::Sum:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case ReductionKind::Max:
    return isFloat ? arith::MaximumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MaxSIOp::create(b, loc, lhs, rhs).getResult();
  case ReductionKind::Min:
    return isFloat ? arith::MinimumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MinSIOp::create(b, loc, lhs, rhs).getResult();
  }
  llvm_unreachable("unknown reduction kind");
}

Value mlir::lazy::buildReduction(OpBuilder &b, Location loc, Value input,
                                 ArrayRef<int64_t> axes, ReductionKind kind,
                                 bool keepDims) {
  auto inputType = cast<RankedTensorType>(input.getType());
  Type element = inputType.getElementType();
  // Loops follow the input's dimensions; a kept dimension adds a size-1
  // parallel loop in front of its reduction loop, so the result has its
  // final shape without any reshape.
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamicSizes;
  SmallVector<AffineExpr> inputExprs, resultExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0, e = inputType.getRank(); d < e; ++d) {
    bool reduced = llvm::is_contained(axes, d);
    if (reduced && keepDims) {
      resultExprs.push_back(b.getAffineDimExpr(iterators.size()));
      iterators.push_back(utils::IteratorType::parallel);
      shape.push_back(1);
    }
    inputExprs.push_back(b.getAffineDimExpr(iterators.size()));
    if (reduced) {
      iterators.push_back(utils::IteratorType::reduction);
      continue;
    }
    resultExprs.push_back(b.getAffineDimExpr(iterators.size()));
    iterators.push_back(utils::IteratorType::parallel);
    shape.push_back(inputType.getDimSize(d));
    if (inputType.isDynamicDim(d))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, input, d));
  }
  auto resultType = RankedTensorType::get(shape, element);
  Value empty = tensor::EmptyOp::create(b, loc, shape, element, dynamicSizes);
  Value identity =
      arith::ConstantOp::create(b, loc, reductionIdentity(b, kind, element));
  Value accumulator =
      linalg::FillOp::create(b, loc, identity, empty).getResult(0);
  unsigned loops = iterators.size();
  SmallVector<AffineMap> maps = {
      AffineMap::get(loops, 0, inputExprs, b.getContext()),
      AffineMap::get(loops, 0, resultExprs, b.getContext())};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{input}, ValueRange{accumulator},
      maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value combined =
            combineReduction(nested, nestedLoc, kind, args[1], args[0]);
        linalg::YieldOp::create(nested, nestedLoc, combined);
      });
  return generic.getResult(0);
}

/// Reassociation grouping all `rank` dimensions into one.
static SmallVector<ReassociationIndices> collapseAll(int64_t rank) {
  ReassociationIndices all;
  for (int64_t d = 0; d < rank; ++d)
    all.push_back(d);
  return {all};
}

/// Reshapes `value` to a `type` with dynamic dimensions, whose sizes are
/// the static ones of the type and `dynamicSizes`: a tensor.reshape to a
/// shape tensor (memref.expand_shape does not take two dynamic sizes in one
/// group through expand-strided-metadata).
static Value buildDynamicReshape(OpBuilder &b, Location loc, Value value,
                                 RankedTensorType type,
                                 ValueRange dynamicSizes) {
  SmallVector<Value> sizes = getValueOrCreateConstantIndexOp(
      b, loc, getMixedValues(type.getShape(), dynamicSizes, b));
  Value shape = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({type.getRank()}, b.getIndexType()), sizes);
  return tensor::ReshapeOp::create(b, loc, type, value, shape);
}

Value mlir::lazy::buildReshape(OpBuilder &b, Location loc, Value value,
                               RankedTensorType type, ValueRange dynamicSizes) {
  auto sourceType = cast<RankedTensorType>(value.getType());
  if (sourceType == type && type.getNumDynamicDims() <= 1)
    return value;
  if (!type.hasStaticShape())
    return buildDynamicReshape(b, loc, value, type, dynamicSizes);
  Type element = type.getElementType();
  int64_t elements = type.getNumElements();
  // Rank 0 has no dimension to group: expand from it / collapse into it.
  if (sourceType.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, type, value,
                                         ArrayRef<ReassociationIndices>{});
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, value,
                                           ArrayRef<ReassociationIndices>{});
  // A dynamic source is flattened, then given its (known) element count.
  if (!sourceType.hasStaticShape()) {
    Value flat = tensor::CollapseShapeOp::create(
        b, loc, value, collapseAll(sourceType.getRank()));
    value = tensor::CastOp::create(
        b, loc, RankedTensorType::get({elements}, element), flat);
    sourceType = cast<RankedTensorType>(value.getType());
    if (sourceType == type)
      return value;
  }
  if (std::optional<SmallVector<ReassociationIndices>> reassociation =
          getReassociationIndicesForReshape(sourceType, type)) {
    if (sourceType.getRank() > type.getRank())
      return tensor::CollapseShapeOp::create(b, loc, type, value,
                                             *reassociation);
    return tensor::ExpandShapeOp::create(b, loc, type, value, *reassociation);
  }
  // Any other reshape goes through one dimension.
  auto flatType = RankedTensorType::get({elements}, element);
  Value flat =
      sourceType.getRank() == 1
          ? value
          : tensor::CollapseShapeOp::create(b, loc, flatType, value,
                                            collapseAll(sourceType.getRank()))
                .getResult();
  return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                       collapseAll(type.getRank()));
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

void mlir::lazy::populateLazyToLinalgConversionPatterns(
    RewritePatternSet &patterns) {
  populateElementwiseLoweringPatterns(patterns);
  populateDataMovementLoweringPatterns(patterns);
  populateReductionLoweringPatterns(patterns);
  populateRandomLoweringPatterns(patterns);
  populateControlFlowLoweringPatterns(patterns);
  populateIndexingLoweringPatterns(patterns);
  populateScanLoweringPatterns(patterns);
}

namespace {
struct ConvertLazyToLinalgPass
    : mlir::lazy::impl::ConvertLazyToLinalgPassBase<ConvertLazyToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addIllegalDialect<LazyDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(context);
    populateLazyToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
