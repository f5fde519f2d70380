//===- Driver.h - The CUDA driver, loaded at run time -----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the runtime's access to the CUDA driver API: the entry
// points it calls, resolved with dlopen/dlsym when first needed (the runtime
// never links libcuda, so it loads on machines without an NVIDIA driver),
// and the devices, each with its primary context and the one stream all of
// its work is queued on. cuda.h supplies the declarations only.
//
// Failures are messages (std::string, empty on success) that name the
// driver call and the driver's error name.
//
// Private to the runtime: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_CUDA_DRIVER_H
#define LAZYC_RUNTIME_CUDA_DRIVER_H

#include <cuda.h>

#include <atomic>
#include <initializer_list>
#include <string>

namespace lazyc::runtime {
/// cpu/Allocator.cpp: sets the thread's last error (lazyrt_get_last_error).
void setLastError(std::string message);
} // namespace lazyc::runtime

namespace lazyc::runtime::cuda {

/// The driver entry points the runtime calls. Where cuda.h maps a name to a
/// versioned symbol (cuMemAlloc to cuMemAlloc_v2), the member is declared
/// and resolved through the same macro, so it gets the symbol and the type
/// cuda.h pairs with the name.
#define LAZYC_CUDA_DRIVER_ENTRY_POINTS(X)                                      \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxSetCurrent)                                                           \
  X(cuStreamCreate)                                                            \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventRecord)                                                             \
  X(cuEventQuery)                                                              \
  X(cuEventDestroy)                                                            \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemGetInfo)                                                              \
  X(cuMemHostAlloc)                                                            \
  X(cuMemFreeHost)                                                             \
  X(cuMemcpyAsync)                                                             \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemsetD16Async)                                                          \
  X(cuMemsetD32Async)                                                          \
  X(cuMemsetD2D16Async)                                                        \
  X(cuMemsetD2D32Async)                                                        \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleGetFunction)                                                       \
  X(cuModuleUnload)                                                            \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)

struct Driver {
#define LAZYC_CUDA_DECLARE_ENTRY_POINT(name) decltype(&::name) name = nullptr;
  LAZYC_CUDA_DRIVER_ENTRY_POINTS(LAZYC_CUDA_DECLARE_ENTRY_POINT)
#undef LAZYC_CUDA_DECLARE_ENTRY_POINT

  /// "cuMemAlloc failed: CUDA_ERROR_INVALID_VALUE (invalid argument)".
  std::string failure(const char *call, CUresult result) const;
};

/// A device as the runtime uses it, set up on first use.
struct DeviceState {
  /// The loaded driver.
  const Driver *driver = nullptr;
  int index = 0;
  CUdevice handle = 0;
  /// The device's primary context (retained once, never released: it lives
  /// as long as the process).
  CUcontext context = nullptr;
  /// Every kernel, copy and memset of this device is queued here.
  std::atomic<CUstream> stream = nullptr;
};

/// The driver, loaded and initialized (cuInit) on the first call; null, with
/// `whyNot` set, when it cannot be used ("libcuda.so.1 not found ...").
const Driver *loadDriver(std::string &whyNot);

/// Opens a library of the CUDA toolkit (cuBLASLt, NCCL): the file the
/// environment variable `overrideVariable` names if it is set; else the
/// first of `names` found through the loader's path, then in `directories`
/// under $LAZYC_CUDA_PATH, $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH and
/// /usr/local/cuda. Null when none loads, with `whyNot` saying what was
/// tried: "cuBLASLt not found (tried ...; LAZYC_CUBLASLT names the library
/// file)".
void *openToolkitLibrary(const char *what, const char *overrideVariable,
                         std::initializer_list<const char *> names,
                         std::initializer_list<const char *> directories,
                         std::string &whyNot);

/// The number of devices, or -1 with `whyNot` set.
int deviceCount(std::string &whyNot);

/// Device `index` with its context current on the calling thread (the
/// context is retained and the stream created on the first call); null,
/// with `whyNot` set, when it cannot be used ("no CUDA device 3 (this
/// machine has 1)").
DeviceState *useDevice(int index, std::string &whyNot);

/// The index of the device whose stream is `stream`, or -1.
int deviceOfStream(CUstream stream);

/// The device this thread's mgpu* calls use when given no stream.
int currentDevice();

/// "cuda:3".
std::string deviceName(int index);

/// MgpuAbi.cpp: records the first failure of a call from generated code on
/// this thread, for lazyrt_take_cuda_error.
void recordGeneratedCodeError(const std::string &message);

/// Whether such a failure is recorded and not yet taken: generated code's
/// calls then queue nothing.
bool generatedCodeErrorPending();

/// Collectives.cpp: why work on device `index` failed without the driver
/// knowing (a collective that timed out and was aborted), taken once; ""
/// when nothing failed. lazyrt_cuda_synchronize and the copies to the host
/// report it.
std::string takeCollectiveFailure(int index);

} // namespace lazyc::runtime::cuda

#endif // LAZYC_RUNTIME_CUDA_DRIVER_H
