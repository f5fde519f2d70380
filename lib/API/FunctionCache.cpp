//===- FunctionCache.cpp - Compiled traces by structure -------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the function cache's eviction and clearCache().
//
//===----------------------------------------------------------------------===//

#include "FunctionCache.h"

#include "lazyc/API/Metrics.h"

#include <algorithm>
#include <cstdlib>

using namespace lazyc;
using namespace lazyc::engine;

void FunctionCache::evict() {
  static size_t capacity = [] {
    const char *value = std::getenv("LAZYC_CACHE_SIZE");
    return value ? std::max<size_t>(1, std::strtoull(value, nullptr, 10))
                 : size_t(1024);
  }();
  while (entries.size() > capacity) {
    entries.erase(order.back());
    order.pop_back();
  }
}

FunctionCache &engine::cache() {
  static FunctionCache *instance = new FunctionCache();
  return *instance;
}

void lazyc::clearCache() {
  FunctionCache &functions = cache();
  std::lock_guard<std::mutex> lock(functions.mutex);
  functions.clear();
}
