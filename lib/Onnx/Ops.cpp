//===- Ops.cpp - ONNX ops as lazyc ops ------------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// One kernel per ONNX op (default domain, opsets up to 27): each records
// the node with lazyc's public ops, or an exact composition of them, so
// that everything an imported model computes fuses and differentiates like
// code written against the API. Inputs that decide shapes (Reshape's
// shape, Slice's starts, a reduction's axes) are read when the node is
// recorded. An attribute value a kernel does not support is an Error
// naming the node.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include "lazyc/API/Autodiff.h"
#include "lazyc/API/ControlFlow.h"
#include "lazyc/API/Ops.h"
#include "lazyc/NN/Layers.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

using namespace lazyc;
using namespace lazyc::onnx::detail;

namespace {

using Tensors = std::vector<Tensor>;

/// The axes of a reduction or a (un)squeeze: an attribute before
/// `inputSince`, the second input from it.
std::vector<int64_t> axesOf(const NodeContext &node, int64_t inputSince) {
  if (node.opset() >= inputSince)
    return node.has(1) ? node.integers(1) : std::vector<int64_t>{};
  return node.attributeInts("axes");
}

Tensors one(Tensor value) { return {std::move(value)}; }

/// ONNX's elementwise kernels: f(x), for the float dtypes (and any other
/// the op accepts).
Kernel unary(Tensor (*f)(const Tensor &, Where)) {
  return [f](const NodeContext &node) {
    return one(f(node.input(0), Where::current()));
  };
}

Kernel unaryOf(std::function<Tensor(const Tensor &)> f) {
  return [f](const NodeContext &node) { return one(f(node.input(0))); };
}

Kernel binary(std::function<Tensor(const Tensor &, const Tensor &)> f) {
  return [f](const NodeContext &node) {
    return one(f(node.input(0), node.input(1)));
  };
}

/// Max, Min, Sum, Mean: every input, broadcast together.
Kernel variadic(std::function<Tensor(const Tensor &, const Tensor &)> f,
                bool mean = false) {
  return [f, mean](const NodeContext &node) {
    Tensor result = node.input(0);
    for (size_t i = 1; i < node.inputCount(); ++i)
      result = f(result, node.input(i));
    if (mean)
      result = result / constant(double(node.inputCount()), result);
    return one(result);
  };
}

/// C's truncating division for integers, true division for floats.
Tensor divide(const Tensor &a, const Tensor &b) {
  if (isFloat(a.dtype()))
    return a / b;
  Tensor quotient = floorDiv(a, b);
  Tensor zero = constant(0, a);
  Tensor inexact = (mod(a, b) != zero) & ((a < zero) != (b < zero));
  return where(inexact, quotient + constant(1, a), quotient);
}

Tensor sign(const Tensor &x) {
  Tensor zero = constant(0, x);
  return where(x > zero, constant(1, x),
               where(x < zero, constant(-1, x), zero));
}

Tensor floorOf(const Tensor &x) {
  return isFloat(x.dtype()) ? floorDiv(x, constant(1, x)) : x;
}

/// A reduction with ONNX's axes (attribute or input), keepdims and
/// noop_with_empty_axes.
Kernel
reduction(int64_t axesInputSince,
          std::function<Tensor(const Tensor &, std::vector<int64_t>, bool)> f) {
  return [axesInputSince, f](const NodeContext &node) {
    const Tensor &x = node.input(0);
    std::vector<int64_t> axes = axesOf(node, axesInputSince);
    bool keep = node.attribute("keepdims", int64_t(1)) != 0;
    if (axes.empty() && node.attribute("noop_with_empty_axes", int64_t(0)))
      return one(x);
    if (axes.empty()) {
      axes.resize(x.rank());
      std::iota(axes.begin(), axes.end(), 0);
    }
    return one(f(x, axes, keep));
  };
}

Tensor logSumExp(const Tensor &x, std::vector<int64_t> axes, bool keep) {
  Tensor peak = max(x, axes, /*keepDims=*/true);
  // A row of -infinity keeps its -infinity (not NaN from inf - inf).
  peak = where(peak == constant(-INFINITY, x), constant(0, x), peak);
  Tensor sums = sum(exp(x - peak), axes, /*keepDims=*/true);
  Tensor result = log(sums) + peak;
  return keep ? result : sum(result, axes, false);
}

/// Softmax and LogSoftmax: before opset 13 over the input flattened to 2-D
/// at `axis`, from 13 along `axis`.
Kernel softmaxKernel(bool logarithm) {
  return [logarithm](const NodeContext &node) {
    const Tensor &x = node.input(0);
    auto f = logarithm ? logSoftmax : softmax;
    if (node.opset() >= 13)
      return one(f(x, node.attribute("axis", int64_t(-1)), Where::current()));
    int64_t axis =
        normalizeAxis(node, node.attribute("axis", int64_t(1)), x.rank());
    int64_t rows = 1, columns = 1;
    for (int64_t d = 0; d < x.rank(); ++d)
      (d < axis ? rows : columns) *= x.shape()[d];
    return one(reshape(f(reshape(x, {rows, columns}), 1, Where::current()),
                       x.shape()));
  };
}

/// numpy's matmul, 1-D operands included.
Tensor matrixProduct(const Tensor &a, const Tensor &b) {
  Tensor lhs = a.rank() == 1 ? reshape(a, {1, a.shape()[0]}) : a;
  Tensor rhs = b.rank() == 1 ? reshape(b, {b.shape()[0], 1}) : b;
  Tensor product = matmul(lhs, rhs);
  Shape shape = product.shape();
  if (b.rank() == 1)
    shape.pop_back();
  if (a.rank() == 1)
    shape.erase(shape.end() - (b.rank() == 1 ? 1 : 2));
  return shape == product.shape() ? product : reshape(product, shape);
}

Tensors gemm(const NodeContext &node) {
  Tensor a = node.input(0), b = node.input(1);
  if (node.attribute("transA", int64_t(0)))
    a = transpose(a, {1, 0});
  if (node.attribute("transB", int64_t(0)))
    b = transpose(b, {1, 0});
  Tensor y = matmul(a, b);
  double alpha = node.attribute("alpha", 1.0),
         beta = node.attribute("beta", 1.0);
  if (alpha != 1.0)
    y = y * constant(alpha, y);
  if (node.has(2)) {
    Tensor c = node.input(2);
    if (beta != 1.0)
      c = c * constant(beta, c);
    y = y + c;
  }
  return one(y);
}

Tensors reshapeKernel(const NodeContext &node) {
  const Tensor &x = node.input(0);
  std::vector<int64_t> shape = node.integers(1);
  bool allowZero = node.attribute("allowzero", int64_t(0)) != 0;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] == 0 && !allowZero) {
      if (int64_t(d) >= x.rank())
        node.fail("shape entry 0 at " + std::to_string(d) +
                  " copies a dimension the input lacks");
      shape[d] = x.shape()[d];
    }
  return one(reshape(x, shape));
}

Tensors flatten(const NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t axis = node.attribute("axis", int64_t(1));
  axis = axis < 0 ? axis + x.rank() : axis;
  int64_t rows = 1, columns = 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    (d < axis ? rows : columns) *= x.shape()[d];
  return one(reshape(x, {rows, columns}));
}

Tensors squeeze(const NodeContext &node) {
  const Tensor &x = node.input(0);
  std::vector<int64_t> axes = axesOf(node, 13);
  Shape shape;
  for (int64_t d = 0; d < x.rank(); ++d) {
    bool listed =
        axes.empty() ? x.shape()[d] == 1
                     : std::any_of(axes.begin(), axes.end(), [&](int64_t axis) {
                         return normalizeAxis(node, axis, x.rank()) == d;
                       });
    if (listed && x.shape()[d] != 1)
      node.fail("axis " + std::to_string(d) + " has size " +
                std::to_string(x.shape()[d]) + ", not 1");
    if (!listed)
      shape.push_back(x.shape()[d]);
  }
  return one(reshape(x, shape));
}

Tensors unsqueeze(const NodeContext &node) {
  const Tensor &x = node.input(0);
  std::vector<int64_t> axes = axesOf(node, 13);
  int64_t rank = x.rank() + int64_t(axes.size());
  std::vector<bool> inserted(rank, false);
  for (int64_t axis : axes)
    inserted[normalizeAxis(node, axis, rank)] = true;
  Shape shape;
  for (int64_t d = 0, next = 0; d < rank; ++d)
    shape.push_back(inserted[d] ? 1 : x.shape()[next++]);
  return one(reshape(x, shape));
}

/// x with its elements along `axis` in reverse order.
Tensor reverseAxis(const Tensor &x, int64_t axis) {
  int64_t size = x.shape()[axis];
  std::vector<int64_t> reversed(size);
  for (int64_t i = 0; i < size; ++i)
    reversed[i] = size - 1 - i;
  return indexSelect(x, axis, Tensor::fromVector(reversed, {size}));
}

Tensors sliceKernel(const NodeContext &node) {
  const Tensor &x = node.input(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (node.opset() < 10) {
    starts = node.attributeInts("starts");
    ends = node.attributeInts("ends");
    axes = node.attributeInts("axes");
  } else {
    starts = node.integers(1);
    ends = node.integers(2);
    if (node.has(3))
      axes = node.integers(3);
    if (node.has(4))
      steps = node.integers(4);
  }
  if (axes.empty()) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (steps.empty())
    steps.assign(starts.size(), 1);
  std::vector<int64_t> start(x.rank(), 0), limit(x.shape()), step(x.rank(), 1);
  Tensor result = x;
  std::vector<int64_t> flipped;
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t d = normalizeAxis(node, axes[i], x.rank());
    int64_t size = x.shape()[d];
    if (steps[i] == 0)
      node.fail("a step of 0");
    auto clampIndex = [&](int64_t index, int64_t lo, int64_t hi) {
      if (index < 0)
        index += size;
      return std::clamp(index, lo, hi);
    };
    if (steps[i] > 0) {
      start[d] = clampIndex(starts[i], 0, size);
      limit[d] = std::max(start[d], clampIndex(ends[i], 0, size));
      step[d] = steps[i];
    } else {
      // Backwards: take the forward slice of the same elements, then
      // reverse it.
      int64_t first = clampIndex(starts[i], -1, size - 1);
      int64_t last = clampIndex(ends[i], -1, size - 1); // exclusive
      int64_t count = first > last ? (first - last - 1) / -steps[i] + 1 : 0;
      int64_t lowest = first + (count - 1) * steps[i];
      start[d] = count ? lowest : 0;
      limit[d] = count ? first + 1 : 0;
      step[d] = -steps[i];
      if (count > 1)
        flipped.push_back(d);
    }
  }
  result = slice(x, start, limit, step);
  for (int64_t d : flipped)
    result = reverseAxis(result, d);
  return one(result);
}

/// Negative indices count from the end (Gather, GatherElements).
Tensor wrapIndices(const Tensor &indices, int64_t size) {
  Tensor zero = constant(0, indices);
  return where(indices < zero, indices + constant(double(size), indices),
               indices);
}

Tensors gatherKernel(const NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t axis =
      normalizeAxis(node, node.attribute("axis", int64_t(0)), x.rank());
  Tensor indices = wrapIndices(node.input(1), x.shape()[axis]);
  return one(indexSelect(x, axis, indices));
}

Tensors gatherElements(const NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t axis =
      normalizeAxis(node, node.attribute("axis", int64_t(0)), x.rank());
  return one(gather(x, axis, wrapIndices(node.input(1), x.shape()[axis])));
}

/// Two shapes broadcast numpy's way (Expand's rule).
Shape broadcastShapes(const NodeContext &node, const Shape &a, const Shape &b) {
  size_t rank = std::max(a.size(), b.size());
  Shape shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      node.fail("shapes do not broadcast (a dimension of " + std::to_string(x) +
                " against " + std::to_string(y) + ")");
    shape[i] = x == 1 ? y : x;
  }
  return shape;
}

Tensors expand(const NodeContext &node) {
  const Tensor &x = node.input(0);
  return one(
      broadcastTo(x, broadcastShapes(node, x.shape(), node.integers(1))));
}

Tensors tile(const NodeContext &node) {
  const Tensor &x = node.input(0);
  std::vector<int64_t> repeats = node.integers(1);
  if (int64_t(repeats.size()) != x.rank())
    node.fail("repeats has " + std::to_string(repeats.size()) +
              " entries for rank " + std::to_string(x.rank()));
  Shape spread, broadcast, result;
  for (int64_t d = 0; d < x.rank(); ++d) {
    spread.insert(spread.end(), {1, x.shape()[d]});
    broadcast.insert(broadcast.end(), {repeats[d], x.shape()[d]});
    result.push_back(repeats[d] * x.shape()[d]);
  }
  return one(reshape(broadcastTo(reshape(x, spread), broadcast), result));
}

Tensors concatKernel(const NodeContext &node) {
  Tensors parts;
  for (size_t i = 0; i < node.inputCount(); ++i)
    parts.push_back(node.input(i));
  int64_t axis = normalizeAxis(node, node.attribute("axis", int64_t(0)),
                               parts.front().rank());
  return one(concat(parts, axis));
}

Tensors split(const NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t axis =
      normalizeAxis(node, node.attribute("axis", int64_t(0)), x.rank());
  std::vector<int64_t> sizes = node.opset() >= 13 && node.has(1)
                                   ? node.integers(1)
                                   : node.attributeInts("split");
  int64_t outputs = node.node.output_size();
  if (sizes.empty()) {
    int64_t size = x.shape()[axis];
    int64_t each = (size + outputs - 1) / outputs;
    for (int64_t i = 0; i < outputs; ++i)
      sizes.push_back(std::min(each, size - i * each));
  }
  Tensors parts;
  int64_t begin = 0;
  for (int64_t size : sizes) {
    std::vector<int64_t> start(x.rank(), 0), limit(x.shape());
    start[axis] = begin;
    limit[axis] = begin + size;
    parts.push_back(slice(x, start, limit));
    begin += size;
  }
  return parts;
}

Tensors shapeKernel(const NodeContext &node) {
  return one(tensorOf(shapeValue(node, node.input(0).shape())));
}

Tensors constantKernel(const NodeContext &node) {
  if (node.hasAttribute("value"))
    return one(node.attributeTensor("value"));
  if (node.hasAttribute("value_float"))
    return one(full({}, node.attribute("value_float", 0.0), DType::Float32));
  if (node.hasAttribute("value_int"))
    return one(full({}, double(node.attribute("value_int", int64_t(0))),
                    DType::Int64));
  if (node.hasAttribute("value_floats")) {
    std::vector<float> values = node.attributeFloats("value_floats");
    return one(Tensor::fromVector(values, {int64_t(values.size())}));
  }
  if (node.hasAttribute("value_ints")) {
    std::vector<int64_t> values = node.attributeInts("value_ints");
    return one(Tensor::fromVector(values, {int64_t(values.size())}));
  }
  node.fail("only tensor, float and int constants are supported (not "
            "strings or sparse tensors)");
}

Tensors constantOfShape(const NodeContext &node) {
  std::vector<int64_t> shape = node.integers(0);
  if (!node.hasAttribute("value"))
    return one(zeros(shape, DType::Float32));
  Tensor value = node.attributeTensor("value");
  return one(broadcastTo(reshape(value, {}), shape));
}

Tensors range(const NodeContext &node) {
  const Tensor &start = node.input(0);
  double first = node.scalar(0), limit = node.scalar(1), delta = node.scalar(2);
  int64_t count =
      std::max<int64_t>(0, int64_t(std::ceil((limit - first) / delta)));
  DType dtype = start.dtype();
  // Opset 27's stash_type 0: float16 and bfloat16 compute in their own
  // precision (start + i * delta, each rounded); otherwise exactly, then
  // rounded once.
  if (node.opset() >= 27 && node.attribute("stash_type", int64_t(1)) == 0 &&
      (dtype == DType::Float16 || dtype == DType::BFloat16))
    return one(cast(arange(0, double(count), 1, DType::Float64), dtype) *
                   full({}, delta, dtype) +
               full({}, first, dtype));
  return one(cast(arange(0, double(count), 1, DType::Float64) *
                          full({}, delta, DType::Float64) +
                      full({}, first, DType::Float64),
                  dtype));
}

Tensors castKernel(const NodeContext &node) {
  DType to = dtypeFromOnnx(int32_t(node.attribute("to", int64_t(0))),
                           describeNode(node.graph, node.node));
  return one(cast(node.input(0), to));
}

Tensors bitcastKernel(const NodeContext &node) {
  DType to = dtypeFromOnnx(int32_t(node.attribute("to", int64_t(0))),
                           describeNode(node.graph, node.node));
  return one(bitcast(node.input(0), to));
}

Tensors clip(const NodeContext &node) {
  Tensor x = node.input(0);
  if (node.opset() < 11) {
    double lo =
        node.attribute("min", -double(std::numeric_limits<float>::max()));
    double hi =
        node.attribute("max", double(std::numeric_limits<float>::max()));
    return one(minimum(maximum(x, constant(lo, x)), constant(hi, x)));
  }
  if (node.has(1))
    x = maximum(x, node.input(1));
  if (node.has(2))
    x = minimum(x, node.input(2));
  return one(x);
}

Tensors transposeKernel(const NodeContext &node) {
  return one(transpose(node.input(0), node.attributeInts("perm")));
}

Tensors whereKernel(const NodeContext &node) {
  return one(where(node.input(0), node.input(1), node.input(2)));
}

Tensors cumsumKernel(const NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t axis = normalizeAxis(node, node.integers(1).at(0), x.rank());
  bool reverse = node.attribute("reverse", int64_t(0)) != 0;
  Tensor sums = cumsum(x, axis, reverse);
  if (node.attribute("exclusive", int64_t(0)))
    sums = sums - cast(x, sums.dtype());
  // lazyc sums integers in 64 bits (numpy); ONNX keeps the input's type.
  return one(sums.dtype() == x.dtype() ? sums : cast(sums, x.dtype()));
}

Tensors argKernel(const NodeContext &node, bool largest) {
  const Tensor &x = node.input(0);
  int64_t axis =
      normalizeAxis(node, node.attribute("axis", int64_t(0)), x.rank());
  bool keep = node.attribute("keepdims", int64_t(1)) != 0;
  auto position = [&](const Tensor &values) {
    return largest ? argmax(values, axis, keep) : argmin(values, axis, keep);
  };
  if (!node.attribute("select_last_index", int64_t(0)))
    return one(position(x));
  // The last extreme is the first one of the reversed elements.
  Tensor first = position(reverseAxis(x, axis));
  return one(constant(double(x.shape()[axis] - 1), first) - first);
}

Tensors topkKernel(const NodeContext &node) {
  const Tensor &x = node.input(0);
  bool largest = node.attribute("largest", int64_t(1)) != 0;
  if (!largest && !isFloat(x.dtype()))
    node.fail("largest = 0 (the k smallest) of integers is not supported");
  int64_t k = node.opset() >= 10 ? node.integers(1).at(0)
                                 : node.attribute("k", int64_t(1));
  int64_t axis =
      normalizeAxis(node, node.attribute("axis", int64_t(-1)), x.rank());
  if (largest) {
    TopK top = topk(x, k, axis);
    return {top.values, top.indices};
  }
  TopK top = topk(-x, k, axis); // The smallest of x are the largest of -x.
  return {-top.values, top.indices};
}

/// A per-channel vector [C] shaped to broadcast over [N, C, ...].
Tensor perChannel(const Tensor &v, int64_t rank) {
  Shape shape(rank, 1);
  shape[1] = v.numel();
  return reshape(v, shape);
}

/// Inference normalizes with the running statistics; training (opset 14's
/// training_mode) with the batch's, and returns the running statistics
/// moved toward them by 1 - momentum. The batch variance is the biased one,
/// ONNX's rule (PyTorch's, lazyc::nn::batchNorm's, updates with the
/// unbiased one).
Tensors batchNormalization(const NodeContext &node) {
  const Tensor &x = node.input(0);
  double eps = node.attribute("epsilon", 1e-5);
  int64_t rank = x.rank();
  Tensor scale = perChannel(node.input(1), rank);
  Tensor bias = perChannel(node.input(2), rank);
  Tensor mean = perChannel(node.input(3), rank);
  Tensor variance = perChannel(node.input(4), rank);
  auto normalize = [&](const Tensor &m, const Tensor &v) {
    return (x - m) * rsqrt(v + constant(eps, v)) * scale + bias;
  };
  if (!node.attribute("training_mode", int64_t(0)))
    return one(normalize(mean, variance));
  if (node.opset() < 14)
    node.fail("training_mode before opset 14 is not supported");
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < rank; ++d)
    if (d != 1)
      axes.push_back(d);
  Tensor batchMean = lazyc::mean(x, axes, true);
  Tensor centered = x - batchMean;
  Tensor batchVariance = lazyc::mean(centered * centered, axes, true);
  double momentum = node.attribute("momentum", 0.9);
  auto moved = [&](size_t input, const Tensor &batch) {
    const Tensor &running = node.input(input);
    return running * constant(momentum, running) +
           reshape(batch, running.shape()) * constant(1 - momentum, running);
  };
  return {normalize(batchMean, batchVariance), moved(3, batchMean),
          moved(4, batchVariance)};
}

