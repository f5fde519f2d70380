//===- Metrics.h - What lazyc did ---------------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_METRICS_H
#define LAZYC_API_METRICS_H

#include <cstdint>
#include <iosfwd>

namespace lazyc {

/// Counters of everything lazyc did since the start (or resetMetrics()).
struct Metrics {
  uint64_t opsRecorded = 0;
  /// Materializations (a trace cut and run), in total and by cause.
  uint64_t materializations = 0;
  uint64_t byItem = 0, byToVector = 0, byPrint = 0, byBool = 0, bySync = 0,
           bySizeLimit = 0, byEager = 0;
  uint64_t tracesCompiled = 0;
  uint64_t cacheHits = 0;
  uint64_t cacheMisses = 0;
  double compileMs = 0;
  uint64_t kernelsRun = 0;
  uint64_t constantsPromoted = 0;
  /// Values computed in the buffer of a dead argument they replace (a
  /// variable's new value over its old one), instead of a new buffer.
  uint64_t updatedInPlace = 0;
  /// Dimension sizes a recompile left to the call because they changed
  /// between two traces of one structure (automatic dynamic dimensions).
  uint64_t sizesMadeDynamic = 0;
};

/// A snapshot of the counters.
Metrics metrics();

/// Sets every counter to zero.
void resetMetrics();

/// Drops every compiled function (the cache refills as traces run).
void clearCache();

/// Explains every function-cache miss on stderr: the first difference from
/// the closest cached trace (op, shape, dtype, attributes, and the user's
/// line), or the constants that changed. Also on with LAZYC_EXPLAIN=1.
void setExplain(bool enable);
bool isExplaining();

/// Prints the counters, one labeled line each.
std::ostream &operator<<(std::ostream &os, const Metrics &metrics);

} // namespace lazyc

#endif // LAZYC_API_METRICS_H
