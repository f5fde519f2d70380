//===- FunctionTest.cpp - Staged functions --------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Expected values are computed by plain loops here.
//
//===----------------------------------------------------------------------===//

#include "ExpectError.h"

#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <cmath>
#include <optional>

using namespace lazyc;
using lazyc::test::expectError;

namespace {

std::vector<float> sequence(size_t n, float scale) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i)
    values[i] = scale * static_cast<float>((i * 7) % 11) - 2.0f;
  return values;
}

TEST(FunctionTest, OneConcreteFunctionForEveryBatchSize) {
  // A linear model's squared error over a batch: mean((x @ w - y)^2).
  std::vector<float> wv = {0.5f, -1.0f, 0.25f, 2.0f, 1.0f, -0.5f};
  Variable w(Tensor::fromVector<float>(wv, {3, 2}), "w");
  auto loss = lazyc::function("loss",
                              [&](Tensor x, Tensor y) {
                                Tensor error = matmul(x, w.read()) - y;
                                return mean(error * error);
                              },
                              {TensorSpec({-1, 3}, DType::Float32, "x"),
                               TensorSpec({-1, 2}, DType::Float32, "y")});

  uint64_t compiledBefore = 0;
  for (int64_t batch = 8; batch <= 80; batch += 8) {
    std::vector<float> xv = sequence(batch * 3, 0.5f);
    std::vector<float> yv = sequence(batch * 2, 0.25f);
    float got = loss(Tensor::fromVector<float>(xv, {batch, 3}),
                     Tensor::fromVector<float>(yv, {batch, 2}))
                    .item<float>();
    double expected = 0;
    for (int64_t r = 0; r < batch; ++r)
      for (int64_t c = 0; c < 2; ++c) {
        double dot = 0;
        for (int64_t k = 0; k < 3; ++k)
          dot += double(xv[r * 3 + k]) * wv[k * 2 + c];
        double e = dot - yv[r * 2 + c];
        expected += e * e;
      }
    expected /= double(batch * 2);
    EXPECT_NEAR(got, expected, 1e-4 * std::max(1.0, std::fabs(expected)))
        << "batch " << batch;
    if (batch == 8)
      compiledBefore = metrics().tracesCompiled;
  }
  // The signature says the batch size varies: the first call compiled a
  // function for every size, and the other nine compile nothing.
  EXPECT_EQ(metrics().tracesCompiled - compiledBefore, 0u);
  std::vector<ConcreteFunction> concrete = loss.concreteFunctions();
  ASSERT_EQ(concrete.size(), 1u);
  EXPECT_EQ(concrete[0].signature(),
            "loss(x: Float32 [?, 3], y: Float32 [?, 2]) -> Float32 []");
  EXPECT_EQ(concrete[0].calls(), 10);
  std::vector<CapturedVariable> captured = loss.capturedVariables();
  ASSERT_EQ(captured.size(), 1u);
  EXPECT_EQ(captured[0].name, "w");
  EXPECT_EQ(captured[0].shape, (std::vector<int64_t>{3, 2}));
}

TEST(FunctionTest, AnUnknownDimensionIsDynamicFromAFirstCallOfSizeOne) {
  // relu(x @ w + b) over batches 1, 7, 33, 100: a first batch of 1 (the
  // size broadcasts stretch) must not compile a function for it alone.
  std::vector<float> wv = sequence(16 * 3, 0.25f), bv = {0.5f, -1.0f, 0.25f};
  Variable w(Tensor::fromVector<float>(wv, {16, 3}), "w");
  Variable b(Tensor::fromVector<float>(bv, {3}), "b");
  auto layer = lazyc::function(
      "layer", [&](Tensor x) { return relu(matmul(x, w.read()) + b.read()); },
      {TensorSpec({-1, 16}, DType::Float32, "x")});
  uint64_t before = metrics().tracesCompiled;
  for (int64_t batch : {1, 7, 33, 100}) {
    std::vector<float> xv = sequence(batch * 16, 0.5f);
    std::vector<float> got =
        layer(Tensor::fromVector<float>(xv, {batch, 16})).toVector<float>();
    ASSERT_EQ(got.size(), size_t(batch * 3));
    for (int64_t r = 0; r < batch; ++r)
      for (int64_t c = 0; c < 3; ++c) {
        double dot = bv[c];
        for (int64_t k = 0; k < 16; ++k)
          dot += double(xv[r * 16 + k]) * wv[k * 3 + c];
        EXPECT_NEAR(got[r * 3 + c], std::max(dot, 0.0),
                    1e-4 * std::max(1.0, std::fabs(dot)))
            << "batch " << batch << " row " << r;
      }
  }
  EXPECT_EQ(metrics().tracesCompiled - before, 1u);
}

