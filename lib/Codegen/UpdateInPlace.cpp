//===- UpdateInPlace.cpp - Results written over donated arguments ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-update-in-place and lazy-skip-self-copies.
//
// A result marked `lazy.tied_argument = i` lives in argument i's buffer: the
// caller passes that buffer as both (a variable's old value, dead after the
// step, becomes its new value). On tensors the result is materialized in the
// argument, so one-shot bufferization either computes it there or, when a
// later read of the old value forbids that, copies it there at the end:
// correct either way. The pass makes the first case happen for the common
// one, an elementwise update `w - lr * g`: the update writes into the
// argument, reads the old value through its own output (the tiled loop then
// reads the slice it writes, which bufferization accepts in place), and runs
// after every other reader of the argument.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYUPDATEINPLACEPASS
#define GEN_PASS_DEF_LAZYSKIPSELFCOPIESPASS
#define GEN_PASS_DEF_LAZYMATERIALIZETIEDRESULTSPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

static constexpr StringLiteral kTiedArgument = "lazy.tied_argument";

/// Moves `update` after every other op of its block that reads `argument`,
/// if its own users all come after them. Returns false if it cannot.
static bool runAfterOtherReaders(Operation *update, Value argument) {
  Block *block = update->getBlock();
  Operation *lastReader = nullptr;
  for (Operation *user : argument.getUsers()) {
    Operation *reader = block->findAncestorOpInBlock(*user);
    if (!reader)
      return false;
    if (reader != update &&
        (!lastReader || lastReader->isBeforeInBlock(reader)))
      lastReader = reader;
  }
  if (!lastReader || lastReader->isBeforeInBlock(update))
    return true;
  for (Operation *user : update->getUsers()) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor || !lastReader->isBeforeInBlock(ancestor))
      return false;
  }
  update->moveAfter(lastReader);
  return true;
}

/// Makes the elementwise op computing `result` write it into `argument`
/// (see the file comment). Leaves anything else alone.
static void writeIntoArgument(OpResult result, BlockArgument argument) {
  auto generic = dyn_cast<linalg::GenericOp>(result.getOwner());
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      result.getType() != argument.getType())
    return;
  unsigned index = result.getResultNumber();
  OpOperand *init = generic.getDpsInitOperand(index);
  if (init->get() == argument || generic.payloadUsesValueFromOperand(init))
    return;
  // The old value must be read where the new one is written.
  AffineMap writeMap = generic.getMatchingIndexingMap(init);
  for (OpOperand &operand : generic->getOpOperands())
    if (operand.get() == argument &&
        (!generic.isDpsInput(&operand) ||
         generic.getMatchingIndexingMap(&operand) != writeMap))
      return;
  if (!runAfterOtherReaders(generic, argument))
    return;

  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  SmallVector<unsigned> readsOfArgument;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    if (input->get() == argument) {
      readsOfArgument.push_back(input->getOperandNumber());
      continue;
    }
    inputs.push_back(input->get());
    maps.push_back(generic.getMatchingIndexingMap(input));
  }
  SmallVector<Value> inits(generic.getDpsInits());
  inits[index] = argument;
  for (OpOperand &each : generic.getDpsInitsMutable())
    maps.push_back(generic.getMatchingIndexingMap(&each));

  IRRewriter rewriter(generic);
  auto updated = linalg::GenericOp::create(
      rewriter, generic.getLoc(), generic.getResultTypes(), inputs, inits,
      maps, generic.getIteratorTypesArray());
  rewriter.inlineRegionBefore(generic.getRegion(), updated.getRegion(),
                              updated.getRegion().begin());
  Block *body = updated.getBody();
  BlockArgument output =
      body->getArgument(generic.getNumDpsInputs() + index);
  for (unsigned number : llvm::reverse(readsOfArgument)) {
    body->getArgument(number).replaceAllUsesWith(output);
    body->eraseArgument(number);
  }
  rewriter.replaceOp(generic, updated.getResults());
}

namespace {
struct LazyUpdateInPlacePass
    : mlir::lazy::impl::LazyUpdateInPlacePassBase<LazyUpdateInPlacePass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    Block &entry = function.front();
    auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator());
    if (!ret)
      return;
    SmallVector<std::pair<unsigned, BlockArgument>> ties;
    for (unsigned result = 0, e = function.getNumResults(); result < e;
         ++result)
      if (auto attr =
              function.getResultAttrOfType<IntegerAttr>(result, kTiedArgument))
        ties.push_back({result, entry.getArgument(attr.getInt())});
    for (auto [result, argument] : ties) {
      auto value = dyn_cast<OpResult>(ret.getOperand(result));
      // (Ops on buffers have effects: they stay where they are.)
      if (!value || !isa<RankedTensorType>(value.getType()))
        continue;
      writeIntoArgument(value, argument);
      // (Run again after tiling: tile-and-fuse may have moved a reader of
      // the argument into a later loop.)
      if (Operation *update = ret.getOperand(result).getDefiningOp())
        runAfterOtherReaders(update, argument);
    }
  }
};

struct LazyMaterializeTiedResultsPass
    : mlir::lazy::impl::LazyMaterializeTiedResultsPassBase<
          LazyMaterializeTiedResultsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    Block &entry = function.front();
    auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator());
    if (!ret)
      return;
    OpBuilder b(ret);
    for (unsigned result = 0, e = function.getNumResults(); result < e;
         ++result) {
      auto attr =
          function.getResultAttrOfType<IntegerAttr>(result, kTiedArgument);
      if (!attr)
        continue;
      Value argument = entry.getArgument(attr.getInt());
      Value value = ret.getOperand(result);
      if (value == argument || !isa<MemRefType>(value.getType()))
        continue;
      // Computed elsewhere (a later read of the old value forbade writing
      // over it): copied over it last.
      memref::CopyOp::create(b, ret.getLoc(), value, argument);
      ret.setOperand(result, argument);
    }
  }
};

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
      Value distinct = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne, source, target);
      auto guard = scf::IfOp::create(b, loc, distinct);
      copy->moveBefore(guard.thenBlock()->getTerminator());
    }
  }
};
} // namespace
