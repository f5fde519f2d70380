//===- QuantizedOps.cpp - ONNX's quantized ops as exact compositions ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, and the integer
// products (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv). lazyc
// has 8-bit tensors but no integer GEMM: the products run in Float64, where
// every sum of 8-bit products is exact (below 2^53 for any size a model
// has), and the result is cast back. The convolutions reuse the Conv
// kernel, whose attributes they share.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

using namespace lazyc;
using namespace lazyc::onnx::detail;

namespace {

using Tensors = std::vector<Tensor>;

/// A scale or zero point of `x`'s quantization: a scalar, one value per
/// index of the node's `axis` (reshaped to broadcast there), or (opset
/// 21's block_size) one per block of that many indices along `axis`, x's
/// shape elsewhere (repeated over each block).
Tensor alongAxis(const NodeContext &node, const Tensor &value,
                 const Tensor &x) {
  int64_t block =
      node.opset() >= 21 ? node.attribute("block_size", int64_t(0)) : 0;
  if (block == 0 && (value.numel() == 1 || value.rank() == 0))
    return reshape(value, {});
  int64_t rank = x.rank();
  int64_t axis = normalizeAxis(node, node.attribute("axis", int64_t(1)), rank);
  if (block != 0) {
    int64_t size = x.shape()[axis];
    Shape expected = x.shape();
    expected[axis] = block > 0 ? (size + block - 1) / block : 0;
    if (block < 0 || value.shape() != expected)
      node.fail("a blocked scale or zero point of block_size " +
                std::to_string(block) + " must have x's shape with " +
                std::to_string(expected[axis]) + " along axis " +
                std::to_string(axis));
    std::vector<int64_t> owner(size_t(size), 0);
    for (int64_t i = 0; i < size; ++i)
      owner[size_t(i)] = i / block;
    return indexSelect(value, axis, Tensor::fromVector(owner, {size}));
  }
  if (value.rank() != 1 || value.shape()[0] != x.shape()[axis])
    node.fail("a per-axis scale or zero point must be 1-D of size " +
              std::to_string(x.shape()[axis]) + " (axis " +
              std::to_string(axis) + "), not of " +
              std::to_string(value.numel()) + " elements");
  Shape shape(rank, 1);
  shape[axis] = x.shape()[axis];
  return reshape(value, shape);
}

/// round(value) + zeroPoint, saturated to `dtype` (8 or, from opset 21,
/// 16 bits).
Tensor saturate(const NodeContext &node, const Tensor &value,
                const Tensor &zeroPoint, DType dtype) {
  bool wide = dtype == DType::UInt16 || dtype == DType::Int16;
  if (dtype != DType::UInt8 && dtype != DType::Int8 &&
      !(wide && node.opset() >= 21))
    node.fail(std::string("quantizing to ") + dtypeName(dtype) +
              " is not supported (UInt8 and Int8 are; UInt16 and Int16 from "
              "opset 21)");
  bool isSigned = dtype == DType::Int8 || dtype == DType::Int16;
  double range = wide ? 65536 : 256;
  double low = isSigned ? -range / 2 : 0;
  double high = low + range - 1;
  Tensor shifted = roundHalfEven(value) + cast(zeroPoint, value.dtype());
  return cast(clamp(shifted, low, high), dtype);
}

Tensors quantizeLinear(const NodeContext &node) {
  const Tensor &x = node.input(0);
  Tensor scale = alongAxis(node, node.input(1), x);
  // Without a zero point, the output is UInt8 (opset 21: output_dtype).
  int64_t outputType = node.opset() >= 21
                           ? node.attribute("output_dtype", int64_t(0))
                           : int64_t(0);
  Tensor zeroPoint =
      node.has(2)
          ? alongAxis(node, node.input(2), x)
          : zeros({}, outputType
                          ? dtypeFromOnnx(int32_t(outputType), "output_dtype")
                          : DType::UInt8);
  // In Float32 at least, as ONNX's reference divides.
  DType compute = x.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  Tensor value = cast(x, compute) / cast(scale, compute);
  return {saturate(node, value, zeroPoint, zeroPoint.dtype())};
}

Tensors dequantizeLinear(const NodeContext &node) {
  const Tensor &x = node.input(0);
  Tensor scale = alongAxis(node, node.input(1), x);
  Tensor value = cast(x, scale.dtype());
  if (node.has(2))
    value = value - cast(alongAxis(node, node.input(2), x), scale.dtype());
  return {value * scale};
}

/// The UInt8 quantization that spans [min(x, 0), max(x, 0)].
Tensors dynamicQuantizeLinear(const NodeContext &node) {
  Tensor x = cast(node.input(0), DType::Float32);
  Tensor zero = constant(0, x);
  Tensor low = minimum(min(x), zero), high = maximum(max(x), zero);
  Tensor scale = (high - low) / constant(255, x);
  Tensor zeroPoint = cast(
      clamp(roundHalfEven((zero - low) / scale), 0.0, 255.0), DType::UInt8);
  return {saturate(node, x / scale, zeroPoint, DType::UInt8), scale, zeroPoint};
}

/// `x` minus its zero point, in Float64.
Tensor centered(const NodeContext &node, size_t input, size_t zeroPointInput,
                const Shape &zeroPointShape) {
  Tensor value = cast(node.input(input), DType::Float64);
  if (!node.has(zeroPointInput))
    return value;
  Tensor zeroPoint = cast(node.input(zeroPointInput), DType::Float64);
  if (zeroPoint.numel() == 1)
    return value - reshape(zeroPoint, {});
  return value - reshape(zeroPoint, zeroPointShape);
}

/// (A - a0) (B - b0): a's zero point per row, b's per column.
Tensor integerProduct(const NodeContext &node, size_t a, size_t aZero, size_t b,
                      size_t bZero) {
  const Tensor &lhs = node.input(a), &rhs = node.input(b);
  if (lhs.rank() < 1 || rhs.rank() < 1)
    node.fail("needs operands of rank 1 or more");
  Shape rows = {lhs.rank() >= 2 ? lhs.shape()[lhs.rank() - 2] : 1, 1};
  Shape columns = {1, rhs.shape().back()};
  return matmul(centered(node, a, aZero, rows),
                centered(node, b, bZero, columns));
}

/// The convolution of (x - x0) by (w - w0) (w0 per output channel), by the
/// Conv kernel, in Float64.
Tensor integerConvolution(const NodeContext &node, size_t x, size_t xZero,
                          size_t w, size_t wZero) {
  const Tensor &filter = node.input(w);
  Shape perChannel(filter.rank(), 1);
  perChannel[0] = filter.shape()[0];
  Tensor input = centered(node, x, xZero, {});
  Tensor weight = centered(node, w, wZero, perChannel);
  NodeContext conv(node.graph, node.node, {input, weight});
  return kernels().at("Conv")(conv).at(0);
}

Tensors matMulInteger(const NodeContext &node) {
  return {cast(integerProduct(node, 0, 2, 1, 3), DType::Int32)};
}

Tensors convInteger(const NodeContext &node) {
  return {cast(integerConvolution(node, 0, 2, 1, 3), DType::Int32)};
}

/// The product's accumulator scaled into y's quantization.
Tensor requantize(const NodeContext &node, const Tensor &accumulator,
                  const Tensor &scale, size_t yScale, size_t yZero) {
  Tensor y = accumulator * cast(scale, DType::Float64) /
             cast(reshape(node.input(yScale), {}), DType::Float64);
  Tensor zeroPoint = reshape(node.input(yZero), {});
  return saturate(node, y, zeroPoint, zeroPoint.dtype());
}

Tensors qLinearMatMul(const NodeContext &node) {
  Tensor accumulator = integerProduct(node, 0, 2, 3, 5);
  Tensor scale = reshape(node.input(1), {}) * reshape(node.input(4), {});
  return {requantize(node, accumulator, scale, 6, 7)};
}

Tensors qLinearConv(const NodeContext &node) {
  Tensor accumulator = integerConvolution(node, 0, 2, 3, 5);
  int64_t rank = accumulator.rank();
  Shape perChannel(rank, 1);
  perChannel[1] = accumulator.shape()[1];
  if (node.has(8))
    accumulator =
        accumulator + reshape(cast(node.input(8), DType::Float64), perChannel);
  const Tensor &wScale = node.input(4);
  Tensor scale =
      reshape(node.input(1), {}) *
      (wScale.numel() == 1 ? reshape(wScale, {}) : reshape(wScale, perChannel));
  return {requantize(node, accumulator, scale, 6, 7)};
}

} // namespace

void lazyc::onnx::detail::addQuantizedKernels(
    std::map<std::string, Kernel> &table) {
  table["QuantizeLinear"] = quantizeLinear;
  table["DequantizeLinear"] = dequantizeLinear;
  table["DynamicQuantizeLinear"] = dynamicQuantizeLinear;
  table["MatMulInteger"] = matMulInteger;
  table["ConvInteger"] = convInteger;
  table["QLinearMatMul"] = qLinearMatMul;
  table["QLinearConv"] = qLinearConv;
}
