//===- Cuda.h - The C ABI of the runtime's CUDA devices -----------*- C -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the C ABI of the runtime's NVIDIA GPU support: the
// devices, their caching allocator, copies between host and device, and the
// `mgpu*` entry points the host code of MLIR's GPU lowering (gpu-to-llvm)
// calls. Like the rest of the runtime it knows nothing about MLIR or LLVM,
// and it does not link libcuda: the driver is loaded when first needed
// (dlopen of libcuda.so.1, or the file LAZYC_CUDA_DRIVER names), so a
// program using the runtime starts on machines without an NVIDIA driver and
// learns from lazyrt_cuda_available why a device cannot be used.
//
// Each device has one stream, created on first use with the device's
// primary context: every kernel, copy and memset for the device is queued
// on it, in the order issued, so a device buffer freed by one piece of work
// can be reused by the next at once.
//
// Device pointers are `void *` here (a CUdeviceptr, which the driver keeps
// in the process's unified address space).
//
// Errors: functions that can fail return -1 or null, and
// lazyrt_get_last_error() (Runtime.h) says why, naming the driver call that
// failed and the driver's error name ("cuMemAlloc failed:
// CUDA_ERROR_INVALID_VALUE (invalid argument)"). The mgpu* functions cannot
// return errors to generated code: they record the first one of the thread,
// which lazyrt_take_cuda_error() returns, and until it is taken every later
// mgpu* call that would queue work or create something does nothing (so one
// failure does not cascade into crashes); calls that free, release, record
// or wait still run.
//
// A runtime built without cuda.h has the same entry points: each fails,
// saying CUDA support was not built.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_CUDA_H
#define LAZYC_RUNTIME_CUDA_H

#include "lazyc/Runtime/Runtime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

/// Returns 1 when CUDA device `device` can be used by this process;
/// otherwise 0, with a sentence for the user written to `why` (truncated to
/// `why_bytes`, NUL-terminated; `why` may be null): "libcuda.so.1 not found
/// (no NVIDIA driver on this machine): ...", "cuInit failed:
/// CUDA_ERROR_NO_DEVICE ...", "no CUDA device 3 (this machine has 1)".
/// Loads the driver on first use; creates no context.
int32_t lazyrt_cuda_available(int32_t device, char *why, size_t why_bytes);

/// Returns the number of CUDA devices, or -1 when the driver cannot be used.
int32_t lazyrt_cuda_device_count(void);

/// Writes the device's name ("NVIDIA H100 80GB HBM3") to `name`, truncated
/// to `name_bytes` and NUL-terminated. Returns 0 or -1.
int32_t lazyrt_cuda_device_name(int32_t device, char *name, size_t name_bytes);

/// Sets the device's compute capability (9 and 0 for sm_90). Returns 0 or
/// -1.
int32_t lazyrt_cuda_compute_capability(int32_t device, int32_t *major,
                                       int32_t *minor);

/// Sets the CUDA version the driver supports (13000 for 13.0). Returns 0 or
/// -1.
int32_t lazyrt_cuda_driver_version(int32_t *version);

/// Sets the device this thread's mgpu* calls use when given no stream (0
/// until set). The JIT sets it before calling a compiled function. Not
/// checked here: a device that cannot be used fails the calls that use it.
void lazyrt_cuda_set_current_device(int32_t device);

/// Returns the device set by lazyrt_cuda_set_current_device on this thread.
int32_t lazyrt_cuda_get_current_device(void);

/// Returns the device's stream (a CUstream), creating the device's context
/// and stream on first use, or null when the device cannot be used.
void *lazyrt_cuda_stream(int32_t device);

/// Waits until the work queued on the device's stream is done. Returns 0,
/// or -1 when the device cannot be used or the work failed (a kernel's
/// fault is reported here, by the first wait after it).
int32_t lazyrt_cuda_synchronize(int32_t device);

//===----------------------------------------------------------------------===//
// Device memory: a caching allocator per device
//===----------------------------------------------------------------------===//

