//===- UnshareEmptyTensors.cpp - One tensor.empty per destination ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-unshare-empty-tensors: every use of a
// tensor.empty gets an empty of its own, placed just before the op that
// uses it (a slice of an empty is an empty itself), and every destination
// written into a shared constant fill gets a fill of its own.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYUNSHAREEMPTYTENSORSPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// Whether `op` is a fill of constants: one tensor result computed from
/// constants alone (every operand and every value its regions read from
/// above is a constant, a poison or a tensor.empty). A (tiled) fill of a
/// pad's zeros is one.
static bool isConstantFill(Operation *op) {
  if (isa<tensor::EmptyOp>(op) || op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()) ||
      !isMemoryEffectFree(op))
    return false;
  auto fromConstants = [](Value value) {
    Operation *producer = value.getDefiningOp();
    return producer && (producer->hasTrait<OpTrait::ConstantLike>() ||
                        isa<tensor::EmptyOp, ub::PoisonOp>(producer));
  };
  if (!llvm::all_of(op->getOperands(), fromConstants))
    return false;
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  return llvm::all_of(above, fromConstants);
}

/// Whether `use` is written into once bufferized: a destination-style op's
/// init (a tensor.insert_slice's destination among them).
static bool isDestination(OpOperand &use) {
  auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
  return dps && dps.isDpsInit(&use);
}

/// Whether `use` is a loop's initial value of a value it carries, which
/// bufferization writes into when the loop updates it in place.
static bool isLoopInit(OpOperand &use) {
  if (auto loop = dyn_cast<scf::ForOp>(use.getOwner()))
    return use.getOperandNumber() >= loop.getNumControlOperands();
  return isa<scf::WhileOp>(use.getOwner());
}

namespace {
struct LazyUnshareEmptyTensorsPass
    : mlir::lazy::impl::LazyUnshareEmptyTensorsPassBase<
          LazyUnshareEmptyTensorsPass> {
  void runOnOperation() override {
    fillSplatDestinations();
    unshareFills();
    sliceEmpties();
    unshareEmpties();
  }

  /// A slice of an empty becomes an empty of the slice's shape (upstream's
  /// folding patterns, reshapes of empties included).
  void sliceEmpties() {
    RewritePatternSet patterns(&getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns);
    // Nothing else moves: no folding, no merged constants.
    GreedyRewriteConfig config;
    config.enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }

  /// A splat constant written into (a loop's zeros that each step writes a
  /// row of, an accumulator) becomes a fill of an empty tensor for each
  /// destination: bufferization would copy the constant's read-only global
  /// into a new buffer (an ONNX LSTM's output: 256 KB read and written per
  /// call), where a fill only writes.
  void fillSplatDestinations() {
    SmallVector<OpOperand *> destinations;
    getOperation().walk([&](arith::ConstantOp constant) {
      auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
      auto type = dyn_cast<RankedTensorType>(constant.getType());
      if (!splat || !type || !type.hasStaticShape())
        return;
      for (OpOperand &use : constant->getUses())
        if (isDestination(use) || isLoopInit(use))
          destinations.push_back(&use);
    });
    for (OpOperand *use : destinations) {
      auto constant = use->get().getDefiningOp<arith::ConstantOp>();
      auto splat = cast<SplatElementsAttr>(constant.getValue());
      auto type = cast<RankedTensorType>(constant.getType());
      OpBuilder builder(use->getOwner());
      Location loc = constant.getLoc();
      Value value = arith::ConstantOp::create(
          builder, loc, cast<TypedAttr>(splat.getSplatValue<Attribute>()));
      Value empty = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                            type.getElementType());
      use->set(linalg::FillOp::create(builder, loc, value, empty).getResult(0));
    }
  }

  /// A fill written into by several destinations (CSE merged the zero pads
  /// of every convolution) is cloned for each destination but the first:
  /// each writes in place into a fill of its own, where bufferization would
  /// copy the shared one for each.
  void unshareFills() {
    SmallVector<OpResult> shared;
    getOperation().walk([&](Operation *op) {
      if (isConstantFill(op) && !op->getResult(0).hasOneUse())
        shared.push_back(op->getResult(0));
    });
    for (OpResult fill : shared) {
      SmallVector<OpOperand *> destinations;
      for (OpOperand &use : fill.getUses())
        if (isDestination(use))
          destinations.push_back(&use);
      // Readers share the original; so does the first destination when
      // nothing reads it.
      bool read =
          destinations.size() != size_t(llvm::range_size(fill.getUses()));
      if (destinations.empty() || (!read && destinations.size() == 1))
        continue;
      OpBuilder builder(fill.getOwner());
      for (OpOperand *use : llvm::drop_begin(destinations, read ? 0 : 1))
        use->set(builder.clone(*fill.getOwner())->getResult(0));
    }
  }

  /// Each use of an empty gets one of its own, placed just before the op
  /// that uses it.
  void unshareEmpties() {
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk(
        [&](tensor::EmptyOp empty) { empties.push_back(empty); });
    for (tensor::EmptyOp empty : empties) {
      // Uses are collected first: setting an operand unlinks it from the
      // list being walked. The last use keeps the original.
      SmallVector<OpOperand *> uses = llvm::map_to_vector(
          empty->getUses(), [](OpOperand &use) { return &use; });
      if (uses.empty())
        continue;
      Block *block = empty->getBlock();
      auto placeBefore = [&](Operation *op, OpOperand *use) {
        if (Operation *user = block->findAncestorOpInBlock(*use->getOwner()))
          op->moveBefore(user);
      };
      for (OpOperand *use : ArrayRef(uses).drop_back()) {
        Operation *copy = OpBuilder(empty).clone(*empty);
        use->set(copy->getResult(0));
        placeBefore(copy, use);
      }
      placeBefore(empty, uses.back());
    }
  }
};
} // namespace
