//===- FunctionCache.cpp - Which compiled function serves a trace ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the function cache: its selection rule, the size
// hints of function signatures, eviction and clearCache().
//
// Constant promotion: an entry remembers the literal values it was
// compiled with. A trace with the same key but other values marks the
// literals that differ as "promoted" and compiles a second function that
// takes them as rank-0 arguments; later traces use that function whatever
// those literals hold. A loop whose scalars change every iteration thus
// compiles at most twice. Sizes work alike, one level up: a structure that
// comes with other sizes compiles once more with the sizes that changed
// left to the call.
//
//===----------------------------------------------------------------------===//

#include "FunctionCache.h"
#include "CompileService.h"
#include "Engine.h"

#include "lazyc/API/Compile.h"
#include "lazyc/API/Metrics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace lazyc;
using namespace lazyc::engine;
using namespace lazyc::trace;

/// Literal values compare by bits: -0.0 is not 0.0 (x + -0.0 keeps a -0.0
/// that x + 0.0 turns into 0.0), and a NaN equals itself.
static bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

static bool sameBits(const std::vector<double> &a,
                     const std::vector<double> &b) {
  return a.size() == b.size() &&
         (a.empty() ||
          std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

//===----------------------------------------------------------------------===//
// Size hints
//===----------------------------------------------------------------------===//

namespace {
/// Sizes function signatures left unknown, per argument node (weakly: a
/// node that died is forgotten; see engine::hintDynamicSizes).
struct SizeHint {
  std::weak_ptr<Node> node;
  std::vector<int64_t> sizes;
};
thread_local llvm::DenseMap<const Node *, SizeHint> sizeHints;
} // namespace

void engine::hintDynamicSizes(const NodePtr &node, std::vector<int64_t> sizes) {
  if (sizeHints.size() >= 256) {
    for (auto it = sizeHints.begin(); it != sizeHints.end();) {
      if (it->second.node.expired())
        sizeHints.erase(it++);
      else
        ++it;
    }
  }
  sizeHints[node.get()] = {node, std::move(sizes)};
}

/// Marks in `dynamic` (numbered as traceSizes()) the sizes of `trace` that a
/// signature said vary: every dimension of that size (it is where the
/// unknown size flows; a dimension equal to it by chance is merely left to
/// the call too). A hinted 1 counts as well: a first batch of 1 must not
/// compile a function for 1 alone, and the 1s broadcasts stretch stay
/// static anyway (trace::stretchedSizes). False if no node of the trace
/// has a hint.
static bool hintedSizes(const Trace &trace, const std::vector<int64_t> &sizes,
                        std::vector<bool> &dynamic) {
  if (sizeHints.empty())
    return false;
  llvm::SmallVector<int64_t, 4> varying;
  for (const Node *node : trace.nodes)
    if (auto it = sizeHints.find(node);
        it != sizeHints.end() && it->second.node.lock().get() == node)
      for (int64_t size : it->second.sizes)
        if (!llvm::is_contained(varying, size))
          varying.push_back(size);
  if (varying.empty())
    return false;
  dynamic.assign(sizes.size(), false);
  for (size_t i = 0; i < sizes.size(); ++i)
    dynamic[i] = llvm::is_contained(varying, sizes[i]);
  return true;
}

//===----------------------------------------------------------------------===//
// Entries
//===----------------------------------------------------------------------===//

FunctionCache::FunctionCache(Compilers compilers, size_t capacity)
    : compilers(std::move(compilers)), capacity(std::max<size_t>(1, capacity)) {
}

CacheEntry &FunctionCache::lookup(uint64_t key, bool &existed) {
  auto it = entries.find(key);
  existed = it != entries.end();
  if (existed) {
    order.splice(order.begin(), order, it->second.second);
    return it->second.first;
  }
  order.push_front(key);
  auto &slot = entries[key];
  slot.second = order.begin();
  evict();
  return slot.first;
}

CacheEntry *FunctionCache::find(uint64_t key) {
  auto it = entries.find(key);
  if (it == entries.end())
    return nullptr;
  order.splice(order.begin(), order, it->second.second);
  return &it->second.first;
}

void FunctionCache::evict() {
  // The newest entry (the front) is never the one dropped.
  while (entries.size() > capacity) {
    entries.erase(order.back());
    order.pop_back();
  }
}

void FunctionCache::clear() {
  std::lock_guard<std::mutex> lock(mutex);
  entries.clear();
  order.clear();
}

size_t FunctionCache::size() {
  std::lock_guard<std::mutex> lock(mutex);
  return entries.size();
}

std::vector<bool> FunctionCache::promotedLiterals(const Trace &trace) {
  std::lock_guard<std::mutex> lock(mutex);
  if (CacheEntry *entry = find(trace.key);
      entry && entry->signature == trace.signature && entry->promoted)
    return entry->promotedMask;
  return {};
}

bool FunctionCache::contains(const Trace &trace) {
  std::lock_guard<std::mutex> lock(mutex);
  CacheEntry *entry = find(trace.key);
  return entry && entry->signature == trace.signature &&
         (entry->baked || entry->promoted);
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

Selection FunctionCache::select(const Trace &trace,
                                const std::vector<double> &literals,
                                SelectMode mode, const Request &request) {
  std::lock_guard<std::mutex> lock(mutex);
  // A structure that ran before with other sizes runs on one function for
  // all of them.
  if (mode == SelectMode::Lazy)
    if (CacheEntry *exact = find(trace.key);
        !exact || exact->signature != trace.signature)
      if (CacheEntry *entry = shapeGenericEntry(trace, literals))
        if (Selection selection;
            shapeGenericFunction(*entry, trace, literals, request, selection))
          return selection;
  return exactFunction(trace, literals, mode, request);
}

/// The shape-generic entry (see CacheEntry) of `trace`'s structure if a
/// trace of it ran before with other sizes, or if a signature said which of
/// its sizes vary, else null; the first trace of a structure records its
/// sizes and literals there.
CacheEntry *
FunctionCache::shapeGenericEntry(const Trace &trace,
                                 const std::vector<double> &literals) {
  static thread_local std::vector<uint64_t> signature;
  static thread_local std::vector<int64_t> sizes;
  uint64_t key = shapeGenericSignature(trace, signature);
  traceSizes(trace, sizes);
  bool existed;
  CacheEntry &entry = lookup(key, existed);
  if (existed && entry.signature == signature)
    return entry.sizes != sizes || entry.hinted ? &entry : nullptr;
  entry = CacheEntry();
  entry.signature = signature;
  entry.sizes = sizes;
  entry.bakedLiterals = literals;
  if (hintedSizes(trace, sizes, entry.dynamicSizes)) {
    entry.hinted = true;
    return &entry;
  }
  return nullptr;
}

/// Selects in `selection` the function of shape-generic `entry` for
/// `trace`: the cached one if it leaves every size that differs from the
/// entry's first trace to the call and promotes every literal that differs;
/// otherwise a new one that does (automatic dynamic dimensions, then
/// constant promotion). False if such a function does not compile, or if a
/// size a kernel specializes on changed (the trace then compiles for its
/// sizes).
bool FunctionCache::shapeGenericFunction(CacheEntry &entry, const Trace &trace,
                                         const std::vector<double> &literals,
                                         const Request &request,
                                         Selection &selection) {
  if (entry.staticOnly)
    return false;
  static thread_local std::vector<int64_t> sizes;
  traceSizes(trace, sizes);
  std::vector<bool> dynamicSizes = entry.dynamicSizes;
  dynamicSizes.resize(sizes.size());
  std::vector<bool> newSizes(sizes.size());
  bool covered = entry.promoted != nullptr;
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] != entry.sizes[i] && !dynamicSizes[i]) {
      newSizes[i] = true;
      dynamicSizes[i] = true;
      covered = false;
    }
  std::vector<bool> promoted = entry.promotedMask;
  promoted.resize(literals.size());
  std::vector<bool> newLiterals(literals.size());
  for (size_t i = 0; i < literals.size(); ++i)
    if (!promoted[i] && !sameBits(literals[i], entry.bakedLiterals[i])) {
      newLiterals[i] = promoted[i] = true;
      covered = false;
    }
  Counters &c = counters();
  auto select = [&] {
    selection.function = entry.promoted;
    selection.promoted = entry.promotedMask;
    selection.dynamicSizes = entry.dynamicSizes;
    selection.readsSizes = true;
    return true;
  };
  if (covered) {
    ++c.cacheHits;
    return select();
  }
  static thread_local std::vector<bool> specialized;
  specializedSizes(trace, specialized);
  bool changesKernel = false;
  for (size_t i = 0; i < newSizes.size() && !changesKernel; ++i)
    changesKernel = newSizes[i] && specialized[i];
  if (changesKernel) {
    // This trace compiles for its sizes and becomes the structure's first:
    // later traces with its kernel sizes but other sizes share one function.
    if (explain::enabled())
      explain::report(trace, request.cause(),
                      "sizes stay static: a size its kernel is compiled for "
                      "(a convolution's channels or kernel size) changed");
    CacheEntry first;
    first.signature = std::move(entry.signature);
    first.sizes = sizes;
    first.bakedLiterals = literals;
    entry = std::move(first);
    return false;
  }
  // With nothing new, this is the first trace of a structure whose sizes a
  // signature hinted.
  explain::MissReason reason = llvm::is_contained(newSizes, true)
                                   ? explain::MissReason::SizesChanged
                               : llvm::is_contained(newLiterals, true)
                                   ? explain::MissReason::ConstantsChanged
                                   : explain::MissReason::NewStructure;
  ++c.cacheMisses;
  c.missSites.count(request.site, explain::missReasonName(reason));
  if (explain::enabled())
    explain::report(trace, request.cause(),
                    explain::sizeMiss(trace, entry.sizes, newSizes,
                                      entry.bakedLiterals, newLiterals));
  try {
    entry.promoted = compilers.compile(trace, promoted, false, dynamicSizes);
  } catch (const Error &error) {
    // A gap in what dynamic sizes support must not fail a program that
    // compiles for its sizes: this structure stays static.
    if (explain::enabled())
      explain::report(trace, request.cause(),
                      std::string("sizes stay static: ") + error.what());
    entry.staticOnly = true;
    return false;
  }
  selection.miss = reason;
  c.sizesMadeDynamic += std::count(newSizes.begin(), newSizes.end(), true);
  c.constantsPromoted +=
      std::count(newLiterals.begin(), newLiterals.end(), true);
  entry.dynamicSizes = std::move(dynamicSizes);
  entry.promotedMask = std::move(promoted);
  entry.bakedLiterals = literals;
  return select();
}

/// Whether `trace` can run op by op while it compiles: not when it has
/// control flow (an op with several results would run once per result).
static bool opByOpRuns(const Trace &trace) {
  for (const Node *node : trace.nodes)
    if (node->kind == OpKind::If || node->kind == OpKind::While ||
        node->kind == OpKind::Result)
      return false;
  return true;
}

/// The function of `trace`'s exact structure (see select()).
Selection FunctionCache::exactFunction(const Trace &trace,
                                       const std::vector<double> &literals,
                                       SelectMode mode,
                                       const Request &request) {
  const bool eager = mode == SelectMode::Eager;
  Selection selection;
  selection.readsSizes = eager;
  Counters &c = counters();
  bool existed;
  CacheEntry &entry = lookup(trace.key, existed);
  if (existed && entry.signature != trace.signature) {
    // Another structure with the same key: this one replaces it.
    entry = CacheEntry();
    existed = false;
  }
  // A background compile that finished serves from now on (or, failed,
  // leaves the next miss to compile here and report the error).
  if (entry.pending.valid() && isReady(entry.pending)) {
    entry.baked = entry.pending.get();
    entry.pending = {};
    entry.backgroundFailed = !entry.baked;
  }
  if (existed && !entry.baked && entry.pending.valid())
    return selection; // Still compiling: op by op meanwhile.

  if (!existed || !entry.baked) {
    ++c.cacheMisses;
    // Classified (and kept for the next miss's comparison) whether
    // explained or not: metrics() counts misses by reason.
    explain::TraceSummary summary = explain::summarize(trace);
    std::vector<const explain::TraceSummary *> cached;
    for (const auto &[key, slot] : entries)
      if (!slot.first.summary.empty())
        cached.push_back(&slot.first.summary);
    std::string why;
    explain::MissReason reason = explain::classifyStructuralMiss(
        summary, cached, eager, explain::enabled() ? &why : nullptr);
    c.missSites.count(request.site, explain::missReasonName(reason));
    if (explain::enabled())
      explain::report(trace, request.cause(), why);
    selection.miss = reason;
    entry.summary = std::move(summary);
    entry.bakedLiterals = literals;
    entry.signature = trace.signature;
    if (!eager && isCompilingAsync() && !entry.backgroundFailed &&
        opByOpRuns(trace)) {
      entry.pending = compilers.compileInBackground(trace);
      return selection;
    }
    entry.baked = compilers.compile(trace, {}, eager, {});
    selection.function = entry.baked;
    return selection;
  }

  if (sameBits(literals, entry.bakedLiterals)) {
    ++c.cacheHits;
    selection.function = entry.baked;
    return selection;
  }
  // History shows these literals vary: pass them as arguments from now on.
  std::vector<bool> differs(literals.size());
  for (size_t i = 0; i < literals.size(); ++i)
    differs[i] = !sameBits(literals[i], entry.bakedLiterals[i]);
  bool covered = entry.promoted != nullptr;
  for (size_t i = 0; covered && i < literals.size(); ++i)
    covered = !differs[i] || entry.promotedMask[i];
  if (covered) {
    ++c.cacheHits;
  } else {
    ++c.cacheMisses;
    c.missSites.count(request.site, explain::missReasonName(
                                        explain::MissReason::ConstantsChanged));
    if (explain::enabled())
      explain::report(
          trace, request.cause(),
          explain::constantMiss(trace, entry.bakedLiterals, differs));
    std::vector<bool> promoted = differs;
    uint64_t newlyPromoted = 0;
    for (size_t i = 0; i < promoted.size(); ++i) {
      bool before = i < entry.promotedMask.size() && entry.promotedMask[i];
      newlyPromoted += promoted[i] && !before;
      promoted[i] = promoted[i] || before;
    }
    entry.promoted = compilers.compile(trace, promoted, eager, {});
    entry.promotedMask = std::move(promoted);
    c.constantsPromoted += newlyPromoted;
    selection.miss = explain::MissReason::ConstantsChanged;
  }
  selection.function = entry.promoted;
  selection.promoted = entry.promotedMask;
  return selection;
}

//===----------------------------------------------------------------------===//
// The process's cache
//===----------------------------------------------------------------------===//

FunctionCache &engine::cache() {
  static FunctionCache *instance = [] {
    const char *value = std::getenv("LAZYC_CACHE_SIZE");
    size_t capacity =
        value ? std::max<size_t>(1, std::strtoull(value, nullptr, 10)) : 1024;
    Compilers compilers;
    compilers.compile =
        [](const Trace &trace, const std::vector<bool> &promoted,
           bool allSizesDynamic, const std::vector<bool> &dynamicSizes) {
          return std::shared_ptr<jit::CompiledFunction>(
              engine::compile(trace, promoted, allSizesDynamic, dynamicSizes));
        };
    compilers.compileInBackground = engine::compileInBackground;
    return new FunctionCache(std::move(compilers), capacity);
  }();
  return *instance;
}

void lazyc::clearCache() { cache().clear(); }
