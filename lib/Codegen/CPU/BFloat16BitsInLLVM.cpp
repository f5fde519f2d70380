//===- BFloat16BitsInLLVM.cpp - bf16 memory and selects as i16 ------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-bf16-bits-in-llvm.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYBFLOAT16BITSINLLVMPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// The i16 type of the same shape as a bf16 scalar or vector; null for any
/// other type.
static Type bitsTypeOf(Type type) {
  Type i16 = IntegerType::get(type.getContext(), 16);
  if (type.isBF16())
    return i16;
  if (auto vector = dyn_cast<VectorType>(type);
      vector && vector.getElementType().isBF16())
    return vector.clone(i16);
  return {};
}

/// `value` as `type`: the source of a bitcast from `type`, or a new bitcast.
static Value bitcastTo(OpBuilder &b, Value value, Type type) {
  if (auto cast = value.getDefiningOp<LLVM::BitcastOp>();
      cast && cast.getArg().getType() == type)
    return cast.getArg();
  return LLVM::BitcastOp::create(b, value.getLoc(), type, value);
}

/// Replaces `op`, whose one result is bf16, by a clone that yields the i16
/// `bits`, bitcast back for the users.
static void yieldBits(Operation *op, Type bits) {
  OpBuilder b(op);
  Operation *clone = b.clone(*op);
  clone->getResult(0).setType(bits);
  b.setInsertionPointAfter(clone);
  op->getResult(0).replaceAllUsesWith(
      bitcastTo(b, clone->getResult(0), op->getResult(0).getType()));
  op->erase();
}

namespace {
struct LazyBFloat16BitsInLLVMPass
    : mlir::lazy::impl::LazyBFloat16BitsInLLVMPassBase<
          LazyBFloat16BitsInLLVMPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::MaskedLoadOp,
              LLVM::MaskedStoreOp, LLVM::SelectOp, LLVM::InsertElementOp,
              LLVM::ExtractElementOp, LLVM::ShuffleVectorOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      auto operandAsBits = [&](OpOperand &operand) {
        if (Type bits = bitsTypeOf(operand.get().getType()))
          operand.set(bitcastTo(b, operand.get(), bits));
      };
      if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        operandAsBits(store.getValueMutable());
      } else if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op)) {
        operandAsBits(store.getValueMutable());
      } else if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        if (Type bits = bitsTypeOf(load.getType()))
          yieldBits(op, bits);
      } else if (auto load = dyn_cast<LLVM::MaskedLoadOp>(op)) {
        if (Type bits = bitsTypeOf(load.getType())) {
          for (OpOperand &passThrough : load.getPassThruMutable())
            operandAsBits(passThrough);
          yieldBits(op, bits);
        }
      } else if (auto select = dyn_cast<LLVM::SelectOp>(op)) {
        if (Type bits = bitsTypeOf(select.getType())) {
          operandAsBits(select.getTrueValueMutable());
          operandAsBits(select.getFalseValueMutable());
          yieldBits(op, bits);
        }
      } else if (Type bits = bitsTypeOf(op->getResult(0).getType())) {
        // Moving elements: a broadcast of a loaded scalar (insertelement
        // and a splat shuffle) or one element taken out. As bf16, x86
        // passes the scalar through the stack and reads it back wider,
        // a store-forwarding stall per broadcast (the max-pool gradient).
        for (OpOperand &operand : op->getOpOperands())
          operandAsBits(operand);
        yieldBits(op, bits);
      }
    }
    // A bitcast of a bitcast back to where it started is its source (the
    // extension of a loaded bf16 value reads the loaded bits), and bitcasts
    // left without users go.
    SmallVector<LLVM::BitcastOp> casts;
    getOperation()->walk([&](LLVM::BitcastOp cast) {
      if (auto inner = cast.getArg().getDefiningOp<LLVM::BitcastOp>();
          inner && inner.getArg().getType() == cast.getType())
        cast.replaceAllUsesWith(inner.getArg());
      casts.push_back(cast);
    });
    for (LLVM::BitcastOp cast : llvm::reverse(casts))
      if (cast->use_empty())
        cast->erase();
  }
};
} // namespace
