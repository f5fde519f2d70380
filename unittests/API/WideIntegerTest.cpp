//===- WideIntegerTest.cpp - Int16, UInt16, UInt32 and UInt64 -------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The integer dtypes of issue 42 against numpy's int16, uint16, uint32 and
// uint64: wrap-around, unsigned division, order and powers past the signed
// range (UInt64's values from 2^63), casts from floats and between the
// integers, reductions, bitwise ops and shifts, numpy's promotion table,
// scalars that do not fit, printing and .npy files. Expected values were
// computed with numpy 1.24
// (`np.seterr(all='ignore')`). Each test runs lazily and eagerly.
//
//===----------------------------------------------------------------------===//

#include "ExpectError.h"
#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <unistd.h>

using namespace lazyc;
using lazyc::test::expectError;

namespace {

/// Runs each test lazily (false) and eagerly (true).
class WideIntegerTest : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override {
    if (GetParam())
      eager.emplace();
  }
  std::optional<EagerScope> eager;
};

INSTANTIATE_TEST_SUITE_P(Modes, WideIntegerTest, ::testing::Values(false, true),
                         [](const auto &info) {
                           return info.param ? "Eager" : "Lazy";
                         });

template <typename T> Tensor vector(std::vector<T> values) {
  int64_t n = static_cast<int64_t>(values.size());
  return Tensor::fromVector<T>(values, {n});
}

using I16 = std::vector<int16_t>;
using U16 = std::vector<uint16_t>;
using U32 = std::vector<uint32_t>;
using U64 = std::vector<uint64_t>;
using B = std::vector<bool>;

constexpr uint64_t kTwo63 = uint64_t(1) << 63;
constexpr uint64_t kMax64 = ~uint64_t(0);

TEST_P(WideIntegerTest, ArithmeticWrapsAround) {
  Tensor u16 = vector<uint16_t>({65535, 40000, 0, 1});
  Tensor v16 = vector<uint16_t>({1, 40000, 1, 65535});
  EXPECT_EQ((u16 + v16).dtype(), DType::UInt16);
  EXPECT_EQ((u16 + v16).toVector<uint16_t>(), (U16{0, 14464, 1, 0}));
  EXPECT_EQ((u16 - v16).toVector<uint16_t>(), (U16{65534, 0, 65535, 2}));
  EXPECT_EQ((u16 * v16).toVector<uint16_t>(), (U16{65535, 4096, 0, 65535}));
  EXPECT_EQ((-vector<uint16_t>({1, 0, 65535})).toVector<uint16_t>(),
            (U16{65535, 0, 1}));
  Tensor i16 = vector<int16_t>({32767, -32768, -7, 300});
  Tensor j16 = vector<int16_t>({1, -1, 7, 300});
  EXPECT_EQ((i16 + j16).toVector<int16_t>(), (I16{-32768, 32767, 0, 600}));
  EXPECT_EQ((i16 * j16).toVector<int16_t>(), (I16{32767, -32768, -49, 24464}));
  EXPECT_EQ(abs(i16).toVector<int16_t>(), (I16{32767, -32768, 7, 300}));

  Tensor u32 = vector<uint32_t>({4294967295u, 3000000000u, 7, 0});
  Tensor v32 = vector<uint32_t>({1, 2, 3000000000u, 5});
  EXPECT_EQ((u32 + v32).toVector<uint32_t>(),
            (U32{0, 3000000002u, 3000000007u, 5}));
  EXPECT_EQ((u32 * v32).toVector<uint32_t>(),
            (U32{4294967295u, 1705032704u, 3820130816u, 0}));

  Tensor u64 = vector<uint64_t>({kMax64, kTwo63 + 5, 10, kTwo63});
  Tensor v64 = vector<uint64_t>({1, 2, 3, kTwo63 + 1});
  EXPECT_EQ((u64 + v64).toVector<uint64_t>(),
            (U64{0, 9223372036854775815ull, 13, 1}));
  EXPECT_EQ((u64 * v64).toVector<uint64_t>(), (U64{kMax64, 10, 30, kTwo63}));
  // Unsigned: abs and relu are the identity.
  EXPECT_EQ(abs(u64).toVector<uint64_t>(),
            (U64{kMax64, kTwo63 + 5, 10, kTwo63}));
  EXPECT_EQ(relu(u64).toVector<uint64_t>(),
            (U64{kMax64, kTwo63 + 5, 10, kTwo63}));
}

