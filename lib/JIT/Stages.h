//===- Stages.h - Running pipeline stages for the JIT -----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycJIT: what every target's compile uses to run its
// pipeline stage by stage.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_JIT_STAGES_H
#define LAZYC_LIB_JIT_STAGES_H

#include "lazyc/JIT/CompiledFunction.h"
#include "lazyc/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace lazyc::jit {

/// Runs `build`'s passes on `module` and verifies it (with no builder, only
/// verifies it). A failure is a CompileError naming `stage`, with the
/// diagnostics the passes or the verifier emitted.
llvm::Error
runStage(mlir::ModuleOp module, llvm::StringRef stage,
         llvm::function_ref<void(mlir::OpPassManager &)> build = nullptr);

/// Verifies `module`, then runs `stages` in order with `options`, each
/// verifying its result; each stage's time goes to `stats`' phases.
template <typename Options>
llvm::Error runPipeline(mlir::ModuleOp module,
                        llvm::ArrayRef<PipelineStage<Options>> stages,
                        const Options &options, CompileStats &stats) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  if (llvm::Error error = runStage(module, "verify the input"))
    return error;
  stats.phases.push_back({"verify the input", start, Clock::now()});
  for (const PipelineStage<Options> &stage : stages) {
    stageStarted(stage.title);
    start = Clock::now();
    if (llvm::Error error =
            runStage(module, stage.title, [&](mlir::OpPassManager &pm) {
              stage.build(pm, options);
            }))
      return error;
    stats.phases.push_back({stage.title, start, Clock::now()});
  }
  return llvm::Error::success();
}

} // namespace lazyc::jit

#endif // LAZYC_LIB_JIT_STAGES_H
