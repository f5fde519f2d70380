//===- FunctionCache.h - Compiled traces by structure -----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycAPI: the function cache, a bounded LRU map from trace
// keys to compiled functions, with what constant promotion needs (the
// literal values a function was compiled with, the promoted variant).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_API_FUNCTIONCACHE_H
#define LAZYC_LIB_API_FUNCTIONCACHE_H

#include "BackgroundCompiler.h"
#include "Explain.h"

#include "lazyc/JIT/CompiledFunction.h"

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
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

/// A bounded, thread-safe LRU map from trace keys to compiled functions.
class FunctionCache {
public:
  std::mutex mutex; ///< Held while looking up and compiling.

  /// The entry of `key`, created empty if missing; marks it most recent.
  CacheEntry &lookup(uint64_t key, bool &existed) {
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

  /// The entry of `key` (marked most recent), or null.
  CacheEntry *find(uint64_t key) {
    auto it = entries.find(key);
    if (it == entries.end())
      return nullptr;
    order.splice(order.begin(), order, it->second.second);
    return &it->second.first;
  }

  void clear() {
    entries.clear();
    order.clear();
  }

  /// The structure of every cached trace that has one recorded.
  std::vector<const explain::TraceSummary *> summaries() const {
    std::vector<const explain::TraceSummary *> result;
    for (const auto &[key, slot] : entries)
      if (!slot.first.summary.empty())
        result.push_back(&slot.first.summary);
    return result;
  }

private:
  /// Drops the least recently used entries past LAZYC_CACHE_SIZE (1024).
  void evict();

  std::list<uint64_t> order;
  std::unordered_map<uint64_t,
                     std::pair<CacheEntry, std::list<uint64_t>::iterator>>
      entries;
};

/// The process's function cache.
FunctionCache &cache();

} // namespace lazyc::engine

#endif // LAZYC_LIB_API_FUNCTIONCACHE_H
