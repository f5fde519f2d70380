//===- Counters.h - The counters behind metrics() ---------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to lazyc (lib/Engine): the process-wide counters every part of the
// engine bumps and metrics() reads, the time distributions (compiles, kernel
// runs, copies between host and device) and the per-source-line tallies
// (materializations, cache misses).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_ENGINE_COUNTERS_H
#define LAZYC_LIB_ENGINE_COUNTERS_H

#include "lazyc/API/Metrics.h"
#include "lazyc/API/Tensor.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace lazyc::engine {

/// Durations of one kind of event, in nanoseconds: the count, total, min
/// and max of all of them, and the last kWindow in a ring for percentiles,
/// so memory stays flat however many events come. Lock-free: a snapshot
/// taken while other threads record may miss their latest samples.
class TimeRecorder {
public:
  static constexpr uint64_t kWindow = Metrics::kPercentileWindow;

  void record(uint64_t nanos) {
    uint64_t slot = count.fetch_add(1, std::memory_order_relaxed);
    window[slot % kWindow].store(nanos, std::memory_order_relaxed);
    totalNanos.fetch_add(nanos, std::memory_order_relaxed);
    for (uint64_t low = minNanos.load(std::memory_order_relaxed);
         nanos < low && !minNanos.compare_exchange_weak(low, nanos);)
      ;
    for (uint64_t high = maxNanos.load(std::memory_order_relaxed);
         nanos > high && !maxNanos.compare_exchange_weak(high, nanos);)
      ;
  }
  void recordMs(double ms) { record(static_cast<uint64_t>(ms * 1e6)); }

  /// Count, total, min and max of every sample; median, p90 and p99 of the
  /// window (nearest rank).
  TimeDistribution snapshot() const;
  void reset();

private:
  std::atomic<uint64_t> count{0}, totalNanos{0}, minNanos{UINT64_MAX},
      maxNanos{0};
  std::atomic<uint64_t> window[kWindow] = {};
};

/// Times a scope into a TimeRecorder.
class ScopedTimer {
public:
  explicit ScopedTimer(TimeRecorder &recorder)
      : recorder(recorder), start(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    recorder.record(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }

private:
  TimeRecorder &recorder;
  std::chrono::steady_clock::time_point start;
};

/// Where a materialization came from: the user's line that asked (`file`
/// and `line`), or, for printing and bool conversions, which cannot see
/// it, the op that made the value (`op`, at `file` and `line`).
struct Site {
  Cause cause;
  const char *file;
  unsigned line;
  const char *op; ///< null when `line` is the asking line.
};

/// Counts per (cause, site, reason), bounded: past kMaxSites distinct keys,
/// new ones are counted together as "other". Reasons are static strings
/// (explain::missReasonName).
class SiteCounts {
public:
  static constexpr size_t kMaxSites = 1024;

  void count(const Site &site, const char *reason = nullptr);
  /// The most frequent `n`, most first, as "file:line (cause)" or, with a
  /// reason, "reason: file:line (cause)" (sites whose files share a name
  /// are merged).
  std::vector<CountedCause> top(size_t n) const;
  /// Counts per reason, most first (reasons never counted left out).
  std::vector<CountedCause> byReason() const;
  void reset();

private:
  struct Key {
    int cause;
    const char *reason;
    const char *file;
    unsigned line;
    const char *op;
    bool operator==(const Key &other) const;
  };
  struct KeyHash {
    size_t operator()(const Key &key) const;
  };
  mutable std::mutex mutex;
  std::unordered_map<Key, uint64_t, KeyHash> counts;
  uint64_t others = 0;
};

struct Counters {
  std::atomic<uint64_t> opsRecorded{0}, materializations{0}, tracesCompiled{0},
      cacheHits{0}, cacheMisses{0}, kernelsRun{0}, constantsPromoted{0},
      compileMicros{0}, updatedInPlace{0}, sizesMadeDynamic{0},
      repeatedBlocks{0}, compileBlocks{0};
  /// Materializations, indexed by Cause.
  std::atomic<uint64_t> byCause[static_cast<int>(Cause::InitialValues) + 1] =
      {};
  /// The persistent compile cache's outcomes (jit::CompileStats).
  std::atomic<uint64_t> diskCacheHits{0}, diskCacheWrites{0},
      diskCacheRejected{0};
  std::atomic<uint64_t> bytesToDevice{0}, bytesToHost{0};

  TimeRecorder compiles, compilePipeline, compileCodegen, kernelRuns,
      transfersToDevice, transfersToHost;
  SiteCounts materializationSites, missSites;
};

/// The process's counters.
Counters &counters();

} // namespace lazyc::engine

#endif // LAZYC_LIB_ENGINE_COUNTERS_H
