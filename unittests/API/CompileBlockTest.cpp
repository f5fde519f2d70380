//===- CompileBlockTest.cpp - Blocks compiled on request ------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A CompileBlock around each layer of a network makes each layer a trace of
// its own, forward and backward, with the automatic search for repeated
// blocks off: the compiles do not grow with depth, and the values and
// gradients are those of the same network computed in double precision by
// loops on the host. Inside a control-flow body and in eager mode the block
// does nothing; an error inside one reaches the caller.
//
//===----------------------------------------------------------------------===//

#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <cmath>
#include <memory>
#include <vector>

using namespace lazyc;

namespace {

constexpr int64_t kBatch = 3, kWidth = 8;

/// Deterministic weights of layer `layer`, [kWidth, kWidth] row-major.
std::vector<float> weightsOf(int layer) {
  std::vector<float> values(kWidth * kWidth);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(0.4 * std::sin(0.61 * i + 1.7 * layer));
  return values;
}

std::vector<float> inputValues() {
  std::vector<float> values(kBatch * kWidth);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(std::cos(0.3 * i) - 0.2);
  return values;
}

/// One layer: tanh(x @ w).
Tensor layer(const Tensor &x, const Tensor &w) { return tanh(matmul(x, w)); }

/// The network on the host in double precision: every layer's output
/// (outputs[0] is the input).
std::vector<std::vector<double>> forwardOnHost(int layers) {
  std::vector<float> input = inputValues();
  std::vector<std::vector<double>> outputs{{input.begin(), input.end()}};
  for (int l = 0; l < layers; ++l) {
    std::vector<float> w = weightsOf(l);
    const std::vector<double> &x = outputs.back();
    std::vector<double> y(kBatch * kWidth);
    for (int64_t r = 0; r < kBatch; ++r)
      for (int64_t c = 0; c < kWidth; ++c) {
        double dot = 0;
        for (int64_t k = 0; k < kWidth; ++k)
          dot += x[r * kWidth + k] * w[k * kWidth + c];
        y[r * kWidth + c] = std::tanh(dot);
      }
    outputs.push_back(std::move(y));
  }
  return outputs;
}

/// d mean(y * y) / d w for every layer's weights, by the chain rule on the
/// host.
std::vector<std::vector<double>> gradientsOnHost(int layers) {
  std::vector<std::vector<double>> outputs = forwardOnHost(layers);
  const double count = kBatch * kWidth;
  std::vector<double> dy(kBatch * kWidth);
  for (size_t i = 0; i < dy.size(); ++i)
    dy[i] = 2 * outputs.back()[i] / count;
  std::vector<std::vector<double>> gradients(layers);
  for (int l = layers - 1; l >= 0; --l) {
    const std::vector<double> &x = outputs[l], &y = outputs[l + 1];
    std::vector<float> w = weightsOf(l);
    std::vector<double> dz(dy.size()), dx(dy.size(), 0.0);
    for (size_t i = 0; i < dz.size(); ++i)
      dz[i] = dy[i] * (1 - y[i] * y[i]);
    gradients[l].assign(kWidth * kWidth, 0.0);
    for (int64_t r = 0; r < kBatch; ++r)
      for (int64_t k = 0; k < kWidth; ++k)
        for (int64_t c = 0; c < kWidth; ++c) {
          gradients[l][k * kWidth + c] +=
              x[r * kWidth + k] * dz[r * kWidth + c];
          dx[r * kWidth + k] += dz[r * kWidth + c] * w[k * kWidth + c];
        }
    dy = std::move(dx);
  }
  return gradients;
}

void expectClose(const std::vector<float> &got,
                 const std::vector<double> &expected, const char *what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], expected[i],
                2e-5 * std::max(1.0, std::fabs(expected[i])))
        << what << " element " << i;
}

class CompileBlockTest : public ::testing::Test {
protected:
  void SetUp() override {
    setRepeatedBlocks(false);
    clearCache();
    resetMetrics();
  }
  void TearDown() override { setRepeatedBlocks(true); }
};

TEST_F(CompileBlockTest, EachLayerIsATraceCompiledOnce) {
  constexpr int kLayers = 12;
  std::vector<Tensor> weights;
  for (int l = 0; l < kLayers; ++l)
    weights.push_back(Tensor::fromVector(weightsOf(l), {kWidth, kWidth}));
  Tensor x = Tensor::fromVector(inputValues(), {kBatch, kWidth});
  for (int l = 0; l < kLayers; ++l) {
    CompileBlock block;
    x = layer(x, weights[l]);
  }
  // Nothing ran at the bounds; reading x runs the trace, cut at them.
  EXPECT_FALSE(x.isMaterialized());
  EXPECT_EQ(metrics().materializations, 0u);
  expectClose(x.toVector<float>(), forwardOnHost(kLayers).back(), "output");
  Metrics m = metrics();
  EXPECT_EQ(m.compileBlocks, uint64_t(kLayers));
  EXPECT_EQ(m.tracesCompiled, 1u);
  EXPECT_EQ(m.cacheHits, uint64_t(kLayers - 1));
}

TEST_F(CompileBlockTest, WithoutBlocksTheNetworkIsOneTrace) {
  // The comparison the test above stands against: the same loop, no block.
  constexpr int kLayers = 12;
  Tensor x = Tensor::fromVector(inputValues(), {kBatch, kWidth});
  for (int l = 0; l < kLayers; ++l)
    x = layer(x, Tensor::fromVector(weightsOf(l), {kWidth, kWidth}));
  expectClose(x.toVector<float>(), forwardOnHost(kLayers).back(), "output");
  EXPECT_EQ(metrics().compileBlocks, 0u);
  EXPECT_EQ(metrics().tracesCompiled, 1u);
  EXPECT_EQ(metrics().materializations, 1u);
}

