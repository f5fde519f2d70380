//===- ArithmeticTest.cpp - Compound assignment, floorDiv, logic, ... -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The arithmetic of issue 17: compound assignment, scalars on the left of
// comparisons, floorDiv and mod, the logical ops, clamp, square, gelu (both
// forms), softplus, silu, any and all; and asin, acos, atan. Expected values
// come from plain loops in double precision (or by hand), never from lazyc;
// gradients from central finite differences in double precision (asin,
// acos, atan's from their closed forms). Each test runs lazily and eagerly.
//
//===----------------------------------------------------------------------===//

#include "ExpectError.h"
#include "lazyc/NN/Activations.h"
#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <cfloat>
#include <cmath>
#include <functional>
#include <optional>

using namespace lazyc;
using lazyc::test::expectError;

namespace {

/// Runs each test lazily (false) and eagerly (true).
class ArithmeticTest : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override {
    if (GetParam())
      eager.emplace();
  }
  std::optional<EagerScope> eager;
};

INSTANTIATE_TEST_SUITE_P(Modes, ArithmeticTest, ::testing::Values(false, true),
                         [](const auto &info) {
                           return info.param ? "Eager" : "Lazy";
                         });

/// Python's // and % on integers (the divisor's sign), 0 for a zero divisor.
int64_t pyFloorDiv(int64_t a, int64_t b) {
  if (b == 0)
    return 0;
  int64_t q = a / b;
  if (a % b != 0 && ((a % b < 0) != (b < 0)))
    --q;
  return q;
}
int64_t pyMod(int64_t a, int64_t b) {
  if (b == 0)
    return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

//===----------------------------------------------------------------------===//
// Compound assignment
//===----------------------------------------------------------------------===//

TEST_P(ArithmeticTest, CompoundAssignmentWithTensorsAndScalars) {
  Tensor x = Tensor::fromVector<float>({1, 2, 3, 4}, {2, 2});
  Tensor alias = x; // keeps the old value: += rebinds, it does not mutate
  x += Tensor::fromVector<float>({10, 20}, {2});
  x -= 1.0f;
  x *= 2;
  x /= 4.0;
  // ((1 + 10) - 1) * 2 / 4 = 5, ((2 + 20) - 1) * 2 / 4 = 10.5, ...
  EXPECT_EQ(x.toVector<float>(), (std::vector<float>{5, 10.5, 6, 11.5}));
  EXPECT_EQ(x.dtype(), DType::Float32);
  EXPECT_EQ(alias.toVector<float>(), (std::vector<float>{1, 2, 3, 4}));

  Tensor counts = Tensor::fromVector<int32_t>({1, -2, 3}, {3});
  counts += Tensor::fromVector<int64_t>({5, 5, 5}, {3}); // Int64, cast back
  counts *= 3;
  counts -= Tensor::fromBools({true, false, true}, {3});
  EXPECT_EQ(counts.dtype(), DType::Int32);
  EXPECT_EQ(counts.toVector<int32_t>(), (std::vector<int32_t>{17, 9, 23}));

  // A Float64 result into a Float32 tensor: same kind, cast back.
  Tensor y = Tensor::fromVector<float>({1.5f}, {1});
  y += Tensor::fromVector<double>({0.25}, {1});
  EXPECT_EQ(y.dtype(), DType::Float32);
  EXPECT_EQ(y.item<float>(), 1.75f);

  // The shape may grow by broadcasting.
  Tensor row = Tensor::fromVector<float>({1, 2}, {2});
  row += Tensor::fromVector<float>({0, 10}, {2, 1});
  EXPECT_EQ(row.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(row.toVector<float>(), (std::vector<float>{1, 2, 11, 12}));
}

TEST_P(ArithmeticTest, CompoundAssignmentOfAHigherKindIsAnError) {
  Tensor ints = Tensor::fromVector<int32_t>({1, 2}, {2});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        ints /= 2; // true division gives Float64
      },
      "/=", "Float64, which cannot be stored back into the Int32 tensor");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        ints += 0.5f;
      },
      "+=", "Float32, which cannot be stored back into the Int32");
  Tensor floats = Tensor::fromVector<float>({1, 2}, {2});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        ints -= floats;
      },
      "-=", "[2]");
  Tensor flags = Tensor::fromBools({true, false}, {2});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        flags *= 2;
      },
      "*=", "Int32, which cannot be stored back into the Bool");
  // The handle is unchanged after an error.
  EXPECT_EQ(ints.toVector<int32_t>(), (std::vector<int32_t>{1, 2}));
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        floats += Tensor::fromVector<float>({1, 2, 3}, {3});
      },
      "+=", "shapes [2] and [3] do not broadcast");
  Tensor empty;
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        empty *= 2.0f;
      },
      "*=", "an operand is an empty Tensor");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        floats -= empty;
      },
      "-=", "an operand is an empty Tensor");
}

