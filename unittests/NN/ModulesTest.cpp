//===- ModulesTest.cpp - Conv2d, LayerNorm, Sequential, a small CNN -------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The modules hold what the functions need (checked against the functions'
// definitions by loops here), Sequential chains them and collects their
// parameters, and a small CNN built from them trains as one cached trace
// per step.
//
//===----------------------------------------------------------------------===//

#include "../API/ExpectError.h"
#include "GradientCheck.h"

#include "lazyc/nn.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace lazyc;
using lazyc::test::expectError;
using lazyc::test::testValues;

namespace {

TEST(Conv2dModuleTest, HoldsSeededWeightsAndZeroBias) {
  nn::Conv2d::Options options;
  options.conv.padding = 1;
  nn::Conv2d conv(2, 3, 3, /*seed=*/9, options, "c1");
  EXPECT_EQ(conv.weight().shape(), (Shape{3, 2, 3, 3}));
  EXPECT_EQ(conv.weight().name(), "c1.weight");
  EXPECT_EQ(conv.bias().read().toVector<float>(),
            (std::vector<float>{0, 0, 0}));
  // Kaiming uniform with fan-in 2 * 3 * 3: within sqrt(6 / 18).
  std::vector<float> w = conv.weight().read().toVector<float>();
  for (float value : w)
    EXPECT_LT(std::abs(value), std::sqrt(6.0 / 18));
  EXPECT_EQ(w,
            nn::Conv2d(2, 3, 3, 9, options).weight().read().toVector<float>());
  Tensor x = Tensor::fromVector<float>(std::vector<float>(2 * 5 * 5, 1.0f),
                                       {1, 2, 5, 5});
  // All-ones input: the center output is the sum of all weights.
  std::vector<float> y = conv(x).toVector<float>();
  EXPECT_EQ(y.size(), 3u * 5 * 5);
  for (int o = 0; o < 3; ++o) {
    double total = 0;
    for (int i = 0; i < 18; ++i)
      total += w[o * 18 + i];
    EXPECT_NEAR(y[o * 25 + 12], total, 1e-5);
  }
  EXPECT_EQ(conv.parameters().size(), 2u);
  nn::Conv2d::Options noBias;
  noBias.bias = false;
  EXPECT_EQ(nn::Conv2d(2, 3, 3, 1, noBias).parameters().size(), 1u);
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::Conv2d bad(3, 4, 3, 1, nn::Conv2d::Options{{1, 0, 1, 2}});
      },
      "Conv2d", "groups dividing both channel counts");
}

TEST(LayerNormModuleTest, StartsAsThePlainNormalization) {
  nn::LayerNorm norm({4}, 1e-5, true, DType::Float32, "ln");
  EXPECT_EQ(norm.parameters().size(), 2u);
  EXPECT_EQ(norm.weight().name(), "ln.weight");
  Tensor x = Tensor::fromVector<float>({1, 2, 3, 4}, {1, 4});
  EXPECT_EQ(norm(x).toVector<float>(), nn::layerNorm(x, {4}).toVector<float>());
  EXPECT_TRUE(nn::LayerNorm({4}, 1e-5, false).parameters().empty());
}

TEST(SequentialTest, ChainsLayersAndCollectsTheirParameters) {
  nn::Sequential net(nn::Linear(3, 4, /*seed=*/1), relu,
                     nn::Dropout(0.5, /*seed=*/2), nn::Linear(4, 2, 3));
  EXPECT_EQ(net.size(), 4u);
  EXPECT_EQ(net.parameters().size(), 4u);
  nn::Linear *first = net.get<nn::Linear>(0);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(net.get<nn::Dropout>(0), nullptr);
  EXPECT_EQ(net.parameters()[0], &first->weight());
  // Evaluation mode reaches the dropout: the output is the plain chain.
  net.setTraining(false);
  EXPECT_FALSE(net.get<nn::Dropout>(2)->training());
  std::vector<double> xv = testValues(6, 1);
  Tensor x = Tensor::fromVector<float>(std::vector<float>(xv.begin(), xv.end()),
                                       {2, 3});
  nn::Linear *last = net.get<nn::Linear>(3);
  Tensor expected = (*last)(relu((*first)(x)));
  EXPECT_EQ(net(x).toVector<float>(), expected.toVector<float>());
  // Moving the chain keeps its layers (and their Variables) where they are.
  nn::Sequential moved = std::move(net);
  EXPECT_EQ(moved.get<nn::Linear>(0), first);
  // Lambdas are layers too.
  moved.add([](const Tensor &h) { return h * 2.0f; });
  EXPECT_EQ(moved(x).toVector<float>(), (expected * 2.0f).toVector<float>());
}

TEST(SequentialTest, SmallCnnTrainsAsOneCachedTracePerStep) {
  // LeNet in miniature on 8x8 images of two classes: a bright upper half or
  // a bright lower half, with noise.
  const int64_t batch = 16;
  std::vector<float> images(batch * 64);
  std::vector<int32_t> labels(batch);
  std::vector<double> noise = testValues(batch * 64, 3);
  for (int64_t b = 0; b < batch; ++b) {
    labels[b] = static_cast<int32_t>(b % 2);
    for (int64_t p = 0; p < 64; ++p) {
      bool upper = p < 32;
      images[b * 64 + p] = float((upper == (labels[b] == 0) ? 1.0 : 0.0) +
                                 0.3 * noise[b * 64 + p]);
    }
  }
  Tensor x = Tensor::fromVector(images, {batch, 1, 8, 8});
  Tensor y = Tensor::fromVector(labels, {batch});
  nn::Conv2d::Options padded;
  padded.conv.padding = 1;
  nn::Sequential net(
      nn::Conv2d(1, 4, 3, /*seed=*/1, padded), nn::BatchNorm2d(4), relu,
      [](const Tensor &h) { return nn::maxPool2d(h, 2); },
      nn::Conv2d(4, 8, 3, /*seed=*/2),
      [](const Tensor &h) { return nn::avgPool2d(relu(h), 2); },
      [](const Tensor &h) { return reshape(h, {h.shape()[0], -1}); },
      nn::Dropout(0.1, /*seed=*/3), nn::Linear(8, 2, /*seed=*/4));
  optim::SGD::Options options;
  options.learningRate = 0.1;
  options.momentum = 0.9;
  optim::SGD sgd(net.parameters(), options);
  auto step = [&] {
    Tensor loss;
    {
      GradientTape tape;
      loss = nn::crossEntropy(net(x), y);
      sgd.step(tape.gradient(loss, net.parameters()));
    }
    lazyc::sync();
    return loss.item<float>();
  };
  float first = step();
  step();
  step();
  uint64_t compiled = metrics().tracesCompiled;
  float last = first;
  for (int i = 0; i < 30; ++i)
    last = step();
  EXPECT_EQ(metrics().tracesCompiled, compiled);
  EXPECT_LT(last, 0.5f * first);
  // Evaluation mode: the running averages normalize, nothing drops.
  net.setTraining(false);
  std::vector<float> logits = net(x).toVector<float>();
  int correct = 0;
  for (int64_t b = 0; b < batch; ++b)
    correct += (logits[b * 2 + 1] > logits[b * 2]) == (labels[b] == 1);
  EXPECT_GE(correct, 14);
}

} // namespace
