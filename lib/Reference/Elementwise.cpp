//===- Elementwise.cpp - Reference semantics of elementwise ops -----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file evaluates the elementwise ops of the lazy dialect one element at
// a time: floats in double precision (libm for the transcendentals) and
// rounded once to the result's dtype, integers with two's-complement
// wrapping, as docs/Dialects/LazyDialect.md specifies each op.
//
// Tolerances (see Evaluator.h). Each float result gets
//   spread  how far the op moves while its inputs range over their
//           tolerance intervals: the largest distance of the op at the
//           corners of the box (sound for ops monotone in each operand over
//           the box: add, sub, mul, div, max, min, pow with a base of one
//           sign, exp, log, sqrt, rsqrt, tanh, sigmoid, erf, asin, acos,
//           atan: so asin and acos are as steep as they get near +-1, and
//           may be any value once the box leaves [-1, 1]) or the
//           Lipschitz bound (neg, abs, relu: 1; sin, cos: 1, and never
//           more than their range, 2);
//   local   the error the compiled op itself may add (localError below);
// plus one ulp of the dtype for rounding the compiled result whenever
// either is nonzero. With exact inputs, IEEE ops (add, sub, mul, div, sqrt,
// max, min, neg, abs, relu) have no local error: f32 and f64 are
// correctly rounded in hardware, and f16/bf16 are computed in f32 and
// rounded once, which equals one correct rounding (f32 carries more than
// twice their precision, 24 >= 2 * 11 + 2). So their results must be
// bit-exact, like every integer and boolean result.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "lazyc/Runtime/NarrowFloats.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <optional>
#include <stdexcept>

using namespace lazyc;
using namespace lazyc::reference;
using namespace lazyc::reference::impl;
using lazyc::trace::Node;
using lazyc::trace::OpKind;
using lazyc::trace::Predicate;

