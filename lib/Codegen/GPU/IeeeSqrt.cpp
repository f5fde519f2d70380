//===- IeeeSqrt.cpp - Correctly rounded f32 square roots in kernels -------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-gpu-ieee-sqrt.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/GPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPUIEEESQRTPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyGpuIeeeSqrtPass
    : mlir::lazy::impl::LazyGpuIeeeSqrtPassBase<LazyGpuIeeeSqrtPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee || *callee != "__nv_sqrtf" || call.getNumOperands() != 1)
        return;
      rewriter.setInsertionPoint(call);
      rewriter.replaceOpWithNewOp<LLVM::SqrtOp>(
          call, call.getResult().getType(), call.getOperand(0));
    });
    if (auto declaration =
            getOperation().lookupSymbol<LLVM::LLVMFuncOp>("__nv_sqrtf"))
      if (declaration.isExternal() &&
          SymbolTable::symbolKnownUseEmpty(declaration, getOperation()))
        declaration.erase();
  }
};
} // namespace
