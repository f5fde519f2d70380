//===- NanFreeMinMax.cpp - Min/max whose NaN results do not matter --------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-nan-free-min-max: arith.maxnumf / minnumf
// marked `nnan` become a compare and a select, or lose the flag.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYNANFREEMINMAXPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyNanFreeMinMaxPass
    : mlir::lazy::impl::LazyNanFreeMinMaxPassBase<LazyNanFreeMinMaxPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<arith::ArithFastMathInterface> nanFree;
    getOperation()->walk([&](Operation *op) {
      if (!isa<arith::MaxNumFOp, arith::MinNumFOp>(op))
        return;
      auto fastMath = cast<arith::ArithFastMathInterface>(op);
      if (arith::bitEnumContainsAll(fastMath.getFastMathFlagsAttr().getValue(),
                                    arith::FastMathFlags::nnan))
        nanFree.push_back(fastMath);
    });
    for (arith::ArithFastMathInterface fastMath : nanFree) {
      Operation *op = fastMath.getOperation();
      arith::FastMathFlags flags = fastMath.getFastMathFlagsAttr().getValue();
      if (!selects) {
        op->setAttr(fastMath.getFastMathAttrName(),
                    arith::FastMathFlagsAttr::get(
                        op->getContext(), flags & ~arith::FastMathFlags::nnan));
        continue;
      }
      OpBuilder b(op);
      Value lhs = op->getOperand(0), rhs = op->getOperand(1);
      auto predicate = isa<arith::MaxNumFOp>(op) ? arith::CmpFPredicate::OGT
                                                 : arith::CmpFPredicate::OLT;
      Value wins = arith::CmpFOp::create(b, op->getLoc(), predicate, lhs, rhs);
      Value result = arith::SelectOp::create(b, op->getLoc(), wins, lhs, rhs);
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    }
  }
};
} // namespace
