//===- NormalizationTest.cpp - layerNorm and batchNorm --------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Values against loops over the same inputs written here in double, the
// running averages against the update formula by hand, gradients against
// central differences.
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

TEST(LayerNormTest, MatchesLoopsOverTheTrailingDimensions) {
  // x [2, 3, 4] normalized over [3, 4], with weight and bias.
  std::vector<double> x = testValues(24, 1), w = testValues(12, 2),
                      b = testValues(12, 3);
  Tensor y = nn::layerNorm(Tensor::fromVector(x, {2, 3, 4}), {3, 4},
                           Tensor::fromVector(w, {3, 4}),
                           Tensor::fromVector(b, {3, 4}), 1e-5);
  std::vector<double> got = y.toVector<double>();
  for (int n = 0; n < 2; ++n) {
    double mean = 0, var = 0;
    for (int i = 0; i < 12; ++i)
      mean += x[n * 12 + i] / 12;
    for (int i = 0; i < 12; ++i)
      var += (x[n * 12 + i] - mean) * (x[n * 12 + i] - mean) / 12;
    for (int i = 0; i < 12; ++i)
      EXPECT_NEAR(got[n * 12 + i],
                  (x[n * 12 + i] - mean) / std::sqrt(var + 1e-5) * w[i] + b[i],
                  1e-12);
  }
  // Without the affine map, over the last dimension, in Float32.
  std::vector<float> xf = {1, 2, 3, 4, -1, 0, 1, 6};
  std::vector<float> plain =
      nn::layerNorm(Tensor::fromVector(xf, {2, 4}), {4}).toVector<float>();
  double mean = 2.5, sd = std::sqrt(1.25 + 1e-5);
  EXPECT_NEAR(plain[0], (1 - mean) / sd, 1e-5);
  EXPECT_NEAR(plain[3], (4 - mean) / sd, 1e-5);
  double mean2 = 1.5, sd2 = std::sqrt((6.25 + 2.25 + 0.25 + 20.25) / 4 + 1e-5);
  EXPECT_NEAR(plain[7], (6 - mean2) / sd2, 1e-5);
}

TEST(LayerNormTest, GradientsMatchFiniteDifferences) {
  lazyc::test::expectGradientsMatchDifferences(
      [](const std::vector<Tensor> &in) {
        return nn::layerNorm(in[0], {5}, in[1], in[2], 1e-3);
      },
      {testValues(15, 4), testValues(5, 5), testValues(5, 6)},
      {{3, 5}, {5}, {5}});
}

TEST(LayerNormTest, ErrorsNameTheShapesAndTheLine) {
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::layerNorm(zeros({2, 3, 4}), {3});
      },
      "layerNorm",
      "the normalized shape [3] must be a nonempty trailing part of the "
      "input's [2, 3, 4]");
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::layerNorm(zeros({2, 4}), {4}, zeros({3}));
      },
      "layerNorm", "the weight must be [4], got [3]");
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::layerNorm(zeros({2, 4}, DType::Int32), {4});
      },
      "layerNorm", "the input must be floating point, got Int32 [2, 4]");
}

/// Per-channel batch statistics of x [N, C, H, W] (biased variance).
void channelStats(const std::vector<double> &x, int n, int c, int hw,
                  std::vector<double> &mean, std::vector<double> &var) {
  mean.assign(c, 0);
  var.assign(c, 0);
  int count = n * hw;
  for (int b = 0; b < n; ++b)
    for (int ch = 0; ch < c; ++ch)
      for (int p = 0; p < hw; ++p)
        mean[ch] += x[(b * c + ch) * hw + p] / count;
  for (int b = 0; b < n; ++b)
    for (int ch = 0; ch < c; ++ch)
      for (int p = 0; p < hw; ++p) {
        double d = x[(b * c + ch) * hw + p] - mean[ch];
        var[ch] += d * d / count;
      }
}

