//===- InPlaceUpdateTest.cpp - New values written over dead old ones ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A value that replaces a dead one (a variable's update) is computed in the
// old buffer; a value something can still read is never overwritten. Values
// are checked against hand-computed numbers, buffer reuse against the
// buffer's address and metrics().updatedInPlace.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/NodeAccess.h"
#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <vector>

using namespace lazyc;

namespace {

class InPlaceUpdateTest : public ::testing::Test {
protected:
  // Compile counts are asserted: a structure an earlier test compiled
  // (with other sizes, through automatic dynamic dimensions) must not
  // serve these traces.
  void SetUp() override {
    clearCache();
    resetMetrics();
  }
};

/// The address of a materialized tensor's buffer.
const void *bufferOf(const Tensor &tensor) {
  return detail::TensorAccess::node(tensor)->value->data();
}

std::vector<float> iota(int n, float scale) {
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i)
    values[i] = scale * static_cast<float>(i % 17 - 8);
  return values;
}

TEST_F(InPlaceUpdateTest, VariableUpdatesReuseTheOldBuffer) {
  const int n = 1000;
  std::vector<float> w0 = iota(n, 0.25f), g = iota(n, 1.0f);
  Variable w(Tensor::fromVector<float>(w0, {n}), "w");
  Tensor grad = Tensor::fromVector<float>(g, {n});
  w.assignSub(grad * 0.5f);
  lazyc::sync();
  const void *buffer = bufferOf(w.read());
  for (int step = 2; step <= 5; ++step) {
    w.assignSub(grad * 0.5f);
    lazyc::sync();
    EXPECT_EQ(bufferOf(w.read()), buffer) << "step " << step;
  }
  std::vector<float> got = w.read().toVector<float>();
  for (int i = 0; i < n; ++i) {
    // Five exact steps: every value is a multiple of 1/4 below 2^10.
    ASSERT_EQ(got[i], w0[i] - 5 * 0.5f * g[i]) << "element " << i;
  }
  // Every step: the first one's old value is the variable's initial tensor,
  // whose handle the constructor's argument released.
  EXPECT_EQ(metrics().updatedInPlace, 5u);
}

TEST_F(InPlaceUpdateTest, AHeldOldValueIsNeverOverwritten) {
  const int n = 64;
  std::vector<float> w0 = iota(n, 1.0f);
  Variable w(Tensor::fromVector<float>(w0, {n}), "w");
  w.assignAdd(ones({n}));
  lazyc::sync();
  uint64_t compiled = metrics().tracesCompiled;
  uint64_t inPlace = metrics().updatedInPlace;

  Tensor old = w.read(); // keeps the old value alive
  w.assignAdd(ones({n}));
  lazyc::sync();
  EXPECT_EQ(metrics().updatedInPlace, inPlace);
  EXPECT_NE(bufferOf(w.read()), bufferOf(old));
  std::vector<float> before = old.toVector<float>(),
                     after = w.read().toVector<float>();
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(before[i], w0[i] + 1) << i;
    EXPECT_EQ(after[i], w0[i] + 2) << i;
  }
  // The same step without the donation is another function; with it again,
  // the first one.
  EXPECT_EQ(metrics().tracesCompiled, compiled + 1);
  old = Tensor();
  w.assignAdd(ones({n}));
  lazyc::sync();
  EXPECT_EQ(metrics().tracesCompiled, compiled + 1);
  EXPECT_EQ(metrics().updatedInPlace, inPlace + 1);
  std::vector<float> last = w.read().toVector<float>();
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(last[i], w0[i] + 3) << i;
}

TEST_F(InPlaceUpdateTest, APendingReaderOutsideTheTraceKeepsTheOldValue) {
  const int n = 32;
  std::vector<float> w0 = iota(n, 1.0f);
  Variable w(Tensor::fromVector<float>(w0, {n}), "w");
  w.assign(w.read() * 1.0f + 0.0f);
  lazyc::sync(); // w is now a computed buffer nobody else holds

  // Reads the old value, pending, and not part of the next trace.
  Tensor doubled = w.read() * 2.0f;
  w.assignSub(ones({n}));
  std::vector<float> updated = w.read().toVector<float>();
  std::vector<float> twice = doubled.toVector<float>();
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(updated[i], w0[i] - 1) << i;
    EXPECT_EQ(twice[i], 2 * w0[i]) << i;
  }
}

