//===- Collectives.h - Recording collectives --------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycAPI: the one recorder of collective nodes, which
// lazyc::distributed's functions and their gradients share.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_API_COLLECTIVES_H
#define LAZYC_LIB_API_COLLECTIVES_H

#include "lazyc/API/Tensor.h"

namespace lazyc::detail {

/// Records a collective of `kind` (LAZYRT_ALL_REDUCE, ... of
/// lazyc/Runtime/Collectives.h) over the world this process joined;
/// `reduction` is a LAZYRT_REDUCE_* value (all-reduce, reduce-scatter),
/// `root` a rank (broadcast). The caller has checked `x`.
Tensor collective(const Tensor &x, int kind, int reduction, int root,
                  SourceLocation where);

} // namespace lazyc::detail

#endif // LAZYC_LIB_API_COLLECTIVES_H