Tensors instanceNormalization(const NodeContext &node) {
  const Tensor &x = node.input(0);
  double eps = node.attribute("epsilon", 1e-5);
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < x.rank(); ++d)
    axes.push_back(d);
  Tensor mean = lazyc::mean(x, axes, true);
  Tensor centered = x - mean;
  Tensor variance = lazyc::mean(centered * centered, axes, true);
  return one(centered * rsqrt(variance + constant(eps, x)) *
                 perChannel(node.input(1), x.rank()) +
             perChannel(node.input(2), x.rank()));
}

/// GroupNormalization: the channels in num_groups groups, each normalized
/// over its channels and the spatial axes, then scaled and shifted per
/// group (opset 18) or per channel (opset 21), the statistics in Float32
/// at least (opset 21's stash_type 1, and ONNX Runtime's practice before).
Tensors groupNormalization(const NodeContext &node) {
  const Tensor &x = node.input(0);
  if (x.rank() < 2)
    node.fail("needs X [N, C, ...], not rank " + std::to_string(x.rank()));
  int64_t groups = node.attribute("num_groups", int64_t(0));
  int64_t channels = x.shape()[1];
  if (groups <= 0 || channels % groups != 0)
    node.fail("num_groups " + std::to_string(groups) + " does not divide the " +
              std::to_string(channels) + " channels");
  const Tensor &scale = node.input(1), &bias = node.input(2);
  bool perChannelScale = node.opset() >= 21;
  int64_t scales = perChannelScale ? channels : groups;
  if (scale.numel() != scales || bias.numel() != scales)
    node.fail("scale and bias need one value per " +
              std::string(perChannelScale ? "channel (" : "group (") +
              std::to_string(scales) + ")");
  double eps = node.attribute("epsilon", 1e-5);
  Shape grouped = {x.shape()[0], groups, channels / groups};
  grouped.insert(grouped.end(), x.shape().begin() + 2, x.shape().end());
  Tensor g = reshape(statisticsOf(node, x), grouped);
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < int64_t(grouped.size()); ++d)
    axes.push_back(d);
  Tensor centered = g - lazyc::mean(g, axes, true);
  Tensor variance = lazyc::mean(centered * centered, axes, true);
  Tensor normalized =
      cast(reshape(centered * rsqrt(variance + constant(eps, g)), x.shape()),
           x.dtype());
  if (perChannelScale)
    return one(normalized * perChannel(scale, x.rank()) +
               perChannel(bias, x.rank()));
  Shape perGroup(grouped.size(), 1);
  perGroup[1] = groups;
  Tensor y = reshape(normalized, grouped) * reshape(scale, perGroup) +
             reshape(bias, perGroup);
  return one(reshape(y, x.shape()));
}

Tensors layerNormalization(const NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t axis =
      normalizeAxis(node, node.attribute("axis", int64_t(-1)), x.rank());
  double eps = node.attribute("epsilon", 1e-5);
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < x.rank(); ++d)
    axes.push_back(d);
  Tensor mean = lazyc::mean(x, axes, true);
  Tensor centered = x - mean;
  Tensor inverse =
      rsqrt(lazyc::mean(centered * centered, axes, true) + constant(eps, x));
  Tensor y = centered * inverse * node.input(1);
  if (node.has(2))
    y = y + node.input(2);
  return {y, mean, inverse};
}

/// The padding of a 2-D convolution or pooling, [top, left, bottom,
/// right]: `pads`, or what auto_pad asks for.
std::vector<int64_t> explicitPads(const NodeContext &node, const Shape &input,
                                  const std::vector<int64_t> &kernel,
                                  const std::vector<int64_t> &strides,
                                  const std::vector<int64_t> &dilations,
                                  bool line) {
  std::string autoPad = node.attribute("auto_pad", std::string("NOTSET"));
  std::vector<int64_t> pads = node.attributeInts("pads");
  if (line && pads.size() == 2) // begin, end of the one dimension
    pads = {0, pads[0], 0, pads[1]};
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    pads.assign(4, 0);
    for (int d = 0; d < 2; ++d) {
      int64_t size = input[2 + d];
      int64_t out = (size + strides[d] - 1) / strides[d];
      int64_t extent = (kernel[d] - 1) * dilations[d] + 1;
      int64_t total =
          std::max<int64_t>(0, (out - 1) * strides[d] + extent - size);
      pads[d] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[d + 2] = total - pads[d];
    }
  } else if (autoPad == "VALID" || pads.empty()) {
    pads.assign(4, 0);
  }
  if (pads.size() != 4)
    node.fail("pads of " + std::to_string(pads.size()) +
              " values is not supported for 2-D");
  return pads;
}

/// x with `before` and `after` elements of `value` added along `axis`.
Tensor padAxis(const Tensor &x, int64_t axis, int64_t before, int64_t after,
               double value) {
  if (before == 0 && after == 0)
    return x;
  std::vector<Tensor> parts;
  Shape side = x.shape();
  side[axis] = before;
  if (before)
    parts.push_back(full(side, value, x.dtype()));
  parts.push_back(x);
  side[axis] = after;
  if (after)
    parts.push_back(full(side, value, x.dtype()));
  return concat(parts, axis);
}

/// A 1-D [N, C, L] value as a 2-D one [N, C, 1, L].
Tensor asImage(const Tensor &x) {
  return reshape(x, {x.shape()[0], x.shape()[1], 1, x.shape()[2]});
}

/// A 2-D attribute (kernel_shape, strides, dilations) from an attribute of
/// one or two values: a 1-D one gains a height of 1. Absent: 1, 1.
std::vector<int64_t> pairAttribute(const NodeContext &node,
                                   const std::string &name) {
  std::vector<int64_t> values = node.attributeInts(name);
  if (values.empty())
    return {1, 1};
  if (values.size() == 1)
    return {1, values[0]};
  return values;
}

/// An attribute of `count` values per spatial axis (strides, dilations,
/// pads), `otherwise` for each when absent.
std::vector<int64_t> spatialAttribute(const NodeContext &node,
                                      const std::string &name,
                                      int64_t otherwise, size_t count) {
  std::vector<int64_t> values = node.attributeInts(name);
  if (values.empty())
    values.assign(count, otherwise);
  if (values.size() != count)
    node.fail(name + " must have " + std::to_string(count) + " entries");
  return values;
}

void require2d(const NodeContext &node, const Tensor &x) {
  if (x.rank() != 4)
    node.fail(std::to_string(x.rank() - 2) + "-D (an input of rank " +
              std::to_string(x.rank()) + ") is not supported: only 2-D");
}

/// A 3-D convolution as a sum over the kernel's depth taps of 2-D
/// convolutions, each of the input's depth slices that tap reads (depth
/// folded into the batch).
Tensors conv3d(const NodeContext &node) {
  Tensor x = node.input(0);
  const Tensor &w = node.input(1);
  auto triple = [&](const std::string &name) {
    std::vector<int64_t> values = node.attributeInts(name);
    return values.empty() ? std::vector<int64_t>{1, 1, 1} : values;
  };
  std::vector<int64_t> strides = triple("strides");
  std::vector<int64_t> dilations = triple("dilations");
  std::vector<int64_t> pads = node.attributeInts("pads");
  std::string autoPad = node.attribute("auto_pad", std::string("NOTSET"));
  if (autoPad != "NOTSET" && autoPad != "VALID")
    node.fail("auto_pad '" + autoPad +
              "' with 3-D convolution is not "
              "supported");
  if (pads.empty() || autoPad == "VALID")
    pads.assign(6, 0);
  if (strides.size() != 3 || dilations.size() != 3 || pads.size() != 6)
    node.fail("strides, dilations and pads do not match 3-D");
  // Depth and uneven height and width padding added first.
  x = padAxis(x, 2, pads[0], pads[3], 0);
  nn::Conv2dOptions options;
  options.stride = nn::Size2{strides[1], strides[2]};
  options.dilation = nn::Size2{dilations[1], dilations[2]};
  options.groups = node.attribute("group", int64_t(1));
  if (pads[1] == pads[4] && pads[2] == pads[5]) {
    options.padding = nn::Size2{pads[1], pads[2]};
  } else {
    x = padAxis(padAxis(x, 3, pads[1], pads[4], 0), 4, pads[2], pads[5], 0);
  }
  int64_t n = x.shape()[0], c = x.shape()[1], depth = x.shape()[2];
  int64_t h = x.shape()[3], wd = x.shape()[4];
  int64_t filters = w.shape()[0], perGroup = w.shape()[1];
  int64_t taps = w.shape()[2], kh = w.shape()[3], kw = w.shape()[4];
  int64_t out = (depth - (taps - 1) * dilations[0] - 1) / strides[0] + 1;
  Tensor sum;
  for (int64_t k = 0; k < taps; ++k) {
    int64_t first = k * dilations[0];
    Tensor slices = slice(x, {0, 0, first, 0, 0},
                          {n, c, first + (out - 1) * strides[0] + 1, h, wd},
                          {1, 1, strides[0], 1, 1});
    Tensor images =
        reshape(transpose(slices, {0, 2, 1, 3, 4}), {n * out, c, h, wd});
    Tensor kernel =
        reshape(slice(w, {0, 0, k, 0, 0}, {filters, perGroup, k + 1, kh, kw}),
                {filters, perGroup, kh, kw});
    Tensor part = nn::conv2d(images, kernel, options);
    sum = k == 0 ? part : sum + part;
  }
  int64_t oh = sum.shape()[2], ow = sum.shape()[3];
  Tensor y =
      transpose(reshape(sum, {n, out, filters, oh, ow}), {0, 2, 1, 3, 4});
  if (node.has(2))
    y = y + reshape(node.input(2), {1, filters, 1, 1, 1});
  return one(y);
}

Tensors conv(const NodeContext &node) {
  if (node.input(0).rank() == 5)
    return conv3d(node);
  bool line = node.input(0).rank() == 3;
  Tensor x = line ? asImage(node.input(0)) : node.input(0);
  Tensor w = line ? asImage(node.input(1)) : node.input(1);
  require2d(node, x);
  std::vector<int64_t> kernel = {w.shape()[2], w.shape()[3]};
  std::vector<int64_t> strides = pairAttribute(node, "strides");
  std::vector<int64_t> dilations = pairAttribute(node, "dilations");
  nn::Conv2dOptions options;
  options.stride = nn::Size2{strides[0], strides[1]};
  options.dilation = nn::Size2{dilations[0], dilations[1]};
  std::vector<int64_t> pads =
      explicitPads(node, x.shape(), kernel, strides, dilations, line);
  if (pads[0] == pads[2] && pads[1] == pads[3]) {
    options.padding = nn::Size2{pads[0], pads[1]};
  } else { // Uneven: zeros added first.
    x = padAxis(padAxis(x, 2, pads[0], pads[2], 0), 3, pads[1], pads[3], 0);
  }
  options.groups = node.attribute("group", int64_t(1));
  Tensor y = node.has(2) ? nn::conv2d(x, w, node.input(2), options)
                         : nn::conv2d(x, w, options);
  return one(line ? reshape(y, {y.shape()[0], y.shape()[1], y.shape()[3]}) : y);
}

/// How poolByTaps combines a window's taps.
enum class TapsInto { Maximum, Mean, Sum };

/// Pooling of any spatial rank with any dilation (padding, auto_pad,
/// ceil_mode and count_include_pad as in pool()), as the maximum, mean or
/// sum over the kernel's taps of strided slices of the padded input, axis
/// by axis, for what lazyc's 2-D pooling ops do not take (3-D, dilated, Lp).
Tensors poolByTaps(const NodeContext &node, TapsInto into) {
  bool maximumPool = into == TapsInto::Maximum;
  Tensor x = node.input(0);
  int64_t rank = x.rank() - 2;
  std::vector<int64_t> kernel = node.attributeInts("kernel_shape");
  std::vector<int64_t> strides = spatialAttribute(node, "strides", 1, rank);
  std::vector<int64_t> dilations = spatialAttribute(node, "dilations", 1, rank);
  std::vector<int64_t> pads = node.attributeInts("pads");
  std::string autoPad = node.attribute("auto_pad", std::string("NOTSET"));
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (autoPad != "NOTSET" && autoPad != "VALID" && !same)
    node.fail("auto_pad '" + autoPad + "' is not supported");
  if (pads.empty() || autoPad != "NOTSET")
    pads.assign(2 * rank, 0);
  if (int64_t(kernel.size()) != rank || int64_t(pads.size()) != 2 * rank)
    node.fail("kernel_shape and pads do not match the input's " +
              std::to_string(rank) + " spatial dimensions");
  // SAME: ceil(size / stride) outputs; the odd element of padding at the
  // end (UPPER) or the start (LOWER).
  for (int64_t d = 0; same && d < rank; ++d) {
    int64_t size = x.shape()[2 + d];
    int64_t out = (size + strides[d] - 1) / strides[d];
    int64_t extent = (kernel[d] - 1) * dilations[d] + 1;
    int64_t total =
        std::max<int64_t>(0, (out - 1) * strides[d] + extent - size);
    pads[d] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
    pads[d + rank] = total - pads[d];
  }
  bool ceilMode = node.attribute("ceil_mode", int64_t(0)) != 0;
  bool countPad = node.attribute("count_include_pad", int64_t(0)) != 0;
  DType dtype = x.dtype();
  bool narrow = dtype == DType::UInt8 || dtype == DType::Int8;
  if (!isFloat(dtype) && !(maximumPool && narrow))
    node.fail(std::string("an input of ") + dtypeName(dtype) +
              " is not supported");
  if (narrow)
    x = cast(x, DType::Float32);
  std::vector<int64_t> outs(rank), tails(rank);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = x.shape()[2 + d];
    int64_t padded = size + pads[d] + pads[d + rank];
    int64_t extent = (kernel[d] - 1) * dilations[d] + 1;
    int64_t span = padded - extent;
    int64_t out =
        (ceilMode ? (span + strides[d] - 1) / strides[d] : span / strides[d]) +
        1;
    if (ceilMode && (out - 1) * strides[d] >= size + pads[d])
      --out;
    outs[d] = out;
    tails[d] = std::max<int64_t>(0, (out - 1) * strides[d] + extent - padded);
  }
  auto padded = [&](Tensor value, double explicitValue, double tailValue) {
    for (int64_t d = 0; d < rank; ++d) {
      value = padAxis(value, 2 + d, pads[d], pads[d + rank], explicitValue);
      value = padAxis(value, 2 + d, 0, tails[d], tailValue);
    }
    return value;
  };
  // The taps' strided slices, maximized or summed one axis at a time (both
  // are separable): kH + kW slices for a 2-D window, not kH kW (a 60x80
  // window would be 4,800).
  auto overTaps = [&](Tensor input) {
    for (int64_t d = 0; d < rank; ++d) {
      Tensor result;
      for (int64_t tap = 0; tap < kernel[d]; ++tap) {
        std::vector<int64_t> start(input.rank(), 0), limit(input.shape()),
            step(input.rank(), 1);
        start[2 + d] = tap * dilations[d];
        limit[2 + d] = start[2 + d] + (outs[d] - 1) * strides[d] + 1;
        step[2 + d] = strides[d];
        Tensor part = slice(input, start, limit, step);
        result = !result.defined() ? part
                 : maximumPool     ? maximum(result, part)
                                   : result + part;
      }
      input = result;
    }
    return input;
  };
  if (maximumPool) {
    Tensor y = overTaps(padded(x, -INFINITY, -INFINITY));
    return one(narrow ? cast(y, dtype) : y);
  }
  if (into == TapsInto::Sum)
    return one(overTaps(padded(x, 0, 0)));
  std::vector<int64_t> maskShape(x.rank(), 1);
  for (int64_t d = 0; d < rank; ++d)
    maskShape[2 + d] = x.shape()[2 + d];
  Tensor counted = padded(full(maskShape, 1, dtype), countPad ? 1 : 0, 0);
  return one(overTaps(padded(x, 0, 0)) / overTaps(counted));
}

Tensors poolValues(const NodeContext &node, bool maximumPool) {
  std::vector<int64_t> dilationValues = node.attributeInts("dilations");
  bool dilated = std::any_of(dilationValues.begin(), dilationValues.end(),
                             [](int64_t d) { return d != 1; });
  if (node.input(0).rank() == 5 || dilated)
    return poolByTaps(node, maximumPool ? TapsInto::Maximum : TapsInto::Mean);
  bool line = node.input(0).rank() == 3;
  Tensor x = line ? asImage(node.input(0)) : node.input(0);
  require2d(node, x);
  std::vector<int64_t> kernel = pairAttribute(node, "kernel_shape");
  std::vector<int64_t> strides = pairAttribute(node, "strides");
  std::vector<int64_t> dilations = pairAttribute(node, "dilations");
  if (kernel.size() != 2 || dilations != std::vector<int64_t>{1, 1})
    node.fail("dilated pooling is not supported");
  std::vector<int64_t> pads =
      explicitPads(node, x.shape(), kernel, strides, dilations, line);
  bool ceilMode = node.attribute("ceil_mode", int64_t(0)) != 0;
  bool countPad = node.attribute("count_include_pad", int64_t(0)) != 0;
  nn::Size2 window{kernel[0], kernel[1]}, stride{strides[0], strides[1]};
  auto back = [&](const Tensor &y) {
    return line ? reshape(y, {y.shape()[0], y.shape()[1], y.shape()[3]}) : y;
  };
  DType dtype = x.dtype();
  // 8-bit integers are exact in Float32, where a max pooling runs.
  bool narrow = dtype == DType::UInt8 || dtype == DType::Int8;
  if (!isFloat(dtype) && !(maximumPool && narrow))
    node.fail(std::string(maximumPool ? "MaxPool" : "AveragePool") + " of " +
              dtypeName(dtype) + " is not supported");
  if (narrow)
    x = cast(x, DType::Float32);
  bool even = pads[0] == pads[2] && pads[1] == pads[3] &&
              2 * pads[0] <= kernel[0] && 2 * pads[1] <= kernel[1];
  if (even && !ceilMode) {
    nn::Size2 padding{pads[0], pads[1]};
    Tensor y = maximumPool
                   ? nn::maxPool2d(x, window, stride, padding)
                   : nn::avgPool2d(x, window, stride, padding, countPad);
    return one(back(narrow ? cast(y, dtype) : y));
  }
  // Uneven or wide padding, or ceil_mode: the padding is added first, and
  // with ceil_mode a tail for the last, partial window (a window that would
  // start in the padding is dropped, as PyTorch and ONNX do).
  std::vector<int64_t> tails(2);
  for (int d = 0; d < 2; ++d) {
    int64_t size = x.shape()[2 + d], padded = size + pads[d] + pads[d + 2];
    int64_t span = padded - kernel[d];
    int64_t out =
        (ceilMode ? (span + strides[d] - 1) / strides[d] : span / strides[d]) +
        1;
    if (ceilMode && (out - 1) * strides[d] >= size + pads[d])
      --out;
    tails[d] =
        std::max<int64_t>(0, (out - 1) * strides[d] + kernel[d] - padded);
  }
  auto padded = [&](const Tensor &value, double explicitValue,
                    double tailValue) {
    Tensor result = padAxis(value, 2, pads[0], pads[2], explicitValue);
    result = padAxis(result, 3, pads[1], pads[3], explicitValue);
    return padAxis(padAxis(result, 2, 0, tails[0], tailValue), 3, 0, tails[1],
                   tailValue);
  };
  if (maximumPool) {
    Tensor y =
        nn::maxPool2d(padded(x, -INFINITY, -INFINITY), window, stride, 0);
    return one(back(narrow ? cast(y, dtype) : y));
  }
  // The mean of each window over the elements it counts: the input's, and
  // the explicit padding's with count_include_pad, never the tail's.
  Tensor ones = full({1, 1, x.shape()[2], x.shape()[3]}, 1, dtype);
  Tensor counted = padded(ones, countPad ? 1 : 0, 0);
  Tensor sums = nn::avgPool2d(padded(x, 0, 0), window, stride, 0);
  Tensor counts = nn::avgPool2d(counted, window, stride, 0);
  return one(back(sums / counts));
}

