//===- RepeatedBlocksTest.cpp - Deep models compile one layer -------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A trace of many identical layers runs as one trace per layer, compiled
// once (setRepeatedBlocks): a deep network's forward pass against the same
// network in double precision on the host, and its training steps (a
// gradient and an update with momentum through every layer) against the same
// steps compiled whole. Steps after the first compile nothing, and a deeper
// model of the same layer compiles nothing new.
//
//===----------------------------------------------------------------------===//

#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <vector>

using namespace lazyc;

namespace {

constexpr int64_t kBatch = 4, kWidth = 16;

/// Deterministic weights of layer `layer` (`which` of its two products).
std::vector<float> weightValues(int layer, int which, int64_t count,
                                double scale) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = static_cast<float>(
        scale * std::sin(0.37 * i + 1.3 * layer + 2.1 * which + 0.2));
  return values;
}

/// One layer: two products, each input normalized and gated, added to the
/// running value.
Tensor layer(const Tensor &x, const Tensor &w1, const Tensor &b1,
             const Tensor &w2) {
  auto normalizedAndGated = [](const Tensor &h) {
    Tensor centered = h - mean(h, {1}, true);
    Tensor normalized =
        centered * rsqrt(mean(centered * centered, {1}, true) + 1e-5f);
    return sigmoid(normalized) * normalized;
  };
  Tensor h = normalizedAndGated(tanh(matmul(x, w1) + b1));
  return x + matmul(normalizedAndGated(h), w2) * 0.5f;
}

/// The same layer in double precision, row-major [kBatch, kWidth].
std::vector<double> layerOnHost(const std::vector<double> &x,
                                const std::vector<float> &w1,
                                const std::vector<float> &b1,
                                const std::vector<float> &w2) {
  auto product = [](const std::vector<double> &a, const std::vector<float> &w) {
    std::vector<double> out(kBatch * kWidth, 0.0);
    for (int64_t r = 0; r < kBatch; ++r)
      for (int64_t c = 0; c < kWidth; ++c)
        for (int64_t k = 0; k < kWidth; ++k)
          out[r * kWidth + c] += a[r * kWidth + k] * w[k * kWidth + c];
    return out;
  };
  std::vector<double> h = product(x, w1);
  for (int64_t r = 0; r < kBatch; ++r) {
    double *row = &h[r * kWidth];
    double mu = 0;
    for (int64_t c = 0; c < kWidth; ++c) {
      row[c] = std::tanh(row[c] + b1[c]);
      mu += row[c] / kWidth;
    }
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) {
        mu = 0;
        for (int64_t c = 0; c < kWidth; ++c)
          mu += row[c] / kWidth;
      }
      double variance = 0;
      for (int64_t c = 0; c < kWidth; ++c)
        variance += (row[c] - mu) * (row[c] - mu) / kWidth;
      for (int64_t c = 0; c < kWidth; ++c) {
        double n = (row[c] - mu) / std::sqrt(variance + 1e-5);
        row[c] = n / (1 + std::exp(-n));
      }
    }
  }
  std::vector<double> out = product(h, w2);
  for (int64_t i = 0; i < kBatch * kWidth; ++i)
    out[i] = x[i] + 0.5 * out[i];
  return out;
}

class RepeatedBlocksTest : public ::testing::Test {
protected:
  void SetUp() override {
    resetMetrics();
    clearCache();
  }
  void TearDown() override { setRepeatedBlocks(true); }
};

TEST_F(RepeatedBlocksTest, ADeepForwardPassCompilesOneLayer) {
  ASSERT_TRUE(isCuttingRepeatedBlocks()); // The default.
  const int layers = 40;
  std::vector<float> input(kBatch * kWidth);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = static_cast<float>(std::cos(0.5 * i));

  Tensor x = Tensor::fromVector(input, {kBatch, kWidth});
  std::vector<double> expected(input.begin(), input.end());
  for (int l = 0; l < layers; ++l) {
    std::vector<float> w1 = weightValues(l, 1, kWidth * kWidth, 0.3);
    std::vector<float> b1 = weightValues(l, 2, kWidth, 0.1);
    std::vector<float> w2 = weightValues(l, 3, kWidth * kWidth, 0.3);
    x = layer(x, Tensor::fromVector(w1, {kWidth, kWidth}),
              Tensor::fromVector(b1, {kWidth}),
              Tensor::fromVector(w2, {kWidth, kWidth}));
    expected = layerOnHost(expected, w1, b1, w2);
  }
  std::vector<float> got = x.toVector<float>();

  Metrics m = metrics();
  // One trace per layer, nearly all of them copies of one block; a
  // handful of structures compiled, not forty layers' worth.
  EXPECT_GE(m.repeatedBlocks, static_cast<uint64_t>(layers - 2));
  EXPECT_LE(m.tracesCompiled, 4u);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], expected[i], 1e-4 * (1 + std::abs(expected[i])))
        << "element " << i;
}

/// The forward pass of `layers` layers over fixed data, as floats.
std::vector<float> forward(int layers) {
  Tensor x = ones({kBatch, kWidth});
  for (int l = 0; l < layers; ++l)
    x = layer(x,
              Tensor::fromVector(weightValues(l, 1, kWidth * kWidth, 0.3),
                                 {kWidth, kWidth}),
              Tensor::fromVector(weightValues(l, 2, kWidth, 0.1), {kWidth}),
              Tensor::fromVector(weightValues(l, 3, kWidth * kWidth, 0.3),
                                 {kWidth, kWidth}));
  return x.toVector<float>();
}

