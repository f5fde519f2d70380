//===- CompiledFunctionTest.cpp - Tests of the JIT's CompiledFunction -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Compiles small `lazy` modules parsed from strings with CompiledFunction,
// calls them on caller-owned buffers, and checks the outputs against plain
// C++ loops; checks the signature checks of call(), compile errors, the
// compile statistics, and that repeated calls do not leak temporaries.
//
//===----------------------------------------------------------------------===//

#include "lazyc/JIT/CompiledFunction.h"
#include "lazyc/InitAll.h"
#include "lazyc/Runtime/Runtime.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace mlir;
using lazyc::jit::BufferView;
using lazyc::jit::CompiledFunction;
using lazyc::jit::kDynamic;

namespace {

class CompiledFunctionTest : public ::testing::Test {
protected:
  CompiledFunctionTest() {
    DialectRegistry registry;
    lazyc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `source` and compiles its function `name`; fails the test (and
  /// returns null) when either step fails.
  std::unique_ptr<CompiledFunction> compile(llvm::StringRef source,
                                            llvm::StringRef name) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    if (!module) {
      ADD_FAILURE() << "cannot parse:\n" << source.str();
      return nullptr;
    }
    auto compiled = CompiledFunction::compile(*module, name);
    if (!compiled) {
      ADD_FAILURE() << "cannot compile @" << name.str() << ": "
                    << llvm::toString(compiled.takeError());
      return nullptr;
    }
    return std::move(*compiled);
  }

  /// Compiles expecting failure; returns the error message.
  std::string compileError(llvm::StringRef source, llvm::StringRef name) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return "<parse failure>";
    auto compiled = CompiledFunction::compile(*module, name);
    if (compiled)
      return "<compiled>";
    return llvm::toString(compiled.takeError());
  }

  MLIRContext context;
};

std::vector<float> randomFloats(size_t count, unsigned seed, float low = -1,
                                float high = 1) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> value(low, high);
  std::vector<float> values(count);
  for (float &v : values)
    v = value(engine);
  return values;
}

/// Returns the message of `error` ("" for success).
std::string messageOf(llvm::Error error) {
  if (!error)
    return "";
  return llvm::toString(std::move(error));
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

constexpr const char *kAxpy = R"mlir(
func.func @axpy(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = lazy.constant dense<2.0> : tensor<4x8xf32>
  %0 = lazy.mul %x, %c : tensor<4x8xf32>
  %1 = lazy.add %0, %y : tensor<4x8xf32>
  %2 = lazy.relu %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
)mlir";

TEST_F(CompiledFunctionTest, StaticFunctionCalledTwiceOnDifferentBuffers) {
  auto axpy = compile(kAxpy, "axpy");
  ASSERT_TRUE(axpy);
  ASSERT_EQ(axpy->inputs().size(), 2u);
  ASSERT_EQ(axpy->outputs().size(), 1u);
  EXPECT_EQ(axpy->inputs()[0].str(), "tensor<4x8xf32>");
  EXPECT_EQ(axpy->outputs()[0].str(), "tensor<4x8xf32>");

  const int64_t shape[] = {4, 8};
  for (unsigned round = 0; round < 2; ++round) {
    std::vector<float> x = randomFloats(32, 10 + round),
                       y = randomFloats(32, 20 + round), out(32, NAN);
    ASSERT_EQ(messageOf(axpy->call({{x.data(), shape}, {y.data(), shape}},
                                   {{out.data(), shape}})),
              "");
    for (size_t i = 0; i < 32; ++i) {
      float expected = std::max(x[i] * 2.0f + y[i], 0.0f);
      // 2x is exact, so one rounding: bit-exact even if contracted to FMA.
      EXPECT_EQ(out[i], expected) << "round " << round << " element " << i;
    }
  }
}

constexpr const char *kDynamic1D = R"mlir(
func.func @dyn(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %0 = lazy.mul %x, %x : tensor<?xf32>
  %1 = lazy.sub %0, %x : tensor<?xf32>
  %2 = lazy.reduce_sum %x [0] : tensor<?xf32>
  return %1, %2 : tensor<?xf32>, tensor<f32>
}
)mlir";

