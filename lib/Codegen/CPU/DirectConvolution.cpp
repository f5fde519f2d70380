//===- DirectConvolution.cpp - Convolutions as register tiles -------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-cpu-direct-convolution: the classic direct
// convolution kernels (as in oneDNN) written as vector ops. An output tile
// of up to 16 vectors stays in registers while every tap (input channel,
// kernel row, kernel column) adds to it: one operand of each multiply-add is
// a vector loaded once per tap, the other a scalar broadcast. Channels
// last, the vectors run along output channels (a filter tap's channels)
// and the scalars are input pixels; NCHW, the vectors run along an output
// row's pixels (an input row's) and the scalars are filter taps. An im2col
// GEMM on a CNN's shapes (a few thousand pixels, 6 to 64 channels, 25 to
// 150 taps) runs at a fraction of either.
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
/// leaving the rest for the loaded vectors and the broadcasts.
static constexpr int64_t kAccumulators = 16;

/// `value` clamped to [1, limit] (limit at least 1).
static int64_t clampCount(int64_t value, int64_t limit) {
  return std::max<int64_t>(1, std::min(value, std::max<int64_t>(limit, 1)));
}

namespace {

/// Loops, masked vector accesses and index arithmetic shared by the two
/// kernels.
class KernelBuilder {
protected:
  /// The lanes of a vector an access touches: the first `count`, or, when
  /// `left` is set, as many as it says (at most all).
  struct Lanes {
    int64_t count;
    Value left;
  };
  /// One block of a dimension: its start, its static size, and for the
  /// partial blocks after the whole ones of a dynamic extent, the elements
  /// left from its start.
  using BlockBody =
      function_ref<void(OpBuilder &, Value start, int64_t size, Value left)>;
  using TapBody = function_ref<SmallVector<Value>(
      OpBuilder &, ArrayRef<Value> taps, ValueRange accumulators)>;

  KernelBuilder(Operation *op, Value output, int64_t vectorBits)
      : loc(op->getLoc()) {
    Type element = getElementTypeOrSelf(output.getType());
    lanes = std::max<int64_t>(1, vectorBits / element.getIntOrFloatBitWidth());
    vectorType = VectorType::get({lanes}, element);
  }

  Location loc;
  int64_t lanes;
  VectorType vectorType;

  Value index(OpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value add(OpBuilder &b, Value x, int64_t value) {
    return value == 0 ? x : arith::AddIOp::create(b, loc, x, index(b, value));
  }
  Value add(OpBuilder &b, Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y);
  }
  Value mul(OpBuilder &b, Value x, int64_t value) {
    return value == 1 ? x : arith::MulIOp::create(b, loc, x, index(b, value));
  }
  Value dim(OpBuilder &b, Value memref, int64_t d) {
    return memref::DimOp::create(b, loc, memref, d);
  }
  static int64_t staticDim(Value memref, int64_t d) {
    return cast<MemRefType>(memref.getType()).getDimSize(d);
  }

  /// A loop without results.
  void forLoop(OpBuilder &b, Value lower, Value upper, int64_t step,
               function_ref<void(OpBuilder &, Value)> body) {
    scf::ForOp::create(b, loc, lower, upper, index(b, step), ValueRange{},
                       [&](OpBuilder &nested, Location, Value iv, ValueRange) {
                         body(nested, iv);
                         scf::YieldOp::create(nested, loc);
                       });
  }
  void forLoop(OpBuilder &b, Value upper, int64_t step,
               function_ref<void(OpBuilder &, Value)> body) {
    forLoop(b, index(b, 0), upper, step, body);
  }

