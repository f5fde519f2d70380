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

#include "lazyc/Codegen/CPU/Passes.h"
#include "lazyc/Codegen/TransposeSquares.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

#include <limits>
#include <thread>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYCPUTILEANDVECTORIZEPASS
#include "lazyc/Codegen/CPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// Iteration spaces smaller than this run on one thread: a parallel region
/// costs a few microseconds.
static constexpr int64_t kMinParallelWork = 1 << 15;

/// The tiles of (batched) matmuls go to BLAS (lazy-cpu-gemm-to-blas), not to
/// the vectorizer. Other contractions, such as a row's sum of products in a
/// softmax gradient, are vectorized like any reduction.
static bool goesToBlas(linalg::LinalgOp op) {
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
}

/// The tiles of convolutions go to lazy-cpu-direct-convolution's register
/// kernels, which the vectorizer's generic tiles are far slower than.
static bool goesToConvolutionKernel(linalg::LinalgOp op) {
  return isa<linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNchwFchwOp>(op);
}

/// Whether `op` is a convolution for the register kernels with one output
/// channel: its kernel would fill vectors of one lane.
static bool isSingleFilterConvolution(linalg::LinalgOp op) {
  if (!goesToConvolutionKernel(op))
    return false;
  FailureOr<linalg::ConvolutionDimensions> dims =
      linalg::inferConvolutionDims(op);
  if (failed(dims) || dims->outputChannel.empty())
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  return llvm::all_of(dims->outputChannel,
                      [&](unsigned d) { return ranges[d] == 1; });
}

/// Contractions and convolutions are split over threads like any root.
static bool isContraction(linalg::LinalgOp op) {
  return goesToBlas(op) || goesToConvolutionKernel(op) ||
         linalg::isaContractionOpInterface(op);
}

/// The number of iterations of `op`'s loop nest (saturated at INT64_MAX), or
/// nullopt if it depends on a dynamic range. A static range of 0 makes it 0
/// whatever the dynamic ones are.
static std::optional<int64_t> staticTripCount(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::is_contained(ranges, 0))
    return 0;
  int64_t count = 1;
  for (int64_t range : ranges) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    if (__builtin_mul_overflow(count, range, &count))
      count = std::numeric_limits<int64_t>::max();
  }
  return count;
}

/// `threads` if `root` iterates at least kMinParallelWork times, else 1.
static Value chunkCount(RewriterBase &rewriter, linalg::LinalgOp root,
                        int64_t threads) {
  Location loc = root.getLoc();
  Value work = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (Range range : root.createLoopRanges(rewriter, loc))
    work = arith::MulIOp::create(
        rewriter, loc, work,
        getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  Value enough = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::sge, work,
      arith::ConstantIndexOp::create(rewriter, loc, kMinParallelWork));
  return arith::SelectOp::create(
      rewriter, loc, enough,
      arith::ConstantIndexOp::create(rewriter, loc, threads),
      arith::ConstantIndexOp::create(rewriter, loc, 1));
}

/// Whether every tile would compute all of `producer` if it were fused through
/// `slice`: each tile reads its whole result (a layer norm's row statistics
/// in the tile of one column of its weight's gradient). It is computed once
/// instead, as a root of its own. (A fill costs nothing to repeat and
/// initializes the tile's reductions.)
static bool readsWholeResultPerTile(tensor::ExtractSliceOp slice,
                                    OpResult producer) {
  if (isa<linalg::FillOp>(producer.getOwner()))
    return false;
  auto type = dyn_cast<RankedTensorType>(producer.getType());
  if (!type)
    return false;
  if (type.hasStaticShape())
    return llvm::equal(slice.getStaticSizes(), type.getShape());
  // Dynamic sizes: the slice starts at 0 and its sizes are the same in
  // every tile (computed outside the loop), as an untiled dimension's are.
  // Fused, a column softmax's sums over a dynamic number of rows were
  // computed again for every row: quadratic (lazyc-fuzz seed 1250).
  Operation *loop = slice->getParentOp();
  return llvm::all_of(slice.getStaticOffsets(),
                      [](int64_t offset) { return offset == 0; }) &&
         llvm::all_of(slice.getSizes(),
                      [&](Value size) {
                        return !loop->isAncestor(
                            size.getParentBlock()->getParentOp());
                      }) &&
         llvm::all_of(llvm::zip(slice.getStaticSizes(), type.getShape()),
                      [](auto sizes) {
                        auto [size, dim] = sizes;
                        return ShapedType::isDynamic(size) ||
                               ShapedType::isDynamic(dim) || size == dim;
                      });
}

/// Whether no input of the elementwise `producer` is itself computed
/// elementwise: every tile that fuses it then recomputes one op from values
/// that are stored anyway (arguments, GEMMs, reductions). Fusing chains of
/// elementwise ops with several readers into each reader recomputes the
/// whole chain in each: a transformer's residual stream x0 + a1 + a2 + ...
/// was summed again in every layer, quadratic in the depth in run time and
/// in code (a 4-layer step compiled 3x longer than with it computed once).
static bool recomputesFromStoredValues(linalg::LinalgOp producer) {
  return llvm::none_of(producer.getDpsInputs(), [](Value input) {
    auto linalgInput = input.getDefiningOp<linalg::LinalgOp>();
    return linalgInput && !isa<linalg::FillOp>(linalgInput.getOperation()) &&
           !isContraction(linalgInput) &&
           linalgInput.getNumReductionLoops() == 0;
  });
}

