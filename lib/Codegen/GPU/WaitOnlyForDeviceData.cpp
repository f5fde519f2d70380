//===- WaitOnlyForDeviceData.cpp - Host waits only to read device data ----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-gpu-wait-only-for-device-data.
//
//===----------------------------------------------------------------------===//

#include "Launch.h"
#include "lazyc/Codegen/GPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPUWAITONLYFORDEVICEDATAPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// Whether the device never writes `buffer`: host memory that no copy
/// targets.
static bool onlyTheHostWrites(Value buffer) {
  if (!lazy::isHostBuffer(buffer))
    return false;
  return llvm::none_of(buffer.getUsers(), [&](Operation *user) {
    if (auto copy = dyn_cast<gpu::MemcpyOp>(user))
      return copy.getDst() == buffer;
    return isa<memref::CopyOp>(user);
  });
}

/// Whether `op` may run before the device's queued work is done.
static bool needsNoWait(Operation *op) {
  if (auto call = dyn_cast<func::CallOp>(op)) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    return callee && callee->hasAttr(lazy::kQueuesOnStreamAttr);
  }
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return onlyTheHostWrites(load.getMemRef());
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return onlyTheHostWrites(store.getMemRef());
  return false;
}

namespace {
struct LazyGpuWaitOnlyForDeviceDataPass
    : mlir::lazy::impl::LazyGpuWaitOnlyForDeviceDataPassBase<
          LazyGpuWaitOnlyForDeviceDataPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::WaitOp wait) {
      // gpu-async-region puts the host's wait right before the op that made
      // it wait.
      Operation *next = wait->getNextNode();
      if (!wait.getAsyncToken() && next && needsNoWait(next))
        wait.erase();
    });
  }
};
} // namespace
