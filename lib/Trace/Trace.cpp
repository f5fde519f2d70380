//===- Trace.cpp - Cutting traces out of the lazy graph -------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements trace extraction: an iterative post-order DFS (user
// graphs can be a million nodes deep) from the requested values, in input
// order, which makes the node order, and so the key, deterministic.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Trace/Trace.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <atomic>
#include <bit>

using namespace lazyc;
using namespace lazyc::trace;

/// A node's content hash without dimension sizes: its rank instead of its
/// shape, and no target shape (a broadcast's or reshape's `ints` is its
/// shape). Slice bounds stay: they fix the result's sizes. A broadcast
/// keeps which input dimensions it stretches from size 1 (those stay static
/// 1: a dynamic input size must equal the target size).
static uint64_t shapeFreeHash(const Node &node) {
  bool targetShape =
      node.kind == OpKind::Broadcast || node.kind == OpKind::Reshape;
  uint64_t hash = 0x84222325CBF29CE4ULL;
  mixHash(hash, static_cast<uint64_t>(node.kind) |
                    static_cast<uint64_t>(node.dtype) << 8 |
                    static_cast<uint64_t>(node.predicate) << 16 |
                    static_cast<uint64_t>(node.flag) << 24 |
                    static_cast<uint64_t>(node.shape.size() & 0xFF) << 32);
  if (!targetShape)
    for (const std::vector<int64_t> *list :
         {&node.ints, &node.ints2, &node.ints3}) {
      mixHash(hash, list->size());
      for (int64_t value : *list)
        mixHash(hash, static_cast<uint64_t>(value));
    }
  if (node.kind != OpKind::Literal) {
    mixHash(hash, std::bit_cast<uint64_t>(node.scalar));
    mixHash(hash, std::bit_cast<uint64_t>(node.scalar2));
  }
  mixHash(hash, static_cast<uint64_t>(node.integer));
  if (node.kind == OpKind::Broadcast && !node.inputs.empty()) {
    const std::vector<int64_t> &from = node.inputs[0]->shape;
    size_t offset = node.shape.size() - from.size();
    for (size_t d = 0; d < from.size(); ++d)
      if (from[d] == 1 && node.shape[offset + d] != 1)
        mixHash(hash, d + 1);
  }
  return hash;
}

static bool isLeaf(const Node &node) {
  return node.isMaterialized() || node.kind == OpKind::Literal;
}

