//===- IntegerBits.h - An integer scalar as an integer dtype's bits -------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Scalars travel as doubles (lazyc::Scalar, a literal node's value); an
// integer dtype stores the low bits of their two's-complement value. One
// conversion for every layer that writes such a value (host buffers, the
// importer's attributes, the reference evaluator, the ONNX writer).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_INTEGERBITS_H
#define LAZYC_RUNTIME_INTEGERBITS_H

#include <cmath>
#include <cstdint>

namespace lazyc {

/// The two's-complement bits of `value` truncated toward zero, for values
/// in [-2^63, 2^64) (UInt64's from 2^63 included); 0 for NaN and values
/// outside. Truncate them to a dtype's width for its bits.
inline uint64_t integerBits(double value) {
  constexpr double kTwo63 = 9223372036854775808.0, kTwo64 = 2 * kTwo63;
  if (!(value >= -kTwo63 && value < kTwo64))
    return 0;
  if (value >= kTwo63)
    return static_cast<uint64_t>(value);
  return static_cast<uint64_t>(static_cast<int64_t>(value));
}

} // namespace lazyc

#endif // LAZYC_RUNTIME_INTEGERBITS_H