/// MaxPool's Indices output for 2-D pooling: per output, the position in
/// the flattened input of the first maximum of its window (in row-major
/// window order), counted row-major or, with storage_order 1, column-major
/// within each image. Each of the kernel's taps is a strided slice of the
/// padded input and of its positions.
Tensor maxPoolIndices(const NodeContext &node, const Tensor &x,
                      const Tensor &y) {
  if (x.rank() != 4)
    node.fail("the Indices output of " + std::to_string(x.rank() - 2) +
              "-D pooling is not supported (2-D is)");
  std::vector<int64_t> kernel = pairAttribute(node, "kernel_shape");
  std::vector<int64_t> strides = pairAttribute(node, "strides");
  std::vector<int64_t> dilations = pairAttribute(node, "dilations");
  std::vector<int64_t> pads =
      explicitPads(node, x.shape(), kernel, strides, dilations, false);
  int64_t height = x.shape()[2], width = x.shape()[3];
  int64_t outH = y.shape()[2], outW = y.shape()[3];
  int64_t count = x.numel();
  Tensor positions =
      reshape(arange(0, double(count), 1, DType::Int64), x.shape());
  // Padding (and the tail a ceil_mode window reaches) never wins.
  auto padded = [&](const Tensor &value, double fill) {
    Tensor result = value;
    for (int d = 0; d < 2; ++d) {
      int64_t size = x.shape()[2 + d], out = d ? outW : outH;
      int64_t reach = (out - 1) * strides[d] + (kernel[d] - 1) * dilations[d] +
                      1 - pads[d] - size;
      result =
          padAxis(result, 2 + d, pads[d], std::max<int64_t>(reach, 0), fill);
    }
    return result;
  };
  // Compared in a float dtype (8-bit inputs pool in Float32).
  DType compared = isFloat(x.dtype()) ? x.dtype() : DType::Float32;
  Tensor values = padded(cast(x, compared), -INFINITY);
  Tensor maxima = cast(y, compared);
  Tensor places = padded(positions, -1);
  Tensor none = full({}, double(count), DType::Int64);
  Tensor first;
  for (int64_t i = 0; i < kernel[0]; ++i)
    for (int64_t j = 0; j < kernel[1]; ++j) {
      std::vector<int64_t> start = {0, 0, i * dilations[0], j * dilations[1]};
      std::vector<int64_t> limit = {x.shape()[0], x.shape()[1],
                                    start[2] + (outH - 1) * strides[0] + 1,
                                    start[3] + (outW - 1) * strides[1] + 1};
      std::vector<int64_t> step = {1, 1, strides[0], strides[1]};
      Tensor tap = slice(values, start, limit, step);
      Tensor place = slice(places, start, limit, step);
      Tensor candidate = where(tap == maxima, place, none);
      first = first.defined() ? minimum(first, candidate) : candidate;
    }
  if (!node.attribute("storage_order", int64_t(0)))
    return first;
  // Column-major within each image: h + w * H.
  Tensor image = full({}, double(height * width), DType::Int64);
  Tensor within = mod(first, image);
  Tensor w = full({}, double(width), DType::Int64);
  Tensor h = full({}, double(height), DType::Int64);
  return first - within + floorDiv(within, w) + mod(within, w) * h;
}

Tensors pool(const NodeContext &node, bool maximumPool) {
  Tensors values = poolValues(node, maximumPool);
  if (maximumPool && node.node.output_size() > 1 &&
      !node.node.output(1).empty())
    values.push_back(maxPoolIndices(node, node.input(0), values[0]));
  return values;
}

/// CumProd (opset 26): running products along the axis, as a scan in
/// log2(n) steps (each multiplies by the products `step` elements before,
/// 1 past the start); exclusive shifts by one, reverse flips around it.
Tensors cumprodKernel(const NodeContext &node) {
  Tensor x = node.input(0);
  int64_t axis = normalizeAxis(node, node.integers(1).at(0), x.rank());
  bool reverse = node.attribute("reverse", int64_t(0)) != 0;
  if (reverse)
    x = reverseAxis(x, axis);
  int64_t size = x.shape()[axis];
  auto shifted = [&](const Tensor &value, int64_t by) {
    std::vector<int64_t> start(value.rank(), 0), limit(value.shape());
    limit[axis] = size - by;
    return padAxis(slice(value, start, limit), axis, by, 0, 1);
  };
  Tensor products = x;
  for (int64_t step = 1; step < size; step *= 2)
    products = products * shifted(products, step);
  if (node.attribute("exclusive", int64_t(0)) && size > 0)
    products = shifted(products, 1);
  return one(reverse ? reverseAxis(products, axis) : products);
}

/// LpPool: (the sum of |x|^p over each window)^(1 / p); padding adds 0.
Tensors lpPool(const NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t p = node.attribute("p", int64_t(2));
  if (p <= 0)
    node.fail("p must be positive, not " + std::to_string(p));
  Tensor powers = p == 1 ? abs(x) : pow(abs(x), constant(double(p), x));
  Tensors sums =
      poolByTaps(NodeContext(node.graph, node.node, {powers}, {}, node.where),
                 TapsInto::Sum);
  return one(p == 1 ? sums[0] : pow(sums[0], constant(1.0 / double(p), x)));
}

Tensors globalPool(const NodeContext &node, bool maximumPool) {
  const Tensor &x = node.input(0);
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < x.rank(); ++d)
    axes.push_back(d);
  return one(maximumPool ? max(x, axes, true) : mean(x, axes, true));
}

/// The seed of a random op: its `seed` attribute (a float in ONNX), or a
/// new one per call. Either way it is data to the trace: a new seed
/// compiles nothing.
int64_t seedOf(const NodeContext &node) {
  static std::atomic<int64_t> calls{0};
  if (node.hasAttribute("seed"))
    return int64_t(node.attribute("seed", 0.0));
  return 0x5EED0000 + calls++;
}

/// RandomUniform, RandomNormal and their -Like forms, from lazyc's
/// generator (other numbers than another runtime's, the same
/// distribution). The dtype is the attribute's, else the input's (-Like)
/// or Float32.
Tensors randomOp(const NodeContext &node, bool uniform, bool like) {
  Shape shape;
  DType dtype = DType::Float32;
  if (like) {
    shape = node.input(0).shape();
    dtype = node.input(0).dtype();
  } else {
    shape = node.attributeInts("shape");
  }
  if (node.hasAttribute("dtype"))
    dtype = dtypeFromOnnx(int32_t(node.attribute("dtype", int64_t(1))),
                          describeNode(node.graph, node.node) + ": dtype");
  if (!isFloat(dtype))
    node.fail(std::string("random values of ") + dtypeName(dtype) +
              " are not supported");
  int64_t seed = seedOf(node);
  if (uniform)
    return one(randomUniform(shape, node.attribute("low", 0.0),
                             node.attribute("high", 1.0), seed, dtype));
  return one(randomNormal(shape, node.attribute("mean", 0.0),
                          node.attribute("scale", 1.0), seed, dtype));
}

/// 1 with probability x, else 0.
Tensors bernoulli(const NodeContext &node) {
  const Tensor &p = node.input(0);
  DType dtype =
      node.hasAttribute("dtype")
          ? dtypeFromOnnx(int32_t(node.attribute("dtype", int64_t(1))),
                          describeNode(node.graph, node.node) + ": dtype")
          : p.dtype();
  Tensor draws = randomUniform(p.shape(), 0, 1, seedOf(node), DType::Float64);
  return one(cast(draws < cast(p, DType::Float64), dtype));
}

/// Inference: the identity. Training (training_mode, read when the node is
/// recorded): each element kept with probability 1 - ratio and scaled by
/// 1 / (1 - ratio), from lazyc's generator seeded by the `seed` attribute
/// (or a new seed per call); the mask says which were kept.
Tensors dropout(const NodeContext &node) {
  const Tensor &x = node.input(0);
  bool training = node.has(2) && node.input(2).item<bool>(node.where);
  if (!training)
    return {x, full(x.shape(), 1, DType::Bool)};
  if (!isFloat(x.dtype()))
    node.fail(std::string("training dropout of ") + dtypeName(x.dtype()) +
              " is not supported");
  Tensor ratio = node.has(1) ? reshape(cast(node.input(1), x.dtype()), {})
                             : constant(0.5, x);
  Tensor draws = randomUniform(x.shape(), 0, 1, seedOf(node), x.dtype());
  Tensor kept = draws >= ratio;
  Tensor scaled = x / (constant(1, x) - ratio);
  return {where(kept, scaled, constant(0, x)), kept};
}

Tensors depthToSpace(const NodeContext &node, bool toSpace) {
  const Tensor &x = node.input(0);
  require2d(node, x);
  int64_t b = node.attribute("blocksize", int64_t(1));
  int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2],
          w = x.shape()[3];
  if (!toSpace)
    return one(reshape(
        transpose(reshape(x, {n, c, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4}),
        {n, c * b * b, h / b, w / b}));
  bool crd = node.attribute("mode", std::string("DCR")) == "CRD";
  Tensor spread = crd ? transpose(reshape(x, {n, c / (b * b), b, b, h, w}),
                                  {0, 1, 4, 2, 5, 3})
                      : transpose(reshape(x, {n, b, b, c / (b * b), h, w}),
                                  {0, 3, 4, 1, 5, 2});
  return one(reshape(spread, {n, c / (b * b), h * b, w * b}));
}

Tensor powKernel(const Tensor &base, const Tensor &exponent) {
  // ONNX's Pow keeps the base's dtype.
  return cast(pow(base, cast(exponent, base.dtype())), base.dtype());
}

Tensor fmodOf(const Tensor &a, const Tensor &b) {
  // C's fmod: the dividend's sign.
  Tensor r = mod(a, b);
  Tensor zero = constant(0, a);
  return where((r != zero) & ((a < zero) != (b < zero)), r - b, r);
}

Tensor hyperbolic(const Tensor &x, double sign) {
  return (exp(x) + constant(sign, x) * exp(-x)) * constant(0.5, x);
}

/// 3-D ConvTranspose, as the 2-D one: the input spread out by the strides
/// and padded axis by axis, then conv3d (over a node of stride 1 and no
/// padding) with the kernel flipped and its channel axes swapped per group.
Tensors convTranspose3d(const NodeContext &node) {
  Tensor x = node.input(0);
  const Tensor &w = node.input(1);
  constexpr int64_t rank = 3;
  std::vector<int64_t> strides = spatialAttribute(node, "strides", 1, rank);
  std::vector<int64_t> dilations = spatialAttribute(node, "dilations", 1, rank);
  std::vector<int64_t> outputPadding =
      spatialAttribute(node, "output_padding", 0, rank);
  std::vector<int64_t> pads = spatialAttribute(node, "pads", 0, 2 * rank);
  std::string autoPad = node.attribute("auto_pad", std::string("NOTSET"));
  if ((autoPad != "NOTSET" && autoPad != "VALID") ||
      node.hasAttribute("output_shape"))
    node.fail("auto_pad SAME and output_shape with 3-D ConvTranspose are "
              "not supported");
  int64_t groups = node.attribute("group", int64_t(1));
  int64_t c = x.shape()[1], perGroup = w.shape()[1];
  for (int64_t d = 0; d < rank; ++d) {
    int64_t axis = 2 + d, size = x.shape()[axis];
    // stride - 1 zeros after each element, none after the last.
    Shape split = x.shape();
    split.insert(split.begin() + axis + 1, 1);
    Tensor spread = padAxis(reshape(x, split), axis + 1, 0, strides[d] - 1, 0);
    Shape merged = x.shape();
    merged[axis] = size * strides[d];
    spread = reshape(spread, merged);
    std::vector<int64_t> start(x.rank(), 0), limit = merged;
    limit[axis] = (size - 1) * strides[d] + 1;
    x = slice(spread, start, limit);
    int64_t extent = (w.shape()[axis] - 1) * dilations[d];
    int64_t before = extent - pads[d];
    int64_t after = extent - pads[d + rank] + outputPadding[d];
    if (before < 0 || after < 0)
      node.fail("padding past the kernel's extent is not supported");
    x = padAxis(x, axis, before, after, 0);
  }
  // [C, M/g, k...] -> [M, C/g, k...], flipped.
  Shape grouped = {groups, c / groups, perGroup};
  grouped.insert(grouped.end(), w.shape().begin() + 2, w.shape().end());
  Tensor weight = transpose(reshape(w, grouped), {0, 2, 1, 3, 4, 5});
  Shape filters = {perGroup * groups, c / groups};
  filters.insert(filters.end(), w.shape().begin() + 2, w.shape().end());
  weight = reshape(weight, filters);
  for (int64_t axis = 2; axis < 2 + rank; ++axis)
    weight = reverseAxis(weight, axis);
  // The convolution: a node of the same dilations and groups, stride 1.
  ::onnx::NodeProto conv;
  conv.set_op_type("Conv");
  conv.set_name(node.node.name());
  for (const auto &attribute : node.node.attribute())
    if (attribute.name() == "dilations" || attribute.name() == "group")
      *conv.add_attribute() = attribute;
  std::vector<Tensor> inputs = {x, weight};
  if (node.has(2))
    inputs.push_back(node.input(2));
  return conv3d(NodeContext(node.graph, conv, inputs));
}

/// ConvTranspose as a convolution: the input spread out by the strides
/// (zeros between its elements), padded by the kernel's extent less the
/// padding (and the output_padding at the end), convolved with the kernel
/// flipped and its channel axes swapped (per group).
Tensors convTranspose(const NodeContext &node) {
  if (node.input(0).rank() == 5)
    return convTranspose3d(node);
  bool line = node.input(0).rank() == 3;
  Tensor x = line ? asImage(node.input(0)) : node.input(0);
  Tensor w = line ? asImage(node.input(1)) : node.input(1);
  require2d(node, x);
  int64_t groups = node.attribute("group", int64_t(1));
  int64_t n = x.shape()[0], c = x.shape()[1];
  int64_t perGroup = w.shape()[1], outChannels = perGroup * groups;
  std::vector<int64_t> kernel = {w.shape()[2], w.shape()[3]};
  std::vector<int64_t> strides = pairAttribute(node, "strides");
  std::vector<int64_t> dilations = pairAttribute(node, "dilations");
  std::vector<int64_t> outputPadding = node.attributeInts("output_padding");
  if (outputPadding.empty())
    outputPadding = {0, 0};
  else if (outputPadding.size() == 1)
    outputPadding = {0, outputPadding[0]};
  std::vector<int64_t> pads = node.attributeInts("pads");
  if (line && pads.size() == 2)
    pads = {0, pads[0], 0, pads[1]};
  if (pads.empty())
    pads.assign(4, 0);
  std::string autoPad = node.attribute("auto_pad", std::string("NOTSET"));
  std::vector<int64_t> outputShape = node.attributeInts("output_shape");
  if (!outputShape.empty() || autoPad == "SAME_UPPER" ||
      autoPad == "SAME_LOWER") {
    // The padding that gives the output shape asked for (by default the
    // input's times the strides).
    if (outputShape.size() == 1)
      outputShape = {1, outputShape[0]};
    for (int d = 0; d < 2; ++d) {
      int64_t size = x.shape()[2 + d];
      int64_t wanted = outputShape.empty()
                           ? size * strides[d]
                           : outputShape[outputShape.size() - 2 + d];
      int64_t total = strides[d] * (size - 1) + outputPadding[d] +
                      (kernel[d] - 1) * dilations[d] + 1 - wanted;
      // Floor division, as ONNX's reference: a negative total (an output
      // larger than the strides give) extends the end.
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
      bool upper = autoPad == "SAME_UPPER";
      pads[d] = upper ? half : total - half;
      pads[d + 2] = total - pads[d];
    }
  }
  // Spread: [N, C, H, 1, W, 1] with stride - 1 zeros after each element.
  int64_t h = x.shape()[2], wd = x.shape()[3];
  Tensor spread = reshape(x, {n, c, h, 1, wd, 1});
  spread = padAxis(spread, 3, 0, strides[0] - 1, 0);
  spread = padAxis(spread, 5, 0, strides[1] - 1, 0);
  spread = reshape(spread, {n, c, h * strides[0], wd * strides[1]});
  spread = slice(spread, {0, 0, 0, 0},
                 {n, c, (h - 1) * strides[0] + 1, (wd - 1) * strides[1] + 1});
  for (int d = 0; d < 2; ++d) {
    int64_t extent = (kernel[d] - 1) * dilations[d];
    int64_t before = extent - pads[d];
    int64_t after = extent - pads[d + 2] + outputPadding[d];
    if (before < 0 || after < 0)
      node.fail("padding past the kernel's extent is not supported");
    spread = padAxis(spread, 2 + d, before, after, 0);
  }
  // [C, M/g, kH, kW] -> [M, C/g, kH, kW], flipped.
  Tensor weight =
      reshape(w, {groups, c / groups, perGroup, kernel[0], kernel[1]});
  weight = reshape(transpose(weight, {0, 2, 1, 3, 4}),
                   {outChannels, c / groups, kernel[0], kernel[1]});
  weight = reverseAxis(reverseAxis(weight, 2), 3);
  nn::Conv2dOptions options;
  options.dilation = nn::Size2{dilations[0], dilations[1]};
  options.groups = groups;
  Tensor y = node.has(2) ? nn::conv2d(spread, weight, node.input(2), options)
                         : nn::conv2d(spread, weight, options);
  return one(line ? reshape(y, {y.shape()[0], y.shape()[1], y.shape()[3]}) : y);
}

/// DeformConv (opsets 19 and 22, 2-D): each kernel tap reads X at its place
/// moved by the offsets (per offset group of channels, per output point),
/// bilinearly with zeros outside (ONNX's reference: GridSample at pixel
/// coordinates), times the mask; the sampled columns [N, C * taps, points]
/// are then one grouped product with the weights.
Tensors deformConv(const NodeContext &node) {
  const Tensor &x = node.input(0), &w = node.input(1), &offset = node.input(2);
  if (x.rank() != 4 || w.rank() != 4 || offset.rank() != 4)
    node.fail("needs X [N, C, H, W], W [M, C / group, kH, kW] and offset "
              "[N, offset_group * kH * kW * 2, H_out, W_out] (2-D only)");
  int64_t n = x.shape()[0], channels = x.shape()[1], height = x.shape()[2],
          width = x.shape()[3];
  int64_t groups = node.attribute("group", int64_t(1));
  int64_t offsetGroups = node.attribute("offset_group", int64_t(1));
  int64_t outChannels = w.shape()[0], kh = w.shape()[2], kw = w.shape()[3];
  int64_t taps = kh * kw, outH = offset.shape()[2], outW = offset.shape()[3];
  int64_t points = outH * outW;
  if (groups <= 0 || offsetGroups <= 0 || channels != w.shape()[1] * groups ||
      outChannels % groups != 0 || channels % offsetGroups != 0 ||
      offset.shape()[1] != offsetGroups * taps * 2 || offset.shape()[0] != n)
    node.fail("X, W, offset, group and offset_group do not fit together");
  std::vector<int64_t> strides = pairAttribute(node, "strides");
  std::vector<int64_t> dilations = pairAttribute(node, "dilations");
  std::vector<int64_t> pads = node.attributeInts("pads");
  if (pads.empty())
    pads.assign(4, 0);
  if (pads.size() != 4 || strides.size() != 2 || dilations.size() != 2)
    node.fail("strides, dilations and pads do not match 2-D");
  DType dtype = x.dtype();
  Tensor moves = reshape(offset, {n, offsetGroups, taps, 2, points});
  Tensor mask = node.has(4)
                    ? reshape(node.input(4), {n, offsetGroups, taps, 1, points})
                    : Tensor();
  // Each output point's base place, [points], in pixels.
  std::vector<double> baseY(static_cast<size_t>(points)),
      baseX(static_cast<size_t>(points));
  for (int64_t i = 0; i < outH; ++i)
    for (int64_t j = 0; j < outW; ++j) {
      baseY[size_t(i * outW + j)] = double(i * strides[0] - pads[0]);
      baseX[size_t(i * outW + j)] = double(j * strides[1] - pads[1]);
    }
  Tensor rowBase = cast(Tensor::fromVector(baseY, {points}), dtype);
  Tensor columnBase = cast(Tensor::fromVector(baseX, {points}), dtype);
  int64_t perOffsetGroup = channels / offsetGroups;
  Tensor flat = reshape(x, {n, offsetGroups, perOffsetGroup, height * width});
  Tensor one1 = constant(1, rowBase), zeroIndex = full({}, 0, DType::Int64);
  Tensor oneIndex = full({}, 1, DType::Int64);
  // X at integer places [N, G, 1, points] (0 outside), every channel.
  auto read = [&](const Tensor &row, const Tensor &column) {
    Tensor inside = (row >= zeroIndex) & (row < height) &
                    (column >= zeroIndex) & (column < width);
    Tensor place = clamp(row, int64_t(0), height - 1) *
                       full({}, double(width), DType::Int64) +
                   clamp(column, int64_t(0), width - 1);
    Tensor values = gather(
        flat, 3, broadcastTo(place, {n, offsetGroups, perOffsetGroup, points}));
    return where(inside, values, constant(0, values));
  };
  std::vector<Tensor> sampled;
  for (int64_t a = 0; a < kh; ++a)
    for (int64_t b = 0; b < kw; ++b) {
      int64_t t = a * kw + b;
      auto part = [&](int64_t which) { // [N, G, 1, points]
        return slice(moves, {0, 0, t, which, 0},
                     {n, offsetGroups, t + 1, which + 1, points});
      };
      Tensor y = reshape(part(0), {n, offsetGroups, 1, points}) + rowBase +
                 constant(double(a * dilations[0]), rowBase);
      Tensor xx = reshape(part(1), {n, offsetGroups, 1, points}) + columnBase +
                  constant(double(b * dilations[1]), columnBase);
      Tensor y0 = floorOf(y), x0 = floorOf(xx);
      Tensor ty = y - y0, tx = xx - x0;
      Tensor iy = cast(y0, DType::Int64), ix = cast(x0, DType::Int64);
      Tensor value = read(iy, ix) * ((one1 - ty) * (one1 - tx)) +
                     read(iy, ix + oneIndex) * ((one1 - ty) * tx) +
                     read(iy + oneIndex, ix) * (ty * (one1 - tx)) +
                     read(iy + oneIndex, ix + oneIndex) * (ty * tx);
      if (mask.defined())
        value = value * reshape(slice(mask, {0, 0, t, 0, 0},
                                      {n, offsetGroups, t + 1, 1, points}),
                                {n, offsetGroups, 1, points});
      sampled.push_back(reshape(value, {n, channels, 1, points}));
    }
  // [N, C, taps, points] as [N, group, C / group * taps, points].
  int64_t perGroup = channels / groups, outPerGroup = outChannels / groups;
  Tensor columns =
      reshape(concat(sampled, 2), {n, groups, perGroup * taps, points});
  Tensor filters = reshape(w, {1, groups, outPerGroup, perGroup * taps});
  Tensor y = reshape(matmul(filters, columns), {n, outChannels, outH, outW});
  if (node.has(3))
    y = y + reshape(node.input(3), {1, outChannels, 1, 1});
  return one(y);
}

