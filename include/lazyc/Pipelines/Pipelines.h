//===- Pipelines.h - Named lazyc compilation pipelines ----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the pipeline builders the JIT runs, one options-taking
// builder per target made of named stages (as MLIR's GPUToNVVMPipeline).
// Every stage and every whole pipeline is also a lazyc-opt pipeline, so a
// dumped trace can be taken through exactly what the JIT does, stage by
// stage:
//
//   lazy-lower-to-linalg    composites -> primitives, lazy -> linalg on
//                           tensors (target-neutral: every target's first)
//   lazy-cpu-fuse           elementwise fusion, cleanup
//   lazy-cpu-tile           thread loops (scf.forall), vectorized tiles
//   lazy-cpu-bufferize      tensors -> memrefs, results -> out-parameters
//   lazy-cpu-to-llvm        loops, math, memrefs -> LLVM dialect
//   lazy-cpu-pipeline       all of the above (CpuPipelineOptions)
//   lazy-lower-to-llvm      the same, under its first name
//
//   lazy-gpu-fuse           elementwise fusion, cleanup
//   lazy-gpu-bufferize      tensors -> device buffers, results -> out-params
//   lazy-gpu-map            loop nests -> kernels (gpu.launch)
//   lazy-gpu-to-llvm        kernels -> NVVM -> PTX; host -> LLVM dialect
//   lazy-gpu-pipeline       all of the above (GpuPipelineOptions)
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_PIPELINES_PIPELINES_H
#define LAZYC_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace lazyc {

/// One named stage of a target's pipeline: a lazyc-opt pipeline of its
/// own, and the unit the JIT reports compile errors by.
template <typename Options> struct PipelineStage {
  const char *flag;        ///< The lazyc-opt pipeline, "lazy-cpu-fuse".
  const char *title;       ///< As errors name it, "fuse".
  const char *description; ///< For lazyc-opt --help.
  void (*build)(mlir::OpPassManager &pm, const Options &options);
};

//===----------------------------------------------------------------------===//
// Target-neutral
//===----------------------------------------------------------------------===//

/// Composites become primitives, constants fold, and the `lazy` dialect
/// becomes linalg on tensors.
void buildLowerToLinalgPipeline(mlir::OpPassManager &pm);

/// Fuses linalg on tensors: transposed GEMM operands are read in place, each
/// elementwise chain (broadcasts and transposes included) becomes one
/// linalg.generic, results tied to donated arguments are computed over
/// them. Each target runs it after its own layout choices;
/// `copySharedRightTransposes` is lazy-fold-transpose-into-matmul's option.
void buildFusionPipeline(mlir::OpPassManager &pm,
                         bool copySharedRightTransposes = false);

/// Tensors become buffers and function results out-parameters the caller
/// allocates (appended after the inputs), written in place where possible.
/// Temporaries are left to the target to place and free.
void buildBufferizePipeline(mlir::OpPassManager &pm);

//===----------------------------------------------------------------------===//
// CPU
//===----------------------------------------------------------------------===//

/// The knobs of the CPU pipeline:
/// `--lazy-cpu-pipeline="num-threads=4 vector-width=32"`.
struct CpuPipelineOptions : mlir::PassPipelineOptions<CpuPipelineOptions> {
  Option<int64_t> numThreads{
      *this, "num-threads",
      llvm::cl::desc("Chunks a loop nest is split into for the threads (0: "
                     "one per core of this machine)"),
      llvm::cl::init(0)};
  Option<int64_t> vectorWidth{*this, "vector-width",
                              llvm::cl::desc("Elements per vector tile"),
                              llvm::cl::init(64)};
  Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("f32 transcendentals as vectorizable polynomials (else "
                     "LLVM's intrinsics, which call libm per element)"),
      llvm::cl::init(true)};
  Option<bool> scaleInHardware{
      *this, "scale-in-hardware",
      llvm::cl::desc("f32 exp scales by 2^n with AVX-512's vscalefps "
                     "(only for CPUs with AVX-512F; the JIT sets it on "
                     "them)"),
      llvm::cl::init(false)};
  Option<bool> bf16DotConvolutions{
      *this, "bf16-dot-convolutions",
      llvm::cl::desc("bf16 convolutions run on the runtime's AVX512-BF16 "
                     "dot-product kernels (the JIT sets it where the "
                     "runtime's bf16 products use them)"),
      llvm::cl::init(false)};
};

