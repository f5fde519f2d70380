//===- NarrowFloats.h - Rounding to bf16 on the host ------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The host's conversions to and from narrow floats, bit for bit the compiled
// code's (lazy-expand-bf16: round to nearest even, NaN kept quiet,
// subnormals kept): the API's literals, scalar reads and dtype conversions,
// the routines the JIT gives generated code, and the collectives' narrow
// reductions. Header-only, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_NARROWFLOATS_H
#define LAZYC_RUNTIME_NARROWFLOATS_H

#include <bit>
#include <cmath>
#include <cstdint>

namespace lazyc {

/// `value` as a float rounded to odd (toward zero, then the last bit set if
/// anything was dropped): rounding that float again to a narrower type
/// (Float16, BFloat16) gives what rounding `value` directly would, which
/// rounding to nearest twice does not. The compiler's f64 -> f16/bf16
/// conversions use the same scheme.
inline float toFloatRoundedToOdd(double value) {
  float nearest = static_cast<float>(value);
  if (!std::isfinite(value) || static_cast<double>(nearest) == value)
    return nearest;
  float truncated = std::fabs(static_cast<double>(nearest)) > std::fabs(value)
                        ? std::nextafter(nearest, 0.0f)
                        : nearest;
  return std::bit_cast<float>(std::bit_cast<uint32_t>(truncated) | 1u);
}

/// The bits of the bf16 nearest to `value` (ties to even; a NaN stays a
/// quiet NaN of the same sign).
inline uint16_t toBFloat16Bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value))
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

/// The bits of the bf16 nearest to `value`, rounded once.
inline uint16_t toBFloat16Bits(double value) {
  return toBFloat16Bits(toFloatRoundedToOdd(value));
}

/// The value of bf16 `bits` (exact).
inline float bfloat16BitsToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

/// The bits of the Float16 nearest to `value` (ties to even; NaN quiet).
inline uint16_t toFloat16Bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  if (std::isnan(value))
    return sign | 0x7E00u;
  float magnitude = std::fabs(value);
  if (magnitude >= 65520.0f) // Rounds to infinity.
    return sign | 0x7C00u;
  if (magnitude < 0x1p-14f) // Subnormal or zero: a multiple of 2^-24.
    return sign | static_cast<uint16_t>(std::nearbyint(magnitude * 0x1p24f));
  // Normal: rebias the exponent, keep 10 of 23 mantissa bits (RNE).
  uint32_t rebiased = std::bit_cast<uint32_t>(magnitude) - (112u << 23);
  rebiased += 0xFFFu + ((rebiased >> 13) & 1u);
  return sign | static_cast<uint16_t>(rebiased >> 13);
}

/// The value of Float16 `bits` (exact).
inline float float16BitsToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1Fu;
  uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0) { // Zero or subnormal: mantissa * 2^-24.
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) // Inf or NaN.
    return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) |
                              (mantissa << 13));
}

} // namespace lazyc

#endif // LAZYC_RUNTIME_NARROWFLOATS_H
