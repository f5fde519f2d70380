//===- SmallIntegerTest.cpp - Int8 and UInt8 ------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The 8-bit integer dtypes of issue 17 against numpy's int8 and uint8:
// wrap-around, unsigned division, comparisons and conversions (200 is 200,
// not -56), floorDiv/mod of negative Int8, casts from floats, reductions
// above 127, promotion, scalars that do not fit, printing and .npy files.
// Expected values were computed with numpy 1.24 (by hand where obvious).
// Each test runs lazily and eagerly.
//
//===----------------------------------------------------------------------===//

#include "ExpectError.h"
#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <unistd.h>

using namespace lazyc;
using lazyc::test::expectError;

namespace {

/// Runs each test lazily (false) and eagerly (true).
class SmallIntegerTest : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override {
    if (GetParam())
      eager.emplace();
  }
  std::optional<EagerScope> eager;
};

INSTANTIATE_TEST_SUITE_P(Modes, SmallIntegerTest,
                         ::testing::Values(false, true), [](const auto &info) {
                           return info.param ? "Eager" : "Lazy";
                         });

Tensor bytes(std::vector<uint8_t> values) {
  int64_t n = static_cast<int64_t>(values.size());
  return Tensor::fromVector<uint8_t>(values, {n});
}
Tensor signedBytes(std::vector<int8_t> values) {
  int64_t n = static_cast<int64_t>(values.size());
  return Tensor::fromVector<int8_t>(values, {n});
}

using U8 = std::vector<uint8_t>;
using I8 = std::vector<int8_t>;

TEST_P(SmallIntegerTest, ArithmeticWrapsAround) {
  Tensor u = bytes({250, 200, 0, 255});
  Tensor v = bytes({10, 100, 1, 255});
  // numpy: uint8 250 + 10 = 4, 0 - 1 = 255, 200 * 100 = 32.
  EXPECT_EQ((u + v).toVector<uint8_t>(), (U8{4, 44, 1, 254}));
  EXPECT_EQ((u - v).toVector<uint8_t>(), (U8{240, 100, 255, 0}));
  EXPECT_EQ((u * v).toVector<uint8_t>(), (U8{196, 32, 0, 1}));
  EXPECT_EQ((-u).toVector<uint8_t>(), (U8{6, 56, 0, 1}));
  EXPECT_EQ(abs(u).toVector<uint8_t>(), (U8{250, 200, 0, 255}));
  Tensor s = signedBytes({127, -128, -7, 100});
  // int8 127 + 1 = -128; abs(-128) = -128; 100 * 2 = -56.
  EXPECT_EQ((s + signedBytes({1, -1, 7, 100})).toVector<int8_t>(),
            (I8{-128, 127, 0, -56}));
  EXPECT_EQ(abs(s).toVector<int8_t>(), (I8{127, -128, 7, 100}));
  EXPECT_EQ((s * 2).dtype(), DType::Int8);
  EXPECT_EQ((s * 2).toVector<int8_t>(), (I8{-2, 0, -14, -56}));
  EXPECT_EQ(pow(u, bytes({2, 3, 200, 129})).toVector<uint8_t>(),
            (U8{36, 0, 0, 255}));
}

