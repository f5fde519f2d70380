//===- Driver.cpp - The CUDA driver and devices ---------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the loading of the CUDA driver (Driver.h) and the
// device queries of Cuda.h.
//
// The driver is loaded once, on first use: dlopen of libcuda.so.1 (or of
// LAZYC_CUDA_DRIVER), dlsym of every entry point, cuInit, and the device
// count. A failure is kept and reported by every later call, so the
// process never retries a missing driver. A device is set up on its first
// use: its primary context (the one the CUDA runtime and other libraries
// share) is retained and its stream created; every use then makes the
// context current on the calling thread, since the JIT may call from any
// thread.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "lazyc/Runtime/Cuda.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

using namespace lazyc::runtime;
using namespace lazyc::runtime::cuda;

#define LAZYC_CUDA_STRINGIFY(name) #name
/// The symbol name `name` expands to ("cuMemAlloc_v2" for cuMemAlloc).
#define LAZYC_CUDA_SYMBOL(name) LAZYC_CUDA_STRINGIFY(name)

namespace {

/// Device `index` and its setup, done once.
struct DeviceSlot {
  std::once_flag setUp;
  /// Why the device cannot be used; empty when it can.
  std::string error;
  DeviceState state;
};

/// The loaded driver and its devices. Never destroyed: the driver tears
/// contexts down itself at exit, and runtime calls may come from static
/// destructors.
class CudaState {
public:
  CudaState() { loadError = load(); }

  /// Why the driver cannot be used; empty when it can.
  std::string loadError;
  Driver driver;
  int count = 0;
  std::unique_ptr<DeviceSlot[]> devices;

private:
  std::string load();
};

std::string CudaState::load() {
  const char *override = std::getenv("LAZYC_CUDA_DRIVER");
  bool overridden = override && *override;
  std::string path = overridden ? override : "libcuda.so.1";
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    std::string detail = why ? why : "dlopen failed";
    if (overridden)
      return "the CUDA driver " + path +
             " (named by LAZYC_CUDA_DRIVER) could not be loaded: " + detail;
    return "libcuda.so.1 not found (no NVIDIA driver on this machine): " +
           detail;
  }

#define LAZYC_CUDA_RESOLVE_ENTRY_POINT(name)                                   \
  driver.name = reinterpret_cast<decltype(driver.name)>(                       \
      dlsym(library, LAZYC_CUDA_SYMBOL(name)));                                \
  if (!driver.name)                                                            \
    return "the CUDA driver " + path + " lacks " + LAZYC_CUDA_SYMBOL(name) +   \
           " (it is not a CUDA driver, or one older than lazyc needs)";
  LAZYC_CUDA_DRIVER_ENTRY_POINTS(LAZYC_CUDA_RESOLVE_ENTRY_POINT)
#undef LAZYC_CUDA_RESOLVE_ENTRY_POINT

  if (CUresult result = driver.cuInit(0))
    return driver.failure("cuInit", result);
  if (CUresult result = driver.cuDeviceGetCount(&count))
    return driver.failure("cuDeviceGetCount", result);
  devices = std::make_unique<DeviceSlot[]>(count);
  return "";
}

CudaState &cudaState() {
  static CudaState *instance = new CudaState();
  return *instance;
}

/// Retains the device's primary context, makes it current and creates the
/// device's stream.
std::string setUp(const Driver &driver, int index, DeviceState &state) {
  state.driver = &driver;
  state.index = index;
  std::string prefix = deviceName(index) + ": ";
  if (CUresult result = driver.cuDeviceGet(&state.handle, index))
    return prefix + driver.failure("cuDeviceGet", result);
  if (CUresult result =
          driver.cuDevicePrimaryCtxRetain(&state.context, state.handle))
    return prefix + driver.failure("cuDevicePrimaryCtxRetain", result);
  if (CUresult result = driver.cuCtxSetCurrent(state.context))
    return prefix + driver.failure("cuCtxSetCurrent", result);
  // Non-blocking: neither waits for the other with work other libraries
  // queue on the legacy default stream.
  CUstream stream = nullptr;
  if (CUresult result = driver.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING))
    return prefix + driver.failure("cuStreamCreate", result);
  state.stream = stream;
  return "";
}

