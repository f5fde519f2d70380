//===- Region.h - The bodies of control-flow nodes --------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the regions of the control-flow nodes (If: then and
// else; While: condition and body) and how they are cut out of the graph a
// branch or loop body recorded. A region is a small trace of its own: its
// leaves are the control-flow node's operands (captured outer values) and
// its Parameter nodes (a loop's carried values); nothing in it is on a
// pending list, so it runs only as part of its control-flow node.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_TRACE_REGION_H
#define LAZYC_TRACE_REGION_H

#include "lazyc/Trace/Trace.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <memory>
#include <vector>

namespace lazyc::trace {

/// One region of a control-flow node.
struct Region {
  /// The region's nodes, inputs before users, as a trace: `nodes`,
  /// `operands(i)`, `outputs` (the values it yields). Its leaves are
  /// Parameter nodes and captured values; `arguments` lists the captured
  /// ones (positions in `nodes`), and `captureOperands` the control-flow
  /// node's operand each of them is. `literals` stays empty: a literal
  /// written in a branch is captured (and promoted like any other).
  Trace body;
  std::vector<int32_t> captureOperands;
  /// Keeps the nodes alive (`body` holds raw pointers).
  std::vector<NodePtr> owned;
};

/// The regions of an If (then, else) or a While (condition, body).
struct Regions {
  llvm::SmallVector<Region, 2> regions;
  /// How many of a While's leading operands are carried values (the rest
  /// are captures); 0 for an If, whose operand 0 is the predicate.
  int32_t carried = 0;
  /// A While's carried values are the user's `userCarried` ones; a bounded
  /// loop (`maxIterations` >= 0) carries its iteration count next and, if
  /// `stacked`, then one stack per user value: [maxIterations, ...] rows,
  /// row t holding the value iteration t started with (for the gradient).
  int32_t userCarried = 0;
  int64_t maxIterations = -1;
  bool stacked = false;
};

/// Collects the nodes recorded while a branch or loop body is traced; a
/// node recorded there and reached from the body's results is part of the
/// region, anything else it reaches is captured.
class RegionRecorder {
public:
  void recorded(const Node *node) { created.insert(node); }
  bool recordedHere(const Node *node) const { return created.contains(node); }

private:
  llvm::DenseSet<const Node *> created;
};

/// Captured values shared by the regions of one control-flow node: each
/// becomes one operand of it, after `firstOperand` leading ones.
class Captures {
public:
  explicit Captures(int32_t firstOperand) : firstOperand(firstOperand) {}
  /// The operand index of `node`, appending it when new.
  int32_t operandOf(const NodePtr &node);
  const std::vector<NodePtr> &values() const { return captured; }

private:
  int32_t firstOperand;
  std::vector<NodePtr> captured;
  llvm::DenseMap<const Node *, int32_t> index;
};

/// Cuts the region computing `results` out of the graph `recorder` saw:
/// recorded, uncomputed, non-literal nodes are the region's; the others
/// are captured (into `captures`). Iterative, like extractTrace.
Region extractRegion(const std::vector<NodePtr> &results,
                     const RegionRecorder &recorder, Captures &captures);

/// A structural hash of `regions` (op content and wiring, as a trace
/// signature): a control-flow node stores it in `integer`, so that its
/// content hash, and the key of every trace holding it, covers its bodies.
uint64_t regionsHash(const Regions &regions);

/// Attaches `regions` to the control-flow node `node` (at its creation), and
/// finds them again. They live until the node dies.
void setRegions(Node &node, std::shared_ptr<const Regions> regions);
const Regions &regionsOf(const Node &node);
std::shared_ptr<const Regions> sharedRegionsOf(const Node &node);

/// A new node computing what `node` computes (same kind, attributes and
/// regions) from `inputs`: to replay a region outside it. Not recorded.
NodePtr cloneNode(const Node &node, NodeInputs inputs);

/// Drops the regions of `node` (its destructor calls this).
void releaseRegions(const Node &node);

/// Whether `kind` carries regions.
constexpr bool hasRegions(OpKind kind) {
  return kind == OpKind::If || kind == OpKind::While;
}

/// A Result node's `ints` for user result `index` of its control-flow node
/// ({kUserResult, index}), or for the intermediate at `position` of region
/// `region` ({region, position}; the other regions yield zeros for it).
inline constexpr int64_t kUserResult = -1;

} // namespace lazyc::trace

#endif // LAZYC_TRACE_REGION_H
