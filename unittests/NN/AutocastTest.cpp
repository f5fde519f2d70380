//===- AutocastTest.cpp - Mixed precision by op ---------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// AutocastScope's op table (products narrow, reductions, softmax, norms and
// losses in Float32), checked by dtype and by value: each value against a
// double-precision loop over the inputs rounded as autocast rounds them
// (the host's bf16/f16 rounding), within one unit in the last place of the
// narrow result.
//
//===----------------------------------------------------------------------===//

#include "lazyc/nn.h"

#include "lazyc/Runtime/NarrowFloats.h"

#include "../API/ExpectError.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace lazyc;
using lazyc::test::expectError;

namespace {

/// `x` rounded to `dtype` (BFloat16 or Float16) and back.
double roundTo(DType dtype, double x) {
  if (dtype == DType::BFloat16)
    return bfloat16BitsToFloat(toBFloat16Bits(x));
  return float16BitsToFloat(toFloat16Bits(static_cast<float>(x)));
}

/// One unit in the last place of a narrow value near |x| (8 significant bits
/// for bf16, 11 for f16).
double ulpOf(DType dtype, double x) {
  int bits = dtype == DType::BFloat16 ? 8 : 11;
  int exponent = 0;
  std::frexp(x, &exponent);
  return std::ldexp(1.0, exponent - bits);
}

std::vector<float> valuesOf(const Tensor &x) {
  return cast(x, DType::Float32).toVector<float>();
}

/// A [rows, columns] row-major matrix of varied values in about [-2, 2].
std::vector<float> matrix(int64_t rows, int64_t columns, int salt) {
  std::vector<float> values(rows * columns);
  for (int64_t i = 0; i < rows * columns; ++i)
    values[i] = 2.0f * std::sin(0.37f * i + salt) * std::cos(0.11f * i);
  return values;
}

class AutocastTest : public ::testing::TestWithParam<DType> {};

// A Float32 product under autocast: both operands rounded to the narrow
// type, the products summed in f32, the sum rounded once.
TEST_P(AutocastTest, MatmulRunsNarrowFromFloat32Operands) {
  DType narrow = GetParam();
  constexpr int64_t m = 6, k = 40, n = 5;
  std::vector<float> a = matrix(m, k, 1), b = matrix(k, n, 2);
  Tensor product;
  {
    AutocastScope autocast(narrow);
    product =
        matmul(Tensor::fromVector(a, {m, k}), Tensor::fromVector(b, {k, n}));
  }
  EXPECT_EQ(product.dtype(), narrow);
  std::vector<float> got = valuesOf(product);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += roundTo(narrow, a[i * k + p]) * roundTo(narrow, b[p * n + j]);
      double expected = roundTo(narrow, sum);
      EXPECT_NEAR(got[i * n + j], expected, ulpOf(narrow, expected) + 1e-6)
          << "[" << i << ", " << j << "]";
    }
}

