//===- FuseElementwise.cpp - Elementwise fusion without recomputation -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-fuse-elementwise.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <queue>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYFUSEELEMENTWISEPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// A producer whose body is at most two cheap arithmetic ops (x - mean, a
/// scale, a select) costs less to recompute in `consumer` than to store and
/// reload, as long as the recomputation reads no more memory than the load
/// it replaces: at most one full-size input the consumer does not already
/// read (x - mean reads x and a per-row mean). Otherwise a chain of cheap
/// producers with several uses is recomputed in every consumer: a
/// transformer's residual stream x0 + a1 + a2 + ... was summed again in
/// each layer's norms, quadratic in the depth in run time and code size.
static bool isCheapToRecompute(Operation *producer, Operation *consumer) {
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!generic)
    return false;
  unsigned ops = 0;
  for (Operation &op : generic.getBody()->without_terminator()) {
    if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::NegFOp,
             arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::SelectOp,
             arith::CmpFOp, arith::CmpIOp, arith::MaximumFOp,
             arith::MinimumFOp>(op))
      return false;
    ++ops;
  }
  if (ops > 2)
    return false;
  llvm::SmallPtrSet<Value, 8> consumerReads(consumer->operand_begin(),
                                            consumer->operand_end());
  unsigned newFullReads = 0;
  for (OpOperand *input : generic.getDpsInputOperands())
    newFullReads += generic.getMatchingIndexingMap(input).isPermutation() &&
                    !consumerReads.contains(input->get());
  return newFullReads <= 1;
}

/// Roughly how much code a generic's body becomes, a transcendental (a
/// polynomial later) counting as many ops.
static int64_t bodyCost(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic)
    return 0;
  int64_t cost = 0;
  generic.getBody()->walk([&](Operation *nested) {
    cost += isa<math::MathDialect>(nested->getDialect()) ? 16 : 1;
  });
  return cost;
}

/// The most code one fused generic gets. Past it, a chain is cut into
/// several ops (each cut an extra pass over memory, negligible next to that
/// much arithmetic per element): their loops are then separate blocks for
/// LLVM's instruction selection, not one block of 13,000 vector
/// instructions (250 tanh steps: 1.36 s to compile as one block, 1.08 s cut,
/// the same run time).
static constexpr int64_t kMaxBodyCost = 1024;

/// Fuses a producer that its consumer reads each element of once: through a
/// permutation of the consumer's loops, possibly dropping loops of size 1 (a
/// keep_dims reduction's kept dimension). A producer with several uses is
/// fused only if it is cheap to recompute, or with `multipleUses` (the
/// fused op then keeps its result for the other uses).
static bool fusesWithoutRecomputation(OpOperand *fused,
                                      bool multipleUses = false) {
  Operation *producer = fused->get().getDefiningOp();
  if (!producer || (!multipleUses && !producer->hasOneUse() &&
                    !isCheapToRecompute(producer, fused->getOwner())))
    return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  if (!consumer)
    return false;
  AffineMap map = consumer.getMatchingIndexingMap(fused);
  if (!map.isProjectedPermutation() ||
      bodyCost(producer) + bodyCost(consumer) > kMaxBodyCost)
    return false;
  SmallVector<int64_t> ranges = consumer.getStaticLoopRanges();
  for (unsigned loop = 0, e = map.getNumDims(); loop < e; ++loop)
    if (!map.isFunctionOfDim(loop) && ranges[loop] != 1)
      return false;
  return true;
}

namespace {
/// The order of a block's ops, kept through the rewrites: each op the
/// rewrites insert between two ops of known positions takes the midpoint of
/// theirs. MLIR's own order (isBeforeInBlock) is renumbered at the first
/// query after most rewrites, which made the fusion of a long trace
/// quadratic in its length. Ops without a position (moved ones, or where
/// the midpoints ran out) are left to MLIR's order.
class OpOrder : public RewriterBase::Listener {
public:
  explicit OpOrder(Operation *root) {
    root->walk([&](Block *block) {
      double at = 0;
      for (Operation &op : *block)
        position[&op] = at += kGap;
    });
  }

  /// Whether `a` comes before `b` (two ops of one block), if both are known.
  std::optional<bool> isBefore(Operation *a, Operation *b) const {
    auto first = position.find(a), second = position.find(b);
    if (first == position.end() || second == position.end())
      return std::nullopt;
    return first->second < second->second;
  }

  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    position.erase(op);
    if (previous.isSet()) // Moved: left to MLIR's order.
      return;
    Operation *before = op->getPrevNode(), *after = op->getNextNode();
    auto known = [&](Operation *neighbour) -> std::optional<double> {
      auto found = neighbour ? position.find(neighbour) : position.end();
      if (found == position.end())
        return std::nullopt;
      return found->second;
    };
    std::optional<double> low = known(before), high = known(after);
    if (!before && high)
      low = *high - 2 * kGap;
    if (!after && low)
      high = *low + 2 * kGap;
    if (!low || !high)
      return;
    double middle = (*low + *high) / 2;
    if (*low < middle && middle < *high)
      position[op] = middle;
  }
  void notifyOperationErased(Operation *op) override { position.erase(op); }

private:
  static constexpr double kGap = 1024;
  llvm::DenseMap<Operation *, double> position;
};
} // namespace

