//===- FunctionCache.h - Which compiled function serves a trace -*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to lazyc (lib/Engine): the function cache, a bounded LRU map
// from trace keys to compiled functions, and the one rule that picks the
// function serving a trace (FunctionCache::select): baked literals,
// promoted literals, shape-generic functions (sizes left to the call),
// sizes a signature hinted, background compiles and op-by-op runs while
// they finish.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_ENGINE_FUNCTIONCACHE_H
#define LAZYC_LIB_ENGINE_FUNCTIONCACHE_H

#include "BackgroundCompiler.h"
#include "Counters.h"
#include "Explain.h"

#include "lazyc/JIT/CompiledFunction.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace lazyc::engine {

/// What a cache key maps to.
struct CacheEntry {
  /// The structure compiled (Trace::signature): a trace with the same key
  /// but another signature is a hash collision, not a hit.
  std::vector<uint64_t> signature;
  /// Compiled with every literal baked in, at these values.
  std::vector<double> bakedLiterals;
  std::shared_ptr<jit::CompiledFunction> baked;
  /// `baked` while it compiles in the background (setAsyncCompile).
  PendingFunction pending;
  /// Set when the background compile failed: the next miss compiles on the
  /// calling thread, which reports the error.
  bool backgroundFailed = false;
  /// Compiled with the literals marked here passed as arguments.
  std::vector<bool> promotedMask;
  std::shared_ptr<jit::CompiledFunction> promoted;
  /// The trace's structure, kept while misses are explained.
  explain::TraceSummary summary;

  // A shape-generic entry (keyed by trace::shapeGenericSignature) holds the
  // sizes of the first trace of its structure; once a trace with other
  // sizes comes, `promoted` is compiled with the sizes that changed left to
  // the call (`dynamicSizes`) and the literals that changed promoted
  // (`promotedMask`; the others baked at `bakedLiterals`). `baked` is unused.
  std::vector<int64_t> sizes;
  std::vector<bool> dynamicSizes;
  /// Set when leaving sizes to the call did not compile: traces of this
  /// structure compile for their sizes.
  bool staticOnly = false;
  /// Set when a function signature said which sizes vary (see
  /// engine::hintDynamicSizes): the first trace already leaves them to the
  /// call, and every trace of the structure, its first sizes too, runs on
  /// that one function.
  bool hinted = false;
};

/// How select() may serve a trace.
enum class SelectMode {
  /// Literals baked in until they vary, sizes static until a trace of the
  /// same structure comes with others (or a signature hinted them).
  Lazy,
  /// Eager mode's one op: every size left to the call, one function per
  /// rank; no shape-generic entries, no background compiles.
  Eager,
};

/// What select() chose for a trace.
struct Selection {
  /// The function to call; null when the trace runs op by op while its
  /// function compiles in the background.
  std::shared_ptr<jit::CompiledFunction> function;
  /// The literals (in trace.literals order) the function takes as
  /// arguments, after the trace's buffers.
  std::vector<bool> promoted;
  /// The sizes (numbered as traceSizes()) it leaves to the call; empty
  /// when it leaves them all (eager mode) or none.
  std::vector<bool> dynamicSizes;
  /// Whether it reads sizes at run time (trace::runtimeSizes): eager mode's
  /// and shape-generic functions.
  bool readsSizes = false;
  /// Why the trace missed the cache, if it did (it compiled, or started to).
  std::optional<explain::MissReason> miss;
};

/// Where a trace was asked for: what a miss is counted and explained with.
struct Request {
  Site site;
  /// "toVector at tour.cpp:35", built only when a miss is explained.
  llvm::function_ref<std::string()> cause;
};

/// How the cache compiles: engine::compile and compileInBackground for the
/// process's cache, stand-ins in tests.
struct Compilers {
  /// `trace` with the literals marked in `promoted` as arguments and, with
  /// `allSizesDynamic`, every size left to the call, else those marked in
  /// `dynamicSizes`. Throws a lazyc::Error when it does not compile.
  std::function<std::shared_ptr<jit::CompiledFunction>(
      const trace::Trace &trace, const std::vector<bool> &promoted,
      bool allSizesDynamic, const std::vector<bool> &dynamicSizes)>
      compile;
  /// `trace` with its literals baked in, on another thread.
  std::function<PendingFunction(const trace::Trace &trace)> compileInBackground;
};

/// A bounded, thread-safe LRU map from trace keys to compiled functions.
class FunctionCache {
public:
  /// Keeps at most `capacity` entries (at least 1).
  FunctionCache(Compilers compilers, size_t capacity);

  /// The function serving `trace`, whose literal values are `literals`
  /// (trace.literals order), compiling on a miss; counted in metrics()
  /// and, on a miss, explained (LAZYC_EXPLAIN) with `request`. The rules,
  /// in order:
  /// - a lazy trace whose exact structure is not cached, of a structure
  ///   that ran before with other sizes (or whose sizes a signature
  ///   hinted), runs on one shape-generic function: sizes that changed are
  ///   left to the call and literals that changed promoted, compiled once
  ///   per new set of them. Sizes a kernel specializes on
  ///   (trace::specializedSizes) stay static: such a trace compiles for its
  ///   sizes and starts the structure over;
  /// - otherwise the exact structure: compiled with its literals baked in
  ///   (in the background with setAsyncCompile, the trace running op by op
  ///   meanwhile); a trace whose literals differ from the baked ones runs
  ///   on a second function taking every literal that ever differed.
  /// Throws the compile's lazyc::Error.
  Selection select(const trace::Trace &trace,
                   const std::vector<double> &literals, SelectMode mode,
                   const Request &request);

  /// The literals the cached function of `trace`'s exact structure takes
  /// as arguments (empty if it bakes them all or is not cached).
  std::vector<bool> promotedLiterals(const trace::Trace &trace);

  /// Whether a function for `trace`'s exact structure is cached (ready).
  bool contains(const trace::Trace &trace);

  /// The number of entries (exact and shape-generic).
  size_t size();

  void clear();

private:
  /// The entry of `key`, created empty if missing; marks it most recent.
  CacheEntry &lookup(uint64_t key, bool &existed);
  /// The entry of `key` (marked most recent), or null.
  CacheEntry *find(uint64_t key);
  /// Drops the least recently used entries past the capacity.
  void evict();

  CacheEntry *shapeGenericEntry(const trace::Trace &trace,
                                const std::vector<double> &literals);
  bool shapeGenericFunction(CacheEntry &entry, const trace::Trace &trace,
                            const std::vector<double> &literals,
                            const Request &request, Selection &selection);
  Selection exactFunction(const trace::Trace &trace,
                          const std::vector<double> &literals, SelectMode mode,
                          const Request &request);

  /// Held while selecting and compiling (the MLIR context is shared).
  std::mutex mutex;
  Compilers compilers;
  size_t capacity;
  std::list<uint64_t> order;
  std::unordered_map<uint64_t,
                     std::pair<CacheEntry, std::list<uint64_t>::iterator>>
      entries;
};

/// The process's function cache (LAZYC_CACHE_SIZE entries, 1024 unset).
FunctionCache &cache();

} // namespace lazyc::engine

#endif // LAZYC_LIB_ENGINE_FUNCTIONCACHE_H
