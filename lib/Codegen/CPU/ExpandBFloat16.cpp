//===- ExpandBFloat16.cpp - Integer code for bf16 conversions -------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-expand-bf16.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYEXPANDBFLOAT16PASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// A scalar of type `element`, or a vector of them shaped like `like`.
static Type shapedLike(Type like, Type element) {
  if (auto vector = dyn_cast<VectorType>(like))
    return vector.clone(element);
  return element;
}

/// Rewrites an integer-to-bf16 conversion (a Bool mask cast to bf16, as a
/// relu's gradient makes) into a conversion to f32, exact for integers of
/// up to 24 bits, and a truncf to bf16, which the expansion below turns
/// into integer code; LLVM would call a routine per element. Integers of up
/// to 8 bits (9 signed) need no rounding: the f32's high half is the bf16.
/// Wider integers are left alone: going through f32 would round twice.
static void convertSmallIntegersThroughF32(Operation *root) {
  SmallVector<Operation *> conversions;
  root->walk([&](Operation *op) {
    if (!isa<arith::UIToFPOp, arith::SIToFPOp>(op) ||
        !getElementTypeOrSelf(op->getResult(0).getType()).isBF16())
      return;
    unsigned width = getElementTypeOrSelf(op->getOperand(0).getType())
                         .getIntOrFloatBitWidth();
    if (width <= (isa<arith::SIToFPOp>(op) ? 25u : 24u))
      conversions.push_back(op);
  });
  for (Operation *op : conversions) {
    OpBuilder b(op);
    Type bf16 = op->getResult(0).getType();
    Type f32 = shapedLike(bf16, b.getF32Type());
    Value wide =
        isa<arith::UIToFPOp>(op)
            ? arith::UIToFPOp::create(b, op->getLoc(), f32, op->getOperand(0))
                  .getResult()
            : arith::SIToFPOp::create(b, op->getLoc(), f32, op->getOperand(0))
                  .getResult();
    // Integers of up to 8 bits (9 signed) are bf16 values: the f32's low
    // 16 bits are zeros, and its high half is the bf16, with no rounding.
    unsigned width = getElementTypeOrSelf(op->getOperand(0).getType())
                         .getIntOrFloatBitWidth();
    Value narrow;
    if (width <= (isa<arith::SIToFPOp>(op) ? 9u : 8u)) {
      Location loc = op->getLoc();
      Type i32 = shapedLike(bf16, b.getI32Type());
      Type i16 = shapedLike(bf16, b.getI16Type());
      Value bits = arith::BitcastOp::create(b, loc, i32, wide);
      Value high = arith::ShRUIOp::create(
          b, loc, bits, createScalarOrSplatConstant(b, loc, i32, 16));
      narrow = arith::BitcastOp::create(
          b, loc, bf16, arith::TruncIOp::create(b, loc, i16, high));
    } else {
      narrow = arith::TruncFOp::create(b, op->getLoc(), bf16, wide);
    }
    op->getResult(0).replaceAllUsesWith(narrow);
    op->erase();
  }
}

/// Rewrites the insertion of a bf16 scalar into a bf16 vector, and the
/// extraction of one, as the same on i16 vectors between bitcasts (no code:
/// the bits stay where they are). A strided vector read builds its vector
/// element by element; LLVM's x86 backend (without bf16 instructions)
/// moves a bf16 element into a vector through f32 and back, a
/// `__truncsfbf2` call per element.
static void insertAndExtractAsInt16(Operation *root) {
  SmallVector<Operation *> moves;
  root->walk([&](Operation *op) {
    if (auto insert = dyn_cast<vector::InsertOp>(op)) {
      if (insert.getValueToStoreType().isBF16())
        moves.push_back(op);
    } else if (auto extract = dyn_cast<vector::ExtractOp>(op)) {
      if (extract.getType().isBF16())
        moves.push_back(op);
    }
  });
  for (Operation *op : moves) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto bitcast = [&](Value value, Type type) {
      return arith::BitcastOp::create(b, loc, type, value).getResult();
    };
    if (auto insert = dyn_cast<vector::InsertOp>(op)) {
      Type vector = insert.getDestVectorType();
      Value moved = vector::InsertOp::create(
          b, loc, bitcast(insert.getValueToStore(), b.getI16Type()),
          bitcast(insert.getDest(), shapedLike(vector, b.getI16Type())),
          insert.getMixedPosition());
      insert.getResult().replaceAllUsesWith(bitcast(moved, vector));
    } else {
      auto extract = cast<vector::ExtractOp>(op);
      Value moved = vector::ExtractOp::create(
          b, loc,
          bitcast(extract.getSource(),
                  shapedLike(extract.getSourceVectorType(), b.getI16Type())),
          extract.getMixedPosition());
      extract.getResult().replaceAllUsesWith(bitcast(moved, extract.getType()));
    }
    op->erase();
  }
}

