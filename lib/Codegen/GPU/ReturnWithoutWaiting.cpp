//===- ReturnWithoutWaiting.cpp - Host functions that queue, not wait -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-gpu-return-without-waiting.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/GPU/Passes.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPURETURNWITHOUTWAITINGPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyGpuReturnWithoutWaitingPass
    : mlir::lazy::impl::LazyGpuReturnWithoutWaitingPassBase<
          LazyGpuReturnWithoutWaitingPass> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      auto wait = dyn_cast_or_null<gpu::WaitOp>(ret->getPrevNode());
      if (wait && !wait.getAsyncToken())
        wait.erase();
    });
  }
};
} // namespace
