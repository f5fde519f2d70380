//===- Elementwise.cpp - Lower elementwise lazy ops to linalg.generic -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers the elementwise ops (binary, unary, compare, select, cast)
// and the index-mapping ops (broadcast, transpose) to one all-parallel
// linalg.generic each. Broadcasts and transposes live in indexing maps, so
// elementwise fusion sees whole chains.
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

//===----------------------------------------------------------------------===//
// Scalar semantics of each op
//===----------------------------------------------------------------------===//

/// Emits FloatOp for float operands and IntOp otherwise.
template <typename FloatOp, typename IntOp>
static Value floatOrInt(OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return FloatOp::create(b, loc, args).getResult();
  return IntOp::create(b, loc, args).getResult();
}

static Value constantLike(OpBuilder &b, Location loc, Value like,
                          double value) {
  Type type = like.getType();
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

static Value scalar(AddOp, OpBuilder &b, Location loc, ValueRange args) {
  return floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, args);
}
static Value scalar(SubOp, OpBuilder &b, Location loc, ValueRange args) {
  return floatOrInt<arith::SubFOp, arith::SubIOp>(b, loc, args);
}
static Value scalar(MulOp, OpBuilder &b, Location loc, ValueRange args) {
  return floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, args);
}
/// A divisor that never traps: 1 where `rhs` is zero, or (signed) -1 with
/// the minimum as the dividend (a division by 1 then gives the dividend,
/// which is what `MIN / -1` wraps to).
static Value safeDivisor(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  Type type = lhs.getType();
  Value divisorIsZero = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, rhs, constantLike(b, loc, lhs, 0));
  Value one = constantLike(b, loc, lhs, 1);
  if (isUnsignedInteger(type))
    return arith::SelectOp::create(b, loc, divisorIsZero, one, rhs);
  Value minimum = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, integerLimit(type, /*maximum=*/false)));
  Value overflows = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs, minimum),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs,
                            constantLike(b, loc, lhs, -1)));
  Value unsafe = arith::OrIOp::create(b, loc, divisorIsZero, overflows);
  return arith::SelectOp::create(b, loc, unsafe, one, rhs);
}

static Value scalar(DivOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return arith::DivFOp::create(b, loc, args[0], args[1]);
  // The result of an unsafe division is unspecified: divide by 1 instead.
  return createIntegerDivision(b, loc, args[0],
                               safeDivisor(b, loc, args[0], args[1]));
}

/// Whether a truncated remainder `r` must move to the divisor's side: it is
/// nonzero and its sign differs from the divisor's.
static Value remainderNeedsAdjusting(OpBuilder &b, Location loc, Value r,
                                     Value divisor) {
  Value zero = constantLike(b, loc, r, 0);
  Value nonzero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
  Value signsDiffer = arith::XOrIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, divisor, zero));
  return arith::AndIOp::create(b, loc, nonzero, signsDiffer);
}

/// numpy's float divmod (npy_divmod): the floor quotient and the remainder
/// with the divisor's sign, both computed in `a`'s type (f32 or f64).
static std::pair<Value, Value> floatDivMod(OpBuilder &b, Location loc, Value a,
                                           Value divisor) {
  using P = arith::CmpFPredicate;
  Value zero = constantLike(b, loc, a, 0);
  Value one = constantLike(b, loc, a, 1);
  Value half = constantLike(b, loc, a, 0.5);
  Value fmod = arith::RemFOp::create(b, loc, a, divisor);
  Value quotient = arith::DivFOp::create(b, loc, a, divisor);
  Value div = arith::DivFOp::create(
      b, loc, arith::SubFOp::create(b, loc, a, fmod), divisor);
  // `if (mod)`: NaN counts as nonzero.
  Value modNonzero = arith::CmpFOp::create(b, loc, P::UNE, fmod, zero);
  Value signsDiffer = arith::XOrIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, P::OLT, divisor, zero),
      arith::CmpFOp::create(b, loc, P::OLT, fmod, zero));
  Value adjust = arith::AndIOp::create(b, loc, modNonzero, signsDiffer);
  Value mod = arith::SelectOp::create(
      b, loc, adjust, arith::AddFOp::create(b, loc, fmod, divisor), fmod);
  div = arith::SelectOp::create(b, loc, adjust,
                                arith::SubFOp::create(b, loc, div, one), div);
  mod = arith::SelectOp::create(
      b, loc, modNonzero, mod, math::CopySignOp::create(b, loc, zero, divisor));
  // Snap the quotient to the nearest integer.
  Value floor = math::FloorOp::create(b, loc, div);
  Value above = arith::CmpFOp::create(
      b, loc, P::OGT, arith::SubFOp::create(b, loc, div, floor), half);
  floor = arith::SelectOp::create(
      b, loc, above, arith::AddFOp::create(b, loc, floor, one), floor);
  Value divNonzero = arith::CmpFOp::create(b, loc, P::UNE, div, zero);
  Value floorDiv =
      arith::SelectOp::create(b, loc, divNonzero, floor,
                              math::CopySignOp::create(b, loc, zero, quotient));
  // A zero divisor: a / b and fmod (NaN).
  Value divisorIsZero = arith::CmpFOp::create(b, loc, P::OEQ, divisor, zero);
  floorDiv = arith::SelectOp::create(b, loc, divisorIsZero, quotient, floorDiv);
  mod = arith::SelectOp::create(b, loc, divisorIsZero, fmod, mod);
  return {floorDiv, mod};
}

