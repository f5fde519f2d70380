//===- ParallelLoopsOutermost.cpp - Reductions inside the parallel loops --===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-gpu-parallel-loops-outermost.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPUPARALLELLOOPSOUTERMOSTPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyGpuParallelLoopsOutermostPass
    : mlir::lazy::impl::LazyGpuParallelLoopsOutermostPassBase<
          LazyGpuParallelLoopsOutermostPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics) {
      // The parallel dimensions in their order, then the reductions.
      SmallVector<utils::IteratorType> kinds = op.getIteratorTypesArray();
      auto order = llvm::to_vector(llvm::seq<unsigned>(0, kinds.size()));
      std::stable_partition(order.begin(), order.end(), [&](unsigned dim) {
        return linalg::isParallelIterator(kinds[dim]);
      });
      if (llvm::is_sorted(order))
        continue;
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op, order))) {
        op.emitError("cannot move the parallel loops outermost");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