/// Returns a block of device memory of at least `bytes` bytes (zero bytes
/// gives a valid, unique block), 512-byte aligned. Requests are rounded to
/// size classes (four per power of two) and freed blocks are kept per class
/// for reuse; when the device is out of memory the cache is released and
/// the request retried once. Returns null on failure;
/// lazyrt_get_last_error() then names the bytes asked for and the bytes the
/// device has free.
void *lazyrt_cuda_alloc(int32_t device, size_t bytes);

/// Returns a block from lazyrt_cuda_alloc on `device` to its cache (null is
/// ignored). Work already queued on the device's stream may still use it:
/// later work, queued behind, may reuse it. Returns 0, or -1 when the block
/// is not a live block of that device.
int32_t lazyrt_cuda_free(int32_t device, void *block);

/// Returns the counters of the device's allocator (all zero for a device
/// never allocated on).
lazyrt_allocator_stats lazyrt_cuda_get_allocator_stats(int32_t device);

/// Restarts the device's peak_bytes_in_use from its bytes in use now.
void lazyrt_cuda_reset_peak_bytes_in_use(int32_t device);

/// Waits for the device's stream, then releases every cached block of the
/// device to the driver. Returns 0 or -1.
int32_t lazyrt_cuda_empty_cache(int32_t device);

//===----------------------------------------------------------------------===//
// Copies
//===----------------------------------------------------------------------===//

/// Copies `bytes` bytes from host memory to device memory, queued on the
/// device's stream after the work already there. Returns when the copy is
/// done. Returns 0 or -1.
int32_t lazyrt_cuda_copy_to_device(int32_t device, void *to, const void *from,
                                   size_t bytes);

/// Copies `bytes` bytes from device memory to host memory, after the work
/// already queued on the device's stream. Returns when the copy is done.
/// Returns 0 or -1.
int32_t lazyrt_cuda_copy_to_host(int32_t device, void *to, const void *from,
                                 size_t bytes);

/// Queues a copy of `bytes` bytes between two buffers of the device on its
/// stream and returns at once. Returns 0 or -1.
int32_t lazyrt_cuda_copy_on_device(int32_t device, void *to, const void *from,
                                   size_t bytes);

/// Returns page-locked host memory of `bytes` bytes (zero bytes gives a
/// valid block), usable with every device (copies from and to it run at the
/// full speed of the bus), or null on failure. Allocated through the current
/// device's context.
void *lazyrt_cuda_host_alloc(size_t bytes);

/// Releases memory from lazyrt_cuda_host_alloc (null is ignored). Returns 0
/// or -1.
int32_t lazyrt_cuda_host_free(void *block);

//===----------------------------------------------------------------------===//
// GEMM through cuBLASLt
//
// cuBLASLt is loaded when the first GEMM runs: the file LAZYC_CUBLASLT
// names, else libcublasLt.so.13 (or .12, or unversioned) through the
// loader's path, else under $LAZYC_CUDA_PATH, $CUDA_ROOT, $CUDA_HOME,
// $CUDA_PATH or /usr/local/cuda (lib64/). Generated code calls the
// _mlir_ciface_ functions below; they queue the product on the current
// device's stream and return at once. Their failures are recorded like the
// mgpu* functions' (lazyrt_take_cuda_error).
//===----------------------------------------------------------------------===//

/// A rank-3 memref descriptor as MLIR passes it to C, any element type:
/// [batch, rows, columns], offsets and strides in elements.
typedef struct lazyrt_memref3d {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[3];
  int64_t strides[3];
} lazyrt_memref3d;

/// A rank-1 memref descriptor, any element type.
typedef struct lazyrt_memref1d {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
} lazyrt_memref1d;

/// Lets f32 GEMMs run on TF32 tensor cores (inputs rounded to 10 mantissa
/// bits; about 7x the speed on an H100) when `allow` is nonzero. Off by
/// default: f32 GEMMs compute in full f32. Read when each GEMM runs.
void lazyrt_cuda_set_allow_tf32(int32_t allow);
int32_t lazyrt_cuda_get_allow_tf32(void);

