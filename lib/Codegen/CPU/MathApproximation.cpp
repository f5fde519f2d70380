//===- MathApproximation.cpp - Polynomial math for vector code ------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-math-approximation, a thin pass over MLIR's
// polynomial approximation patterns (upstream exposes them only as a test
// pass), with the fixes that keep the polynomials exact at the edges:
// subnormal logarithms, the sign of erf(-0) and exp(NaN).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <limits>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYMATHAPPROXIMATIONPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// The polynomial logarithms assume normal inputs: log(1e-40) would come out
/// near log(FLT_MIN). Subnormal f32 inputs are scaled by 2^24 first and the
/// logarithm corrected by 24 ln 2 (or 24 for log2).
static void scaleSubnormalLogarithms(Operation *root) {
  SmallVector<Operation *> logs;
  root->walk([&](Operation *op) {
    if (isa<math::LogOp, math::Log2Op>(op) &&
        getElementTypeOrSelf(op->getResultTypes().front()).isF32())
      logs.push_back(op);
  });
  for (Operation *op : logs) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value x = op->getOperand(0);
    Type type = x.getType();
    auto splat = [&](float value) -> Value {
      auto attr = b.getF32FloatAttr(value);
      if (auto vector = dyn_cast<VectorType>(type))
        return arith::ConstantOp::create(b, loc,
                                         DenseElementsAttr::get(vector, attr));
      return arith::ConstantOp::create(b, loc, attr);
    };
    Value isSubnormal = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OLT, math::AbsFOp::create(b, loc, x),
        splat(std::numeric_limits<float>::min()));
    Value scaled = arith::SelectOp::create(
        b, loc, isSubnormal,
        arith::MulFOp::create(b, loc, x, splat(16777216.0f)), x);
    Operation *log = b.clone(*op);
    log->setOperand(0, scaled);
    float correction = isa<math::LogOp>(op) ? 24.0f * std::log(2.0f) : 24.0f;
    Value offset = arith::SelectOp::create(b, loc, isSubnormal,
                                           splat(correction), splat(0.0f));
    Value result = arith::SubFOp::create(b, loc, log->getResult(0), offset);
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
}

/// erf is odd, but the polynomial loses the sign of -0: the result takes the
/// sign of the argument.
static void keepErfSign(Operation *root) {
  SmallVector<math::ErfOp> erfs;
  root->walk([&](math::ErfOp op) {
    if (getElementTypeOrSelf(op.getType()).isF32())
      erfs.push_back(op);
  });
  for (math::ErfOp op : erfs) {
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    auto signed_ = math::CopySignOp::create(b, op.getLoc(), op.getResult(),
                                            op.getOperand());
    op.getResult().replaceAllUsesExcept(signed_, signed_);
  }
}

/// AVX-512's vscalefps on 16 lanes: a * 2^floor(b), rounded once (so
/// subnormal results are exact to the rounding), +-inf past the range, NaN
/// for a NaN operand.
static constexpr int64_t kScalefLanes = 16;
static constexpr llvm::StringLiteral kScalef =
    "llvm.x86.avx512.mask.scalef.ps.512";

/// The exps ExpScaledInHardware replaces: f32 scalars and 1-D vectors.
static bool isScaledInHardware(math::ExpOp op) {
  Type type = op.getType();
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getRank() == 1 && !vector.isScalable() &&
           vector.getElementType().isF32();
  return type.isF32();
}

/// The exp polynomials convert x * log2(e) to an integer with fptosi,
/// which is poison for NaN: when LLVM sees the NaN (folded from constants,
/// as -inf / -inf after an empty max), the whole result is poison and comes
/// out as garbage. A NaN input selects itself instead.
static void keepExpNaN(Operation *root, bool scaleInHardware) {
  SmallVector<Operation *> exps;
  root->walk([&](Operation *op) {
    auto exp = dyn_cast<math::ExpOp>(op);
    if (exp && scaleInHardware && isScaledInHardware(exp))
      return; // vscalefps keeps NaN, and nothing is converted to integers.
    if (isa<math::ExpOp, math::ExpM1Op>(op) &&
        getElementTypeOrSelf(op->getResultTypes().front()).isF32())
      exps.push_back(op);
  });
  for (Operation *op : exps) {
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    Location loc = op->getLoc();
    Value x = op->getOperand(0), result = op->getResult(0);
    Value isNaN =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    auto selected = arith::SelectOp::create(b, loc, isNaN, x, result);
    result.replaceAllUsesExcept(selected, selected);
  }
}