/// The gradients of mean(y * y) for a `layers`-deep network with a block
/// around each layer; counts the traces compiled.
std::vector<std::vector<float>> blockGradients(int layers, uint64_t &compiled) {
  clearCache();
  resetMetrics();
  std::vector<std::unique_ptr<Variable>> weights;
  std::vector<Variable *> list;
  for (int l = 0; l < layers; ++l) {
    weights.push_back(std::make_unique<Variable>(
        Tensor::fromVector(weightsOf(l), {kWidth, kWidth})));
    list.push_back(weights.back().get());
  }
  GradientTape tape;
  Tensor x = Tensor::fromVector(inputValues(), {kBatch, kWidth});
  for (int l = 0; l < layers; ++l) {
    CompileBlock block;
    x = layer(x, weights[l]->read());
  }
  std::vector<Tensor> gradients = tape.gradient(mean(x * x), list);
  // Forward and backward in one trace, cut at the bounds.
  lazyc::sync();
  std::vector<std::vector<float>> values;
  for (const Tensor &g : gradients)
    values.push_back(g.toVector<float>());
  compiled = metrics().tracesCompiled;
  // The backward pass was cut at the blocks' bounds too: a layer's
  // forward and its backward are each one structure (the first layer's
  // backward another: it computes no input gradient), the rest hits.
  EXPECT_EQ(metrics().materializations, metrics().compileBlocks);
  EXPECT_GE(metrics().compileBlocks, uint64_t(2 * layers));
  EXPECT_GE(metrics().cacheHits, uint64_t(2 * layers - 4));
  return values;
}

TEST_F(CompileBlockTest, TheBackwardPassIsCutAtTheSameBounds) {
  uint64_t compiledShallow = 0, compiledDeep = 0;
  std::vector<std::vector<float>> shallow = blockGradients(4, compiledShallow);
  std::vector<std::vector<float>> deep = blockGradients(10, compiledDeep);
  // A layer's forward and its backward compile once, whatever the depth.
  EXPECT_EQ(compiledDeep, compiledShallow);
  std::vector<std::vector<double>> expected = gradientsOnHost(10);
  for (int l = 0; l < 10; ++l)
    expectClose(deep[l], expected[l], "gradient");
  expected = gradientsOnHost(4);
  for (int l = 0; l < 4; ++l)
    expectClose(shallow[l], expected[l], "gradient");
}

TEST_F(CompileBlockTest, NestedBlocksCutAtEveryBound) {
  Tensor x = Tensor::fromVector(inputValues(), {kBatch, kWidth});
  Tensor w0 = Tensor::fromVector(weightsOf(0), {kWidth, kWidth});
  Tensor w1 = Tensor::fromVector(weightsOf(1), {kWidth, kWidth});
  {
    CompileBlock outer;
    x = layer(x, w0);
    {
      CompileBlock inner;
      x = layer(x, w1);
    }
  }
  std::vector<std::vector<double>> outputs = forwardOnHost(2);
  expectClose(x.toVector<float>(), outputs.back(), "output");
  // Each layer was a trace of its own (one structure: one compile).
  EXPECT_EQ(metrics().materializations, 2u);
  EXPECT_EQ(metrics().tracesCompiled, 1u);
}

TEST_F(CompileBlockTest, ALazycFunctionCallIsCutLikeOtherCode) {
  // A function's ops are recorded like any others: a block in it cuts
  // each call from the next.
  Tensor w0 = Tensor::fromVector(weightsOf(0), {kWidth, kWidth});
  Tensor w1 = Tensor::fromVector(weightsOf(1), {kWidth, kWidth});
  auto f = lazyc::function("layer", [&](Tensor x, Tensor w) {
    return compileBlock([&] { return layer(x, w); });
  });
  Tensor x = Tensor::fromVector(inputValues(), {kBatch, kWidth});
  Tensor y = f(f(x, w0), w1);
  expectClose(y.toVector<float>(), forwardOnHost(2).back(), "output");
  EXPECT_EQ(metrics().compileBlocks, 2u);
  EXPECT_EQ(metrics().tracesCompiled, 1u);
}

TEST_F(CompileBlockTest, InAControlFlowBodyOrInEagerModeItDoesNothing) {
  Tensor w = Tensor::fromVector(weightsOf(0), {kWidth, kWidth});
  Tensor x = Tensor::fromVector(inputValues(), {kBatch, kWidth});
  std::vector<double> expected = forwardOnHost(1).back();
  // The branches are regions of one op: nothing in them can be cut.
  Tensor y = cond(
      sum(x) > -1e9f,
      [&] {
        CompileBlock block;
        return layer(x, w);
      },
      [&] { return x; });
  expectClose(y.toVector<float>(), expected, "cond");
  EXPECT_EQ(metrics().compileBlocks, 0u);

  EagerScope eager;
  Tensor z = compileBlock([&] { return layer(x, w); });
  expectClose(z.toVector<float>(), expected, "eager");
  EXPECT_EQ(metrics().compileBlocks, 0u);
}

TEST_F(CompileBlockTest, AnErrorInsideABlockReachesTheCaller) {
  Tensor x = ones({kBatch, kWidth});
  Tensor pending = x * 3.0f;
  try {
    CompileBlock block;
    // [3, 8] @ [3, 8]: the recording error unwinds the block.
    (void)matmul(pending, x);
    FAIL() << "matmul of mismatched shapes did not throw";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("matmul"), std::string::npos)
        << error.what();
  }
  for (float value : pending.toVector<float>())
    EXPECT_EQ(value, 3.0f);
}

} // namespace