/// C += A * B for each matrix of a batch (or C = A * B with
/// LAZYRT_GEMM_OVERWRITE; A or B stored transposed with the TRANSPOSE
/// flags), on the current device. Every matrix needs a unit stride in one
/// of its two dimensions; the other stride is its leading dimension.
/// A batch stride of 0 reuses one matrix for the whole batch. f16 and bf16
/// accumulate in f32 and round once, at the end.
void _mlir_ciface_lazyrt_cuda_matmul_f32(lazyrt_memref3d *a, lazyrt_memref3d *b,
                                         lazyrt_memref3d *c, int32_t flags);
void _mlir_ciface_lazyrt_cuda_matmul_f64(lazyrt_memref3d *a, lazyrt_memref3d *b,
                                         lazyrt_memref3d *c, int32_t flags);
void _mlir_ciface_lazyrt_cuda_matmul_f16(lazyrt_memref3d *a, lazyrt_memref3d *b,
                                         lazyrt_memref3d *c, int32_t flags);
void _mlir_ciface_lazyrt_cuda_matmul_bf16(lazyrt_memref3d *a,
                                          lazyrt_memref3d *b,
                                          lazyrt_memref3d *c, int32_t flags);

/// D = A * B + bias, the bias (n elements, unit stride) added to each row:
/// one cuBLASLt call with its bias epilogue. D's rows need a unit stride;
/// D is overwritten (LAZYRT_GEMM_OVERWRITE is implied).
void _mlir_ciface_lazyrt_cuda_matmul_bias_f32(lazyrt_memref3d *a,
                                              lazyrt_memref3d *b,
                                              lazyrt_memref1d *bias,
                                              lazyrt_memref3d *d,
                                              int32_t flags);
void _mlir_ciface_lazyrt_cuda_matmul_bias_f64(lazyrt_memref3d *a,
                                              lazyrt_memref3d *b,
                                              lazyrt_memref1d *bias,
                                              lazyrt_memref3d *d,
                                              int32_t flags);
void _mlir_ciface_lazyrt_cuda_matmul_bias_f16(lazyrt_memref3d *a,
                                              lazyrt_memref3d *b,
                                              lazyrt_memref1d *bias,
                                              lazyrt_memref3d *d,
                                              int32_t flags);
void _mlir_ciface_lazyrt_cuda_matmul_bias_bf16(lazyrt_memref3d *a,
                                               lazyrt_memref3d *b,
                                               lazyrt_memref1d *bias,
                                               lazyrt_memref3d *d,
                                               int32_t flags);

//===----------------------------------------------------------------------===//
// Collectives of device buffers, over NCCL
//
// The counterparts of lazyrt_collective_start / _wait (Collectives.h: the
// kinds, reductions, world and timeout) for buffers of the current device.
// NCCL is loaded on the first collective: the file LAZYC_NCCL_LIBRARY
// names, else libnccl.so.2 through the loader's path, else under
// $LAZYC_CUDA_PATH, $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH or /usr/local/cuda
// (lib64/, lib/). A device's communicator is made on its first collective,
// a collective step of every rank: rank 0's NCCL id reaches the others over
// the world's transport. Each rank needs a GPU of its own.
//===----------------------------------------------------------------------===//

/// Queues a collective of device buffers and returns its handle (> 0)
/// without waiting for the device. First the ranks agree on it as on a
/// collective of host buffers (the same checks, header exchange and
/// timeout; this blocks until every rank got there). Then it is queued on
/// a communication stream of the device, behind the work queued on the
/// device's stream so far. Failures are reported by the wait.
int64_t lazyrt_cuda_collective_start(int32_t kind, int32_t reduction,
                                     int32_t dtype, int64_t root,
                                     const void *in, void *out, int64_t count);

/// Makes the work queued on the device's stream from now on wait for the
/// collective `handle` (the host does not wait). `in` and `out` are the
/// buffers it was started with. Returns 0, or -1 after recording the
/// failure for lazyrt_take_collective_error. A collective that NCCL reports
/// failed, or that is not done on the device within the world's timeout (a
/// rank died in it), has its communicator aborted: the world is broken,
/// and the device's next lazyrt_cuda_synchronize (or copy to the host)
/// fails, saying why.
int32_t lazyrt_cuda_collective_wait(int64_t handle, const void *in, void *out);

