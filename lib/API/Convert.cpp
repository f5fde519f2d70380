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
    return float16BitsToFloat(v);
  }
  case DType::BFloat16: {
    uint16_t v;
    std::memcpy(&v, source, 2);
    return bfloat16BitsToFloat(v);
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
    uint16_t v = toFloat16Bits(toFloatRoundedToOdd(value));
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