/// Carries bf16 vectors between blocks (the vector a loop builds element by
/// element) as i16 vectors, bitcast where they are passed and where they are
/// used: LLVM's x86 backend (without bf16 instructions) takes a bf16 vector
/// that lives across blocks apart into f32 elements and rounds each back
/// with a `__truncsfbf2` call.
static void carryVectorsAsInt16(Operation *root) {
  SmallVector<BlockArgument> arguments;
  root->walk([&](Block *block) {
    if (block->isEntryBlock())
      return;
    for (BlockArgument argument : block->getArguments())
      if (auto vector = dyn_cast<VectorType>(argument.getType());
          vector && vector.getElementType().isBF16())
        arguments.push_back(argument);
  });
  for (BlockArgument argument : arguments) {
    Block *block = argument.getOwner();
    SetVector<Operation *> branches;
    for (Block *predecessor : block->getPredecessors())
      branches.insert(predecessor->getTerminator());
    if (!llvm::all_of(branches, [](Operation *branch) {
          return isa<BranchOpInterface>(branch);
        }))
      continue;
    Type vector = argument.getType();
    Type int16 = shapedLike(vector, IntegerType::get(vector.getContext(), 16));
    for (Operation *op : branches) {
      auto branch = cast<BranchOpInterface>(op);
      for (unsigned i = 0; i < op->getNumSuccessors(); ++i) {
        if (op->getSuccessor(i) != block)
          continue;
        SuccessorOperands operands = branch.getSuccessorOperands(i);
        unsigned index = argument.getArgNumber();
        OpBuilder b(op);
        Value bits =
            arith::BitcastOp::create(b, op->getLoc(), int16, operands[index]);
        operands.getMutableForwardedOperands()
            .slice(index - operands.getProducedOperandCount(), 1)
            .assign(bits);
      }
    }
    // Back to bf16 right before each user: a bf16 vector live across
    // blocks would be taken apart as well.
    SmallVector<OpOperand *> uses = llvm::map_to_vector(
        argument.getUses(), [](OpOperand &use) { return &use; });
    argument.setType(int16);
    for (OpOperand *use : uses) {
      OpBuilder b(use->getOwner());
      use->set(
          arith::BitcastOp::create(b, argument.getLoc(), vector, argument));
    }
  }
}

namespace {
struct LazyExpandBFloat16Pass
    : mlir::lazy::impl::LazyExpandBFloat16PassBase<LazyExpandBFloat16Pass> {
  void runOnOperation() override {
    // The patterns rewrite conversions to and from bf16; without one, a
    // rewrite driver's walk of a large trace is time for nothing.
    auto isBFloat16 = [](Type type) {
      return getElementTypeOrSelf(type).isBF16();
    };
    convertSmallIntegersThroughF32(getOperation());
    insertAndExtractAsInt16(getOperation());
    carryVectorsAsInt16(getOperation());
    WalkResult found = getOperation()->walk([&](Operation *op) {
      if (isa<arith::ExtFOp, arith::TruncFOp>(op) &&
          (isBFloat16(op->getOperand(0).getType()) ||
           isBFloat16(op->getResult(0).getType())))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (!found.wasInterrupted())
      return;
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