/// floatDivMod's quotient (`wantQuotient`) or remainder, with f16/bf16
/// computed in f32 and rounded once.
static Value floatDivModResult(OpBuilder &b, Location loc, Value lhs, Value rhs,
                               bool wantQuotient) {
  Type type = lhs.getType();
  bool narrow = type.getIntOrFloatBitWidth() < 32;
  if (narrow) {
    lhs = arith::ExtFOp::create(b, loc, b.getF32Type(), lhs);
    rhs = arith::ExtFOp::create(b, loc, b.getF32Type(), rhs);
  }
  auto [quotient, remainder] = floatDivMod(b, loc, lhs, rhs);
  Value result = wantQuotient ? quotient : remainder;
  return narrow ? arith::TruncFOp::create(b, loc, type, result) : result;
}

static Value scalar(FloorDivOp, OpBuilder &b, Location loc, ValueRange args) {
  Value lhs = args[0], rhs = args[1];
  if (isa<FloatType>(lhs.getType()))
    return floatDivModResult(b, loc, lhs, rhs, /*wantQuotient=*/true);
  // Truncated division and remainder by a divisor that cannot trap, the
  // quotient moved one down when the remainder has the other sign (never
  // for unsigned integers); 0 for a zero divisor (numpy's value).
  Value divisor = safeDivisor(b, loc, lhs, rhs);
  Value adjusted = createIntegerDivision(b, loc, lhs, divisor);
  if (!isUnsignedInteger(lhs.getType())) {
    Value remainder = createIntegerRemainder(b, loc, lhs, divisor);
    adjusted = arith::SelectOp::create(
        b, loc, remainderNeedsAdjusting(b, loc, remainder, rhs),
        arith::SubIOp::create(b, loc, adjusted, constantLike(b, loc, lhs, 1)),
        adjusted);
  }
  Value zero = constantLike(b, loc, lhs, 0);
  Value divisorIsZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, zero);
  return arith::SelectOp::create(b, loc, divisorIsZero, zero, adjusted);
}

static Value scalar(ModOp, OpBuilder &b, Location loc, ValueRange args) {
  Value lhs = args[0], rhs = args[1];
  if (isa<FloatType>(lhs.getType()))
    return floatDivModResult(b, loc, lhs, rhs, /*wantQuotient=*/false);
  // A zero divisor becomes 1, whose remainder is 0 (numpy's value).
  Value remainder =
      createIntegerRemainder(b, loc, lhs, safeDivisor(b, loc, lhs, rhs));
  if (isUnsignedInteger(lhs.getType()))
    return remainder;
  return arith::SelectOp::create(
      b, loc, remainderNeedsAdjusting(b, loc, remainder, rhs),
      arith::AddIOp::create(b, loc, remainder, rhs), remainder);
}

