//===- DeallocAfterLastUse.cpp - Temporaries freed after their last use ---===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-dealloc-after-last-use.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/Matchers.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYDEALLOCAFTERLASTUSEPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {

/// Ops that use a buffer only while they run, and make no alias of it but
/// their own memref results. (A buffer's address taken as an integer may
/// reach code that runs later: a collective reads its input until its
/// wait.)
bool usesBufferInPlace(Operation *op) {
  return !isa<memref::ExtractAlignedPointerAsIndexOp>(op) &&
         isa<linalg::LinalgDialect, memref::MemRefDialect,
             vector::VectorDialect, scf::SCFDialect, affine::AffineDialect>(
             op->getDialect());
}

/// The last op of `block` that uses `buffer` or an alias of it (a view, a
/// loop result), apart from `dealloc`; `buffer`'s own definition when
/// nothing else does. None if an op that is not known to use it in place
/// does, or a use is outside `block`.
Operation *lastUse(Value buffer, Block *block, Operation *dealloc,
                   const llvm::DenseMap<Operation *, int64_t> &position) {
  Operation *last = buffer.getDefiningOp();
  SmallVector<Value> aliases = {buffer};
  llvm::SmallPtrSet<Value, 8> seen = {buffer};
  while (!aliases.empty()) {
    Value alias = aliases.pop_back_val();
    for (OpOperand &use : alias.getUses()) {
      Operation *user = use.getOwner();
      if (user == dealloc)
        continue;
      if (!usesBufferInPlace(user))
        return nullptr;
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor)
        return nullptr;
      if (position.lookup(ancestor) > position.lookup(last))
        last = ancestor;
      // Any memref a user makes may alias the buffer (a subview, a cast,
      // a loop's result); so may a region's block argument it feeds.
      auto follow = [&](Value value) {
        if (isa<BaseMemRefType>(value.getType()) && seen.insert(value).second)
          aliases.push_back(value);
      };
      for (Value result : user->getResults())
        follow(result);
      for (Region &region : user->getRegions())
        for (Block &inner : region)
          for (BlockArgument argument : inner.getArguments())
            follow(argument);
    }
  }
  return last;
}

struct LazyDeallocAfterLastUsePass
    : mlir::lazy::impl::LazyDeallocAfterLastUsePassBase<
          LazyDeallocAfterLastUsePass> {
  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> deallocs;
    getOperation().walk(
        [&](bufferization::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (bufferization::DeallocOp dealloc : deallocs)
      freeEarly(dealloc);
  }

  void freeEarly(bufferization::DeallocOp dealloc) {
    if (!dealloc.getRetained().empty())
      return;
    // Each buffer its own allocation: no two operands alias.
    llvm::SmallPtrSet<Operation *, 16> allocations;
    for (Value buffer : dealloc.getMemrefs()) {
      auto alloc = buffer.getDefiningOp<memref::AllocOp>();
      if (!alloc || !allocations.insert(alloc).second)
        return;
    }
    Block *block = dealloc->getBlock();
    llvm::DenseMap<Operation *, int64_t> position;
    int64_t index = 0;
    for (Operation &op : *block)
      position[&op] = index++;
    SmallVector<Value> keptBuffers, keptConditions;
    for (auto [buffer, condition] :
         llvm::zip(dealloc.getMemrefs(), dealloc.getConditions())) {
      Operation *last = matchPattern(condition, m_One())
                            ? lastUse(buffer, block, dealloc, position)
                            : nullptr;
      if (!last) {
        keptBuffers.push_back(buffer);
        keptConditions.push_back(condition);
        continue;
      }
      OpBuilder builder(dealloc);
      builder.setInsertionPointAfter(last);
      memref::DeallocOp::create(builder, dealloc.getLoc(), buffer);
    }
    if (keptBuffers.empty()) {
      dealloc.erase();
      return;
    }
    dealloc.getMemrefsMutable().assign(keptBuffers);
    dealloc.getConditionsMutable().assign(keptConditions);
  }
};
} // namespace