/// Col2Im (opset 18): the columns of an im2col summed back into the image.
/// It is ConvTranspose with one group per channel, whose kernel sends
/// column row k (a position in the block) to that position: input
/// [N, C * prod(block), L] as [N, C * prod(block), L_1, ..., L_n].
Tensors col2im(const NodeContext &node) {
  const Tensor &x = node.input(0);
  std::vector<int64_t> image = node.integers(1), block = node.integers(2);
  size_t n = image.size();
  if (n == 0 || block.size() != n)
    node.fail("image_shape and block_shape need one entry per spatial axis");
  std::vector<int64_t> strides = spatialAttribute(node, "strides", 1, n);
  std::vector<int64_t> dilations = spatialAttribute(node, "dilations", 1, n);
  std::vector<int64_t> pads = spatialAttribute(node, "pads", 0, 2 * n);
  if (x.rank() != 3)
    node.fail("needs input [N, C * prod(block_shape), L], not rank " +
              std::to_string(x.rank()));
  int64_t positions = 1;
  for (int64_t size : block)
    positions *= size;
  if (positions <= 0 || x.shape()[1] % positions != 0)
    node.fail("the input's " + std::to_string(x.shape()[1]) +
              " rows are not a multiple of the block's " +
              std::to_string(positions) + " positions");
  int64_t channels = x.shape()[1] / positions;
  Shape blocks = {x.shape()[0], x.shape()[1]};
  std::vector<int64_t> outputPadding(n);
  int64_t count = 1;
  for (size_t d = 0; d < n; ++d) {
    int64_t padded = image[d] + pads[d] + pads[d + n];
    int64_t extent = dilations[d] * (block[d] - 1) + 1;
    if (strides[d] <= 0 || padded < extent)
      node.fail("block_shape does not fit the padded image along axis " +
                std::to_string(d));
    int64_t along = (padded - extent) / strides[d] + 1;
    outputPadding[d] = padded - ((along - 1) * strides[d] + extent);
    blocks.push_back(along);
    count *= along;
  }
  if (count != x.shape()[2])
    node.fail("the image holds " + std::to_string(count) +
              " blocks, the input has " + std::to_string(x.shape()[2]));
  std::vector<double> identity(size_t(channels * positions * positions), 0.0);
  for (int64_t row = 0; row < channels * positions; ++row)
    identity[size_t(row * positions + row % positions)] = 1.0;
  Shape kernelShape = {channels * positions, 1};
  kernelShape.insert(kernelShape.end(), block.begin(), block.end());
  Tensor kernel = cast(Tensor::fromVector(identity, kernelShape), x.dtype());

  ::onnx::NodeProto transposed;
  transposed.set_op_type("ConvTranspose");
  transposed.set_name(node.node.name());
  auto addInts = [&](const std::string &name,
                     const std::vector<int64_t> &values) {
    ::onnx::AttributeProto *attribute = transposed.add_attribute();
    attribute->set_name(name);
    attribute->set_type(::onnx::AttributeProto::INTS);
    for (int64_t value : values)
      attribute->add_ints(value);
  };
  addInts("strides", strides);
  addInts("dilations", dilations);
  addInts("pads", pads);
  addInts("output_padding", outputPadding);
  ::onnx::AttributeProto *group = transposed.add_attribute();
  group->set_name("group");
  group->set_type(::onnx::AttributeProto::INT);
  group->set_i(channels);
  return convTranspose(NodeContext(
      node.graph, transposed, {reshape(x, blocks), kernel}, {}, node.where));
}

/// A crop of one axis (Resize's roi under tf_crop_and_resize): the
/// resized positions span [start, end] of the input, in fractions of its
/// length; outside the input they are `extrapolation`.
struct AxisCrop {
  double start = 0, end = 1;
  double extrapolation = 0;
};

/// The input coordinate output position `i` of a resized axis reads, by
/// the coordinate_transformation_mode.
double sourceCoordinate(const NodeContext &node, const std::string &coordinates,
                        int64_t i, int64_t inSize, int64_t outSize,
                        double scale, const AxisCrop &crop) {
  if (coordinates == "half_pixel")
    return (i + 0.5) / scale - 0.5;
  // ONNX's reference takes the resized length as the input's times the
  // scale, unrounded.
  double resized = inSize * scale;
  if (coordinates == "pytorch_half_pixel")
    return resized > 1 ? (i + 0.5) / scale - 0.5 : 0.0;
  if (coordinates == "align_corners")
    return resized > 1 ? double(i) * (inSize - 1) / (resized - 1) : 0.0;
  if (coordinates == "asymmetric")
    return i / scale;
  if (coordinates == "tf_half_pixel_for_nn")
    return (i + 0.5) / scale;
  if (coordinates == "tf_crop_and_resize") {
    double span = (crop.end - crop.start) * double(inSize - 1);
    double at = outSize > 1 ? double(i) * span / double(outSize - 1) : span / 2;
    return at + crop.start * double(inSize - 1);
  }
  if (coordinates == "half_pixel_symmetric") {
    double adjustment = outSize / (scale * inSize);
    double center = inSize / 2.0;
    double offset = center * (1 - adjustment);
    return offset + (i + 0.5) / scale - 0.5;
  }
  node.fail("coordinate_transformation_mode '" + coordinates +
            "' is not supported");
}

/// Linear or cubic interpolation with Resize's antialiasing filter (opset
/// 18) where the axis shrinks: the kernel stretched by 1 / scale, so each
/// output mixes about 2 / scale (linear) or 4 / scale (cubic) inputs, the
/// weights normalized to sum to 1 (ONNX's reference, taps past the ends
/// reading the edge). The weights form an [out, in] matrix: one product.
Tensor antialiasAxis(const NodeContext &node, const Tensor &x, int64_t axis,
                     int64_t outSize, double scale, bool cubic,
                     const std::function<double(int64_t)> &source) {
  int64_t inSize = x.shape()[axis];
  double a = node.attribute("cubic_coeff_a", -0.75);
  bool excludeOutside = node.attribute("exclude_outside", int64_t(0)) != 0;
  auto kernel = [&](double t) {
    t = std::abs(t);
    if (!cubic)
      return std::max(0.0, 1 - t);
    if (t <= 1)
      return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2)
      return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
    return 0.0;
  };
  int64_t first = int64_t(std::floor(-(cubic ? 2.0 : 1.0) / scale)) + 1;
  int64_t taps = 2 - 2 * first;
  std::vector<double> matrix(size_t(inSize * outSize), 0.0);
  std::vector<double> weights(static_cast<size_t>(taps));
  for (int64_t i = 0; i < outSize; ++i) {
    double at = source(i);
    // The reference counts an integral coordinate from the input before.
    double base = std::floor(at), ratio = at - base;
    if (ratio == 0) {
      ratio = 1;
      base -= 1;
    }
    double total = 0;
    for (int64_t k = 0; k < taps; ++k) {
      int64_t index = int64_t(base) + first + k;
      bool outside = index < 0 || index >= inSize;
      weights[k] =
          excludeOutside && outside ? 0.0 : kernel(scale * (first + k - ratio));
      total += weights[k];
    }
    for (int64_t k = 0; k < taps; ++k) {
      int64_t index =
          std::clamp<int64_t>(int64_t(base) + first + k, 0, inSize - 1);
      matrix[size_t(index * outSize + i)] += weights[k] / total;
    }
  }
  Tensor mix = cast(Tensor::fromVector(matrix, {inSize, outSize}), x.dtype());
  std::vector<int64_t> order(x.rank());
  std::iota(order.begin(), order.end(), 0);
  std::swap(order[axis], order.back());
  return transpose(matmul(transpose(x, order), mix), order);
}

/// The nearest, linear or cubic value at `source(i)` for each output
/// position i of `axis`; linear and cubic antialiased where the axis
/// shrinks, if asked.
Tensor interpolateAxis(const NodeContext &node, const Tensor &x, int64_t axis,
                       int64_t outSize, double scale, bool antialias,
                       const std::string &mode, const std::string &nearestMode,
                       const std::function<double(int64_t)> &source) {
  if (antialias && scale < 1 && (mode == "linear" || mode == "cubic"))
    return antialiasAxis(node, x, axis, outSize, scale, mode == "cubic",
                         source);
  int64_t inSize = x.shape()[axis];
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i, 0, inSize - 1);
  };
  Shape weightShape(x.rank(), 1);
  weightShape[axis] = outSize;
  auto select = [&](const std::vector<int64_t> &indices) {
    return indexSelect(x, axis, Tensor::fromVector(indices, {outSize}));
  };
  auto weighted = [&](const std::vector<double> &weights) {
    return cast(Tensor::fromVector(weights, weightShape), x.dtype());
  };
  if (mode == "nearest") {
    std::vector<int64_t> indices(outSize);
    for (int64_t i = 0; i < outSize; ++i) {
      double at = source(i);
      int64_t index;
      if (nearestMode == "floor")
        index = int64_t(std::floor(at));
      else if (nearestMode == "ceil")
        index = int64_t(std::ceil(at));
      else if (nearestMode == "round_prefer_ceil")
        index = int64_t(std::floor(at + 0.5));
      else if (nearestMode == "round_prefer_floor")
        index = at == std::floor(at) + 0.5 ? int64_t(std::floor(at))
                                           : int64_t(std::round(at));
      else
        node.fail("nearest_mode '" + nearestMode + "' is not supported");
      indices[i] = clampIndex(index);
    }
    return select(indices);
  }
  if (mode == "linear") {
    std::vector<int64_t> low(outSize), high(outSize);
    std::vector<double> lowWeight(outSize), highWeight(outSize);
    for (int64_t i = 0; i < outSize; ++i) {
      double at = std::clamp(source(i), 0.0, double(inSize - 1));
      low[i] = int64_t(std::floor(at));
      high[i] = clampIndex(low[i] + 1);
      highWeight[i] = at - low[i];
      lowWeight[i] = 1 - highWeight[i];
    }
    return select(low) * weighted(lowWeight) +
           select(high) * weighted(highWeight);
  }
  if (mode == "cubic") {
    double a = node.attribute("cubic_coeff_a", -0.75);
    bool excludeOutside = node.attribute("exclude_outside", int64_t(0)) != 0;
    auto cubic = [a](double t) {
      t = std::abs(t);
      if (t <= 1)
        return ((a + 2) * t - (a + 3)) * t * t + 1;
      if (t < 2)
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
      return 0.0;
    };
    Tensor result;
    std::vector<std::vector<double>> weights(4, std::vector<double>(outSize));
    std::vector<std::vector<int64_t>> taps(4, std::vector<int64_t>(outSize));
    for (int64_t i = 0; i < outSize; ++i) {
      double at = source(i);
      int64_t base = int64_t(std::floor(at));
      double total = 0;
      for (int k = 0; k < 4; ++k) {
        int64_t index = base - 1 + k;
        double weight = cubic(at - index);
        if (excludeOutside && (index < 0 || index >= inSize))
          weight = 0;
        weights[k][i] = weight;
        taps[k][i] = clampIndex(index);
        total += weight;
      }
      if (excludeOutside)
        for (int k = 0; k < 4; ++k)
          weights[k][i] /= total;
    }
    for (int k = 0; k < 4; ++k) {
      Tensor term = select(taps[k]) * weighted(weights[k]);
      result = k == 0 ? term : result + term;
    }
    return result;
  }
  node.fail("mode '" + mode + "' is not supported");
}

/// Resize (and Upsample) one axis at a time: each output position's source
/// coordinate by the coordinate_transformation_mode, then the nearest
/// element or a linear or cubic mix of its neighbours; with
/// tf_crop_and_resize, the extrapolation value where the coordinate falls
/// outside the input.
Tensor resizeAxis(const NodeContext &node, const Tensor &x, int64_t axis,
                  int64_t outSize, double scale, bool antialias,
                  const std::string &mode, const std::string &coordinates,
                  const std::string &nearestMode, const AxisCrop &crop) {
  int64_t inSize = x.shape()[axis];
  auto source = [&](int64_t i) {
    return sourceCoordinate(node, coordinates, i, inSize, outSize, scale, crop);
  };
  Tensor resized = interpolateAxis(node, x, axis, outSize, scale, antialias,
                                   mode, nearestMode, source);
  if (coordinates != "tf_crop_and_resize")
    return resized;
  std::vector<bool> outside(outSize);
  bool any = false;
  for (int64_t i = 0; i < outSize; ++i) {
    double at = source(i);
    outside[i] = at < 0 || at > double(inSize - 1);
    any = any || outside[i];
  }
  if (!any)
    return resized;
  Shape maskShape(x.rank(), 1);
  maskShape[axis] = outSize;
  return where(Tensor::fromBools(outside, maskShape),
               constant(crop.extrapolation, resized), resized);
}

/// RoiAlign's average and max modes, as ONNX's reference computes them. The
/// sample points depend on the regions (data: their count adapts to each
/// region's size), so rois and batch_indices are read when the node is recorded
/// and turned into bilinear taps and weights on the host; the values are one
/// gather of those taps, weighted, then summed (avg) or maximized (max).
Tensors roiAlign(const NodeContext &node) {
  const Tensor &x = node.input(0);
  if (x.rank() != 4)
    node.fail("needs X [N, C, H, W]");
  std::string mode = node.attribute("mode", std::string("avg"));
  if (mode != "avg" && mode != "max")
    node.fail("mode '" + mode + "' is not supported");
  bool maximum = mode == "max";
  std::string transformation =
      node.opset() >= 16 ? node.attribute("coordinate_transformation_mode",
                                          std::string("half_pixel"))
                         : std::string("output_half_pixel");
  if (transformation != "half_pixel" && transformation != "output_half_pixel")
    node.fail("coordinate_transformation_mode '" + transformation +
              "' is not supported");
  bool halfPixel = transformation == "half_pixel";
  int64_t outH = node.attribute("output_height", int64_t(1));
  int64_t outW = node.attribute("output_width", int64_t(1));
  int64_t sampling = node.attribute("sampling_ratio", int64_t(0));
  double scale = node.attribute("spatial_scale", 1.0);
  int64_t channels = x.shape()[1], height = x.shape()[2], width = x.shape()[3];
  std::vector<double> rois = node.input(1).toVector<double>(node.where);
  std::vector<int64_t> batchIndex = node.input(2).toVector<int64_t>(node.where);
  int64_t regions = int64_t(batchIndex.size());
  if (int64_t(rois.size()) != regions * 4)
    node.fail("needs rois [num_rois, 4] and batch_indices [num_rois]");

  struct Region {
    double startH, startW, binH, binW;
    int64_t gridH, gridW;
  };
  std::vector<Region> shapes;
  int64_t perPoint = 4; // taps per output point: the largest grid's
  for (int64_t r = 0; r < regions; ++r) {
    if (batchIndex[r] < 0 || batchIndex[r] >= x.shape()[0])
      node.fail("batch index " + std::to_string(batchIndex[r]) +
                " is out of range");
    double offset = halfPixel ? 0.5 : 0.0;
    double startW = rois[r * 4] * scale - offset;
    double startH = rois[r * 4 + 1] * scale - offset;
    double roiW = rois[r * 4 + 2] * scale - offset - startW;
    double roiH = rois[r * 4 + 3] * scale - offset - startH;
    if (!halfPixel) {
      roiW = std::max(roiW, 1.0);
      roiH = std::max(roiH, 1.0);
    }
    Region region{
        startH,
        startW,
        roiH / double(outH),
        roiW / double(outW),
        sampling > 0 ? sampling : int64_t(std::ceil(roiH / double(outH))),
        sampling > 0 ? sampling : int64_t(std::ceil(roiW / double(outW)))};
    shapes.push_back(region);
    perPoint = std::max(perPoint, 4 * region.gridH * region.gridW);
  }
  // Every output point gets perPoint taps (spatial index, weight with the
  // average folded in); samples outside the image, and the padding of a
  // smaller grid, weigh 0.
  int64_t points = regions * outH * outW;
  std::vector<int64_t> taps(size_t(points * perPoint), 0);
  std::vector<double> weights(size_t(points * perPoint), 0.0);
  // max: the largest weighted corner of any sample, a sample outside the
  // image counting as 0 (ONNX's reference); the padding slots none.
  std::vector<bool> sampled(size_t(points * perPoint), false);
  for (int64_t r = 0; r < regions; ++r) {
    const Region &region = shapes[r];
    double count = double(std::max<int64_t>(region.gridH * region.gridW, 1));
    for (int64_t ph = 0; ph < outH; ++ph)
      for (int64_t pw = 0; pw < outW; ++pw) {
        size_t at = size_t(((r * outH + ph) * outW + pw) * perPoint);
        for (int64_t iy = 0; iy < region.gridH; ++iy)
          for (int64_t ix = 0; ix < region.gridW; ++ix, at += 4) {
            for (int64_t k = 0; k < 4; ++k)
              sampled[at + k] = true;
            double y = region.startH + double(ph) * region.binH +
                       (double(iy) + 0.5) * region.binH / double(region.gridH);
            double u = region.startW + double(pw) * region.binW +
                       (double(ix) + 0.5) * region.binW / double(region.gridW);
            if (y < -1.0 || y > double(height) || u < -1.0 || u > double(width))
              continue;
            y = std::max(y, 0.0);
            u = std::max(u, 0.0);
            int64_t yLow = int64_t(y), xLow = int64_t(u), yHigh, xHigh;
            if (yLow >= height - 1) {
              yHigh = yLow = height - 1;
              y = double(yLow);
            } else {
              yHigh = yLow + 1;
            }
            if (xLow >= width - 1) {
              xHigh = xLow = width - 1;
              u = double(xLow);
            } else {
              xHigh = xLow + 1;
            }
            double ly = y - double(yLow), lx = u - double(xLow);
            double hy = 1 - ly, hx = 1 - lx;
            int64_t tap[4] = {yLow * width + xLow, yLow * width + xHigh,
                              yHigh * width + xLow, yHigh * width + xHigh};
            double weight[4] = {hy * hx, hy * lx, ly * hx, ly * lx};
            for (int k = 0; k < 4; ++k) {
              taps[at + k] = tap[k];
              weights[at + k] = maximum ? weight[k] : weight[k] / count;
            }
          }
      }
  }
  Tensor images =
      reshape(indexSelect(x, 0, Tensor::fromVector(batchIndex, {regions})),
              {regions, channels, height * width});
  int64_t columns = outH * outW * perPoint;
  Tensor index = broadcastTo(Tensor::fromVector(taps, {regions, 1, columns}),
                             {regions, channels, columns});
  Tensor weight =
      cast(Tensor::fromVector(weights, {regions, 1, columns}), x.dtype());
  Tensor values = gather(images, 2, index) * weight;
  Shape perTap = {regions, channels, outH * outW, perPoint};
  if (maximum) {
    Tensor used = Tensor::fromBools(sampled, {regions, 1, columns});
    values = where(used, values, constant(-INFINITY, values));
    return one(reshape(max(reshape(values, perTap), {3}),
                       {regions, channels, outH, outW}));
  }
  return one(reshape(sum(reshape(values, perTap), {3}),
                     {regions, channels, outH, outW}));
}

