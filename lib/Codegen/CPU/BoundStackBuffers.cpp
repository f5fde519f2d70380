//===- BoundStackBuffers.cpp - A function's stack buffers, bounded --------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-bound-stack-buffers.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYBOUNDSTACKBUFFERSPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyBoundStackBuffersPass
    : mlir::lazy::impl::LazyBoundStackBuffersPassBase<
          LazyBoundStackBuffersPass> {
  using LazyBoundStackBuffersPassBase::LazyBoundStackBuffersPassBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    int64_t bytes = 0;
    SmallVector<memref::AllocaOp> allocas(
        function.getBody().front().getOps<memref::AllocaOp>());
    for (memref::AllocaOp alloca : allocas) {
      MemRefType type = alloca.getType();
      if (!type.hasStaticShape())
        continue;
      int64_t bits = type.getElementType().isIntOrFloat()
                         ? type.getElementTypeBitWidth()
                         : 64; // An index.
      bytes += type.getNumElements() * llvm::divideCeil(bits, 8);
      if (bytes <= maxBytes)
        continue;
      OpBuilder builder(alloca);
      auto alloc = memref::AllocOp::create(
          builder, alloca.getLoc(), type, alloca.getDynamicSizes(),
          alloca.getSymbolOperands(), alloca.getAlignmentAttr());
      alloca.replaceAllUsesWith(alloc.getResult());
      alloca.erase();
    }
  }
};
} // namespace
