//===- MgpuAbi.cpp - The mgpu* entry points of MLIR's GPU lowering --------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the mgpu* functions that host code lowered by MLIR
// 22's gpu-to-llvm calls (the same names and signatures as upstream's
// CudaRuntimeWrappers.cpp, which Debian does not ship), on lazyc's devices:
//
//   - a stream is a device's one stream: mgpuStreamCreate returns the
//     current device's, mgpuStreamDestroy does nothing, and a null stream
//     means the current device's;
//   - memory comes from the caching allocator (Allocator.h);
//   - an event only remembers the device it was recorded on: with one
//     stream per device, work queued after a record is already ordered
//     after it, so waiting on an event of the same device is free.
//
// Generated code cannot see errors, so the first one on a thread is
// recorded for lazyrt_take_cuda_error. Until it is taken, calls that would
// queue work or create something do nothing (and return null), so a failed
// module load or allocation does not turn into a launch with a null kernel
// or a copy to a null buffer. Calls that free, release, record or wait
// still run: buffers return to the cache, and work queued before the
// failure finishes before the compiled function returns.
//
//===----------------------------------------------------------------------===//

#include "Allocator.h"
#include "Driver.h"

#include "lazyc/Runtime/Cuda.h"

#include <climits>
#include <cstdio>
#include <new>
#include <string>
#include <utility>

using namespace lazyc::runtime;
using namespace lazyc::runtime::cuda;

namespace {

/// The error recorded by an mgpu* call on this thread and not yet taken,
/// and the one last taken (whose text the caller reads).
thread_local std::string pendingError;
thread_local bool hasPendingError = false;
thread_local std::string takenError;

/// Records `message` for lazyrt_get_last_error and, unless an earlier one is
/// pending, for lazyrt_take_cuda_error.
void recordError(const std::string &message) {
  setLastError(message);
  if (hasPendingError)
    return;
  pendingError = message;
  hasPendingError = true;
}

void recordError(const char *caller, const std::string &message) {
  recordError(std::string(caller) + ": " + message);
}

void recordFailure(const char *caller, const DeviceState &state,
                   const char *call, CUresult result) {
  recordError(caller, deviceName(state.index) + ": " +
                          state.driver->failure(call, result));
}

/// The index of the device of `stream` (the current device for null), or
/// -1 after recording that the stream is no device's.
int deviceIndexOf(const char *caller, void *stream) {
  if (!stream)
    return currentDevice();
  int index = deviceOfStream(static_cast<CUstream>(stream));
  if (index < 0) {
    char message[128];
    std::snprintf(message, sizeof(message),
                  "stream %p is not a lazyc device's stream", stream);
    recordError(caller, message);
  }
  return index;
}

/// The device of `stream` (the current device for null) with its context
/// current, or null after recording why not.
DeviceState *deviceOf(const char *caller, void *stream) {
  int index = deviceIndexOf(caller, stream);
  if (index < 0)
    return nullptr;
  std::string whyNot;
  DeviceState *state = useDevice(index, whyNot);
  if (!state)
    recordError(caller, whyNot);
  return state;
}

/// What an event handle points at: the device whose stream it was last
/// recorded on, or -1 before its first record.
struct Event {
  int device = -1;
};

/// Waits for the stream of device `index`; records a failure.
void synchronizeDevice(const char *caller, int index) {
  std::string whyNot;
  DeviceState *state = useDevice(index, whyNot);
  if (!state) {
    recordError(caller, whyNot);
    return;
  }
  if (CUresult result = state->driver->cuStreamSynchronize(state->stream))
    recordFailure(caller, *state, "cuStreamSynchronize", result);
}

/// A grid or block size as cuLaunchKernel takes it, or 0 when out of range.
unsigned launchDimension(intptr_t size) {
  return size > 0 && static_cast<uintmax_t>(size) <= UINT_MAX
             ? static_cast<unsigned>(size)
             : 0;
}

/// The dynamic shared memory any kernel may use without asking for more.
constexpr int32_t kDefaultSharedBytes = 48 * 1024;

} // namespace

void lazyc::runtime::cuda::recordGeneratedCodeError(
    const std::string &message) {
  recordError(message);
}

bool lazyc::runtime::cuda::generatedCodeErrorPending() {
  return hasPendingError;
}