/// AffineGrid (opset 20), as PyTorch's affine_grid: the sampling grid
/// [N, H, W, 2] (or [N, D, H, W, 3]) that theta [N, 2, 3] ([N, 3, 4]) maps
/// the output's normalized coordinates to: each point (x, y[, z], 1), x
/// along W, in [-1, 1] at the corners' centres (align_corners) or edges.
/// The base points depend only on sizes; the grid is one product.
Tensors affineGrid(const NodeContext &node) {
  const Tensor &theta = node.input(0);
  std::vector<int64_t> size = node.integers(1);
  int64_t spatial = int64_t(size.size()) - 2;
  if ((spatial != 2 && spatial != 3) || theta.rank() != 3 ||
      theta.shape()[1] != spatial || theta.shape()[2] != spatial + 1 ||
      theta.shape()[0] != size[0])
    node.fail("needs theta [N, 2, 3] with size [N, C, H, W], or theta "
              "[N, 3, 4] with size [N, C, D, H, W]");
  bool alignCorners = node.attribute("align_corners", int64_t(0)) != 0;
  auto normalized = [&](int64_t i, int64_t extent) {
    if (alignCorners)
      return extent > 1 ? -1.0 + 2.0 * double(i) / double(extent - 1) : 0.0;
    return (2.0 * double(i) + 1.0) / double(extent) - 1.0;
  };
  // Points in row-major order of (D,) H, W; columns x, y(, z), 1.
  int64_t points = 1;
  for (int64_t d = 0; d < spatial; ++d)
    points *= size[2 + d];
  std::vector<double> base(size_t(points * (spatial + 1)));
  for (int64_t p = 0; p < points; ++p) {
    int64_t rest = p;
    for (int64_t d = spatial - 1; d >= 0; --d) {
      int64_t extent = size[2 + d];
      // Column 0 is the last (W) axis.
      base[size_t(p * (spatial + 1) + (spatial - 1 - d))] =
          normalized(rest % extent, extent);
      rest /= extent;
    }
    base[size_t(p * (spatial + 1) + spatial)] = 1.0;
  }
  Tensor points3 =
      cast(Tensor::fromVector(base, {1, points, spatial + 1}), theta.dtype());
  Tensor grid = matmul(points3, transpose(theta, {0, 2, 1}));
  Shape shape = {size[0]};
  shape.insert(shape.end(), size.begin() + 2, size.end());
  shape.push_back(spatial);
  return one(reshape(grid, shape));
}

/// GridSample (opset 16; from opset 20 also 3-D, without cubic) as
/// PyTorch's grid_sample computes it (ONNX's test values are PyTorch's):
/// each output point reads X at the grid's (x, y[, z]) in [-1, 1],
/// unnormalized by align_corners; border and reflection padding move the
/// coordinate (bicubic: each tap) into the image, zeros padding reads 0
/// outside it. Every tap is one gather.
Tensors gridSample(const NodeContext &node) {
  const Tensor &x = node.input(0), &grid = node.input(1);
  // Opset 20: any number of spatial axes (here 2, or 3 without cubic).
  int64_t spatial = x.rank() - 2;
  bool volumetric = spatial == 3 && node.opset() >= 20;
  if ((spatial != 2 && !volumetric) || grid.rank() != x.rank() ||
      grid.shape().back() != spatial || grid.shape()[0] != x.shape()[0])
    node.fail(volumetric || node.opset() >= 20
                  ? "needs X [N, C, (D,) H, W] and a grid [N, (D_out,) "
                    "H_out, W_out, 2 or 3]"
                  : "needs X [N, C, H, W] and a grid [N, H_out, W_out, 2]");
  // Opset 20 renamed bilinear and bicubic to linear and cubic.
  bool renamed = node.opset() >= 20;
  std::string given =
      node.attribute("mode", std::string(renamed ? "linear" : "bilinear"));
  std::string mode = given;
  if (renamed)
    mode = given == "linear"    ? "bilinear"
           : given == "cubic"   ? "bicubic"
           : given == "nearest" ? given
                                : "";
  std::string padding = node.attribute("padding_mode", std::string("zeros"));
  bool alignCorners = node.attribute("align_corners", int64_t(0)) != 0;
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    node.fail("mode '" + given + "' is not supported");
  if (mode == "bicubic" && volumetric)
    node.fail("mode 'cubic' of a volumetric grid is not supported");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    node.fail("padding_mode '" + padding + "' is not supported");
  int64_t n = x.shape()[0], channels = x.shape()[1];
  // Spatial axes in X's order (D,) H, W; grid component j is axis
  // spatial - 1 - j (x along W first).
  std::vector<int64_t> sizes(x.shape().begin() + 2, x.shape().end());
  Shape outs(grid.shape().begin() + 1, grid.shape().end() - 1);
  int64_t points = 1, cells = 1;
  for (int64_t size : outs)
    points *= size;
  for (int64_t size : sizes)
    cells *= size;
  Shape pointShape = {n}, channelShape = {n, 1}, valueShape = {n, channels};
  pointShape.insert(pointShape.end(), outs.begin(), outs.end());
  channelShape.insert(channelShape.end(), outs.begin(), outs.end());
  valueShape.insert(valueShape.end(), outs.begin(), outs.end());
  Tensor g = cast(grid, x.dtype());
  auto coordinate = [&](int64_t axis) { // [N, outs...]
    int64_t which = spatial - 1 - axis;
    std::vector<int64_t> start(g.rank(), 0), limit(g.shape());
    start.back() = which;
    limit.back() = which + 1;
    return reshape(slice(g, start, limit), pointShape);
  };
  auto unnormalize = [&](const Tensor &c, int64_t size) {
    Tensor one = constant(1, c);
    return alignCorners ? (c + one) * constant(0.5 * double(size - 1), c)
                        : ((c + one) * constant(double(size), c) - one) *
                              constant(0.5, c);
  };
  auto reflect = [&](const Tensor &c, double twiceLow, double twiceHigh) {
    if (twiceLow == twiceHigh)
      return constant(0, c) * c;
    double low = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
    Tensor in = abs(c - constant(low, c));
    Tensor extra = mod(in, constant(span, c));
    Tensor flips = floorOf(in / constant(span, c));
    Tensor even = mod(flips, constant(2, c)) == 0.0;
    return where(even, extra + constant(low, c),
                 constant(span + low, c) - extra);
  };
  // Border and reflection padding: the coordinate moved into the image.
  auto pad = [&](Tensor c, int64_t size) {
    if (padding == "reflection")
      c = alignCorners ? reflect(c, 0, 2.0 * double(size - 1))
                       : reflect(c, -1, 2.0 * double(size) - 1);
    if (padding != "zeros")
      c = clamp(c, 0.0, double(size - 1));
    return c;
  };
  Tensor flat = reshape(x, {n, channels, cells});
  // X at integer coordinates (Int64 [N, outs...], one per axis); 0 outside.
  auto tap = [&](const std::vector<Tensor> &at) {
    Tensor inside, position;
    int64_t stride = 1;
    for (int64_t axis = spatial - 1; axis >= 0; --axis) {
      const Tensor &i = at[size_t(axis)];
      Tensor within = (i >= int64_t(0)) & (i < sizes[axis]);
      inside = inside.defined() ? inside & within : within;
      Tensor term = clamp(i, int64_t(0), sizes[axis] - 1) *
                    full({}, double(stride), DType::Int64);
      position = position.defined() ? position + term : term;
      stride *= sizes[axis];
    }
    Tensor index =
        broadcastTo(reshape(position, {n, 1, points}), {n, channels, points});
    Tensor values = reshape(gather(flat, 2, index), valueShape);
    return where(reshape(inside, channelShape), values, constant(0, values));
  };
  auto perPoint = [&](const Tensor &w) { // [N, outs...] -> per channel
    return reshape(w, channelShape);
  };
  auto toIndex = [](const Tensor &c) { return cast(c, DType::Int64); };
  std::vector<Tensor> at;
  for (int64_t axis = 0; axis < spatial; ++axis)
    at.push_back(unnormalize(coordinate(axis), sizes[axis]));

  if (mode == "nearest") {
    std::vector<Tensor> indices;
    for (int64_t axis = 0; axis < spatial; ++axis)
      indices.push_back(toIndex(roundHalfEven(pad(at[axis], sizes[axis]))));
    return one(tap(indices));
  }
  if (mode == "bilinear") {
    // The 2^spatial corners around each point, weighted by the distances.
    std::vector<Tensor> low, fraction;
    for (int64_t axis = 0; axis < spatial; ++axis) {
      Tensor p = pad(at[axis], sizes[axis]);
      Tensor floor = floorOf(p);
      low.push_back(toIndex(floor));
      fraction.push_back(p - floor);
    }
    Tensor i1 = full({}, 1, DType::Int64), y;
    for (int64_t corner = 0; corner < (int64_t(1) << spatial); ++corner) {
      std::vector<Tensor> indices;
      Tensor weight;
      for (int64_t axis = 0; axis < spatial; ++axis) {
        bool high = (corner >> axis) & 1;
        indices.push_back(high ? low[axis] + i1 : low[axis]);
        Tensor w = high ? fraction[axis]
                        : constant(1, fraction[axis]) - fraction[axis];
        weight = weight.defined() ? weight * w : w;
      }
      Tensor term = tap(indices) * perPoint(weight);
      y = y.defined() ? y + term : term;
    }
    return one(y);
  }
  // Bicubic (2-D, A = -0.75): 4 x 4 taps around floor(coordinate), each
  // tap's coordinate padded.
  Tensor gy = at[0], gx = at[1];
  int64_t height = sizes[0], width = sizes[1];
  Tensor x0 = floorOf(gx), y0 = floorOf(gy);
  Tensor tx = gx - x0, ty = gy - y0;
  auto coefficients = [&](const Tensor &t) {
    const double a = -0.75;
    Tensor one1 = constant(1, t);
    auto near = [&](const Tensor &d) { // |d| <= 1
      return ((constant(a + 2, d) * d - constant(a + 3, d)) * d) * d + one1;
    };
    auto far = [&](const Tensor &d) { // 1 < |d| < 2
      return ((constant(a, d) * d - constant(5 * a, d)) * d +
              constant(8 * a, d)) *
                 d -
             constant(4 * a, d);
    };
    return std::vector<Tensor>{far(t + one1), near(t), near(one1 - t),
                               far(constant(2, t) - t)};
  };
  std::vector<Tensor> wx = coefficients(tx), wy = coefficients(ty);
  Tensor y;
  for (int64_t j = 0; j < 4; ++j)
    for (int64_t i = 0; i < 4; ++i) {
      Tensor cx = x0 + constant(double(i - 1), x0);
      Tensor cy = y0 + constant(double(j - 1), y0);
      Tensor value = tap({toIndex(pad(cy, height)), toIndex(pad(cx, width))});
      Tensor term = value * perPoint(wx[i] * wy[j]);
      y = y.defined() ? y + term : term;
    }
  return one(y);
}

Tensors resize(const NodeContext &node, bool upsample) {
  Tensor x = node.input(0);
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  size_t scalesInput = upsample || node.opset() < 11 ? 1 : 2;
  if (!upsample && node.opset() >= 11 && node.has(3)) {
    sizes = node.integers(3);
  } else if (node.has(scalesInput)) {
    scales = node.input(scalesInput).toVector<double>(node.where);
  } else if (upsample && node.hasAttribute("scales")) {
    std::vector<float> attribute = node.attributeFloats("scales");
    scales.assign(attribute.begin(), attribute.end());
  }
  if (scales.empty() && sizes.empty())
    node.fail("neither scales nor sizes is given");
  std::string mode = node.attribute("mode", std::string("nearest"));
  std::string coordinates =
      upsample || node.opset() < 11
          ? std::string("asymmetric")
          : node.attribute("coordinate_transformation_mode",
                           std::string("half_pixel"));
  std::string nearestMode =
      upsample || node.opset() < 11
          ? std::string("floor")
          : node.attribute("nearest_mode", std::string("round_prefer_floor"));
  if (mode == "linear" && (upsample || node.opset() < 11))
    coordinates = "asymmetric";
  int64_t rank = x.rank();
  // Opset 18: scales, sizes and roi may name a subset of the axes.
  std::vector<int64_t> axes;
  if (!upsample && node.opset() >= 18)
    for (int64_t axis : node.attributeInts("axes"))
      axes.push_back(normalizeAxis(node, axis, rank));
  if (axes.empty()) {
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), 0);
  }
  int64_t count = int64_t(axes.size());
  std::vector<AxisCrop> crops(rank);
  if (coordinates == "tf_crop_and_resize") {
    if (!node.has(1))
      node.fail("tf_crop_and_resize needs the roi input");
    std::vector<double> roi = node.input(1).toVector<double>(node.where);
    if (int64_t(roi.size()) != 2 * count)
      node.fail("roi must have 2 entries per resized axis");
    double extrapolation = node.attribute("extrapolation_value", 0.0);
    for (int64_t i = 0; i < count; ++i)
      crops[axes[i]] = {roi[i], roi[count + i], extrapolation};
  }
  if ((!sizes.empty() && int64_t(sizes.size()) != count) ||
      (sizes.empty() && int64_t(scales.size()) != count))
    node.fail("scales or sizes must have one entry per resized axis");
  std::vector<int64_t> outSizes(x.shape());
  std::vector<double> axisScales(rank, 1.0);
  std::string policy =
      node.opset() >= 18
          ? node.attribute("keep_aspect_ratio_policy", std::string("stretch"))
          : std::string("stretch");
  if (!sizes.empty() && policy != "stretch") {
    // One scale for every resized axis: the one that fits sizes inside
    // (not_larger) or covers them (not_smaller); sizes rounded half up.
    if (policy != "not_larger" && policy != "not_smaller")
      node.fail("keep_aspect_ratio_policy '" + policy + "' is not supported");
    double common = 0;
    for (int64_t i = 0; i < count; ++i) {
      double scale = double(sizes[i]) / double(x.shape()[axes[i]]);
      common = i == 0                   ? scale
               : policy == "not_larger" ? std::min(common, scale)
                                        : std::max(common, scale);
    }
    for (int64_t d : axes) {
      axisScales[d] = common;
      outSizes[d] = int64_t(common * double(x.shape()[d]) + 0.5);
    }
  } else {
    for (int64_t i = 0; i < count; ++i) {
      int64_t d = axes[i], in = x.shape()[d];
      outSizes[d] =
          sizes.empty() ? int64_t(std::floor(in * scales[i])) : sizes[i];
      axisScales[d] = sizes.empty() ? scales[i] : double(outSizes[d]) / in;
    }
  }
  bool antialias =
      node.opset() >= 18 && node.attribute("antialias", int64_t(0)) != 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (outSizes[d] == x.shape()[d] && axisScales[d] == 1.0 &&
        coordinates != "tf_crop_and_resize")
      continue;
    x = resizeAxis(node, x, d, outSizes[d], axisScales[d], antialias, mode,
                   coordinates, nearestMode, crops[d]);
  }
  return one(x);
}

/// LRN: each value over (bias + alpha / size * the sum of squares of the
/// `size` channels around it)^beta.
Tensors localResponseNormalization(const NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t size = node.attribute("size", int64_t(1));
  double alpha = node.attribute("alpha", 0.0001),
         beta = node.attribute("beta", 0.75),
         bias = node.attribute("bias", 1.0);
  int64_t channels = x.shape()[1];
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  Tensor squares = padAxis(x * x, 1, before, after, 0);
  Tensor total;
  for (int64_t k = 0; k < size; ++k) {
    std::vector<int64_t> start(x.rank(), 0), limit(squares.shape());
    start[1] = k;
    limit[1] = k + channels;
    Tensor window = slice(squares, start, limit);
    total = k == 0 ? window : total + window;
  }
  return one(x / pow(total * constant(alpha / size, x) + constant(bias, x),
                     constant(beta, x)));
}

/// The flat positions that the last axis of `indices` (k coordinates into
/// the first k dimensions of `shape` after `batch` batch dimensions) names,
/// negative coordinates counting from the end: an Int64 tensor of
/// indices.shape[:-1], into data reshaped to [prod(shape[:batch + k]),
/// shape[batch + k:]...].
Tensor flatPositions(const NodeContext &node, const Shape &shape,
                     const Tensor &indices, int64_t batch) {
  int64_t q = indices.rank(), k = indices.shape()[q - 1];
  if (batch + k > int64_t(shape.size()))
    node.fail("indices address " + std::to_string(k) +
              " dimensions past the batch, the data has " +
              std::to_string(shape.size() - batch));
  Tensor ids = cast(indices, DType::Int64);
  Shape rows(indices.shape().begin(), indices.shape().end() - 1);
  Tensor positions = zeros(rows, DType::Int64);
  int64_t stride = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    std::vector<int64_t> start(q, 0), limit(indices.shape());
    start[q - 1] = j;
    limit[q - 1] = j + 1;
    Tensor coordinate = reshape(slice(ids, start, limit), rows);
    coordinate = wrapIndices(coordinate, shape[batch + j]);
    positions = positions + coordinate * full({}, double(stride), DType::Int64);
    stride *= shape[batch + j];
  }
  if (batch > 0) {
    // Each batch element's block of `stride` positions.
    int64_t batches = 1;
    Shape batchShape(rows.size(), 1);
    for (int64_t d = 0; d < batch; ++d) {
      batches *= shape[d];
      batchShape[d] = shape[d];
    }
    positions =
        positions + reshape(arange(0, double(batches), 1, DType::Int64) *
                                full({}, double(stride), DType::Int64),
                            batchShape);
  }
  return positions;
}

/// data reshaped to [prod(shape[:leading]), shape[leading:]...].
Tensor flattenLeading(const Tensor &data, int64_t leading) {
  Shape shape = {1};
  for (int64_t d = 0; d < data.rank(); ++d)
    if (d < leading)
      shape[0] *= data.shape()[d];
    else
      shape.push_back(data.shape()[d]);
  return reshape(data, shape);
}

Tensors gatherND(const NodeContext &node) {
  const Tensor &data = node.input(0), &indices = node.input(1);
  int64_t batch = node.attribute("batch_dims", int64_t(0));
  int64_t k = indices.shape().back();
  Tensor positions = flatPositions(node, data.shape(), indices, batch);
  Tensor rows = indexSelect(flattenLeading(data, batch + k), 0, positions);
  return one(rows);
}

/// x with `updates` written at `index` along `axis` (index and updates of
/// one shape): ScatterElements' rule, by two additive scatters (positions
/// written twice are undefined in ONNX; here they add up).
Tensor scatterReplace(const Tensor &x, int64_t axis, const Tensor &index,
                      const Tensor &updates) {
  Tensor written = scatterAdd(zeros(x.shape(), DType::Int32), axis, index,
                              full(updates.shape(), 1, DType::Int32));
  Tensor placed = scatterAdd(zeros(x.shape(), x.dtype()), axis, index, updates);
  return where(written > full({}, 0, DType::Int32), placed, x);
}

