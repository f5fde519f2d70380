//===- Conv.cpp - Convolution and pooling ---------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// conv2d with one group is one lazy.conv2d op over the padded input (the
// input is padded by concatenating constant bands), which the CPU pipeline
// runs as register-blocked direct convolution; its gradients are
// convolutions too (lib/API/Autodiff.cpp). Grouped convolutions are im2col
// plus GEMM out of recorded primitives: each kernel tap is one strided
// slice of the padded input, the taps are concatenated into the column
// matrix, and one matmul batched over the groups multiplies it with the
// filters. Under a recording GradientTape the columns come from one
// indexSelect, whose gradient (a scatterAdd) is much cheaper than the
// slices'. Pooling reduces the same tap slices with maximum or a sum;
// windows that tile the image (stride = kernel, no padding) are one
// reduction over a reshape instead, whose gradient is a broadcast.
//
//===----------------------------------------------------------------------===//

#include "lazyc/NN/Layers.h"

#include "LayerChecks.h"

#include "lazyc/API/Autocast.h"
#include "lazyc/API/Autodiff.h"

#include <algorithm>
#include <limits>
#include <vector>

using namespace lazyc;
using namespace lazyc::nn;
using lazyc::nn::detail::describe;

namespace {

std::string pairText(Size2 pair) {
  return "(" + std::to_string(pair.height) + ", " + std::to_string(pair.width) +
         ")";
}

/// x [N, C, H, W] with `padding` bands of `value` on each side of H and W.
/// x enters each concatenation as x + 0.0, a loop (no fold removes it: it
/// turns -0.0 into +0.0) that writes into its place in the padded buffer:
/// x itself, when it is a buffer, would be copied there by a strided
/// memref.copy, which the runtime does element by element, many times
/// slower. When x comes from another loop the addition fuses into it.
Tensor padSpatial(const Tensor &x, Size2 padding, double value, Where where) {
  if (padding.height == 0 && padding.width == 0)
    return x;
  Tensor padded = x;
  for (int64_t axis : {2, 3}) {
    int64_t size = axis == 2 ? padding.height : padding.width;
    if (size == 0)
      continue;
    Shape shape = padded.shape();
    shape[axis] = size;
    Tensor band = full(shape, Scalar(value, where), x.dtype());
    // The rows padded before enter as a loop too, not a strided copy.
    padded = concat({band, At(padded, where) + 0.0, band}, axis, where);
  }
  return padded;
}

/// The output size of a window sweep over `size` input pixels.
int64_t sweptSize(int64_t size, int64_t padding, int64_t kernel,
                  int64_t dilation, int64_t stride) {
  int64_t reach = dilation * (kernel - 1) + 1;
  int64_t room = size + 2 * padding - reach;
  return room < 0 ? 0 : room / stride + 1;
}

/// The tap (i, j) of a window sweep over padded [N, C, Hp, Wp]: the pixels
/// (i dh + y sh, j dw + x sw) for every output position (y, x), as
/// [N, C, OH, OW].
Tensor tap(const Tensor &padded, int64_t i, int64_t j, Size2 dilation,
           Size2 stride, int64_t outHeight, int64_t outWidth, Where where) {
  const Shape &shape = padded.shape();
  int64_t top = i * dilation.height, left = j * dilation.width;
  return slice(padded, {0, 0, top, left},
               {shape[0], shape[1], top + (outHeight - 1) * stride.height + 1,
                left + (outWidth - 1) * stride.width + 1},
               {1, 1, stride.height, stride.width}, where);
}

void checkPositive(const char *op, const char *what, Size2 pair, Where where) {
  if (pair.height < 1 || pair.width < 1)
    throw Error(op,
                std::string(what) + " must be positive, got " + pairText(pair),
                where);
}

/// x as [N, C, H, W] (a [C, H, W] input gets N = 1) for a layer that takes
/// images; sets `unbatched` for the caller to drop N again.
Tensor imagesOf(const Tensor &x, const char *op, bool &unbatched, Where where) {
  nn::detail::requireFloat(x, op, "the input", where);
  if (x.rank() != 4 && x.rank() != 3)
    throw Error(op,
                "needs an [N, C, H, W] or [C, H, W] input, got " + describe(x),
                where);
  unbatched = x.rank() == 3;
  if (!unbatched)
    return x;
  Shape shape = x.shape();
  shape.insert(shape.begin(), 1);
  return reshape(x, shape, where);
}

Tensor unbatch(const Tensor &y, bool unbatched, Where where) {
  if (!unbatched)
    return y;
  Shape shape = y.shape();
  shape.erase(shape.begin());
  return reshape(y, shape, where);
}

} // namespace

