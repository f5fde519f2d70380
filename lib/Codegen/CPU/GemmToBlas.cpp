//===- GemmToBlas.cpp - Matmuls on buffers as BLAS calls ------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-cpu-gemm-to-blas.
//
//===----------------------------------------------------------------------===//

#include "../MatmulMaps.h"
#include "../RuntimeCalls.h"
#include "lazyc/Codegen/CPU/Passes.h"
#include "lazyc/Runtime/Runtime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYCPUGEMMTOBLASPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// The runtime's GEMM for a product of `input` operands into an `output`
/// C ("lazyrt_matmul_f32", "lazyrt_matmul_bf16_f32"), or "" where it has
/// none: f32 and f64 products, and bf16 or f16 ones accumulated in f32
/// (lazy-cpu-widen-narrow-products made them so).
static std::string gemmName(Type input, Type output) {
  if (input == output && (input.isF32() || input.isF64()))
    return input.isF32() ? "lazyrt_matmul_f32" : "lazyrt_matmul_f64";
  if (output.isF32() && (input.isBF16() || input.isF16()))
    return input.isBF16() ? "lazyrt_matmul_bf16_f32" : "lazyrt_matmul_f16_f32";
  return "";
}

/// The runtime's GEMM `name` (declared at its first use): A and B of
/// `input`, C of `output`, the flags.
static func::FuncOp declareGemm(Operation *from, StringRef name, Type input,
                                Type output) {
  MemRefType matrix = lazy::anyLayoutMemRefType(input, 2);
  return lazy::declareDescriptorFunction(
      from, name,
      {matrix, matrix, lazy::anyLayoutMemRefType(output, 2),
       IntegerType::get(from->getContext(), 32)});
}

/// A rank-2 view of `matrix`, or of `matrix[batch]` for a batched operand.
static Value matrixView(OpBuilder &b, Location loc, Value matrix, Value batch) {
  auto type = cast<MemRefType>(matrix.getType());
  Value view = matrix;
  if (batch) {
    SmallVector<OpFoldResult> offsets = {batch, b.getIndexAttr(0),
                                         b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1),
                                       memref::getMixedSize(b, loc, matrix, 1),
                                       memref::getMixedSize(b, loc, matrix, 2)};
    SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
    auto viewType = memref::SubViewOp::inferRankReducedResultType(
        {type.getDimSize(1), type.getDimSize(2)}, type, offsets, sizes,
        strides);
    view = memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), matrix,
                                     offsets, sizes, strides);
  }
  return memref::CastOp::create(
      b, loc, lazy::anyLayoutMemRefType(type.getElementType(), 2), view);
}

namespace {
struct LazyCpuGemmToBlasPass
    : mlir::lazy::impl::LazyCpuGemmToBlasPassBase<LazyCpuGemmToBlasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> products;
    module.walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
          !op.hasPureBufferSemantics())
        return;
      Type a = getElementTypeOrSelf(op->getOperand(0).getType());
      Type b = getElementTypeOrSelf(op->getOperand(1).getType());
      Type c = getElementTypeOrSelf(op->getOperand(2).getType());
      if (a == b && !gemmName(a, c).empty())
        products.push_back(op);
    });
    for (linalg::LinalgOp op : products) {
      // Plain operand indexing, or A or B read transposed.
      std::optional<int32_t> flags = lazy::gemmTransposeFlags(op);
      if (!flags)
        continue;
      // BLAS overwrites C instead of a zero fill.
      if (linalg::FillOp fill = lazy::zeroFillBefore(op)) {
        fill->erase();
        *flags |= LAZYRT_GEMM_OVERWRITE;
      }
      Value c = op.getDpsInitOperand(0)->get();
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value a = op->getOperand(0), bMatrix = op->getOperand(1);
      Type input = getElementTypeOrSelf(a.getType());
      Type output = getElementTypeOrSelf(c.getType());
      func::FuncOp gemm =
          declareGemm(op, gemmName(input, output), input, output);
      Value flagValue = arith::ConstantIntOp::create(b, loc, *flags, 32);
      auto call = [&](OpBuilder &builder, Value batch) {
        func::CallOp::create(
            builder, loc, gemm,
            ValueRange{matrixView(builder, loc, a, batch),
                       matrixView(builder, loc, bMatrix, batch),
                       matrixView(builder, loc, c, batch), flagValue});
      };
      if (isa<linalg::MatmulOp>(op.getOperation())) {
        call(b, Value());
      } else {
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        Value batches = memref::DimOp::create(b, loc, c, 0);
        scf::ForOp::create(
            b, loc, zero, batches, one, ValueRange{},
            [&](OpBuilder &nested, Location, Value batch, ValueRange) {
              call(nested, batch);
              scf::YieldOp::create(nested, loc);
            });
      }
      op->erase();
    }
  }
};
} // namespace
