//===- Allocator.h - The caching allocator of device memory -----*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the allocator of a CUDA device's memory: the device
// side of lazyrt_cuda_alloc/lazyrt_cuda_free and of mgpuMemAlloc/mgpuMemFree.
//
// Private to the runtime: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_CUDA_ALLOCATOR_H
#define LAZYC_RUNTIME_CUDA_ALLOCATOR_H

#include "Driver.h"

#include "lazyc/Runtime/Device.h"
#include "lazyc/Runtime/Runtime.h"

#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace lazyc::runtime::cuda {

/// One device's memory, in size classes (SizeClass.h, 512-byte granules),
/// with freed blocks cached per class. All of a device's work is queued on
/// its one stream, so a freed block can be handed out again at once: work
/// that uses it next is queued behind the work that used it before. Cached
/// blocks return to the driver only when the cache is emptied (explicitly,
/// or when the device runs out of memory).
class CachingAllocator final : public lazyc::DeviceAllocator {
public:
  explicit CachingAllocator(int device) : device(device) {}

  /// A block of at least `bytes` bytes, or null with `error` set.
  void *allocate(size_t bytes, std::string &error);
  /// Returns a live block to the cache; "" or why it cannot.
  std::string release(void *block);
  /// Waits for the device's stream, then frees every cached block; "" or
  /// why it could not.
  std::string emptyCache();

  lazyrt_allocator_stats stats();
  void resetPeak();

  /// lazyc::DeviceAllocator: failures set the thread's last error.
  void *allocate(size_t bytes) override;
  void deallocate(void *block) override;

private:
  /// emptyCache with the mutex held and the device's context current.
  std::string emptyCacheLocked(DeviceState &state);
  /// "out of memory on cuda:0 allocating ... bytes: ... free ...".
  std::string outOfMemory(DeviceState &state, size_t bytes);

  int device;
  std::mutex mutex;
  /// Free blocks by class size.
  std::unordered_map<size_t, std::vector<CUdeviceptr>> cache;
  /// The class size of each block handed out.
  std::unordered_map<CUdeviceptr, size_t> live;
  lazyrt_allocator_stats counters = {};
};

/// The allocator of device `device` (created on first use, never destroyed).
CachingAllocator &allocatorFor(int device);

} // namespace lazyc::runtime::cuda

#endif // LAZYC_RUNTIME_CUDA_ALLOCATOR_H
