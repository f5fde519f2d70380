//===- NarrowFloatsTest.cpp - Host rounding to bf16 -----------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyc/Runtime/NarrowFloats.h: the roundings the API's literals and the
// JIT's __truncsfbf2 / __truncdfbf2 use, against bit patterns worked out by
// hand (bf16 = the high 16 bits of a float: sign, 8 exponent bits, 7
// mantissa bits).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/NarrowFloats.h"

#include "gtest/gtest.h"

#include <bit>
#include <limits>

using namespace lazyc;

namespace {

float fromBits(uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(NarrowFloatsTest, FloatsRoundToNearestEven) {
  EXPECT_EQ(toBFloat16Bits(1.0f), 0x3F80);
  EXPECT_EQ(toBFloat16Bits(-2.0f), 0xC000);
  // Halfway between 0x3F80 and 0x3F81: ties go to the even 0x3F80; just
  // above goes up; halfway above an odd pattern goes up to even.
  EXPECT_EQ(toBFloat16Bits(fromBits(0x3F808000)), 0x3F80);
  EXPECT_EQ(toBFloat16Bits(fromBits(0x3F808001)), 0x3F81);
  EXPECT_EQ(toBFloat16Bits(fromBits(0x3F818000)), 0x3F82);
  EXPECT_EQ(toBFloat16Bits(fromBits(0x3F817FFF)), 0x3F81);
}

TEST(NarrowFloatsTest, FloatEdges) {
  // Subnormals are kept (vcvtneps2bf16 would flush them).
  EXPECT_EQ(toBFloat16Bits(fromBits(0x00010000)), 0x0001);
  EXPECT_EQ(toBFloat16Bits(fromBits(0x00018000)), 0x0002);
  EXPECT_EQ(toBFloat16Bits(fromBits(0x80008000)), 0x8000); // Tie to -0.
  // The largest float is past the last bf16 and its halfway point: inf.
  EXPECT_EQ(toBFloat16Bits(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(toBFloat16Bits(fromBits(0x7F7F7FFF)), 0x7F7F);
  EXPECT_EQ(toBFloat16Bits(-std::numeric_limits<float>::infinity()), 0xFF80);
  // NaNs stay NaNs, quiet, with their sign (a payload only in the low bits
  // would otherwise round to infinity).
  EXPECT_EQ(toBFloat16Bits(fromBits(0x7F800001)), 0x7FC0);
  EXPECT_EQ(toBFloat16Bits(fromBits(0xFFC00000)), 0xFFC0);
}

TEST(NarrowFloatsTest, DoublesRoundOnce) {
  // 1 + 2^-8 + 2^-30 is just above the halfway point between 1 and
  // 1 + 2^-7: rounded once it goes up (0x3F81). Through the nearest float it
  // would lose the 2^-30 (1 + 2^-8 exactly, a tie) and go down to 0x3F80.
  double above = 1.0 + 0x1p-8 + 0x1p-30;
  EXPECT_EQ(toBFloat16Bits(static_cast<float>(above)), 0x3F80);
  EXPECT_EQ(toBFloat16Bits(above), 0x3F81);
  EXPECT_EQ(toBFloat16Bits(1.0 + 0x1p-8), 0x3F80); // An exact tie: even.
  EXPECT_EQ(toBFloat16Bits(1.0 + 0x1p-8 - 0x1p-40), 0x3F80);
  // Past the largest float, finite: infinity; far below the smallest bf16
  // subnormal: zero of the same sign.
  EXPECT_EQ(toBFloat16Bits(1e300), 0x7F80);
  EXPECT_EQ(toBFloat16Bits(-1e-300), 0x8000);
  EXPECT_EQ(toBFloat16Bits(std::numeric_limits<double>::quiet_NaN()), 0x7FC0);
}

} // namespace
