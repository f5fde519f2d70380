//===- Trace.h - Cutting traces out of the lazy graph -----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares trace extraction: the pending work a set of requested
// values needs, in deterministic order, with its arguments (concrete
// buffers), its literals and its outputs (the requested values plus every
// value a Tensor handle still holds), and the structural key the function
// cache looks it up by.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_TRACE_TRACE_H
#define LAZYC_TRACE_TRACE_H

#include "lazyc/Trace/Node.h"

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace lazyc::trace {

/// A trace: the nodes to compute, in an order where inputs come first.
struct Trace {
  /// Every node of the trace (arguments and literals included), inputs
  /// before users; the order is a deterministic function of the graph. A
  /// literal no handle holds appears once per use (one literal node may
  /// serve many ops: the trace does not depend on that sharing).
  std::vector<Node *> nodes;
  /// The positions in `nodes` of nodes[i]'s inputs.
  std::span<const int32_t> operands(size_t i) const {
    return {operandList.data() + operandStart[i],
            operandList.data() + operandStart[i + 1]};
  }
  /// Every node's operand positions, back to back (see operands()).
  std::vector<int32_t> operandList;
  /// Where nodes[i]'s operands start in operandList (one entry more than
  /// `nodes`).
  std::vector<int32_t> operandStart;
  /// Concrete buffers the trace reads (positions in `nodes`), in order.
  std::vector<int32_t> arguments;
  /// Literals (positions in `nodes`), in order.
  std::vector<int32_t> literals;
  /// Values the trace must produce (positions in `nodes`), in order.
  std::vector<int32_t> outputs;
  /// For each output, the argument (a position in `arguments`) whose buffer
  /// it is computed in, or -1. An argument is donated when nothing can read
  /// it after the trace (no handle, no other node, no other owner of its
  /// buffer): a variable's old value becomes its new value in place.
  std::vector<int32_t> tiedArguments;
  /// Structure: ops, attributes, types and wiring, but not literal values,
  /// word by word (node content as its content hash). Two traces with the
  /// same signature differ at most in their literals.
  std::vector<uint64_t> signature;
  /// A hash of the signature: what the function cache looks traces up by
  /// (it compares signatures too: two structures may share a key).
  uint64_t key = 0;
  /// The device every node of the trace lives on: the trace compiles for
  /// its target (part of the signature).
  Device device;
};

/// Whether `node` is a literal no handle holds: a trace node once per use,
/// not once (one literal node may serve many ops; the trace must not depend
/// on that sharing).
inline bool isPerUseLiteral(const Node &node) {
  return node.kind == OpKind::Literal && !node.isMaterialized() &&
         node.handles.load(std::memory_order_relaxed) == 0;
}

/// Extracts the trace computing `requested` (iteratively: graph depth is
/// unbounded), which must all live on one device. Nodes already materialized
/// are arguments; unmaterialized nodes still held by a Tensor handle become
/// outputs too. If `dynamicShapes` is set, the key ignores dimension sizes
/// (eager mode compiles one function per op and rank, see
/// shapeGenericSignature); otherwise dead arguments are donated to outputs
/// (`tiedArguments`, part of the key).
Trace extractTrace(const std::vector<Node *> &requested,
                   bool dynamicShapes = false);

/// The same, into `trace`, reusing its storage (a cached trace's host cost
/// matters: no allocation per extraction).
void extractTrace(const std::vector<Node *> &requested, bool dynamicShapes,
                  Trace &trace);

//===----------------------------------------------------------------------===//
// Sizes as data
//===----------------------------------------------------------------------===//
//
// A function may leave some dimension sizes of a trace to the call (eager
// mode: all of them; lazily, those that changed between two traces of one
// structure). Sizes are numbered as traceSizes() lists them.

/// Every dimension size of every node of `trace`, node by node in trace
/// order (arguments included).
void traceSizes(const Trace &trace, std::vector<int64_t> &sizes);

/// The signature of `trace` without dimension sizes: op kinds, attributes
/// other than target shapes, dtypes, ranks, wiring, outputs and donations.
/// Two traces with the same such signature differ at most in literal
/// values and in traceSizes(). Returns its key.
uint64_t shapeGenericSignature(const Trace &trace,
                               std::vector<uint64_t> &signature);

/// Whether a node of `kind` that is computed (not an argument) gets its
/// dynamic sizes as data: its result shape is a target it is given (a
/// literal's, a broadcast's, a reshape's, a random op's), not a function of
/// its operands' shapes.
bool sizesAreData(OpKind kind);

/// Marks the sizes of `trace` (numbered as traceSizes()) that a broadcast
/// stretches from 1: they stay static whatever else is dynamic (a dynamic
/// input size must equal the target size).
void stretchedSizes(const Trace &trace, std::vector<bool> &stretched);

/// Marks the sizes of `trace` (numbered as traceSizes()) that a kernel's
/// code is chosen for, so that left to the call it runs much slower: a
/// convolution's channels, filter count and kernel size (its register
/// tiles and layout; 2-3x slower dynamic, docs/benchmarks.md "Layers"). A
/// trace changing one of them compiles for its sizes.
void specializedSizes(const Trace &trace, std::vector<bool> &specialized);

/// The sizes a function of `trace` reads at run time when the sizes marked
/// in `dynamicSizes` (numbered as traceSizes(); every size if `allDynamic`)
/// are dynamic: each dynamic size of a computed node whose sizes are data
/// (sizesAreData) and not stretched (stretchedSizes), in trace order.
/// Written to `sizes`.
void runtimeSizes(const Trace &trace, const std::vector<bool> &dynamicSizes,
                  bool allDynamic, std::vector<int64_t> &sizes);

/// Where the sizes runtimeSizes() lists (lazily, for `dynamicSizes`) come
/// from: (node position, dimension) pairs, in its order. A saved function
/// records how each follows its unknown dimensions.
void runtimeSizePositions(const Trace &trace,
                          const std::vector<bool> &dynamicSizes,
                          std::vector<std::pair<int32_t, size_t>> &positions);

/// Mixes the words of `signature` into a key (four independent lanes).
uint64_t hashSignature(const std::vector<uint64_t> &signature);

} // namespace lazyc::trace

#endif // LAZYC_TRACE_TRACE_H
