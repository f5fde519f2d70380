//===- Runtime.h - The C ABI of the lazyc runtime ---------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the C ABI of the runtime: the only part of lazyc an
// ahead-of-time compiled program needs. It knows nothing about MLIR or LLVM.
//
// Memory: every tensor buffer (inputs, outputs and the temporaries generated
// code allocates) comes from one allocator that returns 64-byte aligned
// blocks and keeps freed blocks in size classes for reuse, so a loop that
// allocates the same sizes every step reaches a steady state with no calls
// to the system allocator.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_RUNTIME_H
#define LAZYC_RUNTIME_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The alignment of every block lazyrt_alloc returns (one cache line, and a
/// full AVX-512 vector).
#define LAZYRT_ALIGNMENT 64

/// Returns a block of at least `bytes` bytes aligned to LAZYRT_ALIGNMENT
/// (zero bytes gives a valid, unique block). Returns null when the system is
/// out of memory; lazyrt_get_last_error() then says how much was asked for.
void *lazyrt_alloc(size_t bytes);

/// Returns a block from lazyrt_alloc to the allocator (null is ignored).
void lazyrt_free(void *block);

/// Counters of the allocator, for tests and metrics.
typedef struct lazyrt_allocator_stats {
  uint64_t allocations;  ///< lazyrt_alloc calls that succeeded.
  uint64_t reuses;       ///< ... of which were served from the cache.
  uint64_t bytes_in_use; ///< Bytes (rounded to size classes) handed out.
  uint64_t bytes_cached; ///< Bytes kept for reuse.
  uint64_t peak_bytes_in_use;
} lazyrt_allocator_stats;

/// Returns the allocator's counters.
lazyrt_allocator_stats lazyrt_get_allocator_stats(void);

/// Restarts peak_bytes_in_use from the bytes in use now (to measure the
/// peak of one phase, such as a training step).
void lazyrt_reset_peak_bytes_in_use(void);

/// Releases every cached block to the system.
void lazyrt_trim_cache(void);

/// Sets the most bytes kept for reuse (default 1 GiB; LAZYC_CACHE_BYTES
/// overrides it at start-up). Excess cached blocks are released.
void lazyrt_set_cache_limit(uint64_t bytes);

/// Returns the number of threads generated parallel loops use (OpenMP's
/// max threads: all hardware threads unless OMP_NUM_THREADS says otherwise).
int lazyrt_get_num_threads(void);

/// Sets the number of threads generated parallel loops started from the
/// calling thread use (omp_set_num_threads).
void lazyrt_set_num_threads(int threads);

/// Records that generated code refused to write the out-parameter at
/// argument position `index` because the caller's buffer does not have the
/// computed shape (see lazy-check-output-shapes). Thread-local, like the
/// last error.
void lazyrt_report_output_shape_mismatch(int64_t index);

/// Returns the argument position last reported on this thread and clears
/// it, or -1 if none was reported.
int64_t lazyrt_take_output_shape_mismatch(void);

/// Returns the message of the last failure on this thread ("" when none).
const char *lazyrt_get_last_error(void);

/// The allocation entry points of MLIR-generated code
/// (`finalize-memref-to-llvm{use-generic-functions}`), served by the
/// allocator above.
void *_mlir_memref_to_llvm_alloc(size_t bytes);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t bytes);
void _mlir_memref_to_llvm_free(void *block);

/// The strided copy generated code calls for `memref.copy` between
/// non-contiguous memrefs: `source` and `target` point at unranked memref
/// descriptors ({rank, pointer to the ranked descriptor}) of the same shape.
void memrefCopy(int64_t elementBytes, void *source, void *target);

/// A rank-2 memref descriptor as MLIR passes it to C (`llvm.emit_c_interface`).
typedef struct lazyrt_memref2d_f32 {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} lazyrt_memref2d_f32;

typedef struct lazyrt_memref2d_f64 {
  double *allocated;
  double *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} lazyrt_memref2d_f64;

/// A rank-2 memref of 16-bit floats (bf16 or f16), as their bits.
typedef struct lazyrt_memref2d_u16 {
  uint16_t *allocated;
  uint16_t *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} lazyrt_memref2d_u16;

/// Rank-4 memrefs of 16-bit floats (their bits) and of f32.
typedef struct lazyrt_memref4d_u16 {
  uint16_t *allocated;
  uint16_t *aligned;
  int64_t offset;
  int64_t sizes[4];
  int64_t strides[4];
} lazyrt_memref4d_u16;

typedef struct lazyrt_memref4d_f32 {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[4];
  int64_t strides[4];
} lazyrt_memref4d_f32;

