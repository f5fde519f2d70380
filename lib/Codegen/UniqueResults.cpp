//===- UniqueResults.cpp - One value per function result ------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-unique-results, on tensors (before
// bufferization) and on memrefs (before buffer-results-to-out-params, whose
// hoist-static-allocs crashes on an allocation returned twice).
//
//===----------------------------------------------------------------------===//

#include "BufferCopies.h"
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
        if (seen.insert(value).second)
          continue;
        Location loc = ret.getLoc();
        if (auto type = dyn_cast<RankedTensorType>(value.getType())) {
          SmallVector<OpFoldResult> sizes =
              tensor::getMixedSizes(b, loc, value);
          Value empty =
              tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
          operand.set(
              linalg::CopyOp::create(b, loc, value, empty).getResult(0));
        } else if (isa<MemRefType>(value.getType())) {
          operand.set(mlir::lazy::copyToNewBuffer(b, loc, value));
        }
      }
    });
  }
};
} // namespace
