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
                         uint64_t *compilesAfterFirstStep = nullptr) {
  Variable w(cast(Tensor::fromVector(initialWeights, {4}), dtype), "w");
  Optimizer optimizer({&w}, options);
  uint64_t compiledAfterOne = 0;
  for (int step = 0; step < steps; ++step) {
    optimizer.step({cast(Tensor::fromVector(gradientAt(step), {4}), dtype)});
    lazyc::sync();
    if (step == 0)
      compiledAfterOne = metrics().tracesCompiled;
  }
  if (compilesAfterFirstStep)
    *compilesAfterFirstStep = metrics().tracesCompiled - compiledAfterOne;
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
  // trace: after the first step nothing compiles or is promoted.
  EXPECT_EQ(steadyCompiles, 0u);
  EXPECT_LE(metrics().tracesCompiled, 2u); // initial values, step 1
  EXPECT_EQ(metrics().constantsPromoted, 0u);

  // Float64 parameters keep their precision.
  std::vector<float> wide = train<optim::Adam>(options, 7, DType::Float64);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(wide[i], expected[i], 1e-6 * (1 + std::abs(expected[i])));
}

// The initial values of the Variables (a weight computed from data, Adam's
// step count and zero moments) are computed before the first step, the
// literals filled and the rest in a trace of their own: its trace then reads
// them as arguments, like every later step's, so the loop compiles its step
// once and later steps are cache hits. (The state's literal zeros in the first
// step made it compile twice.) Five weights: a structure no other test
// compiles.
TEST_F(OptimizerTest, TheFirstStepIsTheOnlyCompile) {
  std::vector<float> initial = {0.5f, -1.0f, 2.0f, 0.0f, 1.5f};
  // A computed initial value (halves, doubled exactly): a trace of its own.
  // Adam's zero moments are literals, filled without a compile.
  std::vector<float> halves = {0.25f, -0.5f, 1.0f, 0.0f, 0.75f};
  Variable w(Tensor::fromVector(halves, {5}) * 2.0f, "w");
  optim::Adam::Options options;
  options.learningRate = 0.1;
  optim::Adam adam({&w}, options);
  auto gradient = [](int step) {
    std::vector<float> g(5);
    for (int i = 0; i < 5; ++i)
      g[i] = std::cos(0.3f + step * 0.9f + i * 0.7f);
    return g;
  };
  adam.step({Tensor::fromVector(gradient(0), {5})});
  lazyc::sync();
  EXPECT_EQ(metrics().byInitialValues, 1u);
  EXPECT_EQ(metrics().tracesCompiled, 2u); // w's initial value, the step
  Metrics first = metrics();
  bool named = false;
  for (const CountedCause &site : first.topMaterializations)
    named |= site.what.find("(initial values)") != std::string::npos;
  EXPECT_TRUE(named);
  for (int step = 1; step < 5; ++step) {
    adam.step({Tensor::fromVector(gradient(step), {5})});
    lazyc::sync();
  }
  EXPECT_EQ(metrics().tracesCompiled, first.tracesCompiled);
  EXPECT_EQ(metrics().cacheMisses, first.cacheMisses);
  EXPECT_EQ(metrics().cacheHits - first.cacheHits, 4u);
  EXPECT_EQ(metrics().byInitialValues, 1u);

  // torch.optim.Adam's update, in double precision.
  std::vector<double> expected(initial.begin(), initial.end());
  std::vector<double> m(5, 0.0), v(5, 0.0);
  for (int t = 1; t <= 5; ++t) {
    std::vector<float> g = gradient(t - 1);
    for (int i = 0; i < 5; ++i) {
      m[i] = 0.9 * m[i] + 0.1 * g[i];
      v[i] = 0.999 * v[i] + 0.001 * double(g[i]) * g[i];
      expected[i] -= 0.1 / (1 - std::pow(0.9, t)) * m[i] /
                     (std::sqrt(v[i] / (1 - std::pow(0.999, t))) + 1e-8);
    }
  }
  std::vector<float> got = w.read().toVector<float>();
  for (int i = 0; i < 5; ++i)
    EXPECT_NEAR(got[i], expected[i], 1e-5 * (1 + std::abs(expected[i])));
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

TEST_F(OptimizerTest, AdamWDecaysTheWeightNotTheGradient) {
  // One step by hand, w = 1, grad = 0.5, lr = 0.1, weight decay 0.1:
  // m = 0.1 * 0.5 = 0.05, v = 0.001 * 0.25 = 0.00025; corrected 0.5 and
  // 0.25; the step 0.1 * 0.5 / (0.5 + 1e-8); the decay 0.1 * 0.1 * 1.
  // w = 1 - 0.01 - 0.1 * 0.5 / (0.5 + 1e-8) = 0.89 (0.8900000020).
  // (Adam's L2 decay instead adds 0.1 to the gradient: g = 0.6, and the
  // normalized step is the same 0.1: w = 0.9.)
  Variable w(Tensor::fromVector<double>({1.0}, {1}), "w");
  optim::AdamW::Options options;
  options.learningRate = 0.1;
  options.weightDecay = 0.1;
  optim::AdamW adamw({&w}, options);
  adamw.step({Tensor::fromVector<double>({0.5}, {1})});
  lazyc::sync();
  EXPECT_NEAR(w.read().item<double>(), 1 - 0.01 - 0.1 * 0.5 / (0.5 + 1e-8),
              1e-12);

  // Over 7 steps of varied gradients, against the same rule in double.
  std::vector<double> expected(initialWeights.begin(), initialWeights.end());
  std::vector<double> m(4, 0.0), v(4, 0.0);
  optim::AdamW::Options seven;
  seven.learningRate = 0.05;
  seven.weightDecay = 0.2;
  for (int t = 1; t <= 7; ++t) {
    std::vector<float> grad = gradientAt(t - 1);
    for (int i = 0; i < 4; ++i) {
      m[i] = seven.beta1 * m[i] + (1 - seven.beta1) * grad[i];
      v[i] = seven.beta2 * v[i] + (1 - seven.beta2) * grad[i] * grad[i];
      double step = seven.learningRate / (1 - std::pow(seven.beta1, t)) * m[i] /
                    (std::sqrt(v[i]) / std::sqrt(1 - std::pow(seven.beta2, t)) +
                     seven.epsilon);
      expected[i] -=
          seven.learningRate * seven.weightDecay * expected[i] + step;
    }
  }
  std::vector<float> got = train<optim::AdamW>(seven, 7, DType::Float32);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(got[i], expected[i], 1e-5 * (1 + std::abs(expected[i])));
  // torch.optim.AdamW's default decay.
  EXPECT_EQ(optim::AdamW::Options().weightDecay, 0.01);
}

// Parameter groups: the weight decays by its group's 0.2, the bias (its
// own group) not at all, with the rate and moments shared; against the
// same AdamW rule in double precision, one decay per parameter.
TEST_F(OptimizerTest, ParameterGroupsHaveTheirOwnWeightDecay) {
  Variable w(Tensor::fromVector(initialWeights, {4}), "w");
  Variable b(Tensor::fromVector(std::vector<float>{0.25f, -0.5f}, {2}), "b");
  optim::AdamW::Options options;
  options.learningRate = 0.05;
  optim::AdamW adamw({{{&w}, 0.2}, {{&b}, 0.0}}, options);
  ASSERT_EQ(adamw.parameters().size(), 2u);
  EXPECT_EQ(adamw.parameters()[0], &w);
  EXPECT_EQ(adamw.parameters()[1], &b);

  std::vector<double> expected(initialWeights.begin(), initialWeights.end());
  expected.push_back(0.25);
  expected.push_back(-0.5);
  const double decays[6] = {0.2, 0.2, 0.2, 0.2, 0.0, 0.0};
  std::vector<double> m(6, 0.0), v(6, 0.0);
  for (int t = 1; t <= 5; ++t) {
    std::vector<float> grad = gradientAt(t - 1);
    std::vector<float> biasGrad = {grad[0] * 0.5f, -grad[1]};
    adamw.step(
        {Tensor::fromVector(grad, {4}), Tensor::fromVector(biasGrad, {2})});
    lazyc::sync();
    grad.insert(grad.end(), biasGrad.begin(), biasGrad.end());
    for (int i = 0; i < 6; ++i) {
      m[i] = 0.9 * m[i] + 0.1 * grad[i];
      v[i] = 0.999 * v[i] + 0.001 * double(grad[i]) * grad[i];
      double step =
          0.05 / (1 - std::pow(0.9, t)) * m[i] /
          (std::sqrt(v[i]) / std::sqrt(1 - std::pow(0.999, t)) + 1e-8);
      expected[i] -= 0.05 * decays[i] * expected[i] + step;
    }
  }
  std::vector<float> gotW = w.read().toVector<float>();
  std::vector<float> gotB = b.read().toVector<float>();
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(gotW[i], expected[i], 1e-5 * (1 + std::abs(expected[i])));
  for (int i = 0; i < 2; ++i)
    EXPECT_NEAR(gotB[i], expected[4 + i],
                1e-5 * (1 + std::abs(expected[4 + i])));

  // A negative decay names its group.
  optim::Adam::Options plain;
  try {
    optim::Adam bad({{{&w}, 0.1}, {{&b}, -1.0}}, plain);
    FAIL() << "a negative weight decay was accepted";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("parameter group 1"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(OptimizerTest, ClipGradNormScalesToTheGlobalNorm) {
  // Gradients [3, 4] and [12]: the global norm is sqrt(9 + 16 + 144) = 13.
  std::vector<Tensor> gradients = {Tensor::fromVector<float>({3, 4}, {2}),
                                   Tensor::fromVector<float>({12}, {1})};
  Tensor norm = optim::clipGradNorm(gradients, 6.5);
  EXPECT_EQ(norm.item<float>(), 13.0f);
  // Scaled by 6.5 / (13 + 1e-6) = 0.49999996: [1.5, 2] and [6], to f32.
  double scale = 6.5 / (13 + 1e-6);
  std::vector<float> first = gradients[0].toVector<float>();
  EXPECT_NEAR(first[0], 3 * scale, 1e-6);
  EXPECT_NEAR(first[1], 4 * scale, 1e-6);
  EXPECT_NEAR(gradients[1].item<float>(), 12 * scale, 1e-6);

  // Below the maximum, nothing changes (the scale is clamped to 1); a
  // Float64 gradient makes the norm Float64.
  std::vector<Tensor> small = {Tensor::fromVector<double>({0.3, -0.4}, {2})};
  Tensor smallNorm = optim::clipGradNorm(small, 1.0);
  EXPECT_EQ(smallNorm.dtype(), DType::Float64);
  EXPECT_NEAR(smallNorm.item<double>(), 0.5, 1e-15);
  EXPECT_EQ(small[0].toVector<double>(), (std::vector<double>{0.3, -0.4}));

  // Integer gradients and a non-positive maximum are errors.
  std::vector<Tensor> ints = {Tensor::fromVector<int32_t>({1}, {1})};
  EXPECT_THROW(optim::clipGradNorm(ints, 1.0), Error);
  EXPECT_THROW(optim::clipGradNorm(gradients, 0.0), Error);
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