/// Fills trace.tiedArguments: donates each argument nothing can read after
/// the trace to an output of its dtype and shape that reads it elementwise
/// (the nearest first), so the output is computed over it.
///
/// An argument is dead after the trace if no handle holds it, nothing else
/// shares its buffer, every owner of its node is a node of this trace, and
/// none of its readers outlives the trace with its inputs: outputs drop
/// their inputs once computed, other nodes die with the trace unless
/// something outside it (a pending node, a tape) holds them.
static void tieDeadArguments(Trace &trace) {
  // Most traces read only values the program holds: a cheap test first.
  if (std::none_of(
          trace.arguments.begin(), trace.arguments.end(), [&](int32_t index) {
            const Node &node = *trace.nodes[index];
            return node.handles.load() == 0 && node.value.use_count() == 1;
          }))
    return;
  const size_t size = trace.nodes.size();
  // How many times the trace reads each node, and how many pointers to it
  // exist (read off a reader's input slot).
  static thread_local std::vector<long> readers, owners;
  readers.assign(size, 0);
  owners.assign(size, 0);
  for (size_t i = 0; i < size; ++i) {
    std::span<const int32_t> operands = trace.operands(i);
    const NodeInputs &inputs = trace.nodes[i]->inputs;
    for (size_t k = 0; k < operands.size(); ++k) {
      ++readers[operands[k]];
      owners[operands[k]] = inputs[k].use_count();
    }
  }
  // The user's memory (Tensor::fromBuffer, fromDLPack) is never written.
  auto unshared = [&](int32_t index) {
    const Node &node = *trace.nodes[index];
    return node.handles.load() == 0 && node.value.use_count() == 1 &&
           !node.value->isExternal() && readers[index] > 0 &&
           owners[index] == readers[index];
  };
  if (std::none_of(trace.arguments.begin(), trace.arguments.end(), unshared))
    return;

  // Nodes that outlive the trace with their inputs, and what they read.
  static thread_local std::vector<char> isOutput, readLater;
  isOutput.assign(size, 0);
  readLater.assign(size, 0);
  for (int32_t output : trace.outputs)
    isOutput[output] = 1;
  for (size_t i = size; i-- > 0;) {
    if (isOutput[i] || isLeaf(*trace.nodes[i]))
      continue;
    if (readLater[i] || owners[i] > readers[i])
      for (int32_t operand : trace.operands(i))
        readLater[operand] = 1;
  }
  static thread_local std::vector<int32_t> donated;
  donated.assign(size, -1); // Node position -> argument slot.
  for (size_t slot = 0; slot < trace.arguments.size(); ++slot) {
    int32_t index = trace.arguments[slot];
    if (unshared(index) && !readLater[index])
      donated[index] = static_cast<int32_t>(slot);
  }

  // Candidate pairs by distance: breadth-first from each output through
  // elementwise nodes.
  struct Candidate {
    int depth;
    int32_t output, slot;
  };
  static thread_local std::vector<Candidate> candidates;
  static thread_local std::vector<int32_t> seenBy;
  static thread_local std::vector<std::pair<int32_t, int>> queue;
  candidates.clear();
  seenBy.assign(size, -1);
  // Updates read their old value a few ops up (Adam's `w - lr * m / (sqrt(v)
  // + eps)` at depth 1, `b1 * m + (1 - b1) * g` at 2): a bounded search
  // keeps long elementwise chains cheap to extract.
  constexpr size_t kSearchLimit = 64;
  constexpr int kDepthLimit = 8;
  for (size_t output = 0; output < trace.outputs.size(); ++output) {
    const Node &result = *trace.nodes[trace.outputs[output]];
    if (!isElementwiseOp(result.kind) || isLeaf(result))
      continue;
    queue.assign(1, {trace.outputs[output], 0});
    seenBy[trace.outputs[output]] = static_cast<int32_t>(output);
    for (size_t next = 0; next < queue.size() && queue.size() < kSearchLimit;
         ++next) {
      auto [index, depth] = queue[next];
      const Node &node = *trace.nodes[index];
      if (donated[index] >= 0 && node.dtype == result.dtype &&
          node.shape == result.shape)
        candidates.push_back(
            {depth, static_cast<int32_t>(output), donated[index]});
      if (isLeaf(node) || !isElementwiseOp(node.kind) || depth == kDepthLimit)
        continue;
      for (int32_t operand : trace.operands(index))
        if (seenBy[operand] != static_cast<int32_t>(output)) {
          seenBy[operand] = static_cast<int32_t>(output);
          queue.push_back({operand, depth + 1});
        }
    }
  }
  std::stable_sort(
      candidates.begin(), candidates.end(),
      [](const Candidate &a, const Candidate &b) { return a.depth < b.depth; });
  static thread_local std::vector<char> slotTaken;
  slotTaken.assign(trace.arguments.size(), 0);
  for (const Candidate &candidate : candidates)
    if (trace.tiedArguments[candidate.output] < 0 &&
        !slotTaken[candidate.slot]) {
      trace.tiedArguments[candidate.output] = candidate.slot;
      slotTaken[candidate.slot] = 1;
    }
}

Trace trace::extractTrace(const std::vector<Node *> &requested,
                          bool dynamicShapes) {
  Trace trace;
  extractTrace(requested, dynamicShapes, trace);
  return trace;
}