TEST_P(SmallIntegerTest, UnsignedComparisonsMaxAndMin) {
  Tensor u = bytes({200, 100, 128, 0});
  Tensor v = bytes({100, 200, 127, 255});
  // As int8 these would be negative: 200 > 100 only as unsigned bytes.
  EXPECT_EQ((u > v).toVector<bool>(),
            (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ((u >= 128).toVector<bool>(),
            (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(maximum(u, v).toVector<uint8_t>(), (U8{200, 200, 128, 255}));
  EXPECT_EQ(minimum(u, v).toVector<uint8_t>(), (U8{100, 100, 127, 0}));
  EXPECT_EQ(relu(u).toVector<uint8_t>(), (U8{200, 100, 128, 0}));
  // A scalar the dtype cannot hold compares exactly (in Int64).
  EXPECT_EQ((u < 300).toVector<bool>(),
            (std::vector<bool>{true, true, true, true}));
  EXPECT_EQ((u > -1).toVector<bool>(),
            (std::vector<bool>{true, true, true, true}));
  Tensor s = signedBytes({-56, 100, -128, 0});
  EXPECT_EQ((s < signedBytes({100, -56, 127, 0})).toVector<bool>(),
            (std::vector<bool>{true, false, true, false}));
}

TEST_P(SmallIntegerTest, FloorDivAndMod) {
  // numpy int8: floor_divide([-7, 7, -7, 7, -128, 5], [2, -2, -2, 2, -1, 0]).
  Tensor a = signedBytes({-7, 7, -7, 7, -128, 5});
  Tensor b = signedBytes({2, -2, -2, 2, -1, 0});
  EXPECT_EQ(floorDiv(a, b).toVector<int8_t>(), (I8{-4, -4, 3, 3, -128, 0}));
  EXPECT_EQ(mod(a, b).toVector<int8_t>(), (I8{1, -1, -1, 1, 0, 0}));
  // uint8: 200 // 3 = 66 (not -56 // 3), and a zero divisor gives 0.
  Tensor u = bytes({200, 255, 7, 129});
  Tensor v = bytes({3, 16, 0, 128});
  EXPECT_EQ(floorDiv(u, v).toVector<uint8_t>(), (U8{66, 15, 0, 1}));
  EXPECT_EQ(mod(u, v).toVector<uint8_t>(), (U8{2, 15, 0, 1}));
  EXPECT_EQ(floorDiv(u, 7).toVector<uint8_t>(), (U8{28, 36, 1, 18}));
  // True division gives Float64, as numpy's.
  Tensor quotient = u / v;
  EXPECT_EQ(quotient.dtype(), DType::Float64);
  EXPECT_DOUBLE_EQ(quotient.toVector<double>()[0], 200.0 / 3);
}

TEST_P(SmallIntegerTest, Casts) {
  Tensor u = bytes({0, 127, 128, 200, 255});
  // 200 converts to 200.0 (not -56.0); to Int32 it extends with zeros.
  EXPECT_EQ(cast(u, DType::Float32).toVector<float>(),
            (std::vector<float>{0, 127, 128, 200, 255}));
  EXPECT_EQ(cast(u, DType::Float16).toVector<float>(),
            (std::vector<float>{0, 127, 128, 200, 255}));
  EXPECT_EQ(cast(u, DType::Int32).toVector<int32_t>(),
            (std::vector<int32_t>{0, 127, 128, 200, 255}));
  EXPECT_EQ(cast(u, DType::Int8).toVector<int8_t>(),
            (I8{0, 127, -128, -56, -1}));
  Tensor s = signedBytes({0, 127, -128, -56, -1});
  EXPECT_EQ(cast(s, DType::Int64).toVector<int64_t>(),
            (std::vector<int64_t>{0, 127, -128, -56, -1}));
  EXPECT_EQ(cast(s, DType::UInt8).toVector<uint8_t>(),
            (U8{0, 127, 128, 200, 255}));
  EXPECT_EQ(cast(s, DType::Float64).toVector<double>(),
            (std::vector<double>{0, 127, -128, -56, -1}));
  // Floats truncate toward zero and wrap around through Int32, as
  // numpy's astype(np.uint8) does on x86: -1.0 is 255, 300.0 is 44.
  Tensor x =
      Tensor::fromVector<float>({0.5f, 200.7f, 255.9f, -1.0f, 300.0f}, {5});
  EXPECT_EQ(cast(x, DType::UInt8).toVector<uint8_t>(),
            (U8{0, 200, 255, 255, 44}));
  EXPECT_EQ(cast(x, DType::Int8).toVector<int8_t>(), (I8{0, -56, -1, -1, 44}));
  // Wider integers truncate to the low byte.
  Tensor w = Tensor::fromVector<int32_t>({300, -1, 256, -129}, {4});
  EXPECT_EQ(cast(w, DType::UInt8).toVector<uint8_t>(), (U8{44, 255, 0, 127}));
  EXPECT_EQ(cast(w, DType::Int8).toVector<int8_t>(), (I8{44, -1, 0, 127}));
  EXPECT_EQ(cast(u, DType::Bool).toVector<bool>(),
            (std::vector<bool>{false, true, true, true, true}));
}

TEST_P(SmallIntegerTest, ReductionsSeeValuesAbove127) {
  Tensor u = Tensor::fromVector<uint8_t>({1, 200, 3, 255, 0, 128}, {2, 3});
  // Sums accumulate in UInt64 (numpy's uint64 for uint8).
  Tensor total = sum(u);
  EXPECT_EQ(total.dtype(), DType::UInt64);
  EXPECT_EQ(total.item<int64_t>(), 587);
  EXPECT_EQ(sum(u, {1}).toVector<int64_t>(), (std::vector<int64_t>{204, 383}));
  EXPECT_EQ(max(u, {1}).toVector<uint8_t>(), (U8{200, 255}));
  EXPECT_EQ(min(u, {1}).toVector<uint8_t>(), (U8{1, 0}));
  EXPECT_EQ(argmax(u, 1).toVector<int64_t>(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(argmin(u, 1).toVector<int64_t>(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(argmax(u).item<int64_t>(), 3);
  EXPECT_EQ(mean(u).dtype(), DType::Float64);
  EXPECT_DOUBLE_EQ(mean(u).item<double>(), 587.0 / 6);
  EXPECT_EQ(cumsum(u, 1).toVector<int64_t>(),
            (std::vector<int64_t>{1, 201, 204, 255, 255, 383}));
  TopK top = topk(bytes({5, 0, 200, 0}), 4);
  EXPECT_EQ(top.values.toVector<uint8_t>(), (U8{200, 5, 0, 0}));
  EXPECT_EQ(top.indices.toVector<int64_t>(),
            (std::vector<int64_t>{2, 0, 1, 3}));
  Tensor s = signedBytes({-5, -128, -128, 3});
  TopK lowest = topk(s, 4);
  EXPECT_EQ(lowest.values.toVector<int8_t>(), (I8{3, -5, -128, -128}));
  EXPECT_EQ(lowest.indices.toVector<int64_t>(),
            (std::vector<int64_t>{3, 0, 1, 2}));
  EXPECT_EQ(max(s).item<int8_t>(), 3);
}

TEST_P(SmallIntegerTest, Promotion) {
  // numpy gives int16 for int8 with uint8.
  EXPECT_EQ(promoteTypes(DType::Int8, DType::UInt8), DType::Int16);
  EXPECT_EQ(promoteTypes(DType::UInt8, DType::Int32), DType::Int32);
  EXPECT_EQ(promoteTypes(DType::Int8, DType::Int64), DType::Int64);
  EXPECT_EQ(promoteTypes(DType::Bool, DType::UInt8), DType::UInt8);
  // Every float holds 8-bit integers: the float is kept (numpy).
  EXPECT_EQ(promoteTypes(DType::UInt8, DType::Float16), DType::Float16);
  EXPECT_EQ(promoteTypes(DType::Int8, DType::BFloat16), DType::BFloat16);
  EXPECT_EQ(promoteTypes(DType::Float32, DType::Int8), DType::Float32);
  Tensor mixed = signedBytes({-1, 100}) + bytes({255, 200});
  EXPECT_EQ(mixed.dtype(), DType::Int16);
  EXPECT_EQ(mixed.toVector<int16_t>(), (std::vector<int16_t>{254, 300}));
  EXPECT_EQ((bytes({200}) * 0.5f).dtype(), DType::Float32);
  EXPECT_EQ((bytes({200}) * 0.5f).item<float>(), 100.0f);
  // Float functions of 8-bit integers give Float16 (numpy).
  EXPECT_EQ(sqrt(bytes({4})).dtype(), DType::Float16);
  EXPECT_EQ(sqrt(bytes({196})).item<float>(), 14.0f);
  Tensor u = bytes({1});
  u += 300LL - 299; // stays UInt8
  EXPECT_EQ(u.dtype(), DType::UInt8);
}

TEST_P(SmallIntegerTest, ScalarsMustFit) {
  // numpy 2 and PyTorch raise for a Python integer the dtype cannot hold.
  Tensor u = bytes({1, 2});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        (void)(u + 256);
      },
      "add", "the scalar 256 does not fit the tensor's UInt8");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        (void)(u - (-1));
      },
      "sub", "the scalar -1 does not fit the tensor's UInt8");
  Tensor s = signedBytes({1, 2});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        (void)(s * 128);
      },
      "mul", "does not fit the tensor's Int8");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        (void)full({2}, 300, DType::UInt8);
      },
      "full", "does not fit the tensor's UInt8");
  EXPECT_EQ((u + 255).toVector<uint8_t>(), (U8{0, 1}));
  EXPECT_EQ((s + (-128)).toVector<int8_t>(), (I8{-127, -126}));
  EXPECT_EQ(full({2}, 255, DType::UInt8).toVector<int32_t>(),
            (std::vector<int32_t>{255, 255}));
}

