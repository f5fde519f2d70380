//===- GpuApiTest.cpp - The API on a GPU, checked against plain loops -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Programs of the public API on cuda:0: transfers, elementwise chains with
// broadcasts, reductions (a block per row: lazy-gpu-row-kernels), softmax,
// layer norm, matmul, strided copies, integers, eager mode, gradients and
// device memory wrapped by fromBuffer, each checked against a loop in this file
// computed on the host in double precision. Without a GPU every test skips and
// says why; scripts/gpu-check runs them on the device machine.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Cuda.h"
#include "lazyc/lazyc.h"
#include "lazyc/nn.h"

#include "TestValues.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace lazyc;
using lazyc::test::values;

namespace {

class GpuApiTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string whyNot;
    if (!cudaAvailable(0, &whyNot))
      GTEST_SKIP() << "no GPU: " << whyNot;
  }

  const Device gpu = Device::cuda();
};

void expectClose(const std::vector<float> &actual,
                 const std::vector<double> &expected, double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    ASSERT_NEAR(actual[i], expected[i],
                tolerance * std::max(1.0, std::abs(expected[i])))
        << "element " << i;
}

} // namespace

TEST_F(GpuApiTest, ToTheGpuAndBack) {
  Tensor x = Tensor::fromVector<float>({1, -2, 3, 0.5f}, {4}).to(gpu);
  EXPECT_TRUE(x.device() == gpu);
  Tensor y = relu(x * 2.0f + 1.0f);
  EXPECT_TRUE(y.device() == gpu);
  // max(2x + 1, 0), by hand.
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{3, 0, 7, 2}));
  Tensor back = y.to(Device::cpu());
  EXPECT_TRUE(back.device() == Device::cpu());
  EXPECT_EQ(back.toVector<float>(), (std::vector<float>{3, 0, 7, 2}));
}

TEST_F(GpuApiTest, ElementwiseChainWithABroadcast) {
  const int64_t rows = 1000, cols = 1024;
  std::vector<float> hostX = values(rows * cols, 2.0f, 1);
  std::vector<float> hostB = values(cols, 1.0f, 2);
  DeviceScope scope(gpu);
  Tensor x = Tensor::fromVector<float>(hostX, {rows, cols});
  Tensor b = Tensor::fromVector<float>(hostB, {cols});
  Tensor y = tanh(relu(x + b)) * x;
  std::vector<double> expected(hostX.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      double v = hostX[r * cols + c];
      expected[r * cols + c] = std::tanh(std::max(v + hostB[c], 0.0)) * v;
    }
  expectClose(y.toVector<float>(), expected, 1e-5);
}

TEST_F(GpuApiTest, ReductionsAndSoftmax) {
  const int64_t rows = 64, cols = 1000;
  std::vector<float> host = values(rows * cols, 4.0f, 3);
  DeviceScope scope(gpu);
  Tensor x = Tensor::fromVector<float>(host, {rows, cols});
  std::vector<double> rowSums(rows, 0.0), rowMax(rows, -INFINITY);
  double total = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      rowSums[r] += host[r * cols + c];
      rowMax[r] = std::max<double>(rowMax[r], host[r * cols + c]);
      total += host[r * cols + c];
    }
  expectClose(sum(x, {1}).toVector<float>(), rowSums, 1e-4);
  expectClose(max(x, {1}).toVector<float>(), rowMax, 0);
  EXPECT_NEAR(sum(x).item<float>(), total, 1e-3 * std::abs(total) + 1e-2);
  std::vector<double> probabilities(host.size());
  for (int64_t r = 0; r < rows; ++r) {
    double denominator = 0;
    for (int64_t c = 0; c < cols; ++c)
      denominator += std::exp(host[r * cols + c] - rowMax[r]);
    for (int64_t c = 0; c < cols; ++c)
      probabilities[r * cols + c] =
          std::exp(host[r * cols + c] - rowMax[r]) / denominator;
  }
  expectClose(softmax(x, 1).toVector<float>(), probabilities, 1e-5);
}

