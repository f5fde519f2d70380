//===- CudaStubs.cpp - The CUDA entry points of a build without CUDA ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements every entry point of Cuda.h for a runtime built
// without cuda.h (LAZYC_ENABLE_CUDA off, or no CUDA toolkit found at
// configure time; runtime/CMakeLists.txt picks this file instead of
// runtime/cuda/). Each one fails the way the real one reports a missing
// driver, saying CUDA support was not built, so programs and generated code
// link and run the same in both builds.
//
//===----------------------------------------------------------------------===//

#include "distributed/Agreement.h"
#include "lazyc/Runtime/Cuda.h"
#include "lazyc/Runtime/Device.h"

#include <atomic>
#include <cstdio>
#include <string>
#include <utility>

namespace lazyc::runtime {
/// cpu/Allocator.cpp: sets the thread's last error (lazyrt_get_last_error).
void setLastError(std::string message);
} // namespace lazyc::runtime

using lazyc::runtime::setLastError;

namespace {

constexpr const char *kNotBuilt =
    "lazyc was built without CUDA support (LAZYC_ENABLE_CUDA was off, or "
    "cuda.h was not found when it was configured)";

thread_local int currentDeviceIndex = 0;

/// As in runtime/cuda/MgpuAbi.cpp: the first mgpu* failure of the thread,
/// until lazyrt_take_cuda_error takes it.
thread_local std::string pendingError;
thread_local bool hasPendingError = false;
thread_local std::string takenError;

/// Sets the last error "caller: not built".
void notBuilt(const char *caller) {
  setLastError(std::string(caller) + ": " + kNotBuilt);
}

/// notBuilt, also recorded for lazyrt_take_cuda_error.
void recordNotBuilt(const char *caller) {
  notBuilt(caller);
  if (hasPendingError)
    return;
  pendingError = std::string(caller) + ": " + kNotBuilt;
  hasPendingError = true;
}

/// No device memory to hand out (so none to take back).
class NoCudaAllocator final : public lazyc::DeviceAllocator {
public:
  void *allocate(size_t) override {
    notBuilt("lazyrt_cuda_alloc");
    return nullptr;
  }
  void deallocate(void *) override {}
};

} // namespace

lazyc::DeviceAllocator &lazyc::cudaAllocator(int) {
  static NoCudaAllocator allocator;
  return allocator;
}