namespace {

/// out [N, C, H, W] + bias [C]; under autocast in the dtype autocast gave
/// the product.
Tensor addBias(const Tensor &out, const Tensor &bias, Where where) {
  Tensor channels = lazyc::detail::autocastBias(bias, out, where);
  return At(out, where) + reshape(channels, {1, out.shape()[1], 1, 1}, where);
}

/// Grouped conv2d of the padded images [N, C, Hp, Wp] with im2col as one
/// indexSelect: columns [N, C, kH kW, OH OW] transposed to
/// [C, kH kW, N, OH OW], then the product per group, NCHW and the bias.
Tensor gatheredConv(const Tensor &padded, const Tensor &weight,
                    const Tensor &bias, const Conv2dOptions &options,
                    int64_t outHeight, int64_t outWidth, Where where) {
  const Shape &ps = padded.shape(), &ws = weight.shape();
  int64_t batch = ps[0], channels = ps[1], outChannels = ws[0];
  int64_t kernelHeight = ws[2], kernelWidth = ws[3], groups = options.groups;
  int64_t taps = kernelHeight * kernelWidth, pixels = outHeight * outWidth;
  std::vector<int32_t> positions;
  positions.reserve(taps * pixels);
  for (int64_t i = 0; i < kernelHeight; ++i)
    for (int64_t j = 0; j < kernelWidth; ++j)
      for (int64_t y = 0; y < outHeight; ++y)
        for (int64_t x = 0; x < outWidth; ++x)
          positions.push_back(static_cast<int32_t>(
              (y * options.stride.height + i * options.dilation.height) *
                  ps[3] +
              x * options.stride.width + j * options.dilation.width));
  Tensor picked =
      indexSelect(reshape(padded, {batch, channels, ps[2] * ps[3]}, where), 2,
                  Tensor::fromVector(positions, {taps, pixels}, where), where);
  Tensor cols = transpose(picked, {1, 2, 0, 3}, where);
  int64_t groupK = channels / groups * taps, outGroup = outChannels / groups;
  Tensor product =
      matmul(reshape(weight, {groups, outGroup, groupK}, where),
             reshape(cols, {groups, groupK, batch * pixels}, where), where);
  Tensor out = transpose(
      reshape(product, {outChannels, batch, outHeight, outWidth}, where),
      {1, 0, 2, 3}, where);
  if (bias.defined())
    out = addBias(out, bias, where);
  return out;
}

} // namespace