/// The ops whose values reach `root` without passing through a contraction
/// (which is a root of its own, or fused into its only consumer): what
/// tile-and-fuse may pull into root's tiles. Nearest first, and only the
/// nearest 4,096: from every root of a long chain of elementwise ops the
/// walk would cover the whole trace (quadratic), and a tile fuses far fewer
/// (kMaxFusedPerTile). An op left out only keeps a producer it reads from
/// being fused.
static llvm::SmallPtrSet<Operation *, 16> fusionGroup(Operation *root) {
  constexpr size_t kMaxFusionGroup = 4096;
  llvm::SmallPtrSet<Operation *, 16> group;
  SmallVector<Operation *> work = {root};
  for (size_t next = 0; next < work.size() && group.size() < kMaxFusionGroup;
       ++next) {
    Operation *op = work[next];
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || producer->getBlock() != root->getBlock() ||
          !group.insert(producer).second)
        continue;
      auto linalgProducer = dyn_cast<linalg::LinalgOp>(producer);
      if (!linalgProducer || !isContraction(linalgProducer))
        work.push_back(producer);
    }
  }
  return group;
}

/// Whether `user` reads a value only for the ops `isFor` accepts: it is one,
/// or a slice that only they read (an LSTM's gates read their product
/// through four column slices).
static bool readsOnlyFor(Operation *user,
                         llvm::function_ref<bool(Operation *)> isFor) {
  return isFor(user) || (isa<tensor::ExtractSliceOp>(user) &&
                         llvm::all_of(user->getUsers(), isFor));
}

/// The iterations of `root` and of the contractions only it reads (through
/// slices or not), which its tiles will compute: a GEMM's small epilogue
/// (an LSTM step's gates) is worth the threads with the GEMM fused in, one
/// parallel region instead of the GEMM's and a serial epilogue.
static std::optional<int64_t>
workWithFusedContractions(linalg::LinalgOp root, bool &fusesContraction) {
  fusesContraction = false;
  std::optional<int64_t> work = staticTripCount(root);
  auto isRoot = [&](Operation *op) { return op == root.getOperation(); };
  llvm::SmallPtrSet<Operation *, 4> counted;
  for (Value input : root.getDpsInputs()) {
    if (auto slice = input.getDefiningOp<tensor::ExtractSliceOp>())
      input = slice.getSource();
    auto producer = input.getDefiningOp<linalg::LinalgOp>();
    if (!work || !producer || !isContraction(producer) ||
        !llvm::all_of(
            producer->getUsers(),
            [&](Operation *user) { return readsOnlyFor(user, isRoot); }) ||
        !counted.insert(producer).second)
      continue;
    fusesContraction = true;
    std::optional<int64_t> more = staticTripCount(producer);
    if (!more || __builtin_add_overflow(*work, *more, &*work))
      return std::nullopt;
  }
  return work;
}

