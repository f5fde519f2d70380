//===- MemRefCopyTest.cpp - Tests of the runtime's strided memrefCopy -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Calls memrefCopy with hand-built memref descriptors (the layout MLIR's
// memref-to-LLVM lowering passes: an unranked {rank, descriptor*} pointing
// at {allocated, aligned, offset, sizes[rank], strides[rank]}) and checks
// every element against a plain loop over the same index space.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <numeric>
#include <vector>

namespace {

template <typename T, int Rank> struct Descriptor {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

template <typename T> struct Descriptor<T, 0> {
  T *allocated;
  T *aligned;
  int64_t offset;
};

struct Unranked {
  int64_t rank;
  void *descriptor;
};

template <typename T, int Rank>
void copy(Descriptor<T, Rank> &from, Descriptor<T, Rank> &to) {
  Unranked source{Rank, &from};
  Unranked target{Rank, &to};
  memrefCopy(sizeof(T), &source, &target);
}

/// A buffer of `count` distinct values (index + 1 scaled), so any wrong
/// source element is visible.
template <typename T> std::vector<T> iota(size_t count, T scale = T(1)) {
  std::vector<T> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = static_cast<T>(i + 1) * scale;
  return values;
}

TEST(MemRefCopyTest, Rank2TransposedSourceToRowMajor) {
  // The source is the transpose of a 5x3 row-major buffer: a 3x5 view with
  // strides [1, 3].
  constexpr int64_t rows = 3, cols = 5;
  std::vector<float> storage = iota<float>(rows * cols, 0.5f);
  std::vector<float> out(rows * cols, -1.0f);
  Descriptor<float, 2> from{
      storage.data(), storage.data(), 0, {rows, cols}, {1, rows}};
  Descriptor<float, 2> to{out.data(), out.data(), 0, {rows, cols}, {cols, 1}};
  copy(from, to);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      EXPECT_EQ(out[i * cols + j], storage[j * rows + i])
          << "at [" << i << ", " << j << "]";
}

TEST(MemRefCopyTest, Rank2RowMajorToTransposedTarget) {
  constexpr int64_t rows = 4, cols = 7;
  std::vector<double> storage = iota<double>(rows * cols);
  std::vector<double> out(rows * cols, 0.0);
  Descriptor<double, 2> from{
      storage.data(), storage.data(), 0, {rows, cols}, {cols, 1}};
  Descriptor<double, 2> to{out.data(), out.data(), 0, {rows, cols}, {1, rows}};
  copy(from, to);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      EXPECT_EQ(out[j * rows + i], storage[i * cols + j]);
}

TEST(MemRefCopyTest, Rank3WithOffsetsAndPaddedStrides) {
  // Source: a 2x3x4 window at offset 7 of a larger buffer whose rows are
  // padded (strides [40, 10, 2]); target: a 2x3x4 window at offset 5 with
  // strides [15, 5, 1] (rows padded by one). Elements outside the windows
  // must stay untouched.
  constexpr int64_t d0 = 2, d1 = 3, d2 = 4;
  std::vector<int32_t> storage = iota<int32_t>(7 + 40 * d0);
  std::vector<int32_t> out(5 + 15 * d0, -7);
  Descriptor<int32_t, 3> from{
      storage.data(), storage.data(), 7, {d0, d1, d2}, {40, 10, 2}};
  Descriptor<int32_t, 3> to{
      out.data(), out.data(), 5, {d0, d1, d2}, {15, 5, 1}};
  copy(from, to);

  std::vector<int32_t> expected(out.size(), -7);
  for (int64_t i = 0; i < d0; ++i)
    for (int64_t j = 0; j < d1; ++j)
      for (int64_t k = 0; k < d2; ++k)
        expected[5 + i * 15 + j * 5 + k] = storage[7 + i * 40 + j * 10 + k * 2];
  EXPECT_EQ(out, expected);
}

TEST(MemRefCopyTest, ContiguousInnerDimensionsCopyAsRows) {
  // A 3x2x4 block of a 5x2x4 buffer (rows 1..3) into the middle of a
  // 6x2x4 one: the two inner dimensions are contiguous in both layouts, and
  // size-1 dimensions anywhere change nothing. Elements outside stay.
  constexpr int64_t rows = 3, inner = 8;
  std::vector<float> storage = iota<float>(5 * inner, 0.25f);
  std::vector<float> out(6 * inner, -1.0f);
  Descriptor<float, 4> from{
      storage.data(), storage.data(), inner, {rows, 1, 2, 4}, {8, 99, 4, 1}};
  Descriptor<float, 4> to{
      out.data(), out.data(), 2 * inner, {rows, 1, 2, 4}, {8, 0, 4, 1}};
  copy(from, to);
  std::vector<float> expected(out.size(), -1.0f);
  for (int64_t i = 0; i < rows * inner; ++i)
    expected[2 * inner + i] = storage[inner + i];
  EXPECT_EQ(out, expected);
}

TEST(MemRefCopyTest, AlignedPointerIsUsedNotAllocated) {
  // `allocated` is only for freeing; the data starts at aligned + offset.
  std::vector<float> storage = iota<float>(16);
  std::vector<float> out(16, 0.0f);
  Descriptor<float, 1> from{nullptr, storage.data() + 4, 2, {6}, {1}};
  Descriptor<float, 1> to{nullptr, out.data() + 1, 3, {6}, {2}};
  copy(from, to);
  std::vector<float> expected(16, 0.0f);
  for (int64_t i = 0; i < 6; ++i)
    expected[1 + 3 + 2 * i] = storage[4 + 2 + i];
  EXPECT_EQ(out, expected);
}

TEST(MemRefCopyTest, Rank0CopiesOneElement) {
  std::vector<double> storage = {1.0, 2.0, 3.5, 4.0};
  std::vector<double> out = {0.0, 0.0, 0.0};
  Descriptor<double, 0> from{storage.data(), storage.data(), 2};
  Descriptor<double, 0> to{out.data(), out.data(), 1};
  copy(from, to);
  EXPECT_EQ(out, (std::vector<double>{0.0, 3.5, 0.0}));
}

TEST(MemRefCopyTest, ZeroSizeCopiesNothing) {
  std::vector<float> storage = iota<float>(12);
  std::vector<float> out(12, -1.0f);
  // A 3x0 and a 0x4 view: nothing to copy, nothing may be written.
  Descriptor<float, 2> from{storage.data(), storage.data(), 0, {3, 0}, {4, 1}};
  Descriptor<float, 2> to{out.data(), out.data(), 0, {3, 0}, {4, 1}};
  copy(from, to);
  Descriptor<float, 2> from2{storage.data(), storage.data(), 0, {0, 4}, {4, 1}};
  Descriptor<float, 2> to2{out.data(), out.data(), 0, {0, 4}, {4, 1}};
  copy(from2, to2);
  EXPECT_EQ(out, std::vector<float>(12, -1.0f));
}

TEST(MemRefCopyTest, ZeroSizeWithNullPointers) {
  // Empty tensors may come with null data pointers.
  Descriptor<float, 1> from{nullptr, nullptr, 0, {0}, {1}};
  Descriptor<float, 1> to{nullptr, nullptr, 0, {0}, {1}};
  copy(from, to); // Must not crash.
  SUCCEED();
}

TEST(MemRefCopyTest, BroadcastSourceWithZeroStride) {
  // A 4x3 view of one 3-element row (stride 0 along dim 0).
  std::vector<int64_t> row = {10, 20, 30};
  std::vector<int64_t> out(12, 0);
  Descriptor<int64_t, 2> from{row.data(), row.data(), 0, {4, 3}, {0, 1}};
  Descriptor<int64_t, 2> to{out.data(), out.data(), 0, {4, 3}, {3, 1}};
  copy(from, to);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(out[i * 3 + j], row[j]);
}

TEST(MemRefCopyTest, NegativeStrideReversesARow) {
  std::vector<float> storage = iota<float>(5);
  std::vector<float> out(5, 0.0f);
  Descriptor<float, 1> from{storage.data(), storage.data(), 4, {5}, {-1}};
  Descriptor<float, 1> to{out.data(), out.data(), 0, {5}, {1}};
  copy(from, to);
  EXPECT_EQ(out, (std::vector<float>{5, 4, 3, 2, 1}));
}

TEST(MemRefCopyTest, TwoByteElements) {
  // f16/bf16 tensors are copied as 2-byte elements.
  constexpr int64_t rows = 3, cols = 4;
  std::vector<uint16_t> storage = iota<uint16_t>(rows * cols);
  std::vector<uint16_t> out(rows * cols, 0);
  Descriptor<uint16_t, 2> from{
      storage.data(), storage.data(), 0, {rows, cols}, {1, rows}};
  Descriptor<uint16_t, 2> to{
      out.data(), out.data(), 0, {rows, cols}, {cols, 1}};
  copy(from, to);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      EXPECT_EQ(out[i * cols + j], storage[j * rows + i]);
}

TEST(MemRefCopyTest, RankAbove16UsesTheElementwisePath) {
  // Rank 18: three dimensions of size 2 (at positions 0, 9, 17), the rest 1.
  constexpr int rank = 18;
  Descriptor<float, rank> from{}, to{};
  std::vector<float> storage = iota<float>(8 * 3);
  std::vector<float> out(8, 0.0f);
  for (int d = 0; d < rank; ++d) {
    from.sizes[d] = to.sizes[d] = 1;
    from.strides[d] = to.strides[d] = 1;
  }
  from.sizes[0] = to.sizes[0] = 2;
  from.sizes[9] = to.sizes[9] = 2;
  from.sizes[17] = to.sizes[17] = 2;
  // Source strides 12, 6, 3 (every third element); target row-major 4, 2, 1.
  from.strides[0] = 12;
  from.strides[9] = 6;
  from.strides[17] = 3;
  to.strides[0] = 4;
  to.strides[9] = 2;
  to.strides[17] = 1;
  from.allocated = from.aligned = storage.data();
  to.allocated = to.aligned = out.data();
  copy(from, to);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k)
        EXPECT_EQ(out[i * 4 + j * 2 + k], storage[i * 12 + j * 6 + k * 3]);
}

} // namespace
