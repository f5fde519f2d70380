//===- BlocksTest.cpp - Tests of the repeated-block search ----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Tests trace::findRepeatedBlocks (lib/Trace/Blocks.cpp) on hand-built
// graphs: a stack of identical layers is cut into one segment per layer,
// at the layers' boundaries (where only the running value crosses); small
// traces, stretches without repeats and short repeated patterns stay whole,
// but for short copies that share only a scalar and do enough work.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Trace/Blocks.h"
#include "Trace/NodeBuilders.h"

#include "gtest/gtest.h"

#include <vector>

using namespace lazyc;
using namespace lazyc::trace;
using namespace lazyc::trace::build;

namespace {

/// The elementwise ops of one layer, in an order with no repeat shorter
/// than the layer.
constexpr OpKind kLayerOps[] = {
    OpKind::Mul,  OpKind::Add,  OpKind::Exp,  OpKind::Sub,  OpKind::Tanh,
    OpKind::Mul,  OpKind::Mul,  OpKind::Add,  OpKind::Neg,  OpKind::Exp,
    OpKind::Tanh, OpKind::Sub,  OpKind::Add,  OpKind::Add,  OpKind::Mul,
    OpKind::Neg,  OpKind::Exp,  OpKind::Exp,  OpKind::Tanh, OpKind::Sub,
    OpKind::Mul,  OpKind::Neg,  OpKind::Tanh, OpKind::Add,  OpKind::Sub,
    OpKind::Sub,  OpKind::Exp,  OpKind::Mul,  OpKind::Neg,  OpKind::Neg,
    OpKind::Add,  OpKind::Tanh, OpKind::Mul,  OpKind::Exp,  OpKind::Sub,
    OpKind::Tanh, OpKind::Add,  OpKind::Neg,  OpKind::Mul,  OpKind::Exp};

bool isBinary(OpKind kind) {
  return kind == OpKind::Add || kind == OpKind::Sub || kind == OpKind::Mul;
}

/// A layer over `x` with its own weight: a chain of kLayerOps whose binary
/// ops read the weight, and in the middle two branches from the chain that
/// join again (values that cross a cut placed there). The weight is
/// returned in `weight`.
NodePtr layer(const NodePtr &x, NodePtr &weight) {
  weight = computed(DType::Float32, {4, 8});
  NodePtr value = x;
  NodePtr branch;
  int step = 0;
  for (OpKind kind : kLayerOps) {
    value = isBinary(kind) ? elementwise(kind, {value, weight})
                           : elementwise(kind, {value});
    if (++step == 10)
      branch = value;
    if (step == 30)
      value = elementwise(OpKind::Add, {value, branch});
  }
  return value;
}

/// `layers` layers from a computed input; the trace of their output, and
/// each layer's weight.
struct Stack {
  std::vector<NodePtr> weights;
  NodePtr output;
  Trace trace;
};

Stack stackOf(int layers) {
  Stack stack;
  NodePtr x = computed(DType::Float32, {4, 8});
  for (int l = 0; l < layers; ++l) {
    NodePtr weight;
    x = layer(x, weight);
    stack.weights.push_back(weight);
  }
  stack.output = x;
  stack.trace = extractTrace({x.get()});
  return stack;
}

/// The position of `node` in `trace`, or -1.
int32_t positionOf(const Trace &trace, const NodePtr &node) {
  for (size_t i = 0; i < trace.nodes.size(); ++i)
    if (trace.nodes[i] == node.get())
      return static_cast<int32_t>(i);
  return -1;
}

TEST(BlocksTest, CutsAStackOfLayersAtTheLayers) {
  const int layers = 30;
  Stack stack = stackOf(layers);
  const Trace &trace = stack.trace;
  ASSERT_GE(trace.nodes.size(), size_t(BlockSearchOptions().minTraceNodes));

  // A layer spans the positions from its weight to the next layer's.
  int32_t first = positionOf(trace, stack.weights[0]);
  int32_t second = positionOf(trace, stack.weights[1]);
  ASSERT_GE(first, 0);
  int32_t layerLength = second - first;
  ASSERT_EQ(layerLength, static_cast<int32_t>(std::size(kLayerOps)) + 2);

  BlockCut cut = findRepeatedBlocks(trace);
  ASSERT_EQ(cut.blocks.size(), 1u);
  const RepeatedBlock &block = cut.blocks.front();
  EXPECT_EQ(block.length, layerLength);
  // Every layer but possibly the first is a copy (the first reads the
  // input, an argument, where the others read the previous layer).
  EXPECT_GE(block.count, layers - 1);

  // Each copy starts at a layer's boundary, where only the running value
  // crosses: at its weight or at the op reading it.
  for (int32_t copy = 0; copy < block.count; ++copy) {
    int32_t start = block.start + copy * block.length;
    bool atBoundary = false;
    for (const NodePtr &weight : stack.weights) {
      int32_t at = positionOf(trace, weight);
      atBoundary = atBoundary || start == at || start == at + 1;
    }
    EXPECT_TRUE(atBoundary) << "copy " << copy << " starts at " << start;
  }

  // The segments: what comes before the copies, one per copy, and what
  // comes after them, in order.
  ASSERT_FALSE(cut.segmentStarts.empty());
  EXPECT_EQ(cut.segmentStarts.front(), 0);
  EXPECT_TRUE(
      std::is_sorted(cut.segmentStarts.begin(), cut.segmentStarts.end()));
  for (int32_t copy = 0; copy < block.count; ++copy)
    EXPECT_NE(std::find(cut.segmentStarts.begin(), cut.segmentStarts.end(),
                        block.start + copy * block.length),
              cut.segmentStarts.end());
}

TEST(BlocksTest, SmallTracesStayWhole) {
  Stack stack = stackOf(10);
  ASSERT_LT(stack.trace.nodes.size(),
            size_t(BlockSearchOptions().minTraceNodes));
  BlockCut cut = findRepeatedBlocks(stack.trace);
  EXPECT_TRUE(cut.segmentStarts.empty());
  EXPECT_TRUE(cut.blocks.empty());

  // The same layers, searched with a lower bound, are cut.
  BlockSearchOptions options;
  options.minTraceNodes = 100;
  EXPECT_FALSE(findRepeatedBlocks(stack.trace, options).blocks.empty());
}

TEST(BlocksTest, ShortRepeatsStayWhole) {
  // A 3-op recurrence a thousand times: fused whole, not cut per step.
  NodePtr x = computed(DType::Float32, {16});
  NodePtr w = computed(DType::Float32, {16});
  for (int i = 0; i < 1000; ++i)
    x = elementwise(
        OpKind::Tanh,
        {elementwise(OpKind::Add, {elementwise(OpKind::Mul, {x, w}), w})});
  Trace trace = extractTrace({x.get()});
  BlockCut cut = findRepeatedBlocks(trace);
  EXPECT_TRUE(cut.segmentStarts.empty());
}

/// `copies` copies of a short stretch over [rows, 64] values, as a model's
/// weight gradients after its backward pass: each copy computes a value
/// from two inputs of its own and adds the sum of its squares to a running
/// scalar (gradient clipping's norm). With `carryTensor`, each copy also
/// reads the previous copy's value (a recurrence over a tensor). The
/// trace, and the nodes it points to.
struct Copies {
  std::vector<NodePtr> held;
  Trace trace;
};

Copies shortCopies(int copies, int64_t rows, bool carryTensor) {
  constexpr OpKind kOps[] = {
      OpKind::Mul, OpKind::Exp, OpKind::Add, OpKind::Tanh, OpKind::Sub,
      OpKind::Neg, OpKind::Mul, OpKind::Exp, OpKind::Add,  OpKind::Tanh};
  NodePtr total = computed(DType::Float32, {});
  NodePtr previous = computed(DType::Float32, {rows, 64});
  std::vector<NodePtr> values;
  for (int c = 0; c < copies; ++c) {
    NodePtr a = computed(DType::Float32, {rows, 64});
    NodePtr b = computed(DType::Float32, {rows, 64});
    NodePtr value = carryTensor ? elementwise(OpKind::Add, {a, previous}) : a;
    for (OpKind kind : kOps)
      value = isBinary(kind) ? elementwise(kind, {value, b})
                             : elementwise(kind, {value});
    NodePtr squares =
        pending(OpKind::ReduceSum, DType::Float32, {},
                {elementwise(OpKind::Mul, {value, value})}, [](Node &node) {
                  node.ints = {0, 1};
                  node.flag = false;
                });
    total = elementwise(OpKind::Add, {total, squares});
    values.push_back(value);
    previous = value;
  }
  Copies result;
  result.held = values;
  result.held.push_back(total);
  std::vector<Node *> requested;
  for (const NodePtr &node : result.held)
    requested.push_back(node.get());
  result.trace = extractTrace(requested);
  return result;
}

TEST(BlocksTest, CutsShortCopiesThatCarryAScalar) {
  // Each copy is 13 ops: shorter than minBlockLength, but the copies share
  // only the running scalar, and each computes 11 x 8192 elements.
  Copies copies = shortCopies(40, 128, /*carryTensor=*/false);
  const Trace &trace = copies.trace;
  ASSERT_GE(trace.nodes.size(), size_t(BlockSearchOptions().minTraceNodes));
  BlockCut cut = findRepeatedBlocks(trace);
  ASSERT_EQ(cut.blocks.size(), 1u);
  const RepeatedBlock &block = cut.blocks.front();
  EXPECT_LT(block.length, BlockSearchOptions().minBlockLength);
  EXPECT_GE(block.length, BlockSearchOptions().minIndependentBlockLength);
  EXPECT_GE(block.count, 38);
  EXPECT_GE(cut.segmentStarts.size(), size_t(block.count));
}

TEST(BlocksTest, ShortCopiesThatCarryATensorStayWhole) {
  // The same copies, each also reading the previous copy's [128, 64]
  // value: a recurrence, which fuses better whole.
  Copies copies = shortCopies(40, 128, /*carryTensor=*/true);
  const Trace &trace = copies.trace;
  ASSERT_GE(trace.nodes.size(), size_t(BlockSearchOptions().minTraceNodes));
  EXPECT_TRUE(findRepeatedBlocks(trace).segmentStarts.empty());
}

TEST(BlocksTest, ShortCopiesOfLittleWorkStayWhole) {
  // Independent copies over [4, 64] values: a call per copy would cost
  // more than its work.
  Copies copies = shortCopies(40, 4, /*carryTensor=*/false);
  const Trace &trace = copies.trace;
  ASSERT_GE(trace.nodes.size(), size_t(BlockSearchOptions().minTraceNodes));
  EXPECT_TRUE(findRepeatedBlocks(trace).segmentStarts.empty());
}

TEST(BlocksTest, TracesWithoutRepeatsStayWhole) {
  // Every op has its own shape: nothing comes back.
  NodePtr x = computed(DType::Float32, {1});
  for (int64_t i = 2; i < 1200; ++i) {
    NodePtr wider = pending(OpKind::Broadcast, DType::Float32, {i}, {x},
                            [&](Node &node) { node.ints = {i}; });
    x = elementwise(OpKind::Exp, {wider});
    x = pending(OpKind::ReduceSum, DType::Float32, {1}, {x}, [](Node &node) {
      node.ints = {0};
      node.flag = true;
    });
  }
  Trace trace = extractTrace({x.get()});
  ASSERT_GE(trace.nodes.size(), size_t(BlockSearchOptions().minTraceNodes));
  EXPECT_TRUE(findRepeatedBlocks(trace).segmentStarts.empty());
}

TEST(BlocksTest, ValuesAcrossCutsLookThroughViews) {
  // Segment 0: a = exp(x), v = reshape(a), s = tanh(a); segment 1:
  // b = v * v, c = s + b. The cut stores a, not its view v: segment 1
  // recomputes v from a.
  NodePtr x = computed(DType::Float32, {2, 3});
  NodePtr a = elementwise(OpKind::Exp, {x});
  NodePtr v = pending(OpKind::Reshape, DType::Float32, {3, 2}, {a},
                      [](Node &node) { node.ints = {3, 2}; });
  NodePtr s = pending(OpKind::Reshape, DType::Float32, {3, 2},
                      {elementwise(OpKind::Tanh, {a})},
                      [](Node &node) { node.ints = {3, 2}; });
  NodePtr b = elementwise(OpKind::Mul, {v, v});
  NodePtr c = elementwise(OpKind::Add, {s, b});
  Trace trace = extractTrace({c.get()});
  int32_t atB = positionOf(trace, b);
  ASSERT_GT(atB, positionOf(trace, s));

  BlockCut cut;
  cut.segmentStarts = {0, atB};
  std::vector<CutValue> values = valuesAcrossCuts(trace, cut);
  // a (read through v), tanh(a) (read through its reshape), and the
  // output c.
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(trace.nodes[values[0].position], a.get());
  EXPECT_EQ(values[0].segment, 0);
  EXPECT_EQ(values[0].lastReader, 1);
  EXPECT_EQ(trace.nodes[values[0].reader], v.get());
  EXPECT_EQ(values[0].slot, 0);
  EXPECT_EQ(trace.nodes[values[1].position], s->inputs[0].get());
  EXPECT_EQ(values[1].lastReader, 1);
  EXPECT_EQ(trace.nodes[values[2].position], c.get());
  EXPECT_EQ(values[2].segment, 1);
  EXPECT_EQ(values[2].reader, -1);
}

} // namespace
