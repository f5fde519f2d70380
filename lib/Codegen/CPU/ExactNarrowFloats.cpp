//===- ExactNarrowFloats.cpp - Rounding of emulated f16/bf16 ops ----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-exact-narrow-floats.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYEXACTNARROWFLOATSPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyExactNarrowFloatsPass
    : mlir::lazy::impl::LazyExactNarrowFloatsPassBase<
          LazyExactNarrowFloatsPass> {
  void runOnOperation() override {
    // Without `contract`, extf(truncf(x)) no longer folds to x: each
    // emulated op keeps its rounding to f16 / bf16.
    getOperation()->walk([](Operation *op) {
      if (auto ext = dyn_cast<arith::ExtFOp>(op))
        ext->removeAttr(ext.getFastmathAttrName());
      else if (auto trunc = dyn_cast<arith::TruncFOp>(op))
        trunc->removeAttr(trunc.getFastmathAttrName());
    });
  }
};
} // namespace
