//===- Modules.h - Layers that hold their parameters ------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// nn::Conv2d, LayerNorm, BatchNorm2d, Dropout, Embedding and
// MultiHeadAttention: the functions of Layers.h with their parameters as
// Variables, in nn::Linear's style (seeded initialization, parameters() for
// optimizers, forward() and operator()). Optimizers hold Variable pointers,
// so a module must stay where it is while one holds them (nn::Sequential
// keeps its layers on the heap for that reason).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_NN_MODULES_H
#define LAZYC_NN_MODULES_H

#include "lazyc/NN/Layers.h"
#include "lazyc/NN/Linear.h"

#include <string>
#include <vector>

namespace lazyc::nn {

/// conv2d with weight [outC, inC / groups, kH, kW] (Kaiming uniform from
/// `seed`, fan-in inC / groups * kH * kW) and bias [outC] (zeros).
class Conv2d {
public:
  struct Options {
    Conv2dOptions conv;
    bool bias = true;
    DType dtype = DType::Float32;
  };
  Conv2d(int64_t inChannels, int64_t outChannels, Size2 kernel, int64_t seed,
         Options options, std::string name = "conv",
         Where where = Where::current());
  Conv2d(int64_t inChannels, int64_t outChannels, Size2 kernel, int64_t seed,
         std::string name = "conv", Where where = Where::current())
      : Conv2d(inChannels, outChannels, kernel, seed, Options(),
               std::move(name), where) {}
  Conv2d(Conv2d &&) noexcept = default;
  Conv2d &operator=(Conv2d &&) noexcept = default;

  /// [N, inC, H, W] -> [N, outC, OH, OW].
  Tensor forward(const Tensor &x, Where where = Where::current()) const;
  Tensor operator()(const Tensor &x, Where where = Where::current()) const {
    return forward(x, where);
  }

  /// The weight, then the bias when the layer has one.
  std::vector<Variable *> parameters();
  Variable &weight() { return weightVariable; }
  Variable &bias() { return biasVariable; }
  bool hasBias() const { return biasVariable.defined(); }
  const Conv2dOptions &options() const { return convOptions; }

private:
  Conv2dOptions convOptions;
  Variable weightVariable;
  Variable biasVariable;
};

/// layerNorm over the trailing `normalizedShape`, with a weight (ones) and
/// a bias (zeros) of that shape unless `elementwiseAffine` is false.
class LayerNorm {
public:
  LayerNorm(Shape normalizedShape, double eps = 1e-5,
            bool elementwiseAffine = true, DType dtype = DType::Float32,
            std::string name = "layernorm", Where where = Where::current());
  LayerNorm(LayerNorm &&) noexcept = default;
  LayerNorm &operator=(LayerNorm &&) noexcept = default;

  Tensor forward(const Tensor &x, Where where = Where::current()) const;
  Tensor operator()(const Tensor &x, Where where = Where::current()) const {
    return forward(x, where);
  }

  /// The weight and bias (none without the affine map).
  std::vector<Variable *> parameters();
  Variable &weight() { return weightVariable; }
  Variable &bias() { return biasVariable; }

private:
  Shape shape;
  double epsilon;
  Variable weightVariable;
  Variable biasVariable;
};

/// batchNorm over [N, C, H, W] per channel: weight (ones), bias (zeros),
/// running mean (zeros) and variance (ones) as Variables. Starts in training
/// mode, where each forward updates the running averages in the same trace;
/// setTraining(false) (eval) normalizes with them.
class BatchNorm2d {
public:
  struct Options {
    double momentum = 0.1;
    double eps = 1e-5;
    bool affine = true;
    DType dtype = DType::Float32;
  };
  BatchNorm2d(int64_t channels, Options options, std::string name = "bn",
              Where where = Where::current());
  BatchNorm2d(int64_t channels, std::string name = "bn",
              Where where = Where::current())
      : BatchNorm2d(channels, Options(), std::move(name), where) {}
  BatchNorm2d(BatchNorm2d &&) noexcept = default;
  BatchNorm2d &operator=(BatchNorm2d &&) noexcept = default;