// sum, mean, softmax and logSoftmax, layerNorm and the losses give Float32
// from narrow inputs under autocast, computed from the narrow values
// exactly (the widening is exact).
TEST_P(AutocastTest, ReductionsSoftmaxNormsAndLossesRunInFloat32) {
  DType narrow = GetParam();
  constexpr int64_t rows = 3, columns = 7;
  std::vector<float> values = matrix(rows, columns, 3);
  Tensor x = cast(Tensor::fromVector(values, {rows, columns}), narrow);
  std::vector<double> wide(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    wide[i] = roundTo(narrow, values[i]);

  AutocastScope autocast(narrow);
  Tensor total = sum(x), average = mean(x, {1}), probabilities = softmax(x, 1),
         logProbabilities = logSoftmax(x, 1),
         normalized = nn::layerNorm(x, {columns}),
         loss = nn::crossEntropy(
             x, Tensor::fromVector(std::vector<int32_t>{0, 3, 6}, {rows}));
  for (const Tensor *result : {&total, &average, &probabilities,
                               &logProbabilities, &normalized, &loss})
    EXPECT_EQ(result->dtype(), DType::Float32);

  double expectedTotal = 0, expectedLoss = 0;
  for (double value : wide)
    expectedTotal += value;
  EXPECT_NEAR(total.item<float>(), expectedTotal, 1e-5);
  std::vector<float> gotAverage = average.toVector<float>(),
                     gotSoftmax = probabilities.toVector<float>(),
                     gotLogSoftmax = logProbabilities.toVector<float>(),
                     gotNormalized = normalized.toVector<float>();
  int targets[rows] = {0, 3, 6};
  for (int64_t i = 0; i < rows; ++i) {
    double rowSum = 0, largest = -INFINITY, exponentials = 0;
    for (int64_t j = 0; j < columns; ++j) {
      rowSum += wide[i * columns + j];
      largest = std::max(largest, wide[i * columns + j]);
    }
    for (int64_t j = 0; j < columns; ++j)
      exponentials += std::exp(wide[i * columns + j] - largest);
    double rowMean = rowSum / columns, variance = 0;
    for (int64_t j = 0; j < columns; ++j)
      variance += std::pow(wide[i * columns + j] - rowMean, 2) / columns;
    EXPECT_NEAR(gotAverage[i], rowMean, 1e-6);
    for (int64_t j = 0; j < columns; ++j) {
      double logProbability =
          wide[i * columns + j] - largest - std::log(exponentials);
      EXPECT_NEAR(gotSoftmax[i * columns + j], std::exp(logProbability), 1e-6);
      EXPECT_NEAR(gotLogSoftmax[i * columns + j], logProbability, 1e-5);
      EXPECT_NEAR(
          gotNormalized[i * columns + j],
          (wide[i * columns + j] - rowMean) / std::sqrt(variance + 1e-5), 1e-4);
    }
    expectedLoss -=
        (wide[i * columns + targets[i]] - largest - std::log(exponentials)) /
        rows;
  }
  EXPECT_NEAR(loss.item<float>(), expectedLoss, 1e-5);
}

// A linear layer's output stays narrow (the Float32 bias is cast to it);
// a convolution's too, computed from the rounded operands.
TEST_P(AutocastTest, LinearAndConvolutionOutputsAreNarrow) {
  DType narrow = GetParam();
  nn::Linear linear(8, 3, /*seed=*/4);
  linear.bias().assign(
      Tensor::fromVector(std::vector<float>{0.5f, -1, 2}, {3}));
  std::vector<float> x = matrix(2, 8, 5);
  std::vector<float> w = linear.weight().read().toVector<float>();
  Tensor y;
  {
    AutocastScope autocast(narrow);
    y = linear.forward(Tensor::fromVector(x, {2, 8}));
  }
  EXPECT_EQ(y.dtype(), narrow);
  std::vector<float> got = valuesOf(y);
  float bias[3] = {0.5f, -1, 2};
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < 8; ++p)
        sum += roundTo(narrow, x[i * 8 + p]) * roundTo(narrow, w[p * 3 + j]);
      double expected = roundTo(narrow, roundTo(narrow, sum) + bias[j]);
      EXPECT_NEAR(got[i * 3 + j], expected, 2 * ulpOf(narrow, expected));
    }

  // conv2d: [1, 2, 5, 5] images, [3, 2, 3, 3] filters, bias, padding 1.
  std::vector<float> images = matrix(1, 2 * 5 * 5, 6),
                     filters = matrix(3, 2 * 3 * 3, 7);
  std::vector<float> convBias = {0.25f, -0.5f, 1};
  nn::Conv2dOptions options;
  options.padding = {1, 1};
  Tensor out;
  {
    AutocastScope autocast(narrow);
    out = nn::conv2d(Tensor::fromVector(images, {1, 2, 5, 5}),
                     Tensor::fromVector(filters, {3, 2, 3, 3}),
                     Tensor::fromVector(convBias, {3}), options);
  }
  EXPECT_EQ(out.dtype(), narrow);
  std::vector<float> gotConv = valuesOf(out);
  for (int64_t f = 0; f < 3; ++f)
    for (int64_t r = 0; r < 5; ++r)
      for (int64_t c = 0; c < 5; ++c) {
        double sum = 0;
        for (int64_t ch = 0; ch < 2; ++ch)
          for (int64_t i = 0; i < 3; ++i)
            for (int64_t j = 0; j < 3; ++j) {
              int64_t y = r + i - 1, x = c + j - 1;
              if (y < 0 || y >= 5 || x < 0 || x >= 5)
                continue;
              sum += roundTo(narrow, images[(ch * 5 + y) * 5 + x]) *
                     roundTo(narrow, filters[((f * 2 + ch) * 3 + i) * 3 + j]);
            }
        double expected = roundTo(narrow, roundTo(narrow, sum) +
                                              roundTo(narrow, convBias[f]));
        EXPECT_NEAR(gotConv[(f * 5 + r) * 5 + c], expected,
                    2 * ulpOf(narrow, expected) + 1e-6)
            << "filter " << f << " at (" << r << ", " << c << ")";
      }
}

