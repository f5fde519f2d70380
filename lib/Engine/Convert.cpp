//===- Convert.cpp - Element conversions between dtypes -------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Convert.h"
#include "lazyc/Runtime/IntegerBits.h"

#include "lazyc/Runtime/NarrowFloats.h"

#include <cmath>
#include <cstring>

using namespace lazyc;

/// Integers and Bool: converted among themselves exactly, not via double.
static bool isIntegerOrBool(DType dtype) { return !isFloatingPoint(dtype); }

int64_t convert::loadInteger(const void *source, DType dtype) {
  auto load = [&](auto v) {
    std::memcpy(&v, source, sizeof(v));
    return static_cast<int64_t>(v);
  };
  switch (dtype) {
  case DType::Int8:
    return load(int8_t());
  case DType::UInt8:
    return load(uint8_t());
  case DType::Int16:
    return load(int16_t());
  case DType::UInt16:
    return load(uint16_t());
  case DType::Int32:
    return load(int32_t());
  case DType::UInt32:
    return load(uint32_t());
  case DType::Int64:
  case DType::UInt64:
    return load(int64_t());
  default:
    return *static_cast<const uint8_t *>(source) != 0;
  }
}

/// Stores the low bits of `value` (wrapping around, as lazy.cast does); a
/// Bool as value != 0.
static void storeInteger(int64_t value, DType dtype, void *target) {
  if (dtype == DType::Bool) {
    *static_cast<uint8_t *>(target) = value != 0;
    return;
  }
  // Little-endian: the low bytes of the two's-complement value.
  uint64_t bits = static_cast<uint64_t>(value);
  std::memcpy(target, &bits, sizeOf(dtype));
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
  case DType::UInt64:
    return static_cast<double>(
        static_cast<uint64_t>(loadInteger(source, dtype)));
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
    storeInteger(static_cast<int64_t>(integerBits(value)), dtype, target);
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
