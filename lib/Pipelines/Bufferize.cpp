//===- Bufferize.cpp - The target-neutral bufferization -------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the bufferization every target's pipeline runs:
// tensors become buffers, results become out-parameters the caller
// allocates. Each target then places and frees its temporaries.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"
#include "lazyc/Pipelines/Pipelines.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void lazyc::buildBufferizePipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(mlir::lazy::createLazyUpdateInPlacePass());
  pm.addNestedPass<func::FuncOp>(mlir::lazy::createLazyUniqueResultsPass());
  pm.addNestedPass<func::FuncOp>(mlir::lazy::createLazyReadOnlyArgumentsPass());
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyUnshareEmptyTensorsPass());
  // Write results straight into their destinations where possible; the
  // tensor.empty ops left become allocations.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createEmptyTensorToAllocTensorPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // A whileLoop's body computes its next carried values in new buffers
  // (the deallocation pipeline frees the previous ones).
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Folds loop results into the buffers they write, so that a returned
  // buffer is visibly the allocation (and becomes the out-parameter).
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyMaterializeTiedResultsPass());
  pm.addNestedPass<func::FuncOp>(mlir::lazy::createLazyUniqueResultsPass());
  // Results become out-parameters the caller allocates; statically shaped
  // results are computed in place instead of being copied there.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  // ... and so are reshapes of allocations.
  pm.addNestedPass<func::FuncOp>(
      mlir::lazy::createLazyReshapedResultsInPlacePass());
  pm.addPass(mlir::lazy::createLazyCheckOutputShapesPass());
  pm.addNestedPass<func::FuncOp>(mlir::lazy::createLazySkipSelfCopiesPass());
  pm.addPass(createCanonicalizerPass());
}