/// x with rows[j] combined into row positions[j] by `reduction` (mul, min
/// or max), for every j (a position may repeat). The positions are read
/// when the node is recorded: the rows are applied in layers whose
/// positions are distinct (the first occurrence of each, then the second,
/// ...), each one scatter.
Tensor scatterCombine(const Tensor &x, const Tensor &positions,
                      const Tensor &rows, const std::string &reduction,
                      SourceLocation where) {
  std::vector<int64_t> at = positions.toVector<int64_t>(where);
  std::map<int64_t, int64_t> seen;
  std::vector<std::vector<int64_t>> layers;
  for (int64_t j = 0; j < int64_t(at.size()); ++j) {
    size_t layer = size_t(seen[at[j]]++);
    if (layer == layers.size())
      layers.emplace_back();
    layers[layer].push_back(j);
  }
  Tensor result = x;
  for (const std::vector<int64_t> &layer : layers) {
    int64_t count = int64_t(layer.size());
    Tensor chosen = Tensor::fromVector(layer, {count});
    Tensor values = indexSelect(rows, 0, chosen);
    Shape column(rows.rank(), 1);
    column[0] = count;
    Tensor index = broadcastTo(
        reshape(indexSelect(positions, 0, chosen), column), values.shape());
    if (reduction == "mul") {
      result =
          result * scatterReplace(ones(x.shape(), x.dtype()), 0, index, values);
      continue;
    }
    // Elsewhere the layer leaves result's own value: min(r, r) = r.
    Tensor layered = scatterReplace(result, 0, index, values);
    result = reduction == "min" ? minimum(result, layered)
                                : maximum(result, layered);
  }
  return result;
}

Tensors scatterND(const NodeContext &node) {
  const Tensor &x = node.input(0), &indices = node.input(1);
  const Tensor &updates = node.input(2);
  int64_t k = indices.shape().back();
  Tensor positions = flatPositions(node, x.shape(), indices, 0);
  Tensor flat = flattenLeading(x, k);
  // One position per row of updates, repeated along the rest.
  int64_t count = positions.numel();
  Shape rowsShape = {count};
  for (int64_t d = 1; d < flat.rank(); ++d)
    rowsShape.push_back(flat.shape()[d]);
  Tensor rows = reshape(updates, rowsShape);
  Shape column(rowsShape.size(), 1);
  column[0] = count;
  Tensor index = broadcastTo(reshape(positions, column), rowsShape);
  std::string reduction = node.attribute("reduction", std::string("none"));
  Tensor result;
  if (reduction == "add")
    result = scatterAdd(flat, 0, index, rows);
  else if (reduction == "none")
    result = scatterReplace(flat, 0, index, rows);
  else if (reduction == "mul" ||
           (node.opset() >= 18 && (reduction == "min" || reduction == "max")))
    result = scatterCombine(flat, positions, rows, reduction, node.where);
  else
    node.fail("reduction '" + reduction + "' is not supported");
  return one(reshape(result, x.shape()));
}

/// Positions 0, 1, ... of dimension `axis` of a value of rank `rank`, as an
/// Int64 tensor shaped to broadcast along the others.
Tensor positions(int64_t size, int64_t axis, int64_t rank) {
  Shape shape(rank, 1);
  shape[axis] = size;
  return reshape(arange(0, double(size), 1, DType::Int64), shape);
}

/// ScatterElements: add, mul (opset 16), min and max (opset 18) combine
/// updates with x; a reduction other than add goes through the flat
/// positions each update lands on (read when the node is recorded).
Tensors scatterElements(const NodeContext &node) {
  const Tensor &x = node.input(0);
  const Tensor &updates = node.input(2);
  int64_t axis =
      normalizeAxis(node, node.attribute("axis", int64_t(0)), x.rank());
  Tensor index =
      wrapIndices(cast(node.input(1), DType::Int64), x.shape()[axis]);
  std::string reduction = node.attribute("reduction", std::string("none"));
  if (reduction == "add")
    return one(scatterAdd(x, axis, index, updates));
  if (reduction == "none")
    return one(scatterReplace(x, axis, index, updates));
  if (!(reduction == "mul" && node.opset() >= 16) &&
      !((reduction == "min" || reduction == "max") && node.opset() >= 18))
    node.fail("reduction '" + reduction + "' is not supported");
  if (updates.shape() != index.shape())
    node.fail("updates must have the indices' shape");
  Tensor flat = zeros(index.shape(), DType::Int64);
  int64_t stride = 1;
  for (int64_t d = x.rank() - 1; d >= 0; --d) {
    Tensor coordinate =
        d == axis ? index : positions(index.shape()[d], d, x.rank());
    flat = flat + coordinate * full({}, double(stride), DType::Int64);
    stride *= x.shape()[d];
  }
  int64_t count = index.numel();
  Tensor result =
      scatterCombine(reshape(x, {x.numel()}), reshape(flat, {count}),
                     reshape(updates, {count}), reduction, node.where);
  return one(reshape(result, x.shape()));
}

/// The loss of NegativeLogLikelihoodLoss over log-probabilities [N, C,
/// d1, ...] and targets [N, d1, ...]: -input[n, target] * weight[target],
/// none at ignore_index; reduced by sum, mean (weighted: over the weights
/// of the targets counted) or none.
Tensor negativeLogLikelihood(const NodeContext &node, const Tensor &input,
                             const Tensor &target, const Tensor &weight) {
  bool ignoring = node.hasAttribute("ignore_index");
  Tensor ids = target;
  Tensor kept = full(target.shape(), 1, DType::Bool);
  if (ignoring) {
    Tensor ignored =
        target ==
        constant(double(node.attribute("ignore_index", int64_t(0))), target);
    kept = logicalNot(ignored);
    ids = where(ignored, constant(0, target), target);
  }
  Shape withClass = target.shape();
  withClass.insert(withClass.begin() + 1, 1);
  Tensor picked =
      reshape(gather(input, 1, reshape(ids, withClass)), target.shape());
  Tensor weights = weight.defined() ? indexSelect(weight, 0, ids)
                                    : full(target.shape(), 1, input.dtype());
  weights = where(kept, weights, constant(0, weights));
  Tensor loss = -picked * weights;
  std::string reduction = node.attribute("reduction", std::string("mean"));
  if (reduction == "none")
    return loss;
  if (reduction == "sum")
    return sum(loss);
  if (reduction != "mean")
    node.fail("reduction '" + reduction + "' is not supported");
  return sum(loss) / sum(weights);
}

Tensors negativeLogLikelihoodLoss(const NodeContext &node) {
  return one(negativeLogLikelihood(node, node.input(0), node.input(1),
                                   node.has(2) ? node.input(2) : Tensor()));
}

Tensors softmaxCrossEntropyLoss(const NodeContext &node) {
  Tensor logProbabilities = logSoftmax(node.input(0), 1);
  Tensor loss = negativeLogLikelihood(node, logProbabilities, node.input(1),
                                      node.has(2) ? node.input(2) : Tensor());
  return {loss, logProbabilities};
}

/// Trilu: the upper (or lower) triangle of the last two dimensions from
/// diagonal k on; the rest zero.
Tensors trilu(const NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t k = node.has(1) ? node.integers(1).at(0) : 0;
  int64_t rank = x.rank();
  Tensor rows = positions(x.shape()[rank - 2], rank - 2, rank);
  Tensor columns = positions(x.shape()[rank - 1], rank - 1, rank);
  Tensor offset = columns - rows;
  Tensor diagonal = full({}, double(k), DType::Int64);
  Tensor keep = node.attribute("upper", int64_t(1)) ? offset >= diagonal
                                                    : offset <= diagonal;
  return one(where(keep, x, constant(0, x)));
}

/// Hardmax: 1 at the first maximum along the axis, 0 elsewhere (before
/// opset 13 over the input flattened to 2-D at `axis`).
Tensors hardmax(const NodeContext &node) {
  const Tensor &x = node.input(0);
  auto along = [&](const Tensor &values, int64_t axis) {
    Tensor first = argmax(values, axis, /*keepDims=*/true);
    Tensor hits = positions(values.shape()[axis], axis, values.rank()) == first;
    return cast(hits, values.dtype());
  };
  if (node.opset() >= 13)
    return one(along(
        x, normalizeAxis(node, node.attribute("axis", int64_t(-1)), x.rank())));
  int64_t axis =
      normalizeAxis(node, node.attribute("axis", int64_t(1)), x.rank());
  int64_t rows = 1, columns = 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    (d < axis ? rows : columns) *= x.shape()[d];
  return one(reshape(along(reshape(x, {rows, columns}), 1), x.shape()));
}

} // namespace

Tensor lazyc::onnx::detail::roundHalfEven(const Tensor &x) {
  if (!isFloat(x.dtype()))
    return x;
  Tensor lower = floorOf(x);
  Tensor fraction = x - lower;
  Tensor half = constant(0.5, x), one = constant(1, x);
  Tensor tie = lower + mod(lower, constant(2, x)); // the even neighbour
  return where(fraction > half, lower + one,
               where(fraction < half, lower, tie));
}

namespace {

Tensors oneHot(const NodeContext &node) {
  const Tensor &indices = node.input(0);
  int64_t depth = int64_t(node.scalar(1));
  const Tensor &values = node.input(2);
  int64_t rank = indices.rank() + 1;
  int64_t axis = normalizeAxis(node, node.attribute("axis", int64_t(-1)), rank);
  Tensor ids = cast(indices, DType::Int64);
  ids = where(ids < constant(0, ids), ids + constant(double(depth), ids), ids);
  Shape expanded = indices.shape();
  expanded.insert(expanded.begin() + axis, 1);
  Tensor hits = positions(depth, axis, rank) == reshape(ids, expanded);
  Tensor off = reshape(slice(values, {0}, {1}), {});
  Tensor on = reshape(slice(values, {1}, {2}), {});
  return one(where(hits, on, off));
}

Tensors isInf(const NodeContext &node) {
  const Tensor &x = node.input(0);
  Tensor result = full(x.shape(), 0, DType::Bool);
  if (node.attribute("detect_positive", int64_t(1)))
    result = result | (x == constant(INFINITY, x));
  if (node.attribute("detect_negative", int64_t(1)))
    result = result | (x == constant(-INFINITY, x));
  return one(result);
}

Tensors eyeLike(const NodeContext &node) {
  const Tensor &x = node.input(0);
  DType dtype =
      node.hasAttribute("dtype")
          ? dtypeFromOnnx(int32_t(node.attribute("dtype", int64_t(0))),
                          describeNode(node.graph, node.node))
          : x.dtype();
  if (x.rank() != 2)
    node.fail("an input of rank " + std::to_string(x.rank()) +
              " is not supported: EyeLike takes rank 2");
  Tensor offset = positions(x.shape()[1], 1, 2) - positions(x.shape()[0], 0, 2);
  Tensor k = full({}, double(node.attribute("k", int64_t(0))), DType::Int64);
  return one(cast(offset == k, dtype));
}

/// Pad: constant, edge or reflect, by index selection per dimension
/// (negative pads crop).
Tensors pad(const NodeContext &node) {
  Tensor x = node.input(0);
  std::string mode = node.attribute("mode", std::string("constant"));
  std::vector<int64_t> pads =
      node.opset() >= 11 ? node.integers(1) : node.attributeInts("pads");
  int64_t rank = x.rank();
  std::vector<int64_t> axes(rank);
  std::iota(axes.begin(), axes.end(), 0);
  if (node.opset() >= 18 && node.has(3))
    axes = node.integers(3);
  if (pads.size() != 2 * axes.size())
    node.fail("pads has " + std::to_string(pads.size()) + " entries for " +
              std::to_string(axes.size()) + " axes");
  double fill = 0;
  if (mode == "constant")
    fill = node.opset() >= 11 ? (node.has(2) ? node.scalar(2) : 0.0)
                              : node.attribute("value", 0.0);
  else if (mode != "edge" && mode != "reflect" &&
           !(mode == "wrap" && node.opset() >= 19))
    node.fail("mode '" + mode + "' is not supported");
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t d = normalizeAxis(node, axes[i], rank);
    int64_t before = pads[i], after = pads[i + axes.size()];
    int64_t size = x.shape()[d];
    // Crop first (negative pads), then grow.
    int64_t begin = std::max<int64_t>(0, -before),
            end = size - std::max<int64_t>(0, -after);
    if (begin > 0 || end < size) {
      std::vector<int64_t> start(rank, 0), limit(x.shape());
      start[d] = begin;
      limit[d] = end;
      x = slice(x, start, limit);
      size = end - begin;
    }
    before = std::max<int64_t>(0, before);
    after = std::max<int64_t>(0, after);
    if (before == 0 && after == 0)
      continue;
    if (mode == "constant") {
      x = padAxis(x, d, before, after, fill);
      continue;
    }
    if (mode == "reflect" && (size < 2 || before >= size || after >= size))
      node.fail("reflect padding of " + std::to_string(before) + ", " +
                std::to_string(after) + " around " + std::to_string(size) +
                " elements is not supported");
    std::vector<int64_t> source;
    for (int64_t j = -before; j < size + after; ++j) {
      int64_t k = j;
      if (mode == "edge")
        k = std::clamp<int64_t>(j, 0, size - 1);
      else if (mode == "wrap")
        k = ((j % size) + size) % size;
      else if (j < 0)
        k = -j;
      else if (j >= size)
        k = 2 * (size - 1) - j;
      source.push_back(k);
    }
    x = indexSelect(x, d, Tensor::fromVector(source, {int64_t(source.size())}));
  }
  return one(x);
}

Tensors shrink(const NodeContext &node) {
  const Tensor &x = node.input(0);
  double lambda = node.attribute("lambd", 0.5),
         bias = node.attribute("bias", 0.0);
  Tensor zero = constant(0, x);
  return one(
      where(x < constant(-lambda, x), x + constant(bias, x),
            where(x > constant(lambda, x), x - constant(bias, x), zero)));
}

/// CenterCropPad (opset 18): each named axis cropped to its centered
/// window or padded with zeros around the input, floor(difference / 2)
/// before it and the rest after.
Tensors centerCropPad(const NodeContext &node) {
  Tensor x = node.input(0);
  std::vector<int64_t> shape = node.integers(1);
  int64_t rank = x.rank();
  std::vector<int64_t> axes = node.attributeInts("axes");
  if (axes.empty()) {
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (shape.size() != axes.size())
    node.fail("shape has " + std::to_string(shape.size()) + " entries for " +
              std::to_string(axes.size()) + " axes");
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t d = normalizeAxis(node, axes[i], rank);
    int64_t size = x.shape()[d], target = shape[i];
    if (target < 0)
      node.fail("shape asks for " + std::to_string(target) +
                " elements along axis " + std::to_string(d));
    if (target < size) {
      std::vector<int64_t> start(rank, 0), limit(x.shape());
      start[d] = (size - target) / 2;
      limit[d] = start[d] + target;
      x = slice(x, start, limit);
    } else if (target > size) {
      int64_t before = (target - size) / 2;
      x = padAxis(x, d, before, target - size - before, 0);
    }
  }
  return one(x);
}

Tensors meanVarianceNormalization(const NodeContext &node) {
  const Tensor &x = node.input(0);
  std::vector<int64_t> axes = node.hasAttribute("axes")
                                  ? node.attributeInts("axes")
                                  : std::vector<int64_t>{0, 2, 3};
  Tensor centered = x - lazyc::mean(x, axes, true);
  Tensor deviation = sqrt(lazyc::mean(centered * centered, axes, true));
  return one(centered / (deviation + constant(1e-9, x)));
}

/// Einsum: each operand's letters (its repeated letters first reduced to
/// their diagonal, "..." to the broadcast dimensions) laid out along every
/// letter of the equation, the operands multiplied, and the letters the
/// output lacks summed. A product over all the letters, fused with its
/// sums: right for any equation, not the GEMM a large contraction wants.
Tensors einsum(const NodeContext &node) {
  std::string equation;
  for (char c : node.attribute("equation", std::string()))
    if (c != ' ')
      equation += c;
  size_t arrow = equation.find("->");
  std::string left = equation.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t begin = 0;;) {
    size_t comma = left.find(',', begin);
    terms.push_back(left.substr(begin, comma - begin));
    if (comma == std::string::npos)
      break;
    begin = comma + 1;
  }
  if (terms.size() != node.inputCount())
    node.fail("the equation has " + std::to_string(terms.size()) +
              " operands, the node " + std::to_string(node.inputCount()));
  // "..." becomes as many upper-case letters as the broadcast dimensions.
  int64_t ellipsisRank = 0;
  for (size_t i = 0; i < terms.size(); ++i)
    if (size_t at = terms[i].find("..."); at != std::string::npos)
      ellipsisRank = std::max<int64_t>(
          ellipsisRank, node.input(i).rank() - int64_t(terms[i].size() - 3));
  std::string ellipsis;
  for (int64_t d = 0; d < ellipsisRank; ++d)
    ellipsis += char('A' + d);
  auto expand = [&](std::string term, int64_t rank) {
    size_t at = term.find("...");
    if (at == std::string::npos)
      return term;
    int64_t own = rank - int64_t(term.size() - 3);
    return term.substr(0, at) + ellipsis.substr(ellipsisRank - own) +
           term.substr(at + 3);
  };
  std::string output;
  if (arrow != std::string::npos) {
    output = equation.substr(arrow + 2);
    if (size_t at = output.find("..."); at != std::string::npos)
      output = output.substr(0, at) + ellipsis + output.substr(at + 3);
  } else { // Implicit: the broadcast letters, then those seen once, sorted.
    std::map<char, int> seen;
    for (const std::string &term : terms)
      for (char c : term)
        if (c != '.')
          ++seen[c];
    output = ellipsis;
    for (auto [c, count] : seen)
      if (count == 1)
        output += c;
  }
  std::string letters = output;
  std::map<char, int64_t> sizes;
  std::vector<Tensor> laidOut;
  for (size_t i = 0; i < terms.size(); ++i) {
    Tensor x = node.input(i);
    std::string term = expand(terms[i], x.rank());
    if (int64_t(term.size()) != x.rank())
      node.fail("operand " + std::to_string(i) + " has rank " +
                std::to_string(x.rank()) + ", its term '" + terms[i] +
                "' names " + std::to_string(term.size()));
    // A letter twice in one term: its diagonal.
    for (size_t a = 0; a < term.size(); ++a)
      for (size_t b = term.size() - 1; b > a; --b)
        if (term[a] == term[b]) {
          int64_t rank = x.rank(), n = x.shape()[a];
          Tensor diagonal =
              positions(n, a, rank) == positions(x.shape()[b], b, rank);
          x = sum(x * cast(diagonal, x.dtype()), {int64_t(b)});
          term.erase(b, 1);
        }
    for (size_t d = 0; d < term.size(); ++d) {
      if (letters.find(term[d]) == std::string::npos)
        letters += term[d];
      int64_t &size = sizes[term[d]];
      size = std::max(size, x.shape()[d]);
    }
    laidOut.push_back(x);
    terms[i] = term;
  }
  Tensor product;
  for (size_t i = 0; i < laidOut.size(); ++i) {
    // This operand's letters in the equation's order, then a 1 for each
    // letter it lacks.
    const std::string &term = terms[i];
    std::vector<int64_t> permutation;
    Shape shape;
    for (char c : letters) {
      size_t at = term.find(c);
      if (at != std::string::npos)
        permutation.push_back(int64_t(at));
      shape.push_back(at == std::string::npos ? 1 : laidOut[i].shape()[at]);
    }
    Tensor x = reshape(transpose(laidOut[i], permutation), shape);
    product = i == 0 ? x : product * x;
  }
  std::vector<int64_t> summed;
  for (size_t d = output.size(); d < letters.size(); ++d)
    summed.push_back(int64_t(d));
  Shape outShape;
  for (char c : output)
    outShape.push_back(sizes[c]);
  if (!summed.empty())
    product = sum(product, summed);
  return one(broadcastTo(product, outShape));
}

/// The product along `axes`, as a tree of pairwise products (log2 of the
/// length in steps): lazyc has no product reduction. Integer products wrap
/// as a sequential product does (multiplication modulo 2^n associates);
/// float products differ from the sequential order by a few roundings.
Tensor productOf(const Tensor &x, std::vector<int64_t> axes, bool keep) {
  int64_t rank = x.rank();
  for (int64_t &axis : axes)
    axis = axis < 0 ? axis + rank : axis;
  std::vector<int64_t> permutation;
  Shape kept, keptDims = x.shape();
  int64_t length = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (!std::count(axes.begin(), axes.end(), d)) {
      permutation.push_back(d);
      kept.push_back(x.shape()[d]);
    }
  for (int64_t d = 0; d < rank; ++d)
    if (std::count(axes.begin(), axes.end(), d)) {
      permutation.push_back(d);
      length *= x.shape()[d];
      keptDims[d] = 1;
    }
  Shape rows = kept;
  rows.push_back(length);
  Tensor t = reshape(transpose(x, permutation), rows);
  int64_t last = int64_t(rows.size()) - 1;
  if (length == 0)
    t = full(Shape(kept.begin(), kept.end()), 1, x.dtype());
  while (length > 1) {
    if (length % 2)
      t = padAxis(t, last, 0, 1, 1);
    int64_t half = (length + 1) / 2;
    std::vector<int64_t> start(rows.size(), 0), middle(t.shape()),
        end(t.shape());
    middle[last] = half;
    std::vector<int64_t> second(rows.size(), 0);
    second[last] = half;
    t = slice(t, start, middle) * slice(t, second, end);
    length = half;
  }
  return reshape(t, keep ? keptDims : kept);
}

