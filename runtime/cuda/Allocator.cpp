//===- Allocator.cpp - Caching allocator of device memory -----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the device allocator (Allocator.h) and its C ABI:
// lazyrt_cuda_alloc/lazyrt_cuda_free, the counters and lazyrt_cuda_empty_cache,
// and lazyc::cudaAllocator.
//
// Unlike the host allocator, a block carries no header (device memory is not
// readable from the host): a table maps each live block to its class size.
// The cache has no byte limit: its blocks are memory no one else on the
// device can use, but running out of memory empties it and retries once, and
// lazyrt_cuda_empty_cache gives it back on request.
//
//===----------------------------------------------------------------------===//

#include "Allocator.h"

#include "SizeClass.h"

#include "lazyc/Runtime/Cuda.h"

#include <cstdint>
#include <cstdio>
#include <memory>

using namespace lazyc::runtime;
using namespace lazyc::runtime::cuda;

/// Blocks are multiples of this (cuMemAlloc aligns to at least 256 bytes).
static constexpr size_t kGranuleBytes = 512;

void *CachingAllocator::allocate(size_t bytes, std::string &error) {
  DeviceState *state = useDevice(device, error);
  if (!state)
    return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  // Beyond half the address space no size class (nor any device) fits.
  if (bytes > (SIZE_MAX >> 1)) {
    error = outOfMemory(*state, bytes);
    return nullptr;
  }
  size_t classBytes = sizeClass(bytes, kGranuleBytes);
  CUdeviceptr block = 0;
  if (auto it = cache.find(classBytes);
      it != cache.end() && !it->second.empty()) {
    block = it->second.back();
    it->second.pop_back();
    counters.bytes_cached -= classBytes;
    ++counters.reuses;
  } else {
    const Driver &driver = *state->driver;
    CUresult result = driver.cuMemAlloc(&block, classBytes);
    // Cached blocks of other classes may be what is missing.
    if (result == CUDA_ERROR_OUT_OF_MEMORY && counters.bytes_cached) {
      if (std::string failure = emptyCacheLocked(*state); !failure.empty()) {
        error = failure;
        return nullptr;
      }
      result = driver.cuMemAlloc(&block, classBytes);
    }
    if (result == CUDA_ERROR_OUT_OF_MEMORY) {
      error = outOfMemory(*state, bytes);
      return nullptr;
    }
    if (result != CUDA_SUCCESS) {
      error = deviceName(device) + ": " + driver.failure("cuMemAlloc", result);
      return nullptr;
    }
  }
  live.emplace(block, classBytes);
  ++counters.allocations;
  counters.bytes_in_use += classBytes;
  if (counters.bytes_in_use > counters.peak_bytes_in_use)
    counters.peak_bytes_in_use = counters.bytes_in_use;
  return reinterpret_cast<void *>(block);
}

std::string CachingAllocator::release(void *block) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = live.find(reinterpret_cast<CUdeviceptr>(block));
  if (it == live.end()) {
    char message[160];
    std::snprintf(message, sizeof(message),
                  "%p is not a block of %s in use (freed already, or "
                  "allocated elsewhere)",
                  block, deviceName(device).c_str());
    return message;
  }
  size_t classBytes = it->second;
  cache[classBytes].push_back(it->first);
  live.erase(it);
  counters.bytes_in_use -= classBytes;
  counters.bytes_cached += classBytes;
  return "";
}

std::string CachingAllocator::emptyCache() {
  std::string whyNot;
  DeviceState *state = useDevice(device, whyNot);
  if (!state)
    return whyNot;
  std::lock_guard<std::mutex> lock(mutex);
  return emptyCacheLocked(*state);
}

std::string CachingAllocator::emptyCacheLocked(DeviceState &state) {
  if (!counters.bytes_cached)
    return "";
  const Driver &driver = *state.driver;
  // Work queued before a block was freed may still be using it.
  if (CUresult result = driver.cuStreamSynchronize(state.stream))
    return deviceName(device) + ": " +
           driver.failure("cuStreamSynchronize", result);
  std::string firstFailure;
  for (auto &[classBytes, blocks] : cache) {
    for (CUdeviceptr block : blocks) {
      CUresult result = driver.cuMemFree(block);
      if (result != CUDA_SUCCESS && firstFailure.empty())
        firstFailure =
            deviceName(device) + ": " + driver.failure("cuMemFree", result);
    }
    counters.bytes_cached -= classBytes * blocks.size();
  }
  cache.clear();
  return firstFailure;
}

std::string CachingAllocator::outOfMemory(DeviceState &state, size_t bytes) {
  std::string message = "out of memory on " + deviceName(device) +
                        " allocating " + std::to_string(bytes) + " bytes: ";
  size_t freeBytes = 0;
  size_t totalBytes = 0;
  if (CUresult result = state.driver->cuMemGetInfo(&freeBytes, &totalBytes))
    return message + "the free bytes are unknown (" +
           state.driver->failure("cuMemGetInfo", result) + ")";
  return message + std::to_string(freeBytes) + " bytes free of " +
         std::to_string(totalBytes) + " (lazyc's buffers hold " +
         std::to_string(counters.bytes_in_use) + ")";
}

lazyrt_allocator_stats CachingAllocator::stats() {
  std::lock_guard<std::mutex> lock(mutex);
  return counters;
}

void CachingAllocator::resetPeak() {
  std::lock_guard<std::mutex> lock(mutex);
  counters.peak_bytes_in_use = counters.bytes_in_use;
}

void *CachingAllocator::allocate(size_t bytes) {
  return lazyrt_cuda_alloc(device, bytes);
}

void CachingAllocator::deallocate(void *block) {
  lazyrt_cuda_free(device, block);
}

CachingAllocator &cuda::allocatorFor(int device) {
  static std::mutex mutex;
  // Never destroyed: blocks may be freed during static destruction.
  static auto *allocators =
      new std::unordered_map<int, std::unique_ptr<CachingAllocator>>();
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<CachingAllocator> &allocator = (*allocators)[device];
  if (!allocator)
    allocator = std::make_unique<CachingAllocator>(device);
  return *allocator;
}

lazyc::DeviceAllocator &lazyc::cudaAllocator(int index) {
  return allocatorFor(index);
}

extern "C" {

void *lazyrt_cuda_alloc(int32_t device, size_t bytes) {
  std::string error;
  void *block = allocatorFor(device).allocate(bytes, error);
  if (!block)
    setLastError("lazyrt_cuda_alloc: " + error);
  return block;
}

int32_t lazyrt_cuda_free(int32_t device, void *block) {
  if (!block)
    return 0;
  if (std::string error = allocatorFor(device).release(block); !error.empty()) {
    setLastError("lazyrt_cuda_free: " + error);
    return -1;
  }
  return 0;
}

lazyrt_allocator_stats lazyrt_cuda_get_allocator_stats(int32_t device) {
  return allocatorFor(device).stats();
}

void lazyrt_cuda_reset_peak_bytes_in_use(int32_t device) {
  allocatorFor(device).resetPeak();
}

int32_t lazyrt_cuda_empty_cache(int32_t device) {
  if (std::string error = allocatorFor(device).emptyCache(); !error.empty()) {
    setLastError("lazyrt_cuda_empty_cache: " + error);
    return -1;
  }
  return 0;
}

} // extern "C"
