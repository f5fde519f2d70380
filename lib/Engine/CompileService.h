//===- CompileService.h - Traces to compiled functions ----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to lazyc (lib/Engine): compiling a trace for its device's target
// (import, LAZYC_DUMP_TRACES, the target's pipeline and code generator), and
// turning what fails into a lazyc::Error about the node that failed.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_ENGINE_COMPILESERVICE_H
#define LAZYC_LIB_ENGINE_COMPILESERVICE_H

#include "lazyc/JIT/CompiledFunction.h"
#include "lazyc/Trace/Trace.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace lazyc::engine {

/// A new MLIR context with every dialect lazyc compiles loaded; never
/// freed by its users (compiled functions may outlive them).
mlir::MLIRContext *newCompileContext();

/// The context traces are imported and compiled in on the calling thread:
/// use it with the function cache's mutex held.
mlir::MLIRContext &compileContext();

/// Compiles `trace` for the target of its device, with the literals marked
/// in `promoted` passed as arguments and, with `dynamicShapes`, every
/// dimension size left to the call, else those marked in `dynamicSizes`
/// (numbered as trace::traceSizes() lists them; see
/// import::ImportOptions). Counts the compile in metrics(). Throws a
/// lazyc::Error naming the node a compile error is about (its op and the
/// user's line). Call it with the function cache's mutex held: the MLIR
/// context is shared.
std::unique_ptr<jit::CompiledFunction>
compile(const trace::Trace &trace, const std::vector<bool> &promoted,
        bool dynamicShapes, const std::vector<bool> &dynamicSizes = {});

/// Counts a compile that took `elapsed` in metrics().
void countCompile(const jit::CompileStats &stats,
                  std::chrono::steady_clock::duration elapsed);

/// Throws `message` as a lazyc::Error about the first output of `trace` the
/// user wrote (for failures no single node explains).
[[noreturn]] void failAtOutput(const trace::Trace &trace,
                               const std::string &message);

/// Throws the failure of a compiled call of `trace`: a failed collective's
/// at the collective, anything else at the first output.
[[noreturn]] void failRun(const trace::Trace &trace,
                          const std::string &message);

} // namespace lazyc::engine

#endif // LAZYC_LIB_ENGINE_COMPILESERVICE_H