thread_local int currentDeviceIndex = 0;

/// "no CUDA device 3 (this machine has 1)", or "" when `index` names a
/// device of the loaded driver.
std::string checkIndex(int index) {
  int count = cudaState().count;
  if (index >= 0 && index < count)
    return "";
  return "no CUDA device " + std::to_string(index) + " (this machine has " +
         std::to_string(count) + ")";
}

/// The driver and the handle of device `index` (no context needed), or
/// null after setting the last error, prefixed by `caller`.
const Driver *deviceHandle(const char *caller, int index, CUdevice &handle) {
  std::string whyNot;
  const Driver *driver = loadDriver(whyNot);
  if (driver)
    whyNot = checkIndex(index);
  if (whyNot.empty())
    if (CUresult result = driver->cuDeviceGet(&handle, index))
      whyNot = driver->failure("cuDeviceGet", result);
  if (whyNot.empty())
    return driver;
  setLastError(std::string(caller) + ": " + whyNot);
  return nullptr;
}

/// Copies `text` into `buffer` of `bytes` bytes, truncated and
/// NUL-terminated (nothing when the buffer is null or empty).
void writeText(const std::string &text, char *buffer, size_t bytes) {
  if (buffer && bytes)
    std::snprintf(buffer, bytes, "%s", text.c_str());
}

} // namespace