//===----------------------------------------------------------------------===//
// Comparisons with a scalar on the left
//===----------------------------------------------------------------------===//

TEST_P(ArithmeticTest, ScalarOnTheLeftOfAComparison) {
  Tensor x = Tensor::fromVector<float>({0, 0.5, 1}, {3});
  EXPECT_EQ((0.5f < x).toVector<bool>(), (std::vector<bool>{0, 0, 1}));
  EXPECT_EQ((0.5f <= x).toVector<bool>(), (std::vector<bool>{0, 1, 1}));
  EXPECT_EQ((0.5f > x).toVector<bool>(), (std::vector<bool>{1, 0, 0}));
  EXPECT_EQ((0.5f >= x).toVector<bool>(), (std::vector<bool>{1, 1, 0}));
  EXPECT_EQ((0.5f == x).toVector<bool>(), (std::vector<bool>{0, 1, 0}));
  EXPECT_EQ((0.5f != x).toVector<bool>(), (std::vector<bool>{1, 0, 1}));
  // The right side still works as before (no ambiguity with ==).
  EXPECT_EQ((x == 0.5f).toVector<bool>(), (std::vector<bool>{0, 1, 0}));
  // Two tensors, and temporaries: no reversed-candidate ambiguity in C++20
  // (this file is built with -Werror=ambiguous-reversed-operator).
  Tensor y = Tensor::fromVector<float>({0.25f, 0.5f, 0.5f}, {3});
  EXPECT_EQ((x == y).toVector<bool>(), (std::vector<bool>{0, 1, 0}));
  EXPECT_EQ((x != y).toVector<bool>(), (std::vector<bool>{1, 0, 1}));
  EXPECT_EQ((x * 2.0f == y + y).toVector<bool>(), (std::vector<bool>{0, 1, 0}));
  Tensor i = Tensor::fromVector<int64_t>({-1, 2, 7}, {3});
  EXPECT_EQ((2 < i).toVector<bool>(), (std::vector<bool>{0, 0, 1}));
  // An integer that does not fit Int32 compares exactly.
  Tensor small = Tensor::fromVector<int32_t>({5}, {1});
  EXPECT_TRUE((int64_t(1) << 40 > small).item<bool>());
}

//===----------------------------------------------------------------------===//
// floorDiv and mod
//===----------------------------------------------------------------------===//

TEST_P(ArithmeticTest, IntegerFloorDivAndModFollowPython) {
  std::vector<int32_t> a, b;
  for (int32_t i = -9; i <= 9; ++i)
    for (int32_t j = -4; j <= 4; ++j) {
      a.push_back(i);
      b.push_back(j);
    }
  int64_t n = static_cast<int64_t>(a.size());
  Tensor ta = Tensor::fromVector<int32_t>(a, {n});
  Tensor tb = Tensor::fromVector<int32_t>(b, {n});
  std::vector<int32_t> q = floorDiv(ta, tb).toVector<int32_t>();
  std::vector<int32_t> r = mod(ta, tb).toVector<int32_t>();
  EXPECT_EQ(floorDiv(ta, tb).dtype(), DType::Int32);
  for (int64_t k = 0; k < n; ++k) {
    EXPECT_EQ(q[k], pyFloorDiv(a[k], b[k])) << a[k] << " // " << b[k];
    EXPECT_EQ(r[k], pyMod(a[k], b[k])) << a[k] << " % " << b[k];
  }
  // Scalars on either side; Int64 with its extremes.
  EXPECT_EQ(floorDiv(ta, 4).toVector<int32_t>()[0], -3); // -9 // 4
  EXPECT_EQ(mod(ta, -4).toVector<int32_t>()[0], -1);     // -9 % -4
  EXPECT_EQ(
      mod(7, Tensor::fromVector<int32_t>({-3, 3, 0}, {3})).toVector<int32_t>(),
      (std::vector<int32_t>{-2, 1, 0}));
  int64_t minimum = std::numeric_limits<int64_t>::min();
  Tensor big = Tensor::fromVector<int64_t>({minimum, minimum, 7}, {3});
  Tensor divisor = Tensor::fromVector<int64_t>({-1, 3, 0}, {3});
  EXPECT_EQ(floorDiv(big, divisor).toVector<int64_t>(),
            (std::vector<int64_t>{minimum, pyFloorDiv(minimum, 3), 0}));
  EXPECT_EQ(mod(big, divisor).toVector<int64_t>(),
            (std::vector<int64_t>{0, pyMod(minimum, 3), 0}));
}

