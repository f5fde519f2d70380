//===- SizeClass.h - The size classes of the caching allocators -*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file defines the size classes the host allocator (cpu/Allocator.cpp)
// and the device allocator (cuda/Allocator.cpp) round requests to: four per
// power of two, so at most 25% of a block is wasted and a freed block fits
// every later request of its class.
//
// Private to the runtime: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_SIZECLASS_H
#define LAZYC_RUNTIME_SIZECLASS_H

#include <bit>
#include <cstddef>

namespace lazyc::runtime {

/// The smallest size class holding `bytes`: `granule` (a power of two), then
/// four classes per power of two (2^k, 1.25 * 2^k, 1.5 * 2^k, 1.75 * 2^k),
/// rounded up to a multiple of `granule`. `bytes` must be at most half the
/// address space (callers reject larger requests first), so no candidate
/// wraps around.
inline size_t sizeClass(size_t bytes, size_t granule) {
  if (bytes <= granule)
    return granule;
  size_t power = std::bit_floor(bytes);
  size_t quarter = power / 4;
  size_t size = power;
  while (size < bytes)
    size += quarter;
  return (size + granule - 1) / granule * granule;
}

} // namespace lazyc::runtime

#endif // LAZYC_RUNTIME_SIZECLASS_H
