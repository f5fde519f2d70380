//===- RecompileTest.cpp - No recompiles a user would not expect ----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A loop over batch sizes, seeds or scalar values compiles at most twice
// after its first step, lazily and eagerly, with no annotation. Compiles are
// counted with metrics(); every value is checked against a plain loop.
//
//===----------------------------------------------------------------------===//

#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <vector>

using namespace lazyc;

namespace {

constexpr int64_t kBatchSizes[] = {3, 5, 8, 13, 2, 21, 7, 1, 34, 9};

class RecompileTest : public ::testing::Test {
protected:
  void SetUp() override {
    clearCache();
    resetMetrics();
  }
};

/// `n` rows of 4 distinct values.
std::vector<float> batchData(int64_t n) {
  std::vector<float> data(static_cast<size_t>(n) * 4);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = 0.25f * static_cast<float>(i % 11) - 1.0f +
              0.01f * static_cast<float>(n);
  return data;
}

TEST_F(RecompileTest, LazyBatchSizesCompileAtMostTwiceAfterTheFirst) {
  // relu(x @ w + b) * 0.5 + 1: a bias broadcast over the batch, scalars
  // filling the batch's shape, a reduction per row.
  std::vector<float> w = {0.5f, -1.0f, 0.25f, 2.0f,  1.5f, -0.5f,
                          1.0f, 0.75f, -2.0f, 0.25f, 0.5f, 1.0f};
  std::vector<float> b = {0.1f, -0.2f, 0.3f};
  Tensor weights = Tensor::fromVector<float>(w, {4, 3});
  Tensor bias = Tensor::fromVector<float>(b, {3});
  uint64_t compilesAfterFirst = 0;
  for (int64_t n : kBatchSizes) {
    std::vector<float> data = batchData(n);
    Tensor x = Tensor::fromVector<float>(data, {n, 4});
    Tensor y = relu(matmul(x, weights) + bias) * 0.5f + 1.0f;
    Tensor rows = sum(y, {1});
    std::vector<float> got = y.toVector<float>();
    std::vector<float> gotRows = rows.toVector<float>();
    ASSERT_EQ(got.size(), static_cast<size_t>(n * 3));
    for (int64_t i = 0; i < n; ++i) {
      float rowSum = 0;
      for (int64_t j = 0; j < 3; ++j) {
        float dot = 0;
        for (int64_t k = 0; k < 4; ++k)
          dot += data[i * 4 + k] * w[k * 3 + j];
        float expected = std::max(dot + b[j], 0.0f) * 0.5f + 1.0f;
        rowSum += expected;
        EXPECT_NEAR(got[i * 3 + j], expected, 1e-5f) << "n=" << n;
      }
      EXPECT_NEAR(gotRows[i], rowSum, 1e-4f) << "n=" << n;
    }
    if (n == kBatchSizes[0])
      compilesAfterFirst = metrics().tracesCompiled;
  }
  compilesAfterFirst = metrics().tracesCompiled - compilesAfterFirst;
  EXPECT_LE(compilesAfterFirst, 2u);
  EXPECT_GE(compilesAfterFirst, 1u); // The batch dimension became dynamic.
  EXPECT_GE(metrics().sizesMadeDynamic, 1u);
}

TEST_F(RecompileTest, AMarkedBatchCompilesOnce) {
  // markDynamic: the batch is dynamic from the first trace, so no size
  // after it compiles (FunctionTest checks a first size of 1).
  std::vector<float> w = {0.5f, -1.0f, 0.25f, 2.0f};
  Tensor weights = Tensor::fromVector<float>(w, {4, 1});
  uint64_t before = metrics().tracesCompiled;
  for (int64_t n : {3, 5, 8, 13}) {
    std::vector<float> data = batchData(n);
    Tensor x = Tensor::fromVector<float>(data, {n, 4});
    markDynamic(x, {0});
    std::vector<float> got = tanh(matmul(x, weights)).toVector<float>();
    for (int64_t i = 0; i < n; ++i) {
      float dot = 0;
      for (int64_t k = 0; k < 4; ++k)
        dot += data[i * 4 + k] * w[k];
      EXPECT_NEAR(got[i], std::tanh(dot), 1e-5f) << "n=" << n;
    }
  }
  EXPECT_EQ(metrics().tracesCompiled - before, 1u);
  try {
    markDynamic(ones({2, 3}), {2});
    ADD_FAILURE() << "no error for a dimension the tensor lacks";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what())
                  .find("[lazyc::markDynamic] dimension 2 of Float32 [2, 3] "
                        "does not exist"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(RecompileTest, TheFirstBatchSizeKeepsItsStaticCode) {
  // A size seen first runs its own (static) function again: the hit does
  // not go through the dynamic one.
  for (int64_t n : {4, 6, 4}) {
    std::vector<float> data = batchData(n);
    Tensor y = exp(Tensor::fromVector<float>(data, {n, 4})) * 2.0f;
    std::vector<float> got = y.toVector<float>();
    for (size_t i = 0; i < data.size(); ++i)
      EXPECT_NEAR(got[i], std::exp(data[i]) * 2.0f, 1e-5f);
  }
  EXPECT_EQ(metrics().tracesCompiled, 2u);
  EXPECT_EQ(metrics().cacheHits, 1u);
}

TEST_F(RecompileTest, EmptyBatchesGetDynamicBatchSizesToo) {
  // A batched product with an empty batch dimension beside the one that
  // becomes dynamic, and a reshape of it: results with no elements, of the
  // right shape, and a value computed from other data in the same trace
  // (lazyc-fuzz seed 150741 crashed in the dynamic compile).
  for (int64_t n : {3, 5, 8}) {
    for (DType dtype : {DType::Float32, DType::Int32}) {
      std::vector<float> data = batchData(n);
      Tensor a = cast(Tensor::fromVector<float>({}, {n, 0, 2, 1}), dtype);
      Tensor b = cast(Tensor::fromVector<float>({}, {1, 0, 1, 1}), dtype);
      Tensor product = matmul(a, b);
      Tensor flat = reshape(product, {0});
      Tensor rows = sum(Tensor::fromVector<float>(data, {n, 4}), {1});
      EXPECT_EQ(product.shape(), (Shape{n, 0, 2, 1}));
      EXPECT_TRUE(product.toVector<double>().empty());
      EXPECT_TRUE(flat.toVector<double>().empty());
      std::vector<float> got = rows.toVector<float>();
      ASSERT_EQ(got.size(), static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        EXPECT_NEAR(got[i],
                    data[i * 4] + data[i * 4 + 1] + data[i * 4 + 2] +
                        data[i * 4 + 3],
                    1e-5f);
    }
  }
  EXPECT_GE(metrics().sizesMadeDynamic, 1u);
}

/// Element `index` of randomUniform(..., low, high, seed) in f32, from the
/// generator's definition (docs/API.md): SplitMix64 of
/// seed + (index + 1) * 0x9E3779B97F4A7C15, its top 24 bits times 2^-24.
float uniformSample(int64_t seed, uint64_t index, float low, float high) {
  uint64_t z =
      static_cast<uint64_t>(seed) + (index + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  float unit = std::ldexp(static_cast<float>(z >> 40), -24);
  return unit * (high - low) + low;
}

TEST_F(RecompileTest, NewSeedsReuseTheTrace) {
  uint64_t compilesAfterFirst = 0;
  for (int64_t seed = 100; seed < 110; ++seed) {
    Tensor noise = randomUniform({64}, -1.0, 3.0, seed) * 2.0f;
    std::vector<float> got = noise.toVector<float>();
    for (uint64_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], 2.0f * uniformSample(seed, i, -1.0f, 3.0f), 1e-6f)
          << "seed " << seed << ", element " << i;
    if (seed == 100)
      compilesAfterFirst = metrics().tracesCompiled;
  }
  compilesAfterFirst = metrics().tracesCompiled - compilesAfterFirst;
  EXPECT_LE(compilesAfterFirst, 2u);
  // The seed is the literal that varies: promoted once.
  EXPECT_EQ(metrics().constantsPromoted, 1u);
}

TEST_F(RecompileTest, NewSeedsAndBatchSizesTogether) {
  // Dropout-like: a random mask of the batch's shape, a new seed per step.
  uint64_t compilesAfterFirst = 0;
  for (size_t step = 0; step < std::size(kBatchSizes); ++step) {
    int64_t n = kBatchSizes[step];
    int64_t seed = 7 + static_cast<int64_t>(step);
    std::vector<float> data = batchData(n);
    Tensor x = Tensor::fromVector<float>(data, {n, 4});
    Tensor kept =
        where(randomUniform({n, 4}, 0.0, 1.0, seed) < 0.5f, x, zeros({n, 4}));
    std::vector<float> got = kept.toVector<float>();
    for (size_t i = 0; i < data.size(); ++i)
      EXPECT_EQ(got[i],
                uniformSample(seed, i, 0.0f, 1.0f) < 0.5f ? data[i] : 0.0f)
          << "n=" << n << ", element " << i;
    if (step == 0)
      compilesAfterFirst = metrics().tracesCompiled;
  }
  compilesAfterFirst = metrics().tracesCompiled - compilesAfterFirst;
  EXPECT_LE(compilesAfterFirst, 2u);
}

TEST_F(RecompileTest, NewScalarValuesReuseTheTrace) {
  std::vector<float> data = batchData(6);
  Tensor x = Tensor::fromVector<float>(data, {6, 4});
  uint64_t compilesAfterFirst = 0;
  for (int step = 0; step < 10; ++step) {
    float scale = 0.5f + 0.25f * static_cast<float>(step);
    std::vector<float> got = tanh(x * scale).toVector<float>();
    for (size_t i = 0; i < data.size(); ++i)
      EXPECT_NEAR(got[i], std::tanh(data[i] * scale), 1e-5f) << "step " << step;
    if (step == 0)
      compilesAfterFirst = metrics().tracesCompiled;
  }
  compilesAfterFirst = metrics().tracesCompiled - compilesAfterFirst;
  EXPECT_LE(compilesAfterFirst, 2u);
}

TEST_F(RecompileTest, EagerBatchSizesCompileEachOpOnce) {
  EagerScope eager;
  uint64_t compilesAfterFirst = 0;
  for (int64_t n : kBatchSizes) {
    std::vector<float> data = batchData(n);
    Tensor x = Tensor::fromVector<float>(data, {n, 4});
    // Three ops (and two scalar broadcasts), each run as it is recorded.
    Tensor y = relu(x * 2.0f + 1.0f);
    Tensor noise = randomNormal({n, 2}, 0.0, 1.0, /*seed=*/n);
    Tensor flat = reshape(y, {n * 4});
    std::vector<float> got = flat.toVector<float>();
    ASSERT_EQ(got.size(), data.size());
    for (size_t i = 0; i < data.size(); ++i)
      EXPECT_EQ(got[i], std::max(data[i] * 2.0f + 1.0f, 0.0f)) << "n=" << n;
    EXPECT_EQ(noise.shape(), (std::vector<int64_t>{n, 2}));
    if (n == kBatchSizes[0])
      compilesAfterFirst = metrics().tracesCompiled;
  }
  compilesAfterFirst = metrics().tracesCompiled - compilesAfterFirst;
  // The first size compiled every op; a seed that varies is promoted once.
  EXPECT_LE(compilesAfterFirst, 2u);
}

TEST_F(RecompileTest, EagerSlicesCompileOncePerBounds) {
  // Fixed bounds on inputs of every size: the slice's result has the
  // bounds' shape, its input any size.
  EagerScope eager;
  uint64_t compilesAfterFirst = 0;
  for (int64_t n : kBatchSizes) {
    if (n < 3)
      continue;
    std::vector<float> data = batchData(n);
    Tensor x = Tensor::fromVector<float>(data, {n, 4});
    std::vector<float> got = slice(x, {1, 1}, {3, 4}, {1, 2}).toVector<float>();
    std::vector<float> expected = {data[5], data[7], data[9], data[11]};
    EXPECT_EQ(got, expected) << "n=" << n;
    if (n == kBatchSizes[0])
      compilesAfterFirst = metrics().tracesCompiled;
  }
  EXPECT_EQ(metrics().tracesCompiled - compilesAfterFirst, 0u);
}

} // namespace