/// Integer power (as math.ipowi, wrapping), with the negative exponents
/// settled here: 0, except 1 for base 1 and +-1 for base -1. (math.ipowi's
/// own lowering divides by the base, which traps for base 0.) Integers
/// narrower than i32 compute in i32 (math.ipowi's exponent is signed, a
/// ui8 one is not) and wrap back: the low bits of a product do not depend
/// on the high ones.
static Value integerPower(OpBuilder &b, Location loc, Value base,
                          Value exponent) {
  Type type = base.getType();
  if (type.getIntOrFloatBitWidth() < 32) {
    Type i32 = b.getI32Type();
    Value power = integerPower(b, loc, createIntegerResize(b, loc, i32, base),
                               createIntegerResize(b, loc, i32, exponent));
    return arith::TruncIOp::create(b, loc, type, power);
  }
  if (isUnsignedInteger(type)) {
    // ui32/ui64 exponents from 2^(n-2) up are negative to math.ipowi. Modulo
    // 2^n an odd base to the 2^(n-2) is 1 and an even base to an exponent
    // of n or more is 0, so e becomes (e mod 2^(n-2)) + 2^(n-2): the same
    // power, and positive.
    unsigned width = type.getIntOrFloatBitWidth();
    int64_t quarter = int64_t(1) << (width - 2);
    Value high =
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, quarter));
    Value low =
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, quarter - 1));
    Value large = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                        exponent, high);
    Value reduced = arith::OrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, exponent, low), high);
    exponent = arith::SelectOp::create(b, loc, large, reduced, exponent);
    return math::IPowIOp::create(b, loc, base, exponent);
  }
  Value zero = constantLike(b, loc, base, 0);
  Value one = constantLike(b, loc, base, 1);
  Value minusOne = constantLike(b, loc, base, -1);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, exponent, zero);
  Value clamped = arith::MaxSIOp::create(b, loc, exponent, zero);
  Value power = math::IPowIOp::create(b, loc, base, clamped);
  Value isOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, base, one);
  Value isMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, base, minusOne);
  Value odd =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                            arith::AndIOp::create(b, loc, exponent, one), zero);
  Value minusOnePower = arith::SelectOp::create(b, loc, odd, minusOne, one);
  Value reciprocal = arith::SelectOp::create(
      b, loc, isOne, one,
      arith::SelectOp::create(b, loc, isMinusOne, minusOnePower, zero));
  return arith::SelectOp::create(b, loc, negative, reciprocal, power);
}

static Value scalar(PowOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return math::PowFOp::create(b, loc, args[0], args[1]);
  return integerPower(b, loc, args[0], args[1]);
}
static Value scalar(MaxOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return arith::MaximumFOp::create(b, loc, args[0], args[1]);
  return createIntegerMax(b, loc, args[0], args[1]);
}
static Value scalar(MinOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return arith::MinimumFOp::create(b, loc, args[0], args[1]);
  return createIntegerMin(b, loc, args[0], args[1]);
}
static Value scalar(NegOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return arith::NegFOp::create(b, loc, args[0]);
  return arith::SubIOp::create(b, loc, constantLike(b, loc, args[0], 0),
                               args[0]);
}
static Value scalar(AbsOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return math::AbsFOp::create(b, loc, args[0]);
  if (isUnsignedInteger(args[0].getType()))
    return args[0];
  // max(x, 0 - x), wrapping: abs(MIN) == MIN. Not math.absi, which
  // math-to-llvm cannot lower on the n-D vectors of rank >= 2 tiles.
  Value negated =
      arith::SubIOp::create(b, loc, constantLike(b, loc, args[0], 0), args[0]);
  return createIntegerMax(b, loc, args[0], negated);
}
static Value scalar(ReluOp, OpBuilder &b, Location loc, ValueRange args) {
  // maximumf(x, +0.0): NaN stays NaN, -0.0 becomes +0.0.
  Value zero = constantLike(b, loc, args[0], 0);
  if (isa<FloatType>(args[0].getType()))
    return arith::MaximumFOp::create(b, loc, args[0], zero);
  return createIntegerMax(b, loc, args[0], zero);
}
static Value scalar(ExpOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::ExpOp::create(b, loc, args[0]);
}
static Value scalar(LogOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::LogOp::create(b, loc, args[0]);
}
static Value scalar(TanhOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::TanhOp::create(b, loc, args[0]);
}
static Value scalar(SigmoidOp, OpBuilder &b, Location loc, ValueRange args) {
  // 1 / (1 + exp(-x)): exp overflows to +inf for very negative x, giving 0.
  // f16/bf16 compute in f32 and round once, as every other function does
  // (three roundings to bf16 were off by 2 ulps).
  Value x = args[0];
  Type type = x.getType();
  bool narrow = type.getIntOrFloatBitWidth() < 32;
  if (narrow)
    x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  Value one = constantLike(b, loc, x, 1);
  Value negated = arith::NegFOp::create(b, loc, x);
  Value denominator =
      arith::AddFOp::create(b, loc, one, math::ExpOp::create(b, loc, negated));
  Value result = arith::DivFOp::create(b, loc, one, denominator);
  return narrow ? arith::TruncFOp::create(b, loc, type, result) : result;
}
static Value scalar(SqrtOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::SqrtOp::create(b, loc, args[0]);
}
static Value scalar(RsqrtOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::RsqrtOp::create(b, loc, args[0]);
}
static Value scalar(SinOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::SinOp::create(b, loc, args[0]);
}
static Value scalar(CosOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::CosOp::create(b, loc, args[0]);
}
static Value scalar(ErfOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::ErfOp::create(b, loc, args[0]);
}
static Value scalar(AsinOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::AsinOp::create(b, loc, args[0]);
}
static Value scalar(AcosOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::AcosOp::create(b, loc, args[0]);
}
static Value scalar(AtanOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::AtanOp::create(b, loc, args[0]);
}
static Value scalar(BitNotOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::XOrIOp::create(b, loc, args[0],
                               constantLike(b, loc, args[0], -1));
}
static Value scalar(BitAndOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::AndIOp::create(b, loc, args[0], args[1]);
}
static Value scalar(BitOrOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::OrIOp::create(b, loc, args[0], args[1]);
}
static Value scalar(BitXorOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::XOrIOp::create(b, loc, args[0], args[1]);
}

