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

#include "Launch.h"
#include "lazyc/Codegen/GPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPUDEVICEBUFFERSPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// A constant's `memref.get_global` on the host addresses host memory, which
/// no kernel and no library call on the device can read. A kernel reading
/// it gets a `memref.get_global` of its own: outlining copies the global
/// into the kernel's module, which holds it in device memory. The host's
/// other readers (views, library calls) share a device copy made for the
/// call; a copy out of the constant stays (a host-to-device copy).
static void placeConstantOnDevice(IRRewriter &rewriter,
                                  memref::GetGlobalOp global) {
  llvm::SmallDenseMap<Operation *, Value> inLaunch;
  SmallVector<OpOperand *> onDevice;
  for (OpOperand &use : llvm::make_early_inc_range(global->getUses())) {
    Operation *user = use.getOwner();
    if (auto launch = user->getParentOfType<gpu::LaunchOp>()) {
      Value &local = inLaunch[launch];
      if (!local) {
        rewriter.setInsertionPointToStart(&launch.getBody().front());
        local = rewriter.clone(*global)->getResult(0);
      }
      use.set(local);
    } else if (!(isa<memref::CopyOp>(user) && use.getOperandNumber() == 0)) {
      onDevice.push_back(&use);
    }
  }
  if (!onDevice.empty()) {
    // Made on entry and freed on return (the host function has one block:
    // structured control flow), wherever the constant was read.
    auto function = global->getParentOfType<func::FuncOp>();
    Block &body = function.getBody().front();
    rewriter.setInsertionPointToStart(&body);
    Location loc = global.getLoc();
    Value host = rewriter.clone(*global)->getResult(0);
    Value copy = gpu::AllocOp::create(rewriter, loc, global.getType(),
                                      /*asyncToken=*/Type(), ValueRange(),
                                      ValueRange(), ValueRange())
                     .getMemref();
    gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange(),
                          copy, host);
    for (OpOperand *use : onDevice)
      use->set(copy);
    rewriter.setInsertionPoint(body.getTerminator());
    gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange(),
                           copy);
  }
  if (global->use_empty())
    rewriter.eraseOp(global);
}

/// A kernel's load of host memory (a promoted literal, a size, a shape) at
/// an index known before the kernel moves in front of it: the host reads the
/// value, and outlining passes it to the kernel as a parameter. Constant
/// indices come along. Returns false if an index varies in the kernel.
static bool hoistHostLoad(IRRewriter &rewriter, memref::LoadOp load,
                          gpu::LaunchOp launch) {
  SmallVector<Value> indices;
  rewriter.setInsertionPoint(launch);
  for (Value index : load.getIndices()) {
    if (!launch->isAncestor(index.getParentBlock()->getParentOp())) {
      indices.push_back(index);
      continue;
    }
    Operation *definition = index.getDefiningOp();
    if (!definition || !definition->hasTrait<OpTrait::ConstantLike>())
      return false;
    indices.push_back(rewriter.clone(*definition)->getResult(0));
  }
  Value value = memref::LoadOp::create(rewriter, load.getLoc(),
                                       load.getMemRef(), indices);
  rewriter.replaceOp(load, value);
  return true;
}

namespace {
struct LazyGpuDeviceBuffersPass
    : mlir::lazy::impl::LazyGpuDeviceBuffersPassBase<LazyGpuDeviceBuffersPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<memref::GetGlobalOp> globals;
    getOperation().walk([&](memref::GetGlobalOp global) {
      if (!global->getParentOfType<gpu::LaunchOp>())
        globals.push_back(global);
    });
    for (memref::GetGlobalOp global : globals)
      placeConstantOnDevice(rewriter, global);
    SmallVector<std::pair<memref::LoadOp, gpu::LaunchOp>> hostLoads;
    getOperation().walk([&](memref::LoadOp load) {
      if (auto launch = load->getParentOfType<gpu::LaunchOp>();
          launch && mlir::lazy::isHostBuffer(load.getMemRef()))
        hostLoads.push_back({load, launch});
    });
    for (auto [load, launch] : hostLoads)
      if (!hoistHostLoad(rewriter, load, launch)) {
        load.emitError("reads host memory (")
            << mlir::lazy::describeHostBuffer(load.getMemRef())
            << ") at an index that varies inside a GPU kernel";
        return signalPassFailure();
      }
    WalkResult result = getOperation().walk([&](Operation *op) {
      bool inKernel = op->getParentOfType<gpu::LaunchOp>() != nullptr;
      if (isa<memref::AllocOp, memref::AllocaOp>(op) && inKernel) {
        op->emitError("allocates a buffer inside a GPU kernel (each thread "
                      "would allocate its own)");
        return WalkResult::interrupt();
      }
      if (inKernel) {
        for (Value operand : op->getOperands())
          if (mlir::lazy::isHostBuffer(operand)) {
            op->emitError("uses ")
                << mlir::lazy::describeHostBuffer(operand)
                << ", which is host memory, inside a GPU kernel";
            return WalkResult::interrupt();
          }
        return WalkResult::advance();
      }
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
