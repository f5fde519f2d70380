//===- LowerToLinalg.cpp - The target-neutral first stage -----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the stage every target's pipeline starts with: the
// `lazy` dialect, decomposed and folded, lowered to linalg on tensors.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Conversion/Passes.h"
#include "lazyc/Dialect/Lazy/Transforms/Passes.h"
#include "lazyc/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void lazyc::buildLowerToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(mlir::lazy::createLazyDecomposePass());
  pm.addPass(mlir::lazy::createLazyScheduleCollectivesPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(mlir::lazy::createConvertLazyToLinalgPass());
}
