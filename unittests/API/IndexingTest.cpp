//===- IndexingTest.cpp - Indexing, gather/scatter, argmax, topk, cumsum --===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Values are checked against plain loops over the index arithmetic (the
// inputs count 0, 1, 2, ... in row-major order, so an element's value is its
// flat position), lazily and eagerly; bad input against the errors it must
// give.
//
//===----------------------------------------------------------------------===//

#include "ExpectError.h"

#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace lazyc;
using lazyc::test::expectError;

namespace {

/// 0, 1, 2, ... with `shape`, as Float32.
Tensor counting(const Shape &shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = static_cast<float>(i);
  return Tensor::fromVector<float>(values, shape);
}

/// Runs `test` lazily and then eagerly.
template <typename Test> void bothModes(Test test) {
  test();
  EagerScope eager;
  test();
}

TEST(IndexingTest, GatherIndexSelectTake) {
  bothModes([] {
    Tensor x = counting({3, 4}); // x[i][j] = 4i + j
    Tensor i = Tensor::fromVector<int64_t>({3, 0, -1, 1, 2, 2}, {3, 2});
    Tensor g = gather(x, 1, i);
    EXPECT_EQ(g.shape(), (Shape{3, 2}));
    // Row r takes columns i[r][*]; -1 is the last column.
    EXPECT_EQ(g.toVector<float>(), (std::vector<float>{3, 0, 7, 5, 10, 10}));

    // Indices of size 1 outside the axis broadcast.
    Tensor column = Tensor::fromVector<int32_t>({2}, {1, 1});
    EXPECT_EQ(gather(x, 1, column).toVector<float>(),
              (std::vector<float>{2, 6, 10}));

    Tensor picks = Tensor::fromVector<int32_t>({2, 0, 2, 1}, {2, 2});
    Tensor rows = indexSelect(x, 0, picks);
    EXPECT_EQ(rows.shape(), (Shape{2, 2, 4}));
    std::vector<float> expected;
    for (int p : {2, 0, 2, 1})
      for (int j = 0; j < 4; ++j)
        expected.push_back(static_cast<float>(4 * p + j));
    EXPECT_EQ(rows.toVector<float>(), expected);

    Tensor flat = Tensor::fromVector<int64_t>({11, 0, -12, 5}, {4});
    EXPECT_EQ(take(x, flat).toVector<float>(),
              (std::vector<float>{11, 0, 0, 5}));
  });
}

TEST(IndexingTest, OutOfRangeIndicesAreClamped) {
  Tensor x = counting({5});
  Tensor i = Tensor::fromVector<int64_t>({7, -9, 4, -5}, {4});
  // 7 -> 4; -9 counts from the end to -4, then clamps to 0.
  EXPECT_EQ(take(x, i).toVector<float>(), (std::vector<float>{4, 0, 4, 0}));
}

TEST(IndexingTest, ScatterAddAccumulatesRepeats) {
  bothModes([] {
    Tensor base = Tensor::fromVector<float>({1, 1, 1, 1, 1, 1}, {2, 3});
    Tensor i = Tensor::fromVector<int64_t>({0, 0, 2, 1, -1, 1}, {2, 3});
    Tensor u = Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    // Row 0: +1 +2 at 0, +3 at 2. Row 1: +4 +6 at 1, +5 at 2.
    EXPECT_EQ(scatterAdd(base, 1, i, u).toVector<float>(),
              (std::vector<float>{4, 1, 4, 1, 11, 6}));
    // Integers: the updates are cast to the input's dtype.
    Tensor counts = zeros({4}, DType::Int64);
    Tensor labels = Tensor::fromVector<int32_t>({3, 1, 3, 3, 0}, {5});
    Tensor histogram = scatterAdd(counts, 0, labels, ones({5}, DType::Int64));
    EXPECT_EQ(histogram.toVector<int64_t>(),
              (std::vector<int64_t>{1, 1, 0, 3}));
  });
}

TEST(IndexingTest, ArgmaxAndArgmin) {
  bothModes([] {
    float nan = std::numeric_limits<float>::quiet_NaN();
    Tensor x = Tensor::fromVector<float>(
        {1, 5, 5, 2, -3, 0, -3, 7, 2, nan, 9, nan}, {3, 4});
    // Ties go to the first; a NaN is the extreme (numpy).
    EXPECT_EQ(argmax(x, 1).toVector<int64_t>(),
              (std::vector<int64_t>{1, 3, 1}));
    EXPECT_EQ(argmin(x, 1).toVector<int64_t>(),
              (std::vector<int64_t>{0, 0, 1}));
    EXPECT_EQ(argmax(x, 0, /*keepDims=*/true).shape(), (Shape{1, 4}));
    EXPECT_EQ(argmax(x, 0, true).toVector<int64_t>(),
              (std::vector<int64_t>{2, 2, 2, 2})); // NaNs in 1 and 3
    EXPECT_EQ(argmax(counting({2, 3})).item<int64_t>(), 5);
    Tensor ints = Tensor::fromVector<int32_t>({4, -1, 4, -1}, {4});
    EXPECT_EQ(argmin(ints).item<int64_t>(), 1);
    Tensor bools = Tensor::fromBools({false, true, true}, {3});
    EXPECT_EQ(argmax(bools).item<int64_t>(), 1);
  });
}

TEST(IndexingTest, TopK) {
  bothModes([] {
    float inf = std::numeric_limits<float>::infinity();
    Tensor x =
        Tensor::fromVector<float>({3, 1, 3, 2, -inf, -inf, 5, -inf}, {2, 4});
    TopK top = topk(x, 3, 1);
    EXPECT_EQ(top.values.shape(), (Shape{2, 3}));
    EXPECT_EQ(top.values.toVector<float>(),
              (std::vector<float>{3, 3, 2, 5, -inf, -inf}));
    // Ties by position, the -inf elements too.
    EXPECT_EQ(top.indices.toVector<int64_t>(),
              (std::vector<int64_t>{0, 2, 3, 2, 0, 1}));
    TopK column = topk(Tensor::fromVector<int32_t>({1, 9, 4}, {3, 1}), 2, 0);
    EXPECT_EQ(column.values.toVector<int32_t>(), (std::vector<int32_t>{9, 4}));
    EXPECT_EQ(column.indices.toVector<int64_t>(), (std::vector<int64_t>{1, 2}));
  });
}

TEST(IndexingTest, Cumsum) {
  bothModes([] {
    Tensor x = counting({2, 3});
    EXPECT_EQ(cumsum(x, 1).toVector<float>(),
              (std::vector<float>{0, 1, 3, 3, 7, 12}));
    EXPECT_EQ(cumsum(x, 0).toVector<float>(),
              (std::vector<float>{0, 1, 2, 3, 5, 7}));
    EXPECT_EQ(cumsum(x, -1, /*reverse=*/true).toVector<float>(),
              (std::vector<float>{3, 3, 2, 12, 9, 5}));
    Tensor flags = Tensor::fromBools({true, false, true, true}, {4});
    Tensor counts = cumsum(flags, 0);
    EXPECT_EQ(counts.dtype(), DType::Int64); // numpy's rule
    EXPECT_EQ(counts.toVector<int64_t>(), (std::vector<int64_t>{1, 1, 2, 3}));
  });
}

/// The expected x[...] of a counting tensor of `shape`: the flat position
/// of each selected element, from per-dimension positions.
std::vector<float> select(const Shape &shape,
                          const std::vector<std::vector<int64_t>> &picked) {
  std::vector<float> out;
  std::vector<size_t> at(picked.size(), 0);
  while (true) {
    int64_t flat = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      flat = flat * shape[d] + picked[d][at[d]];
    out.push_back(static_cast<float>(flat));
    size_t d = picked.size();
    while (d > 0 && ++at[d - 1] == picked[d - 1].size())
      at[--d] = 0;
    if (d == 0)
      return out;
  }
}

TEST(IndexingTest, BasicIndexing) {
  bothModes([] {
    Shape shape{2, 3, 4};
    Tensor x = counting(shape);
    Tensor a = x.index({1, Range{}, Range{1, 3}});
    EXPECT_EQ(a.shape(), (Shape{3, 2}));
    EXPECT_EQ(a.toVector<float>(), select(shape, {{1}, {0, 1, 2}, {1, 2}}));

    // Negative bounds, steps, a reversed range.
    Tensor b = x.index({-1, Range{std::nullopt, std::nullopt, -1},
                        Range{-3, std::nullopt, 2}});
    EXPECT_EQ(b.shape(), (Shape{3, 2}));
    EXPECT_EQ(b.toVector<float>(), select(shape, {{1}, {2, 1, 0}, {1, 3}}));

    Tensor c = x.index({Range{3, -4, -2}, 0});
    EXPECT_EQ(c.shape(), (Shape{1, 4})); // numpy: x[3:-4:-2, 0] picks row 1
    EXPECT_EQ(c.toVector<float>(), select(shape, {{1}, {0}, {0, 1, 2, 3}}));

    // newAxis and the ellipsis.
    Tensor d = x.index({ellipsis, newAxis, 2});
    EXPECT_EQ(d.shape(), (Shape{2, 3, 1}));
    EXPECT_EQ(d.toVector<float>(), select(shape, {{0, 1}, {0, 1, 2}, {2}}));
    EXPECT_EQ(x.index({newAxis, 0, ellipsis}).shape(), (Shape{1, 3, 4}));
    EXPECT_EQ(x.index({Range{5, 9}}).shape(), (Shape{0, 3, 4}));
  });
}

TEST(IndexingTest, IntegerArrayIndexing) {
  bothModes([] {
    Shape shape{2, 3, 4};
    Tensor x = counting(shape);
    Tensor rows = Tensor::fromVector<int64_t>({2, 0, -1}, {3});
    // One tensor: its shape replaces the dimension, in place.
    Tensor a = x.index({Range{}, rows});
    EXPECT_EQ(a.shape(), (Shape{2, 3, 4}));
    EXPECT_EQ(a.toVector<float>(),
              select(shape, {{0, 1}, {2, 0, 2}, {0, 1, 2, 3}}));

    // Two adjacent tensors broadcast together: pairs (i[k], j[k]).
    Tensor i = Tensor::fromVector<int32_t>({1, 0}, {2, 1});
    Tensor j = Tensor::fromVector<int64_t>({0, 3, 3}, {3});
    Tensor b = x.index({Range{}, i, j});
    EXPECT_EQ(b.shape(), (Shape{2, 2, 3}));
    std::vector<float> expected;
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t p : {1, 0})
        for (int64_t q : {0, 3, 3})
          expected.push_back(static_cast<float>(12 * n + 4 * p + q));
    EXPECT_EQ(b.toVector<float>(), expected);

    // Separated by a range: the indexed part goes first (numpy); an
    // integer counts as a 0-d tensor then.
    Tensor c = x.index({1, Range{}, j});
    EXPECT_EQ(c.shape(), (Shape{3, 3}));
    expected.clear();
    for (int64_t q : {0, 3, 3})
      for (int64_t m = 0; m < 3; ++m)
        expected.push_back(static_cast<float>(12 + 4 * m + q));
    EXPECT_EQ(c.toVector<float>(), expected);
  });
}