TEST_F(CompiledFunctionTest, DynamicShapeCalledWithTwoSizes) {
  auto dyn = compile(kDynamic1D, "dyn");
  ASSERT_TRUE(dyn);
  ASSERT_EQ(dyn->inputs().size(), 1u);
  EXPECT_EQ(dyn->inputs()[0].shape[0], kDynamic);
  EXPECT_EQ(dyn->inputs()[0].str(), "tensor<?xf32>");
  EXPECT_EQ(dyn->outputs()[1].str(), "tensor<f32>");

  uint64_t inUse = lazyrt_get_allocator_stats().bytes_in_use;
  for (int64_t n : {int64_t(5), int64_t(1003), int64_t(1)}) {
    // Integers in [-8, 8]: every product and sum is exact in f32.
    std::vector<float> x(n);
    for (int64_t i = 0; i < n; ++i)
      x[i] = static_cast<float>((i * 7) % 17 - 8);
    std::vector<float> out(n, NAN);
    float sum = NAN;
    const int64_t shape[] = {n};
    std::string error = messageOf(
        dyn->call({{x.data(), shape}}, {{out.data(), shape}, {&sum, {}}}));
    ASSERT_EQ(error, "");
    double expectedSum = 0;
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(out[i], x[i] * x[i] - x[i]) << "n " << n << " element " << i;
      expectedSum += x[i];
    }
    EXPECT_EQ(sum, static_cast<float>(expectedSum)) << "n " << n;
  }
  // Its temporary (the result before the copy to the output) is freed.
  EXPECT_EQ(lazyrt_get_allocator_stats().bytes_in_use, inUse);
}

TEST_F(CompiledFunctionTest, DynamicShapeWithZeroElements) {
  auto dyn = compile(kDynamic1D, "dyn");
  ASSERT_TRUE(dyn);
  float dummy = 0, sum = NAN;
  const int64_t shape[] = {0};
  ASSERT_EQ(
      messageOf(dyn->call({{&dummy, shape}}, {{&dummy, shape}, {&sum, {}}})),
      "");
  EXPECT_EQ(sum, 0.0f);
}

constexpr const char *kTwoResults = R"mlir(
func.func @two(%a: tensor<6x16xf32>, %b: tensor<16x5xf32>) -> (tensor<6x5xf32>, tensor<6x1xf32>) {
  %0 = lazy.matmul %a, %b : tensor<6x16xf32>, tensor<16x5xf32>
  %1 = lazy.reduce_max %a [1] keep_dims : tensor<6x16xf32>
  return %0, %1 : tensor<6x5xf32>, tensor<6x1xf32>
}
)mlir";

TEST_F(CompiledFunctionTest, TwoResults) {
  auto two = compile(kTwoResults, "two");
  ASSERT_TRUE(two);
  ASSERT_EQ(two->outputs().size(), 2u);
  EXPECT_EQ(two->outputs()[0].str(), "tensor<6x5xf32>");
  EXPECT_EQ(two->outputs()[1].str(), "tensor<6x1xf32>");

  std::vector<float> a = randomFloats(6 * 16, 1), b = randomFloats(16 * 5, 2);
  std::vector<float> product(6 * 5, NAN), rowMax(6, NAN);
  const int64_t aShape[] = {6, 16}, bShape[] = {16, 5}, pShape[] = {6, 5},
                mShape[] = {6, 1};
  ASSERT_EQ(
      messageOf(two->call({{a.data(), aShape}, {b.data(), bShape}},
                          {{product.data(), pShape}, {rowMax.data(), mShape}})),
      "");
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 5; ++j) {
      double sum = 0;
      for (int p = 0; p < 16; ++p)
        sum += double(a[i * 16 + p]) * double(b[p * 5 + j]);
      // 16 products of |x| < 1 in f32: error below 16 * 16 * 2^-24.
      EXPECT_NEAR(product[i * 5 + j], sum, 1e-5)
          << "[" << i << ", " << j << "]";
    }
    float max = -std::numeric_limits<float>::infinity();
    for (int p = 0; p < 16; ++p)
      max = std::max(max, a[i * 16 + p]);
    EXPECT_EQ(rowMax[i], max) << "row " << i;
  }
}