/// Whether `user` (in `consumer`'s block or nested in an op there) comes
/// after `consumer`, so it can read a result of an op put in its place.
static bool comesAfter(Operation *consumer, Operation *user,
                       const OpOrder &order) {
  Operation *ancestor = consumer->getBlock()->findAncestorOpInBlock(*user);
  if (!ancestor || ancestor == consumer)
    return false;
  if (std::optional<bool> known = order.isBefore(consumer, ancestor))
    return *known;
  return consumer->isBeforeInBlock(ancestor);
}

/// Whether `op` can be fused into a consumer that reads its result through
/// the identity map: an elementwise generic on tensors whose one result is
/// computed at every point of its loops, without reading its init.
static bool isClusterMember(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  return op.getMatchingIndexingMap(init).isIdentity() &&
         op.getMatchingBlockArgument(init).use_empty();
}

/// The ops fused with `root` into one: producers, transitively, that are
/// cluster members whose every use is an input a member reads through the
/// identity map (so each is computed once, at the same point of the same
/// loops, and nothing outside needs it). In program order, `root` last.
static SmallVector<linalg::GenericOp>
clusterOf(linalg::GenericOp root, llvm::DenseSet<Operation *> &taken) {
  llvm::SmallPtrSet<Operation *, 16> members = {root};
  // Latest first: every user of a candidate in the cluster joined before it.
  auto later = [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); };
  std::priority_queue<Operation *, std::vector<Operation *>, decltype(later)>
      candidates(later);
  llvm::SmallPtrSet<Operation *, 16> seen;
  auto addProducers = [&](linalg::GenericOp op) {
    for (OpOperand *input : op.getDpsInputOperands()) {
      Operation *producer = input->get().getDefiningOp();
      if (producer && producer->getBlock() == root->getBlock() &&
          seen.insert(producer).second)
        candidates.push(producer);
    }
  };
  auto readByMembers = [&](Value result) {
    return llvm::all_of(result.getUses(), [&](OpOperand &use) {
      auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
      return user && members.contains(user) && user.isDpsInput(&use) &&
             user.getMatchingIndexingMap(&use).isIdentity();
    });
  };
  SmallVector<linalg::GenericOp> cluster = {root};
  int64_t cost = bodyCost(root);
  addProducers(root);
  while (!candidates.empty()) {
    Operation *candidate = candidates.top();
    candidates.pop();
    auto producer = dyn_cast<linalg::GenericOp>(candidate);
    if (!producer || taken.contains(producer) || !isClusterMember(producer) ||
        !readByMembers(producer->getResult(0)))
      continue;
    int64_t producerCost = bodyCost(producer);
    if (cost + producerCost > kMaxBodyCost)
      continue;
    cost += producerCost;
    members.insert(producer);
    cluster.push_back(producer);
    addProducers(producer);
  }
  std::reverse(cluster.begin(), cluster.end());
  return cluster;
}