TEST_P(SmallIntegerTest, ReadsAndPrintsNumbers) {
  Tensor u = Tensor::fromVector<uint8_t>({65, 200, 0, 255}, {2, 2});
  EXPECT_EQ(u.dtype(), DType::UInt8);
  EXPECT_EQ(dtypeName(DType::UInt8), std::string("UInt8"));
  EXPECT_EQ(dtypeName(DType::Int8), std::string("Int8"));
  std::ostringstream printed;
  printed << u << " " << signedBytes({65, -56});
  // Numbers, not the characters 'A' and 'È'.
  EXPECT_EQ(printed.str(), "[[65, 200], [0, 255]] [65, -56]");
  EXPECT_EQ(max(u).item<int>(), 255);
  EXPECT_EQ(reshape(u, {4}).toVector<int64_t>(),
            (std::vector<int64_t>{65, 200, 0, 255}));
  EXPECT_EQ(u.toVector<float>(), (std::vector<float>{65, 200, 0, 255}));
  EXPECT_EQ(signedBytes({-56}).item<uint8_t>(), 200);
  EXPECT_EQ(full({}, 200, DType::UInt8).item<int64_t>(), 200);
  EXPECT_EQ(zeros({2}, DType::Int8).toVector<int8_t>(), (I8{0, 0}));
  EXPECT_EQ(arange(0, 4, 1, DType::UInt8).toVector<uint8_t>(),
            (U8{0, 1, 2, 3}));
}

