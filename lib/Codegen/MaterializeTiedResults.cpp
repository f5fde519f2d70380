//===- MaterializeTiedResults.cpp - Tied results in their arguments -------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-materialize-tied-results: on buffers, a result
// tied to an argument (`lazy.tied_argument`) that bufferization had to
// compute elsewhere is copied over the argument last.
//
//===----------------------------------------------------------------------===//

#include "BufferCopies.h"
#include "TiedResults.h"
#include "lazyc/Codegen/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYMATERIALIZETIEDRESULTSPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyMaterializeTiedResultsPass
    : mlir::lazy::impl::LazyMaterializeTiedResultsPassBase<
          LazyMaterializeTiedResultsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<unsigned, BlockArgument>> ties;
    func::ReturnOp ret = mlir::lazy::tiedResults(getOperation(), ties);
    // Tied results computed elsewhere (a later read of the old value forbade
    // writing over it) are copied over their arguments last.
    SmallVector<std::pair<unsigned, BlockArgument>> copiesOver;
    llvm::SmallPtrSet<Value, 4> overwritten;
    for (auto [result, argument] : ties) {
      Value value = ret.getOperand(result);
      if (value == argument || !isa<MemRefType>(value.getType()))
        continue;
      copiesOver.push_back({result, argument});
      overwritten.insert(argument);
    }
    if (copiesOver.empty())
      return;
    // A returned buffer that is (a view of) an argument about to be
    // overwritten is copied out first: the old value of `max(w, w)`, which
    // folded to w, or the source of another tied result.
    OpBuilder b(ret);
    Location loc = ret.getLoc();
    for (OpOperand &operand : ret->getOpOperands()) {
      Value root = operand.get();
      while (auto view = root.getDefiningOp<ViewLikeOpInterface>())
        root = view.getViewSource();
      if (overwritten.contains(root))
        operand.set(mlir::lazy::copyToNewBuffer(b, loc, operand.get()));
    }
    for (auto [result, argument] : copiesOver) {
      memref::CopyOp::create(b, loc, ret.getOperand(result), argument);
      ret.setOperand(result, argument);
    }
  }
};
} // namespace
