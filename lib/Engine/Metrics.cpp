//===- Metrics.cpp - What lazyc did, counted ------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements metrics(): the counters, the time distributions and
// the per-line tallies, their reset, and the printed report (modeled on
// PyTorch/XLA's metrics report: counters, then each time distribution with
// its count, total and percentiles, then the top causes).
//
//===----------------------------------------------------------------------===//

#include "Counters.h"
#include "Engine.h"

#include "lazyc/API/Metrics.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <ostream>
#include <sstream>

using namespace lazyc;
using namespace lazyc::engine;

engine::Counters &engine::counters() {
  static Counters instance;
  return instance;
}

void engine::countOp() { ++counters().opsRecorded; }

//===----------------------------------------------------------------------===//
// Time distributions
//===----------------------------------------------------------------------===//

TimeDistribution TimeRecorder::snapshot() const {
  TimeDistribution d;
  d.count = count.load();
  if (d.count == 0)
    return d;
  constexpr double msPerNano = 1e-6;
  d.totalMs = totalNanos.load() * msPerNano;
  d.minMs = minNanos.load() * msPerNano;
  d.maxMs = maxNanos.load() * msPerNano;
  size_t n = static_cast<size_t>(std::min<uint64_t>(d.count, kWindow));
  std::vector<uint64_t> samples(n);
  for (size_t i = 0; i < n; ++i)
    samples[i] = window[i].load(std::memory_order_relaxed);
  std::sort(samples.begin(), samples.end());
  // Nearest rank: the ceil(p% of n)-th smallest sample.
  auto percentile = [&](size_t p) {
    size_t rank = (p * n + 99) / 100;
    return samples[std::max<size_t>(rank, 1) - 1] * msPerNano;
  };
  d.medianMs = percentile(50);
  d.p90Ms = percentile(90);
  d.p99Ms = percentile(99);
  return d;
}

void TimeRecorder::reset() {
  count = 0;
  totalNanos = 0;
  minNanos = UINT64_MAX;
  maxNanos = 0;
  for (std::atomic<uint64_t> &sample : window)
    sample = 0;
}

//===----------------------------------------------------------------------===//
// Counts by source line
//===----------------------------------------------------------------------===//

bool SiteCounts::Key::operator==(const Key &other) const {
  return cause == other.cause && reason == other.reason && file == other.file &&
         line == other.line && op == other.op;
}

size_t SiteCounts::KeyHash::operator()(const Key &key) const {
  std::hash<const void *> pointer;
  size_t hash = pointer(key.file) ^ (key.line * 0x9e3779b97f4a7c15ull);
  hash ^= pointer(key.op) + (hash << 6) + (hash >> 2);
  hash ^= pointer(key.reason) + (hash << 6) + (hash >> 2);
  return hash ^ static_cast<size_t>(key.cause);
}

void SiteCounts::count(const Site &site, const char *reason) {
  Key key{static_cast<int>(site.cause), reason, site.file, site.line, site.op};
  std::lock_guard<std::mutex> lock(mutex);
  auto it = counts.find(key);
  if (it != counts.end())
    ++it->second;
  else if (counts.size() < kMaxSites)
    counts.emplace(key, 1);
  else
    ++others;
}

static const char *causeName(int cause) {
  static const char *const names[] = {"item",  "toVector",      "print",
                                      "bool",  "sync",          "size limit",
                                      "eager", "initial values"};
  static_assert(std::size(names) ==
                    static_cast<size_t>(Cause::InitialValues) + 1,
                "a name for every Cause");
  return names[cause];
}

/// The most frequent `n` of `counts`, most first (then by name).
static std::vector<CountedCause>
mostFrequent(const std::map<std::string, uint64_t> &counts, size_t n) {
  std::vector<CountedCause> sorted;
  for (const auto &[what, count] : counts)
    sorted.push_back({what, count});
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const CountedCause &a, const CountedCause &b) {
                     return a.count > b.count;
                   });
  if (sorted.size() > n)
    sorted.resize(n);
  return sorted;
}