/// Whether a shift amount is below the width (read as unsigned, as numpy
/// does): arith's shifts are poison otherwise.
static Value shiftInRange(OpBuilder &b, Location loc, Value amount) {
  Type type = amount.getType();
  Value width = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, type.getIntOrFloatBitWidth()));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, amount,
                               width);
}
static Value scalar(ShiftLeftOp, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0], amount = args[1];
  Value shifted = arith::ShLIOp::create(b, loc, x, amount);
  return arith::SelectOp::create(b, loc, shiftInRange(b, loc, amount), shifted,
                                 constantLike(b, loc, x, 0));
}
static Value scalar(ShiftRightOp, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0], amount = args[1];
  Value inRange = shiftInRange(b, loc, amount);
  if (isUnsignedInteger(x.getType()))
    return arith::SelectOp::create(b, loc, inRange,
                                   arith::ShRUIOp::create(b, loc, x, amount),
                                   constantLike(b, loc, x, 0));
  // Past the width, the sign everywhere: x >> (width - 1).
  Value last = arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(x.getType(), x.getType().getIntOrFloatBitWidth() - 1));
  return arith::SelectOp::create(b, loc, inRange,
                                 arith::ShRSIOp::create(b, loc, x, amount),
                                 arith::ShRSIOp::create(b, loc, x, last));
}

static Value scalar(SelectOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
}

static Value scalar(CompareOp op, OpBuilder &b, Location loc, ValueRange args) {
  ComparePredicate predicate = op.getPredicate();
  Type type = args[0].getType();
  if (isa<FloatType>(type)) {
    // Ordered compares (false on NaN), except `ne` (true on NaN).
    arith::CmpFPredicate floatPredicate;
    switch (predicate) {
    case ComparePredicate::eq:
      floatPredicate = arith::CmpFPredicate::OEQ;
      break;
    case ComparePredicate::ne:
      floatPredicate = arith::CmpFPredicate::UNE;
      break;
    case ComparePredicate::lt:
      floatPredicate = arith::CmpFPredicate::OLT;
      break;
    case ComparePredicate::le:
      floatPredicate = arith::CmpFPredicate::OLE;
      break;
    case ComparePredicate::gt:
      floatPredicate = arith::CmpFPredicate::OGT;
      break;
    case ComparePredicate::ge:
      floatPredicate = arith::CmpFPredicate::OGE;
      break;
    }
    return arith::CmpFOp::create(b, loc, floatPredicate, args[0], args[1]);
  }
  // i1 orders false < true and ui8 is unsigned; the others are signed.
  arith::CmpIPredicate intPredicate;
  switch (predicate) {
  case ComparePredicate::eq:
    intPredicate = arith::CmpIPredicate::eq;
    break;
  case ComparePredicate::ne:
    intPredicate = arith::CmpIPredicate::ne;
    break;
  case ComparePredicate::lt:
    intPredicate = arith::CmpIPredicate::slt;
    break;
  case ComparePredicate::le:
    intPredicate = arith::CmpIPredicate::sle;
    break;
  case ComparePredicate::gt:
    intPredicate = arith::CmpIPredicate::sgt;
    break;
  case ComparePredicate::ge:
    intPredicate = arith::CmpIPredicate::sge;
    break;
  }
  return arith::CmpIOp::create(b, loc, integerPredicate(intPredicate, type),
                               args[0], args[1]);
}