/// Replaces `cluster` (its root last) with one generic over the root's
/// loops: the members' bodies, producers first, each reading the values its
/// producers computed; inputs from outside the cluster become inputs of the
/// fused op, once per value and indexing map, in the order pairwise fusion
/// would give (each producer's inputs in place of its result). Fails,
/// changing nothing, when a loop of the root would lose every operand that
/// gives its size.
static LogicalResult fuseCluster(RewriterBase &rewriter,
                                 ArrayRef<linalg::GenericOp> cluster) {
  linalg::GenericOp root = cluster.back();
  llvm::SmallPtrSet<Operation *, 16> members;
  for (linalg::GenericOp member : cluster)
    members.insert(member);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  llvm::DenseMap<std::pair<Value, AffineMap>, unsigned> inputIndex;
  SmallVector<linalg::GenericOp> order; // Producers before their users.
  llvm::SmallPtrSet<Operation *, 16> visited;
  // Depth first, iteratively: a chain of thousands of ops is one cluster.
  SmallVector<std::pair<linalg::GenericOp, unsigned>> stack = {{root, 0}};
  visited.insert(root);
  while (!stack.empty()) {
    auto &[member, next] = stack.back();
    if (next == member.getNumDpsInputs()) {
      order.push_back(member);
      stack.pop_back();
      continue;
    }
    OpOperand *input = member.getDpsInputOperand(next++);
    Operation *producer = input->get().getDefiningOp();
    if (members.contains(producer)) {
      if (visited.insert(producer).second)
        stack.push_back({cast<linalg::GenericOp>(producer), 0});
      continue;
    }
    AffineMap map = member.getMatchingIndexingMap(input);
    if (inputIndex.try_emplace({input->get(), map}, inputs.size()).second) {
      inputs.push_back(input->get());
      maps.push_back(map);
    }
  }
  SmallVector<Value> outputs = root.getDpsInits();
  for (OpOperand &init : root.getDpsInitsMutable())
    maps.push_back(root.getMatchingIndexingMap(&init));
  // Every loop must keep an operand that gives its size: a reduction's
  // loops may have had only a member's result (the sum of a broadcast
  // scalar); pairwise fusion then leaves that member alone.
  llvm::SmallBitVector sized(root.getNumLoops());
  for (AffineMap map : maps)
    for (AffineExpr result : map.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(result))
        sized.set(dim.getPosition());
  if (!sized.all())
    return failure();

  rewriter.setInsertionPoint(root);
  auto fused = linalg::GenericOp::create(
      rewriter, root.getLoc(), root->getResultTypes(), inputs, outputs, maps,
      root.getIteratorTypesArray());
  SmallVector<Type> argumentTypes;
  SmallVector<Location> argumentLocations;
  for (Value operand : fused->getOperands()) {
    argumentTypes.push_back(getElementTypeOrSelf(operand.getType()));
    argumentLocations.push_back(operand.getLoc());
  }
  Block *body = rewriter.createBlock(&fused.getRegion(), {}, argumentTypes,
                                     argumentLocations);
  IRMapping mapping;
  llvm::DenseMap<Operation *, Value> computed;
  for (linalg::GenericOp member : order) {
    for (OpOperand *input : member.getDpsInputOperands()) {
      BlockArgument argument = member.getMatchingBlockArgument(input);
      Operation *producer = input->get().getDefiningOp();
      if (members.contains(producer))
        mapping.map(argument, computed.lookup(producer));
      else
        mapping.map(argument,
                    body->getArgument(inputIndex.lookup(
                        {input->get(), member.getMatchingIndexingMap(input)})));
    }
    if (member == root)
      for (auto [index, init] : llvm::enumerate(root.getDpsInitsMutable()))
        mapping.map(root.getMatchingBlockArgument(&init),
                    body->getArgument(inputs.size() + index));
    for (Operation &op : member.getBody()->without_terminator())
      rewriter.clone(op, mapping);
    auto yield = cast<linalg::YieldOp>(member.getBody()->getTerminator());
    if (member != root) {
      computed[member] = mapping.lookupOrDefault(yield.getOperand(0));
      continue;
    }
    SmallVector<Value> results;
    for (Value value : yield.getOperands())
      results.push_back(mapping.lookupOrDefault(value));
    linalg::YieldOp::create(rewriter, yield.getLoc(), results);
  }
  rewriter.replaceOp(root, fused->getResults());
  for (linalg::GenericOp member : llvm::reverse(cluster.drop_back()))
    rewriter.eraseOp(member);
  return success();
}

/// Fuses each cluster of elementwise generics that feed only each other
/// (a chain, or a tree whose inner values have no other readers) into one
/// op, building each fused body once. Pairwise fusion would reach the same
/// ops, but it copies the growing body at every step: quadratic in the
/// length of a chain (a 200-op chain took 1.5 s).
static void fuseElementwiseClusters(Operation *scope) {
  SmallVector<Block *> blocks;
  scope->walk([&](Block *block) { blocks.push_back(block); });
  IRRewriter rewriter(scope->getContext());
  for (Block *block : blocks) {
    SmallVector<linalg::GenericOp> generics(block->getOps<linalg::GenericOp>());
    llvm::DenseSet<Operation *> taken;
    SmallVector<SmallVector<linalg::GenericOp>> clusters;
    for (linalg::GenericOp root : llvm::reverse(generics)) {
      if (taken.contains(root) || !root.hasPureTensorSemantics())
        continue;
      SmallVector<linalg::GenericOp> cluster = clusterOf(root, taken);
      if (cluster.size() < 2)
        continue;
      for (linalg::GenericOp member : cluster)
        taken.insert(member);
      clusters.push_back(std::move(cluster));
    }
    for (ArrayRef<linalg::GenericOp> cluster : clusters)
      (void)fuseCluster(rewriter, cluster);
  }
}