/// Tiles `root` into an scf.forall with one chunk per thread along its first
/// parallel dimension that can use them, fusing its producers in.
/// `mergeSlices` makes a slice of a slice one slice, so the root's tiles of
/// a product's column slices (an LSTM's gates) reach the product.
static LogicalResult
distributeOverThreads(RewriterBase &rewriter, linalg::LinalgOp root,
                      int64_t threads, int64_t vectorWidth,
                      const FrozenRewritePatternSet &mergeSlices) {
  bool fusesContraction;
  std::optional<int64_t> trips =
      workWithFusedContractions(root, fusesContraction);
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
  // A product BLAS runs, or a 2-D epilogue that fuses one: split the
  // columns when they outnumber the rows. Each thread's call packs its part
  // of both operands, so splitting the rows of a [16, 128] x [128, 512]
  // product packs the whole weight twice (an LSTM step spent more time
  // packing than multiplying).
  bool columnsSplit = false;
  bool product = isa<linalg::MatmulOp>(root.getOperation()) ||
                 (fusesContraction && ranges.size() == 2 &&
                  iterators[1] == utils::IteratorType::parallel);
  if (product && *splitDim == 0 && !ShapedType::isDynamic(ranges[0]) &&
      !ShapedType::isDynamic(ranges[1]) && ranges[1] > ranges[0] &&
      ranges[1] >= threads * vectorWidth) {
    splitDim = 1;
    columnsSplit = true;
  }

  scf::SCFTilingOptions tiling;
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  rewriter.setInsertionPoint(root);
  if (ShapedType::isDynamic(ranges[*splitDim])) {
    // Known only at run time: one chunk when the work is small, which
    // lazy-serial-single-chunk-parallel then runs on the calling thread.
    SmallVector<OpFoldResult> numThreads(iterators.size(),
                                         rewriter.getIndexAttr(0));
    numThreads[*splitDim] = chunkCount(rewriter, root, threads);
    tiling.setNumThreads(numThreads);
  } else {
    // Static chunks; along the vectorized (innermost) dimension a multiple
    // of the vector width, so no chunk ends in a partial, masked vector.
    int64_t chunk = llvm::divideCeil(ranges[*splitDim], threads);
    if (*splitDim == static_cast<int64_t>(iterators.size()) - 1 || columnsSplit)
      chunk = llvm::alignTo(chunk, vectorWidth);
    SmallVector<OpFoldResult> sizes(iterators.size(), rewriter.getIndexAttr(0));
    sizes[*splitDim] = rewriter.getIndexAttr(chunk);
    tiling.setTileSizes(sizes);
  }
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  // A contraction (a GEMM) is fused into the tile of its only consumer (an
  // epilogue), never into one of several: each would compute its own copy
  // (a training step's pre-activations feed the ReLU, its mask and the
  // weight gradient's transpose). Left alone, it becomes a root of its own
  // and is computed once, split over the threads. Another reduction is
  // fused only if every consumer is in this root's group (softmax's maximum
  // feeds its sum and its quotient): a CNN's max-pool feeds the next
  // convolution and both its gradients, which each recomputed it (a fifth
  // of the step). An elementwise producer is fused into every tile that
  // reads it if it recomputes from stored values; otherwise, like a
  // reduction, only if every reader is in this root's group.
  //
  // Each producer is fused into a tile at most kMaxCopiesPerTile times (once
  // per slice of it that a reader in the tile takes; identical copies are
  // merged by CSE only afterwards). In a graph of diamonds (values each read
  // by several others in the tile) the copies double at every level: a
  // chain of 16 nested row sums took 98 s, a random 2,000-op trace hours.
  // Past the bound the producer is computed once, as a root.
  //
  // And a tile fuses at most kMaxFusedPerTile ops in all: in a long trace
  // of elementwise ops with few GEMMs or reductions between them, a root
  // would otherwise pull in a chain of a thousand producers (a random
  // 13,551-op trace had a nest of 1,348), and the analyses after tiling
  // (one-shot bufferization's above all) are quadratic in a nest's size.
  // The models' largest tiles fuse 47 ops.
  constexpr int kMaxCopiesPerTile = 8;
  constexpr int kMaxFusedPerTile = 64;
  Operation *rootOp = root.getOperation();
  std::optional<llvm::SmallPtrSet<Operation *, 16>> group;
  llvm::SmallDenseMap<Operation *, int, 16> copies;
  int fused = 0;
  bool rootIsContraction = isContraction(root);
  auto rootLoop = rootOp->getParentOfType<LoopLikeOpInterface>();
  options.setFusionControlFn(
      [rootOp, rootIsContraction, rootLoop, &group, &copies,
       &fused](tensor::ExtractSliceOp slice, OpResult producer, bool) mutable
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (fused >= kMaxFusedPerTile)
          return std::nullopt;
        auto fuse = [&] {
          ++fused;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        };
        auto linalgProducer = dyn_cast<linalg::LinalgOp>(producer.getOwner());
        // A producer looping over an empty static dimension (a sum over no
        // elements) does no work worth fusing, and slicing it would divide
        // by its zero size.
        if (linalgProducer &&
            llvm::is_contained(linalgProducer.getStaticLoopRanges(), 0))
          return std::nullopt;
        if (readsWholeResultPerTile(slice, producer))
          return std::nullopt;
        if (!linalgProducer || isa<linalg::FillOp>(producer.getOwner()))
          return fuse();
        // Computed outside the loop the root runs in (a recurrent step's
        // weight, copied once): fused, it would run once per iteration.
        if (rootLoop && rootLoop.isDefinedOutsideOfLoop(producer))
          return std::nullopt;
        if (++copies[producer.getOwner()] > kMaxCopiesPerTile)
          return std::nullopt;
        bool contraction = isContraction(linalgProducer);
        // Users inside the new loop are this fusion's own slices, and the
        // root's slices of the producer (an LSTM's gates of one product)
        // are read through them.
        Operation *loop = slice->getParentOp();
        auto forThisTile = [&](Operation *user) {
          return user == rootOp || loop->isAncestor(user);
        };
        auto otherUsers =
            llvm::make_filter_range(producer.getUsers(), [&](Operation *user) {
              return !readsOnlyFor(user, forThisTile);
            });
        // A GEMM's operand that others read too is computed once: an LSTM's
        // transposed weight was copied again in each step's product.
        if (rootIsContraction && !otherUsers.empty())
          return std::nullopt;
        if (!contraction && linalgProducer.getNumReductionLoops() == 0 &&
            recomputesFromStoredValues(linalgProducer))
          return fuse();
        if (!contraction && !group)
          group = fusionGroup(rootOp);
        for (Operation *user : otherUsers)
          if (contraction || !group->contains(user))
            return std::nullopt;
        return fuse();
      });

  options.cleanupPatterns = mergeSlices;
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root.getOperation()), options);
  if (failed(result))
    return failure();
  for (OpResult value : root->getResults())
    rewriter.replaceAllUsesWith(value, result->replacements.lookup(value));
  rewriter.eraseOp(root);

  // Reductions fused in (softmax, layer norm): go on row by row inside each
  // thread's chunk, so a row's reductions and its consumers run while the row
  // is in cache instead of streaming the chunk through memory once per op.
  auto tiledRoot = dyn_cast<linalg::LinalgOp>(result->tiledAndFusedOps.front());
  bool fusedReduction = false, fusedContraction = false;
  for (Operation *op : result->tiledAndFusedOps) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      continue;
    fusedContraction |= goesToBlas(linalgOp);
    fusedReduction |= linalgOp.getNumReductionLoops() > 0;
  }
  // A GEMM keeps its row block whole: BLAS wants blocks, not rows.
  if (!tiledRoot || !fusedReduction || fusedContraction)
    return success();
  // So does a convolution of one image (its chunk holds some of its
  // filters or rows): image by image is its only good row; slicing further
  // would leave its register tiles one filter or one row.
  for (Operation *op : result->tiledAndFusedOps)
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        linalgOp && goesToConvolutionKernel(linalgOp) &&
        cast<ShapedType>(linalgOp->getResult(0).getType()).getDimSize(0) == 1)
      return success();
  SmallVector<OpFoldResult> rowTiles(iterators.size(),
                                     rewriter.getIndexAttr(0));
  bool splitsColumns = *splitDim == static_cast<int64_t>(iterators.size()) - 1;
  // A column sum (reductions above an innermost parallel dimension) with
  // producers fused in (a bias gradient of a GELU's gradient) goes on row
  // by row: each row's producers are computed and added to the columns'
  // sums while in cache, not stored for the whole chunk (or block of rows)
  // first.
  bool reducesColumns =
      iterators.back() == utils::IteratorType::parallel &&
      llvm::is_contained(iterators, utils::IteratorType::reduction);
  bool hasProducers =
      llvm::any_of(result->tiledAndFusedOps, [&](Operation *op) {
        return op != tiledRoot.getOperation() && !isa<linalg::FillOp>(op);
      });
  bool rowByRow = reducesColumns && hasProducers;
  // A chunk of the innermost dimension (a column sum's columns) stays
  // whole otherwise: one column at a time would not vectorize.
  if (splitsColumns && !rowByRow)
    return success();
  if (!splitsColumns)
    rowTiles[*splitDim] = rewriter.getIndexAttr(1);
  if (rowByRow)
    for (auto [d, iterator] : llvm::enumerate(iterators))
      if (iterator == utils::IteratorType::reduction)
        rowTiles[d] = rewriter.getIndexAttr(1);
  scf::SCFTilingOptions rowTiling;
  rowTiling.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  rowTiling.setTileSizes(rowTiles);
  scf::SCFTileAndFuseOptions rowOptions;
  rowOptions.setTilingOptions(rowTiling);
  // Row by row over a column sum's reduced dimensions, the sums' zero fill
  // initializes the loop once: fused into it, it would reset them per row.
  rowOptions.setFusionControlFn(
      [rowByRow](tensor::ExtractSliceOp slice, OpResult producer, bool)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (readsWholeResultPerTile(slice, producer))
          return std::nullopt;
        if (rowByRow && isa<linalg::FillOp>(producer.getOwner()))
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  rewriter.setInsertionPoint(tiledRoot);
  FailureOr<scf::SCFTileAndFuseResult> rows =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(tiledRoot.getOperation()),
          rowOptions);
  if (failed(rows))
    return success();
  // A convolution the rows slice down to one filter (a filter gradient
  // whose chunk holds some filters, read by an optimizer's update row by
  // row) keeps the chunk whole: its register kernel would run one lane wide.
  bool slicesFilters = llvm::any_of(rows->tiledAndFusedOps, [](Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    return linalgOp && isSingleFilterConvolution(linalgOp);
  });
  bool hadFilters = llvm::any_of(result->tiledAndFusedOps, [](Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    return linalgOp && goesToConvolutionKernel(linalgOp) &&
           !isSingleFilterConvolution(linalgOp);
  });
  if (slicesFilters && hadFilters) {
    rewriter.eraseOp(rows->loops.front());
    return success();
  }
  for (OpResult value : tiledRoot->getResults())
    rewriter.replaceAllUsesWith(value, rows->replacements.lookup(value));
  rewriter.eraseOp(tiledRoot);
  return success();
}

