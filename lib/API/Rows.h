//===- Rows.h - Rows at runtime indices -------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycAPI: reading and replacing one row of a tensor at an index
// known only when the trace runs (a bounded loop stacks its iteration values
// this way for its gradient).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_API_ROWS_H
#define LAZYC_LIB_API_ROWS_H

#include "lazyc/API/Tensor.h"

namespace lazyc::detail {

/// `x[index]` along the leading axis; `index` is an Int64 scalar, clamped to
/// the axis.
Tensor indexRow(const Tensor &x, const Tensor &index, SourceLocation where);

/// `x` with `x[index] = value` along the leading axis.
Tensor updateRow(const Tensor &x, const Tensor &index, const Tensor &value,
                 SourceLocation where);

} // namespace lazyc::detail

#endif // LAZYC_LIB_API_ROWS_H