constexpr const char *kSoftmax = R"mlir(
func.func @softmax(%x: tensor<64x100xf32>) -> tensor<64x100xf32> {
  %0 = lazy.softmax %x, axis = 1 : tensor<64x100xf32>
  return %0 : tensor<64x100xf32>
}
)mlir";

/// Softmax of each row of `x` (rows x cols), in double.
std::vector<double> softmaxRows(const std::vector<float> &x, int rows,
                                int cols) {
  std::vector<double> result(x.size());
  for (int i = 0; i < rows; ++i) {
    double max = -INFINITY, sum = 0;
    for (int j = 0; j < cols; ++j)
      max = std::max(max, double(x[i * cols + j]));
    for (int j = 0; j < cols; ++j)
      sum += std::exp(double(x[i * cols + j]) - max);
    for (int j = 0; j < cols; ++j)
      result[i * cols + j] = std::exp(double(x[i * cols + j]) - max) / sum;
  }
  return result;
}

TEST_F(CompiledFunctionTest, SoftmaxValues) {
  auto softmax = compile(kSoftmax, "softmax");
  ASSERT_TRUE(softmax);
  std::vector<float> x = randomFloats(6400, 3, -20, 20), out(6400, NAN);
  const int64_t shape[] = {64, 100};
  ASSERT_EQ(
      messageOf(softmax->call({{x.data(), shape}}, {{out.data(), shape}})), "");
  std::vector<double> expected = softmaxRows(x, 64, 100);
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_NEAR(out[i], expected[i], 1e-5 * expected[i] + 1e-7)
        << "element " << i;
}

TEST_F(CompiledFunctionTest, RepeatedCallsDoNotLeakTemporaries) {
  auto softmax = compile(kSoftmax, "softmax");
  ASSERT_TRUE(softmax);
  std::vector<float> x = randomFloats(6400, 4), out(6400);
  const int64_t shape[] = {64, 100};
  // One call first: it may fill the allocator's cache.
  ASSERT_EQ(
      messageOf(softmax->call({{x.data(), shape}}, {{out.data(), shape}})), "");
  lazyrt_allocator_stats before = lazyrt_get_allocator_stats();
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(
        messageOf(softmax->call({{x.data(), shape}}, {{out.data(), shape}})),
        "");
  lazyrt_allocator_stats after = lazyrt_get_allocator_stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  // Whatever the calls allocate comes back from the cache.
  EXPECT_EQ(after.allocations - before.allocations,
            after.reuses - before.reuses);
  EXPECT_LE(after.bytes_cached, before.bytes_cached + (1u << 20));
  // The last call's values are still right.
  std::vector<double> expected = softmaxRows(x, 64, 100);
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_NEAR(out[i], expected[i], 1e-5 * expected[i] + 1e-7);
}

/// Calls `function` (one input, one output of `shape`) `calls` times on
/// random inputs and checks that bytes_in_use did not grow and that the
/// last output is the row softmax of the input.
void checkSoftmaxDoesNotLeak(const CompiledFunction &function, int rows,
                             int cols, int calls) {
  std::vector<float> x = randomFloats(size_t(rows) * cols, 6, -4, 4),
                     out(x.size(), NAN);
  const int64_t shape[] = {rows, cols};
  ASSERT_EQ(
      messageOf(function.call({{x.data(), shape}}, {{out.data(), shape}})), "");
  lazyrt_allocator_stats before = lazyrt_get_allocator_stats();
  for (int i = 0; i < calls; ++i)
    ASSERT_EQ(
        messageOf(function.call({{x.data(), shape}}, {{out.data(), shape}})),
        "");
  lazyrt_allocator_stats after = lazyrt_get_allocator_stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use)
      << (after.bytes_in_use - before.bytes_in_use) / calls
      << " bytes leaked per call (" << after.allocations - before.allocations
      << " allocations, " << after.reuses - before.reuses << " reuses)";
  std::vector<double> expected = softmaxRows(x, rows, cols);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_NEAR(out[i], expected[i], 1e-5 * expected[i] + 1e-7)
        << "element " << i;
}

