//===- LazyFolds.cpp - Folders of the lazy dialect ------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the folders of the `lazy` ops: constant folding, and
// identities that hold exactly (IEEE-754 included): x + -0.0,
// (y + +0.0) + +0.0, x - +0.0, x * 1,
// x / 1, x ^ 1, identity broadcasts/reshapes/transposes/slices, and the
// composition of chained reshapes, broadcasts and transposes.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APSInt.h"

#include <cmath>

using namespace mlir;
using namespace mlir::lazy;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

using FloatFn = function_ref<std::optional<APFloat>(APFloat, APFloat)>;
using IntFn = function_ref<std::optional<APInt>(APInt, APInt)>;

/// Constant-folds a binary elementwise op by element type. `intFn` may be
/// null for ops that only fold on floats.
static OpFoldResult foldBinary(ArrayRef<Attribute> operands, Type type,
                               FloatFn floatFn, IntFn intFn) {
  Type element = getElementTypeOrSelf(type);
  if (isa<FloatType>(element))
    return constFoldBinaryOpConditional<FloatAttr, APFloat, void>(operands,
                                                                  floatFn);
  if (intFn)
    return constFoldBinaryOpConditional<IntegerAttr, APInt, void>(operands,
                                                                  intFn);
  return {};
}

/// Constant-folds a unary elementwise op by element type.
static OpFoldResult
foldUnary(ArrayRef<Attribute> operands, Type type,
          function_ref<std::optional<APFloat>(APFloat)> floatFn,
          function_ref<std::optional<APInt>(APInt)> intFn) {
  Type element = getElementTypeOrSelf(type);
  if (isa<FloatType>(element) && floatFn)
    return constFoldUnaryOpConditional<FloatAttr, APFloat, void>(operands,
                                                                 floatFn);
  if (isa<IntegerType>(element) && intFn)
    return constFoldUnaryOpConditional<IntegerAttr, APInt, void>(operands,
                                                                 intFn);
  return {};
}

/// Whether integers of `type`'s elements order and divide as unsigned
/// values: `ui8`, and `i1` (false < true).
static bool isUnsignedElement(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isUnsignedInteger() || element.isInteger(1);
}

/// Returns `x` as a double.
static double toDouble(APFloat x) {
  bool losesInfo = false;
  x.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  return x.convertToDouble();
}

/// Rounds `value` to `semantics`.
static APFloat fromDouble(double value, const llvm::fltSemantics &semantics) {
  bool losesInfo = false;
  APFloat result(value);
  result.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
  return result;
}

/// Evaluates `fn` in double precision and rounds the result back to the
/// semantics of `x` (transcendental constant folding).
static APFloat applyInDouble(const APFloat &x, double (*fn)(double)) {
  return fromDouble(fn(toDouble(x)), x.getSemantics());
}
static APFloat applyInDouble(const APFloat &x, const APFloat &y,
                             double (*fn)(double, double)) {
  return fromDouble(fn(toDouble(x), toDouble(y)), x.getSemantics());
}

/// Constant-folds a float-only unary op computed in double precision.
static OpFoldResult foldInDouble(ArrayRef<Attribute> operands, Type type,
                                 double (*fn)(double)) {
  return foldUnary(
      operands, type,
      [&](APFloat a) -> std::optional<APFloat> { return applyInDouble(a, fn); },
      nullptr);
}

/// Folds an op whose result is a splat of its splat constant operand,
/// reshaped to the result type (broadcast, transpose, slice of a splat).
static OpFoldResult foldSplat(Attribute operand, Type resultType) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(operand);
  auto shaped = dyn_cast<ShapedType>(resultType);
  if (!splat || !shaped || !shaped.hasStaticShape())
    return {};
  return DenseElementsAttr::get(shaped, splat.getSplatValue<Attribute>());
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

