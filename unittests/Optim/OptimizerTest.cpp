//===- OptimizerTest.cpp - SGD and Adam against hand-written updates ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The gradients are given tensors (no tape), so these tests check the update
// rules alone: each against the same rule written as a double-precision loop,
// and against metrics() for what each step compiles.
//
//===----------------------------------------------------------------------===//

#include "lazyc/nn.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace lazyc;

namespace {

const std::vector<float> initialWeights = {0.5f, -1.0f, 2.0f, 0.0f};

/// The gradient given at step `step` (from 0): varied in sign and size.
std::vector<float> gradientAt(int step) {
  std::vector<float> g(4);
  for (int i = 0; i < 4; ++i)
    g[i] = std::sin(1.0f + step * 0.7f + i * 1.3f) * (1 + i);
  return g;
}

/// Runs `steps` optimizer steps, one trace each, and returns the weights.
template <typename Optimizer, typename Options>
std::vector<float> train(Options options, int steps, DType dtype,
                         uint64_t *compilesAfterSecondStep = nullptr) {
  Variable w(cast(Tensor::fromVector(initialWeights, {4}), dtype), "w");
  Optimizer optimizer({&w}, options);
  uint64_t compiledAfterTwo = 0;
  for (int step = 0; step < steps; ++step) {
    optimizer.step({cast(Tensor::fromVector(gradientAt(step), {4}), dtype)});
    lazyc::sync();
    if (step == 1)
      compiledAfterTwo = metrics().tracesCompiled;
  }
  if (compilesAfterSecondStep)
    *compilesAfterSecondStep = metrics().tracesCompiled - compiledAfterTwo;
  return w.read().toVector<float>();
}

class OptimizerTest : public ::testing::Test {
protected:
  void SetUp() override { resetMetrics(); }
};

TEST_F(OptimizerTest, SgdWithMomentumAndWeightDecay) {
  optim::SGD::Options options;
  options.learningRate = 0.1;
  options.momentum = 0.9;
  options.weightDecay = 0.01;
  std::vector<double> w(initialWeights.begin(), initialWeights.end());
  std::vector<double> velocity(4, 0.0);
  for (int step = 0; step < 6; ++step) {
    std::vector<float> g = gradientAt(step);
    for (int i = 0; i < 4; ++i) {
      velocity[i] = 0.9 * velocity[i] + (g[i] + 0.01 * w[i]);
      w[i] -= 0.1 * velocity[i];
    }
  }
  uint64_t steadyCompiles = 99;
  std::vector<float> got =
      train<optim::SGD>(options, 6, DType::Float32, &steadyCompiles);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(got[i], w[i], 1e-5 * (1 + std::abs(w[i])));
  EXPECT_EQ(steadyCompiles, 0u);
}

TEST_F(OptimizerTest, PlainSgd) {
  optim::SGD::Options options;
  options.learningRate = 0.5;
  std::vector<float> got = train<optim::SGD>(options, 3, DType::Float32);
  for (int i = 0; i < 4; ++i) {
    double expected = initialWeights[i];
    for (int step = 0; step < 3; ++step)
      expected -= 0.5 * gradientAt(step)[i];
    EXPECT_NEAR(got[i], expected, 1e-5);
  }
}

/// torch.optim.Adam's update, in double precision.
std::vector<double> referenceAdam(const optim::Adam::Options &o, int steps) {
  std::vector<double> w(initialWeights.begin(), initialWeights.end());
  std::vector<double> m(4, 0.0), v(4, 0.0);
  for (int t = 1; t <= steps; ++t) {
    std::vector<float> grad = gradientAt(t - 1);
    for (int i = 0; i < 4; ++i) {
      double g = grad[i] + o.weightDecay * w[i];
      m[i] = o.beta1 * m[i] + (1 - o.beta1) * g;
      v[i] = o.beta2 * v[i] + (1 - o.beta2) * g * g;
      double correction1 = 1 - std::pow(o.beta1, t);
      double correction2 = 1 - std::pow(o.beta2, t);
      w[i] -= o.learningRate / correction1 * m[i] /
              (std::sqrt(v[i]) / std::sqrt(correction2) + o.epsilon);
    }
  }
  return w;
}

TEST_F(OptimizerTest, AdamWithBiasCorrection) {
  optim::Adam::Options options;
  options.learningRate = 0.05;
  options.weightDecay = 0.1;
  std::vector<double> expected = referenceAdam(options, 7);
  uint64_t steadyCompiles = 99;
  std::vector<float> got =
      train<optim::Adam>(options, 7, DType::Float32, &steadyCompiles);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(got[i], expected[i], 1e-5 * (1 + std::abs(expected[i])));
  // The step count and bias corrections change every step, inside the
  // trace: after the first two steps nothing compiles or is promoted.
  EXPECT_EQ(steadyCompiles, 0u);
  EXPECT_LE(metrics().tracesCompiled, 2u); // steps 1 and 2
  EXPECT_EQ(metrics().constantsPromoted, 0u);

  // Float64 parameters keep their precision.
  std::vector<float> wide = train<optim::Adam>(options, 7, DType::Float64);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(wide[i], expected[i], 1e-6 * (1 + std::abs(expected[i])));
}

TEST_F(OptimizerTest, AdamStepCountAndLearningRateChanges) {
  Variable w(Tensor::fromVector(initialWeights, {4}));
  optim::Adam::Options options;
  options.learningRate = 0.05;
  optim::Adam adam({&w}, options);
  for (int step = 0; step < 4; ++step) {
    if (step == 2)
      adam.setLearningRate(0.01);
    adam.step({Tensor::fromVector(gradientAt(step), {4})});
    lazyc::sync();
  }
  EXPECT_EQ(adam.stepCount().item<float>(), 4.0f);
  // Steps 1, 2, then the new rate: one promotion of the rate literal, the
  // step count read; the last step is a hit.
  EXPECT_EQ(metrics().constantsPromoted, 1u);
}

TEST_F(OptimizerTest, GradientsMustMatchTheParameters) {
  Variable w(zeros({4}), "w");
  optim::SGD sgd({&w}, optim::SGD::Options());
  auto errorOf = [](auto run) -> std::string {
    try {
      run();
    } catch (const Error &error) {
      return error.what();
    }
    return "";
  };
  EXPECT_NE(errorOf([&] {
              sgd.step({});
            }).find("[lazyc::step] got 0 gradients for 1 parameters"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { sgd.step({zeros({3})}); })
                .find("the gradient of parameter 0 (w) has shape [3], the "
                      "parameter [4]"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              sgd.step({zeros({4}, DType::Float64)});
            }).find("is Float64, the parameter Float32"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              optim::SGD bad({nullptr}, optim::SGD::Options());
            }).find("parameter 0 is a null pointer"),
            std::string::npos);
}

} // namespace
