//===- Random.cpp - Lower seeded random ops -------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers random_uniform and random_normal to a linalg.generic that
// computes each element from (seed, row-major index) alone (the seed is an
// operand: a promoted seed is read once, a constant one folds): a counter-based
// generator, so the numbers do not depend on tiling, threads or device.
//
// The bits of counter c are SplitMix64's output for the state
// seed + (c + 1) * 0x9E3779B97F4A7C15. A uniform float in [0, 1) takes the top
// p bits (p = the type's precision) times 2^-p. A normal sample uses the
// Box-Muller transform of counters 2i and 2i + 1.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <numbers>

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// Emits the scalar arithmetic of the generator inside a generic's body.
class CounterRandom {
public:
  CounterRandom(OpBuilder &b, Location loc, Value seed, FloatType element)
      : b(b), loc(loc), seed(seed), element(element),
        // f16 and bf16 are computed in f32 and rounded once at the end.
        compute(element.getWidth() == 64
                    ? FloatType(Float64Type::get(b.getContext()))
                    : FloatType(Float32Type::get(b.getContext()))) {}

  /// The row-major index of the current element of an iteration over
  /// `sizes`.
  Value linearIndex(ArrayRef<OpFoldResult> sizes) {
    Value index = arith::ConstantIndexOp::create(b, loc, 0);
    for (auto [d, size] : llvm::enumerate(sizes)) {
      Value scaled = arith::MulIOp::create(
          b, loc, index, getValueOrCreateConstantIndexOp(b, loc, size));
      index = arith::AddIOp::create(b, loc, scaled,
                                    linalg::IndexOp::create(b, loc, d));
    }
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  }

  /// 64 random bits for `counter` (i64).
  Value bits(Value counter) {
    Value one = i64(1);
    Value state = arith::AddIOp::create(
        b, loc, seed,
        arith::MulIOp::create(b, loc,
                              arith::AddIOp::create(b, loc, counter, one),
                              i64(0x9E3779B97F4A7C15ULL)));
    Value z = mix(state, 30, 0xBF58476D1CE4E5B9ULL);
    z = mix(z, 27, 0x94D049BB133111EBULL);
    return xorShift(z, 31);
  }

  /// A uniform value in [0, 1) of the compute type for `counter`.
  Value unit(Value counter) {
    unsigned precision =
        llvm::APFloat::semanticsPrecision(element.getFloatSemantics());
    Value top =
        arith::ShRUIOp::create(b, loc, bits(counter), i64(64 - precision));
    Value asFloat = arith::UIToFPOp::create(b, loc, compute, top);
    return arith::MulFOp::create(
        b, loc, asFloat, real(std::ldexp(1.0, -static_cast<int>(precision))));
  }

  /// Rounds a compute-type value to the element type.
  Value toElement(Value value) {
    if (compute == element)
      return value;
    return arith::TruncFOp::create(b, loc, element, value);
  }

  Value real(double value) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(compute, value));
  }
  Value i64(uint64_t value) {
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(b.getI64Type(), static_cast<int64_t>(value)));
  }

  OpBuilder &b;
  Location loc;
  Value seed; ///< i64
  FloatType element;
  FloatType compute;

private:
  Value xorShift(Value z, unsigned shift) {
    return arith::XOrIOp::create(b, loc, z,
                                 arith::ShRUIOp::create(b, loc, z, i64(shift)));
  }
  Value mix(Value z, unsigned shift, uint64_t multiplier) {
    return arith::MulIOp::create(b, loc, xorShift(z, shift), i64(multiplier));
  }
};

/// Builds the generic filling `type` (its dynamic sizes `dynamicSizes`)
/// with `sample(generator, index)` for the seed in the 0-d tensor
/// `seedTensor`.
static Value buildRandom(OpBuilder &b, Location loc, RankedTensorType type,
                         Value seedTensor, ValueRange dynamicSizes,
                         function_ref<Value(CounterRandom &, Value)> sample) {
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType(), dynamicSizes);
  // Read once, outside the loop; a constant seed folds into the body.
  Value seed = tensor::ExtractOp::create(b, loc, seedTensor, ValueRange{});
  SmallVector<OpFoldResult> sizes =
      getMixedValues(type.getShape(), dynamicSizes, b);
  return buildParallelGeneric(
      b, loc, ValueRange{}, {}, init,
      [&](OpBuilder &nested, Location bodyLoc, ValueRange) {
        CounterRandom random(nested, bodyLoc, seed,
                             cast<FloatType>(type.getElementType()));
        return sample(random, random.linearIndex(sizes));
      });
}

struct RandomUniformLowering : OpConversionPattern<RandomUniformOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RandomUniformOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double low = op.getLowAttr().getValueAsDouble();
    double high = op.getHighAttr().getValueAsDouble();
    auto element = cast<FloatType>(op.getType().getElementType());
    Value result = buildRandom(
        rewriter, op.getLoc(), op.getType(), adaptor.getSeed(),
        adaptor.getSizes(), [&](CounterRandom &random, Value index) {
          OpBuilder &b = random.b;
          Location loc = random.loc;
          Value scaled = arith::MulFOp::create(b, loc, random.unit(index),
                                               random.real(high - low));
          Value value = random.toElement(
              arith::AddFOp::create(b, loc, scaled, random.real(low)));
          return clampBelow(b, loc, value, high, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Returns `value`, or the largest element below `high` if it rounded up
  /// to `high` or beyond.
  static Value clampBelow(OpBuilder &b, Location loc, Value value, double high,
                          FloatType element) {
    const llvm::fltSemantics &semantics = element.getFloatSemantics();
    bool losesInfo = false;
    APFloat bound(high);
    bound.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    APFloat largestBelow = bound;
    largestBelow.next(/*nextDown=*/true);
    Value boundValue =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(element, bound));
    Value fallback = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(element, largestBelow));
    Value tooLarge = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE,
                                           value, boundValue);
    return arith::SelectOp::create(b, loc, tooLarge, fallback, value);
  }
};

struct RandomNormalLowering : OpConversionPattern<RandomNormalOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RandomNormalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double mean = op.getMeanAttr().getValueAsDouble();
    double stddev = op.getStddevAttr().getValueAsDouble();
    Value result = buildRandom(
        rewriter, op.getLoc(), op.getType(), adaptor.getSeed(),
        adaptor.getSizes(), [&](CounterRandom &random, Value index) {
          OpBuilder &b = random.b;
          Location loc = random.loc;
          Value first = arith::MulIOp::create(b, loc, index, random.i64(2));
          Value second = arith::AddIOp::create(b, loc, first, random.i64(1));
          // u1 in (0, 1] keeps log finite.
          Value u1 = arith::SubFOp::create(b, loc, random.real(1.0),
                                           random.unit(first));
          Value u2 = random.unit(second);
          Value radius = math::SqrtOp::create(
              b, loc,
              arith::MulFOp::create(b, loc, random.real(-2.0),
                                    math::LogOp::create(b, loc, u1)));
          Value angle = arith::MulFOp::create(
              b, loc, random.real(2.0 * std::numbers::pi), u2);
          Value z = arith::MulFOp::create(b, loc, radius,
                                          math::CosOp::create(b, loc, angle));
          Value scaled = arith::AddFOp::create(
              b, loc, arith::MulFOp::create(b, loc, z, random.real(stddev)),
              random.real(mean));
          return random.toElement(scaled);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::lazy::populateRandomLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<RandomUniformLowering, RandomNormalLowering>(
      patterns.getContext());
}