/// Vectorizes `op` at its static shape, or masked to `vectorSizes` if its
/// shape is dynamic. Leaves it alone if the vectorizer declines.
static void vectorizeTile(RewriterBase &rewriter, linalg::LinalgOp op,
                          ArrayRef<int64_t> vectorSizes = {}) {
  // The scalable flags must be spelled out: an empty list makes mask types
  // that differ from the (non-scalable) vector types they mask.
  SmallVector<bool> scalable(vectorSizes.size(), false);
  // (Element reads at computed indices of n-D tensors stay scalar: the
  // vectorizer linearizes them for a row-major layout, which the tensor
  // may not have once bufferized into a strided view.)
  if (failed(linalg::vectorizeOpPrecondition(op, vectorSizes, scalable)))
    return;
  // The vectorizer builds an invalid vector.multi_reduction for an
  // elementwise op with a unit loop that reads its element index and its
  // output's old value (a random tensor divided by a value it is computed
  // over in place: lazyc-fuzz seed 81263): such an op stays scalar.
  bool readsIndex = !op.getBlock()->getOps<linalg::IndexOp>().empty();
  bool readsOutput = llvm::any_of(op.getRegionOutputArgs(),
                                  [](Value old) { return !old.use_empty(); });
  if (readsIndex && readsOutput && op.getNumReductionLoops() == 0 &&
      llvm::is_contained(op.getStaticLoopRanges(), 1))
    return;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, op, vectorSizes, scalable);
  if (succeeded(vectorized))
    rewriter.replaceOp(op, vectorized->replacements);
}

