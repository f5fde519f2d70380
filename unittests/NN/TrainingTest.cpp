//===- TrainingTest.cpp - Whole training steps ----------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Forward, GradientTape backward and optimizer update as one trace per step:
// one step against gradients derived by hand, the loss falling, lazy against
// eager, and the steady state (no compiles, flat memory).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Runtime.h"
#include "lazyc/Trace/Trace.h"
#include "lazyc/nn.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace lazyc;

namespace {

class TrainingTest : public ::testing::Test {
protected:
  void SetUp() override { resetMetrics(); }
};

/// Records one step (forward, backward, update) and runs it as one trace;
/// returns the loss.
float trainStep(nn::Mlp &model, optim::Optimizer &optimizer,
                const Tensor &inputs, const Tensor &labels) {
  Tensor loss;
  {
    GradientTape tape;
    loss = nn::crossEntropy(model(inputs), labels);
    optimizer.step(tape.gradient(loss, nn::refs(model.parameters())));
  }
  lazyc::sync();
  return loss.item<float>();
}

TEST_F(TrainingTest, OneSgdStepMatchesHandDerivedGradients) {
  // logits = x W + b; dLoss/dlogits = (softmax - onehot) / batch;
  // dW = x^T dlogits, db = column sums of dlogits.
  const int batch = 5, in = 4, classes = 3;
  nn::Linear layer(in, classes, /*seed=*/21);
  layer.bias().assign(Tensor::fromVector<float>({0.1f, -0.2f, 0.3f}, {3}));
  std::vector<float> w = layer.weight().read().toVector<float>();
  std::vector<float> b = {0.1f, -0.2f, 0.3f};
  std::vector<float> x(batch * in);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::cos(0.37f * i) * 2;
  std::vector<int32_t> labels = {0, 2, 1, 1, 0};

  std::vector<double> dLogits(batch * classes);
  double expectedLoss = 0;
  for (int r = 0; r < batch; ++r) {
    double z[classes], largest = -1e300, total = 0;
    for (int c = 0; c < classes; ++c) {
      z[c] = b[c];
      for (int k = 0; k < in; ++k)
        z[c] += double(x[r * in + k]) * w[k * classes + c];
      largest = std::max(largest, z[c]);
    }
    for (int c = 0; c < classes; ++c)
      total += std::exp(z[c] - largest);
    for (int c = 0; c < classes; ++c) {
      double p = std::exp(z[c] - largest) / total;
      dLogits[r * classes + c] = (p - (c == labels[r])) / batch;
    }
    expectedLoss -= (z[labels[r]] - largest - std::log(total)) / batch;
  }

  optim::SGD::Options options;
  options.learningRate = 0.5;
  optim::SGD sgd(layer.parameters(), options);
  Tensor inputs = Tensor::fromVector(x, {batch, in});
  Tensor labelTensor = Tensor::fromVector(labels, {batch});
  Tensor loss;
  std::vector<Tensor> gradients;
  {
    GradientTape tape;
    loss = nn::crossEntropy(layer(inputs), labelTensor);
    gradients = tape.gradient(loss, nn::refs(layer.parameters()));
  }
  sgd.step(gradients);
  lazyc::sync();
  EXPECT_NEAR(loss.item<float>(), expectedLoss, 1e-5);

  std::vector<float> newW = layer.weight().read().toVector<float>();
  std::vector<float> newB = layer.bias().read().toVector<float>();
  for (int c = 0; c < classes; ++c) {
    double db = 0;
    for (int r = 0; r < batch; ++r)
      db += dLogits[r * classes + c];
    EXPECT_NEAR(newB[c], b[c] - 0.5 * db, 1e-5);
    for (int k = 0; k < in; ++k) {
      double dw = 0;
      for (int r = 0; r < batch; ++r)
        dw += double(x[r * in + k]) * dLogits[r * classes + c];
      EXPECT_NEAR(newW[k * classes + c], w[k * classes + c] - 0.5 * dw, 1e-5);
    }
  }
}

TEST_F(TrainingTest, MlpLossFallsOnSyntheticData) {
  data::Dataset set = data::syntheticClassification(256, 16, 4, /*seed=*/3);
  nn::Mlp model({16, 32, 4}, /*seed=*/1);
  optim::Adam::Options options;
  options.learningRate = 1e-2;
  optim::Adam adam(model.parameters(), options);
  const int batch = 32, batchesPerEpoch = 256 / batch;
  std::vector<double> epochLoss;
  for (int epoch = 0; epoch < 4; ++epoch) {
    double total = 0;
    for (int b = 0; b < batchesPerEpoch; ++b)
      total += trainStep(model, adam, set.batchInputs(b * batch, batch),
                         set.batchLabels(b * batch, batch));
    epochLoss.push_back(total / batchesPerEpoch);
  }
  // Chance is log(4) = 1.39.
  EXPECT_GT(epochLoss[0], 0.3);
  EXPECT_LT(epochLoss.back(), 0.25 * epochLoss[0]);
  for (size_t i = 1; i < epochLoss.size(); ++i)
    EXPECT_LT(epochLoss[i], epochLoss[i - 1]);
}

/// The parameters after `steps` SGD steps (with momentum) of a small MLP
/// (8-16-3). SGD rather than Adam keeps the eager run's distinct one-op
/// kernels, each compiled once, few.
std::vector<std::vector<float>> trainedParameters(int steps) {
  data::Dataset set = data::syntheticClassification(64, 8, 3, /*seed=*/5);
  nn::Mlp model({8, 16, 3}, /*seed=*/9);
  optim::SGD::Options options;
  options.learningRate = 0.1;
  options.momentum = 0.9;
  optim::SGD sgd(model.parameters(), options);
  for (int step = 0; step < steps; ++step)
    trainStep(model, sgd, set.batchInputs(step * 16, 16),
              set.batchLabels(step * 16, 16));
  std::vector<std::vector<float>> values;
  for (Variable *parameter : model.parameters())
    values.push_back(parameter->read().toVector<float>());
  return values;
}

TEST_F(TrainingTest, LazyAndEagerTrainingAgree) {
  std::vector<std::vector<float>> lazy = trainedParameters(5);
  uint64_t lazyKernels = metrics().kernelsRun;
  std::vector<std::vector<float>> eager;
  {
    EagerScope scope;
    eager = trainedParameters(5);
  }
  EXPECT_GT(metrics().byEager, 10 * lazyKernels); // really op by op
  ASSERT_EQ(lazy.size(), eager.size());
  std::vector<std::vector<float>> initial = trainedParameters(0);
  for (size_t p = 0; p < lazy.size(); ++p) {
    ASSERT_EQ(lazy[p].size(), eager[p].size());
    bool moved = false;
    for (size_t i = 0; i < lazy[p].size(); ++i) {
      EXPECT_NEAR(lazy[p][i], eager[p][i], 1e-5) << "parameter " << p;
      moved |= lazy[p][i] != initial[p][i];
    }
    EXPECT_TRUE(moved) << "parameter " << p;
  }
}

TEST_F(TrainingTest, SteadyStateStepsCompileNothingAndKeepMemoryFlat) {
  data::Dataset set = data::syntheticClassification(64, 8, 3, /*seed=*/2);
  nn::Mlp model({8, 16, 3}, /*seed=*/4);
  optim::SGD::Options options;
  options.learningRate = 0.05;
  options.momentum = 0.9;
  optim::SGD sgd(model.parameters(), options);
  // The batches are made once: fresh tensors per step would be fine too,
  // but they would mix the allocator's counts with the data's.
  std::vector<Tensor> inputs, labels;
  for (int b = 0; b < 4; ++b) {
    inputs.push_back(set.batchInputs(b * 16, 16));
    labels.push_back(set.batchLabels(b * 16, 16));
  }
  for (int step = 0; step < 3; ++step)
    trainStep(model, sgd, inputs[step % 4], labels[step % 4]);
  EXPECT_LE(metrics().tracesCompiled, 2u); // the first step, then the rest

  resetMetrics();
  int64_t nodesAfterWarmUp = trace::liveNodeCount();
  int64_t mostNodes = 0;
  uint64_t bytesAtStep100 = 0;
  for (int step = 0; step < 1000; ++step) {
    trainStep(model, sgd, inputs[step % 4], labels[step % 4]);
    mostNodes = std::max(mostNodes, trace::liveNodeCount());
    if (step == 100)
      bytesAtStep100 = lazyrt_get_allocator_stats().bytes_in_use;
  }
  Metrics counts = metrics();
  EXPECT_EQ(counts.tracesCompiled, 0u);
  EXPECT_EQ(counts.cacheMisses, 0u);
  EXPECT_EQ(counts.cacheHits, 1000u); // one trace per step
  EXPECT_EQ(counts.materializations, 1000u);
  EXPECT_EQ(counts.bySync, 1000u);
  EXPECT_LE(lazyrt_get_allocator_stats().bytes_in_use, bytesAtStep100);
  EXPECT_LE(mostNodes, nodesAfterWarmUp);
}

TEST_F(TrainingTest, StepsUpdateParametersInPlace) {
  // Allocations of the code compiled for these sizes: other tests' MLPs of
  // this structure with other sizes would make the step's sizes dynamic.
  clearCache();
  data::Dataset set = data::syntheticClassification(16, 256, 10, /*seed=*/3);
  nn::Mlp model({256, 256, 10}, /*seed=*/5);
  optim::SGD::Options options;
  options.momentum = 0.9;
  optim::SGD sgd(model.parameters(), options);
  Tensor inputs = set.batchInputs(0, 16), labels = set.batchLabels(0, 16);
  for (int step = 0; step < 3; ++step)
    trainStep(model, sgd, inputs, labels);
  // How many buffers a step allocates (kernel temporaries and outputs;
  // the count does not depend on how the threads interleave). Held old
  // parameters must keep their values.
  auto allocationsOfStep = [&](bool holdOldParameters) {
    std::vector<Tensor> old;
    std::vector<std::vector<float>> oldValues;
    if (holdOldParameters)
      for (Variable *parameter : model.parameters()) {
        old.push_back(parameter->read());
        oldValues.push_back(old.back().toVector<float>());
      }
    uint64_t before = lazyrt_get_allocator_stats().allocations;
    trainStep(model, sgd, inputs, labels);
    uint64_t allocations = lazyrt_get_allocator_stats().allocations - before;
    for (size_t i = 0; i < old.size(); ++i)
      EXPECT_EQ(old[i].toVector<float>(), oldValues[i]) << "parameter " << i;
    return allocations;
  };
  resetMetrics();
  uint64_t inPlace = allocationsOfStep(false);
  // Every parameter and every velocity was written over its old value.
  EXPECT_EQ(metrics().updatedInPlace, 2 * model.parameters().size());
  // Held old parameters cannot be overwritten: a new buffer for each, in
  // which a weight's gradient product may then be computed instead of in a
  // temporary of its own (when the sizes are dynamic, as other tests' MLPs
  // make them: two fewer allocations).
  uint64_t held = allocationsOfStep(true);
  EXPECT_EQ(metrics().updatedInPlace, 3 * model.parameters().size());
  EXPECT_GT(held, inPlace);
  EXPECT_LE(held, inPlace + model.parameters().size());
}

} // namespace