TEST(IndexingTest, NewIndicesReuseTheTrace) {
  Tensor x = counting({10, 4});
  uint64_t compiled = 0;
  for (int64_t k = 0; k < 5; ++k) {
    Tensor i = Tensor::fromVector<int64_t>({k, 9 - k}, {2});
    std::vector<float> rows = indexSelect(x * 2.0f, 0, i).toVector<float>();
    EXPECT_EQ(rows[0], 8.0f * static_cast<float>(k));
    EXPECT_EQ(rows[4], 8.0f * static_cast<float>(9 - k));
    if (k == 0)
      compiled = metrics().tracesCompiled;
  }
  EXPECT_EQ(metrics().tracesCompiled, compiled);
}

TEST(IndexingTest, BadInput) {
  Tensor x = counting({3, 4});
  Tensor floats = Tensor::fromVector<float>({0, 1}, {2});
  expectError([&](unsigned &line) { line = __LINE__, take(x, floats); }, "take",
              "needs Int32 or Int64 indices, got Float32");
  Tensor i = Tensor::fromVector<int64_t>({0, 1}, {1, 2});
  expectError(
      [&](unsigned &line) { line = __LINE__, gather(x, 1, i.index({0})); },
      "gather", "needs indices of the input's rank");
  Tensor wide = Tensor::fromVector<int64_t>({0, 1}, {2, 1});
  expectError([&](unsigned &line) { line = __LINE__, gather(x, 1, wide); },
              "gather",
              "indices [2, 1] do not fit input [3, 4] outside axis 1");
  Tensor row = Tensor::fromVector<int64_t>({0, 1, 2, 0}, {1, 4});
  expectError(
      [&](unsigned &line) {
        line = __LINE__, scatterAdd(x, 0, row, ones({2, 2}));
      },
      "scatterAdd", "needs updates of the indices' shape [1, 4], got [2, 2]");
  expectError([&](unsigned &line) { line = __LINE__, argmax(x, 2); }, "argmax",
              "axis 2 is out of range for a rank-2 tensor");
  expectError(
      [&](unsigned &line) { line = __LINE__, argmin(zeros({2, 0}), 1); },
      "argmin", "needs a non-empty axis");
  expectError([&](unsigned &line) { line = __LINE__, topk(x, 5); }, "topk",
              "needs 1 <= k <= 4");
  expectError([&](unsigned &line) { line = __LINE__, x.index({3}); }, "index",
              "index 3 is out of range for dimension 0 of size 3");
  expectError([&](unsigned &line) { line = __LINE__, x.index({0, 0, 0}); },
              "index", "has 3 indices for the rank-2 tensor [3, 4]");
  expectError(
      [&](unsigned &line) { line = __LINE__, x.index({ellipsis, ellipsis}); },
      "index", "at most one ellipsis");
  expectError(
      [&](unsigned &line) { line = __LINE__, x.index({Range{0, 2, 0}}); },
      "index", "a Range step in dimension 0 is 0");
  expectError([&](unsigned &line) { line = __LINE__, x.index({x > 2.0f}); },
              "index", "a Bool mask selects a data-dependent number");
}

} // namespace