/// Compress: the slices along `axis` (of the flattened input without one)
/// where `condition` holds. Which ones is data: the condition is read (it
/// is computed first if it is not known yet); the input stays lazy.
Tensors compress(const NodeContext &node) {
  Tensor x = node.input(0);
  std::vector<bool> condition = node.input(1).toVector<bool>(node.where);
  int64_t axis = 0;
  if (node.hasAttribute("axis"))
    axis = normalizeAxis(node, node.attribute("axis", int64_t(0)), x.rank());
  else
    x = reshape(x, {x.numel()});
  std::vector<int64_t> chosen;
  for (size_t i = 0; i < condition.size() && int64_t(i) < x.shape()[axis]; ++i)
    if (condition[i])
      chosen.push_back(int64_t(i));
  if (chosen.empty()) {
    std::vector<int64_t> start(x.rank(), 0), limit(x.shape());
    limit[axis] = 0;
    return one(slice(x, start, limit));
  }
  return one(indexSelect(x, axis,
                         Tensor::fromVector(chosen, {int64_t(chosen.size())})));
}

/// NonZero: the coordinates of the nonzero elements, [rank, count]. Their
/// number is data: the input is computed and read.
Tensors nonZero(const NodeContext &node) {
  const Tensor &x = node.input(0);
  std::vector<double> values = x.toVector<double>(node.where);
  int64_t rank = std::max<int64_t>(x.rank(), 1);
  std::vector<std::vector<int64_t>> coordinates(rank);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == 0)
      continue;
    int64_t rest = int64_t(i);
    for (int64_t d = x.rank() - 1; d >= 0; --d) {
      coordinates[d].push_back(rest % x.shape()[d]);
      rest /= x.shape()[d];
    }
    if (x.rank() == 0)
      coordinates[0].push_back(0);
  }
  int64_t count = int64_t(coordinates[0].size());
  std::vector<int64_t> flat;
  for (const auto &row : coordinates)
    flat.insert(flat.end(), row.begin(), row.end());
  return one(Tensor::fromVector(flat, {rank, count}));
}

/// Unique: the distinct elements (or slices along `axis`), sorted or in
/// order of first appearance, with the first index of each, each input
/// element's (slice's) position among them, and their counts. Computed from
/// the input's values (their number is data); Y itself is a lazy selection
/// of the input.
Tensors unique(const NodeContext &node) {
  Tensor x = node.input(0);
  bool sorted = node.attribute("sorted", int64_t(1)) != 0;
  int64_t axis = 0;
  if (node.hasAttribute("axis"))
    axis = normalizeAxis(node, node.attribute("axis", int64_t(0)), x.rank());
  else
    x = reshape(x, {x.numel()});
  // Each slice along the axis as a row of values.
  int64_t n = x.shape()[axis];
  std::vector<int64_t> permutation = {axis};
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != axis)
      permutation.push_back(d);
  std::vector<double> values =
      transpose(x, permutation).toVector<double>(node.where);
  int64_t width = n ? int64_t(values.size()) / n : 0;
  auto row = [&](int64_t i) {
    return std::vector<double>(values.begin() + i * width,
                               values.begin() + (i + 1) * width);
  };
  std::vector<int64_t> first;      // first index of each distinct row
  std::vector<int64_t> inverse(n); // by appearance, for now
  std::vector<std::vector<double>> rows;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double> r = row(i);
    auto found = std::find(rows.begin(), rows.end(), r);
    if (found == rows.end()) {
      inverse[i] = int64_t(rows.size());
      rows.push_back(r);
      first.push_back(i);
    } else {
      inverse[i] = int64_t(found - rows.begin());
    }
  }
  std::vector<int64_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  if (sorted)
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return rows[a] < rows[b]; });
  std::vector<int64_t> rank(rows.size()), indices, counts(rows.size(), 0);
  for (size_t k = 0; k < order.size(); ++k) {
    rank[order[k]] = int64_t(k);
    indices.push_back(first[order[k]]);
  }
  for (int64_t &position : inverse) {
    position = rank[position];
    ++counts[position];
  }
  int64_t m = int64_t(indices.size());
  Tensor y = indexSelect(x, axis, Tensor::fromVector(indices, {m}));
  return {y, Tensor::fromVector(indices, {m}), Tensor::fromVector(inverse, {n}),
          Tensor::fromVector(counts, {m})};
}

/// Each batch entry's first sequence_lens[b] steps along time_axis
/// reversed, the rest kept: one gather whose positions are computed from
/// the lengths (data: new lengths compile nothing).
Tensors reverseSequence(const NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t rank = x.rank();
  if (rank < 2)
    node.fail("needs an input of rank 2 or more");
  int64_t timeAxis = node.attribute("time_axis", int64_t(0));
  int64_t batchAxis = node.attribute("batch_axis", int64_t(1));
  if ((timeAxis != 0 && timeAxis != 1) || batchAxis != 1 - timeAxis)
    node.fail("time_axis and batch_axis must be 0 and 1 in some order");
  Shape lengthShape(rank, 1), timeShape(rank, 1);
  lengthShape[batchAxis] = x.shape()[batchAxis];
  timeShape[timeAxis] = x.shape()[timeAxis];
  Tensor lengths = reshape(cast(node.input(1), DType::Int64), lengthShape);
  Tensor t = reshape(arange(0, double(x.shape()[timeAxis]), 1, DType::Int64),
                     timeShape);
  Tensor reversed = lengths - full({}, 1, DType::Int64) - t;
  Tensor source = where(t < lengths, reversed, t);
  return one(gather(x, timeAxis, broadcastTo(source, x.shape())));
}

/// Intersection over union of two boxes (y1, x1, y2, x2), corners in any
/// order; 0 when either is empty.
double intersectionOverUnion(const double *a, const double *b) {
  auto span = [](double lo, double hi) {
    return std::make_pair(std::min(lo, hi), std::max(lo, hi));
  };
  auto [ay1, ay2] = span(a[0], a[2]);
  auto [ax1, ax2] = span(a[1], a[3]);
  auto [by1, by2] = span(b[0], b[2]);
  auto [bx1, bx2] = span(b[1], b[3]);
  double areaA = (ay2 - ay1) * (ax2 - ax1), areaB = (by2 - by1) * (bx2 - bx1);
  if (areaA <= 0 || areaB <= 0)
    return 0;
  double height = std::max(0.0, std::min(ay2, by2) - std::max(ay1, by1));
  double width = std::max(0.0, std::min(ax2, bx2) - std::max(ax1, bx1));
  double intersection = height * width;
  return intersection / (areaA + areaB - intersection);
}

/// Greedy non-maximum suppression per batch entry and class. How many
/// boxes survive depends on the data: boxes and scores are read when the
/// node is recorded (as NonZero's input is), and the selected [batch,
/// class, box] triples are the result.
Tensors nonMaxSuppression(const NodeContext &node) {
  const Tensor &boxesTensor = node.input(0), &scoresTensor = node.input(1);
  if (boxesTensor.rank() != 3 || boxesTensor.shape()[2] != 4 ||
      scoresTensor.rank() != 3 ||
      scoresTensor.shape()[0] != boxesTensor.shape()[0] ||
      scoresTensor.shape()[2] != boxesTensor.shape()[1])
    node.fail("needs boxes [batch, boxes, 4] and scores [batch, classes, "
              "boxes]");
  int64_t batches = boxesTensor.shape()[0], count = boxesTensor.shape()[1];
  int64_t classes = scoresTensor.shape()[1];
  int64_t limit = node.has(2) ? int64_t(node.scalar(2)) : 0;
  double iouThreshold = node.has(3) ? node.scalar(3) : 0;
  bool thresholded = node.has(4);
  double scoreThreshold = thresholded ? node.scalar(4) : 0;
  bool centers = node.attribute("center_point_box", int64_t(0)) != 0;
  std::vector<double> boxes = boxesTensor.toVector<double>(node.where);
  std::vector<double> scores = scoresTensor.toVector<double>(node.where);
  if (centers) // (x center, y center, width, height) to corners.
    for (int64_t i = 0; i < batches * count; ++i) {
      double *box = &boxes[i * 4];
      double x = box[0], y = box[1], w = box[2], h = box[3];
      box[0] = y - h / 2;
      box[1] = x - w / 2;
      box[2] = y + h / 2;
      box[3] = x + w / 2;
    }
  std::vector<int64_t> selected;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      const double *classScores = &scores[(b * classes + c) * count];
      std::vector<int64_t> order;
      for (int64_t i = 0; i < count; ++i)
        if (!thresholded || classScores[i] > scoreThreshold)
          order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
        return classScores[i] > classScores[j];
      });
      std::vector<int64_t> kept;
      for (int64_t i : order) {
        if (int64_t(kept.size()) >= limit)
          break;
        const double *box = &boxes[(b * count + i) * 4];
        bool suppressed = std::any_of(kept.begin(), kept.end(), [&](int64_t k) {
          return intersectionOverUnion(box, &boxes[(b * count + k) * 4]) >
                 iouThreshold;
        });
        if (!suppressed)
          kept.push_back(i);
      }
      for (int64_t i : kept)
        selected.insert(selected.end(), {b, c, i});
    }
  int64_t rows = int64_t(selected.size()) / 3;
  return one(Tensor::fromVector(selected, {rows, 3}));
}

/// MaxPool's values put back at the positions its indices name (in the
/// flattened unpooled shape), zeros elsewhere; a larger output_shape pads
/// each spatial dimension at its end.
Tensors maxUnpool(const NodeContext &node) {
  const Tensor &x = node.input(0), &indices = node.input(1);
  int64_t spatial = x.rank() - 2;
  if (spatial < 1)
    node.fail("needs an input [N, C, spatial...]");
  std::vector<int64_t> kernel = node.attributeInts("kernel_shape");
  std::vector<int64_t> strides = node.attributeInts("strides");
  std::vector<int64_t> pads = node.attributeInts("pads");
  if (int64_t(kernel.size()) != spatial)
    node.fail("kernel_shape must have " + std::to_string(spatial) + " entries");
  strides.resize(spatial, 1);
  pads.resize(2 * spatial, 0);
  Shape shape = {x.shape()[0], x.shape()[1]};
  for (int64_t d = 0; d < spatial; ++d)
    shape.push_back((x.shape()[2 + d] - 1) * strides[d] + kernel[d] - pads[d] -
                    pads[spatial + d]);
  int64_t total = 1;
  for (int64_t size : shape)
    total *= size;
  Tensor y = reshape(scatterAdd(zeros({total}, x.dtype()), 0,
                                reshape(cast(indices, DType::Int64), {-1}),
                                reshape(x, {-1})),
                     shape);
  if (!node.has(2))
    return one(y);
  Shape wanted = node.integers(2);
  if (int64_t(wanted.size()) != x.rank())
    node.fail("output_shape must have " + std::to_string(x.rank()) +
              " entries");
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (wanted[d] < shape[d] || (d < 2 && wanted[d] != shape[d]))
      node.fail("output_shape " + std::to_string(wanted[d]) + " at dimension " +
                std::to_string(d) + " is smaller than the unpooled size " +
                std::to_string(shape[d]) + " (or changes N or C)");
    if (wanted[d] == shape[d])
      continue;
    Shape padding = y.shape();
    padding[d] = wanted[d] - shape[d];
    y = concat({y, zeros(padding, y.dtype())}, d);
  }
  return one(y);
}

/// The determinant of the trailing [n, n] matrices, by Gaussian
/// elimination with partial pivoting unrolled over the n columns: each
/// step picks the largest remaining entry of its column (argmax: data, so
/// nothing is read on the host) and swaps its row up.
Tensors det(const NodeContext &node) {
  Tensor a = node.input(0);
  int64_t rank = a.rank();
  if (rank < 2 || a.shape()[rank - 1] != a.shape()[rank - 2])
    node.fail("needs square matrices [..., n, n]");
  int64_t n = a.shape().back();
  Shape batch(a.shape().begin(), a.shape().end() - 2);
  Shape rowIndexShape(rank, 1);
  rowIndexShape[rank - 2] = n;
  Tensor row = reshape(arange(0, double(n), 1, DType::Int64), rowIndexShape);
  auto rowsOf = [&](int64_t k) { // [..., 1, n]
    std::vector<int64_t> start(rank, 0), limit = a.shape();
    start[rank - 2] = k;
    limit[rank - 2] = k + 1;
    return slice(a, start, limit);
  };
  auto columnOf = [&](int64_t k) { // [..., n, 1]
    std::vector<int64_t> start(rank, 0), limit = a.shape();
    start[rank - 1] = k;
    limit[rank - 1] = k + 1;
    return slice(a, start, limit);
  };
  Tensor zero = constant(0, a);
  Tensor result = ones(batch, a.dtype());
  for (int64_t k = 0; k < n; ++k) {
    Tensor column = columnOf(k);
    Tensor candidates = where(row >= k, abs(column), constant(-1, a));
    Tensor pivot = argmax(candidates, rank - 2, true); // [..., 1, 1]
    Tensor isK = row == k, isPivot = row == pivot;
    Tensor diagonal = sum(where(isPivot, column, zero), {rank - 2}, true);
    Tensor pivotRow = sum(where(isPivot, a, zero), {rank - 2}, true);
    a = where(isK, pivotRow, where(isPivot, rowsOf(k), a));
    // A row swap flips the sign.
    result = result * reshape(where(pivot != k, -diagonal, diagonal), batch);
    // Eliminate below row k (a zero pivot already made the result 0).
    Tensor divisor = where(diagonal == 0.0, constant(1, a), diagonal);
    Tensor factors = where(row > k, columnOf(k) / divisor, zero);
    a = a - factors * rowsOf(k);
  }
  return one(result);
}

/// Shifts of unsigned integers (ONNX's BitShift types); amounts from the
/// width on give 0, as numpy's shifts.
Tensors bitShift(const NodeContext &node) {
  const Tensor &x = node.input(0), &y = node.input(1);
  if (!isUnsignedInteger(x.dtype()) || y.dtype() != x.dtype())
    node.fail(std::string("shifts of ") + dtypeName(x.dtype()) + " by " +
              dtypeName(y.dtype()) +
              " are not supported (two tensors of one unsigned dtype are)");
  std::string direction = node.attribute("direction", std::string(""));
  if (direction != "LEFT" && direction != "RIGHT")
    node.fail("direction must be LEFT or RIGHT, not '" + direction + "'");
  return one(direction == "LEFT" ? leftShift(x, y) : rightShift(x, y));
}

/// RNN, GRU and LSTM: per step and direction a few matrix products and the
/// gates' activations. The steps are one whileLoop per direction, recorded
/// once whatever the sequence's length; under a recording GradientTape they
/// are unrolled instead (the sequence's length is static).
Tensors recurrent(const NodeContext &node, int64_t gates) {
  bool lstm = gates == 4, gru = gates == 3;
  int64_t hidden = node.attribute("hidden_size", int64_t(0));
  bool batchFirst = node.attribute("layout", int64_t(0)) != 0;
  std::string direction = node.attribute("direction", std::string("forward"));
  if (node.hasAttribute("clip"))
    node.fail("clip is not supported");
  if (lstm && node.attribute("input_forget", int64_t(0)))
    node.fail("input_forget = 1 is not supported");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    node.fail("direction '" + direction + "' is not supported");
  Tensor x = node.input(0);
  if (batchFirst)
    x = transpose(x, {1, 0, 2});
  int64_t steps = x.shape()[0], batch = x.shape()[1], inputs = x.shape()[2];
  int64_t directions = direction == "bidirectional" ? 2 : 1;
  if (node.has(4)) {
    for (int64_t length : node.integers(4))
      if (length != steps)
        node.fail("sequence_lens shorter than the sequence is not supported");
  }
  // Activations: per direction f, g (and h for LSTM).
  std::vector<std::string> names;
  for (const auto &attribute : node.node.attribute())
    if (attribute.name() == "activations")
      for (const std::string &name : attribute.strings())
        names.push_back(name);
  std::vector<std::string> defaults =
      lstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
      : gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
            : std::vector<std::string>{"Tanh"};
  auto activation = [&](int64_t d, size_t which) {
    size_t at = d * defaults.size() + which;
    std::string name = at < names.size() ? names[at] : defaults[which];
    if (name == "Sigmoid")
      return +[](const Tensor &v) { return sigmoid(v); };
    if (name == "Tanh")
      return +[](const Tensor &v) { return tanh(v); };
    if (name == "Relu")
      return +[](const Tensor &v) { return relu(v); };
    node.fail("activation '" + name + "' is not supported");
  };
  // Direction d's rows [row, row + rows) of a weight [directions, rows,
  // columns], transposed: [columns, rows].
  auto block = [](const Tensor &m, int64_t d, int64_t row, int64_t rows) {
    Tensor part = slice(m, {d, row, 0}, {d + 1, row + rows, m.shape()[2]});
    return transpose(reshape(part, {rows, m.shape()[2]}), {1, 0});
  };
  auto bias = [&](int64_t d, int64_t offset, int64_t size) {
    Tensor b = node.input(3);
    return reshape(slice(b, {d, offset}, {d + 1, offset + size}), {size});
  };
  auto state = [&](size_t input, int64_t d) {
    if (!node.has(input))
      return zeros({batch, hidden}, x.dtype());
    // [directions, batch, hidden], or [batch, directions, hidden] in the
    // batch-first layout (as Y_h and Y_c are).
    Tensor s = node.input(input);
    if (batchFirst)
      s = transpose(s, {1, 0, 2});
    return reshape(slice(s, {d, 0, 0}, {d + 1, batch, hidden}),
                   {batch, hidden});
  };
  auto gate = [&](const Tensor &all, int64_t k) {
    return slice(all, {0, k * hidden}, {batch, (k + 1) * hidden});
  };
  const Tensor &w = node.input(1), &r = node.input(2);
  bool linearBeforeReset =
      gru && node.attribute("linear_before_reset", int64_t(0)) != 0;
  // The gates whose state part is one product with the state (a GRU's
  // candidate gate multiplies the reset state first, unless linear before
  // reset).
  int64_t joint = gru && !linearBeforeReset ? 2 : gates;
  std::vector<Tensor> ys, lastH, lastC;
  for (int64_t d = 0; d < directions; ++d) {
    bool backwards = direction == "reverse" || d == 1;
    auto f = activation(d, 0);
    auto g = lstm || gru ? activation(d, 1) : f;
    auto h = lstm ? activation(d, 2) : f;
    // The input's part of every gate at every step: one product, [steps,
    // batch, gates * hidden], with the input biases, and the joint gates'
    // state biases too (as ONNX Runtime adds them): once, not once a step
    // in a loop nest of its own. A GRU that is linear before reset
    // multiplies its candidate's state bias by the reset gate: it keeps
    // its state biases in the steps.
    bool stateBiasesFolded = node.has(3) && !linearBeforeReset;
    Tensor inputParts = matmul(reshape(x, {steps * batch, inputs}),
                               block(w, d, 0, gates * hidden));
    if (node.has(3)) {
      Tensor biases = bias(d, 0, gates * hidden);
      if (stateBiasesFolded) {
        Tensor joined = slice(biases, {0}, {joint * hidden}) +
                        bias(d, gates * hidden, joint * hidden);
        biases = joint == gates
                     ? joined
                     : concat({joined, slice(biases, {joint * hidden},
                                             {gates * hidden})},
                              0);
      }
      inputParts = inputParts + biases;
    }
    inputParts = reshape(inputParts, {steps, batch, gates * hidden});
    // The state's weights: the joint gates' in one matrix, and a GRU's
    // candidate gate's alone.
    Tensor rJoint = block(r, d, 0, joint * hidden);
    Tensor bJoint = node.has(3) && !stateBiasesFolded
                        ? bias(d, gates * hidden, joint * hidden)
                        : Tensor();
    Tensor rLast =
        joint < gates ? block(r, d, joint * hidden, hidden) : Tensor();
    Tensor bLast = joint < gates && node.has(3)
                       ? bias(d, (gates + joint) * hidden, hidden)
                       : Tensor();
    auto stateParts = [&](const Tensor &ht) {
      Tensor v = matmul(ht, rJoint);
      return bJoint.defined() ? v + bJoint : v;
    };
    Tensor ht = state(5, d), ct = lstm ? state(6, d) : Tensor();
    std::vector<Tensor> peepholes;
    if (lstm && node.has(7))
      for (int64_t k = 0; k < 3; ++k)
        peepholes.push_back(reshape(
            slice(node.input(7), {d, k * hidden}, {d + 1, (k + 1) * hidden}),
            {hidden}));
    // One step: the next state from the input's part of every gate, `xs`
    // [batch, gates * hidden], and the state (ht, ct).
    auto step = [&](const Tensor &xs, Tensor &ht, Tensor &ct) {
      Tensor hs = stateParts(ht);
      auto pre = [&](int64_t k) { return gate(xs, k) + gate(hs, k); };
      if (lstm) { // Gates in the order i, o, f, c.
        Tensor gi = pre(0), go = pre(1), gf = pre(2), gc = pre(3);
        if (!peepholes.empty()) {
          gi = gi + peepholes[0] * ct;
          gf = gf + peepholes[2] * ct;
        }
        Tensor i = f(gi), forget = f(gf), candidate = g(gc);
        ct = forget * ct + i * candidate;
        if (!peepholes.empty())
          go = go + peepholes[1] * ct;
        ht = f(go) * h(ct);
      } else if (gru) { // Gates z, r, h.
        Tensor z = f(pre(0));
        Tensor reset = f(pre(1));
        Tensor candidate;
        if (linearBeforeReset) {
          candidate = g(gate(xs, 2) + reset * gate(hs, 2));
        } else {
          Tensor v = matmul(reset * ht, rLast);
          candidate = g(gate(xs, 2) + (bLast.defined() ? v + bLast : v));
        }
        ht = (constant(1, z) - z) * candidate + z * ht;
      } else {
        ht = f(pre(0));
      }
    };
    if (GradientTape::anyRecording()) {
      // Unrolled for a tape: a loop's gradient would keep every iteration's
      // carried values, the whole output included.
      std::vector<Tensor> outputs(steps);
      for (int64_t s = 0; s < steps; ++s) {
        int64_t t = backwards ? steps - 1 - s : s;
        step(reshape(
                 slice(inputParts, {t, 0, 0}, {t + 1, batch, gates * hidden}),
                 {batch, gates * hidden}),
             ht, ct);
        outputs[t] = reshape(ht, {1, 1, batch, hidden});
      }
      ys.push_back(concat(outputs, 0));
    } else {
      // A loop: the step is recorded and compiled once, whatever the
      // sequence's length. Carried: the step s, the output, the state.
      std::vector<Tensor> initial{full({}, int64_t(0), DType::Int64),
                                  zeros({steps, batch, hidden}, x.dtype()), ht};
      if (lstm)
        initial.push_back(ct);
      std::vector<Tensor> final = whileLoop(
          [&](const std::vector<Tensor> &carried) {
            return At(carried[0]) < Scalar(steps);
          },
          [&](const std::vector<Tensor> &carried) {
            const Tensor &s = carried[0];
            Tensor t = backwards ? full({}, steps - 1, DType::Int64) - s : s;
            Tensor hNext = carried[2], cNext = lstm ? carried[3] : Tensor();
            step(rowAt(inputParts, t), hNext, cNext);
            std::vector<Tensor> next{At(s) + Scalar(int64_t(1)),
                                     replaceRowAt(carried[1], t, hNext), hNext};
            if (lstm)
              next.push_back(cNext);
            return next;
          },
          initial);
      ht = final[2];
      if (lstm)
        ct = final[3];
      ys.push_back(reshape(final[1], {steps, 1, batch, hidden}));
    }
    lastH.push_back(reshape(ht, {1, batch, hidden}));
    if (lstm)
      lastC.push_back(reshape(ct, {1, batch, hidden}));
  }
  Tensor y = concat(ys, 1);     // [steps, directions, batch, hidden]
  Tensor yh = concat(lastH, 0); // [directions, batch, hidden]
  Tensor yc = lstm ? concat(lastC, 0) : Tensor();
  if (batchFirst) {
    y = transpose(y, {2, 0, 1, 3});
    yh = transpose(yh, {1, 0, 2});
    if (lstm)
      yc = transpose(yc, {1, 0, 2});
  }
  return lstm ? Tensors{y, yh, yc} : Tensors{y, yh};
}

} // namespace

