//===- WidenNarrowProducts.cpp - f16/bf16 products accumulate in f32 ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-cpu-widen-narrow-products.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYCPUWIDENNARROWPRODUCTSPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// `value` (a tensor) converted elementwise to `element` by `convert`
/// (arith.extf or arith.truncf), into a new tensor.
template <typename Convert>
static Value convertTensor(OpBuilder &b, Location loc, Value value,
                           Type element) {
  auto type = cast<RankedTensorType>(value.getType());
  Value empty = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, value), element);
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{empty.getType()}, ValueRange{value},
             ValueRange{empty}, ArrayRef<AffineMap>{identity, identity},
             parallel,
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               Value converted =
                   Convert::create(nested, nestedLoc, element, args[0]);
               linalg::YieldOp::create(nested, nestedLoc, converted);
             })
      .getResult(0);
}

/// The f32 accumulator that replaces `init`: a fill stays a fill (of the
/// widened value), anything else is widened elementwise.
static Value wideAccumulator(OpBuilder &b, Location loc, Value init) {
  Type f32 = b.getF32Type();
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    Value value = arith::ExtFOp::create(b, loc, f32, fill.getInputs()[0]);
    Value empty = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, init), f32);
    return linalg::FillOp::create(b, loc, value, empty).getResult(0);
  }
  return convertTensor<arith::ExtFOp>(b, loc, init, f32);
}

/// Rewrites `op`, a product of f16 or bf16 tensors into one of the same
/// type, to accumulate into f32 and round the result once. With
/// `widenInputs` the operands are widened too (convolutions: their
/// kernels are f32 ones; matmuls read narrow operands, see
/// lazy-cpu-gemm-to-blas).
template <typename Product> static void widen(Product op, bool widenInputs) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value init = op.getDpsInits()[0];
  auto narrow = cast<RankedTensorType>(init.getType());
  Value accumulator = wideAccumulator(b, loc, init);
  SmallVector<Value> inputs = op.getDpsInputs();
  if (widenInputs)
    for (Value &input : inputs)
      input = convertTensor<arith::ExtFOp>(b, loc, input, b.getF32Type());
  // The region is rebuilt for the new types (the inputs extended to f32);
  // other attributes (indexing maps) carry over.
  SmallVector<NamedAttribute> attributes;
  for (NamedAttribute attribute : op->getAttrs())
    if (attribute.getName() != "operandSegmentSizes")
      attributes.push_back(attribute);
  auto wide = Product::create(b, loc, TypeRange{accumulator.getType()}, inputs,
                              ValueRange{accumulator}, attributes);
  Value rounded = convertTensor<arith::TruncFOp>(b, loc, wide.getResult(0),
                                                 narrow.getElementType());
  op.getResult(0).replaceAllUsesWith(rounded);
  op.erase();
}

namespace {
struct LazyCpuWidenNarrowProductsPass
    : mlir::lazy::impl::LazyCpuWidenNarrowProductsPassBase<
          LazyCpuWidenNarrowProductsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Every operand of one narrow float type.
    auto isNarrowProduct = [](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1)
        return false;
      Type element = getElementTypeOrSelf(op->getOperand(0).getType());
      return (element.isF16() || element.isBF16()) &&
             llvm::all_of(op->getOperandTypes(), [&](Type type) {
               return getElementTypeOrSelf(type) == element;
             });
    };
    SmallVector<Operation *> products;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNchwFchwOp,
              linalg::Conv2DNhwcHwcfOp>(op) &&
          isNarrowProduct(cast<linalg::LinalgOp>(op)))
        products.push_back(op);
    });
    for (Operation *op : products) {
      // bf16 convolutions keep their operands for the dot-product kernels.
      bool widenConvolutionInputs =
          !bf16DotConvolutions ||
          !getElementTypeOrSelf(op->getOperand(0).getType()).isBF16();
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
        widen(matmul, /*widenInputs=*/false);
      else if (auto batched = dyn_cast<linalg::BatchMatmulOp>(op))
        widen(batched, /*widenInputs=*/false);
      else if (auto nchw = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
        widen(nchw, widenConvolutionInputs);
      else
        widen(cast<linalg::Conv2DNhwcHwcfOp>(op), widenConvolutionInputs);
    }
  }
};
} // namespace