namespace {
/// Fuses an elementwise producer with several uses into an elementwise
/// consumer when its result must be stored anyway (a function result, the
/// input of a matmul or a reduction, of an elementwise op that would not
/// recompute it: an LSTM's cell state, read by the step's output and by the
/// next step, ...): the fused op computes it once,
/// stores it as an extra result, and uses it directly. Its other users read
/// that result. (Upstream's fusion keeps the producer for them, so the
/// consumer recomputes it: a training step's new velocity, which is both a
/// result and the input of the weight update, cost a second pass over
/// memory, and kept the weight gradient's GEMM from fusing with its only
/// consumer.)
struct FuseStoredProducer : OpRewritePattern<linalg::GenericOp> {
  FuseStoredProducer(MLIRContext *context, OpOrder &order,
                     PatternBenefit benefit)
      : OpRewritePattern(context, benefit), order(order) {}

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (!consumer.hasPureTensorSemantics() ||
        consumer.getNumParallelLoops() != consumer.getNumLoops())
      return failure();
    for (OpOperand *operand : consumer.getDpsInputOperands()) {
      auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
      // (A consumer reading it twice, x + x, would still read it.)
      if (!producer || producer->hasOneUse() ||
          llvm::count_if(consumer->getOperands(),
                         [&](Value value) {
                           return value.getDefiningOp() == producer;
                         }) != 1 ||
          !linalg::areElementwiseOpsFusable(operand) ||
          !fusesWithoutRecomputation(operand, /*multipleUses=*/true))
        continue;
      // Ops the driver has not erased yet (a consumer fused a moment ago)
      // are not users.
      llvm::SetVector<Operation *> deadUsers;
      SmallVector<Operation *> otherUsers;
      bool stored = false;
      for (OpOperand &use : producer->getUses()) {
        Operation *user = use.getOwner();
        if (user == consumer.getOperation())
          continue;
        if (isOpTriviallyDead(user)) {
          deadUsers.insert(user);
          continue;
        }
        // An elementwise user recomputes it only if that is cheap.
        auto generic = dyn_cast<linalg::GenericOp>(user);
        stored |= !generic || generic.getNumReductionLoops() > 0 ||
                  !isCheapToRecompute(producer, user);
        otherUsers.push_back(user);
      }
      // The order last (most candidates are not stored).
      if (!stored || !llvm::all_of(otherUsers, [&](Operation *user) {
            return comesAfter(consumer, user, order);
          }))
        continue;
      for (Operation *dead : deadUsers)
        rewriter.eraseOp(dead);
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, operand);
      if (failed(fused))
        return success(!deadUsers.empty());
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }

private:
  OpOrder &order;
};

/// linalg's RemoveOutsDependency (an init the payload does not read becomes
/// tensor.empty) for ops without reductions only: a reduction over an empty
/// domain returns its init, whatever the payload reads. (The minimum of an
/// empty UInt8 tensor's `x ^ x` folds to a payload yielding 0; with its
/// init gone, the result was uninitialized memory: lazyc-fuzz seed 58788.)
struct RemoveParallelOutsDependency : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumReductionLoops() > 0)
      return failure();
    bool modified = false;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      auto type = dyn_cast<RankedTensorType>(init.get().getType());
      if (!type || op.payloadUsesValueFromOperand(&init) ||
          init.get().getDefiningOp<tensor::EmptyOp>())
        continue;
      Value empty = tensor::EmptyOp::create(
          rewriter, op.getLoc(),
          tensor::getMixedSizes(rewriter, op.getLoc(), init.get()),
          type.getElementType());
      rewriter.modifyOpInPlace(op, [&] { init.set(empty); });
      modified = true;
    }
    return success(modified);
  }
};

/// linalg's elementwise fusion patterns, with RemoveParallelOutsDependency
/// in place of RemoveOutsDependency.
void populateElementwiseFusionPatterns(RewritePatternSet &patterns) {
  linalg::populateElementwiseOpsFusionPatterns(patterns, [](OpOperand *fused) {
    return fusesWithoutRecomputation(fused);
  });
  auto &native = patterns.getNativePatterns();
  size_t before = native.size();
  llvm::erase_if(native, [](const std::unique_ptr<RewritePattern> &pattern) {
    return pattern->getDebugName().ends_with("RemoveOutsDependency");
  });
  assert(native.size() + 1 == before &&
         "linalg's RemoveOutsDependency was not found to replace");
  (void)before;
  patterns.add<RemoveParallelOutsDependency>(patterns.getContext());
}

struct LazyFuseElementwisePass
    : mlir::lazy::impl::LazyFuseElementwisePassBase<LazyFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    fuseElementwiseClusters(getOperation());
    OpOrder order(getOperation());
    RewritePatternSet patterns(context);
    patterns.add<FuseStoredProducer>(context, order, /*benefit=*/2);
    populateElementwiseFusionPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(
        patterns,
        [](OpOperand *fused) { return fusesWithoutRecomputation(fused); });
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns),
                                  GreedyRewriteConfig().setListener(&order))))
      signalPassFailure();
  }
};
} // namespace
