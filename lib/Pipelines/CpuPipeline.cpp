//===- CpuPipeline.cpp - The CPU target's pipeline ------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the CPU pipeline: its stages, as the JIT runs them
// and lazyc-opt exposes them, and their options.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"
#include "lazyc/Codegen/Passes.h"
#include "lazyc/Conversion/Passes.h"
#include "lazyc/Dialect/Lazy/Transforms/Passes.h"
#include "lazyc/Pipelines/Pipelines.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace lazyc;

void lazyc::buildCpuFusePipeline(OpPassManager &pm,
                                 const CpuPipelineOptions &options) {
  pm.addPass(createCanonicalizerPass());
  // f16/bf16 products accumulate in f32 (the rounding to the narrow type
  // fuses with what follows).
  mlir::lazy::LazyCpuWidenNarrowProductsPassOptions widen;
  widen.bf16DotConvolutions = options.bf16DotConvolutions;
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyCpuWidenNarrowProductsPass(widen));
  // Each convolution in the layout its kernel vectorizes best, before
  // fusion joins the transposes with their neighbours.
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyCpuConvolutionLayoutPass());
  // The runtime reads a product's right operand in place when it has few
  // rows: a transposed right operand several products read is copied once.
  buildFusionPipeline(pm, /*copySharedRightTransposes=*/true);
  // Reductions walk their inputs in the order they are stored.
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyCpuInterchangeReductionsPass());
  // Long sums as trees of short ones, each row block in vector lanes.
  mlir::lazy::LazyBlockReductionsPassOptions blocks;
  blocks.lanes = options.vectorWidth;
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyBlockReductionsPass(blocks));
}

void lazyc::buildCpuTilePipeline(OpPassManager &pm,
                                 const CpuPipelineOptions &options) {
  // A recurrence whose rows never meet runs on each thread's rows, without
  // a barrier per op and step.
  mlir::lazy::LazyCpuSplitLoopRowsPassOptions rows;
  rows.numThreads = options.numThreads;
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyCpuSplitLoopRowsPass(rows));
  mlir::lazy::LazyCpuTileAndVectorizePassOptions tiling;
  tiling.numThreads = options.numThreads;
  tiling.vectorWidth = options.vectorWidth;
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyCpuTileAndVectorizePass(tiling));
  // Masked transfers become transfers with mask operands, which bufferize.
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMaskPass());
  pm.addPass(createCanonicalizerPass());
  // Tiles repeat slices, reads and index computations; merged within each
  // nest (a CSE of the whole trace is quadratic in its size).
  pm.addNestedPass<func::FuncOp>(mlir::lazy::createLazyCSEWithinNestsPass());
  // A row's vector loops as one where a loop reads what the one before it
  // wrote in the same step (a softmax's sum with its exponentials).
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyCpuFuseSiblingLoopsPass());
}

void lazyc::buildCpuBufferizePipeline(OpPassManager &pm,
                                      const CpuPipelineOptions &) {
  buildBufferizePipeline(pm);
  // Per-row temporaries (a softmax row's exponentials, partial sums) leave
  // their loops and live on the stack, not in the allocator.
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
  bufferization::PromoteBuffersToStackPassOptions stack;
  stack.maxAllocSizeInBytes = 64 * 1024;
  stack.maxRankOfAllocatedMemRef = 4;
  pm.addNestedPass<func::FuncOp>(
      bufferization::createPromoteBuffersToStackPass(stack));
  pm.addNestedPass<func::FuncOp>(mlir::lazy::createLazyBoundStackBuffersPass());
  // Thread loops as scf.parallel: the deallocation pipeline frees the
  // temporaries of an scf.parallel body, but not of an scf.forall's.
  pm.addPass(createForallToParallelLoopPass());
  // Collectives exchange data while later ops compute; their buffers are
  // freed after the wait.
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyOverlapCollectivesPass());
  // Upstream's deallocation pipeline (buildBufferDeallocationPipeline),
  // with each temporary freed after its last use rather than at the end of
  // the function, before the simplification compares the rest pairwise.
  memref::ExpandReallocPassOptions realloc;
  realloc.emitDeallocs = false;
  pm.addPass(memref::createExpandReallocPass(realloc));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyDeallocAfterLastUsePass());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
}