TEST_P(WideIntegerTest, UnsignedDivisionAndOrderPastTheSignedRange) {
  Tensor u32 = vector<uint32_t>({4294967295u, 3000000000u, 7, 0});
  Tensor v32 = vector<uint32_t>({1, 2, 3000000000u, 5});
  EXPECT_EQ(floorDiv(u32, v32).toVector<uint32_t>(),
            (U32{4294967295u, 1500000000u, 0, 0}));
  EXPECT_EQ(mod(u32, v32).toVector<uint32_t>(), (U32{0, 0, 7, 0}));
  // True division in Float64 (numpy), of the unsigned values.
  EXPECT_EQ((u32 / v32).dtype(), DType::Float64);
  EXPECT_EQ((u32 / v32).toVector<double>(),
            (std::vector<double>{4294967295.0, 1.5e9, 7 / 3e9, 0.0}));
  EXPECT_EQ((u32 > v32).toVector<bool>(), (B{true, true, false, false}));
  EXPECT_EQ(maximum(u32, v32).toVector<uint32_t>(),
            (U32{4294967295u, 3000000000u, 3000000000u, 5}));

  Tensor u64 = vector<uint64_t>({kMax64, kTwo63 + 5, 10, kTwo63});
  Tensor v64 = vector<uint64_t>({1, 2, 3, kTwo63 + 1});
  EXPECT_EQ(floorDiv(u64, v64).toVector<uint64_t>(),
            (U64{kMax64, 4611686018427387906ull, 3, 0}));
  EXPECT_EQ(mod(u64, v64).toVector<uint64_t>(), (U64{0, 1, 1, kTwo63}));
  EXPECT_EQ((u64 < v64).toVector<bool>(), (B{false, false, false, true}));
  EXPECT_EQ(maximum(u64, v64).toVector<uint64_t>(),
            (U64{kMax64, kTwo63 + 5, 10, kTwo63 + 1}));
  EXPECT_EQ(minimum(u64, v64).toVector<uint64_t>(), (U64{1, 2, 3, kTwo63}));
}

TEST_P(WideIntegerTest, PowersWrapForEveryExponent) {
  // Exponents from 2^31 (UInt32) and 2^63 (UInt64) are past the signed
  // range the power's lowering takes.
  EXPECT_EQ(pow(vector<uint32_t>({3, 3, 2}),
                vector<uint32_t>({2147483648u, 2147483653u, 3000000000u}))
                .toVector<uint32_t>(),
            (U32{1, 243, 0}));
  EXPECT_EQ(pow(vector<uint64_t>({3, 6, 3}),
                vector<uint64_t>({kTwo63 + 7, kTwo63, 40}))
                .toVector<uint64_t>(),
            (U64{2187, 0, 12157665459056928801ull}));
  // A negative exponent gives 0 but for bases 1 and -1 (lazyc's rule;
  // numpy raises).
  EXPECT_EQ(pow(vector<int16_t>({-2, 3}), vector<int16_t>({15, -1}))
                .toVector<int16_t>(),
            (I16{-32768, 0}));
}

TEST_P(WideIntegerTest, Casts) {
  Tensor f = Tensor::fromVector<double>({3e9, 1.5, 0.0, 4294967295.0}, {4});
  EXPECT_EQ(cast(f, DType::UInt32).toVector<uint32_t>(),
            (U32{3000000000u, 1, 0, 4294967295u}));
  Tensor big = Tensor::fromVector<double>({1e19, 0x1p63, 12.9, 0.0}, {4});
  EXPECT_EQ(cast(big, DType::UInt64).toVector<uint64_t>(),
            (U64{10000000000000000000ull, kTwo63, 12, 0}));
  // 16-bit targets wrap through Int32, as numpy's casts.
  Tensor g = Tensor::fromVector<float>({40000, -1, 65535, -40000}, {4});
  EXPECT_EQ(cast(g, DType::Int16).toVector<int16_t>(),
            (I16{-25536, -1, -1, 25536}));
  EXPECT_EQ(cast(g, DType::UInt16).toVector<uint16_t>(),
            (U16{40000, 65535, 65535, 25536}));
  Tensor u64 = vector<uint64_t>({kMax64, kTwo63, 3});
  EXPECT_EQ(cast(u64, DType::Float64).toVector<double>(),
            (std::vector<double>{0x1p64, 0x1p63, 3.0}));
  EXPECT_EQ(cast(u64, DType::Int64).toVector<int64_t>(),
            (std::vector<int64_t>{-1, INT64_MIN, 3}));
  EXPECT_EQ(cast(vector<int16_t>({-1, -32768, 5}), DType::UInt32)
                .toVector<uint32_t>(),
            (U32{4294967295u, 4294934528u, 5}));
  EXPECT_EQ(
      cast(vector<uint16_t>({65535, 32768}), DType::Int32).toVector<int32_t>(),
      (std::vector<int32_t>{65535, 32768}));
  EXPECT_EQ(cast(vector<int16_t>({300, -129}), DType::Int8).toVector<int8_t>(),
            (std::vector<int8_t>{44, 127}));
}

