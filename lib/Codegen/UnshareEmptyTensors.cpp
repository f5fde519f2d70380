//===- UnshareEmptyTensors.cpp - One tensor.empty per destination ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-unshare-empty-tensors: every use of a
// tensor.empty gets an empty of its own, placed where the shared one was.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYUNSHAREEMPTYTENSORSPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyUnshareEmptyTensorsPass
    : mlir::lazy::impl::LazyUnshareEmptyTensorsPassBase<
          LazyUnshareEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> shared;
    getOperation().walk([&](tensor::EmptyOp empty) {
      if (!empty->hasOneUse() && !empty->use_empty())
        shared.push_back(empty);
    });
    for (tensor::EmptyOp empty : shared) {
      OpBuilder builder(empty);
      // The first use keeps the original; uses are collected first because
      // setting an operand unlinks it from the list being walked.
      SmallVector<OpOperand *> uses =
          llvm::map_to_vector(llvm::drop_begin(empty->getUses()),
                              [](OpOperand &use) { return &use; });
      for (OpOperand *use : uses)
        use->set(builder.clone(*empty)->getResult(0));
    }
  }
};
} // namespace