/// Tiles `op` with scf.for using `tileSizes` (0: not tiled) and returns the
/// tiled op, or null if tiling failed.
static linalg::LinalgOp tileWithFor(RewriterBase &rewriter, linalg::LinalgOp op,
                                    ArrayRef<int64_t> tileSizes) {
  scf::SCFTilingOptions options;
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : tileSizes)
    sizes.push_back(rewriter.getIndexAttr(size));
  options.setTileSizes(sizes);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(result))
    return nullptr;
  rewriter.replaceOp(op, result->replacements);
  return cast<linalg::LinalgOp>(result->tiledOps.back());
}

/// Partial reduction tiling starts the partials of a maxnumf (minnumf) at
/// its identity, NaN. One marked `nnan` becomes a compare and a select
/// (lazy-nan-free-min-max), which would keep a NaN on its right: its
/// partials start at -inf (+inf) instead, as much an identity for every
/// other value.
static void startNanFreePartialsAtInfinity(RewriterBase &rewriter,
                                           linalg::LinalgOp partial,
                                           ArrayRef<Value> initialValues) {
  for (auto [index, init] : llvm::enumerate(initialValues)) {
    auto fill = init.getDefiningOp<linalg::FillOp>();
    SmallVector<Operation *> combiners;
    if (!fill ||
        !matchReduction(partial.getRegionOutputArgs(), index, combiners) ||
        combiners.size() != 1 ||
        !isa<arith::MaxNumFOp, arith::MinNumFOp>(combiners.front()))
      continue;
    auto fastMath = cast<arith::ArithFastMathInterface>(combiners.front());
    if (!arith::bitEnumContainsAll(fastMath.getFastMathFlagsAttr().getValue(),
                                   arith::FastMathFlags::nnan))
      continue;
    auto type = cast<FloatType>(fill.value().getType());
    bool isMax = isa<arith::MaxNumFOp>(combiners.front());
    rewriter.setInsertionPoint(fill);
    Value infinity = arith::ConstantOp::create(
        rewriter, fill.getLoc(),
        rewriter.getFloatAttr(
            type, APFloat::getInf(type.getFloatSemantics(), isMax)));
    rewriter.modifyOpInPlace(fill,
                             [&] { fill.getInputsMutable()[0].set(infinity); });
  }
}

/// A reduction over an innermost dimension of a multiple of `vectorWidth`:
/// one row at a time, accumulated in `vectorWidth` partial results (plain
/// vertical vector ops), which are combined once at the end of the row.
/// Returns false if the op does not have that form.
static bool tileReductionByPartials(RewriterBase &rewriter, linalg::LinalgOp op,
                                    int64_t vectorWidth) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t loops = iterators.size();
  int64_t inner = loops - 1;
  if (iterators[inner] != utils::IteratorType::reduction ||
      ShapedType::isDynamic(ranges[inner]) || ranges[inner] <= vectorWidth ||
      ranges[inner] % vectorWidth != 0 ||
      llvm::any_of(ArrayRef(ranges).drop_back(), ShapedType::isDynamic))
    return false;

  // One row: every outer dimension (parallel or reduced) in steps of 1.
  SmallVector<int64_t> rowTiles(loops, 1);
  rowTiles[inner] = 0;
  linalg::LinalgOp row = op;
  if (llvm::any_of(ArrayRef(ranges).drop_back(),
                   [](int64_t range) { return range > 1; })) {
    row = tileWithFor(rewriter, op, rowTiles);
    if (!row)
      return false;
  }

  scf::SCFTilingOptions options;
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  options.setReductionTilingStrategy(
      ReductionTilingStrategy::PartialReductionOuterReduction);
  options.setReductionDims({static_cast<unsigned>(inner)});
  SmallVector<OpFoldResult> sizes(loops, rewriter.getIndexAttr(0));
  sizes[inner] = rewriter.getIndexAttr(vectorWidth);
  options.setTileSizes(sizes);
  rewriter.setInsertionPoint(row);
  FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(row.getOperation()), options);
  if (failed(result))
    return true; // The row loop stays; its body runs as scalar code.
  rewriter.replaceOp(row, result->replacements);
  // Element indices the body reads (random numbers fused into a sum) count
  // from the chunk's start: MLIR 22's partial reduction tiling leaves them
  // counting from 0 in every chunk.
  if (auto loop = dyn_cast<scf::ForOp>(result->loops.front().getOperation()))
    for (Operation *tiled : result->tiledOps)
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(tiled)) {
        SmallVector<OpFoldResult> offsets(loops, OpFoldResult());
        offsets[inner] = loop.getInductionVar();
        linalg::offsetIndices(rewriter, linalgOp, offsets);
      }

  for (Operation *tiled : result->tiledOps)
    if (auto partial = dyn_cast<linalg::LinalgOp>(tiled))
      startNanFreePartialsAtInfinity(rewriter, partial, result->initialValues);

  SmallVector<linalg::LinalgOp> pieces;
  for (Value init : result->initialValues)
    if (auto fill = init.getDefiningOp<linalg::LinalgOp>())
      pieces.push_back(fill);
  for (Operation *tiled : result->tiledOps)
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(tiled))
      pieces.push_back(linalgOp);
  for (Operation *merge : result->mergeOps)
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(merge))
      pieces.push_back(linalgOp);
  for (linalg::LinalgOp piece : pieces)
    vectorizeTile(rewriter, piece);
  return true;
}