/// The bits of every element of `values`, as memcpy reads them.
template <typename To, typename From>
std::vector<To> bitsOf(const std::vector<From> &values) {
  static_assert(sizeof(To) == sizeof(From));
  std::vector<To> bits(values.size());
  std::memcpy(bits.data(), values.data(), values.size() * sizeof(From));
  return bits;
}

TEST_P(WideIntegerTest, BitcastReadsTheBits) {
  // Specials keep their bits: NaNs with payloads and signs, -0, infinities,
  // subnormals; each read back through the integer gives the same bits.
  U32 floatBits{0x7fc00001u, 0xffc0beefu, 0x80000000u, 0x7f800000u,
                0x00000001u, 0x3f800000u, 0xc0490fdbu};
  Tensor asFloat = bitcast(vector<uint32_t>(floatBits), DType::Float32);
  EXPECT_EQ(asFloat.dtype(), DType::Float32);
  std::vector<float> floats = asFloat.toVector<float>();
  EXPECT_EQ(bitsOf<uint32_t>(floats), floatBits);
  EXPECT_EQ(bitcast(asFloat, DType::UInt32).toVector<uint32_t>(), floatBits);
  // Computed values: the bits of 2x + 1, in one fused op.
  std::vector<float> x{1.5f, -3.0f, 1e-30f, 65504.0f};
  std::vector<float> y;
  for (float v : x)
    y.push_back(2 * v + 1);
  EXPECT_EQ(
      bitcast(vector<float>(x) * 2.0f + 1.0f, DType::Int32).toVector<int32_t>(),
      bitsOf<int32_t>(y));
  std::vector<double> d{-0.0, 1.0 / 3.0, 0x1p-1074, -1e300};
  EXPECT_EQ(bitcast(vector<double>(d), DType::Int64).toVector<int64_t>(),
            bitsOf<int64_t>(d));
  EXPECT_EQ(bitcast(vector<int64_t>(bitsOf<int64_t>(d)), DType::Float64)
                .toVector<double>()[1],
            1.0 / 3.0);
  EXPECT_EQ(bitcast(vector<double>(d), DType::UInt64).toVector<uint64_t>(),
            bitsOf<uint64_t>(d));
  // 16 bits: Float16 1.0 is 0x3c00, BFloat16 1.0 is 0x3f80, -2 is 0xc000
  // and 0xc000; 0x7c00 is Float16 infinity.
  Tensor half = bitcast(vector<uint16_t>({0x3c00, 0xc000, 0x7c00, 0x0001}),
                        DType::Float16);
  std::vector<float> halves = cast(half, DType::Float32).toVector<float>();
  EXPECT_EQ(halves[0], 1.0f);
  EXPECT_EQ(halves[1], -2.0f);
  EXPECT_TRUE(std::isinf(halves[2]));
  EXPECT_EQ(halves[3], 0x1p-24f);
  EXPECT_EQ(
      bitcast(cast(vector<float>({1.0f, -2.0f}), DType::BFloat16), DType::Int16)
          .toVector<int16_t>(),
      (I16{0x3f80, int16_t(0xc000)}));
  EXPECT_EQ(bitcast(half, DType::BFloat16).dtype(), DType::BFloat16);
  EXPECT_EQ(bitcast(bitcast(half, DType::BFloat16), DType::UInt16)
                .toVector<uint16_t>(),
            (U16{0x3c00, 0xc000, 0x7c00, 0x0001}));
  // 8 bits, and Bool as a byte of 0 or 1.
  EXPECT_EQ(
      bitcast(vector<int8_t>({-1, -128, 5}), DType::UInt8).toVector<uint8_t>(),
      (std::vector<uint8_t>{255, 128, 5}));
  Tensor flags = vector<float>({1, -1, 2}) > 0.0f;
  EXPECT_EQ(bitcast(flags, DType::UInt8).toVector<uint8_t>(),
            (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(
      bitcast(vector<uint8_t>({0, 1, 2, 3}), DType::Bool).toVector<bool>(),
      (std::vector<bool>{false, true, false, true}));
  expectError(
      [](unsigned &line) {
        Tensor f = vector<float>({1, 2});
        line = __LINE__ + 1;
        (void)bitcast(f, DType::Int64);
      },
      "bitcast", "Float32 (32 bits) as Int64 (64 bits)");
}

TEST_P(WideIntegerTest, Reductions) {
  Tensor a = Tensor::fromVector<uint16_t>({1, 65535, 3, 40000, 0, 2}, {2, 3});
  // numpy sums unsigned integers in uint64.
  EXPECT_EQ(sum(a).dtype(), DType::UInt64);
  EXPECT_EQ(sum(a).item<uint64_t>(), 105541u);
  EXPECT_EQ(sum(a, {1}).toVector<uint64_t>(), (U64{65539, 40002}));
  EXPECT_EQ(max(a, {1}).toVector<uint16_t>(), (U16{65535, 40000}));
  EXPECT_EQ(min(a, {1}).toVector<uint16_t>(), (U16{1, 0}));
  EXPECT_EQ(argmax(a, 1).toVector<int64_t>(), (std::vector<int64_t>{1, 0}));
  Tensor b = vector<uint64_t>({kTwo63, 1, kMax64, 5});
  EXPECT_EQ(max(b).item<uint64_t>(), kMax64);
  EXPECT_EQ(min(b).item<uint64_t>(), 1u);
  EXPECT_EQ(argmax(b).item<int64_t>(), 2);
  EXPECT_EQ(argmin(b).item<int64_t>(), 1);
  EXPECT_EQ(sum(b).item<uint64_t>(), 9223372036854775813ull);
  EXPECT_EQ(cumsum(b, 0).toVector<uint64_t>(),
            (U64{kTwo63, kTwo63 + 1, kTwo63, kTwo63 + 5}));
  EXPECT_EQ(sum(vector<int16_t>({-32768, -32768})).item<int64_t>(), -65536);
  TopK top = topk(vector<uint32_t>({5, 4000000000u, 0, 7}), 2);
  EXPECT_EQ(top.values.toVector<uint32_t>(), (U32{4000000000u, 7}));
  EXPECT_EQ(top.indices.toVector<int64_t>(), (std::vector<int64_t>{1, 3}));
}

TEST_P(WideIntegerTest, BitwiseOpsAndShifts) {
  Tensor a = vector<int8_t>({12, -7, 127, -128});
  Tensor b = vector<int8_t>({10, 3, -1, 1});
  using I8 = std::vector<int8_t>;
  EXPECT_EQ((a & b).toVector<int8_t>(), (I8{8, 1, 127, 0}));
  EXPECT_EQ((a | b).toVector<int8_t>(), (I8{14, -5, -1, -127}));
  EXPECT_EQ((a ^ b).toVector<int8_t>(), (I8{6, -6, -128, -127}));
  EXPECT_EQ((~a).toVector<int8_t>(), (I8{-13, 6, -128, 127}));
  Tensor u = vector<uint32_t>({0xF0F0F0F0u, 7, 0xFFFFFFFFu, 1});
  Tensor v = vector<uint32_t>({0x0FF00FF0u, 2, 0x80000000u, 0});
  EXPECT_EQ(bitwiseAnd(u, v).toVector<uint32_t>(),
            (U32{15728880u, 2, 2147483648u, 0}));
  EXPECT_EQ(bitwiseOr(u, v).toVector<uint32_t>(),
            (U32{4293984240u, 7, 4294967295u, 1}));
  EXPECT_EQ(bitwiseXor(u, v).toVector<uint32_t>(),
            (U32{4278255360u, 5, 2147483647u, 1}));
  EXPECT_EQ(bitwiseNot(u).toVector<uint32_t>(),
            (U32{252645135u, 4294967288u, 0, 4294967294u}));
  // Shifts: bits shifted out are lost; amounts of the width or more, or
  // negative ones, give 0 (-1 for a right shift of a negative value).
  Tensor x = vector<int16_t>({1, -8, 3, -1, 5, 1});
  Tensor s = vector<int16_t>({3, 2, 15, 16, -1, 0});
  EXPECT_EQ(leftShift(x, s).toVector<int16_t>(),
            (I16{8, -32, -32768, 0, 0, 1}));
  EXPECT_EQ(rightShift(x, s).toVector<int16_t>(), (I16{0, -2, 0, -1, 0, 1}));
  Tensor y = vector<uint64_t>({1, kTwo63, kMax64, 5});
  Tensor t = vector<uint64_t>({63, 1, 64, 70});
  EXPECT_EQ(leftShift(y, t).toVector<uint64_t>(), (U64{kTwo63, 0, 0, 0}));
  EXPECT_EQ(rightShift(y, t).toVector<uint64_t>(),
            (U64{0, uint64_t(1) << 62, 0, 0}));
  EXPECT_EQ(
      leftShift(vector<uint8_t>({200, 1, 255}), vector<uint8_t>({1, 7, 8}))
          .toVector<uint8_t>(),
      (std::vector<uint8_t>{144, 128, 0}));
  EXPECT_EQ(leftShift(vector<int64_t>({3, -3}), 2).toVector<int64_t>(),
            (std::vector<int64_t>{12, -12}));
  EXPECT_EQ(rightShift(vector<int32_t>({-9}), 1).item<int32_t>(), -5);
  // Bool: logical; an integer with Bool takes the integer's dtype.
  Tensor p = Tensor::fromBools({true, true, false}, {3});
  Tensor q = Tensor::fromBools({true, false, false}, {3});
  EXPECT_EQ((p & q).dtype(), DType::Bool);
  EXPECT_EQ((p & q).toVector<bool>(), (B{true, false, false}));
  EXPECT_EQ((~p).toVector<bool>(), (B{false, false, true}));
  Tensor mixed =
      vector<int32_t>({6, 7}) & Tensor::fromBools({true, false}, {2});
  EXPECT_EQ(mixed.dtype(), DType::Int32);
  EXPECT_EQ(mixed.toVector<int32_t>(), (std::vector<int32_t>{0, 0}));
}

TEST_P(WideIntegerTest, BitwiseOpsOfFloatsAreErrors) {
  Tensor f = Tensor::fromVector<float>({1, 2}, {2});
  Tensor i = vector<int32_t>({1, 2});
  // numpy: left_shift(True, 1) is 2 (the scalar's Int32).
  EXPECT_EQ(leftShift(Tensor::fromBools({true}, {1}), 1).item<int32_t>(), 2);
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        (void)bitwiseAnd(f, i);
      },
      "bitwiseAnd",
      "needs integer or Bool tensors, got Float32 [2] and Int32 [2]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        (void)(~f);
      },
      "bitwiseNot", "needs an integer or Bool tensor, got Float32 [2]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        (void)leftShift(Tensor::fromBools({true}, {1}),
                        Tensor::fromBools({true}, {1}));
      },
      "leftShift", "needs integer tensors");
}