int64_t lazyc::onnx::detail::normalizeAxis(const NodeContext &node,
                                           int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    node.fail("axis " + std::to_string(axis) + " is out of range for rank " +
              std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

Tensor lazyc::onnx::detail::statisticsOf(const NodeContext &node,
                                         const Tensor &x) {
  int64_t stash = node.attribute("stash_type", int64_t(1));
  if (stash != 1)
    node.fail("stash_type " + std::to_string(stash) +
              " is not supported (1, Float32, is)");
  bool narrow = x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16;
  return narrow ? cast(x, DType::Float32) : x;
}

const std::map<std::string, Kernel> &lazyc::onnx::detail::kernels() {
  static const std::map<std::string, Kernel> table = [] {
    std::map<std::string, Kernel> k;
    // Elementwise, one input.
    k["Abs"] = unary(abs);
    k["Exp"] = unary(exp);
    k["Log"] = unary(log);
    k["Sqrt"] = unary(sqrt);
    k["Relu"] = unary(relu);
    k["Sigmoid"] = unary(sigmoid);
    k["Tanh"] = unary(tanh);
    k["Sin"] = unary(sin);
    k["Cos"] = unary(cos);
    k["Erf"] = unary(erf);
    k["Asin"] = unary(asin);
    k["Acos"] = unary(acos);
    k["Atan"] = unary(atan);
    k["Softplus"] = unary(softplus);
    k["Neg"] = unaryOf([](const Tensor &x) { return -x; });
    k["Reciprocal"] =
        unaryOf([](const Tensor &x) { return constant(1, x) / x; });
    k["Identity"] = unaryOf([](const Tensor &x) { return x; });
    k["Not"] = unaryOf([](const Tensor &x) { return logicalNot(x); });
    k["Sign"] = unaryOf(sign);
    k["Floor"] = unaryOf(floorOf);
    k["Ceil"] = unaryOf([](const Tensor &x) { return -floorOf(-x); });
    k["Tan"] = unaryOf([](const Tensor &x) { return sin(x) / cos(x); });
    k["Sinh"] = unaryOf([](const Tensor &x) { return hyperbolic(x, -1); });
    k["Cosh"] = unaryOf([](const Tensor &x) { return hyperbolic(x, 1); });
    k["Asinh"] = unaryOf(
        [](const Tensor &x) { return log(x + sqrt(x * x + constant(1, x))); });
    k["Acosh"] = unaryOf(
        [](const Tensor &x) { return log(x + sqrt(x * x - constant(1, x))); });
    k["Atanh"] = unaryOf([](const Tensor &x) {
      return log((constant(1, x) + x) / (constant(1, x) - x)) *
             constant(0.5, x);
    });
    k["IsNaN"] = unaryOf([](const Tensor &x) { return x != x; });
    k["Softsign"] =
        unaryOf([](const Tensor &x) { return x / (constant(1, x) + abs(x)); });
    k["Mish"] = unaryOf([](const Tensor &x) { return x * tanh(softplus(x)); });
    k["Gelu"] = [](const NodeContext &node) {
      const Tensor &x = node.input(0);
      std::string approximate =
          node.attribute("approximate", std::string("none"));
      Tensor half = constant(0.5, x), one1 = constant(1, x);
      if (approximate == "none")
        return one(half * x *
                   (one1 + erf(x * constant(1 / std::numbers::sqrt2, x))));
      if (approximate != "tanh")
        node.fail("approximate '" + approximate + "' is not supported");
      Tensor inner = constant(std::sqrt(2 / std::numbers::pi), x) *
                     (x + constant(0.044715, x) * x * x * x);
      return one(half * x * (one1 + tanh(inner)));
    };
    k["Swish"] = [](const NodeContext &node) {
      const Tensor &x = node.input(0);
      return one(x * sigmoid(x * constant(node.attribute("alpha", 1.0), x)));
    };
    k["LpNormalization"] = [](const NodeContext &node) {
      const Tensor &x = node.input(0);
      int64_t axis =
          normalizeAxis(node, node.attribute("axis", int64_t(-1)), x.rank());
      int64_t p = node.attribute("p", int64_t(2));
      if (p != 1 && p != 2)
        node.fail("p = " + std::to_string(p) +
                  " is not supported (1 and 2 are)");
      Tensor norm =
          p == 1 ? sum(abs(x), {axis}, true) : sqrt(sum(x * x, {axis}, true));
      // A zero norm gives 0, not 0 / 0 (ONNX's reference).
      Tensor zero = constant(0, norm);
      return one(where(norm == zero, constant(0, x), x / norm));
    };
    k["HardSwish"] = unaryOf([](const Tensor &x) {
      return x * minimum(maximum(x / constant(6, x) + constant(0.5, x),
                                 constant(0, x)),
                         constant(1, x));
    });
    k["LeakyRelu"] = [](const NodeContext &node) {
      const Tensor &x = node.input(0);
      double alpha = node.attribute("alpha", 0.01);
      return one(where(x < constant(0, x), x * constant(alpha, x), x));
    };
    k["Elu"] = [](const NodeContext &node) {
      const Tensor &x = node.input(0);
      double alpha = node.attribute("alpha", 1.0);
      return one(where(x < constant(0, x),
                       (exp(x) - constant(1, x)) * constant(alpha, x), x));
    };
    k["Celu"] = [](const NodeContext &node) {
      const Tensor &x = node.input(0);
      Tensor alpha = constant(node.attribute("alpha", 1.0), x);
      return one(
          maximum(x, constant(0, x)) +
          minimum(constant(0, x), alpha * (exp(x / alpha) - constant(1, x))));
    };
    k["Selu"] = [](const NodeContext &node) {
      const Tensor &x = node.input(0);
      double alpha = node.attribute("alpha", 1.67326319217681884765625);
      double gamma = node.attribute("gamma", 1.05070102214813232421875);
      return one(where(x <= constant(0, x),
                       (exp(x) * constant(alpha, x) - constant(alpha, x)), x) *
                 constant(gamma, x));
    };
    k["ThresholdedRelu"] = [](const NodeContext &node) {
      const Tensor &x = node.input(0);
      double alpha = node.attribute("alpha", 1.0);
      return one(where(x > constant(alpha, x), x, constant(0, x)));
    };
    k["HardSigmoid"] = [](const NodeContext &node) {
      const Tensor &x = node.input(0);
      double alpha = node.attribute("alpha", 0.2),
             beta = node.attribute("beta", 0.5);
      return one(minimum(
          maximum(x * constant(alpha, x) + constant(beta, x), constant(0, x)),
          constant(1, x)));
    };
    k["PRelu"] = [](const NodeContext &node) {
      const Tensor &x = node.input(0);
      Tensor slope = node.input(1);
      // Before opset 7 a slope of one value per channel broadcasts along
      // axis 1, not along the last axis.
      if (node.opset() < 7 && slope.rank() == 1 && x.rank() > 2 &&
          slope.numel() == x.shape()[1])
        slope = perChannel(slope, x.rank());
      return one(where(x < constant(0, x), x * slope, x));
    };
    k["Clip"] = clip;
    k["Cast"] = castKernel;
    k["BitCast"] = bitcastKernel;
    k["CastLike"] = [](const NodeContext &node) {
      return one(cast(node.input(0), node.input(1).dtype()));
    };
    // Elementwise, two or more inputs.
    k["Add"] = binary([](const Tensor &a, const Tensor &b) { return a + b; });
    k["Sub"] = binary([](const Tensor &a, const Tensor &b) { return a - b; });
    k["Mul"] = binary([](const Tensor &a, const Tensor &b) { return a * b; });
    k["Div"] = binary(divide);
    k["Pow"] = binary(powKernel);
    k["Mod"] = [](const NodeContext &node) {
      const Tensor &a = node.input(0), &b = node.input(1);
      return one(node.attribute("fmod", int64_t(0)) ? fmodOf(a, b) : mod(a, b));
    };
    k["Equal"] =
        binary([](const Tensor &a, const Tensor &b) { return a == b; });
    k["Less"] = binary([](const Tensor &a, const Tensor &b) { return a < b; });
    k["LessOrEqual"] =
        binary([](const Tensor &a, const Tensor &b) { return a <= b; });
    k["Greater"] =
        binary([](const Tensor &a, const Tensor &b) { return a > b; });
    k["GreaterOrEqual"] =
        binary([](const Tensor &a, const Tensor &b) { return a >= b; });
    k["And"] = binary(
        [](const Tensor &a, const Tensor &b) { return logicalAnd(a, b); });
    k["Or"] = binary(
        [](const Tensor &a, const Tensor &b) { return logicalOr(a, b); });
    k["Xor"] = binary(
        [](const Tensor &a, const Tensor &b) { return logicalXor(a, b); });
    k["Max"] = variadic(
        [](const Tensor &a, const Tensor &b) { return maximum(a, b); });
    k["Min"] = variadic(
        [](const Tensor &a, const Tensor &b) { return minimum(a, b); });
    k["Sum"] = variadic([](const Tensor &a, const Tensor &b) { return a + b; });
    k["Mean"] = variadic([](const Tensor &a, const Tensor &b) { return a + b; },
                         /*mean=*/true);
    k["BitwiseAnd"] = binary(
        [](const Tensor &a, const Tensor &b) { return bitwiseAnd(a, b); });
    k["BitwiseOr"] = binary(
        [](const Tensor &a, const Tensor &b) { return bitwiseOr(a, b); });
    k["BitwiseXor"] = binary(
        [](const Tensor &a, const Tensor &b) { return bitwiseXor(a, b); });
    k["BitwiseNot"] = unaryOf([](const Tensor &x) { return bitwiseNot(x); });
    k["Where"] = whereKernel;
    // Optionals are not values in lazyc: an input is a tensor or left out.
    k["OptionalHasElement"] = [](const NodeContext &node) {
      return one(full({}, node.has(0) ? 1 : 0, DType::Bool));
    };
    k["OptionalGetElement"] = [](const NodeContext &node) {
      return one(node.input(0));
    };
    // Products, reductions, normalization.
    k["MatMul"] = binary(matrixProduct);
    k["Gemm"] = gemm;
    auto plain =
        [](Tensor (*f)(const Tensor &, std::vector<int64_t>, bool, Where)) {
          return [f](const Tensor &x, std::vector<int64_t> axes, bool keep) {
            return f(x, std::move(axes), keep, Where::current());
          };
        };
    k["ReduceSum"] = reduction(13, plain(sum));
    k["ReduceMean"] = reduction(18, plain(mean));
    // Of Bool (opset 20): any and all.
    k["ReduceMax"] = reduction(18, [](const Tensor &x, auto axes, bool keep) {
      return x.dtype() == DType::Bool ? any(x, axes, keep) : max(x, axes, keep);
    });
    k["ReduceMin"] = reduction(18, [](const Tensor &x, auto axes, bool keep) {
      return x.dtype() == DType::Bool ? all(x, axes, keep) : min(x, axes, keep);
    });
    k["ReduceL1"] = reduction(18, [](const Tensor &x, auto axes, bool keep) {
      return sum(abs(x), axes, keep);
    });
    k["ReduceL2"] = reduction(18, [](const Tensor &x, auto axes, bool keep) {
      return sqrt(sum(x * x, axes, keep));
    });
    k["ReduceSumSquare"] =
        reduction(18, [](const Tensor &x, auto axes, bool keep) {
          return sum(x * x, axes, keep);
        });
    k["ReduceLogSum"] =
        reduction(18, [](const Tensor &x, auto axes, bool keep) {
          return log(sum(x, axes, keep));
        });
    k["ReduceLogSumExp"] = reduction(18, logSumExp);
    k["ArgMax"] = [](const NodeContext &node) { return argKernel(node, true); };
    k["ArgMin"] = [](const NodeContext &node) {
      return argKernel(node, false);
    };
    k["TopK"] = topkKernel;
    k["CumSum"] = cumsumKernel;
    k["CumProd"] = cumprodKernel;
    k["Softmax"] = softmaxKernel(false);
    k["LogSoftmax"] = softmaxKernel(true);
    k["BatchNormalization"] = batchNormalization;
    k["InstanceNormalization"] = instanceNormalization;
    k["GroupNormalization"] = groupNormalization;
    k["LayerNormalization"] = layerNormalization;
    k["Conv"] = conv;
    k["MaxPool"] = [](const NodeContext &node) { return pool(node, true); };
    k["AveragePool"] = [](const NodeContext &node) {
      return pool(node, false);
    };
    k["GlobalMaxPool"] = [](const NodeContext &node) {
      return globalPool(node, true);
    };
    k["GlobalAveragePool"] = [](const NodeContext &node) {
      return globalPool(node, false);
    };
    k["LpPool"] = lpPool;
    k["GlobalLpPool"] = [](const NodeContext &node) {
      const Tensor &x = node.input(0);
      double p = double(node.attribute("p", int64_t(2)));
      std::vector<int64_t> axes;
      for (int64_t d = 2; d < x.rank(); ++d)
        axes.push_back(d);
      return one(pow(sum(pow(abs(x), constant(p, x)), axes, true),
                     constant(1.0 / p, x)));
    };
    k["Dropout"] = dropout;
    // Shapes and data movement.
    k["Reshape"] = reshapeKernel;
    k["Flatten"] = flatten;
    k["Squeeze"] = squeeze;
    k["Unsqueeze"] = unsqueeze;
    k["Transpose"] = transposeKernel;
    k["Concat"] = concatKernel;
    k["Split"] = split;
    k["Slice"] = sliceKernel;
    k["Gather"] = gatherKernel;
    k["GatherElements"] = gatherElements;
    k["Expand"] = expand;
    k["Tile"] = tile;
    k["Shape"] = shapeKernel;
    k["Size"] = [](const NodeContext &node) {
      return one(full({}, double(node.input(0).numel()), DType::Int64));
    };
    k["Constant"] = constantKernel;
    k["ConstantOfShape"] = constantOfShape;
    k["Range"] = range;
    k["Einsum"] = einsum;
    k["RNN"] = [](const NodeContext &node) { return recurrent(node, 1); };
    k["GRU"] = [](const NodeContext &node) { return recurrent(node, 3); };
    k["LSTM"] = [](const NodeContext &node) { return recurrent(node, 4); };
    k["ReduceProd"] = reduction(18, productOf);
    k["Compress"] = compress;
    k["ReverseSequence"] = reverseSequence;
    k["GridSample"] = gridSample;
    k["AffineGrid"] = affineGrid;
    k["RoiAlign"] = roiAlign;
    k["RandomUniform"] = [](const NodeContext &node) {
      return randomOp(node, true, false);
    };
    k["RandomNormal"] = [](const NodeContext &node) {
      return randomOp(node, false, false);
    };
    k["RandomUniformLike"] = [](const NodeContext &node) {
      return randomOp(node, true, true);
    };
    k["RandomNormalLike"] = [](const NodeContext &node) {
      return randomOp(node, false, true);
    };
    k["Bernoulli"] = bernoulli;
    k["NonMaxSuppression"] = nonMaxSuppression;
    k["MaxUnpool"] = maxUnpool;
    k["Det"] = det;
    k["BitShift"] = bitShift;
    k["NonZero"] = nonZero;
    k["Unique"] = unique;
    k["GatherND"] = gatherND;
    k["ScatterElements"] = scatterElements;
    k["Scatter"] = scatterElements;
    k["ScatterND"] = scatterND;
    k["ConvTranspose"] = convTranspose;
    k["Col2Im"] = col2im;
    k["DeformConv"] = deformConv;
    k["Resize"] = [](const NodeContext &node) { return resize(node, false); };
    k["Upsample"] = [](const NodeContext &node) { return resize(node, true); };
    k["LRN"] = localResponseNormalization;
    k["NegativeLogLikelihoodLoss"] = negativeLogLikelihoodLoss;
    k["SoftmaxCrossEntropyLoss"] = softmaxCrossEntropyLoss;
    k["Trilu"] = trilu;
    k["Hardmax"] = hardmax;
    k["Round"] = unaryOf(roundHalfEven);
    k["OneHot"] = oneHot;
    k["IsInf"] = isInf;
    k["EyeLike"] = eyeLike;
    k["Pad"] = pad;
    k["CenterCropPad"] = centerCropPad;
    k["Shrink"] = shrink;
    k["MeanVarianceNormalization"] = meanVarianceNormalization;
    addTrainingKernels(k);
    addSignalKernels(k);
    addQuantizedKernels(k);
    addAttentionKernels(k);
    addMlKernels(k);
    k["DepthToSpace"] = [](const NodeContext &node) {
      return depthToSpace(node, true);
    };
    k["SpaceToDepth"] = [](const NodeContext &node) {
      return depthToSpace(node, false);
    };
    return k;
  }();
  return table;
}