// Rows of 20000 f32 (80000 bytes) exceed the 64 KiB limit of promotion to
// the stack, so each thread chunk's per-row temporary is a heap allocation.
// (Regression: those temporaries, allocated inside the thread loop's body,
// were never freed: 2 x 81920 bytes leaked per call.)
TEST_F(CompiledFunctionTest, LargeRowSoftmaxDoesNotLeak) {
  auto softmax = compile(R"mlir(
func.func @softmax(%x: tensor<8x20000xf32>) -> tensor<8x20000xf32> {
  %0 = lazy.softmax %x, axis = 1 : tensor<8x20000xf32>
  return %0 : tensor<8x20000xf32>
}
)mlir",
                         "softmax");
  ASSERT_TRUE(softmax);
  checkSoftmaxDoesNotLeak(*softmax, 8, 20000, 100);
}

// With dynamic shapes no temporary can go to the stack. (Regression: the
// per-chunk temporaries of the thread loop leaked, about 30 KB per call.)
TEST_F(CompiledFunctionTest, DynamicSoftmaxDoesNotLeak) {
  auto softmax = compile(R"mlir(
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = lazy.softmax %x, axis = 1 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
)mlir",
                         "softmax");
  ASSERT_TRUE(softmax);
  checkSoftmaxDoesNotLeak(*softmax, 64, 100, 1000);
}

constexpr const char *kWithTemporary = R"mlir(
func.func @centered(%x: tensor<32x50xf32>) -> (tensor<32x50xf32>, tensor<50x32xf32>) {
  %m = lazy.reduce_mean %x [1] keep_dims : tensor<32x50xf32>
  %b = lazy.broadcast %m to [32, 50] : tensor<32x1xf32>
  %c = lazy.sub %x, %b : tensor<32x50xf32>
  %t = lazy.transpose %c [1, 0] : tensor<32x50xf32>
  %e = lazy.exp %t : tensor<50x32xf32>
  return %c, %e : tensor<32x50xf32>, tensor<50x32xf32>
}
)mlir";

TEST_F(CompiledFunctionTest, TemporariesAcrossResultsDoNotLeak) {
  auto centered = compile(kWithTemporary, "centered");
  ASSERT_TRUE(centered);
  std::vector<float> x = randomFloats(32 * 50, 5), c(32 * 50), e(32 * 50);
  const int64_t xShape[] = {32, 50}, tShape[] = {50, 32};
  ASSERT_EQ(messageOf(centered->call({{x.data(), xShape}},
                                     {{c.data(), xShape}, {e.data(), tShape}})),
            "");
  uint64_t inUse = lazyrt_get_allocator_stats().bytes_in_use;
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(
        messageOf(centered->call({{x.data(), xShape}},
                                 {{c.data(), xShape}, {e.data(), tShape}})),
        "");
  EXPECT_EQ(lazyrt_get_allocator_stats().bytes_in_use, inUse);
  for (int i = 0; i < 32; ++i) {
    double mean = 0;
    for (int j = 0; j < 50; ++j)
      mean += x[i * 50 + j];
    mean /= 50;
    for (int j = 0; j < 50; ++j) {
      double expected = x[i * 50 + j] - mean;
      EXPECT_NEAR(c[i * 50 + j], expected, 1e-6);
      EXPECT_NEAR(e[j * 32 + i], std::exp(expected), 4e-6 * std::exp(expected));
    }
  }
}

constexpr const char *kIdentity = R"mlir(
func.func @identity(%x: tensor<3x5xf64>) -> (tensor<3x5xf64>, tensor<3x5xf64>) {
  %0 = lazy.neg %x : tensor<3x5xf64>
  return %x, %0 : tensor<3x5xf64>, tensor<3x5xf64>
}
)mlir";

TEST_F(CompiledFunctionTest, ResultThatIsAnArgument) {
  auto identity = compile(kIdentity, "identity");
  ASSERT_TRUE(identity);
  std::vector<double> x(15), same(15, NAN), negated(15, NAN);
  for (int i = 0; i < 15; ++i)
    x[i] = i * 0.25 - 1.5;
  const int64_t shape[] = {3, 5};
  ASSERT_EQ(
      messageOf(identity->call({{x.data(), shape}}, {{same.data(), shape},
                                                     {negated.data(), shape}})),
      "");
  for (int i = 0; i < 15; ++i) {
    EXPECT_EQ(same[i], x[i]);
    EXPECT_EQ(negated[i], -x[i]);
  }
}