void trace::extractTrace(const std::vector<Node *> &requested,
                         bool dynamicShapes, Trace &trace) {
  // Each extraction marks the nodes it visits with a fresh number; threads
  // extract disjoint graphs, so the marks never race.
  static std::atomic<uint64_t> extractions{0};
  const uint64_t visit = ++extractions;
  auto visited = [visit](const Node *node) { return node->visitedBy == visit; };

  trace.nodes.clear();
  trace.operandList.clear();
  trace.operandStart.assign(1, 0);
  trace.arguments.clear();
  trace.literals.clear();
  trace.outputs.clear();
  // The signature lists the structure word by word (the key hashes it),
  // written as the nodes are emitted: one pass over the graph.
  std::vector<uint64_t> &signature = trace.signature;
  signature.clear();
  // Every requested value lives on one device (materialize groups them):
  // the trace runs there, and its key says so.
  trace.device = requested.empty() ? Device() : requested.front()->device;
  signature.push_back(
      static_cast<uint64_t>(dynamicShapes) |
      static_cast<uint64_t>(trace.device.kind()) << 8 |
      static_cast<uint64_t>(static_cast<uint16_t>(trace.device.index())) << 16);

  // Appends a node (its operands follow in operandList and the signature).
  auto emit = [&](Node *node) {
    int32_t index = static_cast<int32_t>(trace.nodes.size());
    trace.nodes.push_back(node);
    if (node->isMaterialized()) {
      // An argument is its type, whatever op once produced it.
      trace.arguments.push_back(index);
      signature.push_back(static_cast<uint64_t>(node->dtype));
      signature.push_back(node->shape.size());
      if (!dynamicShapes)
        for (int64_t dim : node->shape)
          signature.push_back(static_cast<uint64_t>(dim));
      return index;
    }
    if (node->kind == OpKind::Literal)
      trace.literals.push_back(index);
    signature.push_back(dynamicShapes ? shapeFreeHash(*node)
                                      : node->contentHash);
    // Outputs: every value a handle still holds (a literal too:
    // `full({}, 2.0f)` is a tensor whose value is a literal); the requested
    // values are added below.
    if (node->handles.load(std::memory_order_relaxed) > 0)
      trace.outputs.push_back(index);
    return index;
  };

  struct Frame {
    Node *node;
    size_t nextInput;
  };
  static thread_local std::vector<Frame> stack;
  stack.clear();
  static thread_local llvm::SmallVector<int32_t, 4> operandPositions;
  for (Node *root : requested) {
    if (visited(root))
      continue;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      Node *node = stack.back().node;
      size_t &next = stack.back().nextInput;
      if (!isLeaf(*node) && next < node->inputs.size()) {
        Node *input = node->inputs[next++].get();
        if (!visited(input) && !isPerUseLiteral(*input))
          stack.push_back({input, 0});
        continue;
      }
      stack.pop_back();
      if (visited(node))
        continue;
      // Per-use literals are emitted just before their reader.
      operandPositions.clear();
      if (!isLeaf(*node))
        for (const NodePtr &input : node->inputs) {
          if (!isPerUseLiteral(*input)) {
            operandPositions.push_back(input->position);
            continue;
          }
          operandPositions.push_back(emit(input.get()));
          trace.operandStart.push_back(
              static_cast<int32_t>(trace.operandList.size()));
        }
      node->visitedBy = visit;
      node->position = emit(node);
      // Operand positions two to a word (most ops have one or two).
      for (size_t k = 0; k < operandPositions.size(); k += 2) {
        uint64_t second = k + 1 < operandPositions.size()
                              ? static_cast<uint32_t>(operandPositions[k + 1])
                              : ~uint32_t(0);
        signature.push_back(static_cast<uint32_t>(operandPositions[k]) |
                            second << 32);
      }
      for (int32_t position : operandPositions)
        trace.operandList.push_back(position);
      trace.operandStart.push_back(
          static_cast<int32_t>(trace.operandList.size()));
    }
  }
  // The requested values no handle holds, in trace order.
  for (Node *root : requested) {
    if (root->isMaterialized() || !visited(root))
      continue;
    auto at = std::lower_bound(trace.outputs.begin(), trace.outputs.end(),
                               root->position);
    if (at == trace.outputs.end() || *at != root->position)
      trace.outputs.insert(at, root->position);
  }

  trace.tiedArguments.assign(trace.outputs.size(), -1);
  if (!dynamicShapes)
    tieDeadArguments(trace);

  signature.push_back(~uint64_t(0)); // Outputs follow.
  for (int32_t output : trace.outputs)
    signature.push_back(static_cast<uint64_t>(output));
  if (std::any_of(trace.tiedArguments.begin(), trace.tiedArguments.end(),
                  [](int32_t slot) { return slot >= 0; })) {
    signature.push_back(~uint64_t(1)); // Ties follow.
    for (int32_t slot : trace.tiedArguments)
      signature.push_back(static_cast<uint64_t>(slot));
  }
  trace.key = hashSignature(signature);
}

uint64_t trace::hashSignature(const std::vector<uint64_t> &signature) {
  // Four independent lanes: each word's mix waits for the previous word of
  // its lane only, not for every word before it.
  uint64_t lanes[4] = {0x84222325CBF29CE4ULL, 0x9E3779B97F4A7C15ULL,
                       0xBF58476D1CE4E5B9ULL, 0x94D049BB133111EBULL};
  size_t at = 0;
  for (; at + 4 <= signature.size(); at += 4)
    for (int lane = 0; lane < 4; ++lane)
      mixHash(lanes[lane], signature[at + lane]);
  for (; at < signature.size(); ++at)
    mixHash(lanes[at % 4], signature[at]);
  uint64_t key = lanes[0];
  for (int lane = 1; lane < 4; ++lane)
    mixHash(key, lanes[lane]);
  mixHash(key, signature.size());
  return key;
}

//===----------------------------------------------------------------------===//
// Sizes as data
//===----------------------------------------------------------------------===//

void trace::traceSizes(const Trace &trace, std::vector<int64_t> &sizes) {
  sizes.clear();
  for (const Node *node : trace.nodes)
    sizes.insert(sizes.end(), node->shape.begin(), node->shape.end());
}