TEST_F(InPlaceUpdateTest, AnIntermediateHeldFromOutsideKeepsTheOldValue) {
  const int n = 32;
  std::vector<float> w0 = iota(n, 1.0f);
  Variable w(Tensor::fromVector<float>(w0, {n}), "w");
  w.assign(w.read() + 0.0f);
  lazyc::sync();

  // tripled (no handle) feeds both the update, computed now, and
  // `outside`, computed later: the update's trace must leave the old value
  // intact for it.
  Tensor outside;
  {
    Tensor tripled = w.read() * 3.0f;
    outside = tripled + 1.0f;
    w.assign(tripled * 0.5f);
  }
  std::vector<float> updated = w.read().toVector<float>();
  std::vector<float> later = outside.toVector<float>();
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(updated[i], w0[i] * 3 * 0.5f) << i;
    EXPECT_EQ(later[i], w0[i] * 3 + 1) << i;
  }
}

TEST_F(InPlaceUpdateTest, ReassignedTensorsAreUpdatedInPlaceToo) {
  const int n = 256;
  std::vector<float> x0 = iota(n, 1.0f);
  Tensor x = Tensor::fromVector<float>(x0, {n});
  x = x * 2.0f;
  x.toVector<float>();
  const void *buffer = bufferOf(x);
  for (int step = 0; step < 3; ++step) {
    x = x * 2.0f;
    x.toVector<float>();
    EXPECT_EQ(bufferOf(x), buffer);
  }
  std::vector<float> got = x.toVector<float>();
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(got[i], 16 * x0[i]) << i;
}

TEST_F(InPlaceUpdateTest, OnlyElementwiseReadersGetTheBuffer) {
  // w @ m reads a whole row of w for each element: never written over w.
  Variable w(Tensor::fromVector<float>({1, 2, 3, 4}, {2, 2}), "w");
  w.assign(w.read() + 0.0f);
  lazyc::sync();
  uint64_t inPlace = metrics().updatedInPlace;
  Tensor m = Tensor::fromVector<float>({0, 1, 1, 0}, {2, 2});
  w.assign(matmul(w.read(), m));
  EXPECT_EQ(w.read().toVector<float>(), (std::vector<float>{2, 1, 4, 3}));
  EXPECT_EQ(metrics().updatedInPlace, inPlace);
}

// Regressions found by lazyc-fuzz (seeds 2000171 and 2000020): a value that
// another output of the same trace returns unchanged (`maximum(t, t)` folds
// to t; a mean over one element) was read after the dead value's buffer
// had been overwritten by the output it was donated to.
TEST_F(InPlaceUpdateTest, AnOutputEqualToTheOldValueKeepsIt) {
  Tensor flags = Tensor::fromBools({false, true}, {2});
  Tensor less = flags < Tensor::fromBools({false}, {1});
  Tensor same = maximum(flags, flags);
  flags = Tensor(); // dead: donated to `less`
  lazyc::sync();
  std::vector<bool> sameValues = same.toVector<bool>();
  std::vector<bool> lessValues = less.toVector<bool>();
  EXPECT_EQ(sameValues, (std::vector<bool>{false, true}));
  EXPECT_EQ(lessValues, (std::vector<bool>{false, false}));

  Tensor x = Tensor::fromVector<float>({-2.5f}, {1});
  Tensor mean1 = mean(x, {0}, /*keepDims=*/true);
  Tensor negated = -x;
  x = Tensor();
  lazyc::sync();
  EXPECT_EQ(mean1.item<float>(), -2.5f);
  EXPECT_EQ(negated.item<float>(), 2.5f);
}

// A random tensor divided by a value it is computed over in place: one
// elementwise loop reading the element index (the generator) and the old
// value, with a unit dimension, which the vectorizer got wrong (lazyc-fuzz
// seed 81263: the quotient came out as the random numbers themselves).
TEST_F(InPlaceUpdateTest, RandomNumbersDividedOverTheDivisor) {
  std::vector<double> random =
      randomUniform({1, 3}, -2.0, -0.5, 815, DType::Float64).toVector<double>();
  std::vector<double> divisors = {-0.125116, 2.942795, -2.138215};
  Tensor divisor = Tensor::fromVector<double>(divisors, {1, 3});
  Tensor quotient =
      randomUniform({1, 3}, -2.0, -0.5, 815, DType::Float64) / divisor;
  divisor = Tensor(); // dead: the quotient is computed over it
  std::vector<double> got = quotient.toVector<double>();
  EXPECT_EQ(metrics().updatedInPlace, 1u);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(got[i], random[i] / divisors[i]) << "element " << i;
}

} // namespace
