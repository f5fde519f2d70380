//===- DirectConvolution.cpp - Convolutions as register tiles -------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-cpu-direct-convolution: the classic direct
// convolution kernel (as in oneDNN) written as vector ops. Channels last,
// an output pixel's channels are contiguous, and so are a filter tap's
// output channels: each tap is one vector load of the filter per vector of
// channels, and one broadcast input value per pixel, fused into the
// accumulators with a multiply-add. An im2col GEMM on these shapes (a few
// thousand pixels, 16 to 64 channels, 150 taps) runs at a fraction of that.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYCPUDIRECTCONVOLUTIONPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// Accumulator vectors per register tile: half of AVX-512's 32 registers,
/// leaving the rest for the filter's vectors and the broadcasts.
static constexpr int64_t kAccumulators = 16;

namespace {

/// A register tile's static shape: `rows` neighbouring output pixels by
/// `vectors` vectors of output channels, the last with `lastLanes` lanes.
struct TileShape {
  int64_t rows, vectors, lastLanes;
};

/// Emits the loops and tiles of one convolution on buffers.
class ConvolutionKernel {
public:
  ConvolutionKernel(linalg::Conv2DNhwcHwcfOp op, int64_t lanes)
      : images(op.getInputs()[0]), filters(op.getInputs()[1]),
        output(op.getOutputs()[0]), loc(op.getLoc()), lanes(lanes) {
    auto strides = op.getStrides().getValues<int64_t>();
    auto dilations = op.getDilations().getValues<int64_t>();
    stride = {strides[0], strides[1]};
    dilation = {dilations[0], dilations[1]};
    auto outputType = cast<MemRefType>(output.getType());
    width = outputType.getDimSize(2);
    channels = outputType.getDimSize(3);
    vectorType = VectorType::get({lanes}, outputType.getElementType());
  }

  void emit(OpBuilder &b) {
    Value zero = index(b, 0), one = index(b, 1);
    Value batch = memref::DimOp::create(b, loc, output, 0);
    Value height = memref::DimOp::create(b, loc, output, 1);
    forLoop(b, zero, batch, one, [&](OpBuilder &b, Value n) {
      forLoop(b, zero, height, one,
              [&](OpBuilder &b, Value y) { emitRow(b, n, y); });
    });
  }

private:
  Value images, filters, output;
  Location loc;
  int64_t lanes, width, channels;
  std::array<int64_t, 2> stride, dilation;
  VectorType vectorType;

  Value index(OpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value add(OpBuilder &b, Value x, int64_t value) {
    return value == 0 ? x : arith::AddIOp::create(b, loc, x, index(b, value));
  }
  Value mul(OpBuilder &b, Value x, int64_t value) {
    return value == 1 ? x : arith::MulIOp::create(b, loc, x, index(b, value));
  }

  /// A loop without results.
  void forLoop(OpBuilder &b, Value lower, Value upper, Value step,
               function_ref<void(OpBuilder &, Value)> body) {
    scf::ForOp::create(b, loc, lower, upper, step, ValueRange{},
                       [&](OpBuilder &nested, Location, Value iv, ValueRange) {
                         body(nested, iv);
                         scf::YieldOp::create(nested, loc);
                       });
  }

  /// One output row: its channels in tiles of two vectors (the rest in a
  /// last, narrower tile), each swept along the row.
  void emitRow(OpBuilder &b, Value n, Value y) {
    int64_t tileChannels = 2 * lanes;
    int64_t fullEnd = channels - channels % tileChannels;
    if (fullEnd > 0)
      forLoop(
          b, index(b, 0), index(b, fullEnd), index(b, tileChannels),
          [&](OpBuilder &b, Value f) { emitColumns(b, n, y, f, 2, lanes); });
    int64_t rest = channels - fullEnd;
    if (rest > 0)
      emitColumns(b, n, y, index(b, fullEnd), llvm::divideCeil(rest, lanes),
                  rest % lanes == 0 ? lanes : rest % lanes);
  }

  /// The tiles of one vector block of channels along the output row.
  void emitColumns(OpBuilder &b, Value n, Value y, Value f, int64_t vectors,
                   int64_t lastLanes) {
    int64_t rows = std::min(width, kAccumulators / vectors);
    if (rows == 0)
      return;
    int64_t fullEnd = width - width % rows;
    forLoop(b, index(b, 0), index(b, fullEnd), index(b, rows),
            [&](OpBuilder &b, Value x) {
              emitTile(b, n, y, x, f, {rows, vectors, lastLanes});
            });
    if (width > fullEnd)
      emitTile(b, n, y, index(b, fullEnd), f,
               {width - fullEnd, vectors, lastLanes});
  }

  /// A vector of `memref[indices]`, masked to its first `active` lanes.
  Value load(OpBuilder &b, Value memref, ValueRange indices, int64_t active) {
    if (active == lanes)
      return vector::LoadOp::create(b, loc, vectorType, memref, indices);
    Value mask = vector::ConstantMaskOp::create(
        b, loc, VectorType::get({lanes}, b.getI1Type()),
        ArrayRef<int64_t>{active});
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(vectorType));
    return vector::MaskedLoadOp::create(b, loc, vectorType, memref, indices,
                                        mask, zero);
  }