namespace {

double nan() { return std::numeric_limits<double>::quiet_NaN(); }

//===----------------------------------------------------------------------===//
// Float semantics
//===----------------------------------------------------------------------===//

/// IEEE maximum / minimum as arith.maximumf and minimumf: NaN wins, and
/// +0 > -0.
double maximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return nan();
  if (a == 0 && b == 0)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
double minimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return nan();
  if (a == 0 && b == 0)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

/// numpy's float divmod (npy_divmod), each step rounded to `dtype` (the
/// dtype the compiled op computes in: f32 for f16/bf16): the floor quotient
/// (`quotient`) or the remainder, whose sign follows the divisor.
double floatDivMod(double a, double b, DType dtype, bool quotient) {
  auto round = [&](double x) { return numerics::roundTo(x, dtype); };
  double mod = std::fmod(a, b); // exact
  if (b == 0)
    return quotient ? round(a / b) : mod;
  double div = round(round(a - mod) / b);
  if (mod != 0 || std::isnan(mod)) {
    if ((b < 0) != (mod < 0)) {
      mod = round(mod + b);
      div = round(div - 1);
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  if (!quotient)
    return mod;
  if (div != 0 || std::isnan(div)) {
    double floor = std::floor(div);
    if (round(div - floor) > 0.5)
      floor = round(floor + 1);
    return floor;
  }
  return std::copysign(0.0, round(a / b));
}

/// The dtype floorDiv and mod compute in: f32 for f16/bf16.
DType divModDType(DType dtype) {
  return dtype == DType::Float64 ? DType::Float64 : DType::Float32;
}

double floatBinary(OpKind kind, double a, double b) {
  switch (kind) {
  case OpKind::FloorDiv:
    return floatDivMod(a, b, DType::Float64, true);
  case OpKind::Mod:
    return floatDivMod(a, b, DType::Float64, false);
  case OpKind::Add:
    return a + b;
  case OpKind::Sub:
    return a - b;
  case OpKind::Mul:
    return a * b;
  case OpKind::Div:
    return a / b;
  case OpKind::Pow:
    return std::pow(a, b); // C's pow, as the dialect says.
  case OpKind::Max:
    return maximum(a, b);
  case OpKind::Min:
    return minimum(a, b);
  // Integer-only (Lazy_BitsTensor, Lazy_IntTensor).
  case OpKind::BitAnd:
  case OpKind::BitOr:
  case OpKind::BitXor:
  case OpKind::ShiftLeft:
  case OpKind::ShiftRight:
    break;
    // Not binary ops.
#define LAZYC_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_BINARY_OP(Kind, Name, ShapeAttr)
#include "lazyc/Trace/Ops.def"
    break;
  }
  throw std::logic_error("reference: not a binary op");
}

double floatUnary(OpKind kind, double x) {
  switch (kind) {
  case OpKind::Neg:
    return -x;
  case OpKind::Abs:
    return std::fabs(x);
  case OpKind::Relu:
    // max(x, +0.0): NaN stays NaN, -0.0 becomes +0.0.
    return std::isnan(x) ? x : (x > 0 ? x : 0.0);
  case OpKind::Exp:
    return std::exp(x);
  case OpKind::Log:
    return std::log(x);
  case OpKind::Tanh:
    return std::tanh(x);
  case OpKind::Sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case OpKind::Sqrt:
    return std::sqrt(x);
  case OpKind::Rsqrt:
    return 1.0 / std::sqrt(x);
  case OpKind::Sin:
    return std::sin(x);
  case OpKind::Cos:
    return std::cos(x);
  case OpKind::Erf:
    return std::erf(x);
  case OpKind::Asin:
    return std::asin(x);
  case OpKind::Acos:
    return std::acos(x);
  case OpKind::Atan:
    return std::atan(x);
  case OpKind::BitNot: // Integer-only (Lazy_BitsTensor).
    break;
    // Not unary ops.
#define LAZYC_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_UNARY_OP(Kind, Name, ShapeAttr)
#include "lazyc/Trace/Ops.def"
    break;
  }
  throw std::logic_error("reference: not a unary op");
}

/// The error the compiled op may add to an exactly known input, beyond
/// rounding its result (`exact` is the op's value in double precision).
///
/// f32, and f16/bf16 (whose math is computed in f32 and rounded once; the
/// rounding is the ulp every inexact result gets):
/// - exp, log, tanh, erf are polynomial approximations
///   (lazy-math-approximation): 16 f32 ulps of the result, plus an absolute
///   16 * 2^-24 where the result is near zero (log near 1, tanh and erf near
///   0, where the polynomials are accurate in absolute rather than relative
///   terms), plus FLT_MIN for exp, whose polynomial does not produce
///   subnormals accurately.
/// - sigmoid is 1 / (1 + exp(-x)): the exp error plus two roundings.
/// - sin, cos, asin, acos, atan (libm's sinf, cosf, asinf, ...), pow
///   (powf) and rsqrt (1 / sqrt, two roundings): 4 ulps.
/// f64: every function is libm's (< 1 ulp), and the reference's own libm
/// call is another ulp: 4 ulps, plus DBL_MIN near zero.
double localError(OpKind kind, double exact, DType dtype) {
  // A result that is infinite or NaN in double precision must be so in
  // the compiled code too.
  if (!std::isfinite(exact))
    return 0;
  double magnitude = std::fabs(exact);
  double f32Ulp = numerics::ulp(magnitude, DType::Float32);
  const double u = std::ldexp(1.0, -24);
  double f32Error;
  switch (kind) {
  case OpKind::Exp:
    f32Error = 16 * f32Ulp + FLT_MIN;
    break;
  case OpKind::Log:
  case OpKind::Tanh:
  case OpKind::Erf:
    f32Error = 16 * f32Ulp + 16 * u;
    break;
  case OpKind::Sigmoid:
    f32Error = 19 * f32Ulp + FLT_MIN;
    break;
  case OpKind::Sin:
  case OpKind::Cos:
  case OpKind::Asin:
  case OpKind::Acos:
  case OpKind::Atan:
  case OpKind::Pow:
  case OpKind::Rsqrt:
    f32Error = 4 * f32Ulp + FLT_MIN;
    break;
  // IEEE ops (exact, see the file comment), in every dtype.
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
  case OpKind::Max:
  case OpKind::Min:
  case OpKind::Neg:
  case OpKind::Abs:
  case OpKind::Relu:
  case OpKind::Sqrt:
  // Emulated step by step (floatDivMod).
  case OpKind::FloorDiv:
  case OpKind::Mod:
  // Integer-only: no float error.
  case OpKind::BitAnd:
  case OpKind::BitOr:
  case OpKind::BitXor:
  case OpKind::BitNot:
  case OpKind::ShiftLeft:
  case OpKind::ShiftRight:
    // Neither unary nor binary: not computed here.
#define LAZYC_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_BINARY_OP(Kind, Name, ShapeAttr)
#define LAZYC_UNARY_OP(Kind, Name, ShapeAttr)
#include "lazyc/Trace/Ops.def"
    return 0;
  }
  if (dtype == DType::Float64)
    return 4 * numerics::ulp(magnitude, DType::Float64) + DBL_MIN;
  return f32Error;
}

/// Adds 4 double ulps of slack to a spread computed in double precision.
double withSlack(double spread, double exact) {
  return spread + 4 * DBL_EPSILON * (std::fabs(exact) + spread);
}

/// How far a binary op monotone in each operand can move over the box
/// [a - ta, a + ta] x [b - tb, b + tb]: its largest distance at a corner.
double binarySpread(OpKind kind, double exact, double a, double ta, double b,
                    double tb) {
  if (ta == 0 && tb == 0)
    return 0;
  if (std::isinf(ta) || std::isinf(tb) || !std::isfinite(exact))
    return kAnyValue;
  // Division across a zero divisor and pow across a zero base (or of a
  // negative base with an uncertain exponent) leave monotonicity.
  if (kind == OpKind::Div && std::fabs(b) <= tb)
    return kAnyValue;
  if (kind == OpKind::Pow && (std::fabs(a) <= ta || (a < 0 && tb > 0)))
    return kAnyValue;
  double worst = 0;
  bool positiveZero = false, negativeZero = false;
  for (double sa : {-1.0, 1.0}) {
    for (double sb : {-1.0, 1.0}) {
      double corner = floatBinary(kind, a + sa * ta, b + sb * tb);
      double distance = std::fabs(corner - exact);
      if (std::isnan(distance) || std::isinf(distance))
        return kAnyValue;
      worst = std::max(worst, distance);
      if (corner == 0)
        (std::signbit(corner) ? negativeZero : positiveZero) = true;
    }
  }
  // A zero whose sign the box leaves open (0 * x for an x of either sign):
  // no distance, but a later rsqrt or division tells -0 from +0. The least
  // tolerance marks it, so that those see both signs (lazyc-fuzz seed
  // 115887: 0 * a bf16 log-softmax of -0.0015, which lazyc rounded to 0).
  if (worst == 0 && positiveZero && negativeZero)
    return std::numeric_limits<double>::denorm_min();
  return withSlack(worst, exact);
}

/// binarySpread for floorDiv and mod, which jump. The floor quotient is
/// monotone in each operand while the divisor keeps its sign, so its
/// corners bound it (plus 1 for numpy's snapping at an integer); the
/// remainder is linear in a box where the quotient does not change, and
/// otherwise anywhere between 0 and the divisor.
double divModSpread(OpKind kind, double exact, double a, double ta, double b,
                    double tb, DType dtype) {
  if (ta == 0 && tb == 0)
    return 0;
  if (std::isinf(ta) || std::isinf(tb) || !std::isfinite(exact) ||
      std::fabs(b) <= tb)
    return kAnyValue;
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (double sa : {-1.0, 1.0}) {
    for (double sb : {-1.0, 1.0}) {
      double q = floatDivMod(a + sa * ta, b + sb * tb, DType::Float64, true);
      if (!std::isfinite(q))
        return kAnyValue;
      low = std::min(low, q);
      high = std::max(high, q);
    }
  }
  if (kind == OpKind::FloorDiv)
    return withSlack(std::max(high - exact, exact - low) + 1, exact);
  double slack = 2 * numerics::ulp(std::fabs(b) + tb + std::fabs(a) + ta,
                                   divModDType(dtype));
  if (low != high)
    return std::fabs(b) + tb + slack;
  double worst = 0;
  for (double sa : {-1.0, 1.0})
    for (double sb : {-1.0, 1.0})
      worst = std::max(worst,
                       std::fabs((a + sa * ta) - low * (b + sb * tb) - exact));
  return withSlack(worst + slack, exact);
}

double unarySpread(OpKind kind, double exact, double x, double tx) {
  if (tx == 0)
    return 0;
  if (std::isinf(tx) || !std::isfinite(exact))
    return kAnyValue;
  switch (kind) {
  case OpKind::Neg:
  case OpKind::Abs:
  case OpKind::Relu:
    return tx;
  case OpKind::Sin:
  case OpKind::Cos:
    return std::min(tx, 2.0);
  // Monotone: their values at the corners bound them.
  case OpKind::Exp:
  case OpKind::Log:
  case OpKind::Tanh:
  case OpKind::Sigmoid:
  case OpKind::Sqrt:
  case OpKind::Rsqrt:
  case OpKind::Erf:
  case OpKind::Asin:
  case OpKind::Acos:
  case OpKind::Atan:
    // Integer-only, and not unary ops (floatUnary throws).
  case OpKind::BitNot:
#define LAZYC_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_UNARY_OP(Kind, Name, ShapeAttr)
#include "lazyc/Trace/Ops.def"
    break;
  }
  double worst = 0;
  for (double corner : {x - tx, x + tx}) {
    double distance = std::fabs(floatUnary(kind, corner) - exact);
    if (std::isnan(distance) || std::isinf(distance))
      return kAnyValue;
    worst = std::max(worst, distance);
  }
  return withSlack(worst, exact);
}

/// Rounds `exact` to the node's dtype and sets the element's tolerance from
/// the input spread and the op's local error.
void storeFloat(Value &out, int64_t i, double exact, double spread,
                double local) {
  double value = numerics::roundTo(exact, out.dtype);
  double tolerance = spread + local;
  if (tolerance > 0)
    tolerance += numerics::ulp(std::fabs(value) + tolerance, out.dtype);
  out.floats[i] = value;
  out.tolerance[i] = settle(value, tolerance, out.dtype);
}

//===----------------------------------------------------------------------===//
// Integer semantics (two's complement, signed)
//===----------------------------------------------------------------------===//

/// base^exponent as math.ipowi (wrapping), with negative exponents giving
/// 0, except 1 for base 1 and +-1 for base -1. An unsigned exponent is never
/// negative: a UInt64 one from 2^63 on is held with the sign bit set.
int64_t integerPower(int64_t base, int64_t exponent, DType dtype) {
  if (exponent < 0 && !isUnsignedInteger(dtype)) {
    if (base == 1)
      return 1;
    if (base == -1)
      return (exponent & 1) ? -1 : 1;
    return 0;
  }
  // Square and multiply modulo 2^64; wrapping to 32 bits afterwards gives
  // the same as wrapping every step.
  uint64_t result = 1, square = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exponent); e; e >>= 1) {
    if (e & 1)
      result *= square;
    square *= square;
  }
  return wrap(result, dtype);
}

/// The integer result of a binary op, or false if the dialect leaves it
/// unspecified (division by zero, MIN / -1).
bool integerBinary(OpKind kind, int64_t a, int64_t b, DType dtype,
                   int64_t &result) {
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  if (dtype == DType::UInt64) {
    // Held as bits: unsigned division and order. (The other unsigned
    // dtypes hold their values, which signed int64 arithmetic gets right.)
    switch (kind) {
    case OpKind::Div:
      if (ub == 0)
        return false;
      result = static_cast<int64_t>(ua / ub);
      return true;
    case OpKind::FloorDiv:
    case OpKind::Mod:
      result = ub == 0 ? 0
                       : static_cast<int64_t>(kind == OpKind::Mod ? ua % ub
                                                                  : ua / ub);
      return true;
    case OpKind::Max:
      result = static_cast<int64_t>(std::max(ua, ub));
      return true;
    case OpKind::Min:
      result = static_cast<int64_t>(std::min(ua, ub));
      return true;
    default:
      break;
    }
  }
  switch (kind) {
  case OpKind::Add:
    result = wrap(ua + ub, dtype);
    return true;
  case OpKind::Sub:
    result = wrap(ua - ub, dtype);
    return true;
  case OpKind::Mul:
    result = wrap(ua * ub, dtype);
    return true;
  case OpKind::Div: {
    // (UInt8 has no -1: its MIN / -1 cannot happen.)
    if (b == 0 || (a == integerMinimum(dtype) && b == -1))
      return false;
    result = a / b; // C++ truncates toward zero, as the dialect does.
    return true;
  }
  case OpKind::FloorDiv:
  case OpKind::Mod: {
    // numpy: a zero divisor gives 0; MIN // -1 wraps to MIN.
    if (b == 0) {
      result = 0;
      return true;
    }
    if (b == -1) {
      result = kind == OpKind::Mod ? 0 : wrap(0 - ua, dtype);
      return true;
    }
    int64_t quotient = a / b, remainder = a % b;
    bool adjust = remainder != 0 && ((remainder < 0) != (b < 0));
    result = kind == OpKind::FloorDiv ? quotient - (adjust ? 1 : 0)
                                      : remainder + (adjust ? b : 0);
    return true;
  }
  case OpKind::Pow:
    result = integerPower(a, b, dtype);
    return true;
  case OpKind::BitAnd:
    result = wrap(ua & ub, dtype);
    return true;
  case OpKind::BitOr:
    result = wrap(ua | ub, dtype);
    return true;
  case OpKind::BitXor:
    result = wrap(ua ^ ub, dtype);
    return true;
  case OpKind::ShiftLeft:
  case OpKind::ShiftRight: {
    // numpy: the amount read as unsigned; from the width on, 0 (or the
    // sign, for a right shift of a signed value).
    uint64_t width = 8 * sizeOf(dtype);
    uint64_t amount = width == 64 ? ub : ub & ((uint64_t(1) << width) - 1);
    if (kind == OpKind::ShiftLeft)
      result = amount < width ? wrap(ua << amount, dtype) : 0;
    else if (isUnsignedInteger(dtype)) // Held as a value (bits for UInt64).
      result = amount < width ? wrap(ua >> amount, dtype) : 0;
    else
      result = amount < width ? a >> amount : (a < 0 ? -1 : 0);
    return true;
  }
  case OpKind::Max:
    result = std::max(a, b);
    return true;
  case OpKind::Min:
    result = std::min(a, b);
    return true;
    // Not binary ops.
#define LAZYC_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_BINARY_OP(Kind, Name, ShapeAttr)
#include "lazyc/Trace/Ops.def"
    break;
  }
  throw std::logic_error("reference: not a binary op");
}

int64_t integerUnary(OpKind kind, int64_t x, DType dtype) {
  switch (kind) {
  case OpKind::Neg:
    return wrap(0 - static_cast<uint64_t>(x), dtype);
  case OpKind::Abs:
    if (isUnsignedInteger(dtype))
      return x;
    return x < 0 ? wrap(0 - static_cast<uint64_t>(x), dtype) : x;
  case OpKind::Relu:
    return isUnsignedInteger(dtype) ? x : std::max<int64_t>(x, 0);
  case OpKind::BitNot:
    return wrap(~static_cast<uint64_t>(x), dtype);
  // Float-only ops (Lazy_FloatTensor in LazyOps.td).
  case OpKind::Exp:
  case OpKind::Log:
  case OpKind::Tanh:
  case OpKind::Sigmoid:
  case OpKind::Sqrt:
  case OpKind::Rsqrt:
  case OpKind::Sin:
  case OpKind::Cos:
  case OpKind::Erf:
  case OpKind::Asin:
  case OpKind::Acos:
  case OpKind::Atan:
    // Not unary ops.
#define LAZYC_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_UNARY_OP(Kind, Name, ShapeAttr)
#include "lazyc/Trace/Ops.def"
    break;
  }
  throw std::logic_error(std::string("reference: ") + trace::opName(kind) +
                         " of an integer tensor is not a lazy op");
}

//===----------------------------------------------------------------------===//
// Compare, select, cast
//===----------------------------------------------------------------------===//

/// `a <predicate> b`. On doubles the comparisons are ordered: false on NaN,
/// except `ne`.
template <typename T> bool compare(Predicate predicate, T a, T b) {
  switch (predicate) {
  case Predicate::Eq:
    return a == b;
  case Predicate::Ne:
    return a != b;
  case Predicate::Lt:
    return a < b;
  case Predicate::Le:
    return a <= b;
  case Predicate::Gt:
    return a > b;
  case Predicate::Ge:
    return a >= b;
  }
  return false;
}

Value evaluateCompare(const Node &node, const Value &lhs, const Value &rhs) {
  Value out = makeValue(DType::Bool, node.shape);
  for (int64_t i = 0, e = out.numel(); i < e; ++i) {
    double tolerance = lhs.tolerance[i] + rhs.tolerance[i];
    if (lhs.isFloat()) {
      double a = lhs.floats[i], b = rhs.floats[i];
      out.ints[i] = compare<double>(node.predicate, a, b);
      // Decided only if the inputs' intervals do not touch.
      bool decided =
          tolerance == 0 || (std::isfinite(tolerance) && !std::isnan(a) &&
                             !std::isnan(b) && std::fabs(a - b) > tolerance);
      out.tolerance[i] = decided ? 0 : kAnyValue;
    } else {
      if (lhs.dtype == DType::UInt64)
        out.ints[i] = compare<uint64_t>(node.predicate,
                                        static_cast<uint64_t>(lhs.ints[i]),
                                        static_cast<uint64_t>(rhs.ints[i]));
      else
        out.ints[i] =
            compare<int64_t>(node.predicate, lhs.ints[i], rhs.ints[i]);
      out.tolerance[i] = tolerance == 0 ? 0 : kAnyValue;
    }
  }
  return out;
}

Value evaluateSelect(const Node &node, const Value &condition,
                     const Value &onTrue, const Value &onFalse) {
  Value out = makeValue(node.dtype, node.shape);
  for (int64_t i = 0, e = out.numel(); i < e; ++i) {
    bool pick = condition.ints[i] != 0;
    const Value &chosen = pick ? onTrue : onFalse;
    const Value &other = pick ? onFalse : onTrue;
    out.tolerance[i] = chosen.tolerance[i];
    if (out.isFloat())
      out.floats[i] = chosen.floats[i];
    else
      out.ints[i] = chosen.ints[i];
    if (condition.tolerance[i] == 0)
      continue;
    // Either branch may be taken: the tolerance covers both.
    if (out.isFloat()) {
      double a = chosen.floats[i], b = other.floats[i];
      double gap =
          (std::isnan(a) && std::isnan(b)) || a == b ? 0 : std::fabs(a - b);
      out.tolerance[i] = std::isnan(gap) ? kAnyValue
                                         : std::max(chosen.tolerance[i],
                                                    gap + other.tolerance[i]);
    } else {
      bool same = chosen.ints[i] == other.ints[i] && chosen.tolerance[i] == 0 &&
                  other.tolerance[i] == 0;
      out.tolerance[i] = same ? 0 : kAnyValue;
    }
  }
  return out;
}

/// The values a float converts to integer `dtype` from, as long doubles
/// (exact): its range, or Int32's for the 8- and 16-bit integers, which
/// convert through Int32 and wrap around.
void integerRange(DType dtype, long double &low, long double &high) {
  if (sizeOf(dtype) < 4)
    dtype = DType::Int32;
  low = integerValue(integerMinimum(dtype), dtype);
  high = integerValue(integerMaximum(dtype), dtype);
}

Value evaluateCast(const Node &node, const Value &input) {
  DType to = node.dtype;
  Value out = makeValue(to, node.shape);
  for (int64_t i = 0, e = out.numel(); i < e; ++i) {
    double tolerance = input.tolerance[i];
    if (to == DType::Bool) {
      // x != 0; NaN is nonzero.
      if (input.isFloat()) {
        double x = input.floats[i];
        out.ints[i] = x != 0;
        bool decided =
            tolerance == 0 || (!std::isnan(x) && std::fabs(x) > tolerance);
        out.tolerance[i] = decided ? 0 : kAnyValue;
      } else {
        out.ints[i] = input.ints[i] != 0;
        out.tolerance[i] = tolerance == 0 ? 0 : kAnyValue;
      }
      continue;
    }
    if (isFloatingPoint(to)) {
      // Float to float and integer to float: one correct rounding (an Int64
      // is exact in a long double's 64-bit significand).
      long double x = input.isFloat()
                          ? static_cast<long double>(input.floats[i])
                          : integerValue(input.ints[i], input.dtype);
      double value = numerics::roundTo(x, to);
      if (!input.isFloat() && tolerance != 0)
        tolerance = kAnyValue;
      else if (tolerance != 0)
        tolerance += numerics::ulp(std::fabs(value) + tolerance, to);
      out.floats[i] = value;
      out.tolerance[i] = settle(value, tolerance, to);
      continue;
    }
    if (!input.isFloat()) {
      // Integer to integer: sign-extend or truncate; Bool gives 0 or 1.
      out.ints[i] = wrap(static_cast<uint64_t>(input.ints[i]), to);
      out.tolerance[i] = tolerance == 0 ? 0 : kAnyValue;
      continue;
    }
    // Float to integer truncates toward zero (to the 8- and 16-bit integers
    // through Int32, wrapping); NaN and values out of range are unspecified.
    double x = input.floats[i];
    long double low, high;
    integerRange(to, low, high);
    long double truncated = std::trunc(static_cast<long double>(x));
    if (std::isnan(x) || truncated < low || truncated > high ||
        std::isinf(tolerance)) {
      out.tolerance[i] = kAnyValue;
      continue;
    }
    out.ints[i] = wrap(
        truncated >= 0 ? static_cast<uint64_t>(truncated)
                       : static_cast<uint64_t>(static_cast<int64_t>(truncated)),
        to);
    // An uncertain input decides the result only if its whole interval
    // truncates to the same integer.
    bool decided =
        tolerance == 0 ||
        (std::trunc(static_cast<long double>(x) - tolerance) == truncated &&
         std::trunc(static_cast<long double>(x) + tolerance) == truncated);
    out.tolerance[i] = decided ? 0 : kAnyValue;
  }
  return out;
}

/// The bits an element of `value` is stored in (as the compiled code stores
/// it), or nothing where they are not determined: a NaN's payload, a zero's
/// sign (the evaluator leaves both open), an uncertain value.
std::optional<uint64_t> storedBits(const Value &value, int64_t i) {
  if (value.tolerance[i] != 0)
    return std::nullopt;
  if (!value.isFloat())
    return static_cast<uint64_t>(value.ints[i]) &
           (sizeOf(value.dtype) == 8
                ? ~uint64_t(0)
                : (uint64_t(1) << 8 * sizeOf(value.dtype)) - 1);
  double x = value.floats[i];
  if (std::isnan(x) || x == 0)
    return std::nullopt;
  switch (value.dtype) {
  case DType::Float64:
    return llvm::bit_cast<uint64_t>(x);
  case DType::Float32:
    return llvm::bit_cast<uint32_t>(static_cast<float>(x));
  case DType::Float16:
    return toFloat16Bits(static_cast<float>(x));
  case DType::BFloat16:
    return toBFloat16Bits(static_cast<float>(x));
  default:
    throw std::logic_error("storedBits: not a float dtype");
  }
}

Value evaluateBitcast(const Node &node, const Value &input) {
  DType to = node.dtype;
  Value out = makeValue(to, node.shape);
  for (int64_t i = 0, e = out.numel(); i < e; ++i) {
    std::optional<uint64_t> bits = storedBits(input, i);
    if (!bits) {
      out.tolerance[i] = kAnyValue;
      continue;
    }
    switch (to) {
    case DType::Float64:
      out.floats[i] = llvm::bit_cast<double>(*bits);
      break;
    case DType::Float32:
      out.floats[i] = llvm::bit_cast<float>(static_cast<uint32_t>(*bits));
      break;
    case DType::Float16:
      out.floats[i] = float16BitsToFloat(static_cast<uint16_t>(*bits));
      break;
    case DType::BFloat16:
      out.floats[i] = bfloat16BitsToFloat(static_cast<uint16_t>(*bits));
      break;
    case DType::Bool:
      out.ints[i] = *bits & 1;
      break;
    default:
      out.ints[i] = wrap(*bits, to);
      break;
    }
    out.tolerance[i] = 0;
  }
  return out;
}

} // namespace