  /// `body` for each block of `block` elements of dimension `d` of
  /// `memref`: a loop over the whole blocks, then the rest, in one call of
  /// its static size, or, for a dynamic extent, in a loop of blocks of
  /// `unit` vector lanes (the last one partial), or, for a `unit` of one
  /// element, in blocks of the powers of two that add up to the rest (8 +
  /// 4 + 1 for 13), each under an scf.if: tiles of one pixel or one filter
  /// would leave the tap loops one or two accumulators to work with.
  void forBlocks(OpBuilder &b, Value memref, int64_t d, int64_t block,
                 int64_t unit, BlockBody body) {
    int64_t extent = staticDim(memref, d);
    if (!ShapedType::isDynamic(extent)) {
      int64_t wholeEnd = extent - extent % block;
      if (wholeEnd > 0)
        forLoop(b, index(b, wholeEnd), block, [&](OpBuilder &b, Value start) {
          body(b, start, block, Value());
        });
      if (extent > wholeEnd)
        body(b, index(b, wholeEnd), extent - wholeEnd, Value());
      return;
    }
    Value size = dim(b, memref, d);
    Value wholeEnd = arith::SubIOp::create(
        b, loc, size, arith::RemUIOp::create(b, loc, size, index(b, block)));
    forLoop(b, wholeEnd, block,
            [&](OpBuilder &b, Value start) { body(b, start, block, Value()); });
    if (block == 1)
      return; // Nothing is left.
    if (unit > 1) {
      forLoop(b, wholeEnd, size, unit, [&](OpBuilder &b, Value start) {
        body(b, start, unit, arith::SubIOp::create(b, loc, size, start));
      });
      return;
    }
    Value rest = arith::SubIOp::create(b, loc, size, wholeEnd);
    for (int64_t part = llvm::PowerOf2Ceil(block) / 2; part >= 1; part /= 2) {
      // The part is there if its bit of the rest is; it starts after the
      // larger parts, the rest's higher bits.
      Value bit = arith::AndIOp::create(b, loc, rest, index(b, part));
      Value present = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                            bit, index(b, 0));
      Value before =
          arith::AndIOp::create(b, loc, rest, index(b, ~(2 * part - 1)));
      scf::IfOp::create(b, loc, present, [&](OpBuilder &b, Location) {
        body(b, add(b, wholeEnd, before), part, Value());
        scf::YieldOp::create(b, loc);
      });
    }
  }

  /// The three tap loops (upper bounds `bounds`) carrying the accumulators.
  SmallVector<Value> overTaps(OpBuilder &b, ArrayRef<Value> bounds,
                              ValueRange accumulators, TapBody body,
                              SmallVector<Value> &taps) {
    if (bounds.empty())
      return body(b, taps, accumulators);
    auto loop = scf::ForOp::create(
        b, loc, index(b, 0), bounds.front(), index(b, 1), accumulators,
        [&](OpBuilder &b, Location, Value iv, ValueRange carried) {
          taps.push_back(iv);
          SmallVector<Value> results =
              overTaps(b, bounds.drop_front(), carried, body, taps);
          taps.pop_back();
          scf::YieldOp::create(b, loc, results);
        });
    return SmallVector<Value>(loop.getResults());
  }

  /// The lanes of vector `v` of `vectors` covering `size` elements of a
  /// block (`left`: what its dimension has left, for a partial block).
  Lanes lanesOf(int64_t v, int64_t vectors, int64_t size, Value left) {
    if (v + 1 < vectors)
      return {lanes, Value()};
    return {size - (vectors - 1) * lanes, left};
  }

  /// A vector of `memref[indices]`, masked to `active`.
  Value load(OpBuilder &b, Value memref, ValueRange indices, Lanes active) {
    if (!active.left && active.count == lanes)
      return vector::LoadOp::create(b, loc, vectorType, memref, indices);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(vectorType));
    return vector::MaskedLoadOp::create(b, loc, vectorType, memref, indices,
                                        mask(b, active), zero);
  }

  void store(OpBuilder &b, Value value, Value memref, ValueRange indices,
             Lanes active) {
    if (!active.left && active.count == lanes)
      vector::StoreOp::create(b, loc, value, memref, indices);
    else
      vector::MaskedStoreOp::create(b, loc, memref, indices, mask(b, active),
                                    value);
  }

  /// `scalar` in every lane.
  Value spread(OpBuilder &b, Value scalar) {
    return vector::BroadcastOp::create(b, loc, vectorType, scalar);
  }

