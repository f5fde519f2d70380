//===- Attention.h - The gradients of tiled attention -----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to lazyc: the recorder of lazy.attention_grad nodes, which the
// attention node's backward rule calls.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_API_ATTENTION_H
#define LAZYC_LIB_API_ATTENTION_H

#include "lazyc/API/Tensor.h"
#include "lazyc/Trace/Node.h"

#include <array>

namespace lazyc::detail {

/// The gradients of q, k and v of the Attention node `attention` (its
/// operands `in`, its result `out`), given `dOut`, the gradient of its
/// output rows [..., Tq, dv].
std::array<Tensor, 3> attentionGradients(const trace::Node &attention,
                                         const trace::NodeInputs &in,
                                         const Tensor &out, const Tensor &dOut,
                                         SourceLocation where);

} // namespace lazyc::detail

#endif // LAZYC_LIB_API_ATTENTION_H