/// The loop along which an input of the elementwise `op` is contiguous when
/// the output is contiguous along the innermost loop instead: a transpose
/// (an LSTM's recurrent weight, [4h, h] read as [h, 4h]). Tiled one row at a
/// time, each vector of the output gathered its elements one by one, at a
/// stride; tiled in 16 x 16 squares, both sides are read and written as
/// whole vectors (transposesInSquares).
static std::optional<int64_t> transposedInputLoop(linalg::LinalgOp op) {
  int64_t loops = op.getNumLoops();
  // (Static shapes only: a dynamic tile would be masked.)
  if (loops < 2 || op.getNumReductionLoops() != 0 || op.hasDynamicShape())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto innermost = getAffineDimExpr(loops - 1, op.getContext());
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (map.getNumResults() == 0 || map.getResults().back() != innermost)
      return std::nullopt;
  }
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() < 2 || !map.isProjectedPermutation() ||
        !llvm::is_contained(map.getResults(), innermost))
      continue;
    auto contiguous = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!contiguous || contiguous == innermost)
      continue;
    int64_t across = contiguous.getPosition();
    if (lazy::transposesInSquares(getElementTypeOrSelf(input->get()),
                                  {ranges[across], ranges[loops - 1]}))
      return across;
  }
  return std::nullopt;
}

/// Lowers the 16 x 16 transposed reads that vectorizing a transpose tile
/// made (the reads under `tile` other than `before`) to row reads and
/// register shuffles, before the generic lowering of transfers
/// (VectorToSCF) makes them element-by-element loops.
static void transposeInRegisters(RewriterBase &rewriter, Operation *tile,
                                 const llvm::DenseSet<Operation *> &before) {
  SmallVector<Operation *> reads;
  tile->walk([&](vector::TransferReadOp read) {
    if (!before.contains(read) && !read.getPermutationMap().isMinorIdentity())
      reads.push_back(read);
  });
  MLIRContext *context = rewriter.getContext();
  RewritePatternSet permutations(context);
  vector::populateVectorTransferPermutationMapLoweringPatterns(permutations);
  (void)applyOpPatternsGreedily(reads, std::move(permutations));

  SmallVector<Operation *> transposes;
  tile->walk([&](vector::TransposeOp transpose) {
    if (!before.contains(transpose))
      transposes.push_back(transpose);
  });
  RewritePatternSet shuffles(context);
  vector::populateVectorTransposeLoweringPatterns(
      shuffles, vector::VectorTransposeLowering::Shuffle16x16);
  (void)applyOpPatternsGreedily(transposes, std::move(shuffles));
}