Tensor nn::conv2d(const Tensor &input, const Tensor &weight, const Tensor &bias,
                  Conv2dOptions options, Where where) {
  const char *op = "conv2d";
  bool unbatched = false;
  Tensor x = imagesOf(input, op, unbatched, where);
  nn::detail::requireFloat(weight, op, "the weight", where);
  if (weight.rank() != 4)
    throw Error(op,
                "needs a weight [outC, C / groups, kH, kW], got " +
                    describe(weight),
                where);
  checkPositive(op, "the stride", options.stride, where);
  checkPositive(op, "the dilation", options.dilation, where);
  if (options.padding.height < 0 || options.padding.width < 0)
    throw Error(op,
                "the padding must not be negative, got " +
                    pairText(options.padding),
                where);
  int64_t groups = options.groups;
  const Shape &xs = x.shape(), &ws = weight.shape();
  int64_t batch = xs[0], channels = xs[1], outChannels = ws[0];
  int64_t kernelHeight = ws[2], kernelWidth = ws[3];
  if (groups < 1 || channels % groups != 0 || outChannels % groups != 0)
    throw Error(op,
                "groups = " + std::to_string(groups) +
                    " must be positive and divide the input channels (" +
                    std::to_string(channels) + ") and the output channels (" +
                    std::to_string(outChannels) + ")",
                where);
  int64_t groupChannels = channels / groups;
  if (ws[1] != groupChannels)
    throw Error(op,
                "the input " + shapeText(xs) + " has " +
                    std::to_string(channels) + " channels, so the weight " +
                    shapeText(ws) + " needs " + std::to_string(groupChannels) +
                    " in dimension 1 (C / groups with groups = " +
                    std::to_string(groups) + ")",
                where);
  nn::detail::requireOptional(bias, {outChannels}, op, "the bias", where);
  int64_t outHeight = sweptSize(xs[2], options.padding.height, kernelHeight,
                                options.dilation.height, options.stride.height);
  int64_t outWidth = sweptSize(xs[3], options.padding.width, kernelWidth,
                               options.dilation.width, options.stride.width);
  if (outHeight < 1 || outWidth < 1 || kernelHeight < 1 || kernelWidth < 1)
    throw Error(op,
                "the kernel " + shapeText(ws) + " (dilation " +
                    pairText(options.dilation) +
                    ") does not fit the padded input " + shapeText(xs) +
                    " (padding " + pairText(options.padding) + ")",
                where);

  Size2 stride = options.stride, dilation = options.dilation;
  int64_t taps = kernelHeight * kernelWidth, pixels = outHeight * outWidth;
  // One group: the convolution op, padding included, which the CPU pipeline
  // runs as register-blocked direct convolution (lazy-cpu-direct-
  // convolution) over images it pads while laying them out for the kernel,
  // and whose gradients are convolutions too. Faster than im2col plus a
  // GEMM and than summing tap slices, forward and backward, on every layer
  // measured (docs/benchmarks.md).
  if (groups == 1) {
    Size2 padding = options.padding;
    Tensor out = lazyc::conv2d(
        x, weight, {stride.height, stride.width},
        {dilation.height, dilation.width},
        {padding.height, padding.height, padding.width, padding.width}, where);
    if (bias.defined())
      out = addBias(out, bias, where);
    return unbatch(out, unbatched, where);
  }
  // Groups: under a recording GradientTape the columns are one indexSelect of
  // the flattened images at the taps' pixel positions: its gradient is one
  // scatterAdd, where the gradient of kH kW slices is kH kW zero-padding
  // concatenations that run as strided copies (forward and backward
  // together 1.7-4x slower, docs/benchmarks.md). Without a tape the slices
  // are faster.
  Tensor padded = padSpatial(x, options.padding, 0.0, where);
  if (GradientTape::anyRecording())
    return unbatch(
        gatheredConv(padded, weight, bias, options, outHeight, outWidth, where),
        unbatched, where);
  // Columns [C, kH kW, N, OH, OW]: tap (i, j) of channel c for every
  // output pixel, so that K = (c, i, j) matches the weight's
  // [outC, C, kH, kW] layout and the product's rows come out as
  // [outC, N, OH, OW], one transpose of whole images away from NCHW. Each
  // tap is a strided slice of the padded input, seen as [N, C, 1, Hp, Wp],
  // transposed to [C, 1, N, OH, OW]: the transpose is a loop that reads the
  // slice in place and writes straight into its part of the concatenation.
  // Measured (docs/benchmarks.md): reshaping each slice before the
  // concatenation instead made every tap a strided memref.copy, which the
  // runtime does element by element (about 20x slower in all); slicing
  // whole padded rows for stride 1 (longer vectors, but a wider product and
  // one more copy) was slower too.
  const Shape &ps = padded.shape();
  Tensor images = reshape(padded, {batch, channels, 1, ps[2], ps[3]}, where);
  std::vector<Tensor> columns;
  columns.reserve(taps);
  for (int64_t i = 0; i < kernelHeight; ++i)
    for (int64_t j = 0; j < kernelWidth; ++j) {
      int64_t top = i * dilation.height, left = j * dilation.width;
      Tensor window =
          slice(images, {0, 0, 0, top, left},
                {batch, channels, 1, top + (outHeight - 1) * stride.height + 1,
                 left + (outWidth - 1) * stride.width + 1},
                {1, 1, 1, stride.height, stride.width}, where);
      columns.push_back(transpose(window, {1, 2, 0, 3, 4}, where));
    }
  Tensor cols = concat(columns, 1, where);
  int64_t groupK = groupChannels * taps, outGroup = outChannels / groups;
  Tensor product =
      matmul(reshape(weight, {groups, outGroup, groupK}, where),
             reshape(cols, {groups, groupK, batch * pixels}, where), where);
  Tensor out = transpose(
      reshape(product, {outChannels, batch, outHeight, outWidth}, where),
      {1, 0, 2, 3}, where);
  if (bias.defined())
    out = addBias(out, bias, where);
  return unbatch(out, unbatched, where);
}

Tensor nn::conv2d(const Tensor &x, const Tensor &weight, Conv2dOptions options,
                  Where where) {
  return conv2d(x, weight, Tensor(), options, where);
}

