//===- MergeKernelModules.cpp - One gpu.module for a trace's kernels ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-gpu-merge-kernel-modules.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/GPU/Passes.h"

#include "mlir/IR/SymbolTable.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPUMERGEKERNELMODULESPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyGpuMergeKernelModulesPass
    : mlir::lazy::impl::LazyGpuMergeKernelModulesPassBase<
          LazyGpuMergeKernelModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernelModules(
        module.getOps<gpu::GPUModuleOp>());
    if (kernelModules.size() < 2)
      return;
    gpu::GPUModuleOp merged = kernelModules.front();
    MLIRContext *context = &getContext();

    // Each kernel's new name: its module's, unique in the module.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> renamed;
    for (gpu::GPUModuleOp kernelModule : kernelModules)
      for (auto kernel : kernelModule.getOps<gpu::GPUFuncOp>()) {
        if (!kernel.isKernel())
          continue;
        StringAttr name = kernelModule.getSymNameAttr();
        renamed[{name, SymbolTable::getSymbolName(kernel)}] = name;
      }
    if (renamed.size() != kernelModules.size()) {
      module.emitError("expected one kernel per outlined gpu.module");
      return signalPassFailure();
    }

    SymbolTable mergedSymbols(merged);
    for (gpu::GPUModuleOp kernelModule : kernelModules) {
      StringAttr moduleName = kernelModule.getSymNameAttr();
      for (Operation &op : llvm::make_early_inc_range(
               kernelModule.getBody()->getOperations())) {
        auto kernel = dyn_cast<gpu::GPUFuncOp>(op);
        if (kernel && kernel.isKernel()) {
          SymbolTable::setSymbolName(kernel, moduleName);
          if (kernelModule != merged)
            kernel->moveBefore(merged.getBody(), merged.getBody()->end());
          continue;
        }
        if (kernelModule == merged)
          continue;
        // Helpers outlining copied into several modules: one copy stays.
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (symbol && mergedSymbols.lookup(symbol.getNameAttr())) {
          op.erase();
          continue;
        }
        op.moveBefore(merged.getBody(), merged.getBody()->end());
        if (symbol)
          mergedSymbols.insert(&op);
      }
    }

    // Named for what it holds, where the name is free.
    SymbolTable symbols(module);
    if (!symbols.lookup("kernels"))
      symbols.setSymbolName(merged, "kernels");
    module.walk([&](gpu::LaunchFuncOp launch) {
      SymbolRefAttr kernel = launch.getKernel();
      auto found =
          renamed.find({kernel.getRootReference(), kernel.getLeafReference()});
      if (found == renamed.end())
        return;
      launch.setKernelAttr(
          SymbolRefAttr::get(merged.getSymNameAttr(),
                             {FlatSymbolRefAttr::get(context, found->second)}));
    });
    for (gpu::GPUModuleOp kernelModule : kernelModules)
      if (kernelModule != merged)
        kernelModule.erase();
  }
};
} // namespace