std::vector<CountedCause> SiteCounts::top(size_t n) const {
  std::map<std::string, uint64_t> merged;
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto &[key, count] : counts) {
    std::string what = key.reason ? std::string(key.reason) + ": " : "";
    what += key.line ? fileAndLine(key.file, key.line) : "unknown line";
    what += std::string(" (") + causeName(key.cause);
    if (key.op)
      what += std::string(", of `") + key.op + "`";
    merged[what + ")"] += count;
  }
  if (others)
    merged["(other lines)"] += others;
  return mostFrequent(merged, n);
}

std::vector<CountedCause> SiteCounts::byReason() const {
  std::map<std::string, uint64_t> merged;
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto &[key, count] : counts)
    merged[key.reason ? key.reason : "(none)"] += count;
  if (others)
    merged["(other lines)"] += others;
  return mostFrequent(merged, merged.size());
}

void SiteCounts::reset() {
  std::lock_guard<std::mutex> lock(mutex);
  counts.clear();
  others = 0;
}

//===----------------------------------------------------------------------===//
// metrics() and the report
//===----------------------------------------------------------------------===//

Metrics lazyc::metrics() {
  engine::Counters &c = engine::counters();
  Metrics m;
  m.opsRecorded = c.opsRecorded;
  m.materializations = c.materializations;
  auto byCause = [&](Cause cause) {
    return c.byCause[static_cast<int>(cause)].load();
  };
  m.byItem = byCause(Cause::Item);
  m.byToVector = byCause(Cause::ToVector);
  m.byPrint = byCause(Cause::Print);
  m.byBool = byCause(Cause::Bool);
  m.bySync = byCause(Cause::Sync);
  m.bySizeLimit = byCause(Cause::SizeLimit);
  m.byEager = byCause(Cause::Eager);
  m.byInitialValues = byCause(Cause::InitialValues);
  m.tracesCompiled = c.tracesCompiled;
  m.cacheHits = c.cacheHits;
  m.cacheMisses = c.cacheMisses;
  m.compileMs = c.compileMicros / 1000.0;
  m.kernelsRun = c.kernelsRun;
  m.constantsPromoted = c.constantsPromoted;
  m.updatedInPlace = c.updatedInPlace;
  m.sizesMadeDynamic = c.sizesMadeDynamic;
  m.repeatedBlocks = c.repeatedBlocks;
  m.compileBlocks = c.compileBlocks;
  m.diskCacheHits = c.diskCacheHits;
  m.diskCacheWrites = c.diskCacheWrites;
  m.diskCacheRejected = c.diskCacheRejected;
  m.compiles = c.compiles.snapshot();
  m.compilePipeline = c.compilePipeline.snapshot();
  m.compileCodegen = c.compileCodegen.snapshot();
  m.kernelRuns = c.kernelRuns.snapshot();
  m.transfersToDevice = c.transfersToDevice.snapshot();
  m.transfersToHost = c.transfersToHost.snapshot();
  m.bytesToDevice = c.bytesToDevice;
  m.bytesToHost = c.bytesToHost;
  m.topMaterializations = c.materializationSites.top(Metrics::kTopCauses);
  m.cacheMissReasons = c.missSites.byReason();
  m.topCacheMisses = c.missSites.top(Metrics::kTopCauses);
  return m;
}

void lazyc::resetMetrics() {
  engine::Counters &c = engine::counters();
  for (std::atomic<uint64_t> *counter :
       {&c.opsRecorded, &c.materializations, &c.tracesCompiled, &c.cacheHits,
        &c.cacheMisses, &c.kernelsRun, &c.constantsPromoted, &c.compileMicros,
        &c.updatedInPlace, &c.sizesMadeDynamic, &c.repeatedBlocks,
        &c.compileBlocks, &c.diskCacheHits, &c.diskCacheWrites,
        &c.diskCacheRejected, &c.bytesToDevice, &c.bytesToHost})
    *counter = 0;
  for (std::atomic<uint64_t> &counter : c.byCause)
    counter = 0;
  for (TimeRecorder *recorder :
       {&c.compiles, &c.compilePipeline, &c.compileCodegen, &c.kernelRuns,
        &c.transfersToDevice, &c.transfersToHost})
    recorder->reset();
  c.materializationSites.reset();
  c.missSites.reset();
}

