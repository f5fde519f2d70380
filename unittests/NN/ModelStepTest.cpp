//===- ModelStepTest.cpp - CNN and transformer steps: one trace, flat memory ===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The models of examples/cnn_mnist.cpp and examples/char_transformer.cpp in
// miniature (the same layers, small sizes): after warm-up, a training step
// (forward, GradientTape backward, Adam) is one cache hit per step,
// compiles nothing over 1,000 steps, and neither the runtime's bytes in use
// nor the number of live graph nodes grows. The loss falls, so the steps
// do train.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Runtime.h"
#include "lazyc/Trace/Trace.h"
#include "lazyc/nn.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <functional>
#include <vector>

using namespace lazyc;

namespace {

constexpr int kSteps = 1000;

/// Runs `step` (which records one training step and returns its loss)
/// through warm-up and kSteps steady steps over `batches` batches, and checks
/// that the steady steps compile nothing, are one cache hit each, and keep
/// memory and the graph flat. Returns the first and the last loss.
std::pair<float, float>
checkSteadySteps(const std::function<Tensor(int64_t batch)> &recordStep) {
  auto step = [&](int64_t i) {
    Tensor loss = recordStep(i);
    lazyc::sync(); // forward, backward and update: one trace
    return loss.item<float>();
  };
  float first = step(0);
  for (int64_t i = 1; i < 3; ++i)
    step(i);
  resetMetrics();
  int64_t nodesAfterWarmUp = trace::liveNodeCount();
  int64_t mostNodes = 0;
  uint64_t bytesAtStep100 = 0, mostBytes = 0;
  float last = first;
  for (int64_t i = 0; i < kSteps; ++i) {
    last = step(i);
    mostNodes = std::max(mostNodes, trace::liveNodeCount());
    uint64_t bytes = lazyrt_get_allocator_stats().bytes_in_use;
    if (i == 100)
      bytesAtStep100 = bytes;
    if (i >= 100)
      mostBytes = std::max(mostBytes, bytes);
  }
  Metrics counts = metrics();
  EXPECT_EQ(counts.tracesCompiled, 0u);
  EXPECT_EQ(counts.cacheMisses, 0u);
  // One trace per step (item() reads the memoized loss).
  EXPECT_EQ(counts.cacheHits, static_cast<uint64_t>(kSteps));
  EXPECT_EQ(counts.bySync, static_cast<uint64_t>(kSteps));
  EXPECT_LE(mostBytes, bytesAtStep100);
  EXPECT_LE(lazyrt_get_allocator_stats().bytes_in_use, bytesAtStep100);
  EXPECT_LE(mostNodes, nodesAfterWarmUp);
  return {first, last};
}

TEST(ModelStepTest, CnnStepIsOneCachedTraceWithFlatMemory) {
  // examples/cnn_mnist.cpp's 8x8 CNN, narrower: conv 3x3 -> relu -> maxpool
  // -> conv 3x3 -> relu -> maxpool -> linear -> relu -> linear, on two
  // classes of 8x8 images (a bright upper or lower half, with noise).
  const int64_t batch = 8;
  std::vector<Tensor> images, labels;
  for (int64_t b = 0; b < 4; ++b) {
    std::vector<int32_t> y(batch);
    for (int64_t i = 0; i < batch; ++i)
      y[i] = static_cast<int32_t>((i + b) % 2);
    Tensor noise = randomUniform({batch, 1, 8, 8}, -0.3f, 0.3f, 100 + b);
    Tensor upper =
        cast(reshape(arange(0, 8), {1, 1, 8, 1}) < 4.0f, DType::Float32);
    Tensor label = Tensor::fromVector(y, {batch});
    Tensor isZero = reshape(cast(label == 0, DType::Float32), {batch, 1, 1, 1});
    Tensor x = isZero * upper + (1.0f - isZero) * (1.0f - upper) + noise;
    x.toVector<float>(); // materialized once: data, not part of the step
    images.push_back(x);
    labels.push_back(label);
  }
  nn::Conv2d::Options padded;
  padded.conv.padding = 1;
  nn::Sequential net(
      nn::Conv2d(1, 4, 3, /*seed=*/1, padded), relu,
      [](const Tensor &h) { return nn::maxPool2d(h, 2); },
      nn::Conv2d(4, 8, 3, /*seed=*/2, padded), relu,
      [](const Tensor &h) { return nn::maxPool2d(h, 2); },
      [](const Tensor &h) { return reshape(h, {h.shape()[0], 32}); },
      nn::Linear(32, 16, /*seed=*/3), relu, nn::Linear(16, 2, /*seed=*/4));
  std::vector<Variable *> parameters = net.parameters();
  optim::Adam::Options options;
  options.learningRate = 1e-3;
  optim::Adam adam(parameters, options);
  auto [first, last] = checkSteadySteps([&](int64_t i) {
    Tensor loss;
    GradientTape tape;
    loss = nn::crossEntropy(net(images[i % 4]), labels[i % 4]);
    adam.step(tape.gradient(loss, nn::refs(parameters)));
    return loss;
  });
  EXPECT_LT(last, 0.5f * first);
}

TEST(ModelStepTest, TransformerStepIsOneCachedTraceWithFlatMemory) {
  // examples/char_transformer.cpp's model in miniature: token and position
  // embeddings, one pre-LayerNorm block (causal MultiHeadAttention, a GELU
  // MLP), a final LayerNorm and an output projection; the task is to
  // predict the next token of a fixed cyclic sequence.
  const int64_t vocabulary = 12, dim = 16, heads = 2, length = 8, batch = 4;
  Variable tokens(randomNormal({vocabulary, dim}, 0, 0.02, /*seed=*/1),
                  "tokens");
  Variable positions(randomNormal({length, dim}, 0, 0.02, /*seed=*/2),
                     "positions");
  nn::LayerNorm ln1({dim}), ln2({dim}), lnFinal({dim});
  nn::MultiHeadAttention::Options causal;
  causal.causal = true;
  nn::MultiHeadAttention attention(dim, heads, /*seed=*/3, causal);
  nn::Linear fc1(dim, 4 * dim, /*seed=*/5), fc2(4 * dim, dim, /*seed=*/6);
  nn::Linear head(dim, vocabulary, /*seed=*/7);
  std::vector<Variable *> parameters = {&tokens, &positions};
  for (auto part : {ln1.parameters(), attention.parameters(), ln2.parameters(),
                    fc1.parameters(), fc2.parameters(), lnFinal.parameters(),
                    head.parameters()})
    parameters.insert(parameters.end(), part.begin(), part.end());
  auto forward = [&](const Tensor &ids) {
    Tensor x = nn::embedding(tokens.read(), ids) + positions.read();
    Tensor h = x + attention(ln1(x));
    h = h + fc2(gelu(fc1(ln2(h))));
    return head(lnFinal(h));
  };
  // Windows of the sequence 0, 1, ..., 11, 0, 1, ... at four offsets.
  std::vector<Tensor> inputs, targets;
  for (int64_t b = 0; b < 4; ++b) {
    std::vector<int32_t> x(batch * length), y(batch * length);
    for (int64_t r = 0; r < batch; ++r)
      for (int64_t t = 0; t < length; ++t) {
        x[r * length + t] = static_cast<int32_t>((b + 3 * r + t) % vocabulary);
        y[r * length + t] =
            static_cast<int32_t>((b + 3 * r + t + 1) % vocabulary);
      }
    inputs.push_back(Tensor::fromVector(x, {batch, length}));
    targets.push_back(Tensor::fromVector(y, {batch * length}));
  }
  optim::Adam::Options options;
  options.learningRate = 3e-3;
  optim::Adam adam(parameters, options);
  auto [first, last] = checkSteadySteps([&](int64_t i) {
    Tensor loss;
    GradientTape tape;
    loss = nn::crossEntropy(
        reshape(forward(inputs[i % 4]), {batch * length, vocabulary}),
        targets[i % 4]);
    adam.step(tape.gradient(loss, nn::refs(parameters)));
    return loss;
  });
  EXPECT_LT(last, 0.25f * first);
}

} // namespace
