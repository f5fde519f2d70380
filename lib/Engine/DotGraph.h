//===- DotGraph.h - A trace as a Graphviz graph -----------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to lazyc (lib/Engine): the Graphviz text of a trace, for
// lazyc::toDot and LAZYC_DUMP_DOT.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_ENGINE_DOTGRAPH_H
#define LAZYC_LIB_ENGINE_DOTGRAPH_H

#include "lazyc/Trace/Trace.h"

#include <string>
#include <vector>

namespace lazyc::detail {

/// `trace` in dot; `promoted[i]` marks trace.literals[i] as passed as an
/// argument.
std::string dotOfTrace(const trace::Trace &trace,
                       const std::vector<bool> &promoted);

} // namespace lazyc::detail

#endif // LAZYC_LIB_ENGINE_DOTGRAPH_H