/// `ms` in a unit that keeps three significant digits: "14.2ms", "3.05us".
static std::string timeText(double ms) {
  char text[32];
  if (ms == 0)
    return "0";
  if (ms >= 1000)
    std::snprintf(text, sizeof(text), "%.3gs", ms / 1000);
  else if (ms >= 1)
    std::snprintf(text, sizeof(text), "%.3gms", ms);
  else if (ms >= 1e-3)
    std::snprintf(text, sizeof(text), "%.3gus", ms * 1e3);
  else
    std::snprintf(text, sizeof(text), "%.3gns", ms * 1e6);
  return text;
}

/// One row of the time table.
static void printDistribution(std::ostream &os, const char *name,
                              const TimeDistribution &d) {
  char row[192];
  std::snprintf(row, sizeof(row), "  %-17s %7llu %9s %9s %9s %9s %9s %9s\n",
                name, static_cast<unsigned long long>(d.count),
                timeText(d.totalMs).c_str(), timeText(d.minMs).c_str(),
                timeText(d.medianMs).c_str(), timeText(d.p90Ms).c_str(),
                timeText(d.p99Ms).c_str(), timeText(d.maxMs).c_str());
  os << row;
}

static void printCauses(std::ostream &os, const char *title,
                        const std::vector<CountedCause> &causes) {
  os << title << (causes.empty() ? " none\n" : "\n");
  for (const CountedCause &cause : causes)
    os << "  " << cause.what << " x " << cause.count << "\n";
}

/// The report, each line ending in a newline.
static void printReport(std::ostream &os, const Metrics &m) {
  os << "lazyc metrics:\n"
     << "  ops recorded        " << m.opsRecorded << "\n"
     << "  materializations    " << m.materializations << " (item " << m.byItem
     << ", toVector " << m.byToVector << ", print " << m.byPrint << ", bool "
     << m.byBool << ", sync " << m.bySync << ", size limit " << m.bySizeLimit
     << ", eager " << m.byEager << ", initial values " << m.byInitialValues
     << ")\n"
     << "  traces compiled     " << m.tracesCompiled << "\n"
     << "  cache hits / misses " << m.cacheHits << " / " << m.cacheMisses
     << "\n"
     << "  compile time        " << m.compileMs << " ms\n"
     << "  kernels run         " << m.kernelsRun << "\n"
     << "  constants promoted  " << m.constantsPromoted << "\n"
     << "  updated in place    " << m.updatedInPlace << "\n"
     << "  sizes made dynamic  " << m.sizesMadeDynamic << "\n"
     << "  repeated blocks run " << m.repeatedBlocks << "\n"
     << "  compile blocks run  " << m.compileBlocks << "\n"
     << "  disk cache          " << m.diskCacheHits << " loaded, "
     << m.diskCacheWrites << " written, " << m.diskCacheRejected
     << " rejected\n"
     << "  bytes copied        " << m.bytesToDevice << " to devices, "
     << m.bytesToHost << " to the host\n";
  char header[160];
  std::snprintf(header, sizeof(header),
                "times (median, p90, p99 of the last %u):\n"
                "  %-17s %7s %9s %9s %9s %9s %9s %9s\n",
                Metrics::kPercentileWindow, "", "count", "total", "min",
                "median", "p90", "p99", "max");
  os << header;
  printDistribution(os, "compile", m.compiles);
  printDistribution(os, "  MLIR pipeline", m.compilePipeline);
  printDistribution(os, "  code generation", m.compileCodegen);
  printDistribution(os, "kernel run", m.kernelRuns);
  printDistribution(os, "copy to device", m.transfersToDevice);
  printDistribution(os, "copy to host", m.transfersToHost);
  printCauses(os, "top materializations:", m.topMaterializations);
  printCauses(os, "cache misses by reason:", m.cacheMissReasons);
  printCauses(os, "top cache misses:", m.topCacheMisses);
}

std::ostream &lazyc::operator<<(std::ostream &os, const Metrics &m) {
  // Without the last newline: programs print `metrics() << "\n"`.
  std::ostringstream report;
  printReport(report, m);
  std::string text = report.str();
  text.pop_back();
  return os << text;
}

std::string lazyc::metricsReport() {
  std::ostringstream os;
  os << metrics();
  return os.str();
}