TEST(BatchNormTest, TrainingUsesBatchStatisticsAndUpdatesRunningAverages) {
  const int n = 3, c = 2, hw = 4;
  std::vector<double> x = testValues(n * c * hw, 7);
  std::vector<double> w = {1.5, -0.5}, b = {0.25, 1};
  Variable runningMean(Tensor::fromVector<double>({0.1, -0.2}, {2}), "mean");
  Variable runningVar(Tensor::fromVector<double>({1, 2}, {2}), "var");
  Tensor y = nn::batchNorm(Tensor::fromVector(x, {n, c, 2, 2}), &runningMean,
                           &runningVar, Tensor::fromVector(w, {2}),
                           Tensor::fromVector(b, {2}), /*training=*/true,
                           /*momentum=*/0.25, /*eps=*/1e-5);
  std::vector<double> got = y.toVector<double>();
  std::vector<double> mean, var;
  channelStats(x, n, c, hw, mean, var);
  for (int bi = 0; bi < n; ++bi)
    for (int ch = 0; ch < c; ++ch)
      for (int p = 0; p < hw; ++p) {
        int i = (bi * c + ch) * hw + p;
        EXPECT_NEAR(got[i],
                    (x[i] - mean[ch]) / std::sqrt(var[ch] + 1e-5) * w[ch] +
                        b[ch],
                    1e-12);
      }
  // running = 0.75 running + 0.25 batch; the variance's unbiased (12 / 11).
  std::vector<double> newMean = runningMean.read().toVector<double>();
  std::vector<double> newVar = runningVar.read().toVector<double>();
  double start[2][2] = {{0.1, 1}, {-0.2, 2}};
  for (int ch = 0; ch < c; ++ch) {
    EXPECT_NEAR(newMean[ch], 0.75 * start[ch][0] + 0.25 * mean[ch], 1e-12);
    EXPECT_NEAR(newVar[ch], 0.75 * start[ch][1] + 0.25 * var[ch] * 12 / 11,
                1e-12);
  }

  // Evaluation normalizes with the running averages and changes nothing.
  std::vector<double> evaluated =
      nn::batchNorm(Tensor::fromVector(x, {n, c, 2, 2}), &runningMean,
                    &runningVar, Tensor(), Tensor(), /*training=*/false)
          .toVector<double>();
  for (int bi = 0; bi < n; ++bi)
    for (int ch = 0; ch < c; ++ch)
      for (int p = 0; p < hw; ++p) {
        int i = (bi * c + ch) * hw + p;
        EXPECT_NEAR(evaluated[i],
                    (x[i] - newMean[ch]) / std::sqrt(newVar[ch] + 1e-5), 1e-12);
      }
  EXPECT_EQ(runningMean.read().toVector<double>(), newMean);
}

TEST(BatchNormTest, TrainingGradientsMatchFiniteDifferences) {
  // Through the batch statistics (no running averages: the loss is then a
  // pure function of the inputs).
  lazyc::test::expectGradientsMatchDifferences(
      [](const std::vector<Tensor> &in) {
        return nn::batchNorm(in[0], nullptr, nullptr, in[1], in[2], true, 0.1,
                             1e-3);
      },
      {testValues(3 * 2 * 2 * 2, 8), testValues(2, 9), testValues(2, 10)},
      {{3, 2, 2, 2}, {2}, {2}});
}

TEST(BatchNormTest, ModuleTrainsAndEvaluatesInOneTracePerMode) {
  nn::BatchNorm2d bn(2, "bn");
  EXPECT_EQ(bn.parameters().size(), 2u);
  EXPECT_EQ(bn.buffers().size(), 2u);
  EXPECT_EQ(bn.runningMean().name(), "bn.running_mean");
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 2, 2, 2, 2, 0, 0, 0, 4};
  Tensor input = Tensor::fromVector(x, {2, 2, 2, 2});
  Tensor y = bn(input);
  // Channel 0 holds {1, 2, 3, 4, 2, 2, 2, 2}: mean 2.25.
  EXPECT_NEAR(bn.runningMean().read().toVector<float>()[0], 0.1 * 2.25, 1e-6);
  EXPECT_NEAR(sum(y).item<float>(), 0, 1e-4);
  bn.setTraining(false);
  EXPECT_FALSE(bn.training());
  float before = bn.runningMean().read().toVector<float>()[0];
  bn(input).toVector<float>();
  EXPECT_EQ(bn.runningMean().read().toVector<float>()[0], before);
}

TEST(BatchNormTest, ErrorsNameTheShapesAndTheLine) {
  Variable mean(zeros({3}), "m"), var(ones({3}), "v");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        nn::batchNorm(zeros({2, 4, 5}), &mean, &var, Tensor(), Tensor(), true);
      },
      "batchNorm", "the running average 'm' must be floating point [4]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        nn::batchNorm(zeros({2, 3}), nullptr, nullptr, Tensor(), Tensor(),
                      false);
      },
      "batchNorm", "none were given");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        nn::batchNorm(zeros({1, 3}), nullptr, nullptr, Tensor(), Tensor(),
                      true);
      },
      "batchNorm", "needs more than one value per channel in training");
  nn::BatchNorm2d module(3);
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        module(zeros({2, 3, 4}));
      },
      "BatchNorm2d", "needs an input [N, C, H, W], got Float32 [2, 3, 4]");
}

} // namespace
