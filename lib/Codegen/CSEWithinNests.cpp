//===- CSEWithinNests.cpp - Common subexpressions, one loop nest at a time -===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-cse-within-nests: MLIR's CSE applied to the
// regions of each top-level op of a function separately, and to the
// function's own ops that have no regions.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYCSEWITHINNESTSPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
/// Equal ops by CSE's rule: same name, attributes, operands and types.
struct EquivalentOp : llvm::DenseMapInfo<Operation *> {
  static unsigned getHashValue(const Operation *op) {
    return OperationEquivalence::computeHash(
        const_cast<Operation *>(op), OperationEquivalence::directHashValue,
        OperationEquivalence::ignoreHashValue,
        OperationEquivalence::IgnoreLocations);
  }
  static bool isEqual(const Operation *lhs, const Operation *rhs) {
    if (lhs == rhs)
      return true;
    if (lhs == getEmptyKey() || lhs == getTombstoneKey() ||
        rhs == getEmptyKey() || rhs == getTombstoneKey())
      return false;
    return OperationEquivalence::isEquivalentTo(
        const_cast<Operation *>(lhs), const_cast<Operation *>(rhs),
        OperationEquivalence::IgnoreLocations);
  }
};

struct LazyCSEWithinNestsPass
    : mlir::lazy::impl::LazyCSEWithinNestsPassBase<LazyCSEWithinNestsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    IRRewriter rewriter(&getContext());
    // The function's own ops first (one block: order is dominance), so
    // that the nests reading them see one value where they saw two.
    llvm::DenseSet<Operation *, EquivalentOp> seen;
    for (Operation &op :
         llvm::make_early_inc_range(function.getBody().front())) {
      if (op.getNumRegions() != 0 || op.getNumResults() == 0 ||
          !isMemoryEffectFree(&op))
        continue;
      auto [existing, inserted] = seen.insert(&op);
      if (inserted)
        continue;
      rewriter.replaceOp(&op, (*existing)->getResults());
    }
    for (Operation &nest : function.getBody().front()) {
      if (nest.getNumRegions() == 0)
        continue;
      DominanceInfo dominance(&nest);
      eliminateCommonSubExpressions(rewriter, dominance, &nest);
    }
  }
};
} // namespace
