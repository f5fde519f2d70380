//===- OutlineLoopNests.cpp - A function per loop nest --------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-outline-loop-nests.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYOUTLINELOOPNESTSPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// Clones into `region` (at its start) the constants defined outside it that
/// it uses, so that they do not become arguments of the outlined function.
/// The region's operands are rewritten in one walk: a constant shared by the
/// whole function has uses in every loop nest, and replacing each one's uses
/// value by value made the pass quadratic in the loop nests (2.1 s of the
/// 24-layer GPT-2 step's pipeline, 0.5 s at 12 layers).
static void cloneConstantsInto(RewriterBase &rewriter, Region &region) {
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(region, captured);
  rewriter.setInsertionPointToStart(&region.front());
  IRMapping copies;
  for (Value value : captured) {
    Operation *definition = value.getDefiningOp();
    if (definition && definition->hasTrait<OpTrait::ConstantLike>())
      copies.map(value, rewriter.clone(*definition)->getResult(0));
  }
  if (copies.getValueMap().empty())
    return;
  region.walk([&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands())
      if (Value copy = copies.lookupOrNull(operand.get()))
        rewriter.modifyOpInPlace(op, [&] { operand.set(copy); });
  });
}

/// Whether `op` is a serial loop nest that can move into a function: an
/// `scf.for` whose results no one needs.
static bool isSerialLoopNest(Operation &op) {
  auto loop = dyn_cast<scf::ForOp>(op);
  return loop && loop->getNumResults() == 0;
}

/// Moves `loop` into a function of its own named `name`, called in its place,
/// and puts that function after `previous`; returns it.
static FailureOr<func::FuncOp> outline(RewriterBase &rewriter, Operation *loop,
                                       StringRef name, Operation *previous) {
  // outlineSingleBlockRegion outlines a region: wrap the loop in one.
  rewriter.setInsertionPoint(loop);
  auto wrapper =
      scf::ExecuteRegionOp::create(rewriter, loop->getLoc(), TypeRange());
  Block *body = rewriter.createBlock(&wrapper.getRegion());
  rewriter.setInsertionPointToStart(body);
  scf::YieldOp::create(rewriter, loop->getLoc());
  rewriter.moveOpBefore(loop, body->getTerminator());
  cloneConstantsInto(rewriter, wrapper.getRegion());

  func::CallOp call;
  FailureOr<func::FuncOp> function = outlineSingleBlockRegion(
      rewriter, loop->getLoc(), wrapper.getRegion(), name, &call);
  if (failed(function))
    return failure();
  (*function)->moveAfter(previous);
  function->setPrivate();
  // LLVM would inline a private function called once back into the trace.
  (*function)->setAttr(
      "passthrough", rewriter.getArrayAttr(rewriter.getStringAttr("noinline")));
  // The wrapper now holds only the call: put the call in its place.
  rewriter.setInsertionPoint(wrapper);
  rewriter.moveOpBefore(call, wrapper);
  rewriter.eraseOp(wrapper);
  return function;
}

/// The text of `function` with a fixed name: equal for functions of one
/// type whose bodies are the same ops on the same arguments.
static std::string bodyText(func::FuncOp function) {
  StringAttr name = function.getSymNameAttr();
  function.setSymName("nest");
  std::string text;
  llvm::raw_string_ostream stream(text);
  function->print(stream, OpPrintingFlags().useLocalScope());
  function.setSymNameAttr(name);
  return text;
}

/// Keeps one of each set of identical `outlined` functions and calls it in
/// place of the others: a model's layers of one shape (a DenseNet block's
/// 3x3 convolutions, whose weights are arguments) are compiled once.
static void mergeIdenticalFunctions(ModuleOp module,
                                    ArrayRef<func::FuncOp> outlined) {
  llvm::StringMap<func::FuncOp> first;
  llvm::DenseMap<StringAttr, FlatSymbolRefAttr> replacement;
  for (func::FuncOp function : outlined) {
    auto [kept, inserted] = first.try_emplace(bodyText(function), function);
    if (inserted)
      continue;
    replacement[function.getSymNameAttr()] =
        FlatSymbolRefAttr::get(kept->second.getSymNameAttr());
  }
  if (replacement.empty())
    return;
  module.walk([&](func::CallOp call) {
    auto found = replacement.find(call.getCalleeAttr().getAttr());
    if (found != replacement.end())
      call.setCalleeAttr(found->second);
  });
  for (func::FuncOp function : outlined)
    if (replacement.count(function.getSymNameAttr()))
      function.erase();
}

namespace {
struct LazyOutlineLoopNestsPass
    : mlir::lazy::impl::LazyOutlineLoopNestsPassBase<LazyOutlineLoopNestsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    IRRewriter rewriter(&getContext());
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    SmallVector<func::FuncOp> outlinedFunctions;
    for (func::FuncOp function : functions) {
      if (function.isExternal())
        continue;
      SmallVector<Operation *> loops;
      for (Block &block : function.getBody())
        for (Operation &op : block)
          if (isa<scf::ParallelOp>(op) || isSerialLoopNest(op))
            loops.push_back(&op);
      // A serial loop nest alone has nothing to be compiled beside.
      if (loops.size() == 1 && !isa<scf::ParallelOp>(loops.front()))
        loops.clear();
      // The trace first, then its loops in order.
      Operation *previous = function;
      for (auto [index, loop] : llvm::enumerate(loops)) {
        std::string name =
            (function.getName() + "_loop" + llvm::Twine(index)).str();
        if (symbols.lookup(name)) {
          loop->emitError("cannot outline into @")
              << name << ": the name is taken";
          return signalPassFailure();
        }
        FailureOr<func::FuncOp> outlined =
            outline(rewriter, loop, name, previous);
        if (failed(outlined)) {
          loop->emitError("cannot outline this loop nest");
          return signalPassFailure();
        }
        previous = *outlined;
        outlinedFunctions.push_back(*outlined);
      }
    }
    mergeIdenticalFunctions(module, outlinedFunctions);
  }
};
} // namespace
