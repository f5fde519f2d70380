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

#include "MatmulMaps.h"

#include "lazyc/Codegen/Passes.h"
#include "lazyc/Codegen/TransposeSquares.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <type_traits>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYFOLDTRANSPOSEINTOMATMULPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// The input of `value`'s producer if it is a plain transpose of the last
/// two dimensions: a linalg.generic copying one input through
/// (..., d[r-2], d[r-1]) -> (..., d[r-1], d[r-2]).
static Value transposedSource(Value value) {
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() < 2 ||
      generic.getNumReductionLoops() != 0)
    return Value();
  unsigned rank = generic.getNumLoops();
  SmallVector<unsigned> swapped = llvm::to_vector(llvm::seq(0u, rank));
  std::swap(swapped[rank - 2], swapped[rank - 1]);
  AffineMap swap = AffineMap::getPermutationMap(swapped, generic.getContext());
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

/// For a batched matrix `value` ([batch, rows, columns]) that is a transpose
/// of its last two dimensions, possibly of a tensor with several batch
/// dimensions collapsed into one afterwards (a [batch, heads, tokens, d]
/// attention operand): the untransposed matrices, collapsed the same way.
static Value batchTransposedSource(Value value, PatternRewriter &rewriter) {
  if (Value source = transposedSource(value))
    return cast<RankedTensorType>(source.getType()).getRank() == 3 ? source
                                                                   : Value();
  auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse)
    return Value();
  Value source = transposedSource(collapse.getSrc());
  SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
  // Only the batch dimensions are merged; the matrix dimensions stay.
  if (!source || groups.size() != 3 || groups[1].size() != 1 ||
      groups[2].size() != 1)
    return Value();
  rewriter.setInsertionPoint(collapse);
  return tensor::CollapseShapeOp::create(rewriter, collapse.getLoc(), source,
                                         groups);
}

/// Whether the transpose `rhs` of a 2-D product's right operand moves
/// through registers (transposesInSquares) and the product has at least
/// kTransposeSquare rows: the copy then costs little next to the product,
/// which the runtime's few-row kernel reads in place (an LSTM's input
/// projection, [512, 64] x [64, 512]: 1.17x OpenBLAS's transposed product).
static bool copiedInSquares(linalg::LinalgOp matmul, Value rhs) {
  auto type = cast<RankedTensorType>(rhs.getType());
  int64_t rows = cast<ShapedType>(matmul->getResult(0).getType()).getShape()[0];
  return transposedSource(rhs) &&
         lazy::transposesInSquares(type.getElementType(), type.getShape()) &&
         !ShapedType::isDynamic(rows) && rows >= lazy::kTransposeSquare;
}

namespace {
/// matmul(transpose(A), B) -> matmul with A read as (k, m); the same for B,
/// read as (n, k). A batch_matmul's maps lead with the batch dimension
/// (b, k, m), and BLAS takes the flags per matrix.
template <typename MatmulOpTy>
struct FoldTransposedOperands : OpRewritePattern<MatmulOpTy> {
  FoldTransposedOperands(MLIRContext *context, bool copySharedRightTransposes)
      : OpRewritePattern<MatmulOpTy>(context),
        copySharedRightTransposes(copySharedRightTransposes) {}
  static constexpr bool batched =
      std::is_same_v<MatmulOpTy, linalg::BatchMatmulOp>;
  bool copySharedRightTransposes;

  LogicalResult matchAndRewrite(MatmulOpTy matmul,
                                PatternRewriter &rewriter) const override {
    if (matmul.hasUserDefinedMaps() || !matmul.hasPureTensorSemantics())
      return failure();
    auto sourceOf = [&](Value operand) {
      return batched ? batchTransposedSource(operand, rewriter)
                     : transposedSource(operand);
    };
    Value lhs = matmul.getDpsInputOperand(0)->get();
    Value rhs = matmul.getDpsInputOperand(1)->get();
    Value lhsSource = sourceOf(lhs);
    // A transpose several products read, or one product in a loop, is
    // copied once instead; so is one that moves through registers in
    // squares, under a product of enough rows to make the copy cheap.
    auto loop = matmul->template getParentOfType<LoopLikeOpInterface>();
    bool copy =
        !batched && copySharedRightTransposes &&
        (!rhs.hasOneUse() || (loop && loop.isDefinedOutsideOfLoop(rhs)) ||
         copiedInSquares(matmul, rhs));
    Value rhsSource = copy ? Value() : sourceOf(rhs);
    if (!lhsSource && !rhsSource)
      return failure();
    SmallVector<AffineMap, 3> maps = lazy::matmulMaps(
        rewriter.getContext(), batched, bool(lhsSource), bool(rhsSource));
    rewriter.setInsertionPoint(matmul);
    rewriter.replaceOpWithNewOp<MatmulOpTy>(
        matmul, matmul->getResultTypes(),
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
  using LazyFoldTransposeIntoMatmulPassBase::
      LazyFoldTransposeIntoMatmulPassBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldTransposedOperands<linalg::MatmulOp>,
                 FoldTransposedOperands<linalg::BatchMatmulOp>>(
        &getContext(), copySharedRightTransposes);
    // Transposes left without users disappear with the greedy driver's DCE.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
