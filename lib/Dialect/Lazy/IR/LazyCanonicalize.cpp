//===- LazyCanonicalize.cpp - Canonicalization patterns of the lazy dialect -===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the `lazy` ops' canonicalization patterns: rewrites
// that need new ops (folders cannot create them).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {
/// One input of a concat and the range of the axis it covers.
struct Piece {
  Value value;
  int64_t begin, end;
};

/// The pieces of `concat`, in order along its axis.
static SmallVector<Piece> piecesOf(ConcatOp concat) {
  SmallVector<Piece> pieces;
  int64_t offset = 0, axis = static_cast<int64_t>(concat.getAxis());
  for (Value input : concat.getInputs()) {
    int64_t size = cast<RankedTensorType>(input.getType()).getDimSize(axis);
    pieces.push_back({input, offset, offset + size});
    offset += size;
  }
  return pieces;
}

/// add(concat(a0, a1, ...), concat(b0, b1, ...)) along the same axis ->
/// concat(add(a0', b0'), ...) over the ranges both cut the axis into, where
/// a piece split by the other side's cuts must be a splat constant (it
/// splits into smaller splats). This is how the tape's gradients of slices
/// (a value placed between zeros) add up: the gradient of the three slices
/// of an attention's packed q, k, v projection becomes one concat of the
/// three gradients, instead of three full-size concats with zeros and two
/// full-size adds. The adds stay (x + +0.0 is not x for x = -0.0) but are
/// piece-sized and fuse into the pieces' producers.
struct AddOfConcats : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    auto lhs = add.getLhs().getDefiningOp<ConcatOp>();
    auto rhs = add.getRhs().getDefiningOp<ConcatOp>();
    if (!lhs || !rhs || lhs.getAxis() != rhs.getAxis())
      return failure();
    auto type = cast<RankedTensorType>(add.getType());
    if (!type.hasStaticShape())
      return failure();
    int64_t axis = static_cast<int64_t>(lhs.getAxis());
    auto staticPieces = [](ConcatOp concat) {
      return llvm::all_of(concat.getInputs(), [](Value input) {
        return cast<RankedTensorType>(input.getType()).hasStaticShape();
      });
    };
    if (!staticPieces(lhs) || !staticPieces(rhs))
      return failure();
    SmallVector<Piece> left = piecesOf(lhs), right = piecesOf(rhs);
    // The cuts of both sides.
    SmallVector<int64_t> cuts;
    for (const Piece &piece : llvm::concat<Piece>(left, right))
      cuts.push_back(piece.end);
    llvm::sort(cuts);
    cuts.erase(llvm::unique(cuts), cuts.end());
    // Every piece that a cut of the other side splits must be a splat.
    auto splittable = [&](const Piece &piece) {
      bool split = llvm::any_of(cuts, [&](int64_t cut) {
        return cut > piece.begin && cut < piece.end;
      });
      DenseElementsAttr splat;
      return !split ||
             (matchPattern(piece.value, m_Constant(&splat)) && splat.isSplat());
    };
    if (!llvm::all_of(left, splittable) || !llvm::all_of(right, splittable))
      return failure();
    // The piece of `pieces` that covers [begin, end): itself, or a splat
    // cut to that range.
    Location loc = add.getLoc();
    auto covering = [&](ArrayRef<Piece> pieces, int64_t begin,
                        int64_t end) -> Value {
      const Piece &piece = *llvm::find_if(pieces, [&](const Piece &piece) {
        return piece.begin <= begin && end <= piece.end;
      });
      if (piece.begin == begin && piece.end == end)
        return piece.value;
      DenseElementsAttr splat;
      (void)matchPattern(piece.value, m_Constant(&splat));
      SmallVector<int64_t> shape(type.getShape());
      shape[axis] = end - begin;
      return ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(type.clone(shape),
                                 splat.getSplatValue<Attribute>()));
    };
    SmallVector<Value> sums;
    int64_t begin = 0;
    for (int64_t end : cuts) {
      sums.push_back(AddOp::create(rewriter, loc, covering(left, begin, end),
                                   covering(right, begin, end)));
      begin = end;
    }
    rewriter.replaceOpWithNewOp<ConcatOp>(add, sums,
                                          static_cast<uint64_t>(axis));
    return success();
  }
};
} // namespace

void AddOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                        MLIRContext *context) {
  patterns.add<AddOfConcats>(context);
}