TEST_P(WideIntegerTest, Promotion) {
  // numpy's table (np.promote_types).
  EXPECT_EQ(promoteTypes(DType::Int16, DType::UInt16), DType::Int32);
  EXPECT_EQ(promoteTypes(DType::UInt32, DType::Int32), DType::Int64);
  EXPECT_EQ(promoteTypes(DType::UInt64, DType::Int64), DType::Float64);
  EXPECT_EQ(promoteTypes(DType::UInt8, DType::Int16), DType::Int16);
  EXPECT_EQ(promoteTypes(DType::Int8, DType::UInt8), DType::Int16);
  EXPECT_EQ(promoteTypes(DType::UInt16, DType::UInt32), DType::UInt32);
  EXPECT_EQ(promoteTypes(DType::Int8, DType::UInt32), DType::Int64);
  EXPECT_EQ(promoteTypes(DType::UInt16, DType::Float16), DType::Float32);
  EXPECT_EQ(promoteTypes(DType::Int16, DType::Float32), DType::Float32);
  EXPECT_EQ(promoteTypes(DType::UInt32, DType::Float32), DType::Float64);
  EXPECT_EQ(promoteTypes(DType::Bool, DType::UInt64), DType::UInt64);
  // Float functions: Float32 for 16-bit integers, Float64 for wider.
  EXPECT_EQ(sqrt(vector<int16_t>({4})).dtype(), DType::Float32);
  EXPECT_EQ(sqrt(vector<uint32_t>({4})).dtype(), DType::Float64);
  Tensor mixed = vector<int16_t>({-1, 300}) + vector<uint16_t>({65535, 2});
  EXPECT_EQ(mixed.dtype(), DType::Int32);
  EXPECT_EQ(mixed.toVector<int32_t>(), (std::vector<int32_t>{65534, 302}));
  Tensor wide = vector<uint64_t>({kTwo63}) + vector<int64_t>({-1});
  EXPECT_EQ(wide.dtype(), DType::Float64);
  EXPECT_EQ(wide.item<double>(), 0x1p63);
}