constexpr const char *kIntegers = R"mlir(
func.func @ints(%a: tensor<10xi32>, %b: tensor<10xi32>) -> (tensor<10xi32>, tensor<10xi1>) {
  %0 = lazy.mul %a, %b : tensor<10xi32>
  %1 = lazy.compare lt, %a, %b : tensor<10xi32>
  return %0, %1 : tensor<10xi32>, tensor<10xi1>
}
)mlir";

TEST_F(CompiledFunctionTest, IntegerAndBooleanBuffers) {
  auto ints = compile(kIntegers, "ints");
  ASSERT_TRUE(ints);
  std::vector<int32_t> a(10), b(10), product(10, -1);
  std::vector<uint8_t> less(10, 7);
  for (int i = 0; i < 10; ++i) {
    a[i] = i * 3 - 10;
    b[i] = 7 - i * 2;
  }
  const int64_t shape[] = {10};
  ASSERT_EQ(
      messageOf(ints->call({{a.data(), shape}, {b.data(), shape}},
                           {{product.data(), shape}, {less.data(), shape}})),
      "");
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(product[i], a[i] * b[i]);
    EXPECT_EQ(less[i], a[i] < b[i] ? 1 : 0) << "element " << i;
  }
}

TEST_F(CompiledFunctionTest, ConcurrentCallsFromSeveralThreads) {
  // call() is const: one compiled function may serve several threads.
  auto softmax = compile(kSoftmax, "softmax");
  ASSERT_TRUE(softmax);
  constexpr int kThreads = 4;
  std::vector<std::vector<float>> xs, outs(kThreads);
  for (int t = 0; t < kThreads; ++t)
    xs.push_back(randomFloats(6400, 100 + t, -5, 5));
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  const int64_t shape[] = {64, 100};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      outs[t].assign(6400, NAN);
      for (int i = 0; i < 50 && errors[t].empty(); ++i)
        errors[t] = messageOf(
            softmax->call({{xs[t].data(), shape}}, {{outs[t].data(), shape}}));
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "");
    std::vector<double> expected = softmaxRows(xs[t], 64, 100);
    for (size_t i = 0; i < expected.size(); ++i)
      ASSERT_NEAR(outs[t][i], expected[i], 1e-5 * expected[i] + 1e-7)
          << "thread " << t << " element " << i;
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(CompiledFunctionTest, WrongNumberOfInputs) {
  auto axpy = compile(kAxpy, "axpy");
  ASSERT_TRUE(axpy);
  std::vector<float> x(32), out(32);
  const int64_t shape[] = {4, 8};
  EXPECT_EQ(messageOf(axpy->call({{x.data(), shape}}, {{out.data(), shape}})),
            "lazyc JIT: expected 2 inputs, got 1");
  EXPECT_EQ(messageOf(axpy->call({{x.data(), shape}, {x.data(), shape}}, {})),
            "lazyc JIT: expected 1 outputs, got 0");
}

TEST_F(CompiledFunctionTest, WrongShapeNamesTheArgumentAndShapes) {
  auto axpy = compile(kAxpy, "axpy");
  ASSERT_TRUE(axpy);
  std::vector<float> x(64, 1.0f), out(64, -3.0f);
  const int64_t good[] = {4, 8}, transposed[] = {8, 4}, flat[] = {32};
  EXPECT_EQ(messageOf(axpy->call({{x.data(), good}, {x.data(), transposed}},
                                 {{out.data(), good}})),
            "lazyc JIT: input #1 has shape [8, 4], expected tensor<4x8xf32>");
  EXPECT_EQ(messageOf(axpy->call({{x.data(), flat}, {x.data(), good}},
                                 {{out.data(), good}})),
            "lazyc JIT: input #0 has shape [32], expected tensor<4x8xf32>");
  EXPECT_EQ(messageOf(axpy->call({{x.data(), good}, {x.data(), good}},
                                 {{out.data(), transposed}})),
            "lazyc JIT: output #0 has shape [8, 4], expected tensor<4x8xf32>");
  // Nothing ran.
  EXPECT_EQ(out, std::vector<float>(64, -3.0f));

  auto dyn = compile(kDynamic1D, "dyn");
  ASSERT_TRUE(dyn);
  const int64_t negative[] = {-1};
  float sum;
  EXPECT_EQ(messageOf(dyn->call({{x.data(), negative}},
                                {{out.data(), negative}, {&sum, {}}})),
            "lazyc JIT: input #0 has shape [-1], expected tensor<?xf32>");
  const int64_t rank2[] = {2, 2}, four[] = {4};
  EXPECT_EQ(messageOf(dyn->call({{x.data(), four}},
                                {{out.data(), four}, {&sum, rank2}})),
            "lazyc JIT: output #1 has shape [2, 2], expected tensor<f32>");
}

