//===- QueueLibraryCalls.cpp - Library calls that queue, not wait ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-gpu-queue-library-calls.
//
//===----------------------------------------------------------------------===//

#include "Launch.h"
#include "lazyc/Codegen/GPU/Passes.h"

#include "mlir/IR/SymbolTable.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPUQUEUELIBRARYCALLSPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyGpuQueueLibraryCallsPass
    : mlir::lazy::impl::LazyGpuQueueLibraryCallsPassBase<
          LazyGpuQueueLibraryCallsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::CallOp call) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee || !callee->hasAttr(lazy::kQueuesOnStreamAttr))
        return;
      // gpu-async-region puts the host's wait right before the call.
      auto wait = dyn_cast_or_null<gpu::WaitOp>(call->getPrevNode());
      if (wait && !wait.getAsyncToken())
        wait.erase();
    });
  }
};
} // namespace
