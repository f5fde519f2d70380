//===- ConvolutionLayout.cpp - The layout each convolution runs in --------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-cpu-convolution-layout: lazy-cpu-direct-
// convolution has a kernel for each layout, vectorized along what is
// contiguous there: output channels (channels last) or output pixels of a
// row (NCHW). This pass moves a convolution to channels last when a vector
// of channels is full, and leaves it NCHW, with no transposes around it,
// when a few channels would waste most of every vector.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYCPUCONVOLUTIONLAYOUTPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// The sizes of `value` with result dimension i from dimension
/// `permutation[i]`.
static SmallVector<OpFoldResult> permutedSizes(OpBuilder &b, Location loc,
                                               Value value,
                                               ArrayRef<int64_t> permutation) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : permutation)
    sizes.push_back(tensor::getMixedSize(b, loc, value, d));
  return sizes;
}

/// `input` with result dimension i read from input dimension
/// `permutation[i]`, written into `init` (a fresh tensor if null): a
/// copying linalg.generic, which elementwise fusion joins with its
/// neighbours.
static Value transposed(RewriterBase &rewriter, Location loc, Value input,
                        ArrayRef<int64_t> permutation, Value init = nullptr) {
  if (!init)
    init = tensor::EmptyOp::create(
        rewriter, loc, permutedSizes(rewriter, loc, input, permutation),
        getElementTypeOrSelf(input.getType()));
  auto transpose =
      linalg::TransposeOp::create(rewriter, loc, input, init, permutation);
  return linalg::generalizeNamedOp(rewriter, transpose)->getResult(0);
}

/// The images of a convolution transposed by `permutation`. Padded images
/// as LazyToLinalg builds them (the images inserted into a filled tensor)
/// stay padded: the fill of the permuted shape, with the images transposed
/// straight into its interior, so the padding costs no copy of its own.
static Value transposedImages(RewriterBase &rewriter, Location loc, Value input,
                              ArrayRef<int64_t> permutation) {
  auto insert = input.getDefiningOp<tensor::InsertSliceOp>();
  auto fill = insert ? insert.getDest().getDefiningOp<linalg::FillOp>()
                     : linalg::FillOp();
  if (!fill || !insert.hasUnitStride() ||
      insert.getSourceType().getRank() != insert.getDestType().getRank())
    return transposed(rewriter, loc, input, permutation);
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, permutedSizes(rewriter, loc, input, permutation),
      getElementTypeOrSelf(input.getType()));
  Value filled =
      linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
          .getResult(0);
  SmallVector<OpFoldResult> offsets, sizes;
  SmallVector<OpFoldResult> sourceOffsets = insert.getMixedOffsets(),
                            sourceSizes = insert.getMixedSizes();
  for (int64_t d : permutation) {
    offsets.push_back(sourceOffsets[d]);
    sizes.push_back(sourceSizes[d]);
  }
  SmallVector<OpFoldResult> strides(offsets.size(), rewriter.getIndexAttr(1));
  Value interior = tensor::ExtractSliceOp::create(rewriter, loc, filled,
                                                  offsets, sizes, strides);
  Value images =
      transposed(rewriter, loc, insert.getSource(), permutation, interior);
  return tensor::InsertSliceOp::create(rewriter, loc, images, filled, offsets,
                                       sizes, strides);
}

/// Whether `op` runs faster channels last: f32 or f64 with at least a
/// vector's worth of output channels, or a width stride (the NCHW kernel
/// loads neighbouring pixels as one vector). Channel counts must be known:
/// a transpose whose innermost dimension is dynamic is vectorized at full
/// width with masks, which costs far more than the convolution.
static bool prefersChannelsLast(linalg::Conv2DNchwFchwOp op,
                                int64_t vectorBits) {
  Type element = getElementTypeOrSelf(op.getResultTypes()[0]);
  if (!element.isF32() && !element.isF64())
    return false;
  int64_t lanes = vectorBits / element.getIntOrFloatBitWidth();
  int64_t inputChannels =
      cast<ShapedType>(op.getInputs()[0].getType()).getDimSize(1);
  int64_t channels = cast<ShapedType>(op.getResultTypes()[0]).getDimSize(1);
  if (ShapedType::isDynamic(inputChannels) || ShapedType::isDynamic(channels))
    return false;
  int64_t widthStride = *std::next(op.getStrides().value_begin<int64_t>());
  return channels >= lanes || widthStride != 1;
}

namespace {
struct LazyCpuConvolutionLayoutPass
    : mlir::lazy::impl::LazyCpuConvolutionLayoutPassBase<
          LazyCpuConvolutionLayoutPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::Conv2DNchwFchwOp> convolutions;
    getOperation().walk([&](linalg::Conv2DNchwFchwOp op) {
      if (op.hasPureTensorSemantics() && prefersChannelsLast(op, vectorBits))
        convolutions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::Conv2DNchwFchwOp op : convolutions) {
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value images =
          transposedImages(rewriter, loc, op.getInputs()[0], {0, 2, 3, 1});
      Value filters =
          transposed(rewriter, loc, op.getInputs()[1], {2, 3, 1, 0});
      // A fill stays a fill (of the permuted shape); other accumulators
      // are transposed.
      Value init = op.getOutputs()[0], accumulator;
      if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
        SmallVector<OpFoldResult> sizes;
        for (int64_t d : {0, 2, 3, 1})
          sizes.push_back(tensor::getMixedSize(rewriter, loc, init, d));
        Value empty = tensor::EmptyOp::create(rewriter, loc, sizes,
                                              getElementTypeOrSelf(init));
        accumulator =
            linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
                .getResult(0);
      } else {
        accumulator = transposed(rewriter, loc, init, {0, 2, 3, 1});
      }
      Value nhwc = linalg::Conv2DNhwcHwcfOp::create(
                       rewriter, loc, TypeRange{accumulator.getType()},
                       ValueRange{images, filters}, ValueRange{accumulator},
                       op.getStrides(), op.getDilations())
                       .getResult(0);
      rewriter.replaceOp(op, transposed(rewriter, loc, nhwc, {0, 3, 1, 2}));
    }
  }
};
} // namespace
