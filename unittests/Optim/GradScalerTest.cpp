//===- GradScalerTest.cpp - Dynamic loss scaling --------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// GradScaler's scale, unscale, skipped steps and scale updates against the
// rule written out by hand (powers of two, so the expected values are
// exact), and the promise that the check and the update stay in the step's
// trace: one compile for good and skipped steps alike.
//
//===----------------------------------------------------------------------===//

#include "lazyc/nn.h"

#include "../API/ExpectError.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace lazyc;
using lazyc::test::expectError;

namespace {

Tensor vector(std::vector<float> values) {
  int64_t size = static_cast<int64_t>(values.size());
  return Tensor::fromVector(values, {size});
}

TEST(GradScalerTest, ScalesTheLossAndUnscalesGradients) {
  optim::GradScaler scaler;
  EXPECT_EQ(scaler.currentScale().item<float>(), 65536.0f);
  Tensor loss = full({}, 0.75, DType::Float16);
  Tensor scaled = scaler.scale(loss);
  EXPECT_EQ(scaled.dtype(), DType::Float32);
  EXPECT_EQ(scaled.item<float>(), 0.75f * 65536.0f);
  std::vector<Tensor> gradients =
      scaler.unscale({vector({65536.0f, -131072.0f, 32768.0f})});
  EXPECT_EQ(gradients[0].toVector<float>(),
            (std::vector<float>{1.0f, -2.0f, 0.5f}));

  optim::GradScaler::Options off;
  off.enabled = false;
  optim::GradScaler disabled(off);
  EXPECT_EQ(disabled.scale(full({}, 3.0)).item<float>(), 3.0f);
}

// SGD (lr 0.5) under the scaler, growth interval 2: step 1 good, step 2
// overflows (skipped, scale halved, tracker reset), steps 3 and 4 good
// (the scale doubles after the second). Each step is one trace; all four
// run the same compiled code.
TEST(GradScalerTest, SkipsStepsWithInfOrNanAndAdaptsTheScale) {
  Variable w(vector({1.0f, 2.0f}), "w");
  optim::SGD::Options sgdOptions;
  sgdOptions.learningRate = 0.5;
  optim::SGD sgd({&w}, sgdOptions);
  optim::GradScaler::Options options;
  options.initialScale = 1024;
  options.growthInterval = 2;
  optim::GradScaler scaler(options);

  float inf = std::numeric_limits<float>::infinity();
  float nan = std::numeric_limits<float>::quiet_NaN();
  // Scaled gradients: the scale times (0.5, 1), except the bad steps.
  struct Step {
    std::vector<float> scaled;
    bool skipped;
    std::vector<float> weights;
    float scale;
  };
  std::vector<Step> steps = {
      {{512.0f, 1024.0f}, false, {0.75f, 1.5f}, 1024.0f},
      {{inf, 1024.0f}, true, {0.75f, 1.5f}, 512.0f},
      {{256.0f, 512.0f}, false, {0.5f, 1.0f}, 512.0f},
      {{256.0f, 512.0f}, false, {0.25f, 0.5f}, 1024.0f},
      {{512.0f, nan}, true, {0.25f, 0.5f}, 512.0f},
  };
  resetMetrics();
  uint64_t compiledAfterFirst = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    std::vector<Tensor> gradients = scaler.unscale({vector(steps[i].scaled)});
    Tensor skipped = scaler.step(sgd, gradients);
    lazyc::sync();
    if (i == 0)
      compiledAfterFirst = metrics().tracesCompiled;
    EXPECT_EQ(skipped.item<bool>(), steps[i].skipped) << "step " << i;
    EXPECT_EQ(w.read().toVector<float>(), steps[i].weights) << "step " << i;
    EXPECT_EQ(scaler.currentScale().item<float>(), steps[i].scale)
        << "step " << i;
  }
  EXPECT_EQ(metrics().tracesCompiled, compiledAfterFirst)
      << "a skipped step compiled code of its own";
}

// A skipped step leaves Adam's state (its step count and moments) as it
// was: the next good step is Adam's first.
TEST(GradScalerTest, SkippedStepsLeaveOptimizerStateUnchanged) {
  auto run = [](bool withOverflow) {
    Variable w(vector({1.0f, -1.0f}), "w");
    optim::Adam adam({&w}, optim::Adam::Options{});
    optim::GradScaler scaler;
    float inf = std::numeric_limits<float>::infinity();
    if (withOverflow)
      scaler.step(adam, scaler.unscale({vector({inf, 0.0f})}));
    float scale = scaler.currentScale().item<float>();
    scaler.step(adam, scaler.unscale({vector({0.25f * scale, scale})}));
    return std::make_pair(w.read().toVector<float>(),
                          adam.stepCount().item<float>());
  };
  auto [plainWeights, plainSteps] = run(false);
  auto [skippedWeights, skippedSteps] = run(true);
  EXPECT_EQ(plainSteps, 1.0f);
  EXPECT_EQ(skippedSteps, 1.0f);
  EXPECT_EQ(skippedWeights, plainWeights);
  // Adam's first step moves each weight by the rate against its gradient's
  // sign.
  EXPECT_NEAR(plainWeights[0], 1.0f - 1e-3f, 1e-6);
  EXPECT_NEAR(plainWeights[1], -1.0f - 1e-3f, 1e-6);
}

TEST(GradScalerTest, BadSettingsAreErrors) {
  optim::GradScaler::Options options;
  options.backoffFactor = 1.5;
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        optim::GradScaler scaler(options);
      },
      "GradScaler", "needs a positive finite initial scale");
  optim::GradScaler scaler;
  Tensor integers = Tensor::fromVector(std::vector<int32_t>{1}, {1});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        scaler.scale(integers);
      },
      "GradScaler::scale", "needs a floating-point loss, got Int32");
}

} // namespace
