//===- Convert.h - Element conversions between dtypes -----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to lazyc (lib/Engine): host-side conversions (reading a tensor as
// another C++ type, writing literal arguments). Round to nearest even; integers
// from floats truncate toward zero, as lazy.cast does.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_ENGINE_CONVERT_H
#define LAZYC_LIB_ENGINE_CONVERT_H

#include "lazyc/Runtime/DType.h"

#include <cstdint>

namespace lazyc::convert {

/// Converts `count` elements from `source` (of `from`) into `target`.
void elements(const void *source, DType from, void *target, DType to,
              int64_t count);

/// Writes `value` as one element of `dtype`.
void storeScalar(double value, DType dtype, void *target);

/// Reads one element of `dtype` as a double.
double loadScalar(const void *source, DType dtype);

/// Reads one integer or Bool element exactly; a UInt64 as its bits (cast
/// the result to uint64_t).
int64_t loadInteger(const void *source, DType dtype);

} // namespace lazyc::convert

#endif // LAZYC_LIB_ENGINE_CONVERT_H
