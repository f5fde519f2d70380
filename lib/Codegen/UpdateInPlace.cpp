//===- UpdateInPlace.cpp - Results written over donated arguments ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-update-in-place, lazy-materialize-tied-results
// and lazy-skip-self-copies.
//
// A result marked `lazy.tied_argument = i` lives in argument i's buffer: the
// caller passes that buffer for both (a variable's old value, dead after the
// step, becomes its new value). On tensors, an elementwise update `w - lr *
// g` is made to write into the argument, read the old value through its own
// output (the tiled loop then reads the slice it writes, which one-shot
// bufferization accepts in place) and run after every other reader of the
// argument. On buffers, a tied result bufferization had to compute elsewhere
// is copied over the argument last, and the copy from the argument to the
// out-parameter is skipped when they are the same buffer.
//
//===----------------------------------------------------------------------===//

#include "BufferCopies.h"
#include "lazyc/Codegen/Passes.h"
#include "lazyc/Dialect/Lazy/IR/TiedArgument.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYUPDATEINPLACEPASS
#define GEN_PASS_DEF_LAZYSKIPSELFCOPIESPASS
#define GEN_PASS_DEF_LAZYMATERIALIZETIEDRESULTSPASS
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

/// The return of `function` and its results tied to an argument, or null
/// if `function` has no body or its body is not a single block.
static func::ReturnOp
tiedResults(func::FuncOp function,
            SmallVectorImpl<std::pair<unsigned, BlockArgument>> &ties) {
  if (function.isExternal())
    return nullptr;
  Block &entry = function.front();
  auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator());
  if (!ret)
    return nullptr;
  for (unsigned result = 0, e = function.getNumResults(); result < e;
       ++result)
    if (auto attr =
            function.getResultAttrOfType<IntegerAttr>(result, lazy::kTiedArgumentAttrName))
      ties.push_back({result, entry.getArgument(attr.getInt())});
  return ret;
}

namespace {
struct LazyUpdateInPlacePass
    : mlir::lazy::impl::LazyUpdateInPlacePassBase<LazyUpdateInPlacePass> {
  void runOnOperation() override {
    SmallVector<std::pair<unsigned, BlockArgument>> ties;
    func::ReturnOp ret = tiedResults(getOperation(), ties);
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
    SmallVector<std::pair<unsigned, BlockArgument>> ties;
    func::ReturnOp ret = tiedResults(getOperation(), ties);
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
