//===- Transfers.cpp - Copies between host and device memory --------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the copies of Cuda.h and its page-locked host memory.
// Every copy is queued on the device's stream, behind the work already
// there. Copies that touch host memory return when they are done, so the
// caller may reuse or read its host buffer at once; copies within a device
// stay queued.
//
// Host buffers are copied from and to directly: the driver stages pageable
// memory through its own pinned buffers. The runtime keeps no staging
// buffers of its own; a program that copies often can allocate its host
// buffers with lazyrt_cuda_host_alloc instead.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "lazyc/Runtime/Cuda.h"

#include <algorithm>

using namespace lazyc::runtime;
using namespace lazyc::runtime::cuda;

namespace {

/// Device `device` with its context current, or null after setting the last
/// error, prefixed by `caller`.
DeviceState *deviceFor(const char *caller, int device) {
  std::string whyNot;
  DeviceState *state = useDevice(device, whyNot);
  if (!state)
    setLastError(std::string(caller) + ": " + whyNot);
  return state;
}

/// Sets the last error for the driver call `call` of `caller` on `state`'s
/// device, and returns -1.
int32_t failed(const char *caller, const DeviceState &state, const char *call,
               CUresult result) {
  setLastError(std::string(caller) + ": " + deviceName(state.index) + ": " +
               state.driver->failure(call, result));
  return -1;
}

/// Waits for the device's stream after a copy that touches host memory.
int32_t finish(const char *caller, const DeviceState &state) {
  if (CUresult result = state.driver->cuStreamSynchronize(state.stream))
    return failed(caller, state, "cuStreamSynchronize", result);
  // An aborted collective ends without a fault: what was copied after it is
  // not a result.
  if (std::string failure = takeCollectiveFailure(state.index);
      !failure.empty()) {
    setLastError(std::string(caller) + ": " + deviceName(state.index) + ": " +
                 failure);
    return -1;
  }
  return 0;
}

CUdeviceptr devicePointer(const void *pointer) {
  return reinterpret_cast<CUdeviceptr>(pointer);
}

} // namespace

extern "C" {

int32_t lazyrt_cuda_copy_to_device(int32_t device, void *to, const void *from,
                                   size_t bytes) {
  const char *caller = "lazyrt_cuda_copy_to_device";
  DeviceState *state = deviceFor(caller, device);
  if (!state)
    return -1;
  if (!bytes)
    return 0;
  if (CUresult result = state->driver->cuMemcpyHtoDAsync(
          devicePointer(to), from, bytes, state->stream))
    return failed(caller, *state, "cuMemcpyHtoDAsync", result);
  // A page-locked source is read by the copy engine while the copy runs;
  // waiting lets the caller reuse any source at once.
  return finish(caller, *state);
}

int32_t lazyrt_cuda_copy_to_host(int32_t device, void *to, const void *from,
                                 size_t bytes) {
  const char *caller = "lazyrt_cuda_copy_to_host";
  DeviceState *state = deviceFor(caller, device);
  if (!state)
    return -1;
  if (!bytes)
    return 0;
  if (CUresult result = state->driver->cuMemcpyDtoHAsync(
          to, devicePointer(from), bytes, state->stream))
    return failed(caller, *state, "cuMemcpyDtoHAsync", result);
  return finish(caller, *state);
}

int32_t lazyrt_cuda_copy_on_device(int32_t device, void *to, const void *from,
                                   size_t bytes) {
  const char *caller = "lazyrt_cuda_copy_on_device";
  DeviceState *state = deviceFor(caller, device);
  if (!state)
    return -1;
  if (!bytes)
    return 0;
  if (CUresult result = state->driver->cuMemcpyDtoDAsync(
          devicePointer(to), devicePointer(from), bytes, state->stream))
    return failed(caller, *state, "cuMemcpyDtoDAsync", result);
  return 0;
}

void *lazyrt_cuda_host_alloc(size_t bytes) {
  const char *caller = "lazyrt_cuda_host_alloc";
  DeviceState *state = deviceFor(caller, currentDevice());
  if (!state)
    return nullptr;
  void *block = nullptr;
  // Portable: page-locked for every device's context, not just this one.
  if (CUresult result = state->driver->cuMemHostAlloc(
          &block, std::max<size_t>(bytes, 1), CU_MEMHOSTALLOC_PORTABLE)) {
    failed(caller, *state, "cuMemHostAlloc", result);
    return nullptr;
  }
  return block;
}

int32_t lazyrt_cuda_host_free(void *block) {
  if (!block)
    return 0;
  const char *caller = "lazyrt_cuda_host_free";
  DeviceState *state = deviceFor(caller, currentDevice());
  if (!state)
    return -1;
  if (CUresult result = state->driver->cuMemFreeHost(block))
    return failed(caller, *state, "cuMemFreeHost", result);
  return 0;
}

} // extern "C"