namespace {

/// What a pooling layer's checks leave: the padded images and the sweep.
struct Sweep {
  Tensor padded;
  bool unbatched = false;
  Size2 kernel = 1, stride = 1;
  int64_t outHeight = 0, outWidth = 0;
};

Sweep poolSweep(const char *op, const Tensor &input, Size2 kernel, Size2 stride,
                Size2 padding, double padValue, Where where) {
  Sweep sweep;
  Tensor x = imagesOf(input, op, sweep.unbatched, where);
  checkPositive(op, "the kernel", kernel, where);
  sweep.kernel = kernel;
  sweep.stride = stride.height == 0 && stride.width == 0 ? kernel : stride;
  checkPositive(op, "the stride", sweep.stride, where);
  if (padding.height < 0 || padding.width < 0 ||
      2 * padding.height > kernel.height || 2 * padding.width > kernel.width)
    throw Error(op,
                "the padding " + pairText(padding) +
                    " must be between 0 and half the kernel " +
                    pairText(kernel),
                where);
  const Shape &shape = x.shape();
  sweep.outHeight = sweptSize(shape[2], padding.height, kernel.height, 1,
                              sweep.stride.height);
  sweep.outWidth =
      sweptSize(shape[3], padding.width, kernel.width, 1, sweep.stride.width);
  if (sweep.outHeight < 1 || sweep.outWidth < 1)
    throw Error(op,
                "the kernel " + pairText(kernel) +
                    " does not fit the padded input " + shapeText(shape) +
                    " (padding " + pairText(padding) + ")",
                where);
  sweep.padded = padSpatial(x, padding, padValue, where);
  return sweep;
}

/// For windows that tile the image (the stride is the kernel, no padding):
/// the images cut to whole windows as [N, C, OH, kh, OW, kw], so that
/// pooling is one reduction over axes 3 and 5. Its gradient is a broadcast
/// back over each window, not a zero-padded scatter per tap.
Tensor windowsOf(const Sweep &sweep, Where where) {
  const Shape &shape = sweep.padded.shape();
  int64_t height = sweep.outHeight * sweep.kernel.height,
          width = sweep.outWidth * sweep.kernel.width;
  Tensor images = sweep.padded;
  if (height != shape[2] || width != shape[3])
    images = slice(images, {0, 0, 0, 0}, {shape[0], shape[1], height, width},
                   {}, where);
  return reshape(images,
                 {shape[0], shape[1], sweep.outHeight, sweep.kernel.height,
                  sweep.outWidth, sweep.kernel.width},
                 where);
}

bool windowsTile(const Sweep &sweep, Size2 padding) {
  return sweep.stride.height == sweep.kernel.height &&
         sweep.stride.width == sweep.kernel.width && padding.height == 0 &&
         padding.width == 0;
}

} // namespace

Tensor nn::maxPool2d(const Tensor &x, Size2 kernel, Size2 stride, Size2 padding,
                     Where where) {
  Sweep sweep = poolSweep("maxPool2d", x, kernel, stride, padding,
                          -std::numeric_limits<double>::infinity(), where);
  if (windowsTile(sweep, padding))
    return unbatch(max(windowsOf(sweep, where), {3, 5}, false, where),
                   sweep.unbatched, where);
  Tensor result;
  for (int64_t i = 0; i < kernel.height; ++i)
    for (int64_t j = 0; j < kernel.width; ++j) {
      Tensor window = tap(sweep.padded, i, j, 1, sweep.stride, sweep.outHeight,
                          sweep.outWidth, where);
      result = result.defined() ? maximum(result, window, where) : window;
    }
  return unbatch(result, sweep.unbatched, where);
}

Tensor nn::avgPool2d(const Tensor &x, Size2 kernel, Size2 stride, Size2 padding,
                     bool countIncludePad, Where where) {
  Sweep sweep = poolSweep("avgPool2d", x, kernel, stride, padding, 0.0, where);
  if (windowsTile(sweep, padding))
    return unbatch(mean(windowsOf(sweep, where), {3, 5}, false, where),
                   sweep.unbatched, where);
  Tensor total;
  for (int64_t i = 0; i < kernel.height; ++i)
    for (int64_t j = 0; j < kernel.width; ++j) {
      Tensor window = tap(sweep.padded, i, j, 1, sweep.stride, sweep.outHeight,
                          sweep.outWidth, where);
      total = total.defined() ? At(total, where) + window : window;
    }
  Tensor result;
  if (countIncludePad || (padding.height == 0 && padding.width == 0)) {
    result = At(total, where) * (1.0 / double(kernel.height * kernel.width));
  } else {
    // The input pixels in each window, known from the sizes alone.
    const Shape &shape = sweep.padded.shape();
    int64_t height = shape[2] - 2 * padding.height;
    int64_t width = shape[3] - 2 * padding.width;
    std::vector<double> inverse;
    inverse.reserve(sweep.outHeight * sweep.outWidth);
    auto inside = [](int64_t start, int64_t extent, int64_t size) {
      int64_t first = std::max<int64_t>(start, 0);
      int64_t last = std::min<int64_t>(start + extent, size);
      return std::max<int64_t>(last - first, 0);
    };
    for (int64_t y = 0; y < sweep.outHeight; ++y)
      for (int64_t x = 0; x < sweep.outWidth; ++x) {
        int64_t rows = inside(y * sweep.stride.height - padding.height,
                              kernel.height, height);
        int64_t columns =
            inside(x * sweep.stride.width - padding.width, kernel.width, width);
        inverse.push_back(1.0 / double(rows * columns));
      }
    Tensor scale = cast(Tensor::fromVector<double>(
                            inverse, {sweep.outHeight, sweep.outWidth}, where),
                        total.dtype(), where);
    result = At(total, where) * scale;
  }
  return unbatch(result, sweep.unbatched, where);
}
