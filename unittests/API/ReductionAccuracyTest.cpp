//===- ReductionAccuracyTest.cpp - Reductions against float64 at scale ----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Float reductions of millions of elements, along every axis of tall and wide
// shapes, checked against float64 sums of the same data with the bound of
// pairwise summation as the tolerance: |error| <= log2(n) eps sum |x|, eps
// the dtype's machine epsilon (2^-23 for f32). A sum that adds its terms to
// one accumulator in turn is off by up to n eps sum |x| (2% at 2^24 terms of
// squares); these tests fail on such code.
//
//===----------------------------------------------------------------------===//

#include "lazyc/lazyc.h"
#include "lazyc/nn.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using namespace lazyc;

namespace {

constexpr double kFloatEps = 0x1p-23;

/// Element i of a deterministic sequence uniform in [-1, 1).
float uniformAt(uint64_t i) {
  uint32_t bits =
      static_cast<uint32_t>((i * 2654435761u + 12345u) & 0xffffffffu);
  return static_cast<float>(static_cast<double>(bits) * 0x1p-31 - 1.0);
}

std::vector<float> uniform(int64_t n, float offset = 0) {
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = uniformAt(i) + offset;
  return values;
}

/// Squares of that sequence, in [0, 1): small terms, whose roundings in a
/// long running total all err downwards.
std::vector<float> squares(int64_t n) {
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = uniformAt(i) * uniformAt(i);
  return values;
}

/// The bound of pairwise summation for `n` terms, relative to sum |x|.
double pairwiseBound(int64_t n, double eps = kFloatEps) {
  return std::max(1.0, std::log2(static_cast<double>(n))) * eps;
}

/// Float64 sums of `values` (a row-major `shape`) over `axes`, and the sums
/// of their absolute values, in the layout of the reduced result.
struct ExactSums {
  std::vector<double> sums, absolute;
  int64_t terms = 1;
};

ExactSums exactSums(const std::vector<float> &values, const Shape &shape,
                    const std::vector<int64_t> &axes) {
  ExactSums exact;
  std::vector<bool> reduced(shape.size(), axes.empty());
  for (int64_t axis : axes)
    reduced[axis] = true;
  int64_t outputs = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    (reduced[d] ? exact.terms : outputs) *= shape[d];
  exact.sums.assign(outputs, 0.0);
  exact.absolute.assign(outputs, 0.0);
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t out = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      if (!reduced[d])
        out = out * shape[d] + index[d];
    exact.sums[out] += values[i];
    exact.absolute[out] += std::fabs(static_cast<double>(values[i]));
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return exact;
}

/// Expects every element of `got` within the pairwise bound of `exact`.
void expectWithinBound(const std::vector<float> &got, const ExactSums &exact,
                       const std::string &what) {
  ASSERT_EQ(got.size(), exact.sums.size()) << what;
  double bound = pairwiseBound(exact.terms);
  double worst = 0;
  for (size_t k = 0; k < got.size(); ++k)
    worst = std::max(worst, std::fabs(got[k] - exact.sums[k]) /
                                std::max(exact.absolute[k], 1e-300));
  EXPECT_LE(worst, bound) << what << ": relative error " << worst << " over "
                          << exact.terms << " terms";
}

class ReductionAccuracyTest : public ::testing::Test {};

TEST_F(ReductionAccuracyTest, SumOfSquaresOf2Pow24Elements) {
  int64_t n = int64_t(1) << 24;
  std::vector<float> x = uniform(n), terms(n);
  for (int64_t i = 0; i < n; ++i)
    terms[i] = x[i] * x[i];
  Tensor result = sum(square(Tensor::fromVector<float>(x, {n})));
  expectWithinBound(result.toVector<float>(), exactSums(terms, {n}, {}),
                    "sum(square(x))");
}

TEST_F(ReductionAccuracyTest, SumAndMeanOfOneValueRepeated) {
  // The same term 2^26 times: every rounding of a sequential sum errs the
  // same way.
  for (int64_t n : {int64_t(1) << 20, int64_t(1) << 26}) {
    std::vector<float> terms(n, 0.1f);
    Tensor x = Tensor::fromVector<float>(terms, {n});
    ExactSums exact = exactSums(terms, {n}, {});
    expectWithinBound(sum(x).toVector<float>(), exact, "sum");
    exact.sums[0] /= n;
    exact.absolute[0] /= n;
    expectWithinBound(mean(x).toVector<float>(), exact, "mean");
  }
}

TEST_F(ReductionAccuracyTest, EveryAxisOfTallAndWideShapes) {
  // Powers of two, sizes with no power-of-two factor, a prime, and three
  // dimensions; each summed along every axis and over everything.
  const std::vector<Shape> shapes = {
      {4, 1 << 22}, {1 << 22, 4},    {4096, 4096},   {3, 1000003},
      {1000003, 3}, {64, 1000, 250}, {5, 3000, 1000}};
  for (const Shape &shape : shapes) {
    int64_t n = 1;
    for (int64_t size : shape)
      n *= size;
    std::vector<float> terms = squares(n);
    Tensor x = Tensor::fromVector<float>(terms, shape);
    std::vector<std::vector<int64_t>> axesList = {{}};
    for (int64_t axis = 0; axis < static_cast<int64_t>(shape.size()); ++axis)
      axesList.push_back({axis});
    if (shape.size() == 3)
      axesList.push_back({0, 2});
    for (const std::vector<int64_t> &axes : axesList) {
      std::string what = "sum of [" + std::to_string(shape[0]);
      for (size_t d = 1; d < shape.size(); ++d)
        what += ", " + std::to_string(shape[d]);
      what += "] over axes {";
      for (int64_t axis : axes)
        what += std::to_string(axis) + ",";
      what += "}";
      expectWithinBound(sum(x, axes).toVector<float>(),
                        exactSums(terms, shape, axes), what);
    }
  }
}

TEST_F(ReductionAccuracyTest, SumsOfADynamicLength) {
  // The second size makes the length dynamic: its code cannot cut the sum
  // into blocks of a known size.
  clearCache();
  resetMetrics();
  for (int64_t n :
       {int64_t(1) << 22, (int64_t(1) << 22) + 1001, (int64_t(1) << 23) + 7}) {
    std::vector<float> terms = squares(4 * n);
    Tensor x = Tensor::fromVector<float>(terms, {n, 4});
    expectWithinBound(sum(x).toVector<float>(), exactSums(terms, {n, 4}, {}),
                      "sum over everything");
    expectWithinBound(sum(x, {0}).toVector<float>(),
                      exactSums(terms, {n, 4}, {0}), "column sums");
  }
  EXPECT_GE(metrics().sizesMadeDynamic, 1u);
}

TEST_F(ReductionAccuracyTest, Float64SumsToo) {
  int64_t n = int64_t(1) << 24;
  // The same term each time: the roundings of a running total all err the
  // same way.
  std::vector<double> terms(n, 0.1);
  // Compensated (Neumaier) summation in long double: exact to far below
  // f64's bound.
  long double total = 0, compensation = 0, absolute = 0;
  for (double term : terms) {
    long double next = total + term;
    compensation += std::fabs(total) >= std::fabs(term) ? (total - next) + term
                                                        : (term - next) + total;
    total = next;
    absolute += std::fabs(term);
  }
  double exact = static_cast<double>(total + compensation);
  double got = sum(Tensor::fromVector<double>(terms, {n})).item<double>();
  EXPECT_LE(std::fabs(got - exact) / static_cast<double>(absolute),
            pairwiseBound(n, 0x1p-52));
}

TEST_F(ReductionAccuracyTest, RandomNumbersSummedWhereTheyAreMade) {
  // The random numbers are computed inside the sum's loop from their
  // element index, which must count across the row's vector chunks (it
  // restarted at 0 in each chunk of 64: lazyc-fuzz seed 1200). The same
  // numbers, materialized and summed here, are the reference.
  // A prime length too: the terms past the last whole block count from
  // its end.
  for (auto [n, dtype] : {std::pair{int64_t(1) << 20, DType::Float64},
                          std::pair{int64_t(1) << 20, DType::Float32},
                          std::pair{int64_t(1000003), DType::Float32}}) {
    Tensor x = randomUniform({n}, 0.0, 0.5, /*seed=*/974893, dtype);
    std::vector<double> values = cast(x, DType::Float64).toVector<double>();
    double exact = 0, absolute = 0;
    for (double value : values) {
      exact += value;
      absolute += std::fabs(value);
    }
    double got =
        cast(sum(randomUniform({n}, 0.0, 0.5, 974893, dtype)), DType::Float64)
            .item<double>();
    double eps = dtype == DType::Float64 ? 0x1p-52 : kFloatEps;
    // The double reference adds n terms in sequence: n 2^-53 sum |x| more.
    EXPECT_LE(std::fabs(got - exact),
              (pairwiseBound(n, eps) + n * 0x1p-53) * absolute)
        << (dtype == DType::Float64 ? "f64" : "f32") << ", n = " << n;
  }
}

TEST_F(ReductionAccuracyTest, NarrowFloatSumsAccumulateInFloat32) {
  // 2^16 bf16 (and f16) terms near 1/3: a bf16 accumulator stops growing
  // at 128 (its ulp there is 1), an f16 one loses bits from 2048.
  int64_t n = int64_t(1) << 16;
  for (DType dtype : {DType::BFloat16, DType::Float16}) {
    std::vector<float> x = uniform(n);
    Tensor terms = cast(square(Tensor::fromVector<float>(x, {n})), dtype);
    std::vector<float> narrow = cast(terms, DType::Float32).toVector<float>();
    ExactSums exact = exactSums(narrow, {n}, {});
    float got = cast(sum(terms), DType::Float32).item<float>();
    // The f32 sum's bound, then one rounding to the narrow type.
    double unit = dtype == DType::BFloat16 ? 0x1p-8 : 0x1p-11;
    double tolerance =
        pairwiseBound(n) * exact.absolute[0] + unit * std::fabs(exact.sums[0]);
    EXPECT_NEAR(got, exact.sums[0], tolerance)
        << (dtype == DType::BFloat16 ? "bf16" : "f16");
  }
}

TEST_F(ReductionAccuracyTest, SoftmaxOfLongRows) {
  // Each output divides by the row's sum of 2^20 exponentials: exp(0) = 1
  // for the row's maximum, then about 0.1 for every other element (log 0.1,
  // and a little less).
  int64_t rows = 2, length = int64_t(1) << 20;
  std::vector<float> x(rows * length);
  for (int64_t i = 0; i < rows * length; ++i)
    x[i] = i % length == 0 ? 0.0f : std::log(0.1f) - 0.01f * (i % 2);
  Tensor input = Tensor::fromVector<float>(x, {rows, length});
  std::vector<float> soft = softmax(input, 1).toVector<float>();
  std::vector<float> logSoft = logSoftmax(input, 1).toVector<float>();
  // Per element: exp's polynomial (32 f32 ulps) and the roundings around it
  // in the term and in the quotient, plus the sum's pairwise bound.
  double u = 0x1p-24, exp = 32 * u + 3 * u;
  double tolerance = pairwiseBound(length) + 2 * exp + u;
  double worstSoft = 0, worstLog = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double max = -INFINITY, total = 0;
    for (int64_t j = 0; j < length; ++j)
      max = std::max(max, double(x[r * length + j]));
    for (int64_t j = 0; j < length; ++j)
      total += std::exp(double(x[r * length + j]) - max);
    for (int64_t j = 0; j < length; ++j) {
      int64_t i = r * length + j;
      double expected = std::exp(double(x[i]) - max) / total;
      worstSoft = std::max(worstSoft, std::fabs(soft[i] - expected) / expected);
      double expectedLog = double(x[i]) - max - std::log(total);
      worstLog = std::max(worstLog, std::fabs(logSoft[i] - expectedLog));
    }
  }
  EXPECT_LE(worstSoft, tolerance);
  // log(s) for s near 2^20: its relative error, times 1, plus log's
  // polynomial (16 ulps of ~14) and the roundings of the differences.
  EXPECT_LE(worstLog, tolerance + 16 * 14 * 2 * u + 4 * 2 * u);
}