/// Tiles `op` with scf.for so that each tile is one vector-width slice of
/// its innermost dimension (or a short reduced row), and vectorizes the tile.
static void tileAndVectorize(RewriterBase &rewriter, linalg::LinalgOp op,
                             int64_t vectorWidth) {
  // Booleans are bytes in memory, but an i1 vector is stored as packed
  // bits: such ops stay scalar. (bf16 vectorizes: the JIT compiles without
  // the CPU's bf16 instructions, whose odd-length vectors LLVM's x86 backend
  // could not select; test/Fuzz/lazyc-fuzz/bf16-llvm-aborts.mlir.)
  auto unsupported = [](Type type) {
    Type element = getElementTypeOrSelf(type);
    return element.isInteger(1);
  };
  if (llvm::any_of(op->getOperandTypes(), unsupported) ||
      llvm::any_of(op->getResultTypes(), unsupported))
    return;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t loops = iterators.size();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // Nothing to vectorize without loops, or without iterations.
  if (loops == 0 || llvm::is_contained(ranges, 0))
    return;
  // A reduction whose body reads no input element (it adds a constant per
  // iteration, as `mean(cos(x - x))` folds to) is miscompiled by upstream
  // vectorization: it adds the constant once instead of once per
  // iteration. It stays a scalar loop.
  if (op.getNumReductionLoops() > 0 &&
      llvm::none_of(op.getDpsInputOperands(), [&](OpOperand *input) {
        return !op.getMatchingBlockArgument(input).use_empty();
      }))
    return;
  if (tileReductionByPartials(rewriter, op, vectorWidth))
    return;
  // Read before tiling: tileWithFor erases `op`.
  bool reduces = op.getNumReductionLoops() > 0;

  // Tile sizes: 1 on parallel dimensions, the vector width on an innermost
  // parallel one, 0 (whole) on reductions. Under an innermost parallel
  // dimension (a column sum), reductions go one step at a time too: each
  // step adds a vector of lanes to the accumulators.
  bool reducesAcrossLanes = iterators.back() == utils::IteratorType::parallel;
  SmallVector<int64_t> tileSizes(loops, 0);
  for (int64_t d = 0; d < loops; ++d)
    if (iterators[d] == utils::IteratorType::parallel || reducesAcrossLanes)
      tileSizes[d] = 1;
  if (reducesAcrossLanes)
    tileSizes.back() = vectorWidth;
  std::optional<int64_t> transposed = vectorWidth >= lazy::kTransposeSquare
                                          ? transposedInputLoop(op)
                                          : std::nullopt;
  if (transposed) {
    tileSizes[*transposed] = lazy::kTransposeSquare;
    tileSizes.back() = lazy::kTransposeSquare;
  }
  // A small window (a 2x2 max-pool's [.., 14, 2, 14, 2] view) keeps its
  // innermost parallel dimension whole too: one vector per row of windows
  // reduced to a vector of results, instead of one short vector per result
  // (3.7x faster on the CNN's pool).
  if (!reducesAcrossLanes) {
    int64_t window = 1;
    for (int64_t d = 0; d < loops; ++d)
      if (iterators[d] == utils::IteratorType::reduction)
        window =
            ShapedType::isDynamic(ranges[d]) ? vectorWidth : window * ranges[d];
    for (int64_t d = loops - 1; d >= 0; --d) {
      if (iterators[d] != utils::IteratorType::parallel)
        continue;
      if (2 * window < vectorWidth && !ShapedType::isDynamic(ranges[d]) &&
          window * ranges[d] <= 4 * vectorWidth)
        tileSizes[d] = 0;
      break;
    }
  }
  // A static dimension that fits in one tile is not tiled: its tile stays
  // static, so it needs no mask.
  for (int64_t d = 0; d < loops; ++d)
    if (!ShapedType::isDynamic(ranges[d]) && ranges[d] <= tileSizes[d])
      tileSizes[d] = 0;
  linalg::LinalgOp tiled = op;
  if (llvm::any_of(tileSizes, [](int64_t size) { return size != 0; })) {
    tiled = tileWithFor(rewriter, op, tileSizes);
    if (!tiled)
      return;
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
    if (tileSizes[d] == 0 || reduces)
      return;
    isDynamic = true;
    vectorSizes.push_back(tileSizes[d]);
  }
  // Reduced rows that are not vector-width multiples become one vector:
  // only short ones (long vectors make LLVM slow, and an ordered reduction
  // over them serial).
  int64_t elements = 1;
  for (int64_t size : vectorSizes)
    elements *= size;
  int64_t limit = reduces ? 4 * vectorWidth : 16 * vectorWidth;
  if (elements > limit)
    return;
  // A dynamic innermost tile (a dynamic size, or a static one that is not a
  // vector-width multiple): peel its loop, so that every tile but the last
  // is a full vector, whose mask folds away, and only the last is masked.
  linalg::LinalgOp remainder;
  if (isDynamic && !reduces && ShapedType::isDynamic(tiledRanges[loops - 1]) &&
      tileSizes.back() == vectorWidth)
    if (auto loop = dyn_cast<scf::ForOp>(tiled->getParentOp())) {
      scf::ForOp partial;
      if (succeeded(scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial)))
        partial.walk([&](linalg::LinalgOp op) { remainder = op; });
    }
  // The vector ops already under the tile's parent (when the tile is the
  // whole op, the parent holds other ops).
  Operation *tileLoop = tiled->getParentOp();
  llvm::DenseSet<Operation *> before;
  if (transposed)
    tileLoop->walk([&](Operation *op) {
      if (isa<vector::TransferReadOp, vector::TransposeOp>(op))
        before.insert(op);
    });
  vectorizeTile(rewriter, tiled,
                isDynamic ? ArrayRef<int64_t>(vectorSizes)
                          : ArrayRef<int64_t>());
  if (transposed)
    transposeInRegisters(rewriter, tileLoop, before);
  if (remainder)
    vectorizeTile(rewriter, remainder, vectorSizes);
}