  void store(OpBuilder &b, Value value, Value memref, ValueRange indices,
             int64_t active) {
    if (active == lanes) {
      vector::StoreOp::create(b, loc, value, memref, indices);
      return;
    }
    Value mask = vector::ConstantMaskOp::create(
        b, loc, VectorType::get({lanes}, b.getI1Type()),
        ArrayRef<int64_t>{active});
    vector::MaskedStoreOp::create(b, loc, memref, indices, mask, value);
  }

  /// Output pixels (n, y, x .. x + rows) by channels f .. f + vectors
  /// lanes: the accumulators start from the output, every tap adds to
  /// them, and they are stored back.
  void emitTile(OpBuilder &b, Value n, Value y, Value x, Value f,
                TileShape shape) {
    auto activeLanes = [&](int64_t v) {
      return v + 1 == shape.vectors ? shape.lastLanes : lanes;
    };
    SmallVector<Value> channelOffsets;
    for (int64_t v = 0; v < shape.vectors; ++v)
      channelOffsets.push_back(add(b, f, v * lanes));
    SmallVector<Value> initial;
    for (int64_t r = 0; r < shape.rows; ++r)
      for (int64_t v = 0; v < shape.vectors; ++v)
        initial.push_back(load(b, output,
                               {n, y, add(b, x, r), channelOffsets[v]},
                               activeLanes(v)));
    Value zero = index(b, 0), one = index(b, 1);
    Value kernelHeight = memref::DimOp::create(b, loc, filters, 0);
    Value kernelWidth = memref::DimOp::create(b, loc, filters, 1);
    Value inputChannels = memref::DimOp::create(b, loc, filters, 2);
    Value top = mul(b, y, stride[0]), left = mul(b, x, stride[1]);
    auto overRows = scf::ForOp::create(
        b, loc, zero, kernelHeight, one, initial,
        [&](OpBuilder &b, Location, Value i, ValueRange accumulators) {
          Value row =
              arith::AddIOp::create(b, loc, top, mul(b, i, dilation[0]));
          auto overColumns = scf::ForOp::create(
              b, loc, zero, kernelWidth, one, accumulators,
              [&](OpBuilder &b, Location, Value j, ValueRange accumulators) {
                Value column =
                    arith::AddIOp::create(b, loc, left, mul(b, j, dilation[1]));
                auto overChannels = scf::ForOp::create(
                    b, loc, zero, inputChannels, one, accumulators,
                    [&](OpBuilder &b, Location, Value c,
                        ValueRange accumulators) {
                      SmallVector<Value> taps;
                      for (int64_t v = 0; v < shape.vectors; ++v)
                        taps.push_back(load(b, filters,
                                            {i, j, c, channelOffsets[v]},
                                            activeLanes(v)));
                      SmallVector<Value> sums(accumulators);
                      for (int64_t r = 0; r < shape.rows; ++r) {
                        Value pixel = memref::LoadOp::create(
                            b, loc, images,
                            ValueRange{n, row, add(b, column, r * stride[1]),
                                       c});
                        Value spread = vector::BroadcastOp::create(
                            b, loc, vectorType, pixel);
                        for (int64_t v = 0; v < shape.vectors; ++v) {
                          Value &sum = sums[r * shape.vectors + v];
                          sum = vector::FMAOp::create(b, loc, spread, taps[v],
                                                      sum);
                        }
                      }
                      scf::YieldOp::create(b, loc, sums);
                    });
                scf::YieldOp::create(b, loc, overChannels.getResults());
              });
          scf::YieldOp::create(b, loc, overColumns.getResults());
        });
    for (int64_t r = 0; r < shape.rows; ++r)
      for (int64_t v = 0; v < shape.vectors; ++v)
        store(b, overRows.getResult(r * shape.vectors + v), output,
              {n, y, add(b, x, r), channelOffsets[v]}, activeLanes(v));
  }
};

/// Whether the kernel handles `op`: f32 or f64 buffers, unit-stride
/// channels, and a static output width and channel count.
bool isSupported(linalg::Conv2DNhwcHwcfOp op) {
  if (!op.hasPureBufferSemantics())
    return false;
  Type element = getElementTypeOrSelf(op.getOutputs()[0].getType());
  if (!element.isF32() && !element.isF64())
    return false;
  for (Value operand : op->getOperands()) {
    auto type = cast<MemRefType>(operand.getType());
    if (type.getElementType() != element || !type.isLastDimUnitStride())
      return false;
  }
  auto output = cast<MemRefType>(op.getOutputs()[0].getType());
  return !output.isDynamicDim(2) && !output.isDynamicDim(3);
}

struct LazyCpuDirectConvolutionPass
    : mlir::lazy::impl::LazyCpuDirectConvolutionPassBase<
          LazyCpuDirectConvolutionPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::Conv2DNhwcHwcfOp> convolutions;
    getOperation().walk([&](linalg::Conv2DNhwcHwcfOp op) {
      if (isSupported(op))
        convolutions.push_back(op);
    });
    for (linalg::Conv2DNhwcHwcfOp op : convolutions) {
      Type element = getElementTypeOrSelf(op.getOutputs()[0].getType());
      int64_t lanes =
          std::max<int64_t>(1, vectorBits / element.getIntOrFloatBitWidth());
      OpBuilder b(op);
      ConvolutionKernel(op, lanes).emit(b);
      op->erase();
    }
  }
};

} // namespace
