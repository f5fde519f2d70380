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

#include <atomic>

using namespace lazyc;
using namespace lazyc::trace;

/// A node's content hash with every dimension size replaced by its rank.
static uint64_t rankOnlyHash(const Node &node) {
  Node copy; // Only the content fields: no inputs, no value.
  copy.kind = node.kind;
  copy.dtype = node.dtype;
  copy.shape.assign(node.shape.size(), -1);
  copy.ints = node.ints;
  copy.ints2 = node.ints2;
  copy.ints3 = node.ints3;
  copy.scalar = node.scalar;
  copy.scalar2 = node.scalar2;
  copy.integer = node.integer;
  copy.flag = node.flag;
  copy.predicate = node.predicate;
  copy.computeContentHash();
  return copy.contentHash;
}

static bool isLeaf(const Node &node) {
  return node.isMaterialized() || node.kind == OpKind::Literal;
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
  struct Frame {
    Node *node;
    size_t nextInput;
  };
  static thread_local std::vector<Frame> stack;
  stack.clear();

  for (Node *root : requested) {
    if (visited(root))
      continue;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      Node *node = stack.back().node;
      size_t &next = stack.back().nextInput;
      if (!isLeaf(*node) && next < node->inputs.size()) {
        Node *input = node->inputs[next++].get();
        if (!visited(input))
          stack.push_back({input, 0});
        continue;
      }
      stack.pop_back();
      if (visited(node))
        continue;
      int32_t index = static_cast<int32_t>(trace.nodes.size());
      node->visitedBy = visit;
      node->position = index;
      trace.nodes.push_back(node);
      if (!isLeaf(*node))
        for (const NodePtr &input : node->inputs)
          trace.operandList.push_back(input->position);
      trace.operandStart.push_back(
          static_cast<int32_t>(trace.operandList.size()));
      if (node->isMaterialized())
        trace.arguments.push_back(index);
      else if (node->kind == OpKind::Literal)
        trace.literals.push_back(index);
    }
  }

  // Outputs: what was asked for, and every value a handle still holds
  // (a literal too: `full({}, 2.0f)` is a tensor whose value is a literal).
  // Requested values are marked by a negative position for the moment.
  for (Node *root : requested)
    if (!root->isMaterialized() && root->position >= 0)
      root->position = -2 - root->position;
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    Node *node = trace.nodes[i];
    bool isRequested = node->position < -1;
    if (isRequested)
      node->position = static_cast<int32_t>(i);
    if (isRequested ||
        (!node->isMaterialized() && node->handles.load() > 0))
      trace.outputs.push_back(static_cast<int32_t>(i));
  }

  // The signature lists the structure word by word; the key hashes it.
  std::vector<uint64_t> &signature = trace.signature;
  signature.clear();
  signature.push_back(dynamicShapes);
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const Node &node = *trace.nodes[i];
    if (node.isMaterialized()) {
      // An argument is its type, whatever op once produced it.
      signature.push_back(static_cast<uint64_t>(node.dtype));
      signature.push_back(node.shape.size());
      if (!dynamicShapes)
        for (int64_t dim : node.shape)
          signature.push_back(static_cast<uint64_t>(dim));
      continue;
    }
    signature.push_back(dynamicShapes ? rankOnlyHash(node) : node.contentHash);
    for (int32_t operand : trace.operands(i))
      signature.push_back(static_cast<uint64_t>(operand));
  }
  signature.push_back(~uint64_t(0)); // Outputs follow.
  for (int32_t output : trace.outputs)
    signature.push_back(static_cast<uint64_t>(output));
  uint64_t key = 0x84222325CBF29CE4ULL;
  for (uint64_t word : signature)
    mixHash(key, word);
  trace.key = key;
}
