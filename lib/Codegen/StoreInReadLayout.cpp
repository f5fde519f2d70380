//===- StoreInReadLayout.cpp - Intermediates stored as their readers read -===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-store-in-read-layout.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYSTOREINREADLAYOUTPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {

/// A linalg.generic input that reads the value through `map`, to become
/// `aligned` once the value is stored in its producer's loop order.
struct Reader {
  OpOperand *operand;
  AffineMap aligned;
};

/// The readers of `result` (written through the permutation `written`)
/// when each is a linalg.generic input that would then read it through
/// the same map as another input of the same rank: storing `result` in its
/// producer's loop order turns a scattered write into a contiguous one, and
/// every reader then walks it as it walks its other operand. Empty when any
/// use is something else.
SmallVector<Reader> alignedReaders(OpResult result, AffineMap written) {
  SmallVector<Reader> readers;
  AffineMap fromStored = inversePermutation(written);
  for (OpOperand &use : result.getUses()) {
    auto reader = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!reader || !reader.isDpsInput(&use))
      return {};
    AffineMap aligned = fromStored.compose(reader.getMatchingIndexingMap(&use));
    bool matchesAnother =
        llvm::any_of(reader.getDpsInputOperands(), [&](OpOperand *other) {
          return other->get() != result &&
                 reader.getMatchingIndexingMap(other) == aligned;
        });
    if (!matchesAnother)
      return {};
    readers.push_back({&use, aligned});
  }
  return readers;
}

struct LazyStoreInReadLayoutPass
    : mlir::lazy::impl::LazyStoreInReadLayoutPassBase<
          LazyStoreInReadLayoutPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> producers;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics() && op.getNumReductionLoops() == 0)
        producers.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp producer : producers)
      for (OpResult result : producer->getResults())
        storeInLoopOrder(rewriter, producer, result);
  }

  /// Stores `result` in `producer`'s loop order when it is written through
  /// a permutation its readers can all absorb.
  static void storeInLoopOrder(RewriterBase &rewriter,
                               linalg::GenericOp producer, OpResult result) {
    OpOperand *init = producer.getDpsInitOperand(result.getResultNumber());
    AffineMap written = producer.getMatchingIndexingMap(init);
    if (!written.isPermutation() || written.isIdentity() ||
        result.use_empty() || producer.payloadUsesValueFromOperand(init) ||
        !init->get().getDefiningOp<tensor::EmptyOp>())
      return;
    SmallVector<Reader> readers = alignedReaders(result, written);
    if (readers.empty())
      return;

    // The stored tensor's dimension d is loop d.
    rewriter.setInsertionPoint(producer);
    SmallVector<OpFoldResult> sizes = applyPermutationMap<OpFoldResult>(
        inversePermutation(written),
        tensor::getMixedSizes(rewriter, producer.getLoc(), init->get()));
    Value stored =
        tensor::EmptyOp::create(rewriter, producer.getLoc(), sizes,
                                getElementTypeOrSelf(result.getType()));

    SmallVector<AffineMap> maps = producer.getIndexingMapsArray();
    maps[init->getOperandNumber()] = AffineMap::getMultiDimIdentityMap(
        written.getNumDims(), producer.getContext());
    Value unused = init->get();
    rewriter.modifyOpInPlace(producer, [&] {
      init->set(stored);
      producer.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      result.setType(stored.getType());
    });
    if (unused.use_empty())
      rewriter.eraseOp(unused.getDefiningOp());
    for (Reader reader : readers) {
      auto generic = cast<linalg::GenericOp>(reader.operand->getOwner());
      SmallVector<AffineMap> readerMaps = generic.getIndexingMapsArray();
      readerMaps[reader.operand->getOperandNumber()] = reader.aligned;
      rewriter.modifyOpInPlace(generic, [&] {
        generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(readerMaps));
      });
    }
  }
};

} // namespace
