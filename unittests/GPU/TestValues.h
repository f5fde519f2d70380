//===- TestValues.h - Deterministic inputs of the GPU tests -----*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_UNITTESTS_GPU_TESTVALUES_H
#define LAZYC_UNITTESTS_GPU_TESTVALUES_H

#include <cstdint>
#include <vector>

namespace lazyc::test {

/// `count` values in [-range, range), deterministic.
inline std::vector<float> values(int64_t count, float range, uint32_t seed) {
  std::vector<float> out(static_cast<size_t>(count));
  uint32_t state = seed * 2654435761u + 1;
  for (float &value : out) {
    state = state * 1664525u + 1013904223u;
    value = range * (static_cast<float>(state >> 8) / (1 << 23) - 1.0f);
  }
  return out;
}

} // namespace lazyc::test

#endif // LAZYC_UNITTESTS_GPU_TESTVALUES_H
