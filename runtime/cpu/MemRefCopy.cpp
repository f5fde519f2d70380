//===- MemRefCopy.cpp - Strided copies for generated code -----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements memrefCopy, the entry point MLIR's memref-to-LLVM
// lowering calls for copies between memrefs with arbitrary strides (upstream
// ships it in libmlir_c_runner_utils, which drags all of libMLIR.so in).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Runtime.h"

#include <cstring>

namespace {

/// The layout of a ranked memref descriptor: pointers, offset, then `rank`
/// sizes and `rank` strides (all 64-bit).
struct Descriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
};

struct Unranked {
  int64_t rank;
  Descriptor *descriptor;
};

} // namespace

extern "C" void memrefCopy(int64_t elementBytes, void *source, void *target) {
  auto *from = static_cast<Unranked *>(source);
  auto *to = static_cast<Unranked *>(target);
  int64_t rank = from->rank;
  const int64_t *sizes = from->descriptor->sizesAndStrides;
  const int64_t *fromStrides = sizes + rank;
  const int64_t *toStrides = to->descriptor->sizesAndStrides + rank;
  char *fromBase =
      from->descriptor->aligned + from->descriptor->offset * elementBytes;
  char *toBase =
      to->descriptor->aligned + to->descriptor->offset * elementBytes;

  int64_t elements = 1;
  for (int64_t d = 0; d < rank; ++d)
    elements *= sizes[d];
  if (elements == 0)
    return;

  // Walk the index space like an odometer, keeping both byte offsets.
  int64_t index[16] = {0};
  if (rank > 16) {
    // Deeper tensors are not produced by lazyc; copy element by element.
    for (int64_t linear = 0; linear < elements; ++linear) {
      int64_t rest = linear, fromOffset = 0, toOffset = 0;
      for (int64_t d = rank - 1; d >= 0; --d) {
        int64_t i = rest % sizes[d];
        rest /= sizes[d];
        fromOffset += i * fromStrides[d];
        toOffset += i * toStrides[d];
      }
      std::memcpy(toBase + toOffset * elementBytes,
                  fromBase + fromOffset * elementBytes, elementBytes);
    }
    return;
  }
  int64_t fromOffset = 0, toOffset = 0;
  for (int64_t linear = 0; linear < elements; ++linear) {
    std::memcpy(toBase + toOffset * elementBytes,
                fromBase + fromOffset * elementBytes, elementBytes);
    for (int64_t d = rank - 1; d >= 0; --d) {
      fromOffset += fromStrides[d];
      toOffset += toStrides[d];
      if (++index[d] < sizes[d])
        break;
      fromOffset -= fromStrides[d] * sizes[d];
      toOffset -= toStrides[d] * sizes[d];
      index[d] = 0;
    }
  }
}
