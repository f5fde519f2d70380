//===- TorchModels.h - libtorch baselines of lazyc-bench-models -*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The libtorch side of lazyc-bench-models behind a header with no torch (or
// lazyc) types: TorchModels.cpp implements it in its own C++17 translation
// unit (libtorch 1.13's headers are not written for C++20). The models are
// the ones ModelsBench.cpp builds in lazyc, started from lazyc's initial
// parameters (copied in lazyc's layouts: Linear weights [in, out], conv
// weights [outC, inC, kH, kW]).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_BENCHMARKS_MODELS_TORCHMODELS_H
#define LAZYC_BENCHMARKS_MODELS_TORCHMODELS_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lazyc::bench {

/// A parameter's initial value, row-major.
struct Parameter {
  std::vector<float> values;
  std::vector<int64_t> shape;
};

/// The optimizer both sides use: SGD with momentum (dampening 0) or Adam
/// (betas 0.9, 0.999, epsilon 1e-8).
struct OptimizerSetup {
  bool adam = false;
  double learningRate = 0.01, momentum = 0.9;
};

/// The CNN: conv (padding1) -> relu -> maxpool 2 -> conv (padding2) -> relu
/// -> maxpool 2 -> flatten -> linear -> relu -> linear. Parameters: conv1
/// weight and bias, conv2's, fc1's, fc2's.
struct CnnSetup {
  std::vector<Parameter> parameters;
  int64_t side = 28, padding1 = 2, padding2 = 0;
  OptimizerSetup optimizer;
  /// The forward pass and loss under CPU autocast to bf16.
  bool autocast = false;
};

/// The GPT of examples/char_transformer.cpp. Parameters in lazyc's order:
/// tokens [V, D], positions [T, D]; per block ln1 (weight, bias), the
/// attention's qkv projection (weight [D, 3D], bias), its output projection
/// (weight [D, D], bias), ln2, fc1 (weight [D, 4D], bias), fc2; the final
/// LayerNorm; the head (weight [D, V], bias).
struct GptSetup {
  std::vector<Parameter> parameters;
  int64_t vocabulary = 0, dim = 0, heads = 0, layers = 0, context = 0;
  OptimizerSetup optimizer;
  /// The forward pass and loss under CPU autocast to bf16.
  bool autocast = false;
};

/// A model in libtorch eager mode. step() runs one training step
/// (forward, loss.backward(), optimizer.step()) on a batch and returns the
/// loss; correct() counts the examples whose largest logit is at the label.
/// Inputs: CNN images [n, 1, side, side] as floats; GPT token ids [n, T] and
/// targets [n * T]. Labels are class ids.
struct TorchModel {
  std::function<float(const std::vector<float> &inputs,
                      const std::vector<int32_t> &labels, int64_t n)>
      step;
  std::function<int64_t(const std::vector<float> &inputs,
                        const std::vector<int32_t> &labels, int64_t n)>
      correct;
};

/// "libtorch 1.13.1, N intra-op threads", or "" without libtorch.
std::string torchDescription();

/// Sets libtorch's intra-op threads, leaving the calling thread's OpenMP
/// thread count as it was (ATen's setup changes it).
void setTorchThreads(int threads);

/// Empty functions without libtorch.
TorchModel makeTorchCnn(const CnnSetup &setup);
/// step()'s inputs are the token ids as floats (exact below 2^24).
TorchModel makeTorchGpt(const GptSetup &setup);

} // namespace lazyc::bench

#endif // LAZYC_BENCHMARKS_MODELS_TORCHMODELS_H