/// Sets NCCL's version (22803 for 2.28.3), loading NCCL if needed (no GPU
/// is needed). Returns 0, or -1 with lazyrt_get_last_error() saying why.
int32_t lazyrt_nccl_version(int32_t *version);

//===----------------------------------------------------------------------===//
// Errors of the mgpu* entry points
//===----------------------------------------------------------------------===//

/// Returns the first error an mgpu* call recorded on this thread since the
/// last call, and clears it (so later mgpu* calls run again); null when
/// none was recorded. The JIT calls this after each compiled call. The text
/// stays valid until the next call on this thread.
const char *lazyrt_take_cuda_error(void);

//===----------------------------------------------------------------------===//
// The mgpu* ABI of MLIR 22's GPU lowering
//
// The host code gpu-to-llvm emits (and the gpu.binary translation's module
// loading) calls these by name; the JIT resolves them from the process.
// Signatures are those of upstream MLIR's CudaRuntimeWrappers.cpp, with
// lazyc's meaning: streams are the devices' streams, memory comes from the
// caching allocator, and a null stream means the current device's stream.
//===----------------------------------------------------------------------===//

/// Loads a cubin or fatbin (`data`; the image carries its own size) into the
/// current device's context. Returns the CUmodule, or null.
void *mgpuModuleLoad(void *data, size_t size);

/// Loads NUL-terminated PTX text, compiled by the driver's JIT at
/// `optimization_level` (0-4), into the current device's context. On
/// failure the recorded error includes the JIT's log. Returns the CUmodule,
/// or null.
void *mgpuModuleLoadJIT(void *data, int32_t optimization_level);

/// Unloads a module (null is ignored).
void mgpuModuleUnload(void *module);

/// Returns the kernel `name` of `module` (a CUfunction), or null.
void *mgpuModuleGetFunction(void *module, const char *name);

/// Queues kernel `function` on `stream` with the given grid and block sizes
/// and `shared_bytes` of dynamic shared memory (above the default 48 KiB
/// the kernel is allowed more first). `params` points at the arguments, as
/// for cuLaunchKernel; `param_count` is their number.
void mgpuLaunchKernel(void *function, intptr_t grid_x, intptr_t grid_y,
                      intptr_t grid_z, intptr_t block_x, intptr_t block_y,
                      intptr_t block_z, int32_t shared_bytes, void *stream,
                      void **params, void **extra, size_t param_count);

/// Returns the current device's stream: lazyc creates none per call.
void *mgpuStreamCreate(void);

/// Does nothing: the stream belongs to its device.
void mgpuStreamDestroy(void *stream);

/// Waits until the work queued on `stream` is done.
void mgpuStreamSynchronize(void *stream);

/// Makes `stream` wait for `event`. With one stream per device the order is
/// already given; an event of another device is waited for on the host.
void mgpuStreamWaitEvent(void *stream, void *event);

/// Events mark a point of a device's stream.
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
/// Waits until the work queued before the event's record is done.
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);

/// Returns a block of `bytes` bytes from the caching allocator of the
/// stream's device, or null. `host_shared` memory (gpu.alloc host_shared)
/// is not supported: lazyc never asks for it.
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool host_shared);

/// Returns a block from mgpuMemAlloc to the stream's device's cache.
void mgpuMemFree(void *block, void *stream);

/// Queues a copy of `bytes` bytes on `stream`; each side may be host or
/// device memory.
void mgpuMemcpy(void *to, void *from, size_t bytes, void *stream);

/// Queue fills of `count` 32-bit or 16-bit elements with `value`.
void mgpuMemset32(void *to, uint32_t value, size_t count, void *stream);
void mgpuMemset16(void *to, uint16_t value, size_t count, void *stream);

/// lazyrt_cuda_set_current_device (gpu.set_default_device).
void mgpuSetDefaultDevice(int32_t device);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // LAZYC_RUNTIME_CUDA_H