extern "C" {

const char *lazyrt_take_cuda_error(void) {
  if (!hasPendingError)
    return nullptr;
  takenError = std::move(pendingError);
  pendingError.clear();
  hasPendingError = false;
  return takenError.c_str();
}

void *mgpuModuleLoad(void *data, size_t /*size*/) {
  const char *caller = "mgpuModuleLoad";
  if (hasPendingError)
    return nullptr;
  DeviceState *state = deviceOf(caller, nullptr);
  if (!state)
    return nullptr;
  CUmodule module = nullptr;
  if (CUresult result = state->driver->cuModuleLoadData(&module, data))
    recordFailure(caller, *state, "cuModuleLoadData", result);
  return module;
}

void *mgpuModuleLoadJIT(void *data, int32_t optimization_level) {
  const char *caller = "mgpuModuleLoadJIT";
  if (hasPendingError)
    return nullptr;
  DeviceState *state = deviceOf(caller, nullptr);
  if (!state)
    return nullptr;
  char log[8192] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  // The driver reads option values as pointer-sized integers.
  void *values[] = {
      log, reinterpret_cast<void *>(sizeof(log)),
      reinterpret_cast<void *>(static_cast<intptr_t>(optimization_level))};
  CUmodule module = nullptr;
  if (CUresult result = state->driver->cuModuleLoadDataEx(
          &module, data, sizeof(options) / sizeof(options[0]), options,
          values)) {
    std::string message = deviceName(state->index) + ": " +
                          state->driver->failure("cuModuleLoadDataEx", result);
    std::string jitLog = log;
    while (!jitLog.empty() && (jitLog.back() == '\n' || jitLog.back() == ' '))
      jitLog.pop_back();
    if (!jitLog.empty())
      message += "; the PTX JIT says: " + jitLog;
    recordError(caller, message);
    return nullptr;
  }
  return module;
}

void mgpuModuleUnload(void *module) {
  const char *caller = "mgpuModuleUnload";
  if (!module)
    return;
  DeviceState *state = deviceOf(caller, nullptr);
  if (!state)
    return;
  if (CUresult result =
          state->driver->cuModuleUnload(static_cast<CUmodule>(module)))
    recordFailure(caller, *state, "cuModuleUnload", result);
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  const char *caller = "mgpuModuleGetFunction";
  if (hasPendingError)
    return nullptr;
  if (!module) {
    recordError(caller,
                std::string("no module to find kernel ") + name + " in");
    return nullptr;
  }
  DeviceState *state = deviceOf(caller, nullptr);
  if (!state)
    return nullptr;
  CUfunction function = nullptr;
  if (CUresult result = state->driver->cuModuleGetFunction(
          &function, static_cast<CUmodule>(module), name)) {
    recordError(caller,
                deviceName(state->index) + ": kernel " + name + ": " +
                    state->driver->failure("cuModuleGetFunction", result));
    return nullptr;
  }
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t grid_x, intptr_t grid_y,
                      intptr_t grid_z, intptr_t block_x, intptr_t block_y,
                      intptr_t block_z, int32_t shared_bytes, void *stream,
                      void **params, void **extra, size_t /*param_count*/) {
  const char *caller = "mgpuLaunchKernel";
  if (hasPendingError)
    return;
  char shape[160];
  std::snprintf(shape, sizeof(shape),
                "grid %ldx%ldx%ld, block %ldx%ldx%ld, %d bytes of shared "
                "memory",
                static_cast<long>(grid_x), static_cast<long>(grid_y),
                static_cast<long>(grid_z), static_cast<long>(block_x),
                static_cast<long>(block_y), static_cast<long>(block_z),
                shared_bytes);
  unsigned grid[3] = {launchDimension(grid_x), launchDimension(grid_y),
                      launchDimension(grid_z)};
  unsigned block[3] = {launchDimension(block_x), launchDimension(block_y),
                       launchDimension(block_z)};
  if (!function || !grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] ||
      !block[2] || shared_bytes < 0) {
    recordError(caller, std::string(function ? "" : "no kernel; ") +
                            "cannot launch with " + shape);
    return;
  }
  DeviceState *state = deviceOf(caller, stream);
  if (!state)
    return;
  const Driver &driver = *state->driver;
  auto kernel = static_cast<CUfunction>(function);
  if (shared_bytes > kDefaultSharedBytes)
    if (CUresult result = driver.cuFuncSetAttribute(
            kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            shared_bytes)) {
      recordError(caller, deviceName(state->index) + ": " +
                              driver.failure("cuFuncSetAttribute", result) +
                              " (" + shape + ")");
      return;
    }
  if (CUresult result = driver.cuLaunchKernel(
          kernel, grid[0], grid[1], grid[2], block[0], block[1], block[2],
          static_cast<unsigned>(shared_bytes), state->stream, params, extra))
    recordError(caller, deviceName(state->index) + ": " +
                            driver.failure("cuLaunchKernel", result) + " (" +
                            shape + ")");
}