TEST_P(WideIntegerTest, ScalarsMustFit) {
  Tensor u = vector<uint16_t>({1, 2});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        (void)(u + 65536);
      },
      "add", "the scalar 65536 does not fit the tensor's UInt16");
  Tensor v = vector<uint32_t>({1});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        (void)(v - (-1));
      },
      "sub", "the scalar -1 does not fit the tensor's UInt32");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        (void)full({2}, -32769, DType::Int16);
      },
      "full", "does not fit the tensor's Int16");
  EXPECT_EQ((u + 65535).toVector<uint16_t>(), (U16{0, 1}));
  EXPECT_EQ((v * 4294967295LL).toVector<uint32_t>(), (U32{4294967295u}));
  EXPECT_EQ(full({1}, -32768, DType::Int16).item<int64_t>(), -32768);
}

TEST_P(WideIntegerTest, PrintsExactly) {
  std::ostringstream printed;
  printed << vector<uint64_t>({kMax64, 0}) << " " << vector<int16_t>({-32768})
          << " " << vector<uint32_t>({4294967295u}) << " "
          << vector<int64_t>({(int64_t(1) << 53) + 1});
  EXPECT_EQ(printed.str(), "[18446744073709551615, 0] [-32768] [4294967295] "
                           "[9007199254740993]");
  EXPECT_EQ(dtypeName(DType::UInt64), std::string("UInt64"));
  EXPECT_EQ(dtypeName(DType::Int16), std::string("Int16"));
}

