//===- Internal.h - Shared pieces of the reference evaluator ----*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycReference: the evaluation of each op family, and the
// numeric helpers they share.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_REFERENCE_INTERNAL_H
#define LAZYC_LIB_REFERENCE_INTERNAL_H

#include "lazyc/Reference/Evaluator.h"

#include <limits>
#include <vector>

namespace lazyc::reference::impl {

/// The tolerance that accepts any value.
constexpr double kAnyValue = std::numeric_limits<double>::infinity();

/// 2^-precision: half the distance from 1 to the next value of `dtype`.
double unitRoundoff(DType dtype);
/// Bits of precision of a float dtype (with the implicit one).
int precision(DType dtype);
/// The integer `bits` wrapped (two's complement) to an integer dtype or
/// Bool: Int8 to -128..127, UInt8 to 0..255. A UInt64 is held as its bits
/// (its values from 2^63 are negative int64s): compare and convert it with
/// integerLess and integerValue.
int64_t wrap(uint64_t bits, DType dtype);
/// The smallest and largest values of an integer dtype (as held).
int64_t integerMinimum(DType dtype);
int64_t integerMaximum(DType dtype);
/// a < b for two held values of integer `dtype`.
bool integerLess(int64_t a, int64_t b, DType dtype);
/// The value a held integer of `dtype` stands for (exact).
long double integerValue(int64_t held, DType dtype);

/// An all-zero value of `dtype` and `shape` (tolerances 0).
Value makeValue(DType dtype, std::vector<int64_t> shape);

/// Widens `tolerance` where the compiled result could overflow or has an
/// infinite or NaN value that an uncertain input could have avoided.
double settle(double value, double tolerance, DType dtype);

using Inputs = std::vector<const Value *>;

/// Elementwise ops: arithmetic, unary functions, compare, select, cast.
Value evaluateElementwise(const trace::Node &node, const Inputs &inputs);
/// reduce_sum, reduce_mean, reduce_max, reduce_min.
Value evaluateReduction(const trace::Node &node, const Value &input);
Value evaluateMatmul(const trace::Node &node, const Value &lhs,
                     const Value &rhs);
/// conv2d: the operands are float (the op's verifier).
Value evaluateConv2d(const trace::Node &node, const Value &input,
                     const Value &filter);
/// softmax and log_softmax.
Value evaluateSoftmax(const trace::Node &node, const Value &input);
/// random_uniform and random_normal.
/// `seed` is the node's 0-d Int64 operand.
Value evaluateRandom(const trace::Node &node, const Value &seed);
Value evaluateGather(const trace::Node &node, const Value &input,
                     const Value &indices);
Value evaluateScatterAdd(const trace::Node &node, const Value &input,
                         const Value &indices, const Value &updates);
Value evaluateArgReduce(const trace::Node &node, const Value &input);
Value evaluateCumsum(const trace::Node &node, const Value &input);
/// lazy.attention and lazy.attention_grad (operands as the trace's).
Value evaluateAttention(const trace::Node &node, const Inputs &inputs);
/// A collective, over the world this process joined.
Value evaluateCollective(const trace::Node &node, const Value &input);

} // namespace lazyc::reference::impl

#endif // LAZYC_LIB_REFERENCE_INTERNAL_H