TEST_F(GpuApiTest, Matmul) {
  const int64_t m = 64, k = 128, n = 32;
  std::vector<float> hostA = values(m * k, 1.0f, 4),
                     hostB = values(k * n, 1.0f, 5);
  DeviceScope scope(gpu);
  Tensor a = Tensor::fromVector<float>(hostA, {m, k});
  Tensor b = Tensor::fromVector<float>(hostB, {k, n});
  std::vector<double> expected(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        expected[i * n + j] += double(hostA[i * k + p]) * hostB[p * n + j];
  expectClose(matmul(a, b).toVector<float>(), expected, 1e-4);
}

TEST_F(GpuApiTest, TransposesAndConcatenations) {
  DeviceScope scope(gpu);
  Tensor x = Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(transpose(x).toVector<float>(),
            (std::vector<float>{1, 4, 2, 5, 3, 6}));
  Tensor joined = concat({x, x * 10.0f}, 1);
  EXPECT_EQ(joined.shape(), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(joined.toVector<float>(),
            (std::vector<float>{1, 2, 3, 10, 20, 30, 4, 5, 6, 40, 50, 60}));
}

TEST_F(GpuApiTest, IntegersAndComparisons) {
  DeviceScope scope(gpu);
  Tensor i = Tensor::fromVector<int32_t>({-7, 0, 5, 12}, {4});
  Tensor chosen = where(i > 0, i * 3, i - 1);
  EXPECT_EQ(chosen.toVector<int32_t>(), (std::vector<int32_t>{-8, -1, 15, 36}));
  EXPECT_EQ(sum(i).item<int32_t>(), 10);
}

TEST_F(GpuApiTest, EagerModeGivesTheLazyResult) {
  std::vector<float> host = values(256, 3.0f, 6);
  DeviceScope scope(gpu);
  Tensor x = Tensor::fromVector<float>(host, {16, 16});
  std::vector<float> lazy = (exp(x) - x * x).toVector<float>();
  EagerScope eager;
  std::vector<float> eagerly = (exp(x) - x * x).toVector<float>();
  std::vector<double> expected(host.size());
  for (size_t e = 0; e < host.size(); ++e)
    expected[e] = std::exp(double(host[e])) - double(host[e]) * host[e];
  expectClose(lazy, expected, 1e-5);
  expectClose(eagerly, expected, 1e-5);
}

TEST_F(GpuApiTest, Gradients) {
  std::vector<float> host = values(100, 2.0f, 7);
  DeviceScope scope(gpu);
  Tensor x = Tensor::fromVector<float>(host, {100});
  GradientTape tape;
  tape.watch(x);
  Tensor loss = sum(x * x * x);
  Tensor dx = tape.gradient(loss, x);
  EXPECT_TRUE(dx.device() == gpu);
  std::vector<double> expected(host.size());
  for (size_t e = 0; e < host.size(); ++e)
    expected[e] = 3.0 * host[e] * host[e];
  expectClose(dx.toVector<float>(), expected, 1e-5);
}

TEST_F(GpuApiTest, OutOfMemoryIsAnErrorAndTheProgramGoesOn) {
  DeviceScope scope(gpu);
  Tensor small = Tensor::fromVector<float>({1, 2}, {2});
  try {
    // 2^40 floats: 4 TiB, more than any GPU has.
    Tensor huge = zeros({int64_t(1) << 40});
    (void)huge.toVector<float>();
    FAIL() << "no error";
  } catch (const Error &error) {
    std::string what = error.what();
    EXPECT_NE(what.find("cuda:0"), std::string::npos) << what;
  }
  EXPECT_EQ((small + 1.0f).toVector<float>(), (std::vector<float>{2, 3}));
}

TEST_F(GpuApiTest, LayerNormIsRightInOneKernel) {
  // Mean, variance and the affine scaling share one kernel of a block per
  // row (rows of 512: 128 threads, 4 elements each).
  const int64_t rows = 256, cols = 512;
  std::vector<float> host = values(rows * cols, 3.0f, 11),
                     weight = values(cols, 1.0f, 12),
                     bias = values(cols, 1.0f, 13);
  DeviceScope scope(gpu);
  Tensor x = Tensor::fromVector<float>(host, {rows, cols});
  Tensor y = nn::layerNorm(x, {cols}, Tensor::fromVector<float>(weight, {cols}),
                           Tensor::fromVector<float>(bias, {cols}), 1e-5);
  std::vector<double> expected(host.size());
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, variance = 0;
    for (int64_t c = 0; c < cols; ++c)
      mean += host[r * cols + c] / double(cols);
    for (int64_t c = 0; c < cols; ++c)
      variance += std::pow(host[r * cols + c] - mean, 2) / double(cols);
    for (int64_t c = 0; c < cols; ++c)
      expected[r * cols + c] =
          (host[r * cols + c] - mean) / std::sqrt(variance + 1e-5) * weight[c] +
          bias[c];
  }
  expectClose(y.toVector<float>(), expected, 1e-4);
}

TEST_F(GpuApiTest, RowReductionsOfEveryWidth) {
  // Int64 and Float64 rows (64-bit warp shuffles), a row maximum over rows
  // that are not a multiple of the block, and a sum of 2^20 elements (one
  // block of 1024 threads).
  const int64_t rows = 37, cols = 1001;
  std::vector<float> host = values(rows * cols, 100.0f, 14);
  std::vector<int64_t> ints(host.size());
  for (size_t i = 0; i < host.size(); ++i)
    ints[i] = static_cast<int64_t>(host[i] * 1e6);
  DeviceScope scope(gpu);
  Tensor x = Tensor::fromVector<float>(host, {rows, cols});
  Tensor wide = cast(x, DType::Float64);
  Tensor n = Tensor::fromVector<int64_t>(ints, {rows, cols});
  std::vector<int64_t> intSums = sum(n, {1}).toVector<int64_t>();
  std::vector<double> doubleMax = max(wide, {1}).toVector<double>();
  ASSERT_EQ(intSums.size(), static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    int64_t exact = 0;
    double largest = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) {
      exact += ints[r * cols + c];
      largest = std::max<double>(largest, host[r * cols + c]);
    }
    EXPECT_EQ(intSums[r], exact) << "row " << r;
    EXPECT_EQ(doubleMax[r], largest) << "row " << r;
  }
  // Quarters in [-1, 1]: every partial sum is exact in f32, so the sum is
  // exact in any order and a lost or repeated element shows.
  const int64_t count = int64_t(1) << 20;
  std::vector<float> many = values(count, 4.0f, 15);
  double total = 0;
  for (float &value : many) {
    value = std::round(value) / 4;
    total += value;
  }
  float got = sum(Tensor::fromVector<float>(many, {count})).item<float>();
  EXPECT_EQ(got, total);
}