TEST_F(ReductionAccuracyTest, LayerNormOfLongRows) {
  // The mean and variance of rows of 2^20 values 0.15, 0.05, 0.15, ...:
  // the mean 0.1 and the deviation 0.05 are sums of the same terms over
  // and over.
  int64_t rows = 2, length = int64_t(1) << 20;
  std::vector<float> x(rows * length);
  for (int64_t i = 0; i < rows * length; ++i)
    x[i] = i % 2 == 0 ? 0.15f : 0.05f;
  std::vector<float> got =
      nn::layerNorm(Tensor::fromVector<float>(x, {rows, length}), {length},
                    Tensor(), Tensor(), /*eps=*/0.0)
          .toVector<float>();
  double worst = 0, bound = pairwiseBound(length);
  for (int64_t r = 0; r < rows; ++r) {
    double total = 0, squares = 0;
    for (int64_t j = 0; j < length; ++j)
      total += x[r * length + j];
    double mean = total / length;
    for (int64_t j = 0; j < length; ++j)
      squares += (x[r * length + j] - mean) * (x[r * length + j] - mean);
    double deviation = std::sqrt(squares / length);
    for (int64_t j = 0; j < length; ++j) {
      int64_t i = r * length + j;
      double expected = (x[i] - mean) / deviation;
      worst = std::max(worst, std::fabs(got[i] - expected));
    }
  }
  // The mean is off by at most bound * mean |x| (0.1), which moves each
  // output by that over the deviation (0.05); the variance by its bound,
  // which scales the outputs (|out| = 1) by half of it; plus the roundings
  // of x - mean, rsqrt and the product (a few ulps of 1).
  double tolerance = bound * 0.1 / 0.05 + bound / 2 + 8 * 0x1p-23;
  EXPECT_LE(worst, tolerance);
}

} // namespace