uint64_t trace::shapeGenericSignature(const Trace &trace,
                                      std::vector<uint64_t> &signature) {
  signature.clear();
  // Unlike an eager signature (first word's bit 0), with donations.
  signature.push_back(
      2 | static_cast<uint64_t>(trace.device.kind()) << 8 |
      static_cast<uint64_t>(static_cast<uint16_t>(trace.device.index())) << 16);
  std::vector<char> isArgument(trace.nodes.size());
  for (int32_t index : trace.arguments)
    isArgument[index] = 1;
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const Node &node = *trace.nodes[i];
    if (isArgument[i]) {
      signature.push_back(static_cast<uint64_t>(node.dtype));
      signature.push_back(node.shape.size());
    } else {
      signature.push_back(shapeFreeHash(node));
    }
    std::span<const int32_t> operands = trace.operands(i);
    signature.push_back(~uint64_t(2) - operands.size()); // Operands follow.
    for (int32_t operand : operands)
      signature.push_back(static_cast<uint64_t>(operand));
  }
  signature.push_back(~uint64_t(0)); // Outputs follow.
  for (int32_t output : trace.outputs)
    signature.push_back(static_cast<uint64_t>(output));
  signature.push_back(~uint64_t(1)); // Ties follow.
  for (int32_t slot : trace.tiedArguments)
    signature.push_back(static_cast<uint64_t>(slot));
  return hashSignature(signature);
}

bool trace::sizesAreData(OpKind kind) {
  return kind == OpKind::Literal || kind == OpKind::Broadcast ||
         kind == OpKind::Reshape || kind == OpKind::RandomUniform ||
         kind == OpKind::RandomNormal;
}

void trace::stretchedSizes(const Trace &trace, std::vector<bool> &stretched) {
  std::vector<size_t> offsets;
  size_t offset = 0;
  for (const Node *node : trace.nodes) {
    offsets.push_back(offset);
    offset += node->shape.size();
  }
  stretched.assign(offset, false);
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const Node &node = *trace.nodes[i];
    if (node.kind != OpKind::Broadcast || node.isMaterialized())
      continue;
    int32_t input = trace.operands(i)[0];
    const std::vector<int64_t> &from = trace.nodes[input]->shape;
    size_t lead = node.shape.size() - from.size();
    for (size_t d = 0; d < from.size(); ++d)
      if (from[d] == 1 && node.shape[lead + d] != 1)
        stretched[offsets[input] + d] = true;
  }
}

void trace::specializedSizes(const Trace &trace,
                             std::vector<bool> &specialized) {
  static thread_local std::vector<size_t> offsets;
  offsets.assign(trace.nodes.size() + 1, 0);
  for (size_t i = 0; i < trace.nodes.size(); ++i)
    offsets[i + 1] = offsets[i] + trace.nodes[i]->shape.size();
  specialized.assign(offsets.back(), false);
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    if (trace.nodes[i]->kind != OpKind::Conv2d)
      continue;
    // Images [N, C, H, W], filters [F, C, KH, KW], result [N, F, OH, OW].
    std::span<const int32_t> operands = trace.operands(i);
    size_t images = offsets[operands[0]], filters = offsets[operands[1]];
    for (size_t at : {images + 1, filters, filters + 1, filters + 2,
                      filters + 3, offsets[i] + 1})
      specialized[at] = true;
  }
}

/// Calls `visit(position, dimension)` for each size runtimeSizes() lists,
/// in its order.
template <typename Visit>
static void forEachRuntimeSize(const Trace &trace,
                               const std::vector<bool> &dynamicSizes,
                               bool allDynamic, Visit visit) {
  static thread_local std::vector<bool> stretched;
  stretchedSizes(trace, stretched);
  size_t offset = 0;
  for (auto [position, node] : llvm::enumerate(trace.nodes)) {
    bool computed = !node->isMaterialized() && sizesAreData(node->kind);
    for (size_t d = 0; d < node->shape.size(); ++d, ++offset)
      if (computed && !stretched[offset] &&
          (allDynamic ||
           (offset < dynamicSizes.size() && dynamicSizes[offset])))
        visit(static_cast<int32_t>(position), d);
  }
}

void trace::runtimeSizes(const Trace &trace,
                         const std::vector<bool> &dynamicSizes, bool allDynamic,
                         std::vector<int64_t> &sizes) {
  sizes.clear();
  forEachRuntimeSize(trace, dynamicSizes, allDynamic,
                     [&](int32_t position, size_t d) {
                       sizes.push_back(trace.nodes[position]->shape[d]);
                     });
}

void trace::runtimeSizePositions(
    const Trace &trace, const std::vector<bool> &dynamicSizes,
    std::vector<std::pair<int32_t, size_t>> &positions) {
  positions.clear();
  forEachRuntimeSize(
      trace, dynamicSizes, false,
      [&](int32_t position, size_t d) { positions.emplace_back(position, d); });
}