/// Rounds an f64 to f32 "to odd" (toward zero, then the last bit set if
/// anything was lost). Rounding that to f16 or bf16 to nearest gives the
/// correctly rounded result, which two round-to-nearest steps would not.
static Value roundToOddF32(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value nearest = arith::TruncFOp::create(b, loc, f32, x);
  // Toward zero: one step back in magnitude if rounding went away from zero
  // (the bit pattern of a float orders its magnitude).
  Value roundedUp = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OGT,
      math::AbsFOp::create(b, loc,
                           arith::ExtFOp::create(b, loc, x.getType(), nearest)),
      math::AbsFOp::create(b, loc, x));
  Value bits = arith::BitcastOp::create(b, loc, i32, nearest);
  Value stepBack = arith::SubIOp::create(
      b, loc, bits, arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1)));
  bits = arith::SelectOp::create(b, loc, roundedUp, stepBack, bits);
  Value towardZero = arith::BitcastOp::create(b, loc, f32, bits);
  Value inexact = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::ONE,
      arith::ExtFOp::create(b, loc, x.getType(), towardZero), x);
  Value sticky = arith::ExtUIOp::create(b, loc, i32, inexact);
  return arith::BitcastOp::create(b, loc, f32,
                                  arith::OrIOp::create(b, loc, bits, sticky));
}

/// Converts a 64-bit integer to f32 "to odd" from the integer itself:
/// through f64 (53 bits), a value beyond 2^53 would round first
/// (2332864606977916916, 12 below the midpoint of two bf16 values, became
/// that midpoint in f64, and bf16's tie then went to the even value above:
/// lazyc-fuzz seed 55762). The magnitude converts to nearest, is stepped
/// back toward zero if that went up, and gets the sticky bit if inexact.
static Value integerToOddF32(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type(), intType = x.getType();
  Value negative, magnitude = x;
  if (!isUnsignedInteger(intType)) {
    Value zero = constantLike(b, loc, x, 0);
    negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
    // The minimum's negation is itself: read unsigned, it is 2^63.
    magnitude = arith::SelectOp::create(
        b, loc, negative, arith::SubIOp::create(b, loc, zero, x), x);
  }
  Value nearest = arith::UIToFPOp::create(b, loc, f32, magnitude);
  // 2^64 (the nearest f32 of magnitudes near it) does not convert back.
  Value overflows = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OGE, nearest,
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0x1p64f)));
  Value back = arith::FPToUIOp::create(
      b, loc, intType,
      arith::SelectOp::create(
          b, loc, overflows,
          arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0)), nearest));
  Value roundedUp = arith::OrIOp::create(
      b, loc, overflows,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, back,
                            magnitude));
  Value inexact = arith::OrIOp::create(
      b, loc, overflows,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, back, magnitude));
  // The bits of a positive float order its magnitude: one step back is the
  // float below.
  Value bits = arith::BitcastOp::create(b, loc, i32, nearest);
  bits = arith::SubIOp::create(b, loc, bits,
                               arith::ExtUIOp::create(b, loc, i32, roundedUp));
  bits = arith::OrIOp::create(b, loc, bits,
                              arith::ExtUIOp::create(b, loc, i32, inexact));
  if (negative)
    bits = arith::OrIOp::create(
        b, loc, bits,
        arith::ShLIOp::create(
            b, loc, arith::ExtUIOp::create(b, loc, i32, negative),
            arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(31))));
  return arith::BitcastOp::create(b, loc, f32, bits);
}

