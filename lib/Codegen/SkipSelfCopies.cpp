//===- SkipSelfCopies.cpp - No copy of a parameter onto itself ------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-skip-self-copies: the copy of a result living in
// an argument's buffer to its out-parameter is skipped when the caller
// passed the same buffer for both.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYSKIPSELFCOPIESPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazySkipSelfCopiesPass
    : mlir::lazy::impl::LazySkipSelfCopiesPassBase<LazySkipSelfCopiesPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    Block &entry = function.front();
    auto isParameter = [&](Value value) {
      auto argument = dyn_cast<BlockArgument>(value);
      return argument && argument.getOwner() == &entry;
    };
    SmallVector<memref::CopyOp> copies;
    function.walk([&](memref::CopyOp copy) {
      if (isParameter(copy.getSource()) && isParameter(copy.getTarget()))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      Location loc = copy.getLoc();
      Value source = memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, copy.getSource());
      Value target = memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, copy.getTarget());
      Value distinct = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                             source, target);
      auto guard = scf::IfOp::create(b, loc, distinct);
      copy->moveBefore(guard.thenBlock()->getTerminator());
    }
  }
};
} // namespace