/// The math ops the polynomials replace: f32 scalars and vectors.
static bool isApproximated(Operation *op) {
  return isa<math::ExpOp, math::ExpM1Op, math::LogOp, math::Log1pOp,
             math::Log2Op, math::TanhOp, math::ErfOp>(op) &&
         getElementTypeOrSelf(op->getResultTypes().front()).isF32();
}

/// `tanh_v64f32` for math.tanh on vector<64xf32>.
static std::string sharedFunctionName(Operation *op) {
  std::string name = op->getName().stripDialect().str() + "_";
  llvm::raw_string_ostream os(name);
  Type type = op->getResultTypes().front();
  if (auto vector = dyn_cast<VectorType>(type)) {
    os << "v";
    llvm::interleave(vector.getShape(), os, "x");
    type = vector.getElementType();
  }
  os << type;
  return name;
}

/// Moves each math op that appears at least `threshold` times in `module`
/// with the same type and attributes into one function, called in its
/// place.
static void outlineRepeatedMath(ModuleOp module, unsigned threshold) {
  using Kind = std::tuple<OperationName, Type, DictionaryAttr>;
  llvm::MapVector<Kind, SmallVector<Operation *>> kinds;
  module.walk([&](Operation *op) {
    if (isApproximated(op))
      kinds[{op->getName(), op->getResultTypes().front(),
             op->getAttrDictionary()}]
          .push_back(op);
  });
  SymbolTable symbols(module);
  for (auto &[kind, ops] : kinds) {
    if (ops.size() < threshold)
      continue;
    Operation *first = ops.front();
    Type type = std::get<1>(kind);
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto function =
        func::FuncOp::create(b, first->getLoc(), sharedFunctionName(first),
                             b.getFunctionType(type, type));
    function.setPrivate();
    // LLVM's inliner would copy the polynomial back into every caller.
    function->setAttr("passthrough",
                      b.getArrayAttr(b.getStringAttr("noinline")));
    symbols.insert(function); // renamed if the name is taken
    Block *body = function.addEntryBlock();
    b.setInsertionPointToStart(body);
    IRMapping operands;
    operands.map(first->getOperand(0), body->getArgument(0));
    Operation *math = b.clone(*first, operands);
    func::ReturnOp::create(b, first->getLoc(), math->getResults());
    for (Operation *op : ops) {
      b.setInsertionPoint(op);
      auto call =
          func::CallOp::create(b, op->getLoc(), function, op->getOperands());
      op->replaceAllUsesWith(call);
      op->erase();
    }
  }
}

