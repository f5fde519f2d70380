//===- HoistLoopAllocas.cpp - Stack buffers allocated once per loop nest --===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-hoist-loop-allocas.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYHOISTLOOPALLOCASPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyHoistLoopAllocasPass
    : mlir::lazy::impl::LazyHoistLoopAllocasPassBase<LazyHoistLoopAllocasPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocaOp> allocas;
    getOperation().walk([&](memref::AllocaOp alloca) {
      if (alloca->getNumOperands() == 0 && alloca.getType().hasStaticShape())
        allocas.push_back(alloca);
    });
    for (memref::AllocaOp alloca : allocas) {
      // The outermost scf.for around it below any allocation scope and any
      // parallel loop.
      Operation *outermost = nullptr;
      for (Operation *parent = alloca->getParentOp(); isa<scf::ForOp>(parent);
           parent = parent->getParentOp())
        outermost = parent;
      if (!outermost)
        continue;
      Block *block = outermost->getBlock();
      alloca->moveBefore(block, block->begin());
    }
  }
};
} // namespace