TEST_F(RepeatedBlocksTest, ADeeperModelReusesTheLayer) {
  // The block is keyed by its structure: a model of another depth, the
  // same layer, finds every trace it runs compiled already.
  forward(30);
  uint64_t compiled = metrics().tracesCompiled;
  EXPECT_GT(metrics().repeatedBlocks, 0u);
  forward(45);
  EXPECT_EQ(metrics().tracesCompiled, compiled);
  EXPECT_GE(metrics().repeatedBlocks, uint64_t(28 + 43));
}

TEST_F(RepeatedBlocksTest, AnotherProcessLoadsTheBlocksFromDisk) {
  // The disk cache keys a block by its structure too: a process that finds
  // the cache a 30-layer model filled runs a 45-layer one without running
  // the MLIR pipeline once. (A child process of its own: a process reads
  // LAZYC_CACHE_DIR once, and the suite runs with it off. Its in-memory
  // cache is emptied between the models, as a new process's would be.)
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        char pattern[] = "/tmp/lazyc-blocks-cache-XXXXXX";
        bool made = ::mkdtemp(pattern) != nullptr;
        setenv("LAZYC_CACHE_DIR", pattern, 1);
        std::vector<float> shallow = forward(30);
        Metrics first = metrics();
        clearCache();
        std::vector<float> deep = forward(45);
        Metrics m = metrics();
        std::filesystem::remove_all(pattern);
        bool ok = made && first.diskCacheWrites > 0 &&
                  m.compilePipeline.count == first.compilePipeline.count &&
                  m.diskCacheHits > 0 && m.repeatedBlocks >= 28 + 43 &&
                  std::isfinite(deep[0]) && deep != shallow;
        std::cerr << "pipelines " << first.compilePipeline.count << " then "
                  << m.compilePipeline.count << ", disk hits "
                  << m.diskCacheHits << "\n";
        std::_Exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "pipelines");
}

TEST_F(RepeatedBlocksTest, OffEveryTraceCompilesWhole) {
  setRepeatedBlocks(false);
  forward(40);
  EXPECT_EQ(metrics().repeatedBlocks, 0u);
  EXPECT_EQ(metrics().tracesCompiled, 1u);
  EXPECT_EQ(metrics().materializations, 1u);
}

/// Losses of `steps` steps of SGD with momentum on a `layers`-deep network, and
/// the traces compiled after the first step.
struct Training {
  std::vector<double> losses;
  uint64_t compiledAfterFirstStep = 0;
  uint64_t repeatedBlocks = 0;
};

Training train(int layers, int steps) {
  resetMetrics();
  std::vector<std::unique_ptr<Variable>> parameters;
  std::vector<Variable *> list;
  for (int l = 0; l < layers; ++l) {
    parameters.push_back(std::make_unique<Variable>(Tensor::fromVector(
        weightValues(l, 1, kWidth * kWidth, 0.3), {kWidth, kWidth})));
    parameters.push_back(std::make_unique<Variable>(
        Tensor::fromVector(weightValues(l, 2, kWidth, 0.1), {kWidth})));
    parameters.push_back(std::make_unique<Variable>(Tensor::fromVector(
        weightValues(l, 3, kWidth * kWidth, 0.3), {kWidth, kWidth})));
  }
  for (auto &parameter : parameters)
    list.push_back(parameter.get());
  // SGD with momentum, each parameter's velocity a Variable too.
  std::vector<std::unique_ptr<Variable>> velocities;
  for (Variable *parameter : list)
    velocities.push_back(
        std::make_unique<Variable>(zeros(parameter->read().shape())));

  Training result;
  uint64_t compiledInFirstStep = 0;
  for (int step = 0; step < steps; ++step) {
    std::vector<float> input(kBatch * kWidth);
    for (size_t i = 0; i < input.size(); ++i)
      input[i] = static_cast<float>(std::cos(0.5 * i + step));
    Tensor loss;
    std::vector<Tensor> gradients;
    {
      GradientTape tape;
      Tensor x = Tensor::fromVector(input, {kBatch, kWidth});
      for (int l = 0; l < layers; ++l)
        x = layer(x, parameters[3 * l]->read(), parameters[3 * l + 1]->read(),
                  parameters[3 * l + 2]->read());
      loss = mean(x * x);
      gradients = tape.gradient(loss, list);
    }
    for (size_t p = 0; p < list.size(); ++p) {
      velocities[p]->assign(velocities[p]->read() * 0.9f + gradients[p]);
      list[p]->assignSub(velocities[p]->read() * 0.05f);
    }
    result.losses.push_back(loss.item<float>());
    lazyc::sync();
    if (step == 0)
      compiledInFirstStep = metrics().tracesCompiled;
  }
  result.compiledAfterFirstStep =
      metrics().tracesCompiled - compiledInFirstStep;
  result.repeatedBlocks = metrics().repeatedBlocks;
  return result;
}

TEST_F(RepeatedBlocksTest, TrainingStepsMatchTheWholeTrace) {
  Training cut = train(24, 4);
  setRepeatedBlocks(false);
  clearCache();
  Training whole = train(24, 4);

  EXPECT_GT(cut.repeatedBlocks, 0u);
  EXPECT_EQ(whole.repeatedBlocks, 0u);
  EXPECT_EQ(cut.compiledAfterFirstStep, 0u);
  EXPECT_EQ(whole.compiledAfterFirstStep, 0u);
  ASSERT_EQ(cut.losses.size(), whole.losses.size());
  for (size_t i = 0; i < cut.losses.size(); ++i)
    EXPECT_NEAR(cut.losses[i], whole.losses[i], 1e-5 * whole.losses[i])
        << "step " << i;
  // The steps train: the loss goes down.
  EXPECT_LT(cut.losses.back(), cut.losses.front());
}

} // namespace