extern "C" {

int32_t lazyrt_cuda_available(int32_t, char *why, size_t why_bytes) {
  if (why && why_bytes)
    std::snprintf(why, why_bytes, "%s", kNotBuilt);
  return 0;
}

int32_t lazyrt_cuda_device_count(void) {
  notBuilt("lazyrt_cuda_device_count");
  return -1;
}

int32_t lazyrt_cuda_device_name(int32_t, char *, size_t) {
  notBuilt("lazyrt_cuda_device_name");
  return -1;
}

int32_t lazyrt_cuda_compute_capability(int32_t, int32_t *, int32_t *) {
  notBuilt("lazyrt_cuda_compute_capability");
  return -1;
}

int32_t lazyrt_cuda_driver_version(int32_t *) {
  notBuilt("lazyrt_cuda_driver_version");
  return -1;
}

void lazyrt_cuda_set_current_device(int32_t device) {
  currentDeviceIndex = device;
}

int32_t lazyrt_cuda_get_current_device(void) { return currentDeviceIndex; }

void *lazyrt_cuda_stream(int32_t) {
  notBuilt("lazyrt_cuda_stream");
  return nullptr;
}

int32_t lazyrt_cuda_synchronize(int32_t) {
  notBuilt("lazyrt_cuda_synchronize");
  return -1;
}

void *lazyrt_cuda_alloc(int32_t, size_t) {
  notBuilt("lazyrt_cuda_alloc");
  return nullptr;
}

int32_t lazyrt_cuda_free(int32_t, void *block) {
  if (!block)
    return 0;
  notBuilt("lazyrt_cuda_free");
  return -1;
}

lazyrt_allocator_stats lazyrt_cuda_get_allocator_stats(int32_t) { return {}; }

void lazyrt_cuda_reset_peak_bytes_in_use(int32_t) {}

int32_t lazyrt_cuda_empty_cache(int32_t) {
  notBuilt("lazyrt_cuda_empty_cache");
  return -1;
}

int32_t lazyrt_cuda_copy_to_device(int32_t, void *, const void *, size_t) {
  notBuilt("lazyrt_cuda_copy_to_device");
  return -1;
}

int32_t lazyrt_cuda_copy_to_host(int32_t, void *, const void *, size_t) {
  notBuilt("lazyrt_cuda_copy_to_host");
  return -1;
}

int32_t lazyrt_cuda_copy_on_device(int32_t, void *, const void *, size_t) {
  notBuilt("lazyrt_cuda_copy_on_device");
  return -1;
}

void *lazyrt_cuda_host_alloc(size_t) {
  notBuilt("lazyrt_cuda_host_alloc");
  return nullptr;
}

int32_t lazyrt_cuda_host_free(void *block) {
  if (!block)
    return 0;
  notBuilt("lazyrt_cuda_host_free");
  return -1;
}

const char *lazyrt_take_cuda_error(void) {
  if (!hasPendingError)
    return nullptr;
  takenError = std::move(pendingError);
  pendingError.clear();
  hasPendingError = false;
  return takenError.c_str();
}

void *mgpuModuleLoad(void *, size_t) {
  recordNotBuilt("mgpuModuleLoad");
  return nullptr;
}

void *mgpuModuleLoadJIT(void *, int32_t) {
  recordNotBuilt("mgpuModuleLoadJIT");
  return nullptr;
}

void mgpuModuleUnload(void *) {}

void *mgpuModuleGetFunction(void *, const char *) {
  recordNotBuilt("mgpuModuleGetFunction");
  return nullptr;
}

void mgpuLaunchKernel(void *, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
                      intptr_t, int32_t, void *, void **, void **, size_t) {
  recordNotBuilt("mgpuLaunchKernel");
}

void *mgpuStreamCreate(void) {
  recordNotBuilt("mgpuStreamCreate");
  return nullptr;
}

void mgpuStreamDestroy(void *) {}

void mgpuStreamSynchronize(void *) { recordNotBuilt("mgpuStreamSynchronize"); }

void mgpuStreamWaitEvent(void *, void *) {
  recordNotBuilt("mgpuStreamWaitEvent");
}

void *mgpuEventCreate(void) {
  recordNotBuilt("mgpuEventCreate");
  return nullptr;
}

void mgpuEventDestroy(void *) {}

void mgpuEventSynchronize(void *) { recordNotBuilt("mgpuEventSynchronize"); }

void mgpuEventRecord(void *, void *) { recordNotBuilt("mgpuEventRecord"); }

void *mgpuMemAlloc(uint64_t, void *, bool) {
  recordNotBuilt("mgpuMemAlloc");
  return nullptr;
}

void mgpuMemFree(void *, void *) {}

void mgpuMemcpy(void *, void *, size_t, void *) {
  recordNotBuilt("mgpuMemcpy");
}

void mgpuMemset32(void *, uint32_t, size_t, void *) {
  recordNotBuilt("mgpuMemset32");
}

void mgpuMemset16(void *, uint16_t, size_t, void *) {
  recordNotBuilt("mgpuMemset16");
}

void mgpuSetDefaultDevice(int32_t device) { currentDeviceIndex = device; }

namespace {
std::atomic<bool> allowTf32{false};
} // namespace

void lazyrt_cuda_set_allow_tf32(int32_t allow) { allowTf32 = allow != 0; }

int32_t lazyrt_cuda_get_allow_tf32(void) { return allowTf32 ? 1 : 0; }

#define LAZYC_CUDA_GEMM_STUBS(suffix)                                          \
  void _mlir_ciface_lazyrt_cuda_matmul_##suffix(                               \
      lazyrt_memref3d *, lazyrt_memref3d *, lazyrt_memref3d *, int32_t) {      \
    recordNotBuilt("lazyrt_cuda_matmul_" #suffix);                             \
  }                                                                            \
  void _mlir_ciface_lazyrt_cuda_matmul_bias_##suffix(                          \
      lazyrt_memref3d *, lazyrt_memref3d *, lazyrt_memref1d *,                 \
      lazyrt_memref3d *, int32_t) {                                            \
    recordNotBuilt("lazyrt_cuda_matmul_bias_" #suffix);                        \
  }
LAZYC_CUDA_GEMM_STUBS(f32)
LAZYC_CUDA_GEMM_STUBS(f64)
LAZYC_CUDA_GEMM_STUBS(f16)
LAZYC_CUDA_GEMM_STUBS(bf16)
#undef LAZYC_CUDA_GEMM_STUBS

int64_t lazyrt_cuda_collective_start(int32_t, int32_t, int32_t, int64_t,
                                     const void *, void *, int64_t) {
  return 1;
}

int32_t lazyrt_cuda_collective_wait(int64_t, const void *, void *) {
  notBuilt("lazyrt_cuda_collective_wait");
  const char *why = lazyrt_get_last_error();
  lazyc::runtime::distributed::recordFailedCollective(why ? why : "");
  return -1;
}

int32_t lazyrt_nccl_version(int32_t *) {
  notBuilt("lazyrt_nccl_version");
  return -1;
}

} // extern "C"
