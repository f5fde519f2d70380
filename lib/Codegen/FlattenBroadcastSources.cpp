//===- FlattenBroadcastSources.cpp - Broadcasts of 1-D sources ------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-flatten-broadcast-sources (see Passes.td for the
// upstream fold it protects from).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYFLATTENBROADCASTSOURCESPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// Whether `broadcast` only prepends dimensions to a source of rank 2 or
/// more: the source's shape is the result's trailing shape.
static bool prependsToAMultiDimensionalSource(vector::BroadcastOp broadcast) {
  auto source = dyn_cast<VectorType>(broadcast.getSourceType());
  VectorType result = broadcast.getResultVectorType();
  if (!source || source.getRank() < 2 || source.isScalable() ||
      result.isScalable())
    return false;
  return result.getShape().take_back(source.getRank()) == source.getShape();
}

namespace {
struct LazyFlattenBroadcastSourcesPass
    : mlir::lazy::impl::LazyFlattenBroadcastSourcesPassBase<
          LazyFlattenBroadcastSourcesPass> {
  void runOnOperation() override {
    SmallVector<vector::BroadcastOp> broadcasts;
    getOperation().walk([&](vector::BroadcastOp broadcast) {
      if (prependsToAMultiDimensionalSource(broadcast))
        broadcasts.push_back(broadcast);
    });
    for (vector::BroadcastOp broadcast : broadcasts) {
      auto source = cast<VectorType>(broadcast.getSourceType());
      VectorType result = broadcast.getResultVectorType();
      Type element = source.getElementType();
      int64_t elements = source.getNumElements();
      SmallVector<int64_t> flatResultShape(
          result.getShape().drop_back(source.getRank()));
      flatResultShape.push_back(elements);
      OpBuilder b(broadcast);
      Location loc = broadcast.getLoc();
      Value flat = vector::ShapeCastOp::create(
          b, loc, VectorType::get({elements}, element), broadcast.getSource());
      Value spread = vector::BroadcastOp::create(
          b, loc, VectorType::get(flatResultShape, element), flat);
      broadcast.replaceAllUsesWith(
          vector::ShapeCastOp::create(b, loc, result, spread).getResult());
      broadcast.erase();
    }
  }
};
} // namespace
