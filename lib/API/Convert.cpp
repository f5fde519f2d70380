//===- Convert.cpp - Element conversions between dtypes -------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Convert.h"

#include "lazyc/Runtime/NarrowFloats.h"

#include <cmath>
#include <cstring>

using namespace lazyc;

static float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

static uint32_t floatToBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

static float halfToFloat(uint16_t half) {
  uint32_t sign = uint32_t(half & 0x8000) << 16;
  uint32_t exponent = (half >> 10) & 0x1F;
  uint32_t mantissa = half & 0x3FF;
  if (exponent == 0x1F) // Inf or NaN.
    return bitsToFloat(sign | 0x7F800000 | (mantissa << 13));
  if (exponent == 0) { // Zero or subnormal: mantissa * 2^-24.
    float magnitude = std::ldexp(float(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

static uint16_t floatToHalf(float value) {
  uint32_t bits = floatToBits(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  float magnitude = std::fabs(value);
  if (std::isnan(value))
    return sign | 0x7E00;
  if (magnitude >= 65520.0f) // Rounds to infinity.
    return sign | 0x7C00;
  if (magnitude < 6.103515625e-05f) {
    // Subnormal (or zero): round magnitude / 2^-24 to an integer (RNE).
    float scaled = std::nearbyint(magnitude * 16777216.0f);
    return sign | static_cast<uint16_t>(scaled);
  }
  // Normal: keep 10 of 23 mantissa bits, rounding to nearest even.
  uint32_t abs = bits & 0x7FFFFFFF;
  uint32_t rounded = abs + 0xFFF + ((abs >> 13) & 1);
  return sign | static_cast<uint16_t>((rounded >> 13) - (112 << 10));
}

/// Integers and Bool: converted among themselves exactly, not via double.
static bool isIntegerOrBool(DType dtype) { return !isFloatingPoint(dtype); }

static int64_t loadInteger(const void *source, DType dtype) {
  switch (dtype) {
  case DType::Int32: {
    int32_t v;
    std::memcpy(&v, source, 4);
    return v;
  }
  case DType::Int64: {
    int64_t v;
    std::memcpy(&v, source, 8);
    return v;
  }
  case DType::Int8:
    return *static_cast<const int8_t *>(source);
  case DType::UInt8:
    return *static_cast<const uint8_t *>(source);
  default:
    return *static_cast<const uint8_t *>(source) != 0;
  }
}

static void storeInteger(int64_t value, DType dtype, void *target) {
  switch (dtype) {
  case DType::Int32: {
    int32_t v = static_cast<int32_t>(value);
    std::memcpy(target, &v, 4);
    return;
  }
  case DType::Int64:
    std::memcpy(target, &value, 8);
    return;
  case DType::Int8:
  case DType::UInt8: // Wraps around, as lazy.cast does.
    *static_cast<uint8_t *>(target) = static_cast<uint8_t>(value);
    return;
  default:
    *static_cast<uint8_t *>(target) = value != 0;
    return;
  }
}

double convert::loadScalar(const void *source, DType dtype) {
  switch (dtype) {
  case DType::Float32: {
    float v;
    std::memcpy(&v, source, 4);
    return v;
  }
  case DType::Float64: {
    double v;
    std::memcpy(&v, source, 8);
    return v;
  }
  case DType::Float16: {
    uint16_t v;
    std::memcpy(&v, source, 2);
    return halfToFloat(v);
  }
  case DType::BFloat16: {
    uint16_t v;
    std::memcpy(&v, source, 2);
    return bitsToFloat(uint32_t(v) << 16);
  }
  default:
    return static_cast<double>(loadInteger(source, dtype));
  }
}

void convert::storeScalar(double value, DType dtype, void *target) {
  switch (dtype) {
  case DType::Float32: {
    float v = static_cast<float>(value);
    std::memcpy(target, &v, 4);
    return;
  }
  case DType::Float64:
    std::memcpy(target, &value, 8);
    return;
  case DType::Float16: {
    uint16_t v = floatToHalf(toFloatRoundedToOdd(value));
    std::memcpy(target, &v, 2);
    return;
  }
  case DType::BFloat16: {
    uint16_t v = toBFloat16Bits(value);
    std::memcpy(target, &v, 2);
    return;
  }
  case DType::Bool:
    *static_cast<uint8_t *>(target) = value != 0;
    return;
  default:
    // Truncation toward zero, as lazy.cast; NaN and out-of-range give 0.
    storeInteger(std::isfinite(value) ? static_cast<int64_t>(value) : 0, dtype,
                 target);
    return;
  }
}

void convert::elements(const void *source, DType from, void *target, DType to,
                       int64_t count) {
  if (count == 0) // An empty std::vector's data() may be null.
    return;
  if (from == to) {
    std::memcpy(target, source, static_cast<size_t>(count) * sizeOf(from));
    return;
  }
  auto *in = static_cast<const uint8_t *>(source);
  auto *out = static_cast<uint8_t *>(target);
  size_t inSize = sizeOf(from), outSize = sizeOf(to);
  for (int64_t i = 0; i < count; ++i) {
    if (isIntegerOrBool(from) && isIntegerOrBool(to))
      storeInteger(loadInteger(in + i * inSize, from), to, out + i * outSize);
    else
      storeScalar(loadScalar(in + i * inSize, from), to, out + i * outSize);
  }
}