void *lazyc::runtime::cuda::openToolkitLibrary(
    const char *what, const char *overrideVariable,
    std::initializer_list<const char *> names,
    std::initializer_list<const char *> directories, std::string &whyNot) {
  std::vector<std::string> candidates;
  if (const char *file = std::getenv(overrideVariable); file && *file) {
    candidates.push_back(file);
  } else {
    candidates.assign(names.begin(), names.end());
    std::vector<std::string> roots;
    for (const char *variable :
         {"LAZYC_CUDA_PATH", "CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
      if (const char *root = std::getenv(variable); root && *root)
        roots.push_back(root);
    roots.push_back("/usr/local/cuda");
    for (const std::string &root : roots)
      for (const char *directory : directories)
        for (const char *name : names)
          candidates.push_back(root + "/" + directory + "/" + name);
  }
  std::string tried;
  for (const std::string &candidate : candidates) {
    if (void *library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL))
      return library;
    tried += (tried.empty() ? "" : ", ") + candidate;
  }
  whyNot = std::string(what) + " not found (tried " + tried + "; " +
           overrideVariable + " names the library file)";
  return nullptr;
}

std::string Driver::failure(const char *call, CUresult result) const {
  const char *name = nullptr;
  const char *description = nullptr;
  std::string message = std::string(call) + " failed: ";
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    return message + "CUresult " + std::to_string(result);
  message += name;
  if (cuGetErrorString(result, &description) == CUDA_SUCCESS && description)
    message += std::string(" (") + description + ")";
  return message;
}

const Driver *cuda::loadDriver(std::string &whyNot) {
  CudaState &state = cudaState();
  if (!state.loadError.empty()) {
    whyNot = state.loadError;
    return nullptr;
  }
  return &state.driver;
}

int cuda::deviceCount(std::string &whyNot) {
  if (!loadDriver(whyNot))
    return -1;
  return cudaState().count;
}

DeviceState *cuda::useDevice(int index, std::string &whyNot) {
  const Driver *driver = loadDriver(whyNot);
  if (!driver)
    return nullptr;
  whyNot = checkIndex(index);
  if (!whyNot.empty())
    return nullptr;
  DeviceSlot &slot = cudaState().devices[index];
  std::call_once(slot.setUp,
                 [&] { slot.error = setUp(*driver, index, slot.state); });
  if (!slot.error.empty()) {
    whyNot = slot.error;
    return nullptr;
  }
  // A cheap thread-local switch in the driver: another library may have
  // made its own context current on this thread since the last call.
  if (CUresult result = driver->cuCtxSetCurrent(slot.state.context)) {
    whyNot =
        deviceName(index) + ": " + driver->failure("cuCtxSetCurrent", result);
    return nullptr;
  }
  return &slot.state;
}

int cuda::deviceOfStream(CUstream stream) {
  CudaState &state = cudaState();
  if (!stream || !state.loadError.empty())
    return -1;
  for (int index = 0; index < state.count; ++index)
    if (state.devices[index].state.stream == stream)
      return index;
  return -1;
}

int cuda::currentDevice() { return currentDeviceIndex; }

std::string cuda::deviceName(int index) {
  return "cuda:" + std::to_string(index);
}

extern "C" {

int32_t lazyrt_cuda_available(int32_t device, char *why, size_t why_bytes) {
  std::string whyNot;
  if (loadDriver(whyNot))
    whyNot = checkIndex(device);
  writeText(whyNot, why, why_bytes);
  return whyNot.empty() ? 1 : 0;
}

int32_t lazyrt_cuda_device_count(void) {
  std::string whyNot;
  int count = deviceCount(whyNot);
  if (count < 0)
    setLastError("lazyrt_cuda_device_count: " + whyNot);
  return count;
}

int32_t lazyrt_cuda_device_name(int32_t device, char *name, size_t name_bytes) {
  CUdevice handle = 0;
  const Driver *driver =
      deviceHandle("lazyrt_cuda_device_name", device, handle);
  if (!driver)
    return -1;
  char text[256] = {};
  if (CUresult result = driver->cuDeviceGetName(text, sizeof(text), handle)) {
    setLastError("lazyrt_cuda_device_name: " +
                 driver->failure("cuDeviceGetName", result));
    return -1;
  }
  writeText(text, name, name_bytes);
  return 0;
}

int32_t lazyrt_cuda_compute_capability(int32_t device, int32_t *major,
                                       int32_t *minor) {
  CUdevice handle = 0;
  const Driver *driver =
      deviceHandle("lazyrt_cuda_compute_capability", device, handle);
  if (!driver)
    return -1;
  int values[2] = {};
  CUdevice_attribute attributes[2] = {
      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR};
  for (int i = 0; i < 2; ++i)
    if (CUresult result =
            driver->cuDeviceGetAttribute(&values[i], attributes[i], handle)) {
      setLastError("lazyrt_cuda_compute_capability: " +
                   driver->failure("cuDeviceGetAttribute", result));
      return -1;
    }
  *major = values[0];
  *minor = values[1];
  return 0;
}

int32_t lazyrt_cuda_driver_version(int32_t *version) {
  std::string whyNot;
  const Driver *driver = loadDriver(whyNot);
  if (!driver) {
    setLastError("lazyrt_cuda_driver_version: " + whyNot);
    return -1;
  }
  int value = 0;
  if (CUresult result = driver->cuDriverGetVersion(&value)) {
    setLastError("lazyrt_cuda_driver_version: " +
                 driver->failure("cuDriverGetVersion", result));
    return -1;
  }
  *version = value;
  return 0;
}

void lazyrt_cuda_set_current_device(int32_t device) {
  currentDeviceIndex = device;
}

int32_t lazyrt_cuda_get_current_device(void) { return currentDeviceIndex; }

void *lazyrt_cuda_stream(int32_t device) {
  std::string whyNot;
  DeviceState *state = useDevice(device, whyNot);
  if (!state) {
    setLastError("lazyrt_cuda_stream: " + whyNot);
    return nullptr;
  }
  return state->stream;
}

int32_t lazyrt_cuda_synchronize(int32_t device) {
  std::string whyNot;
  DeviceState *state = useDevice(device, whyNot);
  if (!state) {
    setLastError("lazyrt_cuda_synchronize: " + whyNot);
    return -1;
  }
  if (CUresult result = state->driver->cuStreamSynchronize(state->stream)) {
    setLastError("lazyrt_cuda_synchronize: " + deviceName(device) + ": " +
                 state->driver->failure("cuStreamSynchronize", result));
    return -1;
  }
  // An aborted collective ends without a fault: its output is not a result.
  if (std::string failure = takeCollectiveFailure(device); !failure.empty()) {
    setLastError("lazyrt_cuda_synchronize: " + deviceName(device) + ": " +
                 failure);
    return -1;
  }
  return 0;
}

} // extern "C"
