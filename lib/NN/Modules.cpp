//===- Modules.cpp - Layers that hold their parameters --------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/NN/Modules.h"

#include "lazyc/Runtime/Shape.h"

using namespace lazyc;
using namespace lazyc::nn;

//===----------------------------------------------------------------------===//
// Conv2d
//===----------------------------------------------------------------------===//

Conv2d::Conv2d(int64_t inChannels, int64_t outChannels, Size2 kernel,
               int64_t seed, Options options, std::string name, Where where)
    : convOptions(options.conv) {
  int64_t groups = options.conv.groups;
  if (inChannels <= 0 || outChannels <= 0 || kernel.height <= 0 ||
      kernel.width <= 0 || groups <= 0 || inChannels % groups != 0 ||
      outChannels % groups != 0)
    throw Error(
        "Conv2d",
        "needs positive channel counts and kernel sizes, and groups "
        "dividing both channel counts; got " +
            std::to_string(inChannels) + " -> " + std::to_string(outChannels) +
            " channels, kernel " + std::to_string(kernel.height) + "x" +
            std::to_string(kernel.width) + ", groups " + std::to_string(groups),
        where);
  int64_t fanIn = inChannels / groups * kernel.height * kernel.width;
  weightVariable = Variable(kaimingUniform({outChannels, inChannels / groups,
                                            kernel.height, kernel.width},
                                           fanIn, seed, options.dtype, where),
                            name + ".weight", where);
  if (options.bias)
    biasVariable = Variable(zeros({outChannels}, options.dtype, where),
                            name + ".bias", where);
}

Tensor Conv2d::forward(const Tensor &x, Where where) const {
  return conv2d(x, weightVariable.read(where),
                hasBias() ? biasVariable.read(where) : Tensor(), convOptions,
                where);
}

std::vector<Variable *> Conv2d::parameters() {
  if (hasBias())
    return {&weightVariable, &biasVariable};
  return {&weightVariable};
}

//===----------------------------------------------------------------------===//
// LayerNorm
//===----------------------------------------------------------------------===//

LayerNorm::LayerNorm(Shape normalizedShape, double eps, bool elementwiseAffine,
                     DType dtype, std::string name, Where where)
    : shape(std::move(normalizedShape)), epsilon(eps) {
  bool positive = !shape.empty();
  for (int64_t size : shape)
    positive = positive && size > 0;
  if (!positive)
    throw Error("LayerNorm",
                "needs a nonempty normalized shape of positive sizes, got " +
                    shapeText(shape),
                where);
  if (elementwiseAffine) {
    weightVariable =
        Variable(ones(shape, dtype, where), name + ".weight", where);
    biasVariable = Variable(zeros(shape, dtype, where), name + ".bias", where);
  }
}

Tensor LayerNorm::forward(const Tensor &x, Where where) const {
  bool affine = weightVariable.defined();
  return layerNorm(x, shape, affine ? weightVariable.read(where) : Tensor(),
                   affine ? biasVariable.read(where) : Tensor(), epsilon,
                   where);
}

std::vector<Variable *> LayerNorm::parameters() {
  if (!weightVariable.defined())
    return {};
  return {&weightVariable, &biasVariable};
}

//===----------------------------------------------------------------------===//
// BatchNorm2d
//===----------------------------------------------------------------------===//

BatchNorm2d::BatchNorm2d(int64_t channels, Options options, std::string name,
                         Where where)
    : settings(options) {
  if (channels <= 0)
    throw Error("BatchNorm2d",
                "needs a positive channel count, got " +
                    std::to_string(channels),
                where);
  if (options.affine) {
    weightVariable = Variable(ones({channels}, options.dtype, where),
                              name + ".weight", where);
    biasVariable = Variable(zeros({channels}, options.dtype, where),
                            name + ".bias", where);
  }
  meanVariable = Variable(zeros({channels}, options.dtype, where),
                          name + ".running_mean", where);
  varVariable = Variable(ones({channels}, options.dtype, where),
                         name + ".running_var", where);
}

Tensor BatchNorm2d::forward(const Tensor &x, Where where) {
  if (x.defined() && x.rank() != 4)
    throw Error("BatchNorm2d",
                "needs an input [N, C, H, W], got " +
                    typeText(x.dtype(), x.shape()),
                where);
  bool affine = weightVariable.defined();
  return batchNorm(x, &meanVariable, &varVariable,
                   affine ? weightVariable.read(where) : Tensor(),
                   affine ? biasVariable.read(where) : Tensor(), isTrainingMode,
                   settings.momentum, settings.eps, where);
}

std::vector<Variable *> BatchNorm2d::parameters() {
  if (!weightVariable.defined())
    return {};
  return {&weightVariable, &biasVariable};
}