  /// Not const: in training it assigns the running averages.
  Tensor forward(const Tensor &x, Where where = Where::current());
  Tensor operator()(const Tensor &x, Where where = Where::current()) {
    return forward(x, where);
  }

  void setTraining(bool training) { isTrainingMode = training; }
  bool training() const { return isTrainingMode; }
  /// The weight and bias (trained); the running averages are buffers().
  std::vector<Variable *> parameters();
  /// The running mean and variance (for checkpoints, not for optimizers).
  std::vector<Variable *> buffers();
  Variable &weight() { return weightVariable; }
  Variable &bias() { return biasVariable; }
  Variable &runningMean() { return meanVariable; }
  Variable &runningVar() { return varVariable; }

private:
  Options settings;
  bool isTrainingMode = true;
  Variable weightVariable, biasVariable, meanVariable, varVariable;
};

/// dropout with a new mask each call: call i (counted from 0) uses a seed
/// mixed from `seed` and i, so two Dropout layers with different seeds never
/// share masks. The seed is data: every call reuses the compiled trace.
class Dropout {
public:
  explicit Dropout(double p, int64_t seed = 0, Where where = Where::current());

  /// Not const: it advances the call count.
  Tensor forward(const Tensor &x, Where where = Where::current());
  Tensor operator()(const Tensor &x, Where where = Where::current()) {
    return forward(x, where);
  }
  void setTraining(bool training) { isTrainingMode = training; }
  bool training() const { return isTrainingMode; }
  double p() const { return probability; }
  /// The seed the next training-mode call will use.
  int64_t nextSeed() const;
  std::vector<Variable *> parameters() { return {}; }

private:
  double probability;
  int64_t baseSeed;
  int64_t calls = 0;
  bool isTrainingMode = true;
};

/// embedding with weight [count, dim] ~ N(0, 1) from `seed` (PyTorch's
/// default).
class Embedding {
public:
  Embedding(int64_t count, int64_t dim, int64_t seed,
            DType dtype = DType::Float32, std::string name = "embedding",
            Where where = Where::current());
  Embedding(Embedding &&) noexcept = default;
  Embedding &operator=(Embedding &&) noexcept = default;

  /// Integer ids of any shape -> ids.shape + [dim].
  Tensor forward(const Tensor &ids, Where where = Where::current()) const;
  Tensor operator()(const Tensor &ids, Where where = Where::current()) const {
    return forward(ids, where);
  }
  std::vector<Variable *> parameters() { return {&weightVariable}; }
  Variable &weight() { return weightVariable; }

private:
  Variable weightVariable;
};

/// Multi-head self-attention over x [..., T, dModel]: one fused projection
/// to queries, keys and values (a Linear dModel -> 3 dModel), `heads`
/// heads of dModel / heads each through scaledDotProductAttention
/// (causal if asked), and an output Linear dModel -> dModel. The
/// projections are initialized from seed and seed + 1 (Glorot uniform).
class MultiHeadAttention {
public:
  struct Options {
    bool causal = false;
    bool bias = true;
    DType dtype = DType::Float32;
  };
  MultiHeadAttention(int64_t dModel, int64_t heads, int64_t seed,
                     Options options, std::string name = "attention",
                     Where where = Where::current());
  MultiHeadAttention(int64_t dModel, int64_t heads, int64_t seed,
                     std::string name = "attention",
                     Where where = Where::current())
      : MultiHeadAttention(dModel, heads, seed, Options(), std::move(name),
                           where) {}
  MultiHeadAttention(MultiHeadAttention &&) noexcept = default;
  MultiHeadAttention &operator=(MultiHeadAttention &&) noexcept = default;

  Tensor forward(const Tensor &x, Where where = Where::current()) const;
  Tensor operator()(const Tensor &x, Where where = Where::current()) const {
    return forward(x, where);
  }
  /// The fused projection's, then the output projection's.
  std::vector<Variable *> parameters();
  Linear &qkvProjection() { return qkv; }
  Linear &outputProjection() { return output; }
  int64_t heads() const { return headCount; }
  bool causal() const { return isCausal; }

private:
  int64_t model, headCount;
  bool isCausal;
  Linear qkv, output;
};

} // namespace lazyc::nn

#endif // LAZYC_NN_MODULES_H