private:
  Value mask(OpBuilder &b, Lanes active) {
    auto type = VectorType::get({lanes}, b.getI1Type());
    if (!active.left)
      return vector::ConstantMaskOp::create(b, loc, type,
                                            ArrayRef<int64_t>{active.count});
    // create_mask clamps a count beyond the vector to all lanes.
    return vector::CreateMaskOp::create(b, loc, type, ValueRange{active.left});
  }
};

/// Channels last (linalg.conv_2d_nhwc_hwcf): a tile is rows x columns of
/// output pixels by one or two vectors of output channels. Per tap it loads
/// the filter's vectors and broadcasts each pixel's input value.
class ChannelsLastKernel : KernelBuilder {
public:
  ChannelsLastKernel(linalg::Conv2DNhwcHwcfOp op, int64_t vectorBits)
      : KernelBuilder(op, op.getOutputs()[0], vectorBits),
        images(op.getInputs()[0]), filters(op.getInputs()[1]),
        output(op.getOutputs()[0]) {
    auto strides = op.getStrides().getValues<int64_t>();
    auto dilations = op.getDilations().getValues<int64_t>();
    stride = {strides[0], strides[1]};
    dilation = {dilations[0], dilations[1]};
  }

  void emit(OpBuilder &b) {
    int64_t width = staticDim(output, 2), height = staticDim(output, 1);
    forLoop(b, dim(b, output, 0), 1, [&](OpBuilder &b, Value n) {
      forBlocks(b, output, 3, 2 * lanes, lanes,
                [&](OpBuilder &b, Value f, int64_t size, Value left) {
                  int64_t vectors = llvm::divideCeil(size, lanes);
                  int64_t columns = kAccumulators / vectors;
                  if (!ShapedType::isDynamic(width))
                    columns = clampCount(columns, width);
                  int64_t rows =
                      ShapedType::isDynamic(height)
                          ? 1
                          : clampCount(kAccumulators / (columns * vectors),
                                       height);
                  Tile tile{rows, columns, vectors, size, left};
                  forBlocks(b, output, 1, rows, 1,
                            [&](OpBuilder &b, Value y, int64_t rows, Value) {
                              forBlocks(b, output, 2, columns, 1,
                                        [&](OpBuilder &b, Value x,
                                            int64_t columns, Value) {
                                          Tile part = tile;
                                          part.rows = rows;
                                          part.columns = columns;
                                          emitTile(b, n, y, x, f, part);
                                        });
                            });
                });
    });
  }

private:
  Value images, filters, output;
  std::array<int64_t, 2> stride, dilation;

  /// A tile's static shape: rows x columns of output pixels by `vectors`
  /// vectors covering `channels` channels (`left`: those the dimension has
  /// left, in a partial block of a dynamic one).
  struct Tile {
    int64_t rows, columns, vectors, channels;
    Value left;
  };