//===----------------------------------------------------------------------===//
// Binary elementwise ops
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  // x + -0.0 == x for every float x; x + +0.0 is not (-0.0 + +0.0 == +0.0).
  if (matchPattern(getRhs(), m_NegZeroFloat()) ||
      matchPattern(getRhs(), m_Zero()))
    return getLhs();
  // (y + +0.0) + +0.0 == y + +0.0: y + +0.0 is never -0.0.
  if (matchPattern(getRhs(), m_PosZeroFloat()))
    if (auto inner = getLhs().getDefiningOp<AddOp>())
      if (matchPattern(inner.getRhs(), m_PosZeroFloat()))
        return getLhs();
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return a + b; },
      [](APInt a, APInt b) -> std::optional<APInt> { return a + b; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(getRhs(), m_PosZeroFloat()) ||
      matchPattern(getRhs(), m_Zero()))
    return getLhs();
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return a - b; },
      [](APInt a, APInt b) -> std::optional<APInt> { return a - b; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(getRhs(), m_OneFloat()) || matchPattern(getRhs(), m_One()))
    return getLhs();
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return a * b; },
      [](APInt a, APInt b) -> std::optional<APInt> { return a * b; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(getRhs(), m_OneFloat()) || matchPattern(getRhs(), m_One()))
    return getLhs();
  bool isUnsigned = isUnsignedElement(getType());
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return a / b; },
      [&](APInt a, APInt b) -> std::optional<APInt> {
        // Division by zero and MIN / -1 have no defined value: keep the op.
        if (b.isZero())
          return std::nullopt;
        if (isUnsigned)
          return a.udiv(b);
        if (a.isMinSignedValue() && b.isAllOnes())
          return std::nullopt;
        return a.sdiv(b);
      });
}

/// Integer power with wrap-around; a negative exponent gives 0 unless the
/// base is 1 or -1 (lazy.pow's documented semantics). An unsigned exponent
/// is never negative.
static std::optional<APInt> integerPower(APInt base, APInt exponent,
                                         bool isUnsigned) {
  if (!isUnsigned && exponent.isNegative()) {
    if (base.isOne())
      return base;
    if (base.isAllOnes()) // -1: +-1 by the exponent's parity.
      return exponent[0] ? base : APInt(base.getBitWidth(), 1);
    return APInt::getZero(base.getBitWidth());
  }
  APInt result(base.getBitWidth(), 1);
  for (APInt e = exponent; !e.isZero(); e.lshrInPlace(1)) {
    if (e[0])
      result *= base;
    base *= base;
  }
  return result;
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(getRhs(), m_OneFloat()) || matchPattern(getRhs(), m_One()))
    return getLhs();
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> {
        return applyInDouble(a, b,
                             [](double x, double y) { return std::pow(x, y); });
      },
      [&](APInt base, APInt exponent) {
        return integerPower(base, exponent, isUnsignedElement(getType()));
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> {
        return llvm::maximum(a, b);
      },
      [&](APInt a, APInt b) -> std::optional<APInt> {
        return (isUnsignedElement(getType()) ? a.uge(b) : a.sge(b)) ? a : b;
      });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> {
        return llvm::minimum(a, b);
      },
      [&](APInt a, APInt b) -> std::optional<APInt> {
        return (isUnsignedElement(getType()) ? a.ule(b) : a.sle(b)) ? a : b;
      });
}

//===----------------------------------------------------------------------===//
// Unary elementwise ops
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return foldUnary(
      adaptor.getOperands(), getType(),
      [](APFloat a) -> std::optional<APFloat> { return -a; },
      [](APInt a) -> std::optional<APInt> { return -a; });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  if (isUnsignedElement(getType()))
    return getInput();
  if (auto inner = getInput().getDefiningOp<AbsOp>())
    return inner.getResult();
  return foldUnary(
      adaptor.getOperands(), getType(),
      [](APFloat a) -> std::optional<APFloat> { return abs(a); },
      [](APInt a) -> std::optional<APInt> { return a.abs(); });
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  if (isUnsignedElement(getType()))
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReluOp>())
    return inner.getResult();
  return foldUnary(
      adaptor.getOperands(), getType(),
      [](APFloat a) -> std::optional<APFloat> {
        // max(x, +0.0) with NaN propagation: -0.0 becomes +0.0.
        if (a.isNaN() || (!a.isNegative() && !a.isZero()))
          return a;
        return APFloat::getZero(a.getSemantics());
      },
      [](APInt a) -> std::optional<APInt> {
        return a.isNegative() ? APInt::getZero(a.getBitWidth()) : a;
      });
}

OpFoldResult ExpOp::fold(FoldAdaptor adaptor) {
  return foldInDouble(adaptor.getOperands(), getType(),
                      [](double x) { return std::exp(x); });
}

OpFoldResult LogOp::fold(FoldAdaptor adaptor) {
  return foldInDouble(adaptor.getOperands(), getType(),
                      [](double x) { return std::log(x); });
}

