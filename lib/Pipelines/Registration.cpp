//===- Registration.cpp - lazyc-opt names for every pipeline --------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file registers each target's pipeline, whole and stage by stage,
// with MLIR's pass registry, from the same stage lists the JIT runs.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

void lazyc::registerPipelines() {
  llvm::StringSet<> registered;
  for (const PipelineStage<CpuPipelineOptions> &stage : cpuPipelineStages()) {
    PassPipelineRegistration<CpuPipelineOptions>(stage.flag, stage.description,
                                                 stage.build);
    registered.insert(stage.flag);
  }
  // Stages the GPU shares with the CPU (lazy-lower-to-linalg) are there.
  for (const PipelineStage<GpuPipelineOptions> &stage : gpuPipelineStages())
    if (!registered.contains(stage.flag))
      PassPipelineRegistration<GpuPipelineOptions>(
          stage.flag, stage.description, stage.build);
  PassPipelineRegistration<GpuPipelineOptions>(
      "lazy-gpu-pipeline",
      "The whole GPU pipeline: lazy dialect to PTX kernels and a host "
      "function in the LLVM dialect",
      buildGpuPipeline);
  PassPipelineRegistration<CpuPipelineOptions>(
      "lazy-cpu-pipeline",
      "The whole CPU pipeline: lazy dialect to the LLVM dialect",
      buildCpuPipeline);
  PassPipelineRegistration<CpuPipelineOptions>(
      "lazy-lower-to-llvm",
      "The whole CPU pipeline (lazy-cpu-pipeline under its first name)",
      buildCpuPipeline);
}