TEST_P(ArithmeticTest, FloatFloorDivAndMod) {
  // By hand: 7.5 // 2 = 3, 7.5 % 2 = 1.5; -7.5 // 2 = -4, -7.5 % 2 = 0.5;
  // 7.5 // -2 = -4, 7.5 % -2 = -0.5; 1 // 0.1 = 9 (numpy: the remainder is
  // 0.0999...), -3 // 0 = -inf.
  Tensor a = Tensor::fromVector<double>({7.5, -7.5, 7.5, 1, -3}, {5});
  Tensor b = Tensor::fromVector<double>({2, 2, -2, 0.1, 0}, {5});
  std::vector<double> q = floorDiv(a, b).toVector<double>();
  std::vector<double> r = mod(a, b).toVector<double>();
  EXPECT_EQ(q[0], 3);
  EXPECT_EQ(q[1], -4);
  EXPECT_EQ(q[2], -4);
  EXPECT_EQ(q[3], 9);
  EXPECT_EQ(q[4], -INFINITY);
  EXPECT_EQ(r[0], 1.5);
  EXPECT_EQ(r[1], 0.5);
  EXPECT_EQ(r[2], -0.5);
  EXPECT_NEAR(r[3], 0.1, 1e-15);
  EXPECT_TRUE(std::isnan(r[4]));
  // An integer tensor with a float scalar computes in Float64.
  Tensor i = Tensor::fromVector<int32_t>({7, -7}, {2});
  EXPECT_EQ(mod(i, 2.5).dtype(), DType::Float64);
  EXPECT_EQ(mod(i, 2.5).toVector<double>(), (std::vector<double>{2, 0.5}));
  // Float32 against a double loop of numpy's rule: floor, then the rest.
  std::vector<float> xs, ys;
  for (int k = 0; k < 40; ++k) {
    xs.push_back(static_cast<float>(k * 1.75 - 33));
    ys.push_back(static_cast<float>((k % 7) - 3.5));
  }
  Tensor tx = Tensor::fromVector<float>(xs, {40});
  Tensor ty = Tensor::fromVector<float>(ys, {40});
  std::vector<float> fq = floorDiv(tx, ty).toVector<float>();
  std::vector<float> fr = mod(tx, ty).toVector<float>();
  for (int k = 0; k < 40; ++k) {
    double expectedQ = std::floor(double(xs[k]) / ys[k]);
    EXPECT_EQ(fq[k], expectedQ) << xs[k] << " // " << ys[k];
    EXPECT_NEAR(fr[k], xs[k] - expectedQ * ys[k], 1e-5)
        << xs[k] << " % " << ys[k];
  }
}

