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

#include <cstdint>
#include <cstring>
#include <vector>

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

/// One dimension of a copy: its size and the two strides (in elements).
struct Dim {
  int64_t size, fromStride, toStride;
};

/// Copies `count` elements `fromStride` / `toStride` elements apart, with
/// a loop per element size that the compiler vectorizes or unrolls.
template <typename Element>
void copyRow(char *to, const char *from, int64_t count, int64_t toStride,
             int64_t fromStride) {
  auto *out = reinterpret_cast<Element *>(to);
  auto *in = reinterpret_cast<const Element *>(from);
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(out + i * toStride, in + i * fromStride, sizeof(Element));
}

void copyRow(int64_t elementBytes, char *to, const char *from, int64_t count,
             int64_t toStride, int64_t fromStride) {
  if (toStride == 1 && fromStride == 1) {
    std::memcpy(to, from, count * elementBytes);
    return;
  }
  switch (elementBytes) {
  case 1:
    return copyRow<uint8_t>(to, from, count, toStride, fromStride);
  case 2:
    return copyRow<uint16_t>(to, from, count, toStride, fromStride);
  case 4:
    return copyRow<uint32_t>(to, from, count, toStride, fromStride);
  case 8:
    return copyRow<uint64_t>(to, from, count, toStride, fromStride);
  default:
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(to + i * toStride * elementBytes,
                  from + i * fromStride * elementBytes, elementBytes);
  }
}

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

  // The dimensions, size-1 ones dropped and neighbours that are contiguous
  // in both layouts merged (a slice of rows copies whole rows at once).
  std::vector<Dim> dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0)
      return;
    if (sizes[d] == 1)
      continue;
    Dim dim{sizes[d], fromStrides[d], toStrides[d]};
    if (!dims.empty()) {
      Dim &outer = dims.back();
      if (outer.fromStride == dim.size * dim.fromStride &&
          outer.toStride == dim.size * dim.toStride) {
        outer = {outer.size * dim.size, dim.fromStride, dim.toStride};
        continue;
      }
    }
    dims.push_back(dim);
  }
  if (dims.empty()) {
    std::memcpy(toBase, fromBase, elementBytes);
    return;
  }

  // The innermost dimension is one row; the others are walked like an
  // odometer, keeping both element offsets.
  Dim row = dims.back();
  dims.pop_back();
  std::vector<int64_t> index(dims.size(), 0);
  int64_t fromOffset = 0, toOffset = 0;
  while (true) {
    copyRow(elementBytes, toBase + toOffset * elementBytes,
            fromBase + fromOffset * elementBytes, row.size, row.toStride,
            row.fromStride);
    size_t d = dims.size();
    for (; d > 0; --d) {
      Dim &dim = dims[d - 1];
      fromOffset += dim.fromStride;
      toOffset += dim.toStride;
      if (++index[d - 1] < dim.size)
        break;
      fromOffset -= dim.fromStride * dim.size;
      toOffset -= dim.toStride * dim.size;
      index[d - 1] = 0;
    }
    if (d == 0)
      return;
  }
}
