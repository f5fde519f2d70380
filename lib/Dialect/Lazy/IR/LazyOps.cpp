//===- LazyOps.cpp - Lazy dialect operations ------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements result-type inference and verification of the `lazy`
// ops, and the custom assembly directive they share. Folders live in
// LazyFolds.cpp.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"
#include "lazyc/Runtime/Shape.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::lazy;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Emits "'<op name>' op <args...>" at `loc` if a location is given (the
/// builders infer types without one) and returns failure.
template <typename... Args>
static LogicalResult emitInferError(std::optional<Location> loc,
                                    StringRef opName, Args &&...args) {
  return emitOptionalError(loc, "'", opName, "' op ",
                           std::forward<Args>(args)...);
}

/// Formats a shape as `[4, ?, 3]`.
static std::string formatShape(ArrayRef<int64_t> shape) {
  return lazyc::shapeText(shape, ShapedType::kDynamic);
}

/// Two dimensions agree unless both are static and differ.
static bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Checks that `axis` indexes a dimension of a rank-`rank` tensor.
static LogicalResult checkAxis(std::optional<Location> loc, StringRef opName,
                               int64_t axis, RankedTensorType type) {
  if (axis >= 0 && axis < type.getRank())
    return success();
  return emitInferError(loc, opName, "axis ", axis,
                        " is out of range for operand of type ", type,
                        " (expected 0 <= axis < ", type.getRank(), ")");
}

/// Checks that a shape attribute holds only non-negative sizes whose product
/// fits in int64, and returns that product.
static FailureOr<int64_t> checkStaticShape(std::optional<Location> loc,
                                           StringRef opName, StringRef what,
                                           ArrayRef<int64_t> shape) {
  int64_t elements = 1;
  for (auto [index, dim] : llvm::enumerate(shape)) {
    if (dim < 0)
      return emitInferError(loc, opName, what, " has the negative size ", dim,
                            " at index ", index);
    if (llvm::MulOverflow(elements, dim, elements))
      return emitInferError(loc, opName, what, " ", formatShape(shape),
                            " has more than 2^63 elements");
  }
  return elements;
}

/// Checks a target shape whose `?` entries are given by size operands:
/// static entries as checkStaticShape does, and one operand per `?`.
static LogicalResult checkTargetShape(std::optional<Location> loc,
                                      StringRef opName, ArrayRef<int64_t> shape,
                                      size_t sizeOperands) {
  SmallVector<int64_t> staticSizes;
  size_t dynamicSizes = 0;
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim))
      ++dynamicSizes;
    else
      staticSizes.push_back(dim);
  }
  if (dynamicSizes != sizeOperands)
    return emitInferError(loc, opName, "target shape ", formatShape(shape),
                          " has ", dynamicSizes, " dynamic size(s) but ",
                          sizeOperands, " size operand(s) were given");
  return checkStaticShape(loc, opName, "target shape", staticSizes);
}

/// Verifies an op whose result type is inferred: re-runs the inference (which
/// reports invalid operands) and checks the declared result type against it.
template <typename OpTy>
static LogicalResult verifyInferredResultType(OpTy op) {
  SmallVector<Type, 1> inferred;
  if (failed(OpTy::inferReturnTypes(op->getContext(), op->getLoc(),
                                    typename OpTy::Adaptor(op), inferred)))
    return failure();
  if (TypeRange(inferred) != op->getResultTypes())
    return op->emitOpError("result type ")
           << op->getResultTypes() << " does not match the inferred type "
           << TypeRange(inferred);
  return success();
}

/// Infers the result type of an op whose result has the type of its first
/// operand and whose operands must have identical types. Operand types that
/// break the ODS constraints are passed through: the verifier reports those.
static LogicalResult inferSharedOperandType(std::optional<Location> loc,
                                            StringRef opName, Type lhs,
                                            Type rhs,
                                            SmallVectorImpl<Type> &inferred) {
  if (isa<RankedTensorType>(lhs) && isa<RankedTensorType>(rhs) && lhs != rhs)
    return emitInferError(
        loc, opName, "requires operands of identical type (broadcasts and ",
        "casts are explicit: see lazy.broadcast and lazy.cast), but got ", lhs,
        " and ", rhs);
  inferred.push_back(lhs);
  return success();
}