// A dynamic function's output buffers must fit what it computes: an output
// declared with 4 elements for an 8-element input must be refused and left
// unwritten. (Regression: the generated code wrote all 8 elements into the
// 4-element output.)
TEST_F(CompiledFunctionTest, DynamicOutputSmallerThanResultIsRefused) {
  auto dyn = compile(kDynamic1D, "dyn");
  ASSERT_TRUE(dyn);
  std::vector<float> x(8, 2.0f), out(16, -100.0f);
  float sum = NAN;
  const int64_t eight[] = {8}, four[] = {4};
  std::string error = messageOf(
      dyn->call({{x.data(), eight}}, {{out.data(), four}, {&sum, {}}}));
  EXPECT_EQ(error, "lazyc JIT: output #0 has shape [4], but the function "
                   "computed a different one for these inputs; the output "
                   "was not written");
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(out[i], -100.0f) << "element " << i << " was written";
  // The right size still works afterwards.
  std::vector<float> good(8, -100.0f);
  EXPECT_EQ(messageOf(dyn->call({{x.data(), eight}},
                                {{good.data(), eight}, {&sum, {}}})),
            "");
}

// The refused output is named by its own index when a static output comes
// first. (Regression: lazy-check-output-shapes counted from the first
// guarded out-parameter, so this said "output #0".)
TEST_F(CompiledFunctionTest, RefusedOutputAfterAStaticOneIsNamedRight) {
  auto mixed = compile(R"mlir(
    func.func @mixed(%x: tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>) {
      %0 = lazy.reduce_sum %x [0] : tensor<?xf32>
      %1 = lazy.mul %x, %x : tensor<?xf32>
      return %0, %1 : tensor<f32>, tensor<?xf32>
    }
  )mlir",
                       "mixed");
  ASSERT_TRUE(mixed);
  std::vector<float> x(8, 3.0f), out(8, -100.0f);
  float sum = NAN;
  const int64_t eight[] = {8}, four[] = {4};
  EXPECT_EQ(messageOf(mixed->call({{x.data(), eight}},
                                  {{&sum, {}}, {out.data(), four}})),
            "lazyc JIT: output #1 has shape [4], but the function computed a "
            "different one for these inputs; the output was not written");
  EXPECT_EQ(out[0], -100.0f);
  EXPECT_EQ(sum, 24.0f); // The static output was written.
}

TEST_F(CompiledFunctionTest, MissingFunctionFailsToCompile) {
  EXPECT_EQ(compileError(kAxpy, "nope"),
            "lazyc JIT: no function @nope in the module");
}

TEST_F(CompiledFunctionTest, UnsupportedArgumentTypeFailsToCompile) {
  std::string error = compileError(R"mlir(
func.func @f(%x: tensor<*xf32>) -> tensor<*xf32> {
  return %x : tensor<*xf32>
}
)mlir",
                                   "f");
  EXPECT_NE(error.find("unsupported argument or result type tensor<*xf32>"),
            std::string::npos)
      << error;
}

TEST_F(CompiledFunctionTest, StatsArePositive) {
  auto axpy = compile(kAxpy, "axpy");
  ASSERT_TRUE(axpy);
  EXPECT_GT(axpy->stats().pipelineMs, 0.0);
  EXPECT_GT(axpy->stats().codegenMs, 0.0);
  // Sanity: a tiny function compiles in well under a minute.
  EXPECT_LT(axpy->stats().pipelineMs + axpy->stats().codegenMs, 60000.0);
}

