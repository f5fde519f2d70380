//===- TorchTrain.h - libtorch baseline of lazyc-bench-train ----*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The libtorch side of lazyc-bench-train, behind a header with no torch (or
// lazyc) types: TorchTrain.cpp implements it with libtorch in its own C++17
// translation unit; NoTorchTrain.cpp is the stub linked when CMake did not
// find libtorch.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_BENCHMARKS_TRAIN_TORCHTRAIN_H
#define LAZYC_BENCHMARKS_TRAIN_TORCHTRAIN_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lazyc::bench {

/// An MLP's starting point and data, shared by every variant.
struct TrainSetup {
  /// Layer i: weights [sizes[i], sizes[i + 1]] row-major, then biases.
  std::vector<int64_t> sizes;
  std::vector<std::vector<float>> weights, biases;
  int64_t batch = 0;
  /// Batches, used in turn: [batch, sizes[0]] inputs and [batch] labels.
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<int32_t>> labels;
  /// SGD with momentum (dampening 0) when adam is false.
  bool adam = false;
  double learningRate = 0, momentum = 0;
};

/// "libtorch 1.13.0, N intra-op threads", or "" without libtorch.
std::string torchDescription();

/// Sets libtorch's intra-op threads, leaving the calling thread's OpenMP
/// thread count as it was (ATen's setup changes it; see TorchTrain.cpp).
void setTorchThreads(int threads);

/// A callable that runs one training step of the MLP in libtorch eager mode
/// (addmm + relu, log_softmax + nll_loss, backward, torch::optim::SGD or
/// Adam) on the next batch and returns the loss. Empty without libtorch.
std::function<float()> makeTorchTrainStep(const TrainSetup &setup);

} // namespace lazyc::bench

#endif // LAZYC_BENCHMARKS_TRAIN_TORCHTRAIN_H