/// Flags of the GEMM entry points.
enum {
  /// `a` holds A transposed (its sizes are [k, m]).
  LAZYRT_GEMM_TRANSPOSE_A = 1,
  /// `b` holds B transposed (its sizes are [n, k]).
  LAZYRT_GEMM_TRANSPOSE_B = 2,
  /// C = A * B instead of C += A * B (C need not be initialized).
  LAZYRT_GEMM_OVERWRITE = 4,
};

/// C += A * B (or, with flags, C = A * B, with A or B stored transposed) on
/// row-major (or any unit-inner-stride) matrices, through OpenBLAS on the
/// calling thread: generated code splits a GEMM over threads itself, so
/// BLAS and the fused loops share one thread pool.
void _mlir_ciface_lazyrt_matmul_f32(lazyrt_memref2d_f32 *a,
                                    lazyrt_memref2d_f32 *b,
                                    lazyrt_memref2d_f32 *c, int32_t flags);
void _mlir_ciface_lazyrt_matmul_f64(lazyrt_memref2d_f64 *a,
                                    lazyrt_memref2d_f64 *b,
                                    lazyrt_memref2d_f64 *c, int32_t flags);

/// The same for bf16 (or f16) A and B accumulated into an f32 C. f16, and
/// bf16 unless lazyrt_bf16_gemm_kernel() says "avx512-bf16": A and B are
/// widened to f32 (exactly) into per-thread buffers and multiplied by the
/// f32 GEMM. bf16 with "avx512-bf16": AVX512-BF16's dot products on packed
/// pairs of bf16 values (exact products, f32 sums; subnormal inputs and
/// results are zeros, as the instruction has them).
void _mlir_ciface_lazyrt_matmul_bf16_f32(lazyrt_memref2d_u16 *a,
                                         lazyrt_memref2d_u16 *b,
                                         lazyrt_memref2d_f32 *c, int32_t flags);
void _mlir_ciface_lazyrt_matmul_f16_f32(lazyrt_memref2d_u16 *a,
                                        lazyrt_memref2d_u16 *b,
                                        lazyrt_memref2d_f32 *c, int32_t flags);

/// output += the 2-D convolution of bf16 `images` by bf16 `filters`, into
/// an f32 `output`, as linalg.conv_2d_nchw_fchw (images N x C x H x W,
/// filters F x C x KH x KW, output N x F x OH x OW) or
/// linalg.conv_2d_nhwc_hwcf (images N x H x W x C, filters KH x KW x C x F,
/// output N x OH x OW x F) with the given strides and dilations, on the
/// calling thread. Where lazyrt_bf16_gemm_kernel() says "avx512-bf16" and
/// the pairs the dot products read are adjacent in memory (NCHW: a row's
/// pixels and a filter's taps along the width, with a width stride of 1;
/// NHWC: the channels), AVX512-BF16's dot products (exact products, f32
/// sums; subnormal inputs and results are zeros); otherwise both operands
/// widened, in plain loops.
void _mlir_ciface_lazyrt_conv2d_nchw_bf16_f32(lazyrt_memref4d_u16 *images,
                                              lazyrt_memref4d_u16 *filters,
                                              lazyrt_memref4d_f32 *output,
                                              int64_t strideH, int64_t strideW,
                                              int64_t dilationH,
                                              int64_t dilationW);
void _mlir_ciface_lazyrt_conv2d_nhwc_bf16_f32(lazyrt_memref4d_u16 *images,
                                              lazyrt_memref4d_u16 *filters,
                                              lazyrt_memref4d_f32 *output,
                                              int64_t strideH, int64_t strideW,
                                              int64_t dilationH,
                                              int64_t dilationW);

/// The kernel bf16 products run: "avx512-bf16" (AVX512-BF16's dot
/// products) or "widened" (both operands widened for the f32 GEMM). The
/// dot products run where the CPU has them and, timed once per process,
/// they do more work per second than the f32 FMA (on Zen 4 twice as much;
/// on the Sapphire Rapids Xeons measured, half), unless the environment
/// variable LAZYC_BF16_GEMM names the other kernel.
const char *lazyrt_bf16_gemm_kernel(void);
/// Runs bf16 products with `kernel` ("avx512-bf16" or "widened") from now
/// on, on every thread. Returns 0, changing nothing, for another name or a
/// kernel this CPU cannot run.
int lazyrt_set_bf16_gemm_kernel(const char *kernel);

/// The OpenBLAS kernel set the GEMM entry points use ("SkylakeX",
/// "Haswell", ...: OpenBLAS's name), loading OpenBLAS if it is not loaded
/// yet, or "none" when it cannot be loaded (products then run as loops).
const char *lazyrt_blas_kernels(void);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // LAZYC_RUNTIME_RUNTIME_H