OpFoldResult TanhOp::fold(FoldAdaptor adaptor) {
  return foldInDouble(adaptor.getOperands(), getType(),
                      [](double x) { return std::tanh(x); });
}

OpFoldResult SigmoidOp::fold(FoldAdaptor adaptor) {
  return foldInDouble(adaptor.getOperands(), getType(),
                      [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
}

OpFoldResult SqrtOp::fold(FoldAdaptor adaptor) {
  return foldInDouble(adaptor.getOperands(), getType(),
                      [](double x) { return std::sqrt(x); });
}

OpFoldResult RsqrtOp::fold(FoldAdaptor adaptor) {
  return foldInDouble(adaptor.getOperands(), getType(),
                      [](double x) { return 1.0 / std::sqrt(x); });
}

OpFoldResult SinOp::fold(FoldAdaptor adaptor) {
  return foldInDouble(adaptor.getOperands(), getType(),
                      [](double x) { return std::sin(x); });
}

OpFoldResult CosOp::fold(FoldAdaptor adaptor) {
  return foldInDouble(adaptor.getOperands(), getType(),
                      [](double x) { return std::cos(x); });
}

OpFoldResult ErfOp::fold(FoldAdaptor adaptor) {
  return foldInDouble(adaptor.getOperands(), getType(),
                      [](double x) { return std::erf(x); });
}

OpFoldResult AsinOp::fold(FoldAdaptor adaptor) {
  return foldInDouble(adaptor.getOperands(), getType(),
                      [](double x) { return std::asin(x); });
}

OpFoldResult AcosOp::fold(FoldAdaptor adaptor) {
  return foldInDouble(adaptor.getOperands(), getType(),
                      [](double x) { return std::acos(x); });
}

OpFoldResult AtanOp::fold(FoldAdaptor adaptor) {
  return foldInDouble(adaptor.getOperands(), getType(),
                      [](double x) { return std::atan(x); });
}

//===----------------------------------------------------------------------===//
// Compare and select
//===----------------------------------------------------------------------===//

/// Evaluates a predicate on a three-way comparison result.
static bool evaluatePredicate(ComparePredicate predicate, bool less, bool equal,
                              bool greater) {
  switch (predicate) {
  case ComparePredicate::eq:
    return equal;
  case ComparePredicate::ne:
    return !equal;
  case ComparePredicate::lt:
    return less;
  case ComparePredicate::le:
    return less || equal;
  case ComparePredicate::gt:
    return greater;
  case ComparePredicate::ge:
    return greater || equal;
  }
  llvm_unreachable("unknown compare predicate");
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  ComparePredicate predicate = getPredicate();
  Type element = getElementTypeOrSelf(getLhs().getType());
  auto toBit = [](bool value) { return APInt(1, value ? 1 : 0); };
  if (isa<FloatType>(element))
    return constFoldBinaryOpConditional<FloatAttr, APFloat, void, IntegerAttr>(
        adaptor.getOperands(), getType(),
        [&](APFloat a, APFloat b) -> std::optional<APInt> {
          // Unordered (NaN) compares are false except `ne`.
          APFloat::cmpResult order = a.compare(b);
          return toBit(evaluatePredicate(
              predicate, order == APFloat::cmpLessThan,
              order == APFloat::cmpEqual, order == APFloat::cmpGreaterThan));
        });
  bool isUnsigned = isUnsignedElement(element);
  return constFoldBinaryOpConditional<IntegerAttr, APInt, void, IntegerAttr>(
      adaptor.getOperands(), getType(),
      [&](APInt a, APInt b) -> std::optional<APInt> {
        // i1 orders false < true, ui8 is unsigned; the others are signed.
        bool less = isUnsigned ? a.ult(b) : a.slt(b);
        bool greater = isUnsigned ? a.ugt(b) : a.sgt(b);
        return toBit(evaluatePredicate(predicate, less, a == b, greater));
      });
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse())
    return getOnTrue();
  if (auto cond = dyn_cast_if_present<SplatElementsAttr>(adaptor.getCond()))
    return cond.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
  return {};
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  Type from = getElementTypeOrSelf(getInput().getType());
  Type to = getElementTypeOrSelf(getType());
  Attribute operand = adaptor.getInput();
  if (!operand)
    return {};
  unsigned toWidth = to.getIntOrFloatBitWidth();
  // i1 and ui8 convert as unsigned values.
  bool fromUnsigned = isUnsignedElement(from);

  if (auto toFloat = dyn_cast<FloatType>(to)) {
    const llvm::fltSemantics &semantics = toFloat.getFloatSemantics();
    if (isa<FloatType>(from))
      return constFoldCastOp<FloatAttr, FloatAttr, APFloat, APFloat, void>(
          operand, getType(), [&](const APFloat &a, bool &) {
            bool losesInfo = false;
            APFloat result = a;
            result.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
            return result;
          });
    return constFoldCastOp<IntegerAttr, FloatAttr, APInt, APFloat, void>(
        operand, getType(), [&](const APInt &a, bool &) {
          APFloat result(semantics);
          result.convertFromAPInt(a, /*IsSigned=*/!fromUnsigned,
                                  APFloat::rmNearestTiesToEven);
          return result;
        });
  }

  if (isa<FloatType>(from))
    return constFoldCastOp<FloatAttr, IntegerAttr, APFloat, APInt, void>(
        operand, getType(), [&](const APFloat &a, bool &ok) {
          if (toWidth == 1)
            return APInt(1, a.isZero() ? 0 : 1);
          APSInt result(toWidth, /*isUnsigned=*/to.isUnsignedInteger());
          bool isExact = false;
          // NaN and out-of-range values have no defined result: keep the op.
          ok = a.convertToInteger(result, APFloat::rmTowardZero, &isExact) !=
               APFloat::opInvalidOp;
          return APInt(result);
        });
  return constFoldCastOp<IntegerAttr, IntegerAttr, APInt, APInt, void>(
      operand, getType(), [&](const APInt &a, bool &) {
        if (toWidth == 1)
          return APInt(1, a.isZero() ? 0 : 1);
        return fromUnsigned ? a.zextOrTrunc(toWidth) : a.sextOrTrunc(toWidth);
      });
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // Numpy broadcasting is transitive: broadcast(broadcast(x)) is one step.
  if (auto inner = getInput().getDefiningOp<BroadcastOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return foldSplat(adaptor.getInput(), getType());
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  // Equal types with two dynamic dimensions may still split the elements
  // differently ([2, 6] to [3, 4] is tensor<?x?xf32> both ways).
  if (getInput().getType() == getType() && getType().getNumDynamicDims() <= 1)
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput());
      dense && getType().hasStaticShape())
    return dense.reshape(getType());
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  auto isIdentity = [](ArrayRef<int64_t> p) {
    for (auto [i, index] : llvm::enumerate(p))
      if (index != static_cast<int64_t>(i))
        return false;
    return true;
  };
  if (isIdentity(perm))
    return getInput();
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    // Result dim i is inner's dim perm[i], which is input dim
    // innerPerm[perm[i]].
    ArrayRef<int64_t> innerPerm = inner.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t index : perm)
      composed.push_back(innerPerm[index]);
    getInputMutable().assign(inner.getInput());
    setPermutation(composed);
    return getResult();
  }
  return foldSplat(adaptor.getInput(), getType());
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getStart(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getStep(), [](int64_t s) { return s == 1; }))
    return getInput();
  return foldSplat(adaptor.getInput(), getType());
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs().front().getType() == getType())
    return getInputs().front();
  return {};
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// A reduction over no axes, or over size-1 axes whose dimensions are kept,
/// returns its input unchanged; a float sum or mean only if it is exact: it
/// adds its one element to +0.0, which turns -0.0 into +0.0 (as numpy's sums
/// do; lazyc-fuzz seed 100285).
template <typename OpTy> static OpFoldResult foldIdentityReduction(OpTy op) {
  constexpr bool isSum =
      std::is_same_v<OpTy, ReduceSumOp> || std::is_same_v<OpTy, ReduceMeanOp>;
  if (isSum && isa<FloatType>(op.getType().getElementType()))
    return {};
  if (op.getInput().getType() == op.getType() &&
      llvm::all_of(op.getAxes(), [&](int64_t axis) {
        return op.getInput().getType().getDimSize(axis) == 1;
      }))
    return op.getInput();
  return {};
}

OpFoldResult ReduceSumOp::fold(FoldAdaptor) {
  return foldIdentityReduction(*this);
}
OpFoldResult ReduceMaxOp::fold(FoldAdaptor) {
  return foldIdentityReduction(*this);
}
OpFoldResult ReduceMinOp::fold(FoldAdaptor) {
  return foldIdentityReduction(*this);
}
OpFoldResult ReduceMeanOp::fold(FoldAdaptor) {
  return foldIdentityReduction(*this);
}
