//===- EvaluatorTest.cpp - The reference evaluator -------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every expected value here is computed by hand (in the comments) or with
// numpy / Python's math module (the snippets are quoted), never by lazyc.
// Graphs are recorded through the public API and evaluated without being
// materialized; a few ops the API never records (integer division) are
// built as nodes directly.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Reference/Evaluator.h"
#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace lazyc;
using namespace lazyc::reference;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ReferenceNumerics, RoundsOnceToNarrowFloats) {
  // numpy: float(np.float16(1/3)) == 0.333251953125.
  EXPECT_EQ(numerics::roundTo(1.0 / 3, DType::Float16), 0.333251953125);
  // bf16 keeps 8 bits: round(1/3 * 2^9) / 2^9 = 171 / 512.
  EXPECT_EQ(numerics::roundTo(1.0 / 3, DType::BFloat16), 0.333984375);
  // Just above the f16 midpoint 1 + 2^-11: rounds up. Through f32 first the
  // 2^-40 would be lost and the tie would round down to 1.
  // numpy: float(np.float16(1 + 2**-11 + 2**-40)) == 1.0009765625.
  EXPECT_EQ(numerics::roundTo(1 + 0x1p-11 + 0x1p-40, DType::Float16),
            1.0009765625);
  // Subnormal f16: 1e-7 / 2^-24 = 1.68 rounds to 2 quanta.
  EXPECT_EQ(numerics::roundTo(1e-7, DType::Float16), 0x1p-23);
  // 65504 is the largest f16; 65520 is the midpoint to 2^16 and ties away
  // to infinity (even), 65519 rounds back down.
  EXPECT_EQ(numerics::roundTo(65520.0, DType::Float16), kInf);
  EXPECT_EQ(numerics::roundTo(65519.0, DType::Float16), 65504.0);
  EXPECT_EQ(numerics::roundTo(-0.0, DType::Float16), 0.0);
  EXPECT_TRUE(std::signbit(numerics::roundTo(-0.0, DType::Float16)));
  EXPECT_EQ(numerics::roundTo(0.1, DType::Float32), static_cast<double>(0.1f));
  // An Int64 beyond 2^53 rounds once: the f64 quantum at 2^62 is 2^10,
  // so 2^62 + 2^10 + 1 goes to 2^62 + 2^10.
  EXPECT_EQ(
      numerics::roundTo(static_cast<long double>((int64_t(1) << 62) + 1024 + 1),
                        DType::Float64),
      0x1p62 + 1024);
}

TEST(ReferenceNumerics, UlpsAndRandomBits) {
  EXPECT_EQ(numerics::ulp(1.0, DType::Float32), 0x1p-23);
  EXPECT_EQ(numerics::ulp(1.5, DType::Float16), 0x1p-10);
  EXPECT_EQ(numerics::ulp(0.0, DType::Float16), 0x1p-24);
  EXPECT_EQ(numerics::ulp(1.0, DType::BFloat16), 0x1p-7);
  // SplitMix64's first output from state 0 (its published test value).
  EXPECT_EQ(numerics::randomBits(0, 0), 0xE220A8397B1DCDAFULL);
}

