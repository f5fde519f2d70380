//===- DeviceBuffers.cpp - The host function's buffers on the device ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-gpu-device-buffers.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/GPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPUDEVICEBUFFERSPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyGpuDeviceBuffersPass
    : mlir::lazy::impl::LazyGpuDeviceBuffersPassBase<LazyGpuDeviceBuffersPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    WalkResult result = getOperation().walk([&](Operation *op) {
      bool inKernel = op->getParentOfType<gpu::LaunchOp>() != nullptr;
      if (isa<memref::AllocOp, memref::AllocaOp>(op) && inKernel) {
        op->emitError("allocates a buffer inside a GPU kernel (each thread "
                      "would allocate its own)");
        return WalkResult::interrupt();
      }
      if (inKernel)
        return WalkResult::advance();
      rewriter.setInsertionPoint(op);
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        auto deviceAlloc = gpu::AllocOp::create(
            rewriter, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
            /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
            alloc.getSymbolOperands());
        rewriter.replaceOp(alloc, deviceAlloc.getMemref());
      } else if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
        if (alloca->hasAttr(mlir::lazy::kHostBufferAttr))
          return WalkResult::advance();
        alloca.emitError("a stack buffer on the host cannot hold device data");
        return WalkResult::interrupt();
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        gpu::DeallocOp::create(rewriter, dealloc.getLoc(),
                               /*asyncToken=*/Type(), ValueRange(),
                               dealloc.getMemref());
        rewriter.eraseOp(dealloc);
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        gpu::MemcpyOp::create(rewriter, copy.getLoc(), /*asyncToken=*/Type(),
                              ValueRange(), copy.getTarget(), copy.getSource());
        rewriter.eraseOp(copy);
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
