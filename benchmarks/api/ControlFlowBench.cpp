//===- ControlFlowBench.cpp - cond and whileLoop against the host ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What keeping control flow in the trace buys, against what a user writes
// without cond/whileLoop:
//   1. 20 data-dependent steps on 64K f32, x = sum(x) > 0 ? x*0.9-0.1 :
//      x*1.1+0.2: cond (one trace of 20 lazy.if) against a C++ `if` on
//      `item()` (a materialization per step);
//   2. 50 iterations of v = v*0.5 + w on 64K f32: whileLoop (one lazy.while)
//      against a C++ loop (unrolled into one trace of 100 ops).
// Each variant: its first run in an empty cache (compiles included) and the
// median of --rounds warm runs (default 15).
// Usage: lazyc-bench-control-flow [--rounds N]
//
//===----------------------------------------------------------------------===//

#include "lazyc/lazyc.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace lazyc;

namespace {

constexpr int64_t kElements = 1 << 16;
constexpr int kSteps = 20;
constexpr int kIterations = 50;

double timeMs(const std::function<void()> &run) {
  auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

Tensor input(float offset) {
  std::vector<float> values(kElements);
  for (int64_t i = 0; i < kElements; ++i)
    values[i] = 0.001f * static_cast<float>(i % 97) - 0.05f + offset;
  return Tensor::fromVector<float>(values, {kElements});
}

float branchesWithCond(const Tensor &start) {
  Tensor x = start;
  for (int step = 0; step < kSteps; ++step)
    x = cond(
        sum(x) > 0.0f, [&] { return x * 0.9f - 0.1f; },
        [&] { return x * 1.1f + 0.2f; });
  return sum(x).item<float>();
}

float branchesOnTheHost(const Tensor &start) {
  Tensor x = start;
  for (int step = 0; step < kSteps; ++step)
    x = sum(x).item<float>() > 0 ? Tensor(x * 0.9f - 0.1f)
                                 : Tensor(x * 1.1f + 0.2f);
  return sum(x).item<float>();
}

float loopWithWhileLoop(const Tensor &start, const Tensor &w) {
  auto [i, v] = whileLoop(
      [](Tensor i, Tensor) { return i < kIterations; },
      [&](Tensor i, Tensor v) { return std::tuple{i + 1, v * 0.5f + w}; },
      std::tuple{zeros({}, DType::Int32), start});
  return sum(v).item<float>();
}

float loopOnTheHost(const Tensor &start, const Tensor &w) {
  Tensor v = start;
  for (int i = 0; i < kIterations; ++i)
    v = v * 0.5f + w;
  return sum(v).item<float>();
}

/// Times `run` cold (empty cache) and warm; prints a table row and checks
/// that `reference` computes the same value.
void row(const char *what, int rounds, const std::function<float()> &run,
         const std::function<float()> &reference) {
  clearCache();
  resetMetrics();
  float value = 0;
  double cold = timeMs([&] { value = run(); });
  uint64_t compiled = metrics().tracesCompiled;
  std::vector<double> warm;
  resetMetrics();
  for (int round = 0; round < rounds; ++round)
    warm.push_back(timeMs([&] { (void)run(); }));
  double perRun = static_cast<double>(metrics().materializations) / rounds;
  float expected = reference();
  std::printf("| %s | %.1f ms | %llu | %.3f ms | %.0f | %s |\n", what, cold,
              static_cast<unsigned long long>(compiled), median(warm), perRun,
              std::abs(value - expected) <= 1e-3f * std::abs(expected) + 1e-3f
                  ? "yes"
                  : "NO");
}

} // namespace

int main(int argc, char **argv) {
  int rounds = 15;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--rounds")
      rounds = std::max(1, std::atoi(argv[i + 1]));
  Tensor up = input(0.02f), down = input(-0.02f), w = input(0.0f);
  std::printf("| workload | first run (compiles) | traces compiled | warm "
              "run (median) | materializations per run | same value |\n");
  std::printf("| --- | --- | --- | --- | --- | --- |\n");
  row(
      "20 branches, cond", rounds, [&] { return branchesWithCond(up); },
      [&] { return branchesOnTheHost(up); });
  row(
      "20 branches, C++ if on item()", rounds,
      [&] { return branchesOnTheHost(up); },
      [&] { return branchesWithCond(up); });
  row(
      "20 branches, cond, other data", rounds,
      [&] { return branchesWithCond(down); },
      [&] { return branchesOnTheHost(down); });
  row(
      "50 iterations, whileLoop", rounds,
      [&] { return loopWithWhileLoop(up, w); },
      [&] { return loopOnTheHost(up, w); });
  row(
      "50 iterations, C++ loop (unrolled trace)", rounds,
      [&] { return loopOnTheHost(up, w); },
      [&] { return loopWithWhileLoop(up, w); });
  return 0;
}
