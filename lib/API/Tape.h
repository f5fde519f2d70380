//===- Tape.h - What recording tells the gradient tapes ---------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycAPI: the hooks through which recorded ops and variable
// reads reach this thread's active GradientTapes.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_API_TAPE_H
#define LAZYC_LIB_API_TAPE_H

#include "lazyc/Trace/Node.h"

#include <cstdint>

namespace lazyc::tape {

/// Whether some tape of this thread is recording (cheap: checked per op).
bool recording();

/// Whether a recording tape of this thread watches `node` or a value it
/// depends on: an op of it must be recorded as an op (not folded into a
/// new literal) for the gradient to reach it.
bool tracks(const trace::Node &node);

/// Records `node` (before it runs in eager mode, which drops its inputs)
/// on every recording tape whose watched values it depends on.
void recorded(const trace::NodePtr &node);

/// A variable was read as `node`: every recording tape watches it.
void variableRead(uint64_t variable, const trace::NodePtr &node);

/// A CompileBlock's bound on every recording tape: the backward pass
/// materializes its pending gradients there.
void blockBound();

} // namespace lazyc::tape

#endif // LAZYC_LIB_API_TAPE_H
