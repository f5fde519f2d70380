//===- TensorAccess.h - The node behind a Tensor ----------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycAPI: the node behind a Tensor (lazyc/API/NodeAccess.h),
// and new values made from it.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_API_TENSORACCESS_H
#define LAZYC_LIB_API_TENSORACCESS_H

#include "lazyc/API/NodeAccess.h"

namespace lazyc::detail {

/// A new node holding `x`'s value (a reshape to its own shape): a result of
/// eager control flow is then its own value, as the lazy op's result is,
/// never the operand it equals (a tape watching it must not watch that).
/// `op` names the control flow in errors (an empty handle).
Tensor distinctValue(const Tensor &x, const char *op, SourceLocation where);

} // namespace lazyc::detail

#endif // LAZYC_LIB_API_TENSORACCESS_H
