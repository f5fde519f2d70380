//===- Normalization.cpp - Layer and batch normalization ------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Both normalizations are means and squared deviations over some axes,
// rsqrt, and an affine map; the tape differentiates them through those
// parts. batchNorm's running averages are Variables assigned in the same
// trace as the step, outside every tape.
//
//===----------------------------------------------------------------------===//

#include "lazyc/NN/Layers.h"

#include "LayerChecks.h"

#include "lazyc/API/Autocast.h"
#include "lazyc/API/Autodiff.h"

using namespace lazyc;
using namespace lazyc::nn;
using lazyc::nn::detail::describe;

namespace {

/// y * weight + bias for whichever of them is given.
Tensor affine(Tensor y, const Tensor &weight, const Tensor &bias,
              const Shape &shape, Where where) {
  if (weight.defined())
    y = At(y, where) * reshape(weight, shape, where);
  if (bias.defined())
    y = At(y, where) + reshape(bias, shape, where);
  return y;
}

} // namespace

Tensor nn::layerNorm(const Tensor &input, const Shape &normalizedShape,
                     const Tensor &weight, const Tensor &bias, double eps,
                     Where where) {
  const char *op = "layerNorm";
  nn::detail::requireFloat(input, op, "the input", where);
  Tensor x = lazyc::detail::autocastToFloat32(input, where);
  int64_t count = static_cast<int64_t>(normalizedShape.size());
  bool fits = count >= 1 && count <= x.rank();
  for (int64_t d = 0; fits && d < count; ++d)
    fits = x.shape()[x.rank() - count + d] == normalizedShape[d];
  if (!fits)
    throw Error(op,
                "the normalized shape " + shapeText(normalizedShape) +
                    " must be a nonempty trailing part of the input's " +
                    shapeText(x.shape()),
                where);
  if (!(eps >= 0))
    throw Error(op, "eps must not be negative, got " + std::to_string(eps),
                where);
  nn::detail::requireOptional(weight, normalizedShape, op, "the weight", where);
  nn::detail::requireOptional(bias, normalizedShape, op, "the bias", where);
  std::vector<int64_t> axes;
  for (int64_t d = x.rank() - count; d < x.rank(); ++d)
    axes.push_back(d);
  Tensor mu = mean(x, axes, /*keepDims=*/true, where);
  Tensor centered = At(x, where) - mu;
  Tensor variance =
      mean(At(centered, where) * centered, axes, /*keepDims=*/true, where);
  Tensor y = At(centered, where) * rsqrt(At(variance, where) + eps, where);
  return affine(y, weight, bias, normalizedShape, where);
}

Tensor nn::batchNorm(const Tensor &input, Variable *runningMean,
                     Variable *runningVar, const Tensor &weight,
                     const Tensor &bias, bool training, double momentum,
                     double eps, Where where) {
  const char *op = "batchNorm";
  nn::detail::requireFloat(input, op, "the input", where);
  Tensor x = lazyc::detail::autocastToFloat32(input, where);
  if (x.rank() < 2)
    throw Error(op, "needs an input [N, C, ...], got " + describe(x), where);
  int64_t channels = x.shape()[1];
  Shape channelShape = {channels};
  if (!(eps >= 0))
    throw Error(op, "eps must not be negative, got " + std::to_string(eps),
                where);
  if (!(momentum >= 0 && momentum <= 1))
    throw Error(op,
                "momentum must be in [0, 1], got " + std::to_string(momentum),
                where);
  if ((runningMean == nullptr) != (runningVar == nullptr))
    throw Error(op, "needs both running averages or neither", where);
  if (!training && !runningMean)
    throw Error(op,
                "outside training it normalizes with the running averages, "
                "but none were given",
                where);
  for (Variable *running : {runningMean, runningVar}) {
    if (!running)
      continue;
    if (!running->defined())
      throw Error(op, "a running average is an empty Variable", where);
    if (running->shape() != channelShape || !isFloatingPoint(running->dtype()))
      throw Error(op,
                  "the running average '" + running->name() + "' must be " +
                      "floating point " + shapeText(channelShape) +
                      " for the input " + shapeText(x.shape()) + ", got " +
                      typeText(running->dtype(), running->shape()),
                  where);
  }
  nn::detail::requireOptional(weight, channelShape, op, "the weight", where);
  nn::detail::requireOptional(bias, channelShape, op, "the bias", where);

  // [1, C, 1, ...]: per-channel values broadcast over the rest.
  Shape broadcastShape(x.rank(), 1);
  broadcastShape[1] = channels;
  std::vector<int64_t> axes = {0};
  for (int64_t d = 2; d < x.rank(); ++d)
    axes.push_back(d);
  int64_t count = x.numel() / std::max<int64_t>(channels, 1);

  Tensor y;
  if (training) {
    if (count < 2)
      throw Error(op,
                  "needs more than one value per channel in training, got " +
                      shapeText(x.shape()),
                  where);
    Tensor mu = mean(x, axes, /*keepDims=*/true, where);
    Tensor centered = At(x, where) - mu;
    Tensor variance =
        mean(At(centered, where) * centered, axes, /*keepDims=*/true, where);
    y = At(centered, where) * rsqrt(At(variance, where) + eps, where);
    if (runningMean) {
      // Statistics, not part of any gradient.
      NoGradScope noGrad;
      Tensor batchMean =
          cast(reshape(mu, channelShape, where), runningMean->dtype(), where);
      Tensor unbiased = At(cast(reshape(variance, channelShape, where),
                                runningVar->dtype(), where),
                           where) *
                        (double(count) / double(count - 1));
      Tensor oldMean = runningMean->read(where);
      Tensor oldVar = runningVar->read(where);
      runningMean->assign(At(At(oldMean, where) * (1 - momentum), where) +
                              At(batchMean, where) * momentum,
                          where);
      runningVar->assign(At(At(oldVar, where) * (1 - momentum), where) +
                             At(unbiased, where) * momentum,
                         where);
    }
  } else {
    Tensor mu = cast(reshape(runningMean->read(where), broadcastShape, where),
                     x.dtype(), where);
    Tensor variance =
        cast(reshape(runningVar->read(where), broadcastShape, where), x.dtype(),
             where);
    y = At(At(x, where) - mu, where) * rsqrt(At(variance, where) + eps, where);
  }
  return affine(y, weight, bias, broadcastShape, where);
}