Value impl::evaluateElementwise(const Node &node, const Inputs &inputs) {
  OpKind kind = node.kind;
  switch (kind) {
  case OpKind::Compare:
    return evaluateCompare(node, *inputs[0], *inputs[1]);
  case OpKind::Select:
    return evaluateSelect(node, *inputs[0], *inputs[1], *inputs[2]);
  case OpKind::Cast:
    return evaluateCast(node, *inputs[0]);
  case OpKind::Bitcast:
    return evaluateBitcast(node, *inputs[0]);
    // Unary and binary ops: below.
#define LAZYC_UNARY_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_BINARY_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#include "lazyc/Trace/Ops.def"
    break;
    // Not elementwise.
#define LAZYC_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_BINARY_OP(Kind, Name, ShapeAttr)
#define LAZYC_UNARY_OP(Kind, Name, ShapeAttr)
#define LAZYC_ELEMENTWISE_OP(Kind, Name, ShapeAttr)
#include "lazyc/Trace/Ops.def"
    throw std::logic_error("reference: not an elementwise op");
  }

  Value out = makeValue(node.dtype, node.shape);
  int64_t count = out.numel();
  if (inputs.size() == 2) {
    const Value &lhs = *inputs[0], &rhs = *inputs[1];
    for (int64_t i = 0; i < count; ++i) {
      if (out.isFloat()) {
        double a = lhs.floats[i], b = rhs.floats[i];
        if (kind == OpKind::FloorDiv || kind == OpKind::Mod) {
          double exact = floatDivMod(a, b, divModDType(out.dtype),
                                     kind == OpKind::FloorDiv);
          storeFloat(out, i, exact,
                     divModSpread(kind, exact, a, lhs.tolerance[i], b,
                                  rhs.tolerance[i], out.dtype),
                     0);
          continue;
        }
        double exact = floatBinary(kind, a, b);
        storeFloat(
            out, i, exact,
            binarySpread(kind, exact, a, lhs.tolerance[i], b, rhs.tolerance[i]),
            localError(kind, exact, out.dtype));
        continue;
      }
      int64_t result = 0;
      bool specified =
          integerBinary(kind, lhs.ints[i], rhs.ints[i], out.dtype, result);
      out.ints[i] = result;
      out.tolerance[i] =
          specified && lhs.tolerance[i] == 0 && rhs.tolerance[i] == 0
              ? 0
              : kAnyValue;
    }
    return out;
  }
  const Value &input = *inputs[0];
  for (int64_t i = 0; i < count; ++i) {
    if (out.isFloat()) {
      double x = input.floats[i];
      double exact = floatUnary(kind, x);
      storeFloat(out, i, exact, unarySpread(kind, exact, x, input.tolerance[i]),
                 localError(kind, exact, out.dtype));
      continue;
    }
    if (input.dtype == DType::Bool && kind != OpKind::BitNot)
      throw std::logic_error(std::string("reference: ") + trace::opName(kind) +
                             " of a Bool tensor is not a lazy op");
    out.ints[i] = integerUnary(kind, input.ints[i], out.dtype);
    out.tolerance[i] = input.tolerance[i] == 0 ? 0 : kAnyValue;
  }
  return out;
}