TEST(FunctionTest, CallsThatDoNotMatchTheSignatureAreErrors) {
  auto f =
      lazyc::function("scale", [](Tensor x, Tensor y) { return x * 2.0f + y; },
                      {TensorSpec({-1, 4}, DType::Float32, "x"),
                       TensorSpec({4}, DType::Float32, "y")});
  Tensor y = ones({4});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        f(ones({2, 5}), y);
      },
      "scale",
      "argument 0 (x) does not match the signature: expected Float32 [?, 4], "
      "got Float32 [2, 5]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        f(ones({2, 4}), ones({4}, DType::Float64));
      },
      "scale",
      "argument 1 (y) does not match the signature: expected "
      "Float32 [4], got Float64 [4]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        lazyc::function("bad", [](Tensor x) { return x; },
                        {TensorSpec({2}), TensorSpec({3})});
      },
      "bad", "the signature has 2 TensorSpecs, but the function takes 1");
  EXPECT_TRUE(f.concreteFunctions().empty());
}

TEST(FunctionTest, WithoutASignatureEachTypeIsTracedAndRetracingIsReported) {
  auto f = lazyc::function("double", [](Tensor x) { return x * 2.0f; });
  testing::internal::CaptureStderr();
  for (int64_t n = 1; n <= 6; ++n) {
    std::vector<float> values = sequence(n, 1.0f);
    std::vector<float> got =
        f(Tensor::fromVector<float>(values, {n})).toVector<float>();
    for (int64_t i = 0; i < n; ++i)
      EXPECT_EQ(got[i], values[i] * 2);
  }
  (void)f(ones({3})); // Seen before: no new concrete function.
  std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_EQ(f.concreteFunctions().size(), 6u);
  EXPECT_NE(warnings.find("function 'double'"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("argument 0 changed from arg0: Float32 [4] to arg0: "
                          "Float32 [5]"),
            std::string::npos)
      << warnings;
  // Once only.
  EXPECT_EQ(warnings.find("warning", warnings.find("warning") + 1),
            std::string::npos);
}

TEST(FunctionTest, OtherArgumentsAndTheModeArePartOfTheKey) {
  auto f =
      lazyc::function("affine", [](Tensor x, double scale, std::string mode) {
        return mode == "shift" ? Tensor(x + scale) : Tensor(x * scale);
      });
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  EXPECT_EQ(f(x, 0.5, "scale").toVector<float>(),
            (std::vector<float>{0.5f, 1.0f}));
  EXPECT_EQ(f(x, 0.5, "shift").toVector<float>(),
            (std::vector<float>{1.5f, 2.5f}));
  EXPECT_EQ(f(x, 0.25, "scale").toVector<float>(),
            (std::vector<float>{0.25f, 0.5f}));
  EXPECT_EQ(f(x, 0.5, "scale").toVector<float>(),
            (std::vector<float>{0.5f, 1.0f}));
  {
    EagerScope eager;
    EXPECT_EQ(f(x, 0.5, "scale").toVector<float>(),
              (std::vector<float>{0.5f, 1.0f}));
  }
  std::vector<ConcreteFunction> concrete = f.concreteFunctions();
  ASSERT_EQ(concrete.size(), 4u);
  EXPECT_EQ(concrete[0].signature(),
            "affine(arg0: Float32 [2], arg1: 0.5, arg2: \"scale\") -> "
            "Float32 [2]");
  EXPECT_EQ(concrete[0].calls(), 2);
  EXPECT_EQ(concrete[2].signature(),
            "affine(arg0: Float32 [2], arg1: 0.25, arg2: \"scale\") -> "
            "Float32 [2]");
  EXPECT_EQ(concrete[3].signature(),
            "affine(arg0: Float32 [2], arg1: 0.5, arg2: \"scale\") [eager] -> "
            "Float32 [2]");
}

TEST(FunctionTest, VariablesAreCapturedByReferenceInProgramOrder) {
  Variable total(zeros({2}), "total");
  auto accumulate = lazyc::function("accumulate", [&](Tensor x) {
    total.assignAdd(x);
    return total.read() * 10.0f; // Sees the assignment just made.
  });
  Tensor a = Tensor::fromVector<float>({1, 2}, {2});
  Tensor b = Tensor::fromVector<float>({3, -1}, {2});
  Tensor first = accumulate(a);
  total.assign(total.read() * 2.0f); // Between two calls, in program order.
  Tensor second = accumulate(b);
  EXPECT_EQ(first.toVector<float>(), (std::vector<float>{10, 20}));
  EXPECT_EQ(second.toVector<float>(), (std::vector<float>{50, 30}));
  EXPECT_EQ(total.read().toVector<float>(), (std::vector<float>{5, 3}));
}

TEST(FunctionTest, StateIsCreatedOnTheFirstCallOnly) {
  std::optional<Variable> counter;
  auto tick = lazyc::function("tick", [&](Tensor step) {
    if (!counter)
      counter.emplace(zeros({}), "counter");
    counter->assignAdd(step);
    return counter->read();
  });
  EXPECT_EQ(tick(ones({})).item<float>(), 1.0f);
  EXPECT_EQ(tick(ones({})).item<float>(), 2.0f);

  auto leaky = lazyc::function("leaky", [](Tensor x) {
    Variable fresh(x, "fresh");
    return fresh.read() + 1.0f;
  });
  EXPECT_EQ(leaky(ones({})).item<float>(), 2.0f); // The first call may.
  try {
    (void)leaky(ones({}));
    ADD_FAILURE() << "no error";
  } catch (const Error &error) {
    EXPECT_EQ(error.op(), "leaky");
    EXPECT_NE(std::string(error.what())
                  .find("creates Variable 'fresh' on a later call"),
              std::string::npos)
        << error.what();
  }
}

TEST(FunctionTest, UnknownSizeMeetsAStaticOneOfTheSameSize) {
  // Was a crash (lazyc-fuzz seed 1744): the parameter's unknown batch size
  // met the static size of a value built from static pieces in one op.
  auto f = lazyc::function("sub", [](Tensor x, Tensor y) { return x - y; },
                           {TensorSpec({-1, 1}, DType::Float32, "x"),
                            TensorSpec({-1, 1}, DType::Float32, "y")});
  Tensor x = full({14, 1}, 1.0f);
  Tensor y = -0.25f - concat({zeros({5, 1}), ones({9, 1})}, 0);
  std::vector<float> out = f(x, y).toVector<float>();
  ASSERT_EQ(out.size(), 14u);
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(out[i], i < 5 ? 1.25f : 2.25f) << i;
}

TEST(FunctionTest, UnknownSizeMeetsAStaticOneInsideABranch) {
  // Was a crash (lazyc-fuzz seed 99478): inside a cond's branch, a staged
  // function's result of unknown size met a value of static size in one
  // elementwise op.
  auto f = lazyc::function("half", [](Tensor x) { return x * 0.5f; },
                           {TensorSpec({-1}, DType::Float32, "x")});
  Tensor base = Tensor::fromVector<float>({1, 2, 3, 4}, {4});
  Tensor fixed = slice(base, {1}, {3}, {1});                 // [2, 3], static
  Tensor halves = f(Tensor::fromVector<float>({4, 6}, {2})); // [2, 3]
  Tensor picked = cond(
      sum(halves) > 100.0f, [&] { return tanh(fixed); },
      [&] { return fixed + halves * fixed; });
  EXPECT_EQ(picked.toVector<float>(), (std::vector<float>{6, 12}));
}

} // namespace
