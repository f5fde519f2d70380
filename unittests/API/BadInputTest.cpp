//===- BadInputTest.cpp - Bad input gives clear errors, never a crash -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every kind of bad input the API can be given: each must throw a
// lazyc::Error that names the op, states the shapes (or values) at fault and
// points at the user's line, thrown where the op is recorded even though
// nothing runs until later. The program catches it and goes on: earlier
// values, pending or computed, are intact.
//
//===----------------------------------------------------------------------===//

#include "lazyc/lazyc.h"

#include "ExpectError.h"

#include "gtest/gtest.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace lazyc;

namespace {

using lazyc::test::expectError;

class BadInputTest : public ::testing::Test {
protected:
  // Pending work and a computed value that every error must leave intact.
  void SetUp() override {
    computed = Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    (void)computed.toVector<float>();
    pending = computed * 2.0f;
  }
  void TearDown() override {
    EXPECT_EQ(computed.toVector<float>(),
              (std::vector<float>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(pending.toVector<float>(),
              (std::vector<float>{2, 4, 6, 8, 10, 12}));
  }
  Tensor computed, pending;
};

TEST_F(BadInputTest, ShapeMismatches) {
  Tensor a = zeros({2, 3}), b = zeros({4, 5});
  expectError([&](unsigned &l) { l = __LINE__, (void)(a + b); }, "add",
              "shapes [2, 3] and [4, 5] do not broadcast");
  expectError([&](unsigned &l) { l = __LINE__, (void)(a < b); }, "compare",
              "shapes [2, 3] and [4, 5] do not broadcast");
  expectError([&](unsigned &l) { l = __LINE__, (void)where(a > 0.0f, a, b); },
              "where", "[2, 3]");
  expectError([&](unsigned &l) { l = __LINE__, (void)concat({a, b}, 0); },
              "concat", "shapes [2, 3] and [4, 5] differ outside axis 0");
  expectError([&](unsigned &l) { l = __LINE__, (void)broadcastTo(a, {3, 3}); },
              "broadcastTo", "cannot broadcast [2, 3] to [3, 3]");
}

TEST_F(BadInputTest, DtypeMismatches) {
  Tensor flags = Tensor::fromBools({true, false}, {2});
  Tensor ints = Tensor::fromVector<int32_t>({1, 2}, {2});
  expectError([&](unsigned &l) { l = __LINE__, (void)matmul(flags, flags); },
              "matmul", "Bool");
  expectError([&](unsigned &l) { l = __LINE__, (void)-flags; }, "neg", "Bool");
  expectError([&](unsigned &l) { l = __LINE__, (void)abs(flags); }, "abs",
              "Bool");
  expectError(
      [&](unsigned &l) {
        l = __LINE__, (void)randomUniform({2}, 0, 1, 1, DType::Int32);
      },
      "randomUniform", "Int32");
  Variable weights(zeros({2}), "weights");
  expectError([&](unsigned &l) { l = __LINE__, weights.assign(ints); },
              "assign", "cannot assign a Int32 value to variable 'weights'");
}

TEST_F(BadInputTest, AxesOutOfRange) {
  Tensor a = zeros({2, 3});
  expectError([&](unsigned &l) { l = __LINE__, (void)sum(a, {2}); }, "sum",
              "axis 2 is out of range for a rank-2 tensor");
  expectError([&](unsigned &l) { l = __LINE__, (void)max(a, {-3}); }, "max",
              "axis -3 is out of range for a rank-2 tensor");
  expectError([&](unsigned &l) { l = __LINE__, (void)mean(a, {0, 0}); }, "mean",
              "axis 0 appears twice in the axes [0, 0] of a rank-2 tensor");
  expectError([&](unsigned &l) { l = __LINE__, (void)sum(a, {1, -1}); }, "sum",
              "axis 1 appears twice in the axes [1, -1]");
  expectError([&](unsigned &l) { l = __LINE__, (void)softmax(a, 5); },
              "softmax", "axis 5 is out of range for a rank-2 tensor");
  expectError([&](unsigned &l) { l = __LINE__, (void)concat({a, a}, 2); },
              "concat", "axis 2 is out of range for a rank-2 tensor");
  expectError([&](unsigned &l) { l = __LINE__, (void)transpose(a, {0, 0}); },
              "transpose", "[0, 0]");
  expectError([&](unsigned &l) { l = __LINE__, (void)transpose(a, {1}); },
              "transpose", "[1]");
}

TEST_F(BadInputTest, InvalidReshapesAndSlices) {
  Tensor a = zeros({2, 3});
  expectError([&](unsigned &l) { l = __LINE__, (void)reshape(a, {4, 2}); },
              "reshape", "cannot reshape [2, 3] (6 elements) to [4, 2]");
  expectError([&](unsigned &l) { l = __LINE__, (void)reshape(a, {-1, -1}); },
              "reshape", "only one dimension may be -1 in [-1, -1]");
  expectError([&](unsigned &l) { l = __LINE__, (void)reshape(a, {-2, -3}); },
              "reshape", "negative dimension in shape [-2, -3]");
  expectError([&](unsigned &l) { l = __LINE__, (void)reshape(a, {4, -1}); },
              "reshape", "cannot reshape [2, 3] (6 elements) to [4, -1]");
  expectError([&](unsigned &l) { l = __LINE__, (void)slice(a, {0}, {1}); },
              "slice", "one start, limit and step per dimension of [2, 3]");
  expectError(
      [&](unsigned &l) {
        l = __LINE__, (void)slice(a, {0, 0}, {2, 3}, {1, 0});
      },
      "slice", "step 0 in dimension 1 must be at least 1");
}

TEST_F(BadInputTest, MatmulOfWrongRanksAndSizes) {
  Tensor scalar = ones({}), matrix = zeros({2, 3}), other = zeros({4, 5});
  expectError([&](unsigned &l) { l = __LINE__, (void)matmul(scalar, matrix); },
              "matmul", "rank 1 or more, got [] and [2, 3]");
  expectError([&](unsigned &l) { l = __LINE__, (void)matmul(matrix, other); },
              "matmul", "inner dimensions differ: [2, 3] and [4, 5]");
  Tensor batched = zeros({2, 2, 3}), batched2 = zeros({3, 3, 4});
  expectError(
      [&](unsigned &l) { l = __LINE__, (void)matmul(batched, batched2); },
      "matmul", "shapes [2] and [3] do not broadcast");
}

TEST_F(BadInputTest, ReadingEmptyAndNonScalarTensors) {
  Tensor empty;
  expectError([&](unsigned &l) { l = __LINE__, (void)empty.item<float>(); },
              "item", "the Tensor is empty");
  expectError([&](unsigned &l) { l = __LINE__, (void)empty.toVector<float>(); },
              "toVector", "the Tensor is empty");
  expectError([&](unsigned &l) { l = __LINE__, (void)(empty + 1.0f); }, "add",
              "an operand is an empty Tensor");
  Tensor none = zeros({0});
  expectError([&](unsigned &l) { l = __LINE__, (void)none.item<float>(); },
              "item", "needs a tensor of one element, but the shape is [0]");
  // A bool conversion has no location parameter: it names the line that
  // made the tensor.
  unsigned madeAt = __LINE__ + 1;
  Tensor many = zeros({2, 3}) > 0.0f;
  try {
    (void)static_cast<bool>(many);
    FAIL() << "a six-element tensor must not convert to bool";
  } catch (const Error &error) {
    EXPECT_EQ(error.op(), "bool");
    EXPECT_NE(std::string(error.what()).find("has 6 elements"),
              std::string::npos);
    EXPECT_EQ(error.line(), madeAt);
  }
}

TEST_F(BadInputTest, HugeShapes) {
  // Too many elements to address: refused when recorded.
  expectError(
      [&](unsigned &l) {
        l = __LINE__, (void)zeros({int64_t(1) << 31, int64_t(1) << 31});
      },
      "full", "has too many elements (more than 2^59)");
  expectError(
      [&](unsigned &l) {
        l = __LINE__, (void)randomNormal({int64_t(1) << 40, 1 << 20}, 0, 1, 1);
      },
      "randomNormal", "too many elements");
  expectError(
      [&](unsigned &l) {
        Shape big = {int64_t(1) << 60, int64_t(1) << 60};
        l = __LINE__, (void)broadcastTo(ones({1}), big);
      },
      "broadcastTo", "too many elements");
  // Addressable but larger than memory: the allocation fails when the value
  // is computed, and the error names the op and line that made it.
  Tensor huge;
  unsigned line = __LINE__ + 1;
  huge = ones({int64_t(1) << 26, int64_t(1) << 20}) * 2.0f; // 256 TiB.
  try {
    (void)huge.toVector<float>();
    FAIL() << "a 256 TiB tensor must not be allocated";
  } catch (const Error &error) {
    EXPECT_EQ(error.op(), "mul") << error.what();
    EXPECT_EQ(error.line(), line) << error.what();
    EXPECT_NE(std::string(error.what()).find("cannot allocate"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(BadInputTest, NaNAndInfinityPropagateAsInNumpy) {
  // Not errors: IEEE values flow through every op as numpy computes them.
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Tensor::fromVector<float>({nan, inf, -inf, 1}, {4});
  std::vector<float> sums = (x + 1.0f).toVector<float>();
  EXPECT_TRUE(std::isnan(sums[0]));
  EXPECT_EQ(sums[1], inf);
  EXPECT_EQ(sums[2], -inf);
  EXPECT_EQ(exp(x).toVector<float>()[2], 0.0f);
  EXPECT_TRUE(std::isnan((x - x).toVector<float>()[1])); // inf - inf
  EXPECT_TRUE(std::isnan(sum(x).item<float>()));
  // numpy's max, min, maximum and minimum propagate NaN.
  EXPECT_TRUE(std::isnan(max(x).item<float>()));
  EXPECT_TRUE(std::isnan(min(x).item<float>()));
  EXPECT_TRUE(std::isnan(maximum(x, zeros({4})).toVector<float>()[0]));
  EXPECT_TRUE(std::isnan(minimum(x, zeros({4})).toVector<float>()[0]));
  EXPECT_EQ(max(slice(x, {1}, {4})).item<float>(), inf);
  // Comparisons with NaN are false, except !=.
  EXPECT_EQ((x > 0.0f).toVector<bool>(),
            (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ((x != x).toVector<bool>(),
            (std::vector<bool>{true, false, false, false}));
  EXPECT_TRUE(std::isnan(softmax(x).toVector<float>()[3]));
  EXPECT_EQ(log(zeros({1})).item<float>(), -inf);
  EXPECT_TRUE(std::isnan(sqrt(full({1}, -1.0f)).item<float>()));
}

TEST_F(BadInputTest, SoftmaxRowsWithSpecialValuesAsInNumpy) {
  // Rows of 1024: the compiled max accumulates 64 lanes (vectorized as a
  // compare and a select, whose NaN results the sum overrides). The
  // reference is numpy's formula in double: exp(x - max) / sum, where a NaN
  // max or a NaN sum makes the row NaN.
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const int64_t rows = 10, columns = 1024;
  std::vector<float> values(rows * columns);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < columns; ++c)
      values[r * columns + c] = float(std::sin(0.37 * double(c + 7 * r))) * 4;
  auto at = [&](int64_t r, int64_t c) -> float & {
    return values[r * columns + c];
  };
  at(0, 0) = nan;    // NaN first: the lane's accumulator starts with it
  at(1, 700) = nan;  // NaN in the middle of a lane
  at(2, 1023) = nan; // NaN last
  for (int64_t c = 0; c < columns; ++c)
    at(3, c) = -inf; // all -inf: -inf - -inf is NaN
  for (int64_t c = 0; c < columns; c += 3)
    at(4, c) = -inf; // masked out: exactly 0
  at(5, 500) = inf;  // inf - inf is NaN, and so is the sum
  at(6, 64) = 1e30f; // one value dominates: 1 there, 0 elsewhere
  for (int64_t c = 0; c < columns; ++c)
    at(7, c) = -1000.0f - float(c % 5); // all far below 0
  for (int64_t c = 0; c < columns; ++c)
    at(8, c) = c % 2 ? 0.0f : -0.0f; // signed zeros: uniform
  // Row 9 stays ordinary.

  std::vector<float> y =
      softmax(Tensor::fromVector<float>(values, {rows, columns}), 1)
          .toVector<float>();
  for (int64_t r = 0; r < rows; ++r) {
    double max = -INFINITY, sum = 0;
    for (int64_t c = 0; c < columns; ++c)
      max = std::isnan(max) || std::isnan(at(r, c))
                ? NAN
                : std::max(max, double(at(r, c)));
    for (int64_t c = 0; c < columns; ++c)
      sum += std::exp(double(at(r, c)) - max);
    for (int64_t c = 0; c < columns; ++c) {
      double expected = std::exp(double(at(r, c)) - max) / sum;
      float got = y[r * columns + c];
      if (std::isnan(expected))
        EXPECT_TRUE(std::isnan(got)) << "row " << r << ", column " << c;
      else
        EXPECT_NEAR(got, expected, 1e-6 * expected + 1e-37)
            << "row " << r << ", column " << c;
    }
  }
}

} // namespace