  /// Output pixels (n, y .. y + rows, x .. x + columns) by the tile's
  /// channels from f.
  void emitTile(OpBuilder &b, Value n, Value y, Value x, Value f, Tile tile) {
    int64_t rows = tile.rows, columns = tile.columns, vectors = tile.vectors;
    auto active = [&](int64_t v) {
      return lanesOf(v, vectors, tile.channels, tile.left);
    };
    auto at = [&](int64_t r, int64_t c, int64_t v) {
      return (r * columns + c) * vectors + v;
    };
    SmallVector<Value> channel, initial(rows * columns * vectors);
    for (int64_t v = 0; v < vectors; ++v)
      channel.push_back(add(b, f, v * lanes));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < columns; ++c)
        for (int64_t v = 0; v < vectors; ++v)
          initial[at(r, c, v)] =
              load(b, output, {n, add(b, y, r), add(b, x, c), channel[v]},
                   active(v));
    SmallVector<Value> bounds = {dim(b, filters, 0), dim(b, filters, 1),
                                 dim(b, filters, 2)};
    SmallVector<Value> taps;
    SmallVector<Value> sums = overTaps(
        b, bounds, initial,
        [&](OpBuilder &b, ArrayRef<Value> tap, ValueRange accumulators) {
          Value i = tap[0], j = tap[1], inputChannel = tap[2];
          SmallVector<Value> weights, next(accumulators);
          for (int64_t v = 0; v < vectors; ++v)
            weights.push_back(
                load(b, filters, {i, j, inputChannel, channel[v]}, active(v)));
          Value top = mul(b, i, dilation[0]), left = mul(b, j, dilation[1]);
          for (int64_t r = 0; r < rows; ++r) {
            Value row = add(b, mul(b, add(b, y, r), stride[0]), top);
            for (int64_t c = 0; c < columns; ++c) {
              Value column = add(b, mul(b, add(b, x, c), stride[1]), left);
              Value pixel =
                  spread(b, memref::LoadOp::create(
                                b, loc, images,
                                ValueRange{n, row, column, inputChannel}));
              for (int64_t v = 0; v < vectors; ++v) {
                Value &sum = next[at(r, c, v)];
                sum = vector::FMAOp::create(b, loc, pixel, weights[v], sum);
              }
            }
          }
          return next;
        },
        taps);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < columns; ++c)
        for (int64_t v = 0; v < vectors; ++v)
          store(b, sums[at(r, c, v)], output,
                {n, add(b, y, r), add(b, x, c), channel[v]}, active(v));
  }
};

/// NCHW (linalg.conv_2d_nchw_fchw) with a width stride of 1: a tile is
/// filters x rows by one or two vectors of an output row's pixels. Per tap
/// it loads the input rows' vectors and broadcasts each filter's weight.
class WidthKernel : KernelBuilder {
public:
  WidthKernel(linalg::Conv2DNchwFchwOp op, int64_t vectorBits)
      : KernelBuilder(op, op.getOutputs()[0], vectorBits),
        images(op.getInputs()[0]), filters(op.getInputs()[1]),
        output(op.getOutputs()[0]) {
    auto strides = op.getStrides().getValues<int64_t>();
    auto dilations = op.getDilations().getValues<int64_t>();
    rowStride = strides[0];
    dilation = {dilations[0], dilations[1]};
  }

  static bool supports(linalg::Conv2DNchwFchwOp op) {
    return *std::next(op.getStrides().value_begin<int64_t>()) == 1;
  }

  void emit(OpBuilder &b) {
    int64_t channels = staticDim(output, 1), height = staticDim(output, 2),
            width = staticDim(output, 3);
    int64_t vectors =
        ShapedType::isDynamic(width)
            ? 1 // A vector per row: more filters per tile, and small images
                // (a CNN's later layers) waste less of it.
            : std::min<int64_t>(llvm::divideCeil(width, lanes), 2);
    if (vectors == 0)
      return; // No pixels.
    int64_t block = kAccumulators / vectors;
    if (!ShapedType::isDynamic(channels))
      block = clampCount(block, channels);
    forLoop(b, dim(b, output, 0), 1, [&](OpBuilder &b, Value n) {
      forBlocks(b, output, 1, block, 1,
                [&](OpBuilder &b, Value f, int64_t count, Value) {
                  int64_t rows =
                      ShapedType::isDynamic(height)
                          ? 1
                          : clampCount(kAccumulators / (count * vectors),
                                       height);
                  forBlocks(b, output, 2, rows, 1,
                            [&](OpBuilder &b, Value y, int64_t rows, Value) {
                              forBlocks(b, output, 3, vectors * lanes, lanes,
                                        [&](OpBuilder &b, Value x,
                                            int64_t pixels, Value left) {
                                          emitTile(b, n, f, count, y, rows, x,
                                                   pixels, left);
                                        });
                            });
                });
    });
  }

private:
  Value images, filters, output;
  int64_t rowStride;
  std::array<int64_t, 2> dilation;

