//===- Engine.h - Materialization: trace, cache, compile, run ---*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycAPI: turns requested values into computed buffers.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_API_ENGINE_H
#define LAZYC_LIB_API_ENGINE_H

#include "lazyc/API/Tensor.h"
#include "lazyc/Trace/Node.h"

#include "lazyc/API/SourceLocation.h"
#include <vector>

namespace lazyc::engine {

/// Computes `requested` (and every other value a handle holds in their
/// trace) with one compiled trace, then releases the graph above them.
void materialize(const std::vector<trace::Node *> &requested, Cause cause,
                 SourceLocation where);

/// Registers a newly recorded node: counts it, runs it at once in eager
/// mode, or cuts the graph when the pending work grows past the size limit.
void recorded(const trace::NodePtr &node, SourceLocation where);

/// Every unmaterialized node a handle of this thread still holds.
std::vector<trace::Node *> liveNodes();

/// Counts an op for metrics().
void countOp();

} // namespace lazyc::engine

#endif // LAZYC_LIB_API_ENGINE_H
