//===- Reductions.cpp - Reference reductions, matmul, softmax, random -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file evaluates the ops that combine many elements. Float sums and dot
// products accumulate in double precision and are rounded once; their
// tolerance is the classic bound for a sum computed in the dtype in any
// order (the compiled code tiles, vectorizes and reassociates):
// gamma(k) * sum |terms|, gamma(k) = k u / (1 - k u), u the dtype's unit
// roundoff and k the additions a term goes through, plus the same bound at
// double precision for the reference's own accumulation, plus what the
// inputs' tolerances contribute. k is the number of terms n where they are
// added in sequence (a scan, a scatter, a GEMM's dot products); for the
// reductions and softmax's sum, which lazy-block-reductions makes trees of
// short sequential sums, it is what those trees promise (blockedAdditions),
// about 12 log2(n), in f32 for f16 and bf16 sums. Integer sums and products
// wrap and are exact.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "lazyc/Runtime/Collectives.h"
#include "lazyc/Runtime/Runtime.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numbers>
#include <stdexcept>

using namespace lazyc;
using namespace lazyc::reference;
using namespace lazyc::reference::impl;
using lazyc::trace::Node;
using lazyc::trace::OpKind;

namespace {

/// n u / (1 - n u), or +inf once n u reaches 1.
double gamma(int64_t n, double u) {
  double nu = static_cast<double>(n) * u;
  return nu >= 1 ? kAnyValue : nu / (1 - nu);
}

/// The smallest normal value of the type the compiled code computes a
/// dtype's math in (f32 for every float dtype but f64): the polynomials do
/// not produce subnormals accurately.
double smallestNormal(DType dtype) {
  return dtype == DType::Float64 ? DBL_MIN : FLT_MIN;
}

/// How the compiled code adds a float sum's terms.
enum class Summation {
  /// One after another.
  Sequential,
  /// As lazy-block-reductions arranges a reduction (f16 and bf16 in f32);
  /// a sum of unknown length in f64 stays sequential.
  Blocked,
};

/// The additions a term of a blocked sum of `terms` goes through: per level
/// of the tree, at most 64 in sequence then a tree over 64 lanes (6); each
/// level divides the count by 64 at least.
int64_t blockedAdditions(int64_t terms) {
  int64_t levels = 0;
  for (int64_t left = terms; left > 1; left = (left + 63) / 64)
    ++levels;
  return std::min<int64_t>(terms, 70 * std::max<int64_t>(levels, 1));
}

/// A running float sum with what its tolerance needs.
struct FloatSum {
  double sum = 0, sumAbs = 0, sumTolerance = 0;
  int64_t terms = 0;
  bool nonFinite = false; ///< A term is infinite or NaN.
  bool uncertainNonFinite = false;
  /// Every term is -0.0: a sum that starts from its first term (a scan,
  /// not a reduction from +0.0) is -0.0 then.
  bool negativeZeros = true;

  void add(double term, double absTerm, double tolerance) {
    negativeZeros = negativeZeros && term == 0 && std::signbit(term);
    sum += term;
    ++terms;
    sumTolerance += tolerance;
    if (std::isfinite(term))
      sumAbs += absTerm;
    else
      nonFinite = true;
    if (!std::isfinite(term) && tolerance != 0)
      uncertainNonFinite = true;
  }

  /// The rounded sum and its tolerance in `dtype`, for sums accumulated
  /// over `terms` additions (plus `extraRoundings` per term: a product).
  void result(DType dtype, int extraRoundings, double &value, double &tolerance,
              Summation summation = Summation::Sequential) const {
    value = numerics::roundTo(sum, dtype);
    double u = impl::unitRoundoff(dtype);
    int64_t steps = terms + extraRoundings;
    // The unit of the accumulation (f32's for f16 and bf16 blocked sums,
    // the rounding to the dtype comes after), and its additions.
    double accumulationUnit = u;
    int64_t additions = steps;
    if (summation == Summation::Blocked && dtype != DType::Float64) {
      accumulationUnit = std::min(u, impl::unitRoundoff(DType::Float32));
      additions = blockedAdditions(steps);
    }
    double bound =
        sumTolerance +
        gamma(additions, accumulationUnit) * (sumAbs + sumTolerance) +
        gamma(steps, 0x1p-53) * sumAbs;
    // Partial sums stay below sum |terms| in magnitude: if that may
    // overflow, so may the compiled code, in some order.
    if ((sumAbs + sumTolerance) * (1 + gamma(additions, accumulationUnit)) >=
        numerics::maxFinite(dtype)) {
      tolerance = kAnyValue;
      return;
    }
    if (nonFinite) {
      // Infinite or NaN terms decide the result, in any order.
      tolerance = uncertainNonFinite || sumTolerance != 0 ? kAnyValue : 0;
      return;
    }
    if (bound > 0 || steps > 1)
      bound += numerics::ulp(std::fabs(value) + bound, dtype);
    // One addition of exact terms is correctly rounded: bit-exact.
    if (steps <= 1 && sumTolerance == 0)
      bound = 0;
    tolerance = settle(value, bound, dtype);
  }
};

/// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  return strides;
}

