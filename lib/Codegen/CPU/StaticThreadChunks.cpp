//===- StaticThreadChunks.cpp - Thread loops without worksharing calls ----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-static-thread-chunks: the worksharing loop of an
// omp.parallel made of an scf.parallel becomes a plain loop over the calling
// thread's block of iterations, computed from its number in the team.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Utils/Utils.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYSTATICTHREADCHUNKSPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// The one-dimensional loop nest of `parallel`'s worksharing loop, if the
/// region is exactly what convert-scf-to-openmp makes of an scf.parallel
/// without reductions: an omp.wsloop with no clauses, then the terminator.
static omp::LoopNestOp plainWorkshareLoop(omp::ParallelOp parallel) {
  Region &region = parallel.getRegion();
  if (!region.hasOneBlock() || region.front().getOperations().size() != 2)
    return nullptr;
  auto wsloop = dyn_cast<omp::WsloopOp>(region.front().front());
  if (!wsloop)
    return nullptr;
  if (!wsloop.getReductionVars().empty() || !wsloop.getPrivateVars().empty() ||
      !wsloop.getLinearVars().empty() || wsloop.getScheduleKind() ||
      wsloop.getOrdered() || wsloop.getOrder())
    return nullptr;
  auto nest = dyn_cast<omp::LoopNestOp>(wsloop.getWrappedLoop());
  if (!nest || nest.getLoopInclusive() || nest.getIVs().size() != 1 ||
      !nest.getIVs()[0].getType().isIndex())
    return nullptr;
  return nest;
}

namespace {
struct LazyStaticThreadChunksPass
    : mlir::lazy::impl::LazyStaticThreadChunksPassBase<
          LazyStaticThreadChunksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<omp::ParallelOp, omp::LoopNestOp>> loops;
    module.walk([&](omp::ParallelOp parallel) {
      if (omp::LoopNestOp nest = plainWorkshareLoop(parallel))
        loops.push_back({parallel, nest});
    });
    if (loops.empty())
      return;
    // The OpenMP runtime's functions, declared once.
    OpBuilder declarations(module.getBodyRegion());
    auto runtimeFunction = [&](StringRef name) {
      return *func::lookupOrCreateFnDecl(declarations, module, name, {},
                                         nullptr, declarations.getI32Type());
    };
    func::FuncOp threadNumber = runtimeFunction("omp_get_thread_num");
    func::FuncOp teamSize = runtimeFunction("omp_get_num_threads");
    for (auto [parallel, nest] : loops) {
      auto wsloop = cast<omp::WsloopOp>(nest->getParentOp());
      OpBuilder b(wsloop);
      Location loc = wsloop.getLoc();
      Type index = b.getIndexType();
      auto call = [&](func::FuncOp function) {
        Value value =
            func::CallOp::create(b, loc, function, ValueRange{}).getResult(0);
        return arith::IndexCastOp::create(b, loc, index, value).getResult();
      };
      Value thread = call(threadNumber), threads = call(teamSize);
      Value lower = nest.getLoopLowerBounds()[0];
      Value upper = nest.getLoopUpperBounds()[0];
      Value step = nest.getLoopSteps()[0];
      // Iterations [begin, end) of ceil(count / threads) each, as the
      // static schedule deals them (in order, one block per thread).
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value span = arith::MaxSIOp::create(
          b, loc, arith::SubIOp::create(b, loc, upper, lower), zero);
      Value count = arith::CeilDivUIOp::create(b, loc, span, step);
      Value chunk = arith::CeilDivUIOp::create(b, loc, count, threads);
      Value begin = arith::MinUIOp::create(
          b, loc, arith::MulIOp::create(b, loc, thread, chunk), count);
      Value end = arith::MinUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, begin, chunk), count);
      // The loop as blocks of the region (a later pass lowers the body's
      // alloca scopes into blocks, which an scf.for could not hold):
      // entry -> header(k) -> the nest's blocks -> header(k + 1) ... -> rest.
      Block *entry = wsloop->getBlock();
      Block *rest = entry->splitBlock(wsloop);
      Region &region = parallel.getRegion();
      Block *header = b.createBlock(rest, {index}, {loc});
      b.setInsertionPointToEnd(entry);
      cf::BranchOp::create(b, loc, header, ValueRange{begin});
      Block *first = &nest.getRegion().front();
      region.getBlocks().splice(rest->getIterator(),
                                nest.getRegion().getBlocks());
      b.setInsertionPointToEnd(header);
      Value k = header->getArgument(0);
      Value more =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, k, end);
      Value iv = arith::AddIOp::create(b, loc, lower,
                                       arith::MulIOp::create(b, loc, k, step));
      cf::CondBranchOp::create(b, loc, more, first, ValueRange{iv}, rest,
                               ValueRange{});
      // Each end of an iteration goes on to the next.
      SmallVector<omp::YieldOp> yields;
      for (Block &block :
           llvm::make_range(first->getIterator(), rest->getIterator()))
        if (auto yield = dyn_cast<omp::YieldOp>(block.getTerminator()))
          yields.push_back(yield);
      for (omp::YieldOp yield : yields) {
        b.setInsertionPoint(yield);
        Value next = arith::AddIOp::create(b, loc, k, one);
        cf::BranchOp::create(b, loc, header, ValueRange{next});
        yield->erase();
      }
      wsloop->erase();
    }
  }
};
} // namespace