static Value scalar(CastOp op, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  Type from = x.getType();
  Type to = op.getType().getElementType();
  if (from == to)
    return x;
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (to.isInteger(1)) {
    // x != 0 (NaN counts as nonzero).
    Value zero = constantLike(b, loc, x, 0);
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (fromFloat && toFloat) {
    unsigned fromWidth = from.getIntOrFloatBitWidth();
    unsigned toWidth = to.getIntOrFloatBitWidth();
    if (fromWidth < toWidth)
      return arith::ExtFOp::create(b, loc, to, x);
    if (fromWidth ==
        toWidth) // f16 <-> bf16: exactly through f32, one rounding.
      x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    else if (fromWidth == 64 && toWidth == 16)
      x = roundToOddF32(b, loc, x);
    return arith::TruncFOp::create(b, loc, to, x);
  }
  // Every float holds i1, i8 and ui8 exactly: one conversion.
  if (toFloat && from.getIntOrFloatBitWidth() > 8 &&
      to.getIntOrFloatBitWidth() == 16) {
    // To f16/bf16 through f32 rounded to odd: one rounding. A direct sitofp
    // is computed as sitofp to f32 then truncf, two roundings: 2^24 + 2^16
    // + 1 became bf16 2^24, not 2^24 + 2^17. Up to 32 bits through f64,
    // which holds them exactly; 64-bit integers from the integer.
    if (from.getIntOrFloatBitWidth() == 64)
      return arith::TruncFOp::create(b, loc, to, integerToOddF32(b, loc, x));
    Value wide = createIntegerToFloat(b, loc, b.getF64Type(), x);
    return arith::TruncFOp::create(b, loc, to, roundToOddF32(b, loc, wide));
  }
  if (toFloat)
    return createIntegerToFloat(b, loc, to, x);
  if (fromFloat && to.getIntOrFloatBitWidth() < 32) {
    // i8, ui8, i16 and ui16 through i32, wrapping like numpy's casts (-1.0
    // to ui8 is 255, 300.0 is 44) instead of fptosi/fptoui's poison outside
    // their bits.
    Value wide = arith::FPToSIOp::create(b, loc, b.getI32Type(), x);
    return arith::TruncIOp::create(b, loc, to, wide);
  }
  if (fromFloat && to.isUnsignedInteger(32)) {
    // ui32 through i64: 2^31 and up fit, negative values wrap.
    Value wide = arith::FPToSIOp::create(b, loc, b.getI64Type(), x);
    return arith::TruncIOp::create(b, loc, to, wide);
  }
  if (fromFloat && to.isUnsignedInteger(64)) {
    // ui64: fptoui for 0 and up (2^63 and past fit), negative values wrap
    // through i64 (-1.0 is 2^64 - 1, as numpy on x86-64).
    Value zero = constantLike(b, loc, x, 0);
    Value negative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
    Value wrapped = arith::FPToSIOp::create(b, loc, to, x);
    Value positive = arith::FPToUIOp::create(b, loc, to, x);
    return arith::SelectOp::create(b, loc, negative, wrapped, positive);
  }
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, to, x);
  return createIntegerResize(b, loc, to, x);
}