/// For each element of `input`, the index of the output element a
/// reduction over `axes` folds it into.
std::vector<int64_t> reductionTargets(const std::vector<int64_t> &shape,
                                      const std::vector<int64_t> &axes) {
  std::vector<int64_t> outShape;
  std::vector<bool> reduced(shape.size(), false);
  for (int64_t axis : axes)
    reduced[axis] = true;
  for (size_t d = 0; d < shape.size(); ++d)
    if (!reduced[d])
      outShape.push_back(shape[d]);
  std::vector<int64_t> outStrides = stridesOf(outShape);
  // The output stride of each input dimension (0 if reduced).
  std::vector<int64_t> stride(shape.size(), 0);
  for (size_t d = 0, o = 0; d < shape.size(); ++d)
    if (!reduced[d])
      stride[d] = outStrides[o++];
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  std::vector<int64_t> targets(count);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t target = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      target += index[d] * stride[d];
    targets[i] = target;
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return targets;
}

/// Largest value of `dtype` below `x` (x finite).
double nextDown(double x, DType dtype) {
  double step = numerics::ulp(std::fabs(x), dtype);
  // Below a positive power of two the spacing halves (not below the
  // smallest normal, where the subnormals keep it).
  int exponent = std::ilogb(x);
  if (x > 0 && x == std::ldexp(1.0, exponent) &&
      numerics::ulp(x / 2, dtype) < step)
    step /= 2;
  return x - step;
}

} // namespace

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

