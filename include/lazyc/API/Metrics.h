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
#include <string>
#include <vector>

namespace lazyc {

/// How long one kind of event took, in milliseconds. Count, total, min and
/// max cover every event; the median, p90 and p99 the most recent
/// Metrics::kPercentileWindow (nearest rank: p90 is the smallest sample
/// at least 90% of them do not exceed). All zero when nothing happened.
struct TimeDistribution {
  uint64_t count = 0;
  double totalMs = 0, minMs = 0, medianMs = 0, p90Ms = 0, p99Ms = 0, maxMs = 0;
};

/// Something counted by what caused it: "tour.cpp:35 (toVector)",
/// "shape changed", ...
struct CountedCause {
  std::string what;
  uint64_t count = 0;
};

/// Counters of everything lazyc did since the start (or resetMetrics()).
struct Metrics {
  /// Percentiles are of this many most recent events of each kind.
  static constexpr unsigned kPercentileWindow = 1024;
  /// Lists of causes keep this many, the most frequent first.
  static constexpr unsigned kTopCauses = 10;

  uint64_t opsRecorded = 0;
  /// Materializations (a trace cut and run), in total and by cause.
  uint64_t materializations = 0;
  uint64_t byItem = 0, byToVector = 0, byPrint = 0, byBool = 0, bySync = 0,
           bySizeLimit = 0, byEager = 0, byInitialValues = 0;
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
  /// Traces that were one copy of a repeated block of a larger trace (a
  /// deep model's layer; see setRepeatedBlocks), of `materializations`.
  uint64_t repeatedBlocks = 0;
  /// Traces that were one block of a larger trace cut at CompileBlock
  /// bounds (see CompileBlock), of `materializations`.
  uint64_t compileBlocks = 0;

  /// The persistent compile cache: of tracesCompiled (each an in-memory
  /// cache miss that produced a function), those whose code was loaded
  /// from disk instead of generated, those whose generated code was
  /// written to disk, and disk entries found untrustworthy and ignored.
  uint64_t diskCacheHits = 0, diskCacheWrites = 0, diskCacheRejected = 0;

  /// Every compile (compileMs's events), and its two halves: the MLIR
  /// pipeline and the target's code generation and loading.
  TimeDistribution compiles, compilePipeline, compileCodegen;
  /// Compiled functions called (kernelsRun's events).
  TimeDistribution kernelRuns;
  /// Copies of host data into device buffers (fromVector, loads) and of
  /// device buffers to the host. A CPU buffer is read where it is: reading
  /// it copies nothing here.
  TimeDistribution transfersToDevice, transfersToHost;
  uint64_t bytesToDevice = 0, bytesToHost = 0;

  /// Materializations by the user's line and cause,
  /// "train.cpp:42 (toVector)"; printing and bool conversions, which cannot
  /// see the line, name the op that made the value, "tour.cpp:28 (bool,
  /// of `compare`)". The kTopCauses most frequent.
  std::vector<CountedCause> topMaterializations;
  /// Cache misses by reason ("nothing cached", "new structure", "device
  /// changed", "dtype changed", "shape changed", "attributes changed",
  /// "outputs changed", "in-place update changed", "other mode" (an equal
  /// trace is cached for eager or lazy mode, the other), "literal changed",
  /// "sizes changed"), most first; LAZYC_EXPLAIN tells the
  /// details of each.
  std::vector<CountedCause> cacheMissReasons;
  /// Cache misses by reason and the line that asked for the trace,
  /// "literal changed: train.cpp:42 (toVector)". The kTopCauses most
  /// frequent.
  std::vector<CountedCause> topCacheMisses;
};

/// A snapshot of the counters.
Metrics metrics();

/// Sets every counter to zero and empties the distributions and lists.
void resetMetrics();

/// The full report of metrics(): what operator<< prints.
std::string metricsReport();

/// Drops every compiled function (the cache refills as traces run).
void clearCache();

/// Explains every function-cache miss on stderr: the first difference from
/// the closest cached trace (op, shape, dtype, attributes, and the user's
/// line), or the constants that changed. Also on with LAZYC_EXPLAIN=1.
void setExplain(bool enable);
bool isExplaining();

/// Prints the report: the counters, one labeled line each, then a table of
/// the time distributions, the top materialization sites and the top
/// cache-miss reasons and sites.
std::ostream &operator<<(std::ostream &os, const Metrics &metrics);

} // namespace lazyc

#endif // LAZYC_API_METRICS_H
