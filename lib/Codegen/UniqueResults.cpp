//===- UniqueResults.cpp - One value per function result ------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-unique-results. (Upstream's
// buffer-results-to-out-params with hoist-static-allocs also crashes on an
// allocation returned twice.)
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYUNIQUERESULTSPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyUniqueResultsPass
    : mlir::lazy::impl::LazyUniqueResultsPassBase<LazyUniqueResultsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      llvm::DenseSet<Value> seen;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (!type || seen.insert(value).second)
          continue;
        SmallVector<OpFoldResult> sizes =
            tensor::getMixedSizes(b, ret.getLoc(), value);
        Value empty = tensor::EmptyOp::create(b, ret.getLoc(), sizes,
                                              type.getElementType());
        operand.set(
            linalg::CopyOp::create(b, ret.getLoc(), value, empty).getResult(0));
      }
    });
  }
};
} // namespace
