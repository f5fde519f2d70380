//===- AsyncCompileTest.cpp - Compiling in the background -----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// setAsyncCompile: a trace missing from the function cache runs op by op at
// once (eager mode's kernels) while its fused function compiles in the
// background; once that is ready, the same structure runs fused. Values are
// checked against plain C++ loops.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Runtime.h"
#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <cmath>
#include <vector>

using namespace lazyc;

namespace {

/// Turns asynchronous compiles on for one test, from an empty cache.
class AsyncCompileTest : public ::testing::Test {
protected:
  void SetUp() override {
    clearCache();
    setAsyncCompile(true);
  }
  void TearDown() override {
    waitForCompiles();
    setAsyncCompile(false);
  }
};

std::vector<float> ramp(int n, float scale) {
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i)
    values[i] = scale * (float(i) - n / 2.0f) / n;
  return values;
}

/// relu(tanh(x * 0.5 + 1) * 2 - 1) / (1 + x * x), in double.
double expected(float x) {
  double y = std::tanh(x * 0.5 + 1.0) * 2.0 - 1.0;
  return std::max(y, 0.0) / (1.0 + double(x) * x);
}

Tensor chain(const Tensor &x) {
  return relu(tanh(x * 0.5f + 1.0f) * 2.0f - 1.0f) / (x * x + 1.0f);
}

TEST_F(AsyncCompileTest, FirstRunIsOpByOpThenFused) {
  const int n = 1000;
  for (int round = 0; round < 2; ++round) {
    std::vector<float> input = ramp(n, 6.0f + round);
    Metrics before = metrics();
    std::vector<float> out =
        chain(Tensor::fromVector(input, {n})).toVector<float>();
    Metrics after = metrics();
    for (int i = 0; i < n; ++i)
      ASSERT_NEAR(out[i], expected(input[i]), 2e-6) << i;
    if (round == 0) {
      // The trace missed; its ops ran one at a time.
      EXPECT_EQ(after.cacheMisses - before.cacheMisses >= 1, true);
      EXPECT_GE(after.byEager - before.byEager, 8u);
      waitForCompiles();
    } else {
      // The fused function is ready: one materialization, one kernel.
      EXPECT_EQ(after.byEager, before.byEager);
      EXPECT_EQ(after.kernelsRun - before.kernelsRun, 1u);
      EXPECT_EQ(after.cacheMisses, before.cacheMisses);
    }
  }
}

TEST_F(AsyncCompileTest, RunsOpByOpUntilTheCompileIsReady) {
  // Without waiting, every run gives the right values, fused or not.
  const int n = 257;
  for (int round = 0; round < 6; ++round) {
    std::vector<float> input = ramp(n, 3.0f + round);
    std::vector<float> out =
        chain(Tensor::fromVector(input, {n})).toVector<float>();
    for (int i = 0; i < n; ++i)
      ASSERT_NEAR(out[i], expected(input[i]), 2e-6) << round << ", " << i;
  }
}

TEST_F(AsyncCompileTest, VariablesUpdateInPlaceAsWithoutIt) {
  // w <- w - 0.1 * (w * x), three steps: w_k = w_0 * (1 - 0.1 x)^k.
  std::vector<float> x = {1.0f, 2.0f, -1.0f, 0.5f};
  Variable w(Tensor::fromVector<float>({2.0f, -3.0f, 4.0f, 1.0f}, {4}));
  Tensor xs = Tensor::fromVector(x, {4});
  for (int step = 0; step < 3; ++step) {
    w.assignSub(w.read() * xs * 0.1f);
    lazyc::sync();
  }
  std::vector<float> out = w.read().toVector<float>();
  std::vector<float> start = {2.0f, -3.0f, 4.0f, 1.0f};
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(out[i], start[i] * std::pow(1.0 - 0.1 * x[i], 3), 1e-5) << i;
}

TEST_F(AsyncCompileTest, ControlFlowCompilesOnTheCallingThread) {
  // A trace with a cond does not run op by op (its results would run the
  // branch once each).
  Tensor x = Tensor::fromVector<float>({1.0f, 2.0f, 3.0f}, {3});
  std::vector<Tensor> results = cond(
      sum(x) > 5.0f, [&] { return std::vector<Tensor>{x * 2.0f, x + 1.0f}; },
      [&] { return std::vector<Tensor>{x, x}; });
  Metrics before = metrics();
  lazyc::sync();
  EXPECT_EQ(metrics().byEager, before.byEager);
  EXPECT_EQ(results[0].toVector<float>(), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(results[1].toVector<float>(), (std::vector<float>{2, 3, 4}));
}

// A value that is only a literal (`full`), materialized with computed ones
// while their fused function compiles: the op-by-op run gives it a buffer
// too (it had none, and reading it crashed: lazyc-fuzz seed 90012).
TEST_F(AsyncCompileTest, ALiteralValueReadWhileCompilingHasABuffer) {
  const int n = 64;
  std::vector<float> input = ramp(n, 4.0f);
  Tensor computed = chain(Tensor::fromVector(input, {n}));
  Tensor constant = full({3}, 2.5f);
  lazyc::sync();
  EXPECT_EQ(constant.toVector<float>(), std::vector<float>(3, 2.5f));
  std::vector<float> out = computed.toVector<float>();
  for (int i = 0; i < n; ++i)
    ASSERT_NEAR(out[i], expected(input[i]), 2e-6) << i;
}

TEST(ThreadsTest, SetNumThreadsSetsTheThreadsOfCompilesAndRuns) {
  int before = numThreads();
  EXPECT_GE(before, 1);
  setNumThreads(1);
  EXPECT_EQ(numThreads(), 1);
  EXPECT_EQ(lazyrt_get_num_threads(), 1); // OpenMP's, for this thread.
  // A trace compiled for one thread computes what it did before.
  std::vector<float> input(1 << 16);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = float(i % 97) * 0.01f - 0.4f;
  std::vector<float> out =
      (exp(Tensor::fromVector(input, {int64_t(input.size())})) * 3.0f + 1.0f)
          .toVector<float>();
  for (size_t i = 0; i < input.size(); ++i)
    ASSERT_NEAR(out[i], std::exp(input[i]) * 3.0f + 1.0f,
                1e-5f * (1 + std::fabs(out[i])))
        << i;
  try {
    setNumThreads(0);
    ADD_FAILURE() << "no error for 0 threads";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what())
                  .find("[lazyc::setNumThreads] needs at least 1 thread, "
                        "not 0"),
              std::string::npos)
        << error.what();
  }
  setNumThreads(before);
  EXPECT_EQ(numThreads(), before);
}

} // namespace
