//===- TreeReductions.cpp - Horizontal vector sums as trees ---------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-tree-reductions.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYTREEREDUCTIONSPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyTreeReductionsPass
    : mlir::lazy::impl::LazyTreeReductionsPassBase<LazyTreeReductionsPass> {
  void runOnOperation() override {
    getOperation()->walk([](vector::ReductionOp reduction) {
      vector::CombiningKind kind = reduction.getKind();
      if (!isa<FloatType>(reduction.getType()) ||
          (kind != vector::CombiningKind::ADD &&
           kind != vector::CombiningKind::MUL))
        return;
      reduction.setFastmath(reduction.getFastmath() |
                            arith::FastMathFlags::reassoc);
    });
  }
};
} // namespace