TEST_P(WideIntegerTest, NumpyFiles) {
  ASSERT_EQ(std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1"),
            0)
      << "needs /usr/bin/python3 with numpy (scripts/setup installs it)";
  std::string dir = (std::filesystem::temp_directory_path() /
                     ("lazyc-wide-int-" + std::to_string(::getpid())))
                        .string();
  std::filesystem::create_directories(dir);
  saveNpy(vector<int16_t>({-32768, 7}), dir + "/l_i2.npy");
  saveNpy(vector<uint16_t>({65535}), dir + "/l_u2.npy");
  saveNpy(vector<uint32_t>({4294967295u}), dir + "/l_u4.npy");
  saveNpy(vector<uint64_t>({kMax64, 1}), dir + "/l_u8.npy");
  std::string script = dir + "/check.py";
  std::ofstream(script) << R"(import sys, numpy as np
d = sys.argv[1]
a = np.load(d + '/l_i2.npy'); assert a.dtype == np.int16 and list(a) == [-32768, 7], a
a = np.load(d + '/l_u2.npy'); assert a.dtype == np.uint16 and list(a) == [65535], a
a = np.load(d + '/l_u4.npy'); assert a.dtype == np.uint32 and list(a) == [4294967295], a
a = np.load(d + '/l_u8.npy'); assert a.dtype == np.uint64 and list(a) == [2**64 - 1, 1], a
np.save(d + '/n_u8.npy', np.array([[2**63, 3], [0, 2**64 - 2]], np.uint64))
np.save(d + '/n_i2.npy', np.array([-5, 32767], np.int16))
)";
  ASSERT_EQ(std::system(("/usr/bin/python3 " + script + " " + dir).c_str()), 0)
      << "numpy rejected a .npy file saveNpy wrote";
  Tensor u = loadNpy(dir + "/n_u8.npy");
  EXPECT_EQ(u.dtype(), DType::UInt64);
  EXPECT_EQ(u.toVector<uint64_t>(), (U64{kTwo63, 3, 0, kMax64 - 1}));
  Tensor s = loadNpy(dir + "/n_i2.npy");
  EXPECT_EQ(s.dtype(), DType::Int16);
  EXPECT_EQ(s.toVector<int16_t>(), (I16{-5, 32767}));
  std::filesystem::remove_all(dir);
}

} // namespace