std::vector<Variable *> BatchNorm2d::buffers() {
  return {&meanVariable, &varVariable};
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

Dropout::Dropout(double p, int64_t seed, Where where)
    : probability(p), baseSeed(seed) {
  if (!(p >= 0 && p <= 1))
    throw Error("Dropout", "p must be in [0, 1], got " + std::to_string(p),
                where);
}

int64_t Dropout::nextSeed() const {
  // SplitMix64's finalizer of (seed, call), cut to 53 bits: random ops take
  // seeds within +-2^53.
  uint64_t z = static_cast<uint64_t>(baseSeed) * 0x9E3779B97F4A7C15ULL +
               static_cast<uint64_t>(calls) + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<int64_t>(z >> 11);
}

Tensor Dropout::forward(const Tensor &x, Where where) {
  if (!isTrainingMode)
    return dropout(x, probability, 0, /*training=*/false, where);
  int64_t seed = nextSeed();
  ++calls;
  return dropout(x, probability, seed, /*training=*/true, where);
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

Embedding::Embedding(int64_t count, int64_t dim, int64_t seed, DType dtype,
                     std::string name, Where where) {
  if (count <= 0 || dim <= 0)
    throw Error("Embedding",
                "needs positive sizes, got " + std::to_string(count) + " x " +
                    std::to_string(dim),
                where);
  weightVariable =
      Variable(randomNormal({count, dim}, 0, 1, seed, dtype, where),
               name + ".weight", where);
}

Tensor Embedding::forward(const Tensor &ids, Where where) const {
  return embedding(weightVariable.read(where), ids, where);
}

//===----------------------------------------------------------------------===//
// MultiHeadAttention
//===----------------------------------------------------------------------===//

namespace {

Linear::Options projectionOptions(const MultiHeadAttention::Options &options) {
  Linear::Options linear;
  linear.weightInit = Init::GlorotUniform;
  linear.bias = options.bias;
  linear.dtype = options.dtype;
  return linear;
}

/// dModel, checked before the projections are built from it.
int64_t checkedModel(int64_t dModel, int64_t heads, Where where) {
  if (dModel <= 0 || heads <= 0 || dModel % heads != 0)
    throw Error("MultiHeadAttention",
                "needs positive sizes with heads dividing dModel, got dModel " +
                    std::to_string(dModel) + ", heads " + std::to_string(heads),
                where);
  return dModel;
}

} // namespace

MultiHeadAttention::MultiHeadAttention(int64_t dModel, int64_t heads,
                                       int64_t seed, Options options,
                                       std::string name, Where where)
    : model(checkedModel(dModel, heads, where)), headCount(heads),
      isCausal(options.causal),
      qkv(dModel, 3 * dModel, seed, projectionOptions(options), name + ".qkv",
          where),
      output(dModel, dModel, seed + 1, projectionOptions(options),
             name + ".out", where) {}

Tensor MultiHeadAttention::forward(const Tensor &x, Where where) const {
  if (!x.defined())
    throw Error("MultiHeadAttention", "the input is an empty Tensor", where);
  if (x.rank() < 2 || x.shape().back() != model)
    throw Error("MultiHeadAttention",
                "needs an input [..., T, " + std::to_string(model) + "], got " +
                    typeText(x.dtype(), x.shape()),
                where);
  Shape lead(x.shape().begin(), x.shape().end() - 2);
  int64_t batch = 1;
  for (int64_t size : lead)
    batch *= size;
  int64_t length = x.shape()[x.rank() - 2], depth = model / headCount;
  // [B, T, 3 D] -> [B, T, 3, H, d] -> [3, B, H, T, d].
  Tensor projected = qkv(reshape(x, {batch, length, model}, where), where);
  Tensor heads =
      transpose(reshape(projected, {batch, length, 3, headCount, depth}, where),
                {2, 0, 3, 1, 4}, where);
  auto part = [&](int64_t i) {
    Tensor one = slice(heads, {i, 0, 0, 0, 0},
                       {i + 1, batch, headCount, length, depth}, {}, where);
    return reshape(one, {batch, headCount, length, depth}, where);
  };
  Tensor attended = scaledDotProductAttention(part(0), part(1), part(2),
                                              isCausal, std::nullopt, where);
  // [B, H, T, d] -> [B, T, H, d] -> [..., T, D].
  Tensor merged = reshape(transpose(attended, {0, 2, 1, 3}, where),
                          {batch, length, model}, where);
  Shape outShape = lead;
  outShape.push_back(length);
  outShape.push_back(model);
  return reshape(output(merged, where), outShape, where);
}

std::vector<Variable *> MultiHeadAttention::parameters() {
  std::vector<Variable *> all = qkv.parameters();
  for (Variable *parameter : output.parameters())
    all.push_back(parameter);
  return all;
}