TEST_P(ArithmeticTest, FloorDivAndModGradients) {
  // mod: d/da = 1, d/db = -floorDiv(a, b); floorDiv: 0.
  Tensor a = Tensor::fromVector<double>({7.5, -7.5, 5.2}, {3});
  Tensor b = Tensor::fromVector<double>({2, 2, -1.5}, {3});
  GradientTape tape;
  tape.watch(a);
  tape.watch(b);
  Tensor loss = sum(mod(a, b) + floorDiv(a, b) * 3.0);
  std::vector<Tensor> grads = tape.gradient(loss, std::vector<Tensor>{a, b});
  EXPECT_EQ(grads[0].toVector<double>(), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(grads[1].toVector<double>(), (std::vector<double>{-3, 4, 4}));
}

TEST_P(ArithmeticTest, FloorDivAndModErrors) {
  Tensor a = zeros({2, 3});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        floorDiv(a, zeros({4}));
      },
      "floorDiv", "shapes [2, 3] and [4] do not broadcast");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        mod(a, ones({2}));
      },
      "mod", "shapes [2, 3] and [2] do not broadcast");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        mod(Tensor::fromVector<int32_t>({1}, {1}), int64_t(1) << 40);
      },
      "mod", "does not fit the tensor's Int32");
}

//===----------------------------------------------------------------------===//
// Logical ops
//===----------------------------------------------------------------------===//

TEST_P(ArithmeticTest, LogicalOpsTreatNonzeroAsTrue) {
  Tensor a = Tensor::fromVector<float>({0, 0, 2.5, -1, NAN}, {5});
  Tensor b = Tensor::fromVector<int32_t>({0, 3, 0, -7, 0}, {5});
  EXPECT_EQ(logicalAnd(a, b).dtype(), DType::Bool);
  EXPECT_EQ(logicalAnd(a, b).toVector<bool>(),
            (std::vector<bool>{0, 0, 0, 1, 0}));
  EXPECT_EQ(logicalOr(a, b).toVector<bool>(),
            (std::vector<bool>{0, 1, 1, 1, 1}));
  EXPECT_EQ(logicalXor(a, b).toVector<bool>(),
            (std::vector<bool>{0, 1, 1, 0, 1}));
  EXPECT_EQ(logicalNot(a).toVector<bool>(), (std::vector<bool>{1, 1, 0, 0, 0}));
  // Broadcasting.
  Tensor column = Tensor::fromBools({true, false}, {2, 1});
  Tensor row = Tensor::fromBools({true, false, true}, {3});
  EXPECT_EQ(logicalAnd(column, row).toVector<bool>(),
            (std::vector<bool>{1, 0, 1, 0, 0, 0}));
  EXPECT_EQ(logicalOr(column, row).toVector<bool>(),
            (std::vector<bool>{1, 1, 1, 1, 0, 1}));
  // The operators on Bool tensors.
  EXPECT_EQ((column & row).toVector<bool>(),
            (std::vector<bool>{1, 0, 1, 0, 0, 0}));
  EXPECT_EQ((column | row).toVector<bool>(),
            (std::vector<bool>{1, 1, 1, 1, 0, 1}));
  EXPECT_EQ((column ^ row).toVector<bool>(),
            (std::vector<bool>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ((~row).toVector<bool>(), (std::vector<bool>{0, 1, 0}));
  Tensor x = Tensor::fromVector<float>({-2, 0.5, 3}, {3});
  EXPECT_EQ(((x > 0.0f) & (x < 1.0f)).toVector<bool>(),
            (std::vector<bool>{0, 1, 0}));
}

TEST_P(ArithmeticTest, LogicalErrors) {
  // `&`, `|`, `^`, `~` (bitwiseAnd, ...) take integers (bitwise) and Bool
  // (logical), not floats.
  Tensor reals = Tensor::fromVector<float>({1, 2}, {2});
  Tensor flags = Tensor::fromBools({true, false}, {2});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        (void)(reals & flags);
      },
      "bitwiseAnd",
      "needs integer or Bool tensors, got Float32 [2] and Bool [2]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        (void)(~reals);
      },
      "bitwiseNot", "needs an integer or Bool tensor, got Float32 [2]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        logicalOr(flags, Tensor::fromBools({true, false, true}, {3}));
      },
      "logicalOr", "shapes [2] and [3] do not broadcast");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        logicalNot(Tensor());
      },
      "logicalNot", "empty Tensor");
}

//===----------------------------------------------------------------------===//
// clamp, square
//===----------------------------------------------------------------------===//

