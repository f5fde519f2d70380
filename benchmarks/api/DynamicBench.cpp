//===- DynamicBench.cpp - Dynamic against static dimensions ---------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What automatic dynamic dimensions cost: the same trace run by the function
// compiled for its sizes (the first sizes seen) and by the function that
// leaves the changed sizes to the call (after another size ran), on
//   1. the 8-op chain of lazyc-bench-cpu, relu(tanh(exp(x*0.5+0.1))*1.5-1) /
//      (1+x*x), over 4M f32 (its one dimension dynamic);
//   2. an SGD-momentum step of the 784-512-512-10 MLP, batch 128 (the batch
//      dimension dynamic).
// Each pair is timed interleaved; medians of --rounds rounds (default 15).
// Usage: lazyc-bench-dynamic [--rounds N]
//
//===----------------------------------------------------------------------===//

#include "lazyc/nn.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace lazyc;

namespace {

double timeUs(const std::function<void()> &run) {
  auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now() - start)
      .count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::vector<float> uniform(size_t n, float low, float high, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> values(n);
  for (float &value : values)
    value = dist(engine);
  return values;
}

Tensor chain(const Tensor &x) {
  return relu(tanh(exp(x * 0.5f + 0.1f)) * 1.5f - 1.0f) / (1.0f + x * x);
}

/// One training step of `model`, run as one trace.
void trainStep(nn::Mlp &model, optim::Optimizer &optimizer,
               const Tensor &inputs, const Tensor &labels) {
  GradientTape tape;
  Tensor loss = nn::crossEntropy(model(inputs), labels);
  optimizer.step(tape.gradient(loss, nn::refs(model.parameters())));
  lazyc::sync();
}

/// Runs `staticRun` and `dynamicRun` alternately, `rounds` times each, and
/// prints their medians and ratio.
void pair(const char *what, int rounds, const std::function<void()> &staticRun,
          const std::function<void()> &dynamicRun) {
  std::vector<double> staticUs, dynamicUs;
  for (int round = 0; round < rounds; ++round) {
    staticUs.push_back(timeUs(staticRun));
    dynamicUs.push_back(timeUs(dynamicRun));
  }
  double s = median(staticUs), d = median(dynamicUs);
  std::printf("| %s | %.3f ms | %.3f ms | %.3fx |\n", what, s / 1e3, d / 1e3,
              d / s);
}

} // namespace

int main(int argc, char **argv) {
  int rounds = 15;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--rounds")
      rounds = std::max(1, std::atoi(argv[i + 1]));
  std::printf("| benchmark | static sizes | dynamic sizes | dynamic / static "
              "|\n| --- | --- | --- | --- |\n");

  // 1. The chain: size n runs the static function (seen first); size n + 64,
  // seen after n, runs the dynamic one. Both are 4M elements within 64.
  {
    const int64_t n = int64_t(1) << 22, other = n + 64;
    Tensor x = Tensor::fromVector<float>(uniform(n, -3, 3, 1), {n});
    Tensor y = Tensor::fromVector<float>(uniform(other, -3, 3, 2), {other});
    (void)chain(x).toVector<float>(); // Static, compiled for n.
    Metrics before = metrics();
    (void)chain(y).toVector<float>(); // Dynamic: the size changed.
    if (metrics().sizesMadeDynamic == before.sizesMadeDynamic) {
      std::fprintf(stderr, "the chain's size did not become dynamic\n");
      return 1;
    }
    pair(
        "8-op chain, 4M f32 (`sync()`)", rounds,
        [&] {
          Tensor z = chain(x);
          lazyc::sync();
        },
        [&] {
          Tensor z = chain(y);
          lazyc::sync();
        });
  }

  // 2. The MLP step: batch 128 runs the static step, batch 127 the dynamic
  // one (two models, so each keeps its own parameters and velocities).
  {
    data::Dataset set = data::syntheticClassification(256, 784, 10, 3);
    nn::Mlp staticModel({784, 512, 512, 10}, 5);
    nn::Mlp dynamicModel({784, 512, 512, 10}, 5);
    optim::SGD::Options options;
    options.learningRate = 0.01;
    options.momentum = 0.9;
    optim::SGD staticSgd(staticModel.parameters(), options);
    optim::SGD dynamicSgd(dynamicModel.parameters(), options);
    Tensor x128 = set.batchInputs(0, 128), l128 = set.batchLabels(0, 128);
    Tensor x127 = set.batchInputs(128, 127), l127 = set.batchLabels(128, 127);
    for (int warm = 0; warm < 3; ++warm) // Compiles for 128, then steadies.
      trainStep(staticModel, staticSgd, x128, l128);
    for (int warm = 0; warm < 3; ++warm) // 128 first, then 127: dynamic.
      trainStep(dynamicModel, dynamicSgd, warm == 0 ? x128 : x127,
                warm == 0 ? l128 : l127);
    pair(
        "MLP 784-512-512-10 SGD-momentum step, batch 128 / 127", rounds,
        [&] { trainStep(staticModel, staticSgd, x128, l128); },
        [&] { trainStep(dynamicModel, dynamicSgd, x127, l127); });
  }
  Metrics m = metrics();
  std::printf("\ntraces compiled %llu, sizes made dynamic %llu\n",
              (unsigned long long)m.tracesCompiled,
              (unsigned long long)m.sizesMadeDynamic);
  return 0;
}
