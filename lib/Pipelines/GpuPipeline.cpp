//===- GpuPipeline.cpp - The NVIDIA GPU target's pipeline -----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the GPU pipeline: its stages, as the JIT runs them
// and lazyc-opt exposes them, and their options. Its front (lower to linalg,
// fusion, bufferization) is the CPU's; then every loop nest becomes a
// kernel, and upstream's NVVM lowering makes PTX of the kernels (through
// LLVM's NVPTX back end: no GPU, driver or CUDA toolkit is needed to
// compile) and LLVM dialect of the host function that launches them.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/GPU/Passes.h"
#include "lazyc/Codegen/Passes.h"
#include "lazyc/Pipelines/Pipelines.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;
using namespace lazyc;

void lazyc::buildGpuFusePipeline(OpPassManager &pm,
                                 const GpuPipelineOptions &) {
  pm.addPass(createCanonicalizerPass());
  buildFusionPipeline(pm);
  // Long sums as trees of short ones: a row kernel's threads share a row; a
  // reduction of everything, which would run on one thread, gets rows.
  mlir::lazy::LazyBlockReductionsPassOptions blocks;
  blocks.lanes = 256;
  blocks.lanesInRowsOnly = true;
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyBlockReductionsPass(blocks));
}

void lazyc::buildGpuBufferizePipeline(OpPassManager &pm,
                                      const GpuPipelineOptions &) {
  buildBufferizePipeline(pm);
  // Collectives move data while later kernels run; their buffers are freed
  // after the wait.
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyOverlapCollectivesPass());
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  pm.addPass(createCanonicalizerPass());
}

void lazyc::buildGpuMapPipeline(OpPassManager &pm,
                                const GpuPipelineOptions &options) {
  // f32/f64/f16/bf16 matmuls run on cuBLASLt, called from the host.
  pm.addPass(mlir::lazy::createLazyGpuGemmToCublasPass());
  // Reductions along rows, with the ops that share their rows (a softmax,
  // a layer norm), become kernels of a block per row.
  pm.addNestedPass<func::FuncOp>(mlir::lazy::createLazyGpuRowKernelsPass());
  // The other ops' parallel dimensions become an outer scf.parallel, spread
  // over threads, their reduction dimensions scf.for inside it.
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyGpuParallelLoopsOutermostPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  // What NVVM has no instruction or libdevice function for (integer powers)
  // becomes functions of their own, which kernel outlining copies into the
  // kernels' module.
  pm.addPass(createConvertMathToFuncs());
  mlir::lazy::LazyGpuMapToKernelsPassOptions kernels;
  kernels.threadsPerBlock = options.threadsPerBlock;
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyGpuMapToKernelsPass(kernels));
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyGpuAccumulateInRegistersPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Collectives of device buffers, over NCCL.
  pm.addPass(mlir::lazy::createLazyGpuCollectivesPass());
  // Last: CSE would fold the constants it gives kernels into the host's.
  pm.addNestedPass<func::FuncOp>(mlir::lazy::createLazyGpuDeviceBuffersPass());
}

std::string lazyc::findLibdevice() {
  llvm::SmallVector<std::string> roots;
  for (const char *variable :
       {"LAZYC_CUDA_PATH", "CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(variable); root && *root)
      roots.push_back(root);
  roots.push_back("/usr/local/cuda");
  for (const std::string &root : roots) {
    llvm::SmallString<128> path(root);
    llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::exists(path))
      return std::string(path);
  }
  return "";
}

void lazyc::buildGpuToLLVMPipeline(OpPassManager &pm,
                                   const GpuPipelineOptions &options) {
  // Kernels outlined first, so that every device op (launches, device
  // buffers, copies) becomes asynchronous on one stream, the host waiting
  // for it only at the end (upstream's lowering of device buffers and copies
  // takes only their asynchronous forms).
  // Constants and index computations the kernels use are computed in them,
  // not passed in: the NVPTX back end folds them (a delinearization by a
  // known shape is shifts and multiplications, not 64-bit divisions).
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  // max.f32 already ignores NaN: a softmax's max only loses its `nnan`,
  // which LLVM could fold with a NaN identity to poison.
  mlir::lazy::LazyNanFreeMinMaxPassOptions nanFree;
  nanFree.selects = false;
  pm.addPass(mlir::lazy::createLazyNanFreeMinMaxPass(nanFree));
  pm.addPass(createGpuKernelOutliningPass());
  // One module of kernels, compiled to PTX (and linked with libdevice) once.
  pm.addPass(mlir::lazy::createLazyGpuMergeKernelModulesPass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyGpuReturnWithoutWaitingPass());
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyGpuWaitOnlyForDeviceDataPass());

  // As upstream's gpu-lower-to-nvvm-pipeline, but the kernels go to NVVM
  // before anything converts the module to LLVM (there, arith.remf became
  // an llvm.frem that NVVM cannot select instead of libdevice's fmodf), and
  // libdevice (math functions as __nv_* calls) is linked from a known place
  // rather than from wherever the environment of the process points.
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.ptxFeatures;
  target.optLevel = options.optLevel;
  std::string libdevice = options.libdevice;
  if (libdevice.empty())
    libdevice = findLibdevice();
  if (!libdevice.empty())
    target.linkLibs.push_back(libdevice);
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());

  // The kernels, to NVVM.
  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(mlir::lazy::createLazyGpuIeeeSqrtPass());
  pm.addNestedPass<gpu::GPUModuleOp>(LLVM::createNVVMOptimizeForTargetPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());

  // The host function.
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // The host function, to calls of the runtime's mgpu* functions; the
  // kernels, to PTX text that the driver compiles for the device it runs on.
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

llvm::ArrayRef<PipelineStage<GpuPipelineOptions>> lazyc::gpuPipelineStages() {
  using Options = GpuPipelineOptions;
  static const PipelineStage<Options> stages[] = {
      // The CPU's first stage, registered with lazyc-opt by it.
      {"lazy-lower-to-linalg", "lower to linalg",
       "Composites to primitives, cleanup, lazy to linalg on tensors",
       [](OpPassManager &pm, const Options &) {
         buildLowerToLinalgPipeline(pm);
       }},
      {"lazy-gpu-fuse", "fuse",
       "Fuse linalg-on-tensors (elementwise chains, broadcasts, transposes), "
       "clean up, and cut long sums into blocks",
       buildGpuFusePipeline},
      {"lazy-gpu-bufferize", "bufferize",
       "Bufferize; function results become caller-owned out-parameters",
       buildGpuBufferizePipeline},
      {"lazy-gpu-map", "map to kernels",
       "Loop nests become GPU kernels, buffers device buffers",
       buildGpuMapPipeline},
      {"lazy-gpu-to-llvm", "lower to PTX and LLVM",
       "Kernels to NVVM and PTX, the host function to the LLVM dialect",
       buildGpuToLLVMPipeline},
  };
  return stages;
}

void lazyc::buildGpuPipeline(OpPassManager &pm,
                             const GpuPipelineOptions &options) {
  for (const PipelineStage<GpuPipelineOptions> &stage : gpuPipelineStages())
    stage.build(pm, options);
}