void *mgpuStreamCreate(void) {
  if (hasPendingError)
    return nullptr;
  DeviceState *state = deviceOf("mgpuStreamCreate", nullptr);
  return state ? static_cast<CUstream>(state->stream) : nullptr;
}

void mgpuStreamDestroy(void * /*stream*/) {}

void mgpuStreamSynchronize(void *stream) {
  const char *caller = "mgpuStreamSynchronize";
  DeviceState *state = deviceOf(caller, stream);
  if (!state)
    return;
  if (CUresult result = state->driver->cuStreamSynchronize(state->stream))
    recordFailure(caller, *state, "cuStreamSynchronize", result);
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  const char *caller = "mgpuStreamWaitEvent";
  if (!event)
    return;
  int recordedOn = static_cast<Event *>(event)->device;
  if (recordedOn < 0)
    return;
  DeviceState *state = deviceOf(caller, stream);
  // The same stream: its order already puts the wait after the record.
  if (!state || state->index == recordedOn)
    return;
  synchronizeDevice(caller, recordedOn);
}

void *mgpuEventCreate(void) {
  if (hasPendingError)
    return nullptr;
  auto *event = new (std::nothrow) Event();
  if (!event)
    recordError("mgpuEventCreate", "out of host memory");
  return event;
}

void mgpuEventDestroy(void *event) { delete static_cast<Event *>(event); }

void mgpuEventSynchronize(void *event) {
  if (event && static_cast<Event *>(event)->device >= 0)
    synchronizeDevice("mgpuEventSynchronize",
                      static_cast<Event *>(event)->device);
}

void mgpuEventRecord(void *event, void *stream) {
  const char *caller = "mgpuEventRecord";
  if (!event)
    return;
  int index = deviceIndexOf(caller, stream);
  if (index < 0)
    return;
  static_cast<Event *>(event)->device = index;
}

void *mgpuMemAlloc(uint64_t bytes, void *stream, bool host_shared) {
  const char *caller = "mgpuMemAlloc";
  if (hasPendingError)
    return nullptr;
  if (host_shared) {
    recordError(caller, "host-shared memory (gpu.alloc host_shared) is not "
                        "supported: lazyc allocates device memory only");
    return nullptr;
  }
  DeviceState *state = deviceOf(caller, stream);
  if (!state)
    return nullptr;
  std::string error;
  void *block = allocatorFor(state->index).allocate(bytes, error);
  if (!block)
    recordError(caller, error);
  return block;
}

void mgpuMemFree(void *block, void *stream) {
  const char *caller = "mgpuMemFree";
  if (!block)
    return;
  int index = deviceIndexOf(caller, stream);
  if (index < 0)
    return;
  if (std::string error = allocatorFor(index).release(block); !error.empty())
    recordError(caller, error);
}

void mgpuMemcpy(void *to, void *from, size_t bytes, void *stream) {
  const char *caller = "mgpuMemcpy";
  if (hasPendingError || !bytes)
    return;
  DeviceState *state = deviceOf(caller, stream);
  if (!state)
    return;
  // Unified addressing tells the driver which side is host memory.
  if (CUresult result = state->driver->cuMemcpyAsync(
          reinterpret_cast<CUdeviceptr>(to),
          reinterpret_cast<CUdeviceptr>(from), bytes, state->stream))
    recordFailure(caller, *state, "cuMemcpyAsync", result);
}

void mgpuMemset32(void *to, uint32_t value, size_t count, void *stream) {
  const char *caller = "mgpuMemset32";
  if (hasPendingError || !count)
    return;
  DeviceState *state = deviceOf(caller, stream);
  if (!state)
    return;
  if (CUresult result = state->driver->cuMemsetD32Async(
          reinterpret_cast<CUdeviceptr>(to), value, count, state->stream))
    recordFailure(caller, *state, "cuMemsetD32Async", result);
}

void mgpuMemset16(void *to, uint16_t value, size_t count, void *stream) {
  const char *caller = "mgpuMemset16";
  if (hasPendingError || !count)
    return;
  DeviceState *state = deviceOf(caller, stream);
  if (!state)
    return;
  if (CUresult result = state->driver->cuMemsetD16Async(
          reinterpret_cast<CUdeviceptr>(to), value, count, state->stream))
    recordFailure(caller, *state, "cuMemsetD16Async", result);
}

void mgpuSetDefaultDevice(int32_t device) {
  lazyrt_cuda_set_current_device(device);
}

} // extern "C"
