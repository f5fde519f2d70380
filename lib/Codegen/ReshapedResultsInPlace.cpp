//===- ReshapedResultsInPlace.cpp - Reshaped results in their out-params --===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-reshaped-results-in-place: a result returned as
// a reshape of its allocation is computed in its out-parameter, reshaped
// back, instead of being copied there at the end.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYRESHAPEDRESULTSINPLACEPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// The reshapes from an allocation to `value`, innermost last, if `value`
/// is one (or the allocation itself) and each reshape has one use.
static memref::AllocOp
reshapedAllocation(Value value, SmallVectorImpl<Operation *> &reshapes) {
  while (Operation *producer = value.getDefiningOp()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(producer)) {
      std::reverse(reshapes.begin(), reshapes.end());
      return alloc;
    }
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(producer) ||
        !producer->hasOneUse())
      return nullptr;
    reshapes.push_back(producer);
    value = producer->getOperand(0);
  }
  return nullptr;
}

/// `target` reshaped back through `reshapes` (undone outermost first):
/// what the allocation held, now a view of `target`; null if a type does
/// not come out as the reshape's source.
static Value undoReshapes(OpBuilder &b, Value target,
                          ArrayRef<Operation *> reshapes) {
  SmallVector<Operation *> built;
  auto fail = [&] {
    for (Operation *op : llvm::reverse(built))
      op->erase();
    return Value();
  };
  Value value = target;
  for (Operation *reshape : llvm::reverse(reshapes)) {
    Location loc = reshape->getLoc();
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(reshape)) {
      value = memref::CollapseShapeOp::create(b, loc, value,
                                              expand.getReassociationIndices());
    } else {
      auto collapse = cast<memref::CollapseShapeOp>(reshape);
      auto sourceType = cast<MemRefType>(collapse.getSrc().getType());
      if (!sourceType.hasStaticShape())
        return fail();
      value =
          memref::ExpandShapeOp::create(b, loc, sourceType.getShape(), value,
                                        collapse.getReassociationIndices());
    }
    built.push_back(value.getDefiningOp());
    if (value.getType() != reshape->getOperand(0).getType())
      return fail();
  }
  return value;
}

namespace {
struct LazyReshapedResultsInPlacePass
    : mlir::lazy::impl::LazyReshapedResultsInPlacePassBase<
          LazyReshapedResultsInPlacePass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal() || !function.getBody().hasOneBlock())
      return;
    Block &entry = function.front();
    SmallVector<memref::CopyOp> copies;
    for (auto copy : entry.getOps<memref::CopyOp>())
      copies.push_back(copy);
    for (memref::CopyOp copy : copies) {
      // An out-parameter the caller allocated for this result alone: not
      // tied to an argument (whose buffer inputs may share), written only
      // by this copy.
      auto target = dyn_cast<BlockArgument>(copy.getTarget());
      if (!target || target.getOwner() != &entry || !target.hasOneUse() ||
          function.getArgAttr(target.getArgNumber(), "lazy.tied_argument"))
        continue;
      SmallVector<Operation *> reshapes;
      memref::AllocOp alloc = reshapedAllocation(copy.getSource(), reshapes);
      if (!alloc || reshapes.empty() || alloc->getBlock() != &entry ||
          !alloc.getDynamicSizes().empty())
        continue;
      // Every other use of the allocation comes before the copy: the copy
      // reads the final value.
      bool usedAfter = llvm::any_of(alloc->getUsers(), [&](Operation *user) {
        Operation *inEntry = entry.findAncestorOpInBlock(*user);
        return !inEntry ||
               (user != reshapes.front() && !inEntry->isBeforeInBlock(copy));
      });
      if (usedAfter)
        continue;
      OpBuilder b(alloc);
      Value inPlace = undoReshapes(b, target, reshapes);
      if (!inPlace)
        continue;
      alloc.getResult().replaceUsesWithIf(inPlace, [&](OpOperand &use) {
        return use.getOwner() != reshapes.front();
      });
      copy->erase();
      for (Operation *reshape : llvm::reverse(reshapes))
        reshape->erase();
      alloc->erase();
    }
  }
};
} // namespace