TEST_F(GpuApiTest, LongSumsStayWithinThePairwiseBound) {
  // lazy-block-reductions on the GPU: a sum of everything (rows of blocks,
  // not one thread), column sums (a thread per column walked 2^22 rows) and
  // long rows, of positive terms whose rounding errors add up in a running
  // total; the tolerance is log2(n) eps sum |x|.
  const int64_t n = int64_t(1) << 24;
  std::vector<float> host = values(n, 1.0f, 16);
  for (float &value : host)
    value += 1.0f;
  DeviceScope scope(gpu);
  Tensor x = Tensor::fromVector<float>(host, {n});
  struct Case {
    Shape shape;
    std::vector<int64_t> axes;
  };
  for (const Case &c : {Case{{n}, {}}, Case{{n / 4, 4}, {0}},
                        Case{{4, n / 4}, {1}}, Case{{4096, 4096}, {0}}}) {
    std::vector<float> got = sum(reshape(x, c.shape), c.axes).toVector<float>();
    int64_t columns = c.axes.empty() ? 1 : c.shape[1 - c.axes[0]];
    std::vector<double> exact(columns, 0.0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t out = c.axes.empty()   ? 0
                    : c.axes[0] == 0 ? i % c.shape[1]
                                     : i / c.shape[1];
      exact[out] += host[i];
    }
    ASSERT_EQ(got.size(), exact.size());
    double terms = static_cast<double>(n / columns);
    for (int64_t k = 0; k < columns; ++k)
      // Every term is in [0, 2): sum |x| is the sum itself.
      EXPECT_LE(std::fabs(got[k] - exact[k]),
                std::log2(terms) * 0x1p-23 * exact[k])
          << "output " << k << " of a sum over " << terms << " terms";
  }
}

