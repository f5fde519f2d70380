//===- BackgroundCompiler.h - Compiles traces off the calling thread -*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to lazyc (lib/Engine): asynchronous compiles (setAsyncCompile,
// LAZYC_ASYNC_COMPILE). On a function cache miss the trace is imported on
// the calling thread and handed, as MLIR bytecode, to one background thread
// that compiles it in an MLIR context of its own; meanwhile the trace runs
// op by op in eager mode, and a later hit takes the fused function once it
// is ready (Materialize.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_ENGINE_BACKGROUNDCOMPILER_H
#define LAZYC_LIB_ENGINE_BACKGROUNDCOMPILER_H

#include "lazyc/JIT/CompiledFunction.h"
#include "lazyc/Trace/Trace.h"

#include <future>
#include <memory>

namespace lazyc::engine {

/// A function being compiled in the background: null once ready if the
/// compile failed (the caller then compiles on its own thread, which
/// reports the error at the user's line).
using PendingFunction =
    std::shared_future<std::shared_ptr<jit::CompiledFunction>>;

/// Whether the compile behind `pending` has finished.
bool isReady(const PendingFunction &pending);

/// Starts compiling `trace` (with its literals baked in, every size static)
/// on the background thread. Call it with the function cache's mutex held.
PendingFunction compileInBackground(const trace::Trace &trace);

} // namespace lazyc::engine

#endif // LAZYC_LIB_ENGINE_BACKGROUNDCOMPILER_H
