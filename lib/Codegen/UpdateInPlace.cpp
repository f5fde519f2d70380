//===- UpdateInPlace.cpp - Results written over donated arguments ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-update-in-place.
//
// A result marked `lazy.tied_argument = i` lives in argument i's buffer: the
// caller passes that buffer for both (a variable's old value, dead after the
// step, becomes its new value). On tensors, an elementwise update `w - lr *
// g` is made to write into the argument, read the old value through its own
// output (the tiled loop then reads the slice it writes, which one-shot
// bufferization accepts in place) and run after every other reader of the
// argument. lazy-materialize-tied-results and lazy-skip-self-copies finish
// the job on buffers.
//
//===----------------------------------------------------------------------===//

#include "TiedResults.h"
#include "lazyc/Codegen/Passes.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYUPDATEINPLACEPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

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
      rewriter, generic.getLoc(), generic.getResultTypes(), inputs, inits, maps,
      generic.getIteratorTypesArray());
  rewriter.inlineRegionBefore(generic.getRegion(), updated.getRegion(),
                              updated.getRegion().begin());
  Block *body = updated.getBody();
  BlockArgument output = body->getArgument(generic.getNumDpsInputs() + index);
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
    SmallVector<std::pair<unsigned, BlockArgument>> ties;
    func::ReturnOp ret = mlir::lazy::tiedResults(getOperation(), ties);
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
} // namespace
