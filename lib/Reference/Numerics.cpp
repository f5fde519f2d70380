//===- Numerics.cpp - Rounding and ulps for the reference evaluator -------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the float formats the reference evaluator rounds to,
// written from the IEEE-754 parameters of each format (no conversion through
// another float type), and the counter-based random generator.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cfloat>
#include <cmath>
#include <limits>

using namespace lazyc;
using namespace lazyc::reference;

namespace {

/// IEEE-754 parameters: precision in bits (with the implicit one), the
/// smallest normal exponent and the largest finite value.
struct Format {
  int precision;
  int minExponent;
  double maxFinite;
};

Format formatOf(DType dtype) {
  switch (dtype) {
  case DType::Float64:
    return {53, -1022, DBL_MAX};
  case DType::Float16:
    return {11, -14, 65504.0};
  case DType::BFloat16:
    // (2 - 2^-7) * 2^127.
    return {8, -126, 3.38953138925153547590470800371487866880e38};
  default:
    return {24, -126, FLT_MAX};
  }
}

} // namespace

double numerics::roundTo(long double value, DType dtype) {
  if (std::isnan(value))
    return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(value) || value == 0)
    return static_cast<double>(value);
  Format format = formatOf(dtype);
  // The quantum of value's binade (of the subnormal range below the
  // smallest normal exponent); dividing by it is exact, and nearbyint
  // rounds to nearest even in the default rounding mode.
  int exponent = std::max(std::ilogb(value), format.minExponent);
  long double quantum = std::ldexp(1.0L, exponent - (format.precision - 1));
  long double rounded = std::nearbyint(value / quantum) * quantum;
  if (std::fabs(rounded) > format.maxFinite)
    return std::copysign(std::numeric_limits<double>::infinity(),
                         static_cast<double>(value));
  if (rounded == 0)
    return std::copysign(0.0, static_cast<double>(value));
  return static_cast<double>(rounded);
}

double numerics::ulp(double value, DType dtype) {
  if (!std::isfinite(value))
    return std::numeric_limits<double>::infinity();
  Format format = formatOf(dtype);
  int exponent = value == 0 ? format.minExponent
                            : std::max(std::ilogb(value), format.minExponent);
  return std::ldexp(1.0, exponent - (format.precision - 1));
}

double numerics::maxFinite(DType dtype) { return formatOf(dtype).maxFinite; }

double impl::unitRoundoff(DType dtype) {
  return std::ldexp(1.0, -formatOf(dtype).precision);
}

int impl::precision(DType dtype) { return formatOf(dtype).precision; }

uint64_t numerics::randomBits(int64_t seed, uint64_t counter) {
  // SplitMix64 of the state seed + (counter + 1) * golden ratio, wrapping.
  uint64_t z =
      static_cast<uint64_t>(seed) + (counter + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

int64_t impl::wrap(uint64_t bits, DType dtype) {
  if (dtype == DType::Bool)
    return bits & 1;
  unsigned width = 8 * static_cast<unsigned>(sizeOf(dtype));
  if (width >= 64)
    return static_cast<int64_t>(bits);
  uint64_t low = bits & ((uint64_t(1) << width) - 1);
  if (isUnsignedInteger(dtype) || !(low >> (width - 1)))
    return static_cast<int64_t>(low);
  return static_cast<int64_t>(low) - (int64_t(1) << width);
}

int64_t impl::integerMinimum(DType dtype) {
  if (dtype == DType::Bool || isUnsignedInteger(dtype))
    return 0;
  unsigned width = 8 * static_cast<unsigned>(sizeOf(dtype));
  return width >= 64 ? std::numeric_limits<int64_t>::min()
                     : -(int64_t(1) << (width - 1));
}

int64_t impl::integerMaximum(DType dtype) {
  if (dtype == DType::Bool)
    return 1;
  unsigned width = 8 * static_cast<unsigned>(sizeOf(dtype));
  if (dtype == DType::UInt64)
    return -1; // 2^64 - 1, held as its bits.
  if (isUnsignedInteger(dtype))
    return (int64_t(1) << width) - 1;
  return width >= 64 ? std::numeric_limits<int64_t>::max()
                     : (int64_t(1) << (width - 1)) - 1;
}

bool impl::integerLess(int64_t a, int64_t b, DType dtype) {
  if (dtype == DType::UInt64)
    return static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
  return a < b;
}

long double impl::integerValue(int64_t held, DType dtype) {
  if (dtype == DType::UInt64)
    return static_cast<long double>(static_cast<uint64_t>(held));
  return static_cast<long double>(held);
}