//===----------------------------------------------------------------------===//
// Custom directive: one type shared by two operands
//===----------------------------------------------------------------------===//

/// Parses `type` (both operands have it) or `type, type`.
static ParseResult parseSharedType(OpAsmParser &parser, Type &lhs, Type &rhs) {
  if (parser.parseType(lhs))
    return failure();
  if (succeeded(parser.parseOptionalComma()))
    return parser.parseType(rhs);
  rhs = lhs;
  return success();
}

/// Prints one type when both operands share it, both otherwise.
static void printSharedType(OpAsmPrinter &printer, Operation *, Type lhs,
                            Type rhs) {
  printer << lhs;
  if (lhs != rhs)
    printer << ", " << rhs;
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// Implements inferReturnTypes for every binary elementwise op.
template <typename OpTy>
static LogicalResult inferBinary(std::optional<Location> loc,
                                 typename OpTy::Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  return inferSharedOperandType(loc, OpTy::getOperationName(),
                                adaptor.getLhs().getType(),
                                adaptor.getRhs().getType(), inferred);
}

/// Implements inferReturnTypes for every unary elementwise op.
template <typename OpTy>
static LogicalResult inferUnary(std::optional<Location>,
                                typename OpTy::Adaptor adaptor,
                                SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult CompareOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  SmallVector<Type, 1> operandType;
  if (failed(inferSharedOperandType(loc, getOperationName(),
                                    adaptor.getLhs().getType(),
                                    adaptor.getRhs().getType(), operandType)))
    return failure();
  auto tensorType = dyn_cast<RankedTensorType>(operandType.front());
  if (!tensorType) {
    inferred.push_back(operandType.front());
    return success();
  }
  inferred.push_back(
      tensorType.clone(IntegerType::get(tensorType.getContext(), 1)));
  return success();
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  if (failed(inferSharedOperandType(loc, getOperationName(),
                                    adaptor.getOnTrue().getType(),
                                    adaptor.getOnFalse().getType(), inferred)))
    return failure();
  auto condType = dyn_cast<RankedTensorType>(adaptor.getCond().getType());
  auto valueType = dyn_cast<RankedTensorType>(inferred.front());
  if (!condType || !valueType)
    return success();
  if (condType.getRank() != valueType.getRank() ||
      !llvm::all_of(llvm::zip_equal(condType.getShape(), valueType.getShape()),
                    [](auto dims) {
                      return dimsCompatible(std::get<0>(dims),
                                            std::get<1>(dims));
                    }))
    return emitInferError(loc, getOperationName(),
                          "requires the condition to have the shape of the "
                          "values, but got condition ",
                          condType, " and values ", valueType);
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  auto type = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
  if (!type || !type.hasStaticShape())
    return emitInferError(loc, getOperationName(),
                          "requires a value of statically shaped tensor type, "
                          "but got ",
                          adaptor.getValue().getType());
  inferred.push_back(type);
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

/// cast's and bitcast's rule: the element type changes, not the shape.
static LogicalResult verifyElementTypeChangeOnly(Operation *op,
                                                 RankedTensorType inputType,
                                                 RankedTensorType resultType) {
  if (inputType.getRank() != resultType.getRank() ||
      !llvm::all_of(
          llvm::zip_equal(inputType.getShape(), resultType.getShape()),
          [](auto dims) {
            return dimsCompatible(std::get<0>(dims), std::get<1>(dims));
          }))
    return op->emitOpError("changes only the element type, but the shape of ")
           << inputType << " differs from the shape of " << resultType;
  return success();
}

LogicalResult CastOp::verify() {
  return verifyElementTypeChangeOnly(*this, getInput().getType(), getType());
}

//===----------------------------------------------------------------------===//
// BitcastOp
//===----------------------------------------------------------------------===//

/// The bits an element of `type` is stored in (a byte for `i1`).
static unsigned storageBits(Type type) {
  return std::max(8u, type.getIntOrFloatBitWidth());
}

LogicalResult BitcastOp::verify() {
  auto inputType = getInput().getType();
  auto resultType = getType();
  if (failed(verifyElementTypeChangeOnly(*this, inputType, resultType)))
    return failure();
  Type from = inputType.getElementType(), to = resultType.getElementType();
  if (storageBits(from) != storageBits(to))
    return emitOpError("reads the bits of ")
           << from << " (" << storageBits(from) << " bits) as " << to << " ("
           << storageBits(to) << " bits): the widths must be equal";
  return success();
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> shape = adaptor.getShape();
  if (!inputType) {
    inferred.push_back(adaptor.getInput().getType());
    return success();
  }
  if (failed(checkTargetShape(loc, getOperationName(), shape,
                              adaptor.getSizes().size())))
    return failure();
  int64_t rank = inputType.getRank();
  int64_t resultRank = static_cast<int64_t>(shape.size());
  if (resultRank < rank)
    return emitInferError(loc, getOperationName(), "cannot broadcast ",
                          inputType, " to the lower-rank shape ",
                          formatShape(shape));
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = inputType.getDimSize(i);
    int64_t target = shape[resultRank - rank + i];
    if (dim != 1 && !dimsCompatible(dim, target))
      return emitInferError(loc, getOperationName(), "cannot broadcast ",
                            inputType, " to ", formatShape(shape),
                            ": input dimension ", i, " has size ", dim,
                            ", expected 1 or ", target);
  }
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> shape = adaptor.getShape();
  if (!inputType) {
    inferred.push_back(adaptor.getInput().getType());
    return success();
  }
  if (failed(checkTargetShape(loc, getOperationName(), shape,
                              adaptor.getSizes().size())))
    return failure();
  bool staticTarget = llvm::none_of(shape, ShapedType::isDynamic);
  int64_t targetElements = 1;
  for (int64_t dim : shape)
    targetElements *= staticTarget ? dim : 1;
  if (inputType.hasStaticShape() && staticTarget) {
    if (inputType.getNumElements() != targetElements)
      return emitInferError(loc, getOperationName(), "cannot reshape ",
                            inputType, " (", inputType.getNumElements(),
                            " elements) to ", formatShape(shape), " (",
                            targetElements, " elements)");
  }
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  if (!inputType) {
    inferred.push_back(adaptor.getInput().getType());
    return success();
  }
  int64_t rank = inputType.getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitInferError(loc, getOperationName(), "permutation ",
                          formatShape(perm), " has ", perm.size(),
                          " entries, but the operand ", inputType, " has rank ",
                          rank);
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t index : perm) {
    if (index < 0 || index >= rank || seen[index])
      return emitInferError(loc, getOperationName(), "permutation ",
                            formatShape(perm), " is not a permutation of [0, ",
                            rank, ")");
    seen[index] = true;
    shape.push_back(inputType.getDimSize(index));
  }
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!inputType) {
    inferred.push_back(adaptor.getInput().getType());
    return success();
  }
  ArrayRef<int64_t> start = adaptor.getStart(), limit = adaptor.getLimit(),
                    step = adaptor.getStep();
  int64_t rank = inputType.getRank();
  if (static_cast<int64_t>(start.size()) != rank ||
      static_cast<int64_t>(limit.size()) != rank ||
      static_cast<int64_t>(step.size()) != rank)
    return emitInferError(loc, getOperationName(),
                          "requires start, limit and "
                          "step with one entry per dimension of ",
                          inputType, ", but got ", start.size(), ", ",
                          limit.size(), " and ", step.size(), " entries");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = inputType.getDimSize(d);
    bool limitInRange = ShapedType::isDynamic(size) || limit[d] <= size;
    if (start[d] < 0 || start[d] > limit[d] || !limitInRange)
      return emitInferError(loc, getOperationName(), "dimension ", d, " of ",
                            inputType, ": slice [", start[d], ", ", limit[d],
                            ") is out of range (expected 0 <= start "
                            "<= limit <= size)");
    if (step[d] < 1)
      return emitInferError(loc, getOperationName(), "dimension ", d, ": step ",
                            step[d], " must be at least 1");
    shape.push_back(llvm::divideCeil(limit[d] - start[d], step[d]));
  }
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitInferError(loc, getOperationName(),
                          "requires at least one operand");
  auto firstType = dyn_cast<RankedTensorType>(inputs.front().getType());
  if (!firstType) {
    inferred.push_back(inputs.front().getType());
    return success();
  }
  int64_t axis = adaptor.getAxisAttr().getInt();
  if (failed(checkAxis(loc, getOperationName(), axis, firstType)))
    return failure();
  SmallVector<int64_t> shape(firstType.getShape());
  for (auto [index, input] : llvm::enumerate(inputs.drop_front())) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type)
      continue;
    if (type.getElementType() != firstType.getElementType() ||
        type.getRank() != firstType.getRank())
      return emitInferError(loc, getOperationName(), "operand #", index + 1,
                            " of type ", type,
                            " does not match the element type and rank of "
                            "operand #0 of type ",
                            firstType);
    for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
      int64_t dim = type.getDimSize(d);
      if (d == axis) {
        if (ShapedType::isDynamic(shape[d]) || ShapedType::isDynamic(dim))
          shape[d] = ShapedType::kDynamic;
        else if (llvm::AddOverflow(shape[d], dim, shape[d]))
          return emitInferError(loc, getOperationName(),
                                "concatenated size along axis ", axis,
                                " overflows int64");
        continue;
      }
      // Operands after a dynamic size must still agree with each other.
      if (ShapedType::isDynamic(shape[d]))
        shape[d] = dim;
      else if (!dimsCompatible(shape[d], dim))
        return emitInferError(
            loc, getOperationName(), "operand #", index + 1, " of type ", type,
            " has size ", dim, " in dimension ", d,
            ", but the operands before it have size ", shape[d],
            " (only the concatenation axis ", axis, " may differ)");
    }
  }
  inferred.push_back(RankedTensorType::get(shape, firstType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Implements inferReturnTypes for every reduction.
template <typename OpTy>
static LogicalResult inferReduce(std::optional<Location> loc,
                                 typename OpTy::Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  StringRef opName = OpTy::getOperationName();
  auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!inputType) {
    inferred.push_back(adaptor.getInput().getType());
    return success();
  }
  ArrayRef<int64_t> axes = adaptor.getAxes();
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (failed(checkAxis(loc, opName, axis, inputType)))
      return failure();
    if (i > 0 && axes[i - 1] >= axis)
      return emitInferError(loc, opName, "axes ", formatShape(axes),
                            " must be strictly increasing");
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0, e = inputType.getRank(); d < e; ++d) {
    if (!llvm::is_contained(axes, d))
      shape.push_back(inputType.getDimSize(d));
    else if (adaptor.getKeepDims())
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto lhsType = dyn_cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhsType = dyn_cast<RankedTensorType>(adaptor.getRhs().getType());
  if (!lhsType || !rhsType) {
    inferred.push_back(adaptor.getLhs().getType());
    return success();
  }
  StringRef opName = getOperationName();
  if (lhsType.getElementType() != rhsType.getElementType())
    return emitInferError(loc, opName,
                          "requires operands of one element "
                          "type, but got ",
                          lhsType, " and ", rhsType);
  int64_t rank = lhsType.getRank();
  if (rank < 2 || rhsType.getRank() != rank)
    return emitInferError(loc, opName,
                          "requires operands of equal rank, at "
                          "least 2, but got ",
                          lhsType, " and ", rhsType);
  ArrayRef<int64_t> lhs = lhsType.getShape(), rhs = rhsType.getShape();
  for (int64_t d = 0; d < rank - 2; ++d)
    if (!dimsCompatible(lhs[d], rhs[d]))
      return emitInferError(loc, opName,
                            "requires identical batch "
                            "dimensions, but got ",
                            lhsType, " and ", rhsType,
                            " (batch broadcasting is explicit)");
  if (!dimsCompatible(lhs[rank - 1], rhs[rank - 2]))
    return emitInferError(
        loc, opName, "contracting dimensions differ: ", lhsType, " has ",
        lhs[rank - 1], " columns, ", rhsType, " has ", rhs[rank - 2], " rows");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank - 2; ++d)
    shape.push_back(ShapedType::isDynamic(lhs[d]) ? rhs[d] : lhs[d]);
  shape.push_back(lhs[rank - 2]);
  shape.push_back(rhs[rank - 1]);
  inferred.push_back(RankedTensorType::get(shape, lhsType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Conv2dOp
//===----------------------------------------------------------------------===//

LogicalResult Conv2dOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto filterType = dyn_cast<RankedTensorType>(adaptor.getFilter().getType());
  if (!inputType || !filterType) {
    inferred.push_back(adaptor.getInput().getType());
    return success();
  }
  StringRef opName = getOperationName();
  if (inputType.getElementType() != filterType.getElementType())
    return emitInferError(loc, opName,
                          "requires operands of one element type, but got ",
                          inputType, " and ", filterType);
  if (inputType.getRank() != 4 || filterType.getRank() != 4)
    return emitInferError(loc, opName,
                          "requires images [N, C, H, W] and filters "
                          "[F, C, KH, KW], but got ",
                          inputType, " and ", filterType);
  // The parser infers before it fills in the default (no padding).
  static constexpr int64_t kNoPadding[4] = {0, 0, 0, 0};
  ArrayRef<int64_t> stride = adaptor.getStride(),
                    dilation = adaptor.getDilation(),
                    padding = adaptor.getPaddingAttr() ? adaptor.getPadding()
                                                       : kNoPadding;
  auto positivePair = [](ArrayRef<int64_t> pair) {
    return pair.size() == 2 && pair[0] > 0 && pair[1] > 0;
  };
  if (!positivePair(stride) || !positivePair(dilation))
    return emitInferError(loc, opName,
                          "requires two positive strides and dilations, but "
                          "got stride ",
                          formatShape(stride), " and dilation ",
                          formatShape(dilation));
  if (padding.size() != 4 ||
      llvm::any_of(padding, [](int64_t p) { return p < 0; }))
    return emitInferError(loc, opName,
                          "requires padding [top, bottom, left, right] of "
                          "four sizes >= 0, but got ",
                          formatShape(padding));
  ArrayRef<int64_t> images = inputType.getShape(),
                    filters = filterType.getShape();
  if (!dimsCompatible(images[1], filters[1]))
    return emitInferError(loc, opName, "channels differ: ", inputType, " has ",
                          images[1], ", ", filterType, " has ", filters[1]);
  SmallVector<int64_t> shape = {images[0], filters[0]};
  for (int d = 0; d < 2; ++d) {
    int64_t size = images[2 + d], kernel = filters[2 + d];
    if (ShapedType::isDynamic(size) || ShapedType::isDynamic(kernel)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t reach = dilation[d] * (kernel - 1) + 1;
    int64_t padded = size + padding[2 * d] + padding[2 * d + 1];
    if (kernel < 1 || reach > padded)
      return emitInferError(loc, opName, "the filter ", filterType,
                            " (dilation ", formatShape(dilation),
                            ") does not fit the images ", inputType,
                            " with padding ", formatShape(padding));
    shape.push_back((padded - reach) / stride[d] + 1);
  }
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax and log-softmax
//===----------------------------------------------------------------------===//

/// Implements inferReturnTypes for softmax and log-softmax.
template <typename OpTy>
static LogicalResult inferSoftmax(std::optional<Location> loc,
                                  typename OpTy::Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (inputType && failed(checkAxis(loc, OpTy::getOperationName(),
                                    adaptor.getAxisAttr().getInt(), inputType)))
    return failure();
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Indexing and scans
//===----------------------------------------------------------------------===//

/// Checks `indices` (or `updates`) against `input` for gather and
/// scatter_add: the same rank, and `input`'s sizes outside `axis`.
static LogicalResult checkAlongAxis(std::optional<Location> loc,
                                    StringRef opName, RankedTensorType input,
                                    StringRef what, RankedTensorType other,
                                    int64_t axis) {
  if (failed(checkAxis(loc, opName, axis, input)))
    return failure();
  if (other.getRank() != input.getRank())
    return emitInferError(loc, opName, "requires ", what, " of rank ",
                          input.getRank(), " (the input's), but got ", other);
  for (int64_t d = 0, e = input.getRank(); d < e; ++d)
    if (d != axis && !dimsCompatible(input.getDimSize(d), other.getDimSize(d)))
      return emitInferError(loc, opName, "requires ", what,
                            " with the input's sizes outside axis ", axis,
                            ", but got ", other, " for input ", input);
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto indices = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
  if (!input || !indices) {
    inferred.push_back(adaptor.getInput().getType());
    return success();
  }
  if (failed(checkAlongAxis(loc, getOperationName(), input, "indices", indices,
                            adaptor.getAxis())))
    return failure();
  inferred.push_back(indices.clone(input.getElementType()));
  return success();
}

LogicalResult ScatterAddOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto indices = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
  auto updates = dyn_cast<RankedTensorType>(adaptor.getUpdates().getType());
  inferred.push_back(adaptor.getInput().getType());
  if (!input || !indices || !updates)
    return success();
  if (updates.getElementType() != input.getElementType())
    return emitInferError(loc, getOperationName(),
                          "requires updates of the input's element type, but "
                          "got ",
                          updates, " for input ", input);
  if (failed(verifyCompatibleShape(indices.getShape(), updates.getShape())))
    return emitInferError(loc, getOperationName(),
                          "requires indices and updates of one shape, but got ",
                          indices, " and ", updates);
  return checkAlongAxis(loc, getOperationName(), input, "updates", updates,
                        adaptor.getAxis());
}

/// Implements inferReturnTypes for argmax and argmin.
template <typename OpTy>
static LogicalResult inferArgReduce(std::optional<Location> loc,
                                    typename OpTy::Adaptor adaptor,
                                    SmallVectorImpl<Type> &inferred) {
  StringRef opName = OpTy::getOperationName();
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input) {
    inferred.push_back(adaptor.getInput().getType());
    return success();
  }
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, opName, axis, input)))
    return failure();
  if (input.getDimSize(axis) == 0)
    return emitInferError(loc, opName, "requires a non-empty axis ", axis,
                          ", but got ", input);
  SmallVector<int64_t> shape;
  for (int64_t d = 0, e = input.getRank(); d < e; ++d) {
    if (d != axis)
      shape.push_back(input.getDimSize(d));
    else if (adaptor.getKeepDims())
      shape.push_back(1);
  }
  Builder b(input.getContext());
  inferred.push_back(RankedTensorType::get(shape, b.getI64Type()));
  return success();
}