/// Makes the elementwise `epilogue` compute a result over a product it
/// reads at the same element, where nothing else reads that product (a
/// bias added to a GEMM's tile): the product becomes the result's init,
/// and the body reads the element from there. Bufferized, the GEMM (or
/// convolution) then writes into the epilogue's destination and the
/// epilogue updates it in place, instead of the product going through a
/// temporary of its own (an LSTM's input projection: 512 KB per thread,
/// written and read again). Returns the new epilogue, or null if there is
/// no such product.
static linalg::GenericOp computeOverProduct(RewriterBase &rewriter,
                                            linalg::GenericOp epilogue) {
  if (epilogue.getNumReductionLoops() != 0)
    return nullptr;
  for (OpOperand &init : epilogue.getDpsInitsMutable()) {
    BlockArgument old = epilogue.getMatchingBlockArgument(&init);
    AffineMap map = epilogue.getMatchingIndexingMap(&init);
    if (!old.use_empty() || !map.isPermutation())
      continue;
    for (OpOperand *input : epilogue.getDpsInputOperands()) {
      Value product = input->get();
      auto producer = product.getDefiningOp<linalg::LinalgOp>();
      if (!producer ||
          !(goesToBlas(producer) || goesToConvolutionKernel(producer)) ||
          !product.hasOneUse() || product.getType() != init.get().getType() ||
          epilogue.getMatchingIndexingMap(input) != map)
        continue;
      // The same op without that input, the product as the result's init.
      unsigned dropped = input->getOperandNumber();
      SmallVector<Value> inputs, inits(epilogue.getDpsInits());
      SmallVector<AffineMap> maps;
      for (OpOperand *other : epilogue.getDpsInputOperands())
        if (other != input) {
          inputs.push_back(other->get());
          maps.push_back(epilogue.getMatchingIndexingMap(other));
        }
      unsigned result = init.getOperandNumber() - epilogue.getNumDpsInputs();
      inits[result] = product;
      for (OpOperand &other : epilogue.getDpsInitsMutable())
        maps.push_back(epilogue.getMatchingIndexingMap(&other));
      rewriter.setInsertionPoint(epilogue);
      auto computed = linalg::GenericOp::create(
          rewriter, epilogue.getLoc(), epilogue->getResultTypes(), inputs,
          inits, maps, epilogue.getIteratorTypesArray());
      rewriter.inlineRegionBefore(epilogue.getRegion(), computed.getRegion(),
                                  computed.getRegion().begin());
      Block &body = computed.getRegion().front();
      rewriter.replaceAllUsesWith(body.getArgument(dropped), old);
      body.eraseArgument(dropped);
      rewriter.replaceOp(epilogue, computed->getResults());
      return computed;
    }
  }
  return nullptr;
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

    RewritePatternSet mergePatterns(&getContext());
    tensor::populateMergeConsecutiveInsertExtractSlicePatterns(mergePatterns);
    FrozenRewritePatternSet mergeSlices(std::move(mergePatterns));
    // Threads: consumers first, so each root fuses the producers it reads.
    SmallVector<linalg::LinalgOp> ops;
    function.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics())
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : llvm::reverse(ops)) {
      // Tile-and-fuse leaves the slices it fused through; without them a
      // fused producer is dead, not a root of its own.
      for (Operation *user : llvm::make_early_inc_range(op->getUsers()))
        if (isa<tensor::ExtractSliceOp>(user) && user->use_empty())
          rewriter.eraseOp(user);
      if (op->use_empty()) {
        rewriter.eraseOp(op);
        continue;
      }
      // Already in a thread loop (lazy-cpu-split-loop-rows's).
      if (op->getParentOfType<scf::ForallOp>())
        continue;
      bool feedsUntiledLinalg = llvm::any_of(op->getUsers(), [](Operation *u) {
        return isa<linalg::LinalgOp>(u) && !u->getParentOfType<scf::ForallOp>();
      });
      // A GEMM is worth the threads whatever reads it: a small untiled
      // consumer (a loss over 10 classes) must not leave the forward
      // pass's GEMMs, one after the other, on one thread. So is a
      // reduction, which reads far more than its consumer (the partial
      // sums of lazy-block-reductions, folded by a small reduction).
      if (feedsUntiledLinalg && !isContraction(op) &&
          op.getNumReductionLoops() == 0)
        continue;
      (void)distributeOverThreads(rewriter, op, threads, vectorWidth,
                                  mergeSlices);
    }

    // Fusing row by row inside a thread's chunk leaves the chunk's copies of
    // the producers dead (read only by dead slices), and tile-and-fuse fuses
    // a producer once per slice that reads it (a softmax row's maximum, once
    // for its exponentials and again for their sum): vectorizing the copies
    // would make most of the pass's output dead or duplicate code.
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, function);
    (void)simplifyRegions(rewriter, function->getRegions());

    SmallVector<linalg::GenericOp> epilogues;
    function.walk([&](linalg::GenericOp epilogue) {
      if (epilogue.hasPureTensorSemantics())
        epilogues.push_back(epilogue);
    });
    for (linalg::GenericOp epilogue : epilogues)
      while (linalg::GenericOp computed =
                 computeOverProduct(rewriter, epilogue))
        epilogue = computed;

    // Vectors: every linalg op left, inside the thread loops or not.
    ops.clear();
    // A fill that only initializes GEMMs stays a linalg.fill: on buffers,
    // lazy-cpu-gemm-to-blas turns fill-then-GEMM into one overwriting GEMM.
    auto initializesGemmsOnly = [](linalg::LinalgOp op) {
      return isa<linalg::FillOp>(op.getOperation()) &&
             llvm::all_of(op->getUsers(), [](Operation *user) {
               auto consumer = dyn_cast<linalg::LinalgOp>(user);
               return consumer && goesToBlas(consumer);
             });
    };
    function.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && !goesToBlas(op) &&
          !goesToConvolutionKernel(op) && !initializesGemmsOnly(op))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops)
      tileAndVectorize(rewriter, op, vectorWidth);
  }
};
} // namespace
