//===- Allocator.cpp - Aligned, caching buffer allocator ------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazyrt_alloc/lazyrt_free and the runtime's error
// state. The allocator hands out 64-byte aligned blocks in size classes (four
// per power of two, so at most 25% is wasted), with freed blocks cached per
// class up to a byte limit.
//
// Each block starts with a 64-byte header holding its class size, so the
// user pointer stays aligned and lazyrt_free needs no lookup table.
//
//===----------------------------------------------------------------------===//

#include "SizeClass.h"

#include "lazyc/Runtime/Device.h"
#include "lazyc/Runtime/Runtime.h"

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr size_t kHeaderBytes = LAZYRT_ALIGNMENT;

struct Header {
  size_t classBytes;
};

thread_local std::string lastError;
thread_local int64_t outputShapeMismatch = -1;

class Allocator {
public:
  Allocator() {
    if (const char *limit = std::getenv("LAZYC_CACHE_BYTES"))
      cacheLimit = std::strtoull(limit, nullptr, 10);
  }

  ~Allocator() { trim(); }

  void *allocate(size_t bytes) {
    // Beyond half the address space no size class (nor any system) fits.
    if (bytes > (SIZE_MAX >> 1)) {
      lastError = "lazyrt_alloc: out of memory allocating " +
                  std::to_string(bytes) + " bytes";
      return nullptr;
    }
    size_t classBytes = lazyc::runtime::sizeClass(bytes, LAZYRT_ALIGNMENT);
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = cache.find(classBytes);
      if (it != cache.end() && !it->second.empty()) {
        void *block = it->second.back();
        it->second.pop_back();
        stats.bytes_cached -= classBytes;
        ++stats.reuses;
        recordAllocation(classBytes);
        return block;
      }
    }
    void *raw = std::aligned_alloc(LAZYRT_ALIGNMENT, classBytes + kHeaderBytes);
    if (!raw) {
      lastError = "lazyrt_alloc: out of memory allocating " +
                  std::to_string(bytes) + " bytes";
      return nullptr;
    }
    static_cast<Header *>(raw)->classBytes = classBytes;
    std::lock_guard<std::mutex> lock(mutex);
    recordAllocation(classBytes);
    return static_cast<char *>(raw) + kHeaderBytes;
  }

  void release(void *block) {
    if (!block)
      return;
    void *raw = static_cast<char *>(block) - kHeaderBytes;
    size_t classBytes = static_cast<Header *>(raw)->classBytes;
    std::vector<void *> evicted;
    {
      std::lock_guard<std::mutex> lock(mutex);
      stats.bytes_in_use -= classBytes;
      cache[classBytes].push_back(block);
      stats.bytes_cached += classBytes;
      evictOverLimit(evicted);
    }
    for (void *old : evicted)
      std::free(static_cast<char *>(old) - kHeaderBytes);
  }

  void trim() {
    std::vector<void *> evicted;
    {
      std::lock_guard<std::mutex> lock(mutex);
      for (auto &[classBytes, blocks] : cache)
        evicted.insert(evicted.end(), blocks.begin(), blocks.end());
      cache.clear();
      stats.bytes_cached = 0;
    }
    for (void *old : evicted)
      std::free(static_cast<char *>(old) - kHeaderBytes);
  }

  void setCacheLimit(uint64_t bytes) {
    std::vector<void *> evicted;
    {
      std::lock_guard<std::mutex> lock(mutex);
      cacheLimit = bytes;
      evictOverLimit(evicted);
    }
    for (void *old : evicted)
      std::free(static_cast<char *>(old) - kHeaderBytes);
  }

  lazyrt_allocator_stats getStats() {
    std::lock_guard<std::mutex> lock(mutex);
    return stats;
  }

  void resetPeak() {
    std::lock_guard<std::mutex> lock(mutex);
    stats.peak_bytes_in_use = stats.bytes_in_use;
  }

private:
  void recordAllocation(size_t classBytes) {
    ++stats.allocations;
    stats.bytes_in_use += classBytes;
    if (stats.bytes_in_use > stats.peak_bytes_in_use)
      stats.peak_bytes_in_use = stats.bytes_in_use;
  }

  /// Moves cached blocks, largest classes first, into `evicted` until the
  /// cache fits its limit. Called with the mutex held.
  void evictOverLimit(std::vector<void *> &evicted) {
    while (stats.bytes_cached > cacheLimit) {
      auto largest = cache.end();
      for (auto it = cache.begin(); it != cache.end(); ++it)
        if (!it->second.empty() &&
            (largest == cache.end() || it->first > largest->first))
          largest = it;
      if (largest == cache.end())
        return;
      evicted.push_back(largest->second.back());
      largest->second.pop_back();
      stats.bytes_cached -= largest->first;
    }
  }

  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void *>> cache;
  lazyrt_allocator_stats stats = {};
  uint64_t cacheLimit = uint64_t(1) << 30;
};

Allocator &allocator() {
  // Never destroyed: blocks may be freed during static destruction.
  static Allocator *instance = new Allocator();
  return *instance;
}

} // namespace

extern "C" {

void *lazyrt_alloc(size_t bytes) { return allocator().allocate(bytes); }

void lazyrt_free(void *block) { allocator().release(block); }

lazyrt_allocator_stats lazyrt_get_allocator_stats(void) {
  return allocator().getStats();
}

void lazyrt_reset_peak_bytes_in_use(void) { allocator().resetPeak(); }

void lazyrt_trim_cache(void) { allocator().trim(); }

void lazyrt_set_cache_limit(uint64_t bytes) {
  allocator().setCacheLimit(bytes);
}

const char *lazyrt_get_last_error(void) { return lastError.c_str(); }

void lazyrt_report_output_shape_mismatch(int64_t index) {
  outputShapeMismatch = index;
  lastError = "output #" + std::to_string(index) +
              " does not have the shape the function computed";
}

int64_t lazyrt_take_output_shape_mismatch(void) {
  int64_t index = outputShapeMismatch;
  outputShapeMismatch = -1;
  return index;
}

void *_mlir_memref_to_llvm_alloc(size_t bytes) { return lazyrt_alloc(bytes); }

void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t bytes) {
  // Every block is LAZYRT_ALIGNMENT-aligned; larger alignments are not
  // requested by lazyc's pipelines.
  if (alignment > LAZYRT_ALIGNMENT) {
    lastError = "lazyrt: alignment " + std::to_string(alignment) +
                " exceeds the allocator's " + std::to_string(LAZYRT_ALIGNMENT);
    return nullptr;
  }
  return lazyrt_alloc(bytes);
}

void _mlir_memref_to_llvm_free(void *block) { lazyrt_free(block); }

} // extern "C"

/// Sets this thread's last error, for the runtime's other files (declared
/// where used: runtime/distributed/Collectives.cpp).
namespace lazyc::runtime {
void setLastError(std::string message) { lastError = std::move(message); }
} // namespace lazyc::runtime

namespace {
/// The CPU's DeviceAllocator: the caching allocator above.
class CpuAllocator final : public lazyc::DeviceAllocator {
public:
  void *allocate(size_t bytes) override { return lazyrt_alloc(bytes); }
  void deallocate(void *block) override { lazyrt_free(block); }
};
} // namespace

lazyc::DeviceAllocator &lazyc::cpuAllocator() {
  static CpuAllocator allocator;
  return allocator;
}
