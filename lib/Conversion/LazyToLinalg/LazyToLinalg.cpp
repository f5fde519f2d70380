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
#include "lazyc/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_CONVERTLAZYTOLINALGPASS
#include "lazyc/Conversion/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

//===----------------------------------------------------------------------===//
// Integer signedness
//===----------------------------------------------------------------------===//

bool mlir::lazy::isUnsignedInteger(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isUnsignedInteger() || element.isInteger(1);
}

arith::CmpIPredicate
mlir::lazy::integerPredicate(arith::CmpIPredicate signedPredicate, Type type) {
  if (!isUnsignedInteger(type))
    return signedPredicate;
  switch (signedPredicate) {
  case arith::CmpIPredicate::slt:
    return arith::CmpIPredicate::ult;
  case arith::CmpIPredicate::sle:
    return arith::CmpIPredicate::ule;
  case arith::CmpIPredicate::sgt:
    return arith::CmpIPredicate::ugt;
  case arith::CmpIPredicate::sge:
    return arith::CmpIPredicate::uge;
  default:
    return signedPredicate;
  }
}

/// SignedOp for signed integers, UnsignedOp for unsigned ones.
template <typename SignedOp, typename UnsignedOp>
static Value bySignedness(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isUnsignedInteger(lhs.getType()))
    return UnsignedOp::create(b, loc, lhs, rhs);
  return SignedOp::create(b, loc, lhs, rhs);
}

Value mlir::lazy::createIntegerMax(OpBuilder &b, Location loc, Value lhs,
                                   Value rhs) {
  return bySignedness<arith::MaxSIOp, arith::MaxUIOp>(b, loc, lhs, rhs);
}
Value mlir::lazy::createIntegerMin(OpBuilder &b, Location loc, Value lhs,
                                   Value rhs) {
  return bySignedness<arith::MinSIOp, arith::MinUIOp>(b, loc, lhs, rhs);
}
Value mlir::lazy::createIntegerDivision(OpBuilder &b, Location loc, Value lhs,
                                        Value rhs) {
  return bySignedness<arith::DivSIOp, arith::DivUIOp>(b, loc, lhs, rhs);
}
Value mlir::lazy::createIntegerRemainder(OpBuilder &b, Location loc, Value lhs,
                                         Value rhs) {
  return bySignedness<arith::RemSIOp, arith::RemUIOp>(b, loc, lhs, rhs);
}

Value mlir::lazy::createIntegerToFloat(OpBuilder &b, Location loc, Type to,
                                       Value x) {
  if (isUnsignedInteger(x.getType()))
    return arith::UIToFPOp::create(b, loc, to, x);
  return arith::SIToFPOp::create(b, loc, to, x);
}

Value mlir::lazy::createIntegerResize(OpBuilder &b, Location loc, Type to,
                                      Value x) {
  unsigned fromWidth = x.getType().getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  // i8 and ui8 have the same bits; the type becomes i8 for both.
  if (fromWidth == toWidth)
    return x;
  if (fromWidth > toWidth)
    return arith::TruncIOp::create(b, loc, to, x);
  if (isUnsignedInteger(x.getType()))
    return arith::ExtUIOp::create(b, loc, to, x);
  return arith::ExtSIOp::create(b, loc, to, x);
}

APInt mlir::lazy::integerLimit(Type type, bool maximum) {
  unsigned width = type.getIntOrFloatBitWidth();
  if (isUnsignedInteger(type))
    return maximum ? APInt::getMaxValue(width) : APInt::getZero(width);
  return maximum ? APInt::getSignedMaxValue(width)
                 : APInt::getSignedMinValue(width);
}

void mlir::lazy::makeIntegersSignless(Operation *root) {
  auto signless = [](Type type) -> std::optional<IntegerType> {
    auto integer = dyn_cast<IntegerType>(type);
    if (!integer || integer.isSignless())
      return std::nullopt;
    return IntegerType::get(type.getContext(), integer.getWidth());
  };
  AttrTypeReplacer replacer;
  replacer.addReplacement(
      [&](IntegerType type) -> std::optional<Type> { return signless(type); });
  // Constants hold their type in ways the generic walk does not rewrite:
  // the same bits with the signless type.
  replacer.addReplacement([&](IntegerAttr attr) -> std::optional<Attribute> {
    if (std::optional<IntegerType> type = signless(attr.getType()))
      return IntegerAttr::get(*type, attr.getValue());
    return std::nullopt;
  });
  replacer.addReplacement(
      [&](DenseIntElementsAttr attr) -> std::optional<Attribute> {
        if (std::optional<IntegerType> type = signless(attr.getElementType()))
          return attr.bitcast(*type);
        return std::nullopt;
      });
  replacer.recursivelyReplaceElementsIn(root, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
}

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
  bool isMax = kind == ReductionKind::Max || kind == ReductionKind::MaxNum;
  if (auto floatType = dyn_cast<FloatType>(element))
    return b.getFloatAttr(
        floatType, APFloat::getInf(floatType.getFloatSemantics(), isMax));
  return b.getIntegerAttr(element, integerLimit(element, /*maximum=*/!isMax));
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
                   : createIntegerMax(b, loc, lhs, rhs);
  case ReductionKind::Min:
    return isFloat ? arith::MinimumFOp::create(b, loc, lhs, rhs).getResult()
                   : createIntegerMin(b, loc, lhs, rhs);
  case ReductionKind::MaxNum:
    return isFloat ? arith::MaxNumFOp::create(b, loc, lhs, rhs,
                                              arith::FastMathFlags::nnan)
                         .getResult()
                   : createIntegerMax(b, loc, lhs, rhs);
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
  // Nothing to move: an empty tensor of the shape (flattening a dynamic
  // source with a 0 in it would give memref.collapse_shape a static 0
  // where its verifier wants a dynamic size, MLIR 22).
  if (elements == 0)
    return tensor::EmptyOp::create(b, loc, type.getShape(), element);
  // A dynamic source is flattened, then given its (known) element count
  // (before a collapse into rank 0, which only takes static sizes of 1).
  if (!sourceType.hasStaticShape()) {
    Value flat = tensor::CollapseShapeOp::create(
        b, loc, value, collapseAll(sourceType.getRank()));
    value = tensor::CastOp::create(
        b, loc, RankedTensorType::get({elements}, element), flat);
    sourceType = cast<RankedTensorType>(value.getType());
    if (sourceType == type)
      return value;
  }
  // Rank 0 has no dimension to group: expand from it / collapse into it.
  if (sourceType.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, type, value,
                                         ArrayRef<ReassociationIndices>{});
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, value,
                                           ArrayRef<ReassociationIndices>{});
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
    // Collectives and attention stay: they bufferize into runtime calls.
    target.addLegalOp<AttentionOp, AttentionGradOp, CollectiveOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(context);
    populateLazyToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns)))) {
      signalPassFailure();
      return;
    }
    // The patterns chose the ops by signedness; arith needs signless types.
    getOperation()->walk([](CollectiveOp collective) {
      if (collective.getType().getElementType().isUnsignedInteger())
        collective->setAttr(kUnsignedElementsAttr,
                            UnitAttr::get(collective.getContext()));
    });
    makeIntegersSignless(getOperation());
  }
};
} // namespace