static Value scalar(BitcastOp op, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  Type from = x.getType();
  Type to = op.getType().getElementType();
  if (from == to)
    return x;
  // i1 is stored as a byte holding 0 or 1.
  if (from.isInteger(1))
    return arith::ExtUIOp::create(b, loc, to, x);
  if (to.isInteger(1))
    return arith::TruncIOp::create(b, loc, to, x);
  // Integers of one width and another signedness: the same bits.
  if (isa<IntegerType>(from) && isa<IntegerType>(to))
    return createIntegerResize(b, loc, to, x);
  return arith::BitcastOp::create(b, loc, to, x);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// Lowers an elementwise op whose operands all have the result's shape.
template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    ValueRange operands = adaptor.getOperands();
    Value init = createEmptyLike(rewriter, loc, resultType, operands.back());
    SmallVector<AffineMap> maps(
        operands.size(), rewriter.getMultiDimIdentityMap(resultType.getRank()));
    Value result = buildParallelGeneric(
        rewriter, loc, operands, maps, init,
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
          return scalar(op, b, bodyLoc, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Broadcast: size-1 input dimensions read index 0, added leading
/// dimensions are not read at all.
struct BroadcastLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = op.getInput().getType();
    RankedTensorType resultType = op.getType();
    int64_t offset = resultType.getRank() - inputType.getRank();
    auto readsDim = [&](int64_t d) -> AffineExpr {
      bool broadcast = inputType.getDimSize(d) == 1 &&
                       resultType.getDimSize(d + offset) != 1;
      return broadcast ? rewriter.getAffineConstantExpr(0)
                       : rewriter.getAffineDimExpr(d + offset);
    };

    // A keep_dims reduction reaches here through a tensor.expand_shape that
    // only adds size-1 dimensions: read its source directly, so the
    // reduction feeds this generic with no reshape between them (which
    // tile-and-fuse could not see through).
    Value source = adaptor.getInput();
    SmallVector<AffineExpr> exprs;
    auto expand = source.getDefiningOp<tensor::ExpandShapeOp>();
    if (expand && expand.getSrcType().hasStaticShape()) {
      for (const ReassociationIndices &group :
           expand.getReassociationIndices()) {
        auto kept = llvm::find_if(
            group, [&](int64_t d) { return inputType.getDimSize(d) != 1; });
        exprs.push_back(readsDim(kept == group.end() ? group.front() : *kept));
        if (kept != group.end() && llvm::count_if(group, [&](int64_t d) {
                                     return inputType.getDimSize(d) != 1;
                                   }) > 1) {
          exprs.clear();
          break;
        }
      }
      if (!exprs.empty())
        source = expand.getSrc();
    }
    if (source == adaptor.getInput()) {
      exprs.clear();
      for (int64_t d = 0, e = inputType.getRank(); d < e; ++d)
        exprs.push_back(readsDim(d));
    }
    AffineMap map =
        AffineMap::get(resultType.getRank(), 0, exprs, rewriter.getContext());
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         resultType.getElementType(),
                                         adaptor.getSizes());
    Value result = buildParallelGeneric(
        rewriter, loc, source, map, init,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Transpose: result dimension i reads input dimension permutation[i].
struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> perm = op.getPermutation();
    RankedTensorType resultType = op.getType();
    int64_t rank = resultType.getRank();
    SmallVector<AffineExpr> exprs(rank);
    for (int64_t i = 0; i < rank; ++i)
      exprs[perm[i]] = rewriter.getAffineDimExpr(i);
    AffineMap map = AffineMap::get(rank, 0, exprs, rewriter.getContext());
    Location loc = op.getLoc();
    SmallVector<Value> dynamicSizes;
    for (int64_t i = 0; i < rank; ++i)
      if (resultType.isDynamicDim(i))
        dynamicSizes.push_back(
            tensor::DimOp::create(rewriter, loc, adaptor.getInput(), perm[i]));
    Value init =
        tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                resultType.getElementType(), dynamicSizes);
    Value result = buildParallelGeneric(
        rewriter, loc, adaptor.getInput(), map, init,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::lazy::populateElementwiseLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<ElementwiseLowering<AddOp>, ElementwiseLowering<SubOp>,
           ElementwiseLowering<MulOp>, ElementwiseLowering<DivOp>,
           ElementwiseLowering<FloorDivOp>, ElementwiseLowering<ModOp>,
           ElementwiseLowering<PowOp>, ElementwiseLowering<MaxOp>,
           ElementwiseLowering<MinOp>, ElementwiseLowering<NegOp>,
           ElementwiseLowering<AbsOp>, ElementwiseLowering<ReluOp>,
           ElementwiseLowering<ExpOp>, ElementwiseLowering<LogOp>,
           ElementwiseLowering<TanhOp>, ElementwiseLowering<SigmoidOp>,
           ElementwiseLowering<SqrtOp>, ElementwiseLowering<RsqrtOp>,
           ElementwiseLowering<SinOp>, ElementwiseLowering<CosOp>,
           ElementwiseLowering<ErfOp>, ElementwiseLowering<AsinOp>,
           ElementwiseLowering<AcosOp>, ElementwiseLowering<AtanOp>,
           ElementwiseLowering<BitNotOp>, ElementwiseLowering<BitAndOp>,
           ElementwiseLowering<BitOrOp>, ElementwiseLowering<BitXorOp>,
           ElementwiseLowering<ShiftLeftOp>, ElementwiseLowering<ShiftRightOp>,
           ElementwiseLowering<CompareOp>, ElementwiseLowering<SelectOp>,
           ElementwiseLowering<CastOp>, ElementwiseLowering<BitcastOp>,
           BroadcastLowering, TransposeLowering>(patterns.getContext());
}
