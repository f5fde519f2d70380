//===- Counters.h - The counters behind metrics() ---------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycAPI: the process-wide counters every part of the engine
// bumps and metrics() reads.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_API_COUNTERS_H
#define LAZYC_LIB_API_COUNTERS_H

#include "lazyc/API/Tensor.h"

#include <atomic>
#include <cstdint>

namespace lazyc::engine {

struct Counters {
  std::atomic<uint64_t> opsRecorded{0}, materializations{0}, tracesCompiled{0},
      cacheHits{0}, cacheMisses{0}, kernelsRun{0}, constantsPromoted{0},
      compileMicros{0}, updatedInPlace{0}, sizesMadeDynamic{0};
  /// Materializations, indexed by Cause.
  std::atomic<uint64_t> byCause[static_cast<int>(Cause::Eager) + 1] = {};
};

/// The process's counters.
Counters &counters();

} // namespace lazyc::engine

#endif // LAZYC_LIB_API_COUNTERS_H
