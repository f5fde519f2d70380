//===- RecordingTest.cpp - What recording an op leaves behind -------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The host side of recording, which the cached-trace benchmark depends on:
// scalar operands written at one place share a literal node without the
// traces noticing, the per-thread pending list keeps every held tensor that
// sync() must compute and counts the trace nodes it stands for, and node
// counts add up across threads.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/NodeAccess.h"
#include "lazyc/Trace/Node.h"
#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <cmath>
#include <optional>
#include <thread>
#include <vector>

using namespace lazyc;

namespace {

class RecordingTest : public ::testing::Test {
protected:
  void SetUp() override {
    lazyc::sync();
    trace::prunePending();
    clearCache();
    resetMetrics();
  }
};

const trace::Node &nodeOf(const Tensor &tensor) {
  return *detail::TensorAccess::node(tensor);
}

/// `x * 0.5f` four times, written once (one call site).
Tensor halveFourTimesInALoop(const Tensor &x) {
  Tensor y = x;
  for (int i = 0; i < 4; ++i)
    y = y * 0.5f;
  return y;
}

/// The same, written four times (four call sites).
Tensor halveFourTimesUnrolled(const Tensor &x) {
  Tensor y = x * 0.5f;
  y = y * 0.5f;
  y = y * 0.5f;
  return y * 0.5f;
}

TEST_F(RecordingTest, ScalarsWrittenOnceShareALiteralNode) {
  Tensor x = Tensor::fromVector<float>({1, 2, 3, 4}, {4});
  Tensor looped = halveFourTimesInALoop(x);
  Tensor unrolled = halveFourTimesUnrolled(x);
  // The last two multiplications' literal operands: one node in the loop,
  // two in the unrolled code.
  const trace::Node &last = nodeOf(looped);
  const trace::Node &beforeLast = *last.inputs[0];
  ASSERT_EQ(last.inputs[1]->kind, trace::OpKind::Literal);
  EXPECT_EQ(last.inputs[1].get(), beforeLast.inputs[1].get());
  const trace::Node &lastUnrolled = nodeOf(unrolled);
  EXPECT_NE(lastUnrolled.inputs[1].get(),
            lastUnrolled.inputs[0]->inputs[1].get());

  // The traces cannot tell: the unrolled one hits the looped one's entry.
  EXPECT_EQ(looped.toVector<float>(),
            (std::vector<float>{0.0625f, 0.125f, 0.1875f, 0.25f}));
  EXPECT_EQ(metrics().tracesCompiled, 1u);
  EXPECT_EQ(unrolled.toVector<float>(), looped.toVector<float>());
  EXPECT_EQ(metrics().tracesCompiled, 1u);
  EXPECT_EQ(metrics().cacheHits, 1u);
}

TEST_F(RecordingTest, ASharedLiteralIsStillPromotedPerUse) {
  // One call site alternates 0.5 with a factor that changes each step; at
  // step 1 the factor is 0.5 too, so all six uses share one literal node
  // there. The structure must not change with it: a baked trace and one
  // with the varying uses promoted, nothing else.
  const float factors[] = {2.0f, 0.5f, 3.0f, 4.0f, 0.25f};
  Tensor x = Tensor::fromVector<float>({1, -2, 4}, {3});
  for (float factor : factors) {
    Tensor y = x;
    for (int i = 0; i < 6; ++i)
      y = y * (i % 2 == 0 ? 0.5f : factor);
    std::vector<float> got = y.toVector<float>();
    double scale = std::pow(0.5, 3) * std::pow(double(factor), 3);
    std::vector<float> want = {float(1 * scale), float(-2 * scale),
                               float(4 * scale)};
    EXPECT_EQ(got, want) << "factor " << factor;
  }
  EXPECT_EQ(metrics().tracesCompiled, 2u);
  EXPECT_EQ(metrics().cacheHits, 3u);
}

TEST_F(RecordingTest, ALiteralOfAnotherShapeOrTypeIsNotShared) {
  // The same call site, with operands of two shapes and two dtypes.
  std::vector<Tensor> operands = {full({2}, 1.0f), full({3}, 1.0f),
                                  full({2}, 1.0, DType::Float64),
                                  full({2}, 4, DType::Int32)};
  std::vector<Tensor> results;
  for (const Tensor &operand : operands)
    results.push_back(operand + 2);
  EXPECT_EQ(results[0].toVector<float>(), std::vector<float>(2, 3.0f));
  EXPECT_EQ(results[1].toVector<float>(), std::vector<float>(3, 3.0f));
  EXPECT_EQ(results[2].toVector<double>(), std::vector<double>(2, 3.0));
  EXPECT_EQ(results[3].toVector<int32_t>(), std::vector<int32_t>(2, 6));
}

TEST_F(RecordingTest, SyncComputesEveryHeldTensorAfterManyPrunes) {
  // 300 held pending tensors, then a chain long enough to prune the pending
  // list several times while nothing on it is computed or freed.
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  std::vector<Tensor> held;
  for (int i = 0; i < 300; ++i)
    held.push_back(x + float(i));
  Tensor chain = x;
  for (int i = 0; i < 500; ++i)
    chain = chain + 1.0f;
  uint64_t before = metrics().materializations;
  lazyc::sync();
  EXPECT_EQ(metrics().materializations, before + 1);
  EXPECT_EQ(metrics().bySizeLimit, 0u);
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(held[i].isMaterialized()) << "tensor " << i;
    EXPECT_EQ(held[i].toVector<float>(),
              (std::vector<float>{1.0f + i, 2.0f + i}));
  }
  EXPECT_TRUE(chain.isMaterialized());
  EXPECT_EQ(chain.toVector<float>(), (std::vector<float>{501, 502}));
}

TEST_F(RecordingTest, PendingTraceNodesCountEveryUseOfALiteral) {
  ASSERT_EQ(trace::pendingTraceNodes(), 0u);
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  Tensor y = x;
  for (int i = 0; i < 10; ++i)
    y = y * 2.0f; // One literal node, ten trace nodes.
  EXPECT_EQ(trace::pendingTraceNodes(), 20u);
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{1024, 2048}));
  trace::prunePending();
  EXPECT_EQ(trace::pendingTraceNodes(), 0u);
  EXPECT_EQ(trace::pendingEntries(), 0u);
}

TEST_F(RecordingTest, NodeCountsAddUpAcrossThreads) {
  int64_t baseline = trace::liveNodeCount();
  std::optional<Tensor> made;
  std::thread([&] {
    Tensor x = full({4}, 1.0f);
    for (int i = 0; i < 5; ++i)
      x = x * 3.0f;
    made = std::move(x); // Still pending: its graph moves to this thread.
  }).join();
  // The literal 1 (full), the shared literal 3, five multiplications.
  EXPECT_EQ(trace::liveNodeCount() - baseline, 7);
  EXPECT_EQ(made->toVector<float>(), std::vector<float>(4, 243.0f));
  made.reset(); // Nodes made by the exited thread die on this one.
  EXPECT_EQ(trace::liveNodeCount() - baseline, 0);
}

} // namespace
