//===- NarrowFloats.h - Rounding to bf16 on the host ------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The host's conversions to narrow floats, bit for bit the compiled code's
// (lazy-expand-bf16: round to nearest even, NaN kept quiet, subnormals
// kept): the API's literals and scalar reads, and the routines the JIT gives
// generated code. Header-only, no MLIR.
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

} // namespace lazyc

#endif // LAZYC_RUNTIME_NARROWFLOATS_H
