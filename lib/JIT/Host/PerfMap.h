//===- PerfMap.h - Names of JIT'd code for perf -----------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// With LAZYC_PERF_MAP=1, every function the CPU JIT links is written to
// /tmp/perf-<pid>.map, the file `perf report` reads to name code that has
// no object file on disk: a trace's kernels then show up by name
// (`lazyc:<label>:<symbol>`, e.g. a loop nest's outlined body; the label is
// the trace's LAZYC_DUMP_TRACES file name when the engine compiles it).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_JIT_HOST_PERFMAP_H
#define LAZYC_LIB_JIT_HOST_PERFMAP_H

#include "llvm/ADT/StringRef.h"

#include <memory>

namespace llvm::orc {
class LLJITBuilder;
} // namespace llvm::orc

namespace lazyc::jit {

/// Whether LAZYC_PERF_MAP asks for a perf map (read once).
bool perfMapRequested();

/// Makes the JIT `builder` creates list the functions of every object it
/// links in the process's perf map, under this thread's PerfMapLabel, or
/// `function`'s name without one. The entry symbol, into which the trace's
/// own function is inlined, is listed as `function` itself.
void writePerfMapEntries(llvm::orc::LLJITBuilder &builder,
                         llvm::StringRef function, llvm::StringRef entry);

} // namespace lazyc::jit

#endif // LAZYC_LIB_JIT_HOST_PERFMAP_H