LogicalResult CumsumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (input &&
      failed(checkAxis(loc, getOperationName(), adaptor.getAxis(), input)))
    return failure();
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Random ops
//===----------------------------------------------------------------------===//

/// A random op's result has one size operand per dynamic dimension.
template <typename RandomOp>
static LogicalResult verifyRandomSizes(RandomOp op) {
  int64_t dynamicDims = op.getType().getNumDynamicDims();
  if (dynamicDims != static_cast<int64_t>(op.getSizes().size()))
    return op.emitOpError("result type ")
           << op.getType() << " has " << dynamicDims
           << " dynamic dimension(s) but " << op.getSizes().size()
           << " size operand(s) were given";
  return success();
}

LogicalResult RandomUniformOp::verify() {
  double low = getLowAttr().getValueAsDouble();
  double high = getHighAttr().getValueAsDouble();
  if (!std::isfinite(low) || !std::isfinite(high) || !(low < high))
    return emitOpError("requires finite bounds with low < high, but got low = ")
           << low << ", high = " << high;
  return verifyRandomSizes(*this);
}

LogicalResult RandomNormalOp::verify() {
  double mean = getMeanAttr().getValueAsDouble();
  double stddev = getStddevAttr().getValueAsDouble();
  if (!std::isfinite(mean) || !std::isfinite(stddev) || stddev < 0)
    return emitOpError("requires a finite mean and a finite stddev >= 0, but "
                       "got mean = ")
           << mean << ", stddev = " << stddev;
  return verifyRandomSizes(*this);
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

LogicalResult CollectiveOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t worldSize = adaptor.getWorldSizeAttr().getInt();
  if (worldSize < 1)
    return emitInferError(loc, getOperationName(),
                          "requires a world_size of at least 1, but got ",
                          worldSize);
  CollectiveKind kind = adaptor.getKind();
  if (!input || (kind != CollectiveKind::all_gather &&
                 kind != CollectiveKind::reduce_scatter)) {
    inferred.push_back(adaptor.getInput().getType());
    return success();
  }
  if (input.getRank() == 0)
    return emitInferError(
        loc, getOperationName(), stringifyCollectiveKind(kind),
        " works along dimension 0, but the input ", input, " has rank 0");
  SmallVector<int64_t> shape(input.getShape());
  if (ShapedType::isDynamic(shape[0])) {
    // Unknown stays unknown.
  } else if (kind == CollectiveKind::all_gather) {
    shape[0] *= worldSize;
  } else if (shape[0] % worldSize != 0) {
    return emitInferError(
        loc, getOperationName(),
        "reduce_scatter splits dimension 0 into world_size = ", worldSize,
        " blocks, but the input ", input, " has ", shape[0], " rows");
  } else {
    shape[0] /= worldSize;
  }
  inferred.push_back(input.clone(shape));
  return success();
}