TEST_P(ArithmeticTest, ClampAndSquare) {
  Tensor x = Tensor::fromVector<float>({-3, -0.5, 0.25, 2, NAN}, {5});
  std::vector<float> clamped = clamp(x, -1.0f, 1.0f).toVector<float>();
  EXPECT_EQ(clamped[0], -1);
  EXPECT_EQ(clamped[1], -0.5);
  EXPECT_EQ(clamped[2], 0.25);
  EXPECT_EQ(clamped[3], 1);
  EXPECT_TRUE(std::isnan(clamped[4]));
  // lo > hi gives hi (min(max(x, lo), hi)).
  EXPECT_EQ(clamp(x, 2.0f, 1.0f).toVector<float>()[0], 1);
  Tensor i = Tensor::fromVector<int32_t>({-5, 0, 9}, {3});
  EXPECT_EQ(clamp(i, 0, 4).dtype(), DType::Int32);
  EXPECT_EQ(clamp(i, 0, 4).toVector<int32_t>(),
            (std::vector<int32_t>{0, 0, 4}));
  // Tensor bounds broadcast.
  Tensor lo = Tensor::fromVector<float>({-1, 0}, {2, 1});
  Tensor hi = Tensor::fromVector<float>({1}, {1});
  Tensor y = Tensor::fromVector<float>({-2, 0.5, 3}, {3});
  EXPECT_EQ(clamp(y, lo, hi).toVector<float>(),
            (std::vector<float>{-1, 0.5, 1, 0, 0.5, 1}));

  EXPECT_EQ(square(y).toVector<float>(), (std::vector<float>{4, 0.25, 9}));
  EXPECT_EQ(square(i).toVector<int32_t>(), (std::vector<int32_t>{25, 0, 81}));

  GradientTape tape;
  tape.watch(y);
  Tensor loss = sum(square(y) + clamp(y, -1.0f, 1.0f));
  // d/dy: 2y + (1 inside (-1, 1), 0 outside).
  EXPECT_EQ(tape.gradient(loss, y).toVector<float>(),
            (std::vector<float>{-4, 2, 6}));
}

TEST_P(ArithmeticTest, ClampErrors) {
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        clamp(Tensor::fromBools({true}, {1}), 0, 1);
      },
      "clamp", "is not defined for Bool tensors");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        clamp(zeros({2}), zeros({3}), ones({2}));
      },
      "clamp", "shapes [2] and [3] do not broadcast");
}

//===----------------------------------------------------------------------===//
// gelu, softplus, silu
//===----------------------------------------------------------------------===//

