//===- Fuse.cpp - The target-neutral fusion -------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the fusion every target's pipeline runs on linalg on
// tensors, after its own layout choices.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"
#include "lazyc/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void lazyc::buildFusionPipeline(OpPassManager &pm,
                                bool copySharedRightTransposes) {
  // Before fusion: a transposed GEMM operand that elementwise fusion would
  // recompute into a transposed copy (`relu(x @ w + b)^T` for a weight
  // gradient) is read in place from the stored value instead.
  mlir::lazy::LazyFoldTransposeIntoMatmulPassOptions fold;
  fold.copySharedRightTransposes = copySharedRightTransposes;
  pm.addPass(mlir::lazy::createLazyFoldTransposeIntoMatmulPass(fold));
  pm.addPass(mlir::lazy::createLazyFuseElementwisePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // A fused loop's transposed result (a channels-last convolution's output
  // going back to NCHW) is stored as its readers read it.
  pm.addPass(mlir::lazy::createLazyStoreInReadLayoutPass());
  // Results tied to donated arguments are computed over them.
  pm.addNestedPass<func::FuncOp>(mlir::lazy::createLazyUpdateInPlacePass());
}