namespace {
/// exp(x) on f32, scaled by 2^n in hardware: n = round(x log2 e),
/// r = x - n ln 2 (Cody and Waite's two parts), e^r by a degree-6
/// polynomial, and vscalefps(e^r, n). Upstream's polynomial moves n into
/// the exponent bits as an integer, clamps it to the normal range (so
/// subnormal results flush to 0), and needs a select to keep NaN: softmax's
/// exp loop went from 112 instructions per 64 lanes to 72.
struct ExpScaledInHardware : OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    if (!isScaledInHardware(op))
      return rewriter.notifyMatchFailure(op, "not an f32 scalar or vector");
    // Scalars and other lengths are computed in whole zmm registers, so
    // that every f32 exp rounds the same way.
    Location loc = op.getLoc();
    auto originalVector = dyn_cast<VectorType>(op.getType());
    int64_t length = originalVector ? originalVector.getNumElements() : 1;
    auto type = VectorType::get({int64_t(llvm::alignTo(length, kScalefLanes))},
                                rewriter.getF32Type());
    auto splat = [&](float value) -> Value {
      return arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(type, rewriter.getF32FloatAttr(value)));
    };
    Value x = op.getOperand();
    if (!originalVector)
      x = vector::BroadcastOp::create(rewriter, loc, type, x);
    else if (originalVector != type)
      x = vector::InsertStridedSliceOp::create(rewriter, loc, x, splat(0.0f),
                                               ArrayRef<int64_t>{0},
                                               ArrayRef<int64_t>{1});
    auto clamp = [&](arith::CmpFPredicate predicate, float bound) {
      Value limit = splat(bound);
      Value beyond = arith::CmpFOp::create(rewriter, loc, predicate, limit, x);
      x = arith::SelectOp::create(rewriter, loc, beyond, limit, x);
    };
    clamp(arith::CmpFPredicate::OLT, 89.0f);
    clamp(arith::CmpFPredicate::OGT, -104.0f);
    Value n = math::RoundEvenOp::create(
        rewriter, loc,
        arith::MulFOp::create(rewriter, loc, x, splat(1.44269504088896341f)));
    Value r = math::FmaOp::create(rewriter, loc, n, splat(-0.693359375f), x);
    r = math::FmaOp::create(rewriter, loc, n, splat(2.12194440e-4f), r);
    // Fitted to e^r on [-ln2/2, ln2/2]: relative error 2e-9 in exact
    // arithmetic, 0.84 ulp evaluated in f32 (Horner, ending in 1 + r p).
    static constexpr float kCoefficients[] = {1.38436537e-3f,
                                              8.37415550e-3f,
                                              4.16680016e-2f,
                                              1.66664317e-1f,
                                              4.99999940e-1f,
                                              1.0f,
                                              1.0f};
    Value p = splat(kCoefficients[0]);
    for (float coefficient : llvm::drop_begin(kCoefficients))
      p = math::FmaOp::create(rewriter, loc, p, r, splat(coefficient));
    // One vscalefps per 16 lanes, all of them (mask -1), in the current
    // rounding mode (4).
    auto lanes = VectorType::get({kScalefLanes}, rewriter.getF32Type());
    Value allLanes = arith::ConstantOp::create(
        rewriter, loc, rewriter.getIntegerAttr(rewriter.getI16Type(), -1));
    Value currentRounding =
        arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(4));
    Value result = splat(0.0f);
    for (int64_t offset = 0; offset < type.getNumElements();
         offset += kScalefLanes) {
      auto part = [&](Value whole) -> Value {
        return vector::ExtractStridedSliceOp::create(
            rewriter, loc, whole, ArrayRef<int64_t>{offset},
            ArrayRef<int64_t>{kScalefLanes}, ArrayRef<int64_t>{1});
      };
      Value pPart = part(p);
      Value scaled =
          LLVM::CallIntrinsicOp::create(
              rewriter, loc, lanes, rewriter.getStringAttr(kScalef),
              ValueRange{pPart, part(n), pPart, allLanes, currentRounding})
              .getResult(0);
      result = vector::InsertStridedSliceOp::create(
          rewriter, loc, scaled, result, ArrayRef<int64_t>{offset},
          ArrayRef<int64_t>{1});
    }
    if (!originalVector)
      result = vector::ExtractOp::create(rewriter, loc, result,
                                         ArrayRef<int64_t>{0});
    else if (originalVector != type)
      result = vector::ExtractStridedSliceOp::create(
          rewriter, loc, result, ArrayRef<int64_t>{0},
          ArrayRef<int64_t>{length}, ArrayRef<int64_t>{1});
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LazyMathApproximationPass
    : mlir::lazy::impl::LazyMathApproximationPassBase<
          LazyMathApproximationPass> {
  using Base::Base;

  void runOnOperation() override {
    // Not approximated: rsqrt (upstream's version needs AVX2 vectors of
    // exactly 8 lanes and crashes otherwise; 1 / sqrt vectorizes anyway),
    // sin/cos (their f32 range reduction loses ~5.5e-8 * |x|: libm stays),
    // and asin/acos/atan (upstream's f32 atan is off by up to 41 ulps, 2.4e-6
    // near 0.66, and asin by 7.5 ulps near +-1; libm's stay within 1 ulp).
    if (auto module = dyn_cast<ModuleOp>(getOperation()); module && outlineFrom)
      outlineRepeatedMath(module, outlineFrom);
    scaleSubnormalLogarithms(getOperation());
    keepErfSign(getOperation());
    keepExpNaN(getOperation(), scaleInHardware);
    RewritePatternSet patterns(&getContext());
    // Ahead of upstream's exp, which expm1's polynomial also calls.
    if (scaleInHardware)
      patterns.add<ExpScaledInHardware>(&getContext(), /*benefit=*/2);
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return llvm::StringSwitch<bool>(name)
          .Cases({"math.exp", "math.expm1", "math.log", "math.log1p",
                  "math.log2", "math.tanh", "math.erf"},
                 true)
          .Default(false);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
