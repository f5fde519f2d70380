//===- TileAndVectorize.cpp - Threads and vectors for linalg on tensors ---===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-cpu-tile-and-vectorize with MLIR's TilingInterface
// (tile-and-fuse into scf.forall for threads, scf.for tiles for vectors) and
// the linalg vectorizer.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/TilingInterface.h"

#include <thread>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYCPUTILEANDVECTORIZEPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// Iteration spaces smaller than this run on one thread: a parallel region
/// costs a few microseconds.
static constexpr int64_t kMinParallelWork = 1 << 15;

/// Contractions are left to the GEMM strategy.
static bool isContraction(linalg::LinalgOp op) {
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
         linalg::isaContractionOpInterface(op);
}

/// The number of iterations of `op`'s loop nest, or nullopt if dynamic.
static std::optional<int64_t> staticTripCount(linalg::LinalgOp op) {
  int64_t count = 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    count *= range;
  }
  return count;
}

/// Tiles `root` into an scf.forall with one chunk per thread along its first
/// parallel dimension that can use them, fusing its producers in.
static LogicalResult distributeOverThreads(RewriterBase &rewriter,
                                           linalg::LinalgOp root,
                                           int64_t threads) {
  std::optional<int64_t> trips = staticTripCount(root);
  if (threads <= 1 || (trips && *trips < kMinParallelWork))
    return failure();
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  std::optional<int64_t> splitDim;
  for (auto [d, iterator] : llvm::enumerate(iterators)) {
    if (iterator != utils::IteratorType::parallel)
      continue;
    if (ShapedType::isDynamic(ranges[d]) || ranges[d] >= threads) {
      splitDim = d;
      break;
    }
  }
  if (!splitDim)
    return failure();

  SmallVector<OpFoldResult> numThreads(iterators.size(),
                                       rewriter.getIndexAttr(0));
  numThreads[*splitDim] = rewriter.getIndexAttr(threads);
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  tiling.setNumThreads(numThreads);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);

  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root.getOperation()), options);
  if (failed(result))
    return failure();
  for (OpResult value : root->getResults())
    rewriter.replaceAllUsesWith(value, result->replacements.lookup(value));
  rewriter.eraseOp(root);
  return success();
}

/// Tiles `op` with scf.for so that each tile is one vector-width slice of
/// its innermost dimension (or a whole reduced row), and vectorizes the tile.
static void tileAndVectorize(RewriterBase &rewriter, linalg::LinalgOp op,
                             int64_t vectorWidth) {
  // Booleans are bytes in memory, but an i1 vector is stored as packed bits:
  // ops that read or write boolean tensors stay scalar.
  auto isBoolTensor = [](Type type) {
    return getElementTypeOrSelf(type).isInteger(1);
  };
  if (llvm::any_of(op->getOperandTypes(), isBoolTensor) ||
      llvm::any_of(op->getResultTypes(), isBoolTensor))
    return;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t loops = iterators.size();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // Nothing to vectorize without loops, or without iterations.
  if (loops == 0 || llvm::is_contained(ranges, 0))
    return;

  // Tile sizes: 1 on parallel dimensions, the vector width on an innermost
  // parallel one, 0 (whole) on reductions.
  SmallVector<int64_t> tileSizes(loops, 0);
  for (int64_t d = 0; d < loops; ++d)
    if (iterators[d] == utils::IteratorType::parallel)
      tileSizes[d] = 1;
  bool innermostParallel =
      iterators.back() == utils::IteratorType::parallel;
  if (innermostParallel)
    tileSizes.back() = vectorWidth;

  // A static dimension that fits in one tile is not tiled: its tile stays
  // static, so it needs no mask.
  for (int64_t d = 0; d < loops; ++d)
    if (!ShapedType::isDynamic(ranges[d]) && ranges[d] <= tileSizes[d])
      tileSizes[d] = 0;
  linalg::LinalgOp tiled = op;
  bool needsTiling = llvm::any_of(tileSizes, [](int64_t s) { return s != 0; });
  if (needsTiling) {
    scf::SCFTilingOptions options;
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : tileSizes)
      sizes.push_back(rewriter.getIndexAttr(size));
    options.setTileSizes(sizes);
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> result =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()),
                          options);
    if (failed(result))
      return;
    rewriter.replaceOp(op, result->replacements);
    tiled = cast<linalg::LinalgOp>(result->tiledOps.back());
  }

  // Vector sizes: static ranges as they are, dynamic tiles masked to their
  // tile size. A dynamic reduced dimension has no bound: stay scalar.
  SmallVector<int64_t> tiledRanges = tiled.getStaticLoopRanges();
  SmallVector<int64_t> vectorSizes;
  bool isDynamic = false;
  for (int64_t d = 0; d < loops; ++d) {
    if (!ShapedType::isDynamic(tiledRanges[d])) {
      vectorSizes.push_back(tiledRanges[d]);
      continue;
    }
    // Masked reductions are not reliable in the vectorizer: stay scalar.
    if (tileSizes[d] == 0 || op.getNumReductionLoops() > 0)
      return;
    isDynamic = true;
    vectorSizes.push_back(tileSizes[d]);
  }
  // Whole reduced rows become one vector: keep them to a sane size.
  int64_t elements = 1;
  for (int64_t size : vectorSizes)
    elements *= size;
  if (elements == 0 || elements > 16384)
    return;
  if (failed(linalg::vectorizeOpPrecondition(
          tiled, isDynamic ? ArrayRef<int64_t>(vectorSizes)
                           : ArrayRef<int64_t>())))
    return;
  rewriter.setInsertionPoint(tiled);
  // The scalable flags must be spelled out: an empty list makes mask types
  // that differ from the (non-scalable) vector types they mask.
  SmallVector<bool> scalable(isDynamic ? vectorSizes.size() : 0, false);
  FailureOr<linalg::VectorizationResult> vectorized = linalg::vectorize(
      rewriter, tiled,
      isDynamic ? ArrayRef<int64_t>(vectorSizes) : ArrayRef<int64_t>(),
      scalable);
  if (failed(vectorized))
    return;
  rewriter.replaceOp(tiled, vectorized->replacements);
}

namespace {
struct LazyCpuTileAndVectorizePass
    : mlir::lazy::impl::LazyCpuTileAndVectorizePassBase<
          LazyCpuTileAndVectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    int64_t threads = numThreads > 0
                          ? int64_t(numThreads)
                          : std::max(1u, std::thread::hardware_concurrency());
    IRRewriter rewriter(&getContext());

    // Threads: consumers first, so each root fuses the producers it reads.
    SmallVector<linalg::LinalgOp> ops;
    function.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics())
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : llvm::reverse(ops)) {
      if (op->use_empty()) {
        rewriter.eraseOp(op);
        continue;
      }
      bool feedsUntiledLinalg = llvm::any_of(op->getUsers(), [](Operation *u) {
        return isa<linalg::LinalgOp>(u) && !u->getParentOfType<scf::ForallOp>();
      });
      if (feedsUntiledLinalg || isContraction(op))
        continue;
      (void)distributeOverThreads(rewriter, op, threads);
    }

    // Vectors: every linalg op left, inside the thread loops or not.
    ops.clear();
    function.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && !isContraction(op))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops)
      tileAndVectorize(rewriter, op, vectorWidth);
  }
};
} // namespace