LogicalResult CollectiveOp::verify() {
  bool reduces = getKind() == CollectiveKind::all_reduce ||
                 getKind() == CollectiveKind::reduce_scatter;
  if (reduces != getReduction().has_value())
    return emitOpError() << stringifyCollectiveKind(getKind())
                         << (reduces ? " requires" : " takes no")
                         << " `reduce` attribute";
  bool broadcasts = getKind() == CollectiveKind::broadcast;
  if (broadcasts != getRoot().has_value())
    return emitOpError() << stringifyCollectiveKind(getKind())
                         << (broadcasts ? " requires" : " takes no")
                         << " `root` attribute";
  if (failed(verifyInferredResultType(*this)))
    return failure();
  // The getters return the attributes' values as unsigned.
  int64_t worldSize = getWorldSizeAttr().getInt();
  if (broadcasts &&
      (getRootAttr().getInt() < 0 || getRootAttr().getInt() >= worldSize))
    return emitOpError("root ")
           << getRootAttr().getInt() << " is not a rank of a world of size "
           << worldSize;
  return success();
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// The sizes both attention ops read: q [..., Tq, d], k [..., Tk, d],
/// v [..., Tk, dv].
struct AttentionShapes {
  RankedTensorType q, k, v;
  int64_t queries() const { return q.getDimSize(q.getRank() - 2); }
  int64_t keys() const { return k.getDimSize(k.getRank() - 2); }
  int64_t depth() const { return q.getShape().back(); }
  int64_t valueDepth() const { return v.getShape().back(); }
};

/// The most batch dimensions the runtime's kernels take
/// (lazyc/Runtime/Attention.h).
static constexpr int64_t kAttentionBatchRank = 4;

/// Checks q, k, v, the bias and the dropout of either attention op.
static FailureOr<AttentionShapes>
checkAttention(std::optional<Location> loc, StringRef opName, Value qValue,
               Value kValue, Value vValue, Value biasValue, double dropout) {
  auto q = dyn_cast<RankedTensorType>(qValue.getType());
  auto k = dyn_cast<RankedTensorType>(kValue.getType());
  auto v = dyn_cast<RankedTensorType>(vValue.getType());
  if (!q || !k || !v)
    return emitInferError(loc, opName, "requires ranked q, k and v");
  if (q.getElementType() != k.getElementType() ||
      q.getElementType() != v.getElementType())
    return emitInferError(loc, opName,
                          "requires q, k and v of one element type, but got ",
                          q, ", ", k, " and ", v);
  int64_t rank = q.getRank();
  if (rank < 2 || rank - 2 > kAttentionBatchRank || k.getRank() != rank ||
      v.getRank() != rank)
    return emitInferError(
        loc, opName, "requires q, k and v of one rank, from 2 to ",
        kAttentionBatchRank + 2, ", but got ", q, ", ", k, " and ", v);
  for (int64_t d = 0; d < rank - 2; ++d)
    if (!dimsCompatible(q.getDimSize(d), k.getDimSize(d)) ||
        !dimsCompatible(q.getDimSize(d), v.getDimSize(d)))
      return emitInferError(loc, opName,
                            "requires identical batch dimensions, but got ", q,
                            ", ", k, " and ", v);
  AttentionShapes shapes{q, k, v};
  if (!dimsCompatible(shapes.depth(), k.getShape().back()) ||
      !dimsCompatible(shapes.keys(), v.getDimSize(rank - 2)))
    return emitInferError(loc, opName, "q ", q, ", k ", k, " and v ", v,
                          " do not fit: q and k need one depth, k and v one "
                          "length");
  if (biasValue) {
    auto bias = dyn_cast<RankedTensorType>(biasValue.getType());
    if (!bias || bias.getRank() != rank ||
        bias.getElementType() != q.getElementType())
      return emitInferError(loc, opName,
                            "requires a bias of q's rank and "
                            "element type, but got ",
                            biasValue.getType(), " for q ", q);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t scores = d == rank - 1 ? shapes.keys() : q.getDimSize(d);
      if (bias.getDimSize(d) != 1 &&
          !dimsCompatible(bias.getDimSize(d), scores))
        return emitInferError(loc, opName, "the bias ", bias,
                              " does not broadcast to the scores of q ", q,
                              " and k ", k);
    }
  }
  if (!(dropout >= 0 && dropout <= 1))
    return emitInferError(loc, opName, "requires a dropout in [0, 1], but got ",
                          dropout);
  return shapes;
}