TEST_F(GpuApiTest, MisalignedDeviceMemoryIsCopied) {
  // fromBuffer over device memory 4 bytes into a block (a view into the
  // middle of another framework's buffer): the kernels' 16-byte accesses
  // and cuBLASLt need 256-byte alignment, so lazyc copies it first.
  std::vector<float> host = values(1024, 2.0f, 16);
  size_t bytes = host.size() * sizeof(float);
  void *block = lazyrt_cuda_alloc(0, bytes + 256);
  ASSERT_NE(block, nullptr);
  float *view = reinterpret_cast<float *>(static_cast<char *>(block) + 4);
  ASSERT_EQ(lazyrt_cuda_copy_to_device(0, view, host.data(), bytes), 0);
  ASSERT_EQ(lazyrt_cuda_synchronize(0), 0);
  bool released = false;
  Tensor x = Tensor::fromBuffer(
      view, {32, 32}, DType::Float32, [&](void *) { released = true; }, gpu);
  EXPECT_TRUE(released); // Copied: the view is the caller's again.
  std::vector<double> expected(host.size());
  for (size_t i = 0; i < host.size(); ++i)
    expected[i] = host[i] * 2.0 + 1.0;
  expectClose((x * 2.0f + 1.0f).toVector<float>(), expected, 1e-6);
  lazyrt_cuda_free(0, block);
}

TEST_F(GpuApiTest, CompileBlocksCompileOneLayerForwardAndBackward) {
  // tanh(x @ w_l) for `layers` layers, each in a CompileBlock, and the
  // gradient of mean(y^2) with respect to every w_l: the traces compiled
  // do not grow with the depth, and y is the host's loop in double.
  constexpr int64_t kRows = 4, kWidth = 16;
  DeviceScope scope(gpu);
  auto run = [&](int layers, std::vector<double> &expected) {
    clearCache();
    resetMetrics();
    std::vector<float> input = values(kRows * kWidth, 1.0f, 3);
    std::vector<double> host(input.begin(), input.end());
    Tensor x = Tensor::fromVector<float>(input, {kRows, kWidth});
    std::vector<Tensor> weights;
    GradientTape tape;
    for (int l = 0; l < layers; ++l) {
      std::vector<float> w = values(kWidth * kWidth, 0.3f, 11 + l);
      weights.push_back(Tensor::fromVector<float>(w, {kWidth, kWidth}));
      tape.watch(weights.back());
      std::vector<double> next(kRows * kWidth, 0.0);
      for (int64_t r = 0; r < kRows; ++r)
        for (int64_t c = 0; c < kWidth; ++c) {
          for (int64_t k = 0; k < kWidth; ++k)
            next[r * kWidth + c] += host[r * kWidth + k] * w[k * kWidth + c];
          next[r * kWidth + c] = std::tanh(next[r * kWidth + c]);
        }
      host = std::move(next);
      CompileBlock block;
      x = tanh(matmul(x, weights.back()));
    }
    std::vector<Tensor> gradients = tape.gradient(mean(x * x), weights);
    lazyc::sync();
    expected = host;
    EXPECT_TRUE(gradients.front().device() == gpu);
    EXPECT_GE(metrics().compileBlocks, uint64_t(2 * layers));
    return std::make_pair(x.toVector<float>(), metrics().tracesCompiled);
  };
  std::vector<double> expected;
  auto [shallow, shallowCompiles] = run(4, expected);
  expectClose(shallow, expected, 1e-5);
  auto [deep, deepCompiles] = run(12, expected);
  expectClose(deep, expected, 1e-5);
  EXPECT_EQ(deepCompiles, shallowCompiles);
}