TEST(ReferenceEvaluator, EvaluatesWithoutMaterializing) {
  Tensor x = Tensor::fromVector<float>({1, 2, 3, 4}, {2, 2});
  Tensor y = sum(x * 2.0f + 1.0f, {1});
  Value value = evaluate(y);
  EXPECT_FALSE(y.isMaterialized());
  EXPECT_EQ(value.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(value.dtype, DType::Float32);
  // (2 + 1) + (4 + 1) = 8 and (6 + 1) + (8 + 1) = 16.
  EXPECT_EQ(value.floats, (std::vector<double>{8, 16}));
  // Two terms, exact inputs: at most one rounding, so a tolerance of about
  // an ulp, not zero (the compiled order is free).
  EXPECT_GT(value.tolerance[0], 0);
  EXPECT_LE(value.tolerance[1], 4 * 0x1p-19);
}

TEST(ReferenceEvaluator, IeeeOpsAreExact) {
  Tensor a = Tensor::fromVector<float>({0.1f, 1e30f, -3.0f}, {3});
  Tensor b = Tensor::fromVector<float>({0.2f, 1e30f, 0.0f}, {3});
  Value sum = evaluate(a + b);
  // 0.1f + 0.2f rounded to f32 (numpy: np.float32(0.1) + np.float32(0.2)
  // == np.float32(0.3)).
  EXPECT_EQ(sum.floats[0], static_cast<double>(0.3f));
  EXPECT_EQ(sum.floats[1], static_cast<double>(2e30f));
  EXPECT_EQ(sum.tolerance, (std::vector<double>{0, 0, 0}));
  Value quotient = evaluate(a / b);
  EXPECT_EQ(quotient.floats[2], -kInf); // -3 / +0
  EXPECT_EQ(quotient.tolerance[2], 0);
}

TEST(ReferenceEvaluator, IntegersWrapAndPowFollowsTheDialect) {
  Tensor big = Tensor::fromVector<int32_t>({2147483647, -2147483647 - 1}, {2});
  Value wrapped = evaluate(big + 1);
  EXPECT_EQ(wrapped.ints, (std::vector<int64_t>{-2147483647 - 1, -2147483647}));
  EXPECT_EQ(wrapped.tolerance, (std::vector<double>{0, 0}));
  EXPECT_EQ(evaluate(-big).ints,
            (std::vector<int64_t>{-2147483647, -2147483647 - 1}));

  Tensor base = Tensor::fromVector<int32_t>({2, 1, -1, -1, 0, 3, 2}, {7});
  Tensor exponent =
      Tensor::fromVector<int32_t>({-1, -5, -3, -2, 3, 4, 31}, {7});
  // Negative exponents: 0, except 1 for base 1 and +-1 for base -1;
  // 3^4 = 81; 2^31 wraps to -2^31.
  EXPECT_EQ(evaluate(pow(base, exponent)).ints,
            (std::vector<int64_t>{0, 1, -1, 1, 0, 81, -2147483647 - 1}));

  // An unsigned exponent is never negative, from 2^63 on too (lazyc-fuzz
  // seed 1118): an odd number to a multiple of 2^62 is 1 modulo 2^64,
  // 3^(2^63 + 1) is 3, and 2^(2^63) wraps to 0.
  Tensor odd = Tensor::fromVector<uint64_t>({7, 3, 2}, {3});
  Tensor huge = Tensor::fromVector<uint64_t>(
      {uint64_t(1) << 63, (uint64_t(1) << 63) + 1, uint64_t(1) << 63}, {3});
  EXPECT_EQ(evaluate(pow(odd, huge)).ints, (std::vector<int64_t>{1, 3, 0}));
}

TEST(ReferenceEvaluator, UnspecifiedResultsAcceptAnything) {
  // Integer division is not recorded by the API (it divides in floats):
  // build lazy.div on Int32 over buffer nodes. 7 / 0 and MIN / -1 are
  // unspecified, -7 / 2 truncates to -3.
  auto buffer = [](std::vector<int32_t> data) {
    trace::NodePtr node = trace::makeNode();
    node->kind = trace::OpKind::Buffer;
    node->dtype = DType::Int32;
    node->shape = {static_cast<int64_t>(data.size())};
    node->value = std::make_shared<trace::Buffer>(
        DType::Int32, data.size(), Device::cpu(), cpuAllocator());
    std::copy(data.begin(), data.end(),
              static_cast<int32_t *>(node->value->data()));
    return node;
  };
  trace::NodePtr div = trace::makeNode();
  div->kind = trace::OpKind::Div;
  div->dtype = DType::Int32;
  div->shape = {3};
  div->inputs.push_back(buffer({7, -2147483647 - 1, -7}));
  div->inputs.push_back(buffer({0, -1, 2}));
  Evaluator evaluator;
  const Value &quotient = evaluator.evaluate(div);
  EXPECT_EQ(quotient.tolerance, (std::vector<double>{kInf, kInf, 0}));
  EXPECT_EQ(quotient.ints[2], -3);

  // Float to integer: truncation toward zero; NaN and out of range are
  // unspecified.
  Tensor x = Tensor::fromVector<float>({2.7f, -2.7f, NAN, 3e9f}, {4});
  Value cast32 = evaluate(cast(x, DType::Int32));
  EXPECT_EQ(cast32.ints[0], 2);
  EXPECT_EQ(cast32.ints[1], -2);
  EXPECT_EQ(cast32.tolerance, (std::vector<double>{0, 0, kInf, kInf}));
}

TEST(ReferenceEvaluator, FloorDivAndModFollowNumpy) {
  // By hand (Python's // and %): 7 // -2 = -4, 7 % -2 = -1; -7 // 2 = -4,
  // -7 % 2 = 1; a zero divisor gives 0; MIN // -1 wraps to MIN.
  int32_t minimum = std::numeric_limits<int32_t>::min();
  Tensor a = Tensor::fromVector<int32_t>({7, -7, 5, minimum}, {4});
  Tensor b = Tensor::fromVector<int32_t>({-2, 2, 0, -1}, {4});
  Value q = evaluate(floorDiv(a, b));
  Value r = evaluate(mod(a, b));
  EXPECT_EQ(q.ints, (std::vector<int64_t>{-4, -4, 0, minimum}));
  EXPECT_EQ(r.ints, (std::vector<int64_t>{-1, 1, 0, 0}));
  EXPECT_EQ(q.tolerance, (std::vector<double>{0, 0, 0, 0}));
  // Floats: 1 // 0.1 is 9 (fmod(1, 0.1) = 0.0999...), -7.5 % 2 = 0.5, and
  // in Float32 7.5 // -2 = -4.
  Tensor x = Tensor::fromVector<double>({1, -7.5}, {2});
  Tensor y = Tensor::fromVector<double>({0.1, 2}, {2});
  EXPECT_EQ(evaluate(floorDiv(x, y)).floats, (std::vector<double>{9, -4}));
  EXPECT_EQ(evaluate(mod(x, y)).floats[1], 0.5);
  Tensor x32 = Tensor::fromVector<float>({7.5f}, {1});
  EXPECT_EQ(evaluate(floorDiv(x32, -2.0f)).floats[0], -4);
  EXPECT_EQ(evaluate(mod(x32, -2.0f)).floats[0], -0.5);
}

TEST(ReferenceEvaluator, CastsRoundOnce) {
  Tensor x = Tensor::fromVector<double>({1 + 0x1p-11 + 0x1p-40, 1e6}, {2});
  Value half = evaluate(cast(x, DType::Float16));
  // See RoundsOnceToNarrowFloats; 1e6 overflows f16 (numpy: inf).
  EXPECT_EQ(half.floats, (std::vector<double>{1.0009765625, kInf}));
  EXPECT_EQ(half.tolerance, (std::vector<double>{0, 0}));
  // 2^24 + 2^16 + 1 to bf16 (quantum 2^17): above the midpoint
  // 2^24 + 2^16, so up to 2^24 + 2^17 (rounding through f32 first would tie
  // at 2^24 + 2^16 and go down to 2^24).
  Tensor i = Tensor::fromVector<int32_t>({(1 << 24) + (1 << 16) + 1}, {1});
  EXPECT_EQ(evaluate(cast(i, DType::BFloat16)).floats[0], 0x1p24 + 0x1p17);
  // Bool from floats: nonzero, NaN included.
  Tensor f = Tensor::fromVector<float>({0.0f, -0.0f, NAN, 0.5f}, {4});
  EXPECT_EQ(evaluate(cast(f, DType::Bool)).ints,
            (std::vector<int64_t>{0, 0, 1, 1}));
}

TEST(ReferenceEvaluator, ComparisonsAndUncertainty) {
  Tensor x = Tensor::fromVector<float>({NAN, 1.0f, 2.0f}, {3});
  Tensor one = full({3}, 1.0f);
  EXPECT_EQ(evaluate(x < one).ints, (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(evaluate(x != 1.0f).ints, (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(evaluate(x >= one).ints, (std::vector<int64_t>{0, 1, 1}));
  // exp(0) is 1 up to the polynomial's error: comparing it with 1 exactly
  // cannot be decided, comparing it with 3 can.
  Tensor e = exp(zeros({2}));
  Value near = evaluate(e == 1.0f);
  EXPECT_EQ(near.tolerance[0], kInf);
  Value far = evaluate(e < 3.0f);
  EXPECT_EQ(far.ints, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(far.tolerance, (std::vector<double>{0, 0}));
  // where() over an undecided condition covers both branches.
  Value chosen = evaluate(where(e == 1.0f, full({2}, 10.0f), full({2}, 4.0f)));
  EXPECT_EQ(chosen.floats[0], 10.0);
  EXPECT_GE(chosen.tolerance[0], 6.0);
}

TEST(ReferenceEvaluator, ArgReductionsOverUnboundedValuesAreUncertain) {
  // exp(0) == 1 cannot be decided, so `any` is inf or 1: its tolerance is
  // unbounded.
  Tensor undecided = exp(zeros({1})) == 1.0f;
  Tensor inf = full({1}, INFINITY);
  Tensor any = where(undecided, inf, full({1}, 1.0f));
  ASSERT_EQ(evaluate(any).tolerance[0], kInf);
  // [any, inf]: the first is the maximum only if it is inf. inf - inf is NaN,
  // which must not hide that (lazyc-fuzz seed 103311).
  Value largest = evaluate(argmax(concat({any, inf}, 0), 0));
  EXPECT_EQ(largest.ints[0], 0);
  EXPECT_EQ(largest.tolerance[0], kInf);
  // [any, NaN]: the first NaN wins, and `any` may be one (seed 103264).
  Tensor nan = full({1}, NAN);
  EXPECT_EQ(evaluate(argmin(concat({any, nan}, 0), 0)).tolerance[0], kInf);
  // [NaN, any]: the NaN comes first whatever `any` is.
  Value first = evaluate(argmin(concat({nan, any}, 0), 0));
  EXPECT_EQ(first.ints[0], 0);
  EXPECT_EQ(first.tolerance[0], 0);
}

TEST(ReferenceEvaluator, ZerosOfAnOpenSignAreUncertainWherePolesTellThem) {
  // log(1 + 2^-23) is 1.2e-7 within a tolerance (16 f32 ulps of 1) that
  // spans 0: 0 * it is a zero of either sign, and rsqrt of that is -inf or
  // +inf.
  Tensor nearZero = log(full({1}, 1.0f + 0x1p-23f));
  Value logValue = evaluate(nearZero);
  ASSERT_GT(logValue.tolerance[0], std::fabs(logValue.floats[0]));
  Tensor product = zeros({1}) * nearZero;
  Value zero = evaluate(product);
  EXPECT_EQ(zero.floats[0], 0.0);
  EXPECT_GT(zero.tolerance[0], 0.0);
  EXPECT_EQ(evaluate(rsqrt(product)).tolerance[0], kInf);
  // An exact operand keeps the sign known: 0 * -2 is -0, and rsqrt of it
  // is -inf, exactly.
  Value exactZero = evaluate(zeros({1}) * full({1}, -2.0f));
  EXPECT_TRUE(std::signbit(exactZero.floats[0]));
  EXPECT_EQ(exactZero.tolerance[0], 0.0);
  Value pole = evaluate(rsqrt(zeros({1}) * full({1}, -2.0f)));
  EXPECT_EQ(pole.floats[0], -kInf);
  EXPECT_EQ(pole.tolerance[0], 0.0);
}

TEST(ReferenceEvaluator, InverseTrigonometryTolerancesFollowTheSlope) {
  // Exact inputs: libm's 4 f32 ulps plus the rounding (ulp(pi/2) = 2^-23);
  // NaN outside [-1, 1], exactly.
  Value ends = evaluate(asin(Tensor::fromVector<float>({-1, 1, 1.5f}, {3})));
  EXPECT_EQ(ends.floats[0], double(float(-M_PI_2)));
  EXPECT_GT(ends.tolerance[0], 0);
  EXPECT_LE(ends.tolerance[0], 6 * 0x1p-23);
  EXPECT_TRUE(std::isnan(ends.floats[2]));
  EXPECT_EQ(ends.tolerance[2], 0);
  // An uncertain input: asin and acos move 1 / sqrt(1 - x^2) times as far,
  // 1.6 times at sin(0.9) = 0.78, 74 times at tanh(5) = 0.99991 ...
  for (auto [input, slope] : {std::pair{sin(full({1}, 0.9f)), 1.6},
                              std::pair{tanh(full({1}, 5.0f)), 74.0}}) {
    double spread = evaluate(input).tolerance[0];
    ASSERT_GT(spread, 0);
    for (const Tensor &result : {asin(input), acos(input)}) {
      double tolerance = evaluate(result).tolerance[0];
      EXPECT_GE(tolerance, slope * spread);
      EXPECT_LT(tolerance, 2 * slope * spread + 1e-6);
    }
  }
  // ... and anything once the input may pass 1 (tanh(10) rounds to 1).
  Tensor one = tanh(full({1}, 10.0f));
  ASSERT_EQ(evaluate(one).floats[0], 1.0);
  EXPECT_EQ(evaluate(asin(one)).tolerance[0], kInf);
  EXPECT_EQ(evaluate(acos(one)).tolerance[0], kInf);
  // atan is never steeper than 1.
  Tensor wide = sin(full({1}, 0.9f));
  EXPECT_LE(evaluate(atan(wide)).tolerance[0],
            evaluate(wide).tolerance[0] + 6 * 0x1p-24);
}

TEST(ReferenceEvaluator, AnAllReducedSumKeepsNegativeZeros) {
  // MPI adds the ranks' values to each other, not to +0.0: in a world of
  // one, the sum is each value itself, -0.0 included (lazyc-fuzz seed
  // 311038: 1 / that is -inf, not +inf).
  distributed::init();
  Tensor x = Tensor::fromVector<double>({-0.0, 0.0, -2.0}, {3});
  Value sum = evaluate(distributed::allReduce(x, distributed::ReduceOp::Sum));
  ASSERT_EQ(sum.floats.size(), 3u);
  EXPECT_TRUE(std::signbit(sum.floats[0]));
  EXPECT_EQ(sum.floats[0], 0.0);
  EXPECT_FALSE(std::signbit(sum.floats[1]));
  EXPECT_EQ(sum.floats[2], -2.0);
  EXPECT_EQ(evaluate(1.0 / distributed::allReduce(x)).floats[0], -kInf);
}

TEST(ReferenceEvaluator, DataMovement) {
  Tensor x = Tensor::fromVector<int32_t>({0, 1, 2, 3, 4, 5}, {2, 3});
  // numpy: np.arange(6).reshape(2, 3).T.flatten() == [0, 3, 1, 4, 2, 5].
  EXPECT_EQ(evaluate(transpose(x)).ints,
            (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
  // x[:, ::2] == [[0, 2], [3, 5]]; x[-1:, 1:] == [[4, 5]].
  EXPECT_EQ(evaluate(slice(x, {0, 0}, {2, 3}, {1, 2})).ints,
            (std::vector<int64_t>{0, 2, 3, 5}));
  EXPECT_EQ(evaluate(slice(x, {-1, 1}, {2, 3})).ints,
            (std::vector<int64_t>{4, 5}));
  // Broadcasting [2, 1, 3] to [2, 2, 3] repeats each row.
  EXPECT_EQ(evaluate(broadcastTo(reshape(x, {2, 1, 3}), {2, 2, 3})).ints,
            (std::vector<int64_t>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
  Tensor y = Tensor::fromVector<int32_t>({6, 7}, {2, 1});
  EXPECT_EQ(evaluate(concat({x, y}, 1)).ints,
            (std::vector<int64_t>{0, 1, 2, 6, 3, 4, 5, 7}));
  EXPECT_EQ(evaluate(concat({x, x}, 0)).shape, (std::vector<int64_t>{4, 3}));
}

TEST(ReferenceEvaluator, ReductionsMatmulSoftmax) {
  Tensor x = Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  // Row sums 6 and 15; column maxima 4 5 6; the mean of all 3.5.
  EXPECT_EQ(evaluate(sum(x, {1})).floats, (std::vector<double>{6, 15}));
  EXPECT_EQ(evaluate(max(x, {0}, true)).floats, (std::vector<double>{4, 5, 6}));
  EXPECT_EQ(evaluate(max(x, {0}, true)).shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(evaluate(mean(x)).floats, (std::vector<double>{3.5}));
  // Integer sums are Int64 and exact.
  Value ints = evaluate(
      sum(Tensor::fromVector<int32_t>({2147483647, 2147483647, 2}, {3})));
  EXPECT_EQ(ints.ints, (std::vector<int64_t>{4294967296}));
  EXPECT_EQ(ints.tolerance, (std::vector<double>{0}));
  // Int64 extremes compare exactly: 2^62 and 2^62 + 2 are one double
  // (lazyc-fuzz seed 51133).
  Tensor near = Tensor::fromVector<int64_t>(
      {int64_t(1) << 62, (int64_t(1) << 62) + 2, int64_t(1) << 62}, {3});
  EXPECT_EQ(evaluate(argmax(near, 0)).ints, (std::vector<int64_t>{1}));
  EXPECT_EQ(evaluate(argmin(near, 0)).ints, (std::vector<int64_t>{0}));
  // Empty reductions: the mean is 0 / 0, the maximum -inf.
  Tensor empty = zeros({0, 2});
  EXPECT_TRUE(std::isnan(evaluate(mean(empty, {0})).floats[0]));
  EXPECT_EQ(evaluate(max(empty, {0})).floats,
            (std::vector<double>{-kInf, -kInf}));

  // [[1, 2], [3, 4]] @ [[5, 6], [7, 8]] == [[19, 22], [43, 50]].
  Tensor a = Tensor::fromVector<double>({1, 2, 3, 4}, {2, 2});
  Tensor b = Tensor::fromVector<double>({5, 6, 7, 8}, {2, 2});
  EXPECT_EQ(evaluate(matmul(a, b)).floats,
            (std::vector<double>{19, 22, 43, 50}));

  // softmax([0, ln 3]) == [1/4, 3/4] (numpy: e / e.sum()).
  Tensor s = Tensor::fromVector<double>({0, std::log(3.0)}, {2});
  Value soft = evaluate(softmax(s));
  EXPECT_NEAR(soft.floats[0], 0.25, 1e-15);
  EXPECT_NEAR(soft.floats[1], 0.75, 1e-15);
  EXPECT_LE(soft.tolerance[1], 1e-13);
  Value logSoft = evaluate(logSoftmax(s));
  EXPECT_NEAR(logSoft.floats[0], std::log(0.25), 1e-15);
  // A -inf entry is a zero term: the rest of the row keeps its ordinary
  // tolerance (regression: the whole row was required bit-exact).
  Tensor withMinusInf =
      Tensor::fromVector<float>({-INFINITY, 0, std::log(3.0f)}, {3});
  Value partial = evaluate(softmax(withMinusInf));
  EXPECT_EQ(partial.floats[0], 0);
  EXPECT_EQ(partial.tolerance[0], 0);
  EXPECT_NEAR(partial.floats[1], 0.25, 1e-7);
  EXPECT_GT(partial.tolerance[1], 0);
  EXPECT_LT(partial.tolerance[1], 1e-5);
}

TEST(ReferenceEvaluator, BFloat16ProductsMayFlushSubnormals) {
  // AVX512-BF16's vdpbf16ps reads a subnormal input as zero and flushes a
  // subnormal sum: a bf16 product [1e-39] @ [2.5] may be 0 (lazyc-fuzz seed
  // 66042), while a normal product keeps a tight tolerance.
  Tensor tiny =
      cast(Tensor::fromVector<float>({1e-39f}, {1, 1}), DType::BFloat16);
  Tensor weight =
      cast(Tensor::fromVector<float>({2.5f}, {1, 1}), DType::BFloat16);
  Value flushed = evaluate(matmul(tiny, weight));
  EXPECT_NE(flushed.floats[0], 0.0);
  EXPECT_GE(flushed.tolerance[0], std::fabs(flushed.floats[0]));
  Value normal = evaluate(matmul(weight, weight));
  EXPECT_EQ(normal.floats[0], 6.25);
  EXPECT_LT(normal.tolerance[0], 1e-37);
  // Float32 products do not flush: exact, one product.
  Value exact = evaluate(matmul(Tensor::fromVector<float>({1e-39f}, {1, 1}),
                                Tensor::fromVector<float>({2.5f}, {1, 1})));
  EXPECT_EQ(exact.tolerance[0], 0.0);
  // So may a bf16 convolution (the runtime's dot-product kernels).
  Value convolved = evaluate(
      conv2d(reshape(tiny, {1, 1, 1, 1}), reshape(weight, {1, 1, 1, 1})));
  EXPECT_NE(convolved.floats[0], 0.0);
  EXPECT_GE(convolved.tolerance[0], std::fabs(convolved.floats[0]));
  Value normalConvolved = evaluate(
      conv2d(reshape(weight, {1, 1, 1, 1}), reshape(weight, {1, 1, 1, 1})));
  // (Its bf16 result carries bf16's rounding, no flush allowance.)
  EXPECT_EQ(normalConvolved.floats[0], 6.25);
  EXPECT_LT(normalConvolved.tolerance[0], 6.25 / 64);
}

TEST(ReferenceEvaluator, BitcastReadsTheStoredBits) {
  // 1.0f is 0x3f800000, -2.5 is 0xc0200000; Float16 1.0 is 0x3c00, and
  // 0x7c00 is Float16 infinity; Int8 -1 is UInt8 255; Bool is a byte of 0
  // or 1 and a byte read as Bool keeps its lowest bit.
  Value floats = evaluate(
      bitcast(Tensor::fromVector<float>({1.0f, -2.5f}, {2}), DType::UInt32));
  EXPECT_EQ(floats.ints, (std::vector<int64_t>{0x3f800000, 0xc0200000}));
  EXPECT_EQ(floats.tolerance, (std::vector<double>{0, 0}));
  Value halves = evaluate(bitcast(
      Tensor::fromVector<uint16_t>({0x3c00, 0x7c00}, {2}), DType::Float16));
  EXPECT_EQ(halves.floats[0], 1.0);
  EXPECT_TRUE(std::isinf(halves.floats[1]));
  Value bytes =
      evaluate(bitcast(Tensor::fromVector<int8_t>({-1, 6}, {2}), DType::UInt8));
  EXPECT_EQ(bytes.ints, (std::vector<int64_t>{255, 6}));
  Value flags =
      evaluate(bitcast(Tensor::fromVector<uint8_t>({2, 3}, {2}), DType::Bool));
  EXPECT_EQ(flags.ints, (std::vector<int64_t>{0, 1}));
  // A NaN's payload and a zero's sign are left open by the evaluator (and
  // an uncertain value's bits are unknown): any bits.
  Tensor special = Tensor::fromVector<float>({NAN, 0.0f}, {2});
  Value open = evaluate(bitcast(special, DType::Int32));
  EXPECT_TRUE(std::isinf(open.tolerance[0]));
  EXPECT_TRUE(std::isinf(open.tolerance[1]));
  Value rounded = evaluate(
      bitcast(exp(Tensor::fromVector<float>({1.0f}, {1})), DType::Int32));
  EXPECT_TRUE(std::isinf(rounded.tolerance[0]));
}

TEST(ReferenceEvaluator, TiledAttentionAndItsGradients) {
  // q [1, 2] = [1, 0], k = [[1, 0], [0, 1]], v = [[1, 2], [3, 4]], scale 1:
  // the scores are [1, 0], the weights [e / (e + 1), 1 / (e + 1)] =
  // [0.7310585786300049, 0.2689414213699951], the output 0.731 [1, 2] +
  // 0.269 [3, 4] = [1.5378828427399902, 2.5378828427399902] (Python).
  Tensor q = Tensor::fromVector<double>({1, 0}, {1, 2});
  Tensor k = Tensor::fromVector<double>({1, 0, 0, 1}, {2, 2});
  Tensor v = Tensor::fromVector<double>({1, 2, 3, 4}, {2, 2});
  Value out = evaluate(tiledAttention(q, k, v, Tensor(), 1.0, false));
  EXPECT_NEAR(out.floats[0], 1.5378828427399902, 1e-15);
  EXPECT_NEAR(out.floats[1], 2.5378828427399902, 1e-15);
  // With the causal mask the query sees the first key alone.
  Value causal = evaluate(tiledAttention(q, k, v, Tensor(), 1.0, true));
  EXPECT_NEAR(causal.floats[0], 1, 1e-15);
  EXPECT_NEAR(causal.floats[1], 2, 1e-15);

  // Compiled f32 attention, causal, with a bias and dropout, and its
  // gradients, each within the reference's bounds.
  auto values = [](int64_t count, float step) {
    std::vector<float> data(count);
    for (int64_t i = 0; i < count; ++i)
      data[i] = std::sin(step * static_cast<float>(i));
    return data;
  };
  Tensor q2 = Tensor::fromVector(values(2 * 37 * 8, 0.7f), {2, 37, 8});
  Tensor k2 = Tensor::fromVector(values(2 * 45 * 8, 1.3f), {2, 45, 8});
  Tensor v2 = Tensor::fromVector(values(2 * 45 * 5, 0.4f), {2, 45, 5});
  Tensor bias = Tensor::fromVector(values(45, 2.1f), {1, 1, 45});
  GradientTape tape;
  for (const Tensor *t : {&q2, &k2, &v2})
    tape.watch(*t);
  Tensor rows = tiledAttention(q2, k2, v2, bias, 0.35, true, 0.2, 17);
  std::vector<Tensor> grads = tape.gradient(sum(rows * rows), {q2, k2, v2});
  for (const Tensor *t : {&rows, &grads[0], &grads[1], &grads[2]}) {
    Value reference = evaluate(*t);
    std::vector<Mismatch> wrong = check(reference, *t);
    EXPECT_TRUE(wrong.empty())
        << wrong.size() << " mismatches, the first at " << wrong[0].index
        << ": " << wrong[0].actual << " against " << wrong[0].expected;
    // The bounds are useful: a few thousandths at most.
    for (double tolerance : reference.tolerance)
      EXPECT_LT(tolerance, 1e-3);
  }
}

TEST(ReferenceEvaluator, LongSumsAreExactWithTheBlockedBound) {
  // 2^24 copies of 0.1f = 13421773 * 2^-27 sum to 13421773 * 2^-3 =
  // 1677721.625 exactly, which f32 holds (21 integer bits and 3 fraction
  // bits); a running f32 total gets 2,097,152 (it stops growing at 2^21).
  int64_t n = int64_t(1) << 24;
  Value total = evaluate(
      sum(Tensor::fromVector<float>(std::vector<float>(n, 0.1f), {n})));
  EXPECT_EQ(total.floats, (std::vector<double>{1677721.625}));
  // The tolerance is what blocked summation promises: 4 levels of 70
  // additions, gamma(280) = 280 u / (1 - 280 u) with u = 2^-24, of
  // sum |x| = 1677721.625: 28.0005; plus the reference's own double
  // rounding, gamma(2^24, 2^-53) * 1677721.625 = 0.0031; plus one f32 ulp
  // of the result, 0.125. (A sequential sum's bound, gamma(2^24) * sum |x|,
  // would accept anything.)
  ASSERT_EQ(total.tolerance.size(), 1u);
  EXPECT_NEAR(total.tolerance[0], 28.0005 + 0.0031 + 0.125, 0.001);

  // bf16 sums add in f32 and round once: 4096 copies of bf16(0.1) =
  // 0.10009765625 sum to 410 exactly, a bf16 (9 bits, the last 0). The
  // tolerance: gamma(140) in f32's unit (2 levels) of 410, 0.0034, plus one
  // bf16 ulp at 410, 2. (With bf16's unit, gamma(4096) would exceed 1.)
  Tensor tenths =
      cast(Tensor::fromVector<float>(std::vector<float>(4096, 0.1f), {4096}),
           DType::BFloat16);
  Value narrow = evaluate(sum(tenths));
  EXPECT_EQ(narrow.floats, (std::vector<double>{410}));
  EXPECT_NEAR(narrow.tolerance[0], 2 + 140 * 0x1p-24 * 410, 1e-6);
}

TEST(ReferenceEvaluator, RandomNumbersFollowTheGenerator) {
  // Python: top = splitmix64(42 + (c + 1) * golden) >> 40; top * 2**-24 for
  // c = 0, 1, 2 gives 0.7415648698806763, 0.1599103808403015,
  // 0.27860110998153687 (uniform on [0, 1) is the unit value itself).
  Value unit = evaluate(randomUniform({3}, 0.0, 1.0, 42));
  EXPECT_EQ(unit.floats,
            (std::vector<double>{0.7415648698806763, 0.1599103808403015,
                                 0.27860110998153687}));
  EXPECT_EQ(unit.tolerance, (std::vector<double>{0, 0, 0}));
  // numpy f32: np.float32(u) * np.float32(5) + np.float32(-2), seed 7.
  Value shifted = evaluate(randomUniform({3}, -2.0, 3.0, 7));
  EXPECT_EQ(shifted.floats[0], static_cast<double>(-0.050851583f));
  EXPECT_EQ(shifted.floats[1], static_cast<double>(-1.9160588f));
  EXPECT_EQ(shifted.floats[2], static_cast<double>(2.5038033f));
  // f64 Box-Muller with 53-bit units, seed 5, mean 1, stddev 2 (Python's
  // math): 1.0286694919927044, 2.1812419137738503.
  Value normal = evaluate(randomNormal({2}, 1.0, 2.0, 5, DType::Float64));
  EXPECT_NEAR(normal.floats[0], 1.0286694919927044, 1e-14);
  EXPECT_NEAR(normal.floats[1], 2.1812419137738503, 1e-14);
}

TEST(ReferenceEvaluator, MemoizesAndCountsComputedLeaves) {
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  Tensor y = x * 3.0f;
  y.toVector<float>(); // y is now a computed value
  Evaluator evaluator;
  Value value = evaluator.evaluate(y + 1.0f);
  EXPECT_EQ(value.floats, (std::vector<double>{4, 7}));
  EXPECT_EQ(evaluator.computedLeaves(), 1);
  Evaluator fresh;
  fresh.evaluate(x + 1.0f);
  EXPECT_EQ(fresh.computedLeaves(), 0);
}

TEST(ReferenceEvaluator, DeepGraphsDoNotRecurse) {
  // 300,000 chained negations, built as nodes: a recursive walk would
  // overflow the stack.
  trace::NodePtr node = trace::makeNode();
  node->kind = trace::OpKind::Buffer;
  node->dtype = DType::Int64;
  node->value = std::make_shared<trace::Buffer>(DType::Int64, 1, Device::cpu(),
                                                cpuAllocator());
  *static_cast<int64_t *>(node->value->data()) = 5;
  for (int i = 0; i < 300000; ++i) {
    trace::NodePtr next = trace::makeNode();
    next->kind = trace::OpKind::Neg;
    next->dtype = DType::Int64;
    next->inputs.push_back(std::move(node));
    node = std::move(next);
  }
  Evaluator evaluator;
  EXPECT_EQ(evaluator.evaluate(node).ints, (std::vector<int64_t>{5}));
}

TEST(ReferenceCheck, ReportsTheFirstElementOutsideTolerance) {
  Tensor x = Tensor::fromVector<float>({1, 2, 3}, {3});
  Value doubled = evaluate(x * 2.0f);
  EXPECT_TRUE(check(doubled, std::vector<double>{2, 4, 6}).empty());
  std::vector<Mismatch> wrong = check(doubled, std::vector<double>{2, 4, 7});
  ASSERT_EQ(wrong.size(), 1u);
  EXPECT_EQ(wrong[0].index, 2);
  EXPECT_EQ(wrong[0].expected, 6);
  EXPECT_EQ(wrong[0].actual, 7);
  // NaN matches NaN; +0 matches -0.
  Tensor n = Tensor::fromVector<float>({NAN, 0.0f}, {2});
  EXPECT_TRUE(check(evaluate(-n), std::vector<double>{NAN, 0.0}).empty());
  // A compiled tensor checks against its own reference.
  Tensor y = exp(x) * 0.5f;
  Value reference = evaluate(y);
  EXPECT_TRUE(check(reference, y).empty());
  EXPECT_FALSE(check(reference, x).empty()); // values differ
}

} // namespace
