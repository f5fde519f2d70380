//===- ScheduleCollectives.cpp - Early, bucketed collectives --------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-schedule-collectives.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"
#include "lazyc/Dialect/Lazy/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/IR/Builders.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYSCHEDULECOLLECTIVESPASS
#include "lazyc/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

/// The op in `block` after which `collective` can start: the one that
/// defines its input (null: the block's start, for a block argument or a
/// value from an enclosing block).
static Operation *producerInBlock(CollectiveOp collective) {
  Block *block = collective->getBlock();
  Operation *producer = collective.getInput().getDefiningOp();
  while (producer && producer->getBlock() != block)
    producer = producer->getParentOp();
  return producer;
}

namespace {

/// All-reduces that may share one exchange.
struct BucketKey {
  CollectiveReduction reduction;
  Type element;
  int64_t worldSize;
  bool operator==(const BucketKey &other) const {
    return reduction == other.reduction && element == other.element &&
           worldSize == other.worldSize;
  }
};

struct Bucket {
  BucketKey key;
  SmallVector<CollectiveOp> members;
  int64_t bytes = 0;

  /// Whether `next`'s input is computed from a member's result (then the
  /// packed all-reduce, which comes after `next`, cannot feed it).
  bool feeds(CollectiveOp next) const {
    SetVector<Operation *> slice;
    BackwardSliceOptions options;
    options.omitBlockArguments = true;
    options.omitUsesFromAbove = false;
    // The input's own producer too: it may be a member (an all-reduce of
    // an all-reduce; lazyc-fuzz seed 102818).
    options.inclusive = true;
    (void)getBackwardSlice(next.getInput(), &slice, options);
    return llvm::any_of(members, [&](CollectiveOp member) {
      return slice.contains(member.getOperation());
    });
  }
};

int64_t bytesOf(RankedTensorType type) {
  unsigned bits = type.getElementTypeBitWidth();
  return type.getNumElements() * std::max<unsigned>(bits / 8, 1);
}

/// Replaces the members of `bucket` with one all-reduce of their flattened,
/// concatenated inputs, placed after the last member (unless a member's
/// input is no longer before it). Ops of the block
/// before it that use a member's result (a trace lists each parameter's
/// update right after its gradient) move down after it, in order.
void pack(const Bucket &bucket) {
  CollectiveOp last = bucket.members.back();
  Block *block = last->getBlock();
  // Packing an earlier bucket may have sunk a member's input below `last`
  // (buckets of different reductions that feed each other): then this one
  // stays as it is.
  for (CollectiveOp member : bucket.members)
    if (Operation *producer = member.getInput().getDefiningOp())
      if (Operation *inBlock = block->findAncestorOpInBlock(*producer);
          inBlock && last->isBeforeInBlock(inBlock))
        return;
  SetVector<Operation *> users;
  for (CollectiveOp member : bucket.members)
    getForwardSlice(member.getResult(), &users);
  SmallVector<Operation *> sink;
  for (Operation *user : users)
    if (Operation *inBlock = block->findAncestorOpInBlock(*user);
        inBlock && inBlock->isBeforeInBlock(last) &&
        !llvm::is_contained(sink, inBlock))
      sink.push_back(inBlock);
  llvm::sort(sink,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  OpBuilder b(last->getContext());
  b.setInsertionPointAfter(last);
  Location loc = last.getLoc();
  SmallVector<Value> flat;
  for (CollectiveOp member : bucket.members)
    flat.push_back(ReshapeOp::create(
        b, loc, member.getInput(),
        ArrayRef<int64_t>{member.getType().getNumElements()}));
  Value packed = ConcatOp::create(b, loc, flat, /*axis=*/0);
  auto reduced = CollectiveOp::create(
      b, loc, last.getKindAttr(), packed, last.getReductionAttr(),
      /*root=*/IntegerAttr(), last.getWorldSizeAttr());
  int64_t offset = 0;
  for (CollectiveOp member : bucket.members) {
    int64_t size = member.getType().getNumElements();
    Value slice =
        SliceOp::create(b, loc, reduced, ArrayRef<int64_t>{offset},
                        ArrayRef<int64_t>{offset + size}, ArrayRef<int64_t>{1});
    Value shaped =
        ReshapeOp::create(b, loc, slice, member.getType().getShape());
    member.replaceAllUsesWith(shaped);
    member.erase();
    offset += size;
  }
  Operation *after = b.getInsertionPoint() == block->end()
                         ? &block->back()
                         : b.getInsertionPoint()->getPrevNode();
  for (Operation *op : sink) {
    op->moveAfter(after);
    after = op;
  }
}

struct LazyScheduleCollectivesPass
    : mlir::lazy::impl::LazyScheduleCollectivesPassBase<
          LazyScheduleCollectivesPass> {
  using Base::Base;

  void runOnOperation() override {
    // Blocks in pre-order, so each block's collectives are scheduled once.
    SmallVector<Block *> blocks;
    getOperation()->walk<WalkOrder::PreOrder>([&](Block *block) {
      if (llvm::any_of(*block, llvm::IsaPred<CollectiveOp>))
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      schedule(*block);
  }

  void schedule(Block &block) {
    // Each collective moves up to just after its producer, after the
    // collectives already moved there (so they keep their order).
    SmallVector<CollectiveOp> collectives(block.getOps<CollectiveOp>());
    llvm::DenseMap<Operation *, Operation *> lastAfter;
    for (CollectiveOp collective : collectives) {
      Operation *producer = producerInBlock(collective);
      Operation *&last = lastAfter[producer];
      if (Operation *anchor = last ? last : producer)
        collective->moveAfter(anchor);
      else
        collective->moveBefore(&block, block.begin());
      last = collective;
    }
    if (bucketBytes <= 0)
      return;

    // In the order they are now issued.
    SmallVector<Bucket> open, full;
    for (CollectiveOp collective : block.getOps<CollectiveOp>()) {
      RankedTensorType type = collective.getType();
      if (collective.getKind() != CollectiveKind::all_reduce ||
          !type.hasStaticShape())
        continue;
      BucketKey key{*collective.getReduction(), type.getElementType(),
                    static_cast<int64_t>(collective.getWorldSize())};
      auto bucket = llvm::find_if(
          open, [&](const Bucket &candidate) { return candidate.key == key; });
      if (bucket != open.end() &&
          (bucket->feeds(collective) ||
           bucket->bytes + bytesOf(type) > bucketBytes)) {
        full.push_back(std::move(*bucket));
        open.erase(bucket);
        bucket = open.end();
      }
      if (bucket == open.end()) {
        open.push_back({key, {}, 0});
        bucket = std::prev(open.end());
      }
      bucket->members.push_back(collective);
      bucket->bytes += bytesOf(type);
    }
    full.append(open.begin(), open.end());
    for (const Bucket &bucket : full)
      if (bucket.members.size() > 1)
        pack(bucket);
  }
};

} // namespace