/// `a + b` for sizes that may be dynamic.
static int64_t addSizes(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b)
             ? ShapedType::kDynamic
             : a + b;
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  FailureOr<AttentionShapes> shapes = checkAttention(
      loc, getOperationName(), adaptor.getQ(), adaptor.getK(), adaptor.getV(),
      adaptor.getBias(), adaptor.getDropout().convertToDouble());
  if (failed(shapes))
    return failure();
  SmallVector<int64_t> shape(shapes->q.getShape());
  shape.back() = addSizes(shapes->valueDepth(), 1);
  inferred.push_back(RankedTensorType::get(shape, shapes->q.getElementType()));
  return success();
}

LogicalResult
AttentionGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  StringRef opName = getOperationName();
  FailureOr<AttentionShapes> shapes = checkAttention(
      loc, opName, adaptor.getQ(), adaptor.getK(), adaptor.getV(),
      adaptor.getBias(), adaptor.getDropout().convertToDouble());
  if (failed(shapes))
    return failure();
  // `out` is the forward's result, `d_out` its rows' gradient.
  SmallVector<int64_t> rows(shapes->q.getShape());
  rows.back() = shapes->valueDepth();
  SmallVector<int64_t> withStatistics(rows);
  withStatistics.back() = addSizes(shapes->valueDepth(), 1);
  Type element = shapes->q.getElementType();
  auto expect = [&](Value operand, ArrayRef<int64_t> shape,
                    StringRef what) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (type && type.getElementType() == element &&
        type.getRank() == static_cast<int64_t>(shape.size()) &&
        llvm::all_of(llvm::seq<size_t>(0, shape.size()), [&](size_t d) {
          return dimsCompatible(type.getDimSize(d), shape[d]);
        }))
      return success();
    return emitInferError(loc, opName, "requires ", what, " of shape ",
                          formatShape(shape), " and element type ", element,
                          ", but got ", operand.getType());
  };
  if (failed(expect(adaptor.getOut(), withStatistics,
                    "the forward's result `out`")) ||
      failed(expect(adaptor.getDOut(), rows, "`d_out`")))
    return failure();
  if (adaptor.getGradient() == AttentionGradient::query) {
    inferred.push_back(shapes->q);
    return success();
  }
  SmallVector<int64_t> shape(shapes->k.getShape());
  shape.back() = addSizes(shapes->depth(), shapes->valueDepth());
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

//===----------------------------------------------------------------------===//
// TableGen'd definitions
//===----------------------------------------------------------------------===//

#include "lazyc/Dialect/Lazy/IR/LazyEnums.cpp.inc"

#define GET_OP_CLASSES
#include "lazyc/Dialect/Lazy/IR/LazyOps.cpp.inc"