// Gradients flow through autocast's casts: a Float32 weight gets a Float32
// gradient, within the narrow type's rounding of the exact one.
TEST_P(AutocastTest, Float32WeightsGetFloat32Gradients) {
  DType narrow = GetParam();
  constexpr int64_t m = 4, k = 16, n = 3;
  std::vector<float> x = matrix(m, k, 8), w = matrix(k, n, 9),
                     target = matrix(m, n, 10);
  Variable weight(Tensor::fromVector(w, {k, n}), "w");
  GradientTape tape;
  Tensor loss;
  {
    AutocastScope autocast(narrow);
    Tensor y = matmul(Tensor::fromVector(x, {m, k}), weight.read());
    loss = nn::mseLoss(y, Tensor::fromVector(target, {m, n}));
  }
  EXPECT_EQ(loss.dtype(), DType::Float32);
  Tensor gradient = tape.gradient(loss, weight);
  EXPECT_EQ(gradient.dtype(), DType::Float32);
  // d/dw mean((x w - t)^2) = 2 / (m n) x^T (x w - t), exactly.
  std::vector<double> residual(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += double(x[i * k + p]) * w[p * n + j];
      residual[i * n + j] = sum - target[i * n + j];
    }
  std::vector<float> got = gradient.toVector<float>();
  double largest = 0;
  std::vector<double> expected(k * n);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t i = 0; i < m; ++i)
        sum += double(x[i * k + p]) * residual[i * n + j];
      expected[p * n + j] = 2.0 * sum / (m * n);
      largest = std::max(largest, std::abs(expected[p * n + j]));
    }
  // Each narrow rounding is within 2^-8 (bf16) relative; a few chain up.
  double tolerance = (narrow == DType::BFloat16 ? 0.03 : 0.004) * largest;
  for (int64_t i = 0; i < k * n; ++i)
    EXPECT_NEAR(got[i], expected[i], tolerance) << "element " << i;
}

INSTANTIATE_TEST_SUITE_P(NarrowTypes, AutocastTest,
                         ::testing::Values(DType::BFloat16, DType::Float16),
                         [](const auto &info) {
                           return std::string(dtypeName(info.param));
                         });

// Scopes nest and restore; a disabled scope turns autocast off; Float64
// and integer products are never cast.
TEST(AutocastScopeTest, ScopesNestAndLeaveWideTypesAlone) {
  Tensor a = Tensor::fromVector(std::vector<float>{1, 2, 3, 4}, {2, 2});
  EXPECT_FALSE(autocastDType());
  {
    AutocastScope outer(DType::BFloat16);
    EXPECT_EQ(autocastDType(), DType::BFloat16);
    EXPECT_EQ(matmul(a, a).dtype(), DType::BFloat16);
    EXPECT_EQ(matmul(cast(a, DType::Float64), a).dtype(), DType::Float64);
    EXPECT_EQ(matmul(cast(a, DType::Int32), cast(a, DType::Int32)).dtype(),
              DType::Int32);
    // Elementwise ops keep their inputs' promotion.
    EXPECT_EQ((a + 1.0).dtype(), DType::Float32);
    {
      AutocastScope off(DType::BFloat16, /*enabled=*/false);
      EXPECT_FALSE(autocastDType());
      EXPECT_EQ(matmul(a, a).dtype(), DType::Float32);
      AutocastScope half(DType::Float16);
      EXPECT_EQ(matmul(a, a).dtype(), DType::Float16);
    }
    EXPECT_EQ(autocastDType(), DType::BFloat16);
  }
  EXPECT_FALSE(autocastDType());
  EXPECT_EQ(matmul(a, a).dtype(), DType::Float32);
  // Outside autocast a narrow sum stays narrow.
  EXPECT_EQ(sum(cast(a, DType::BFloat16)).dtype(), DType::BFloat16);
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        AutocastScope wrong(DType::Float32);
      },
      "AutocastScope", "autocasts to BFloat16 or Float16, not Float32");
}

// A staged function is staged once per autocast setting it is called
// under, and each staging keeps its own types.
TEST(AutocastScopeTest, FunctionsAreStagedPerAutocastSetting) {
  auto product = lazyc::function(
      "product", [](const Tensor &a, const Tensor &b) { return matmul(a, b); });
  Tensor a = Tensor::fromVector(std::vector<float>{1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(product(a, a).dtype(), DType::Float32);
  {
    AutocastScope autocast(DType::BFloat16);
    Tensor narrow = product(a, a);
    EXPECT_EQ(narrow.dtype(), DType::BFloat16);
    EXPECT_EQ(valuesOf(narrow), (std::vector<float>{7, 10, 15, 22}));
  }
  EXPECT_EQ(product(a, a).dtype(), DType::Float32);
}

} // namespace
