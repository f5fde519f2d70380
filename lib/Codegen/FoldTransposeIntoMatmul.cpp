//===- FoldTransposeIntoMatmul.cpp - Transposed matmul operands in place --===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-fold-transpose-into-matmul.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYFOLDTRANSPOSEINTOMATMULPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// The input of `value`'s producer if it is a plain 2-D transpose: a
/// linalg.generic copying one input through (d0, d1) -> (d1, d0).
static Value transposedSource(Value value) {
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() != 2 ||
      generic.getNumReductionLoops() != 0)
    return Value();
  MLIRContext *context = generic.getContext();
  AffineMap swap =
      AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, context);
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (maps[0] != swap || !maps[1].isIdentity())
    return Value();
  // The body only yields the input element.
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 ||
      yield.getOperand(0) != body.getArgument(0))
    return Value();
  return generic.getDpsInputOperand(0)->get();
}

namespace {
/// matmul(transpose(A), B) -> matmul with A read as (d2, d0); the same for
/// B, read as (d1, d2).
struct FoldTransposedOperands : OpRewritePattern<linalg::MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::MatmulOp matmul,
                                PatternRewriter &rewriter) const override {
    if (matmul.hasUserDefinedMaps() || !matmul.hasPureTensorSemantics())
      return failure();
    Value lhs = matmul.getDpsInputOperand(0)->get();
    Value rhs = matmul.getDpsInputOperand(1)->get();
    Value lhsSource = transposedSource(lhs), rhsSource = transposedSource(rhs);
    if (!lhsSource && !rhsSource)
      return failure();
    MLIRContext *context = rewriter.getContext();
    AffineExpr m, n, k;
    bindDims(context, m, n, k);
    auto map = [&](AffineExpr a, AffineExpr b) {
      return AffineMap::get(3, 0, {a, b}, context);
    };
    SmallVector<AffineMap> maps = {lhsSource ? map(k, m) : map(m, k),
                                   rhsSource ? map(n, k) : map(k, n),
                                   map(m, n)};
    rewriter.replaceOpWithNewOp<linalg::MatmulOp>(
        matmul, matmul.getResultTypes(),
        ValueRange{lhsSource ? lhsSource : lhs, rhsSource ? rhsSource : rhs},
        matmul.getDpsInits(),
        ArrayRef<NamedAttribute>{rewriter.getNamedAttr(
            "indexing_maps", rewriter.getAffineMapArrayAttr(maps))});
    return success();
  }
};

struct LazyFoldTransposeIntoMatmulPass
    : mlir::lazy::impl::LazyFoldTransposeIntoMatmulPassBase<
          LazyFoldTransposeIntoMatmulPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldTransposedOperands>(&getContext());
    // Transposes left without users disappear with the greedy driver's DCE.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
