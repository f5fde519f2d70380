//===- ConvolutionsToRuntime.cpp - bf16 convolutions as runtime calls -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-cpu-convolutions-to-runtime.
//
//===----------------------------------------------------------------------===//

#include "../RuntimeCalls.h"
#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYCPUCONVOLUTIONSTORUNTIMEPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// The runtime's kernel for `op` (bf16 images and filters into an f32
/// output, on buffers), or "" if it has none.
static StringRef runtimeKernel(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() ||
      !isa<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcHwcfOp>(op))
    return "";
  auto element = [&](int index) {
    return getElementTypeOrSelf(op->getOperand(index).getType());
  };
  if (!element(0).isBF16() || !element(1).isBF16() || !element(2).isF32())
    return "";
  return isa<linalg::Conv2DNchwFchwOp>(op) ? "lazyrt_conv2d_nchw_bf16_f32"
                                           : "lazyrt_conv2d_nhwc_bf16_f32";
}

/// The runtime's convolution `name` (declared at its first use): bf16
/// images and filters, an f32 output, then stride H, stride W, dilation H,
/// dilation W.
static func::FuncOp declareKernel(Operation *from, StringRef name) {
  Builder b(from->getContext());
  MemRefType narrow = lazy::anyLayoutMemRefType(b.getBF16Type(), 4);
  Type i64 = b.getI64Type();
  return lazy::declareDescriptorFunction(
      from, name,
      {narrow, narrow, lazy::anyLayoutMemRefType(b.getF32Type(), 4), i64, i64,
       i64, i64});
}

namespace {
struct LazyCpuConvolutionsToRuntimePass
    : mlir::lazy::impl::LazyCpuConvolutionsToRuntimePassBase<
          LazyCpuConvolutionsToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::LinalgOp, StringRef>> convolutions;
    module.walk([&](linalg::LinalgOp op) {
      if (StringRef kernel = runtimeKernel(op); !kernel.empty())
        convolutions.push_back({op, kernel});
    });
    for (auto [op, name] : convolutions) {
      func::FuncOp kernel = declareKernel(op, name);
      OpBuilder b(op);
      Location loc = op.getLoc();
      SmallVector<Value> operands;
      for (Value memref : op->getOperands())
        operands.push_back(memref::CastOp::create(
            b, loc,
            lazy::anyLayoutMemRefType(getElementTypeOrSelf(memref.getType()),
                                      4),
            memref));
      // Then stride H, stride W, dilation H, dilation W.
      auto geometry = [](auto convolution) {
        return std::pair(convolution.getStrides(), convolution.getDilations());
      };
      auto [strides, dilations] =
          isa<linalg::Conv2DNchwFchwOp>(op)
              ? geometry(cast<linalg::Conv2DNchwFchwOp>(op))
              : geometry(cast<linalg::Conv2DNhwcHwcfOp>(op));
      for (DenseIntElementsAttr attribute : {strides, dilations})
        for (int64_t value : attribute.getValues<int64_t>())
          operands.push_back(arith::ConstantIntOp::create(b, loc, value, 64));
      func::CallOp::create(b, loc, kernel, operands);
      op->erase();
    }
  }
};
} // namespace