void lazyc::buildCpuToLLVMPipeline(OpPassManager &pm,
                                   const CpuPipelineOptions &options) {
  // Each kernel's loop nest in a function of its own: later stages stay
  // linear in the size of a large trace, and LLVM compiles the functions on
  // several threads.
  pm.addPass(mlir::lazy::createLazyOutlineLoopNestsPass());
  // f32/f64 GEMM tiles run on BLAS, on the thread their scf.forall gives.
  pm.addPass(mlir::lazy::createLazyCpuGemmToBlasPass());
  // bf16 convolution tiles run on the runtime's dot products, the others
  // as register-blocked direct convolution.
  pm.addPass(mlir::lazy::createLazyCpuConvolutionsToRuntimePass());
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyCpuDirectConvolutionPass());
  // What was not vectorized runs as scalar loops.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // vector<1x1x64xf32> as vector<64xf32>: one LLVM vector, not nested arrays.
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyDropUnitVectorDimsPass());
  // f16/bf16: math ops computed in f32; arithmetic too, which rounds exactly
  // as the narrow operation would (f32 has more than twice their precision).
  pm.addPass(math::createMathExtendToSupportedTypes());
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"f16", "bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  // ... and keep the rounding between two emulated ops, which the emulation
  // marks as optional.
  pm.addPass(mlir::lazy::createLazyExactNarrowFloatsPass());
  // f32 transcendentals as polynomials, so vectors stay vectors.
  if (options.approximateMath) {
    mlir::lazy::LazyMathApproximationPassOptions math;
    math.scaleInHardware = options.scaleInHardware;
    pm.addPass(mlir::lazy::createLazyMathApproximationPass(math));
  }
  // Vectors: masks, reductions and transfers to plain vector ops and loops.
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMaskPass());
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyLowerMultiReductionsPass());
  pm.addPass(mlir::lazy::createLazyTreeReductionsPass());
  // One-element transfers (a broadcast scalar, possibly in a strided view)
  // as plain loads and stores.
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyScalarVectorTransfersPass());
  pm.addPass(createConvertVectorToSCFPass());
  // ... whose n-D transfers' stack buffers leave their loops.
  pm.addNestedPass<func::FuncOp>(mlir::lazy::createLazyHoistLoopAllocasPass());
  // Before canonicalization folds the broadcasts VectorToSCF made.
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyFlattenBroadcastSourcesPass());
  pm.addPass(createCanonicalizerPass());
  // Threads: scf.parallel (from scf.forall, at bufferization) -> OpenMP.
  pm.addPass(createConvertSCFToOpenMPPass());
  pm.addPass(mlir::lazy::createLazySerialSingleChunkParallelPass());
  // ... each thread's chunks a plain loop: no worksharing calls, one barrier.
  pm.addPass(mlir::lazy::createLazyStaticThreadChunksPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertMathToFuncs());
  // Memrefs before SCF: the alloca scopes scf-to-openmp creates must be
  // lowered while their bodies are still single blocks. Allocations go
  // through the runtime's caching allocator.
  FinalizeMemRefToLLVMConversionPassOptions memrefOptions;
  memrefOptions.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOptions));
  pm.addPass(createSCFToControlFlowPass());
  // bf16 conversions as integer code: x86's vcvtneps2bf16 flushes
  // subnormals to zero.
  pm.addPass(mlir::lazy::createLazyExpandBFloat16Pass());
  // A softmax's max as one vmaxps: its NaN results do not matter.
  pm.addPass(mlir::lazy::createLazyNanFreeMinMaxPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  // What LLVM has no intrinsic for (erf on f64, ...) becomes a libm call.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // bf16 values move to and from memory as i16 bits: LLVM's x86 backend
  // (without bf16 instructions) takes bf16 vector selects apart.
  pm.addPass(mlir::lazy::createLazyBFloat16BitsInLLVMPass());
}

llvm::ArrayRef<PipelineStage<CpuPipelineOptions>> lazyc::cpuPipelineStages() {
  using Options = CpuPipelineOptions;
  static const PipelineStage<Options> stages[] = {
      {"lazy-lower-to-linalg", "lower to linalg",
       "Composites to primitives, cleanup, lazy to linalg on tensors",
       [](OpPassManager &pm, const Options &) {
         buildLowerToLinalgPipeline(pm);
       }},
      {"lazy-cpu-fuse", "fuse",
       "Fuse linalg-on-tensors (elementwise chains, broadcasts, transposes), "
       "clean up, and cut long sums into blocks",
       buildCpuFusePipeline},
      {"lazy-cpu-tile", "tile and vectorize",
       "Spread linalg over threads and vectorize its tiles",
       buildCpuTilePipeline},
      {"lazy-cpu-bufferize", "bufferize",
       "Bufferize; function results become caller-owned out-parameters",
       buildCpuBufferizePipeline},
      {"lazy-cpu-to-llvm", "lower to LLVM",
       "Lower bufferized linalg and all upstream dialects to the LLVM dialect",
       buildCpuToLLVMPipeline},
  };
  return stages;
}

void lazyc::buildCpuPipeline(OpPassManager &pm,
                             const CpuPipelineOptions &options) {
  for (const PipelineStage<CpuPipelineOptions> &stage : cpuPipelineStages())
    stage.build(pm, options);
}
