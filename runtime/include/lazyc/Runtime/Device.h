//===- Device.h - Devices shared by every layer -----------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares Device (where a tensor lives and its trace runs: one
// kind per compile target, and an index) and the allocator interface every
// device's buffers come from. Like DType it is the lowest layer (standard
// library only): the graph, the targets and the public API name devices the
// same way.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_DEVICE_H
#define LAZYC_RUNTIME_DEVICE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace lazyc {

/// A device tensors live on and traces run on. Four bytes: every recorded
/// node carries one.
class Device {
public:
  /// One kind per compile target (lazyc::jit::Target).
  enum class Kind : std::uint8_t { CPU, CUDA };
  static constexpr int kNumKinds = 2;

  /// The CPU (the default device).
  constexpr Device() = default;
  static constexpr Device cpu() { return Device(); }
  /// NVIDIA GPU `index`. Any index can be named; one the machine lacks
  /// (a negative one included) is reported when a tensor is made there.
  static constexpr Device cuda(int index = 0) {
    return Device(Kind::CUDA, index);
  }

  constexpr Kind kind() const { return deviceKind; }
  constexpr int index() const { return deviceIndex; }
  /// "cpu", "cuda:0".
  std::string str() const {
    return deviceKind == Kind::CPU ? std::string("cpu")
                                   : std::string(kindName(deviceKind)) + ":" +
                                         std::to_string(deviceIndex);
  }
  /// "cpu", "cuda".
  static constexpr const char *kindName(Kind kind) {
    return kind == Kind::CPU ? "cpu" : "cuda";
  }

  constexpr bool operator==(const Device &other) const = default;

private:
  // Indices beyond int16 (no machine has them) are kept as -1: still a
  // device that does not exist.
  constexpr Device(Kind kind, int index)
      : deviceKind(kind), deviceIndex(index >= INT16_MIN && index <= INT16_MAX
                                          ? static_cast<std::int16_t>(index)
                                          : std::int16_t(-1)) {}

  Kind deviceKind = Kind::CPU;
  std::int16_t deviceIndex = 0;
};

/// Where one device's buffers come from (each target provides one).
class DeviceAllocator {
public:
  virtual ~DeviceAllocator() = default;
  /// A block of at least `bytes` bytes, or null when there is no memory (or
  /// no device).
  virtual void *allocate(std::size_t bytes) = 0;
  /// Returns a block from allocate() (null is ignored).
  virtual void deallocate(void *block) = 0;
};

/// The CPU's allocator: lazyrt_alloc and lazyrt_free (Runtime.h).
DeviceAllocator &cpuAllocator();

/// CUDA device `index`'s allocator: lazyrt_cuda_alloc and lazyrt_cuda_free
/// (Cuda.h). Failures set lazyrt_get_last_error().
DeviceAllocator &cudaAllocator(int index);

} // namespace lazyc

#endif // LAZYC_RUNTIME_DEVICE_H