Value impl::evaluateReduction(const Node &node, const Value &input) {
  Value out = makeValue(node.dtype, node.shape);
  int64_t outCount = out.numel();
  std::vector<int64_t> targets = reductionTargets(input.shape, node.ints);
  int64_t reducedCount = outCount ? input.numel() / outCount : 0;
  OpKind kind = node.kind;
  bool isExtreme = false;
  switch (kind) {
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
    isExtreme = true;
    break;
  case OpKind::ReduceSum:
  case OpKind::ReduceMean:
    break;
    // Not reductions.
#define LAZYC_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_REDUCE_OP(Kind, Name, ShapeAttr)
#include "lazyc/Trace/Ops.def"
    throw std::logic_error("reference: not a reduction");
  }

  if (isExtreme) {
    bool isMax = kind == OpKind::ReduceMax;
    // Empty reductions give the identity: -inf / +inf, or the integer
    // minimum / maximum.
    if (out.isFloat()) {
      std::fill(out.floats.begin(), out.floats.end(),
                isMax ? -INFINITY : INFINITY);
    } else {
      std::fill(out.ints.begin(), out.ints.end(),
                isMax ? integerMinimum(out.dtype) : integerMaximum(out.dtype));
    }
    for (size_t i = 0; i < targets.size(); ++i) {
      int64_t t = targets[i];
      // max and min move by at most their inputs' largest tolerance.
      out.tolerance[t] = std::max(out.tolerance[t], input.tolerance[i]);
      if (!out.isFloat()) {
        bool less = integerLess(out.ints[t], input.ints[i], out.dtype);
        if (isMax == less && out.ints[t] != input.ints[i])
          out.ints[t] = input.ints[i];
        continue;
      }
      double a = out.floats[t], b = input.floats[i];
      if (std::isnan(a) || std::isnan(b))
        out.floats[t] = NAN; // NaN-propagating.
      else if (a == b && a == 0)
        out.floats[t] = (std::signbit(a) == isMax) ? b : a;
      else
        out.floats[t] = isMax ? std::max(a, b) : std::min(a, b);
    }
    for (int64_t t = 0; t < outCount; ++t) {
      if (!out.isFloat()) {
        out.tolerance[t] = out.tolerance[t] == 0 ? 0 : kAnyValue;
        continue;
      }
      double tolerance = out.tolerance[t];
      if (tolerance > 0)
        tolerance +=
            numerics::ulp(std::fabs(out.floats[t]) + tolerance, out.dtype);
      out.tolerance[t] = settle(out.floats[t], tolerance, out.dtype);
    }
    return out;
  }

  if (!out.isFloat()) {
    // Integer sums wrap, in any order.
    std::vector<uint64_t> sums(outCount, 0);
    for (size_t i = 0; i < targets.size(); ++i) {
      sums[targets[i]] += static_cast<uint64_t>(input.ints[i]);
      if (input.tolerance[i] != 0)
        out.tolerance[targets[i]] = kAnyValue;
    }
    for (int64_t t = 0; t < outCount; ++t)
      out.ints[t] = wrap(sums[t], out.dtype);
    if (kind != OpKind::ReduceSum)
      throw std::logic_error("reference: an integer mean is not a lazy op");
    return out;
  }

  std::vector<FloatSum> sums(outCount);
  for (size_t i = 0; i < targets.size(); ++i)
    sums[targets[i]].add(input.floats[i], std::fabs(input.floats[i]),
                         input.tolerance[i]);
  for (int64_t t = 0; t < outCount; ++t) {
    double value, tolerance;
    sums[t].result(out.dtype, 0, value, tolerance, Summation::Blocked);
    if (kind == OpKind::ReduceMean) {
      // mean = sum / count, the count a constant of the dtype (rounded if
      // it does not fit, which the relative term below covers); an empty
      // mean is 0 / 0 = NaN.
      double count = static_cast<double>(reducedCount);
      double exact = sums[t].sum / count;
      value = numerics::roundTo(exact, out.dtype);
      if (tolerance != 0) {
        double u = impl::unitRoundoff(out.dtype);
        tolerance = tolerance / count + 2 * u * std::fabs(exact) +
                    numerics::ulp(std::fabs(value), out.dtype);
      } else if (sums[t].terms > 1 ||
                 numerics::roundTo(count, out.dtype) != count) {
        tolerance = numerics::ulp(std::fabs(value), out.dtype);
      }
      tolerance = settle(value, tolerance, out.dtype);
    }
    out.floats[t] = value;
    out.tolerance[t] = tolerance;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

/// Adds lhs[a] * rhs[b] to `sum`, with the product's tolerance from its
/// inputs': |x| ty + |y| tx + tx ty; with `flushes`, a factor below
/// Float32's smallest normal may be read as zero (the whole product).
static void addProduct(FloatSum &sum, const Value &lhs, int64_t a,
                       const Value &rhs, int64_t b, bool flushes) {
  double x = lhs.floats[a], y = rhs.floats[b];
  double tx = lhs.tolerance[a], ty = rhs.tolerance[b];
  double tolerance =
      tx == 0 && ty == 0 ? 0 : std::fabs(x) * ty + std::fabs(y) * tx + tx * ty;
  if (flushes && (std::fabs(x) < FLT_MIN || std::fabs(y) < FLT_MIN))
    tolerance += std::fabs(x * y);
  sum.add(x * y, std::fabs(x * y), tolerance);
}

Value impl::evaluateMatmul(const Node &node, const Value &lhs,
                           const Value &rhs) {
  Value out = makeValue(node.dtype, node.shape);
  size_t rank = lhs.shape.size();
  int64_t m = lhs.shape[rank - 2], k = lhs.shape[rank - 1];
  int64_t n = rhs.shape[rank - 1];
  int64_t batches = 1;
  for (size_t d = 0; d + 2 < rank; ++d)
    batches *= lhs.shape[d];
  // A bf16 product may run on AVX512-BF16's vdpbf16ps (docs/API.md, "Mixed
  // precision"), which reads subnormal inputs as zero and flushes each
  // instruction's subnormal sum (k / 2 of them per element) to zero.
  bool flushes = lhs.dtype == DType::BFloat16 && rhs.dtype == DType::BFloat16;
  double flushed = flushes ? double(k / 2 + 1) * FLT_MIN : 0.0;
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        int64_t o = (b * m + i) * n + j;
        if (!out.isFloat()) {
          uint64_t sum = 0;
          bool exact = true;
          for (int64_t p = 0; p < k; ++p) {
            int64_t a = (b * m + i) * k + p, c = (b * k + p) * n + j;
            sum += static_cast<uint64_t>(lhs.ints[a]) *
                   static_cast<uint64_t>(rhs.ints[c]);
            exact &= lhs.tolerance[a] == 0 && rhs.tolerance[c] == 0;
          }
          out.ints[o] = wrap(sum, out.dtype);
          out.tolerance[o] = exact ? 0 : kAnyValue;
          continue;
        }
        FloatSum sum;
        for (int64_t p = 0; p < k; ++p) {
          int64_t a = (b * m + i) * k + p, c = (b * k + p) * n + j;
          addProduct(sum, lhs, a, rhs, c, flushes);
        }
        // Each product is rounded once more than a plain sum's terms.
        double value, tolerance;
        sum.result(out.dtype, 1, value, tolerance);
        if (k == 1 && sum.sumTolerance == 0 && !sum.nonFinite)
          tolerance = 0; // 0 + x * y: one correctly rounded product.
        out.floats[o] = value;
        out.tolerance[o] = tolerance + flushed;
      }
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Conv2d
//===----------------------------------------------------------------------===//

/// Adds 0 * rhs[b], a padding zero times a weight: the compiled kernels
/// multiply the zeros too, so an infinite or NaN weight makes a NaN.
static void addPaddingProduct(FloatSum &sum, const Value &rhs, int64_t b) {
  double product = 0.0 * rhs.floats[b];
  sum.add(product, std::fabs(product),
          std::isinf(rhs.tolerance[b]) ? kAnyValue : 0.0);
}

Value impl::evaluateConv2d(const Node &node, const Value &input,
                           const Value &filter) {
  Value out = makeValue(node.dtype, node.shape);
  const std::vector<int64_t> &is = input.shape, &fs = filter.shape;
  int64_t channels = is[1], height = is[2], width = is[3];
  int64_t kernelHeight = fs[2], kernelWidth = fs[3];
  int64_t strideY = node.ints[0], strideX = node.ints[1];
  int64_t dilationY = node.ints2[0], dilationX = node.ints2[1];
  int64_t top = node.ints3[0], left = node.ints3[2];
  const std::vector<int64_t> &os = node.shape;
  // bf16 by bf16 may run on vdpbf16ps, as a product does (evaluateMatmul):
  // subnormal inputs read as zero, and each instruction's subnormal sum
  // flushed, at most one per tap.
  bool flushes =
      input.dtype == DType::BFloat16 && filter.dtype == DType::BFloat16;
  double flushed =
      flushes ? double(channels * kernelHeight * kernelWidth + 1) * FLT_MIN
              : 0.0;
  int64_t o = 0;
  for (int64_t n = 0; n < os[0]; ++n)
    for (int64_t f = 0; f < os[1]; ++f)
      for (int64_t y = 0; y < os[2]; ++y)
        for (int64_t x = 0; x < os[3]; ++x, ++o) {
          FloatSum sum;
          for (int64_t c = 0; c < channels; ++c)
            for (int64_t i = 0; i < kernelHeight; ++i)
              for (int64_t j = 0; j < kernelWidth; ++j) {
                int64_t row = y * strideY + i * dilationY - top;
                int64_t column = x * strideX + j * dilationX - left;
                int64_t b =
                    ((f * channels + c) * kernelHeight + i) * kernelWidth + j;
                if (row < 0 || row >= height || column < 0 || column >= width) {
                  addPaddingProduct(sum, filter, b);
                  continue;
                }
                int64_t a =
                    ((n * channels + c) * height + row) * width + column;
                addProduct(sum, input, a, filter, b, flushes);
              }
          double value, tolerance;
          sum.result(out.dtype, 1, value, tolerance);
          out.floats[o] = value;
          out.tolerance[o] = tolerance + flushed;
        }
  return out;
}

//===----------------------------------------------------------------------===//
// Softmax and log-softmax
//===----------------------------------------------------------------------===//

// The compiled code computes, per row, m = max(x), t_j = exp(x_j - m),
// s = sum(t), then t_i / s or (x_i - m) - log(s), each op rounded in the
// dtype (u) with a polynomial exp and log (relative error 16 f32 ulps,
// 32 * 2^-24, in f32, f16 and bf16; libm's 4 ulps in f64). The reference
// evaluates the same formula in double. Bounds, first order:
// - inputs off by at most delta move softmax by a factor within
//   e^{+-2 delta} and log-softmax by 2 delta;
// - t_j carries relative error u |x_j - m| (rounding the subtraction) plus
//   r, the exp error with its rounding; since t_j |x_j - m| <= 1/e, the sum
//   s carries relative error u n / e + r + gamma(k), over s >= 1, k the
//   additions of a blocked sum (f64: n);
// - then one more rounding.
Value impl::evaluateSoftmax(const Node &node, const Value &input) {
  bool isLog = false;
  switch (node.kind) {
  case OpKind::Softmax:
    break;
  case OpKind::LogSoftmax:
    isLog = true;
    break;
    // Not softmax ops.
#define LAZYC_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_SOFTMAX_OP(Kind, Name, ShapeAttr)
#include "lazyc/Trace/Ops.def"
    throw std::logic_error("reference: not a softmax");
  }
  Value out = makeValue(node.dtype, node.shape);
  int64_t axis = node.integer;
  int64_t length = input.shape[axis];
  int64_t inner = 1, outer = 1;
  for (size_t d = 0; d < input.shape.size(); ++d) {
    if (static_cast<int64_t>(d) < axis)
      outer *= input.shape[d];
    else if (static_cast<int64_t>(d) > axis)
      inner *= input.shape[d];
  }
  double u = impl::unitRoundoff(out.dtype);
  bool isF64 = out.dtype == DType::Float64;
  double computeUlps = isF64 ? 8 * 0x1p-53 : 32 * 0x1p-24;
  double r = computeUlps + u;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t j) { return (o * length + j) * inner + in; };
      double m = -INFINITY, delta = 0;
      for (int64_t j = 0; j < length; ++j) {
        double x = input.floats[at(j)];
        m = (std::isnan(m) || std::isnan(x)) ? NAN : std::max(m, x);
        delta = std::max(delta, input.tolerance[at(j)]);
      }
      // A NaN or +inf in the row (or a row of -inf) makes it NaN; a -inf
      // entry of a finite row is just a term exp(-inf) = 0.
      bool finite = std::isfinite(m);
      double s = 0;
      for (int64_t j = 0; j < length; ++j)
        s += std::exp(input.floats[at(j)] - m);
      double relativeSum =
          u * static_cast<double>(length) / std::numbers::e + r +
          (isF64 ? gamma(length, u) : gamma(blockedAdditions(length), 0x1p-24));
      for (int64_t j = 0; j < length; ++j) {
        int64_t i = at(j);
        double shifted = input.floats[i] - m;
        double exact = isLog ? shifted - std::log(s) : std::exp(shifted) / s;
        double value = numerics::roundTo(exact, out.dtype);
        double tolerance;
        if (!finite || std::isinf(delta)) {
          // Infinities and NaNs in the row decide it when they are exact.
          tolerance = delta == 0 ? 0 : kAnyValue;
        } else if (std::isinf(input.floats[i])) {
          // exp(-inf) = 0 exactly: softmax 0, log-softmax -inf.
          tolerance = input.tolerance[i] == 0 ? 0 : kAnyValue;
        } else if (isLog) {
          double logSum = std::log(s);
          double logError =
              isF64 ? 4 * numerics::ulp(logSum, DType::Float64)
                    : 16 * numerics::ulp(logSum, DType::Float32) + 16 * 0x1p-24;
          tolerance = 2 * delta + u * std::fabs(shifted) + relativeSum * 1.01 +
                      logError + u * std::fabs(exact);
        } else {
          double relative = u * std::fabs(shifted) + r + relativeSum + u;
          tolerance = exact * std::expm1(2 * delta) + exact * relative * 1.01 +
                      smallestNormal(out.dtype);
        }
        if (tolerance != 0 && std::isfinite(tolerance))
          tolerance += numerics::ulp(std::fabs(value) + tolerance, out.dtype);
        out.floats[i] = value;
        out.tolerance[i] =
            tolerance == 0 ? 0 : settle(value, tolerance, out.dtype);
      }
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Random
//===----------------------------------------------------------------------===//

// The generator of lib/Conversion/LazyToLinalg/Random.cpp, re-derived: the
// bits of counter c are SplitMix64 of seed + (c + 1) * 0x9E3779B97F4A7C15; a
// uniform float takes the top p bits (p = the dtype's precision) times
// 2^-p. f16 and bf16 are computed in f32 and rounded once.
Value impl::evaluateRandom(const Node &node, const Value &seed) {
  bool isUniform = false;
  switch (node.kind) {
  case OpKind::RandomUniform:
    isUniform = true;
    break;
  case OpKind::RandomNormal:
    break;
    // Not random ops.
#define LAZYC_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_RANDOM_OP(Kind, Name, ShapeAttr)
#include "lazyc/Trace/Ops.def"
    throw std::logic_error("reference: not a random op");
  }
  Value out = makeValue(node.dtype, node.shape);
  DType dtype = node.dtype;
  int p = precision(dtype);
  bool isF64 = dtype == DType::Float64;
  auto unit = [&](uint64_t counter) {
    uint64_t top = numerics::randomBits(seed.ints.at(0), counter) >> (64 - p);
    return std::ldexp(static_cast<double>(top), -p); // exact in f32 too
  };
  if (isUniform) {
    double low = node.scalar, high = node.scalar2;
    // low + unit * (high - low) in the compute type (f64, or f32), then
    // rounded to the dtype and clamped below high.
    double bound = numerics::roundTo(high, dtype);
    double largestBelow = nextDown(bound, dtype);
    for (int64_t i = 0, e = out.numel(); i < e; ++i) {
      double value;
      if (isF64) {
        // Two statements: no contraction into a fused multiply-add.
        double scaled = unit(i) * (high - low);
        value = scaled + low;
      } else {
        float scaled =
            static_cast<float>(unit(i)) * static_cast<float>(high - low);
        value = numerics::roundTo(scaled + static_cast<float>(low), dtype);
      }
      out.floats[i] = value >= bound ? largestBelow : value;
    }
    return out;
  }
  // Box-Muller on counters 2i and 2i + 1: u1 = 1 - unit in (0, 1],
  // z = sqrt(-2 log u1) cos(2 pi u2), then mean + stddev z. The reference
  // computes z in double from the same u1 and u2. In f32 the compiled
  // code's log (a polynomial, relative 2^-19), sqrt, the rounded angle
  // (2 pi 2^-24 + one ulp of it, about 2^-20 absolute) and cosf keep z
  // within (radius + 1) * 4e-6; in f64 within (radius + 1) * 1e-14.
  double mean = node.scalar, stddev = node.scalar2;
  double computeU = isF64 ? 0x1p-53 : 0x1p-24;
  double zError = isF64 ? 1e-14 : 4e-6;
  for (int64_t i = 0, e = out.numel(); i < e; ++i) {
    uint64_t first = 2 * static_cast<uint64_t>(i);
    double u1 = 1.0 - unit(first), u2 = unit(first + 1);
    double radius = std::sqrt(-2.0 * std::log(u1));
    double z = radius * std::cos(2.0 * std::numbers::pi * u2);
    double exact = z * stddev + mean;
    double value = numerics::roundTo(exact, dtype);
    double tolerance =
        stddev * zError * (radius + 1) +
        2 * computeU * (std::fabs(z * stddev) + std::fabs(mean)) +
        numerics::ulp(std::fabs(value), dtype);
    out.floats[i] = value;
    out.tolerance[i] = settle(value, tolerance, dtype);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Indexing and scans
//===----------------------------------------------------------------------===//

namespace {

/// A shape seen as [outer, axis, inner]: element (o, j, i) is at
/// (o * size + j) * inner + i.
struct Lines {
  int64_t outer = 1, size = 0, inner = 1;
  Lines(const std::vector<int64_t> &shape, size_t axis) : size(shape[axis]) {
    for (size_t d = 0; d < shape.size(); ++d) {
      if (d < axis)
        outer *= shape[d];
      else if (d > axis)
        inner *= shape[d];
    }
  }
  int64_t at(int64_t o, int64_t j, int64_t i) const {
    return (o * size + j) * inner + i;
  }
};

/// Where an index points along an axis of `size` elements, as the compiled
/// code computes it: negative counts from the end, then clamped.
int64_t axisPosition(int64_t index, int64_t size) {
  if (index < 0)
    index += size;
  return std::clamp<int64_t>(index, 0, size - 1);
}

void copyElement(const Value &from, int64_t fromIndex, Value &to,
                 int64_t toIndex) {
  if (to.isFloat())
    to.floats[toIndex] = from.floats[fromIndex];
  else
    to.ints[toIndex] = from.ints[fromIndex];
  to.tolerance[toIndex] = from.tolerance[fromIndex];
}

} // namespace

Value impl::evaluateGather(const Node &node, const Value &input,
                           const Value &indices) {
  Value out = makeValue(node.dtype, node.shape);
  size_t axis = static_cast<size_t>(node.integer);
  Lines from(input.shape, axis), to(node.shape, axis);
  for (int64_t o = 0; o < to.outer; ++o)
    for (int64_t j = 0; j < to.size; ++j)
      for (int64_t i = 0; i < to.inner; ++i) {
        int64_t here = to.at(o, j, i);
        copyElement(input,
                    from.at(o, axisPosition(indices.ints[here], from.size), i),
                    out, here);
        // An inexact index may select any element.
        if (indices.tolerance[here] != 0)
          out.tolerance[here] = kAnyValue;
      }
  return out;
}

Value impl::evaluateScatterAdd(const Node &node, const Value &input,
                               const Value &indices, const Value &updates) {
  Value out = input;
  size_t axis = static_cast<size_t>(node.integer);
  Lines into(input.shape, axis), from(updates.shape, axis);
  if (!out.isFloat()) {
    for (int64_t o = 0; o < from.outer; ++o)
      for (int64_t j = 0; j < from.size; ++j)
        for (int64_t i = 0; i < from.inner; ++i) {
          int64_t source = from.at(o, j, i);
          int64_t target =
              into.at(o, axisPosition(indices.ints[source], into.size), i);
          out.ints[target] =
              wrap(static_cast<uint64_t>(out.ints[target]) +
                       static_cast<uint64_t>(updates.ints[source]),
                   out.dtype);
          out.tolerance[target] =
              std::max({out.tolerance[target], updates.tolerance[source],
                        indices.tolerance[source] != 0 ? kAnyValue : 0.0});
        }
    return out;
  }
  // Each target is a sum of its old value and the updates added to it, in
  // order, rounded after each addition like the compiled loop.
  std::vector<FloatSum> sums(out.numel());
  std::vector<bool> uncertainLine(into.outer * into.inner, false);
  for (int64_t t = 0, e = out.numel(); t < e; ++t)
    sums[t].add(input.floats[t], std::fabs(input.floats[t]),
                input.tolerance[t]);
  for (int64_t o = 0; o < from.outer; ++o)
    for (int64_t j = 0; j < from.size; ++j)
      for (int64_t i = 0; i < from.inner; ++i) {
        int64_t source = from.at(o, j, i);
        int64_t target =
            into.at(o, axisPosition(indices.ints[source], into.size), i);
        sums[target].add(updates.floats[source],
                         std::fabs(updates.floats[source]),
                         updates.tolerance[source]);
        if (indices.tolerance[source] != 0)
          uncertainLine[o * into.inner + i] = true;
      }
  for (int64_t o = 0; o < into.outer; ++o)
    for (int64_t j = 0; j < into.size; ++j)
      for (int64_t i = 0; i < into.inner; ++i) {
        int64_t t = into.at(o, j, i);
        if (sums[t].terms > 1 && !sums[t].negativeZeros)
          sums[t].result(out.dtype, 0, out.floats[t], out.tolerance[t]);
        if (uncertainLine[o * into.inner + i])
          out.tolerance[t] = kAnyValue;
      }
  return out;
}

Value impl::evaluateArgReduce(const Node &node, const Value &input) {
  Value out = makeValue(node.dtype, node.shape);
  bool isMax = node.kind == OpKind::ArgMax;
  size_t axis = static_cast<size_t>(node.integer);
  Lines lines(input.shape, axis);
  auto valueAt = [&](int64_t k) {
    return input.isFloat()
               ? input.floats[k]
               : static_cast<double>(integerValue(input.ints[k], input.dtype));
  };
  // Whether element `k` beats element `best`: integers compare exactly (a
  // double holds 53 bits of an Int64), and a NaN beats every float.
  auto beats = [&](int64_t k, int64_t best) {
    if (!input.isFloat())
      return isMax ? integerLess(input.ints[best], input.ints[k], input.dtype)
                   : integerLess(input.ints[k], input.ints[best], input.dtype);
    double x = input.floats[k], bestValue = input.floats[best];
    return std::isnan(x) || (isMax ? x > bestValue : x < bestValue);
  };
  for (int64_t o = 0; o < lines.outer; ++o)
    for (int64_t i = 0; i < lines.inner; ++i) {
      int64_t t = o * lines.inner + i, best = 0;
      for (int64_t j = 1;
           j < lines.size && !std::isnan(valueAt(lines.at(o, best, i))); ++j)
        if (beats(lines.at(o, j, i), lines.at(o, best, i)))
          best = j;
      double bestValue = valueAt(lines.at(o, best, i));
      out.ints[t] = best;
      // Another element within the tolerances may be the extreme instead.
      // An unbounded tolerance means any value, NaN included: such an
      // element may be a NaN before a NaN best, or beat a number (inf - inf
      // is NaN, so the bound alone would miss it).
      double bestTolerance = input.tolerance[lines.at(o, best, i)];
      for (int64_t j = 0; j < lines.size; ++j) {
        double ownTolerance = input.tolerance[lines.at(o, j, i)];
        double tolerance = ownTolerance + bestTolerance;
        if (j == best || tolerance == 0)
          continue;
        double x = valueAt(lines.at(o, j, i));
        bool mayWin =
            std::isnan(bestValue)
                ? std::isinf(bestTolerance) ||
                      (j < best && std::isinf(ownTolerance))
                : std::isinf(tolerance) || (isMax ? x >= bestValue - tolerance
                                                  : x <= bestValue + tolerance);
        if (mayWin)
          out.tolerance[t] = kAnyValue;
      }
    }
  return out;
}

Value impl::evaluateCumsum(const Node &node, const Value &input) {
  Value out = makeValue(node.dtype, node.shape);
  bool reverse = node.flag;
  Lines lines(input.shape, static_cast<size_t>(node.integer));
  for (int64_t o = 0; o < lines.outer; ++o)
    for (int64_t i = 0; i < lines.inner; ++i) {
      FloatSum sum;
      uint64_t intSum = 0;
      double intTolerance = 0;
      for (int64_t step = 0; step < lines.size; ++step) {
        int64_t j = reverse ? lines.size - 1 - step : step;
        int64_t k = lines.at(o, j, i);
        if (out.isFloat()) {
          sum.add(input.floats[k], std::fabs(input.floats[k]),
                  input.tolerance[k]);
          sum.result(out.dtype, 0, out.floats[k], out.tolerance[k]);
          if (sum.negativeZeros)
            out.floats[k] = -0.0;
        } else {
          intSum += static_cast<uint64_t>(input.ints[k]);
          intTolerance = std::max(intTolerance, input.tolerance[k]);
          out.ints[k] = wrap(intSum, out.dtype);
          out.tolerance[k] = intTolerance != 0 ? kAnyValue : 0;
        }
      }
    }
  return out;
}

/// Every rank's `input` (values and tolerances), rank 0 first, moved by the
/// runtime's all-gather: the transport only moves data, the arithmetic is
/// the reference's own.
static std::vector<Value> gatherRanks(const Value &input) {
  int64_t count = input.numel();
  int size = lazyrt_dist_size();
  auto gather = [&](const void *in, void *out, DType dtype) {
    if (lazyrt_collective_run(LAZYRT_ALL_GATHER, 0, static_cast<int>(dtype), 0,
                              in, out, count) != 0)
      throw std::runtime_error(std::string("reference: all-gather failed: ") +
                               lazyrt_take_collective_error());
  };
  std::vector<double> tolerances(count * size);
  gather(input.tolerance.data(), tolerances.data(), DType::Float64);
  std::vector<double> floats;
  std::vector<int64_t> ints;
  if (input.isFloat()) {
    floats.resize(count * size);
    gather(input.floats.data(), floats.data(), DType::Float64);
  } else {
    ints.resize(count * size);
    gather(input.ints.data(), ints.data(), DType::Int64);
  }
  std::vector<Value> ranks;
  for (int r = 0; r < size; ++r) {
    Value value = makeValue(input.dtype, input.shape);
    std::copy_n(tolerances.begin() + r * count, count, value.tolerance.begin());
    if (input.isFloat())
      std::copy_n(floats.begin() + r * count, count, value.floats.begin());
    else
      std::copy_n(ints.begin() + r * count, count, value.ints.begin());
    ranks.push_back(std::move(value));
  }
  return ranks;
}

/// Element `i` reduced over the ranks into `out`'s element `o`.
static void reduceAcrossRanks(const std::vector<Value> &ranks, int reduction,
                              int64_t i, Value &out, int64_t o) {
  DType dtype = out.dtype;
  if (reduction == LAZYRT_REDUCE_SUM) {
    if (!out.isFloat()) {
      uint64_t sum = 0;
      double tolerance = 0;
      for (const Value &rank : ranks) {
        sum += static_cast<uint64_t>(rank.ints[i]);
        tolerance = std::max(tolerance, rank.tolerance[i]);
      }
      out.ints[o] = wrap(sum, dtype);
      out.tolerance[o] = tolerance != 0 ? kAnyValue : 0;
      return;
    }
    FloatSum sum;
    for (const Value &rank : ranks)
      sum.add(rank.floats[i], std::fabs(rank.floats[i]), rank.tolerance[i]);
    sum.result(dtype, 0, out.floats[o], out.tolerance[o]);
    // MPI adds the ranks' values to each other, not to +0.0: -0.0 from
    // every rank stays -0.0 (lazyc-fuzz seed 311038, one rank).
    if (sum.negativeZeros)
      out.floats[o] = -0.0;
    return;
  }
  bool isMax = reduction == LAZYRT_REDUCE_MAX;
  double tolerance = 0;
  for (const Value &rank : ranks)
    tolerance = std::max(tolerance, rank.tolerance[i]);
  if (!out.isFloat()) {
    int64_t extreme = ranks[0].ints[i];
    for (const Value &rank : ranks)
      extreme = isMax ? std::max(extreme, rank.ints[i])
                      : std::min(extreme, rank.ints[i]);
    out.ints[o] = extreme;
    out.tolerance[o] = tolerance != 0 ? kAnyValue : 0;
    return;
  }
  double extreme = ranks[0].floats[i];
  for (const Value &rank : ranks) {
    // MPI leaves NaN's order unspecified: any NaN makes any value right.
    if (std::isnan(rank.floats[i]))
      tolerance = kAnyValue;
    extreme = isMax ? std::max(extreme, rank.floats[i])
                    : std::min(extreme, rank.floats[i]);
  }
  if (tolerance > 0 && tolerance != kAnyValue)
    tolerance += numerics::ulp(std::fabs(extreme) + tolerance, dtype);
  out.floats[o] = extreme;
  out.tolerance[o] = settle(extreme, tolerance, dtype);
}

Value impl::evaluateCollective(const Node &node, const Value &input) {
  std::vector<Value> ranks = gatherRanks(input);
  Value out = makeValue(node.dtype, node.shape);
  int64_t count = input.numel();
  int reduction = static_cast<int>(node.ints[0]);
  auto copyElement = [&](const Value &from, int64_t i, int64_t o) {
    if (out.isFloat())
      out.floats[o] = from.floats[i];
    else
      out.ints[o] = from.ints[i];
    out.tolerance[o] = from.tolerance[i];
  };
  switch (node.integer) {
  case LAZYRT_ALL_REDUCE:
    for (int64_t i = 0; i < count; ++i)
      reduceAcrossRanks(ranks, reduction, i, out, i);
    return out;
  case LAZYRT_BROADCAST:
    for (int64_t i = 0; i < count; ++i)
      copyElement(ranks[node.ints[1]], i, i);
    return out;
  case LAZYRT_ALL_GATHER:
    for (size_t r = 0; r < ranks.size(); ++r)
      for (int64_t i = 0; i < count; ++i)
        copyElement(ranks[r], i, static_cast<int64_t>(r) * count + i);
    return out;
  case LAZYRT_REDUCE_SCATTER: {
    int64_t block = out.numel();
    int64_t first = static_cast<int64_t>(lazyrt_dist_rank()) * block;
    for (int64_t o = 0; o < block; ++o)
      reduceAcrossRanks(ranks, reduction, first + o, out, o);
    return out;
  }
  }
  throw std::logic_error("reference: unknown collective kind");
}