  /// Output channels f .. f + count, rows y .. y + rows, `pixels` pixels
  /// from x (`left`: those the row has left, in a partial block of a
  /// dynamic width).
  void emitTile(OpBuilder &b, Value n, Value f, int64_t count, Value y,
                int64_t rows, Value x, int64_t pixels, Value left) {
    int64_t vectors = llvm::divideCeil(pixels, lanes);
    auto active = [&](int64_t v) { return lanesOf(v, vectors, pixels, left); };
    auto at = [&](int64_t k, int64_t r, int64_t v) {
      return (k * rows + r) * vectors + v;
    };
    SmallVector<Value> column, initial(count * rows * vectors);
    for (int64_t v = 0; v < vectors; ++v)
      column.push_back(add(b, x, v * lanes));
    for (int64_t k = 0; k < count; ++k)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t v = 0; v < vectors; ++v)
          initial[at(k, r, v)] = load(
              b, output, {n, add(b, f, k), add(b, y, r), column[v]}, active(v));
    SmallVector<Value> bounds = {dim(b, filters, 1), dim(b, filters, 2),
                                 dim(b, filters, 3)};
    SmallVector<Value> taps;
    SmallVector<Value> sums = overTaps(
        b, bounds, initial,
        [&](OpBuilder &b, ArrayRef<Value> tap, ValueRange accumulators) {
          Value inputChannel = tap[0], i = tap[1], j = tap[2];
          Value top = mul(b, i, dilation[0]), left = mul(b, j, dilation[1]);
          SmallVector<Value> pixels, next(accumulators);
          for (int64_t r = 0; r < rows; ++r) {
            Value row = add(b, mul(b, add(b, y, r), rowStride), top);
            for (int64_t v = 0; v < vectors; ++v)
              pixels.push_back(load(
                  b, images, {n, inputChannel, row, add(b, column[v], left)},
                  active(v)));
          }
          for (int64_t k = 0; k < count; ++k) {
            Value weight =
                spread(b, memref::LoadOp::create(
                              b, loc, filters,
                              ValueRange{add(b, f, k), inputChannel, i, j}));
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t v = 0; v < vectors; ++v) {
                Value &sum = next[at(k, r, v)];
                sum = vector::FMAOp::create(b, loc, weight,
                                            pixels[r * vectors + v], sum);
              }
          }
          return next;
        },
        taps);
    for (int64_t k = 0; k < count; ++k)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t v = 0; v < vectors; ++v)
          store(b, sums[at(k, r, v)], output,
                {n, add(b, f, k), add(b, y, r), column[v]}, active(v));
  }
};

/// f32 or f64 buffers of one element type, each contiguous in its last
/// dimension.
bool hasKernelTypes(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return false;
  Type element = getElementTypeOrSelf(op->getOperand(0).getType());
  if (!element.isF32() && !element.isF64())
    return false;
  return llvm::all_of(op->getOperandTypes(), [&](Type type) {
    auto memref = cast<MemRefType>(type);
    return memref.getElementType() == element && memref.isLastDimUnitStride();
  });
}

struct LazyCpuDirectConvolutionPass
    : mlir::lazy::impl::LazyCpuDirectConvolutionPassBase<
          LazyCpuDirectConvolutionPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> convolutions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!hasKernelTypes(op))
        return;
      if (isa<linalg::Conv2DNhwcHwcfOp>(op.getOperation()))
        convolutions.push_back(op);
      if (auto nchw = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation());
          nchw && WidthKernel::supports(nchw))
        convolutions.push_back(op);
    });
    for (Operation *op : convolutions) {
      OpBuilder b(op);
      if (auto nhwc = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op))
        ChannelsLastKernel(nhwc, vectorBits).emit(b);
      else
        WidthKernel(cast<linalg::Conv2DNchwFchwOp>(op), vectorBits).emit(b);
      op->erase();
    }
  }
};

} // namespace
