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

/// The rank-2 memref type the runtime takes: any sizes, strides and offset.
static MemRefType dynamicMatrixType(Type element) {
  int64_t dynamic = ShapedType::kDynamic;
  return MemRefType::get({dynamic, dynamic}, element,
                         StridedLayoutAttr::get(element.getContext(), dynamic,
                                                {dynamic, dynamic}));
}

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

/// Returns (declaring it if needed) the runtime's GEMM `name`.
static func::FuncOp getOrDeclareGemm(ModuleOp module, StringRef name,
                                     Type input, Type output) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  MemRefType matrix = dynamicMatrixType(input);
  auto function = func::FuncOp::create(
      b, module.getLoc(), name,
      b.getFunctionType(
          {matrix, matrix, dynamicMatrixType(output), b.getI32Type()}, {}));
  function.setPrivate();
  // Pass descriptors by pointer (_mlir_ciface_*), as the runtime expects.
  function->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  return function;
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
  return memref::CastOp::create(b, loc,
                                dynamicMatrixType(type.getElementType()), view);
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
          getOrDeclareGemm(module, gemmName(input, output), input, output);
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
