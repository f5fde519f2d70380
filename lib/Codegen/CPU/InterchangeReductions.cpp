//===- InterchangeReductions.cpp - Reductions in their operands' order ----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-cpu-interchange-reductions.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYCPUINTERCHANGEREDUCTIONSPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// The one permutation other than the identity through which `op` reads
/// every input that has a dimension per loop, if there is one (broadcast
/// inputs, which skip loops, do not count).
static std::optional<SmallVector<unsigned>>
sharedInputOrder(linalg::GenericOp op) {
  std::optional<AffineMap> shared;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return std::nullopt;
    if (!map.isPermutation())
      continue;
    if (shared && map != *shared)
      return std::nullopt;
    shared = map;
  }
  if (!shared || shared->isIdentity())
    return std::nullopt;
  return llvm::map_to_vector(shared->getResults(), [](AffineExpr e) {
    return cast<AffineDimExpr>(e).getPosition();
  });
}

namespace {
struct LazyCpuInterchangeReductionsPass
    : mlir::lazy::impl::LazyCpuInterchangeReductionsPassBase<
          LazyCpuInterchangeReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> reductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics() && op.getNumReductionLoops() > 0)
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : reductions) {
      std::optional<SmallVector<unsigned>> order = sharedInputOrder(op);
      if (!order)
        continue;
      // New loop i is old loop (*order)[i]: the inputs become identities.
      if (failed(linalg::interchangeGenericOp(rewriter, op, *order)))
        return signalPassFailure();
    }
  }
};
} // namespace
