//===- ShapeCheck.h - Validating shapes users write -------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycAPI: the checks every shape a user passes in goes through
// (creation, reshape, broadcastTo), so that no op records a shape whose
// element count is negative or overflows.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_API_SHAPECHECK_H
#define LAZYC_LIB_API_SHAPECHECK_H

#include "lazyc/API/Error.h"
#include "lazyc/Runtime/Shape.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lazyc::detail {

/// Element counts above this cannot be addressed in bytes for every dtype
/// (8-byte elements, int64 byte offsets).
constexpr int64_t kMaxElements = int64_t(1) << 59;

/// The number of elements of `shape`; throws for a negative dimension or
/// more than kMaxElements elements. A dimension of -1 is skipped when
/// `allowInferred` (reshape's inferred dimension).
inline int64_t checkedElements(const std::vector<int64_t> &shape,
                               const char *op, SourceLocation where,
                               bool allowInferred = false) {
  bool empty = false;
  for (int64_t dim : shape) {
    if (dim < 0 && !(allowInferred && dim == -1))
      throw Error(op, "negative dimension in shape " + shapeText(shape), where);
    empty = empty || dim == 0;
  }
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      continue;
    if (!empty && __builtin_mul_overflow(count, dim, &count))
      count = kMaxElements + 1;
    if (!empty && count > kMaxElements)
      throw Error(op,
                  "shape " + shapeText(shape) +
                      " has too many elements (more than 2^59)",
                  where);
  }
  return empty ? 0 : count;
}

/// `axis` of a rank-`rank` tensor, counted from the end when negative.
inline int64_t normalizeAxis(int64_t axis, int64_t rank, const char *op,
                             SourceLocation where) {
  int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank)
    throw Error(op,
                "axis " + std::to_string(axis) +
                    " is out of range for a rank-" + std::to_string(rank) +
                    " tensor",
                where);
  return normalized;
}

} // namespace lazyc::detail

#endif // LAZYC_LIB_API_SHAPECHECK_H