TEST_P(SmallIntegerTest, NoGradients) {
  // Integer tensors carry no gradient, as Int32's.
  Variable w(Tensor::fromVector<float>({1, 2}, {2}), "w");
  GradientTape tape;
  Tensor y = sum(cast(cast(w.read(), DType::UInt8), DType::Float32) * w.read());
  std::vector<float> g = tape.gradient(y, w).toVector<float>();
  EXPECT_EQ(g, (std::vector<float>{1, 2}));
}

TEST_P(SmallIntegerTest, NumpyFiles) {
  ASSERT_EQ(std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1"),
            0)
      << "needs /usr/bin/python3 with numpy (scripts/setup installs it)";
  std::string dir = (std::filesystem::temp_directory_path() /
                     ("lazyc-small-int-" + std::to_string(::getpid())))
                        .string();
  std::filesystem::create_directories(dir);
  saveNpy(bytes({0, 200, 255}), dir + "/l_u1.npy");
  saveNpy(signedBytes({-128, 5}), dir + "/l_i1.npy");
  std::string script = dir + "/check.py";
  std::ofstream(script) << R"(import sys, numpy as np
d = sys.argv[1]
u = np.load(d + '/l_u1.npy'); s = np.load(d + '/l_i1.npy')
assert u.dtype == np.uint8 and list(u) == [0, 200, 255], u
assert s.dtype == np.int8 and list(s) == [-128, 5], s
np.save(d + '/n_u1.npy', np.array([[250, 7], [128, 0]], np.uint8))
np.save(d + '/n_i1.npy', np.array([-1, 127], np.int8))
)";
  ASSERT_EQ(std::system(("/usr/bin/python3 " + script + " " + dir).c_str()), 0)
      << "numpy rejected an 8-bit .npy file saveNpy wrote";
  Tensor u = loadNpy(dir + "/n_u1.npy");
  EXPECT_EQ(u.dtype(), DType::UInt8);
  EXPECT_EQ(u.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(sum(u).item<int64_t>(), 385);
  Tensor s = loadNpy(dir + "/n_i1.npy");
  EXPECT_EQ(s.dtype(), DType::Int8);
  EXPECT_EQ(s.toVector<int8_t>(), (I8{-1, 127}));
  std::filesystem::remove_all(dir);
}

} // namespace