/// Cleans up and fuses linalg on tensors: after it, every elementwise chain
/// (broadcasts and transposes included) is one linalg.generic, and every
/// float sum a tree of short ones (lazy-block-reductions).
void buildCpuFusePipeline(mlir::OpPassManager &pm,
                          const CpuPipelineOptions &options = {});

/// Tiles fused linalg into one scf.forall chunk per thread and vectorizes
/// the tiles (see lazy-cpu-tile-and-vectorize).
void buildCpuTilePipeline(mlir::OpPassManager &pm,
                          const CpuPipelineOptions &options = {});

/// Bufferizes: tensors become memrefs, function results become caller-owned
/// out-parameters (appended after the inputs), temporaries are freed.
void buildCpuBufferizePipeline(mlir::OpPassManager &pm,
                               const CpuPipelineOptions &options = {});

/// Lowers bufferized linalg to loops and everything to the LLVM dialect.
void buildCpuToLLVMPipeline(mlir::OpPassManager &pm,
                            const CpuPipelineOptions &options = {});

/// The CPU pipeline's stages, in order: lower to linalg, fuse, tile and
/// vectorize, bufferize, lower to LLVM.
llvm::ArrayRef<PipelineStage<CpuPipelineOptions>> cpuPipelineStages();

/// The whole CPU pipeline: `lazy` dialect to the LLVM dialect.
void buildCpuPipeline(mlir::OpPassManager &pm,
                      const CpuPipelineOptions &options = {});

// GPU (NVIDIA)

/// The knobs of the GPU pipeline:
/// `--lazy-gpu-pipeline="chip=sm_80 threads-per-block=128"`.
struct GpuPipelineOptions : mlir::PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("The GPU the PTX is for (sm_90: H100 and H200)"),
      llvm::cl::init("sm_90")};
  Option<std::string> ptxFeatures{
      *this, "ptx-features",
      llvm::cl::desc("NVPTX features: the PTX ISA version"),
      llvm::cl::init("+ptx80")};
  Option<int> optLevel{*this, "opt-level",
                       llvm::cl::desc("LLVM's optimization level for kernels"),
                       llvm::cl::init(3)};
  Option<int64_t> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Threads of each block of an elementwise kernel"),
      llvm::cl::init(256)};
  Option<std::string> libdevice{
      *this, "libdevice",
      llvm::cl::desc("libdevice.10.bc, linked into kernels that call math "
                     "functions (empty: findLibdevice())"),
      llvm::cl::init("")};
};

/// The CUDA toolkit's libdevice: under $LAZYC_CUDA_PATH, $CUDA_ROOT,
/// $CUDA_HOME, $CUDA_PATH or /usr/local/cuda (the first that has it), at
/// nvvm/libdevice/libdevice.10.bc; empty if none has it.
std::string findLibdevice();

/// Cleans up and fuses linalg on tensors (buildFusionPipeline), then cuts
/// long sums into blocks (lazy-block-reductions, with a row kernel's lanes).
void buildGpuFusePipeline(mlir::OpPassManager &pm,
                          const GpuPipelineOptions &options = {});

/// Bufferizes; temporaries are device buffers the deallocation pipeline
/// frees.
void buildGpuBufferizePipeline(mlir::OpPassManager &pm,
                               const GpuPipelineOptions &options = {});

/// Turns loop nests into kernels (gpu.launch) and the host function's
/// buffers into device buffers (see lazy-gpu-map-to-kernels).
void buildGpuMapPipeline(mlir::OpPassManager &pm,
                         const GpuPipelineOptions &options = {});

/// Outlines kernels into a gpu.module, lowers them to NVVM and PTX (in a
/// gpu.binary) and the host function to the LLVM dialect, launching them
/// through the runtime's mgpu* functions.
void buildGpuToLLVMPipeline(mlir::OpPassManager &pm,
                            const GpuPipelineOptions &options = {});

/// The GPU pipeline's stages, in order: lower to linalg, fuse, bufferize,
/// map to kernels, lower to PTX and LLVM.
llvm::ArrayRef<PipelineStage<GpuPipelineOptions>> gpuPipelineStages();

/// The whole GPU pipeline: `lazy` dialect to host LLVM dialect and PTX.
void buildGpuPipeline(mlir::OpPassManager &pm,
                      const GpuPipelineOptions &options = {});

/// Registers every pipeline above with the pass registry (for lazyc-opt).
void registerPipelines();

} // namespace lazyc

#endif // LAZYC_PIPELINES_PIPELINES_H
