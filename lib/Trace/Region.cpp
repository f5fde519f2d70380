//===- Region.cpp - The bodies of control-flow nodes ----------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/Trace/Region.h"

#include <mutex>
#include <optional>

using namespace lazyc;
using namespace lazyc::trace;

int32_t Captures::operandOf(const NodePtr &node) {
  // A literal no handle holds is one operand per use, as it is one trace
  // node per use: the structure must not depend on literal sharing.
  if (!isPerUseLiteral(*node)) {
    auto [it, inserted] =
        index.try_emplace(node.get(), firstOperand + captured.size());
    if (!inserted)
      return it->second;
  }
  captured.push_back(node);
  return firstOperand + static_cast<int32_t>(captured.size()) - 1;
}

Region trace::extractRegion(const std::vector<NodePtr> &results,
                            const RegionRecorder &recorder,
                            Captures &captures) {
  Region region;
  Trace &body = region.body;
  body.operandStart.assign(1, 0);
  llvm::DenseMap<const Node *, int32_t> position;

  auto isRegionNode = [&](const Node &node) {
    return recorder.recordedHere(&node) && !node.isMaterialized() &&
           node.kind != OpKind::Literal;
  };
  auto emit = [&](const NodePtr &node) {
    int32_t index = static_cast<int32_t>(body.nodes.size());
    body.nodes.push_back(node.get());
    region.owned.push_back(node);
    if (!isRegionNode(*node)) {
      body.arguments.push_back(index);
      region.captureOperands.push_back(captures.operandOf(node));
    } else {
      for (const NodePtr &input : node->inputs)
        body.operandList.push_back(position.at(input.get()));
    }
    body.operandStart.push_back(static_cast<int32_t>(body.operandList.size()));
    return index;
  };

  // Post-order without recursion. A per-use literal is emitted at each use.
  struct Frame {
    const NodePtr *node;
    size_t next;
  };
  std::vector<Frame> stack;
  auto visit = [&](const NodePtr &node) -> std::optional<int32_t> {
    if (isPerUseLiteral(*node))
      return emit(node);
    if (auto it = position.find(node.get()); it != position.end())
      return it->second;
    if (!isRegionNode(*node))
      return position[node.get()] = emit(node);
    stack.push_back({&node, 0});
    return std::nullopt;
  };
  for (const NodePtr &result : results) {
    if (auto done = visit(result)) {
      body.outputs.push_back(*done);
      continue;
    }
    while (!stack.empty()) {
      Frame &frame = stack.back();
      const Node &node = **frame.node;
      if (frame.next < node.inputs.size()) {
        const NodePtr &input = node.inputs[frame.next++];
        if (!isPerUseLiteral(*input))
          (void)visit(input);
        continue;
      }
      // Per-use literal operands, then the node itself.
      llvm::SmallVector<int32_t, 2> operands;
      for (const NodePtr &input : node.inputs)
        operands.push_back(isPerUseLiteral(*input) ? emit(input)
                                                   : position.at(input.get()));
      int32_t index = static_cast<int32_t>(body.nodes.size());
      body.nodes.push_back(frame.node->get());
      region.owned.push_back(*frame.node);
      body.operandList.insert(body.operandList.end(), operands.begin(),
                              operands.end());
      body.operandStart.push_back(
          static_cast<int32_t>(body.operandList.size()));
      position[frame.node->get()] = index;
      stack.pop_back();
    }
    body.outputs.push_back(position.at(result.get()));
  }
  return region;
}

uint64_t trace::regionsHash(const Regions &regions) {
  uint64_t hash = 0x243F6A8885A308D3ULL;
  mixHash(hash, regions.regions.size() | uint64_t(regions.carried) << 8 |
                    uint64_t(regions.userCarried) << 24 |
                    uint64_t(regions.stacked) << 40);
  mixHash(hash, static_cast<uint64_t>(regions.maxIterations));
  for (const Region &region : regions.regions) {
    const Trace &body = region.body;
    mixHash(hash, body.nodes.size());
    size_t capture = 0;
    for (size_t i = 0; i < body.nodes.size(); ++i) {
      if (capture < body.arguments.size() &&
          body.arguments[capture] == static_cast<int32_t>(i)) {
        // A capture is its operand slot: the operand's type is in the
        // enclosing trace's signature.
        mixHash(hash, 0xCA97u | uint64_t(region.captureOperands[capture++])
                                    << 16);
        continue;
      }
      mixHash(hash, body.nodes[i]->contentHash);
      for (int32_t operand : body.operands(i))
        mixHash(hash, static_cast<uint64_t>(operand));
    }
    mixHash(hash, body.outputs.size());
    for (int32_t output : body.outputs)
      mixHash(hash, static_cast<uint64_t>(output));
  }
  return hash;
}

//===----------------------------------------------------------------------===//
// Attaching regions to nodes
//===----------------------------------------------------------------------===//

// A side table, not a Node field: control flow is rare, and every node
// fills a 256-byte pool block already.
namespace {
struct RegionTable {
  std::mutex mutex;
  llvm::DenseMap<const Node *, std::shared_ptr<const Regions>> regions;
};
RegionTable &regionTable() {
  static RegionTable *table = new RegionTable; // Outlives every node.
  return *table;
}
} // namespace

void trace::setRegions(Node &node, std::shared_ptr<const Regions> regions) {
  RegionTable &table = regionTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.regions[&node] = std::move(regions);
}

const Regions &trace::regionsOf(const Node &node) {
  RegionTable &table = regionTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  return *table.regions.at(&node);
}

std::shared_ptr<const Regions> trace::sharedRegionsOf(const Node &node) {
  RegionTable &table = regionTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  return table.regions.at(&node);
}

NodePtr trace::cloneNode(const Node &node, NodeInputs inputs) {
  NodePtr copy = makeNode();
  copy->kind = node.kind;
  copy->dtype = node.dtype;
  copy->flag = node.flag;
  copy->predicate = node.predicate;
  copy->device = node.device;
  copy->shape = node.shape;
  copy->inputs = std::move(inputs);
  copy->ints = node.ints;
  copy->ints2 = node.ints2;
  copy->ints3 = node.ints3;
  copy->scalar = node.scalar;
  copy->scalar2 = node.scalar2;
  copy->integer = node.integer;
  copy->loc = node.loc;
  copy->contentHash = node.contentHash;
  if (hasRegions(node.kind))
    setRegions(*copy, sharedRegionsOf(node));
  return copy;
}

void trace::releaseRegions(const Node &node) {
  std::shared_ptr<const Regions> regions;
  {
    RegionTable &table = regionTable();
    std::lock_guard<std::mutex> lock(table.mutex);
    auto it = table.regions.find(&node);
    if (it == table.regions.end())
      return;
    regions = std::move(it->second);
    table.regions.erase(it);
  }
  // The bodies die here, outside the lock (a body may hold control flow
  // of its own).
}