double geluErf(double x) {
  return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
}
double geluTanh(double x) {
  return 0.5 * x *
         (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}
double softplusRef(double x) { return std::log1p(std::exp(x)); }
double siluRef(double x) { return x / (1 + std::exp(-x)); }

/// Checks f (lazyc) against ref (double) in value and, by central finite
/// differences of ref, in gradient, on Float64 inputs.
void checkActivation(const std::function<Tensor(const Tensor &)> &f,
                     double (*ref)(double), double tolerance) {
  std::vector<double> xs = {-6, -2.5, -1, -0.3, 0, 0.2, 0.9, 1.7, 4, 9};
  int64_t n = static_cast<int64_t>(xs.size());
  Tensor x = Tensor::fromVector<double>(xs, {n});
  GradientTape tape;
  tape.watch(x);
  Tensor y = f(x);
  std::vector<double> values = y.toVector<double>();
  std::vector<double> grads = tape.gradient(sum(y), x).toVector<double>();
  const double h = 1e-6;
  for (int64_t k = 0; k < n; ++k) {
    EXPECT_NEAR(values[k], ref(xs[k]), tolerance) << xs[k];
    double slope = (ref(xs[k] + h) - ref(xs[k] - h)) / (2 * h);
    EXPECT_NEAR(grads[k], slope, 1e-7) << xs[k];
  }
}

TEST_P(ArithmeticTest, ActivationsAgainstFloat64References) {
  checkActivation([](const Tensor &x) { return gelu(x); }, geluErf, 1e-14);
  checkActivation(
      [](const Tensor &x) { return gelu(x, GeluApproximation::Tanh); },
      geluTanh, 1e-14);
  checkActivation([](const Tensor &x) { return softplus(x); }, softplusRef,
                  1e-14);
  checkActivation([](const Tensor &x) { return silu(x); }, siluRef, 1e-14);
  // nn:: names the same functions.
  Tensor x = Tensor::fromVector<float>({-1, 0.5, 2}, {3});
  std::vector<float> tanhForm =
      nn::gelu(x, nn::GeluApproximation::Tanh).toVector<float>();
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(tanhForm[k], geluTanh(x.toVector<float>()[k]), 2e-6);
  // The two forms differ (geluTanh(1) - geluErf(1) ~ -1.6e-4).
  Tensor one = Tensor::fromVector<double>({1}, {1});
  EXPECT_NEAR(gelu(one, GeluApproximation::Tanh).item<double>() -
                  gelu(one).item<double>(),
              geluTanh(1) - geluErf(1), 1e-12);
  EXPECT_GT(std::fabs(geluTanh(1) - geluErf(1)), 1e-4);
}

//===----------------------------------------------------------------------===//
// asin, acos, atan
//===----------------------------------------------------------------------===//

/// The three functions, each with its value and slope in double precision
/// (libm's value; d asin = 1 / sqrt(1 - x^2) = -d acos, d atan =
/// 1 / (1 + x^2)).
struct InverseTrig {
  const char *name;
  Tensor (*function)(const Tensor &, Where);
  double (*value)(double);
  double (*slope)(double);
};
const InverseTrig kInverseTrig[] = {
    {"asin", asin, [](double x) { return std::asin(x); },
     [](double x) { return 1 / std::sqrt(1 - x * x); }},
    {"acos", acos, [](double x) { return std::acos(x); },
     [](double x) { return -1 / std::sqrt(1 - x * x); }},
    {"atan", atan, [](double x) { return std::atan(x); },
     [](double x) { return 1 / (1 + x * x); }},
};

TEST_P(ArithmeticTest, InverseTrigonometryAgainstLibm) {
  // +-1 and beyond (NaN for asin, acos), signed zeros, infinities, NaN, a
  // tiny value and the float just below 1.
  std::vector<double> xs = {-INFINITY, -1e30, -2,       -1,  -0.75,      -0.0,
                            0.0,       1e-30, 0.3,      0.5, 0.99999994, 1,
                            1.5,       40,    INFINITY, NAN};
  int64_t n = static_cast<int64_t>(xs.size());
  // f32 and f64 call libm (< 1 ulp; 4 allowed); f16 and bf16 compute in
  // f32 and round once (1 ulp of theirs). `tiny` is the absolute slack near
  // zero.
  struct Case {
    DType dtype;
    double ulp, ulps, tiny;
  };
  const Case cases[] = {
      {DType::Float64, DBL_EPSILON, 4, DBL_MIN},
      {DType::Float32, FLT_EPSILON, 4, FLT_MIN},
      {DType::Float16, std::ldexp(1.0, -10), 1, std::ldexp(1.0, -24)},
      {DType::BFloat16, std::ldexp(1.0, -7), 1, FLT_MIN}};
  for (const Case &c : cases) {
    Tensor x = cast(Tensor::fromVector<double>(xs, {n}), c.dtype);
    // The inputs as the dtype holds them (exact in Float64).
    std::vector<double> held = cast(x, DType::Float64).toVector<double>();
    for (const InverseTrig &f : kInverseTrig) {
      Tensor y = f.function(x, Where::current());
      ASSERT_EQ(y.dtype(), c.dtype);
      std::vector<double> got = cast(y, DType::Float64).toVector<double>();
      for (int64_t i = 0; i < n; ++i) {
        double expected = f.value(held[i]);
        SCOPED_TRACE(std::string(f.name) + " of " + dtypeName(c.dtype) + " " +
                     std::to_string(held[i]));
        if (std::isnan(expected)) {
          EXPECT_TRUE(std::isnan(got[i])) << got[i];
        } else if (expected == 0) {
          EXPECT_EQ(got[i], 0);
          EXPECT_EQ(std::signbit(got[i]), std::signbit(expected));
        } else {
          EXPECT_NEAR(got[i], expected,
                      c.ulps * c.ulp * std::fabs(expected) + c.tiny);
        }
      }
    }
  }
}

TEST_P(ArithmeticTest, InverseTrigonometryOfIntegersIsFloat) {
  // As every float function: Int32 computes in Float64, UInt8 in Float16.
  Tensor y = asin(Tensor::fromVector<int32_t>({-1, 0, 1, 2}, {4}));
  EXPECT_EQ(y.dtype(), DType::Float64);
  std::vector<double> values = y.toVector<double>();
  EXPECT_EQ(values[0], -M_PI_2);
  EXPECT_EQ(values[1], 0);
  EXPECT_EQ(values[2], M_PI_2);
  EXPECT_TRUE(std::isnan(values[3]));
  EXPECT_EQ(acos(Tensor::fromVector<uint8_t>({1}, {1})).dtype(),
            DType::Float16);
}

TEST_P(ArithmeticTest, InverseTrigonometryGradients) {
  // Infinite slopes at +-1 and NaN beyond for asin and acos; 1e200 * 1e200
  // overflows to a zero slope for atan, as it should.
  std::vector<double> xs = {-1.5, -1,     -0.999, -0.5, 0,
                            0.3,  0.9999, 1,      7,    1e200};
  int64_t n = static_cast<int64_t>(xs.size());
  for (const InverseTrig &f : kInverseTrig) {
    Tensor x = Tensor::fromVector<double>(xs, {n});
    GradientTape tape;
    tape.watch(x);
    Tensor loss = sum(f.function(x, Where::current()) * 3.0);
    std::vector<double> grads = tape.gradient(loss, x).toVector<double>();
    for (int64_t i = 0; i < n; ++i) {
      double expected = 3 * f.slope(xs[i]);
      SCOPED_TRACE(std::string(f.name) + " at " + std::to_string(xs[i]));
      if (std::isnan(expected))
        EXPECT_TRUE(std::isnan(grads[i])) << grads[i];
      else if (std::isinf(expected))
        EXPECT_EQ(grads[i], expected);
      else
        EXPECT_NEAR(grads[i], expected, 1e-12 * std::fabs(expected));
    }
  }
}

TEST_P(ArithmeticTest, InverseTrigonometryErrors) {
  for (const InverseTrig &f : kInverseTrig)
    expectError(
        [&](unsigned &line) {
          line = __LINE__ + 1;
          f.function(Tensor(), Where::current());
        },
        f.name, "an operand is an empty Tensor");
}

//===----------------------------------------------------------------------===//
// any, all
//===----------------------------------------------------------------------===//

TEST_P(ArithmeticTest, AnyAndAll) {
  Tensor x = Tensor::fromVector<float>({0, 0, 0, 1, 0, -2, NAN, 3, 4}, {3, 3});
  EXPECT_EQ(any(x).dtype(), DType::Bool);
  EXPECT_TRUE(any(x).item<bool>());
  EXPECT_FALSE(all(x).item<bool>());
  EXPECT_EQ(any(x, {1}).toVector<bool>(), (std::vector<bool>{0, 1, 1}));
  EXPECT_EQ(all(x, {1}).toVector<bool>(), (std::vector<bool>{0, 0, 1}));
  EXPECT_EQ(any(x, {0}).toVector<bool>(), (std::vector<bool>{1, 1, 1}));
  EXPECT_EQ(all(x, {-2}, /*keepDims=*/true).shape(),
            (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(all(x, {-2}, true).toVector<bool>(), (std::vector<bool>{0, 0, 0}));
  Tensor flags = Tensor::fromBools({true, true, false, true}, {2, 2});
  EXPECT_EQ(all(flags, {1}).toVector<bool>(), (std::vector<bool>{1, 0}));
  // Over no elements: any is false, all is true (numpy).
  Tensor empty = zeros({0, 2});
  EXPECT_EQ(any(empty, {0}).toVector<bool>(), (std::vector<bool>{0, 0}));
  EXPECT_EQ(all(empty, {0}).toVector<bool>(), (std::vector<bool>{1, 1}));
}

TEST_P(ArithmeticTest, AnyAndAllErrors) {
  Tensor x = zeros({2, 3});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        any(x, {2});
      },
      "any", "axis 2 is out of range for a rank-2 tensor");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        all(x, {1, -1});
      },
      "all", "appears twice");
}

} // namespace
