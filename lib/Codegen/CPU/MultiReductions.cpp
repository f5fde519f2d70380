//===- MultiReductions.cpp - Row and column vector reductions -------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-lower-multi-reductions.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYLOWERMULTIREDUCTIONSPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// Whether `reduction` reduces exactly its innermost dimensions, the lanes
/// of a row.
static bool reducesInnermostDims(vector::MultiDimReductionOp reduction) {
  SmallVector<bool> reduced = reduction.getReductionMask();
  auto firstReduced = llvm::find(reduced, true);
  return firstReduced != reduced.end() &&
         std::all_of(firstReduced, reduced.end(),
                     [](bool isReduced) { return isReduced; });
}

/// Lowers `ops` (and the ops their lowering creates) with `strategy`.
static LogicalResult lower(ArrayRef<Operation *> ops,
                           vector::VectorMultiReductionLowering strategy) {
  if (ops.empty())
    return success();
  RewritePatternSet patterns(ops.front()->getContext());
  vector::populateVectorMultiReductionLoweringPatterns(patterns, strategy);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  return applyOpPatternsGreedily(ops, std::move(patterns), config);
}

namespace {
struct LazyLowerMultiReductionsPass
    : mlir::lazy::impl::LazyLowerMultiReductionsPassBase<
          LazyLowerMultiReductionsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> rows, others;
    getOperation().walk([&](vector::MultiDimReductionOp reduction) {
      (reducesInnermostDims(reduction) ? rows : others)
          .push_back(reduction.getOperation());
    });
    if (failed(lower(rows,
                     vector::VectorMultiReductionLowering::InnerReduction)) ||
        failed(
            lower(others, vector::VectorMultiReductionLowering::InnerParallel)))
      signalPassFailure();
  }
};
} // namespace
