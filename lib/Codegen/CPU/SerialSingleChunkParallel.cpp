//===- SerialSingleChunkParallel.cpp - No thread team for one chunk -------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-serial-single-chunk-parallel.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYSERIALSINGLECHUNKPARALLELPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
/// The loop nest of `parallel`'s worksharing loop, if the region is what
/// convert-scf-to-openmp makes of an scf.parallel: one omp.wsloop whose
/// bounds are computed before the region.
omp::LoopNestOp workshareLoop(omp::ParallelOp parallel) {
  omp::LoopNestOp found;
  unsigned loops = 0;
  parallel.getRegion().walk([&](omp::LoopNestOp nest) {
    ++loops;
    found = nest;
  });
  if (loops != 1 || found.getLoopInclusive() ||
      !isa<omp::WsloopOp>(found->getParentOp()))
    return nullptr;
  for (Value bound : found->getOperands())
    if (parallel.getRegion().isAncestor(bound.getParentRegion()))
      return nullptr;
  return found;
}

/// Whether `nest` has at most one iteration, if its bounds are constants.
std::optional<bool> atMostOneIterationIfConstant(omp::LoopNestOp nest) {
  int64_t iterations = 1;
  for (auto [lower, upper, step] :
       llvm::zip(nest.getLoopLowerBounds(), nest.getLoopUpperBounds(),
                 nest.getLoopSteps())) {
    std::optional<int64_t> l = getConstantIntValue(lower);
    std::optional<int64_t> u = getConstantIntValue(upper);
    std::optional<int64_t> s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    iterations *= *u > *l ? llvm::divideCeil(*u - *l, *s) : 0;
    if (iterations > 1)
      return false;
  }
  return true;
}

struct LazySerialSingleChunkParallelPass
    : mlir::lazy::impl::LazySerialSingleChunkParallelPassBase<
          LazySerialSingleChunkParallelPass> {
  void runOnOperation() override {
    getOperation()->walk([](omp::ParallelOp parallel) {
      if (parallel.getIfExpr())
        return;
      omp::LoopNestOp nest = workshareLoop(parallel);
      if (!nest)
        return;
      std::optional<bool> single = atMostOneIterationIfConstant(nest);
      if (single == false)
        return;
      // More than one iteration: every dimension has one, and one has two.
      OpBuilder builder(parallel);
      Location loc = parallel.getLoc();
      Value nonEmpty, several;
      for (auto [lower, upper, step] :
           llvm::zip(nest.getLoopLowerBounds(), nest.getLoopUpperBounds(),
                     nest.getLoopSteps())) {
        Value one = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::slt, lower, upper);
        Value second = arith::AddIOp::create(builder, loc, lower, step);
        Value two = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::slt, second, upper);
        nonEmpty =
            nonEmpty ? arith::AndIOp::create(builder, loc, nonEmpty, one) : one;
        several =
            several ? arith::OrIOp::create(builder, loc, several, two) : two;
      }
      Value multiple = arith::AndIOp::create(builder, loc, nonEmpty, several);
      parallel.getIfExprMutable().assign(multiple);
    });
  }
};
} // namespace