TEST_F(CompiledFunctionTest, TwoFunctionsOfOneSourceCompiledSeparately) {
  // Each compile lowers its module in place, so parse once per function.
  std::string source = std::string(kAxpy) + kIdentity;
  auto axpy = compile(source, "axpy");
  auto identity = compile(source, "identity");
  ASSERT_TRUE(axpy);
  ASSERT_TRUE(identity);
  std::vector<float> x(32, 1.5f), y(32, -0.5f), out(32);
  const int64_t shape[] = {4, 8};
  ASSERT_EQ(messageOf(axpy->call({{x.data(), shape}, {y.data(), shape}},
                                 {{out.data(), shape}})),
            "");
  EXPECT_EQ(out, std::vector<float>(32, 2.5f));
}

//===----------------------------------------------------------------------===//
// Parallel code generation
//===----------------------------------------------------------------------===//

// Four thread loops of different sizes, two of them calling the integer
// power helper that the lowering defines once in the module: LLVM compiles
// them in parts on several threads, each part declaring what another
// defines.
constexpr const char *kFourKernels = R"mlir(
func.func @parts(%a: tensor<1048576xf32>, %b: tensor<524288xf32>, %c: tensor<262144xi32>, %d: tensor<131072xi32>) -> (tensor<1048576xf32>, tensor<524288xf32>, tensor<262144xi32>, tensor<131072xi32>) {
  %0 = lazy.exp %a : tensor<1048576xf32>
  %1 = lazy.tanh %b : tensor<524288xf32>
  %2 = lazy.pow %c, %c : tensor<262144xi32>
  %3 = lazy.pow %d, %d : tensor<131072xi32>
  return %0, %1, %2, %3 : tensor<1048576xf32>, tensor<524288xf32>, tensor<262144xi32>, tensor<131072xi32>
}
)mlir";

/// Calls @parts on known inputs; returns the first wrong value it finds
/// ("" when all are right).
std::string checkFourKernels(CompiledFunction &parts) {
  const int64_t na = 1 << 20, nb = 1 << 19, nc = 1 << 18, nd = 1 << 17;
  std::vector<float> a = randomFloats(na, 1, -5, 5);
  std::vector<float> b = randomFloats(nb, 2, -5, 5);
  std::vector<int32_t> c(nc), d(nd);
  for (int64_t i = 0; i < nc; ++i)
    c[i] = i % 6;
  for (int64_t i = 0; i < nd; ++i)
    d[i] = (i * 7) % 6;
  std::vector<float> expA(na), tanhB(nb);
  std::vector<int32_t> powC(nc), powD(nd);
  const int64_t sa[] = {na}, sb[] = {nb}, sc[] = {nc}, sd[] = {nd};
  std::string message = messageOf(parts.call(
      {{a.data(), sa}, {b.data(), sb}, {c.data(), sc}, {d.data(), sd}},
      {{expA.data(), sa},
       {tanhB.data(), sb},
       {powC.data(), sc},
       {powD.data(), sd}}));
  if (!message.empty())
    return message;
  const int32_t powers[] = {1, 1, 4, 27, 256, 3125}; // n^n for n = 0..5
  for (int64_t i = 0; i < na; ++i)
    if (std::abs(expA[i] - std::exp(a[i])) > 4e-7 * std::exp(a[i]))
      return "exp(" + std::to_string(a[i]) + ") = " + std::to_string(expA[i]);
  for (int64_t i = 0; i < nb; ++i)
    if (std::abs(tanhB[i] - std::tanh(b[i])) > 4e-7)
      return "tanh(" + std::to_string(b[i]) + ") = " + std::to_string(tanhB[i]);
  for (int64_t i = 0; i < nc; ++i)
    if (powC[i] != powers[c[i]])
      return "pow(c) #" + std::to_string(i) + " = " + std::to_string(powC[i]);
  for (int64_t i = 0; i < nd; ++i)
    if (powD[i] != powers[d[i]])
      return "pow(d) #" + std::to_string(i) + " = " + std::to_string(powD[i]);
  return "";
}

TEST_F(CompiledFunctionTest, KernelsCompileInPartsOnSeveralThreads) {
  auto parts = compile(kFourKernels, "parts");
  ASSERT_TRUE(parts);
  unsigned expected = std::thread::hardware_concurrency() >= 2 ? 2 : 1;
  EXPECT_GE(parts->stats().codegenParts, expected);
  EXPECT_EQ(checkFourKernels(*parts), "");
}

// The persistent cache keeps all the parts' objects as one entry; a later
// compile loads and links them all (on one core there is one part, which
// must load the same way). (A child process: LAZYC_CACHE_DIR is read once
// per process; the test suite runs with the cache off.)
TEST_F(CompiledFunctionTest, CachedPartsLoadTogether) {
  auto compileTwiceAndCheck = [&]() -> int {
    char directory[] = "/tmp/lazyc-parts-cache-XXXXXX";
    if (!mkdtemp(directory))
      return 2;
    setenv("LAZYC_CACHE_DIR", directory, 1);
    auto compiled = compile(kFourKernels, "parts");
    auto loaded = compile(kFourKernels, "parts");
    std::filesystem::remove_all(directory);
    if (!compiled || !loaded)
      return 3;
    unsigned parts = std::thread::hardware_concurrency() >= 2 ? 2 : 1;
    if (compiled->stats().codegenParts < parts ||
        !compiled->stats().storedToDiskCache ||
        !loaded->stats().loadedFromDiskCache)
      return 4;
    return checkFourKernels(*loaded).empty() ? 0 : 5;
  };
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(compileTwiceAndCheck()), ::testing::ExitedWithCode(0),
              "");
}

//===----------------------------------------------------------------------===//
// perf map
//===----------------------------------------------------------------------===//

// With LAZYC_PERF_MAP=1, the functions of a compiled trace, the outlined
// body of its thread loop included, are listed in /tmp/perf-<pid>.map with
// their addresses and sizes, under the thread's PerfMapLabel if it has
// one; the code at the entry's address runs. (A child
// process: the variable is read once per process.)
TEST_F(CompiledFunctionTest, PerfMapNamesTheCompiledFunctions) {
  // The exit code says what went wrong: 2 the run, 3 a malformed line, 4 a
  // missing name.
  auto compileRunAndReadMap = [&]() -> int {
    setenv("LAZYC_PERF_MAP", "1", 1);
    std::string map = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    std::remove(map.c_str());
    // @name computes `op` of 2^20 zeros; whether it ran and gave `at0`.
    auto compilesAndRuns = [&](const std::string &name, const std::string &op,
                               float at0) {
      auto function = compile("func.func @" + name +
                                  "(%x: tensor<1048576xf32>) -> "
                                  "tensor<1048576xf32> {\n  %0 = lazy." +
                                  op +
                                  " %x : tensor<1048576xf32>\n  return %0 : "
                                  "tensor<1048576xf32>\n}\n",
                              name);
      std::vector<float> x(1 << 20, 0.0f), out(1 << 20, NAN);
      const int64_t shape[] = {1 << 20};
      return function &&
             messageOf(
                 function->call({{x.data(), shape}}, {{out.data(), shape}}))
                 .empty() &&
             out.front() == at0 && out.back() == at0;
    };
    if (!compilesAndRuns("big", "exp", 1.0f))
      return 2;
    {
      // Compiled under a label (the engine's: the trace's dump file name).
      lazyc::jit::PerfMapLabel label("trace-0123ABCD");
      if (!compilesAndRuns("small", "tanh", 0.0f))
        return 2;
    }
    std::ifstream lines(map);
    std::string line;
    bool entry = false, threadLoop = false, labeled = false;
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string address, size, name;
      fields >> address >> size >> name;
      if (std::stoull(address, nullptr, 16) == 0 ||
          std::stoull(size, nullptr, 16) == 0)
        return 3;
      entry |= name == "lazyc:big:big";
      threadLoop |= name.rfind("lazyc:big:big_loop0..omp_par", 0) == 0;
      labeled |= name == "lazyc:trace-0123ABCD:small";
    }
    std::remove(map.c_str());
    return entry && threadLoop && labeled ? 0 : 4;
  };
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(compileRunAndReadMap()), ::testing::ExitedWithCode(0),
              "");
}

} // namespace
