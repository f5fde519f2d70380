//===- NodeTest.cpp - Tests of the lazy graph's nodes ---------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Tests lib/Trace/Node.cpp on hand-built nodes: what a node's content hash
// covers, that nodes from the pool start empty, that the live-node count
// follows nodes across threads, and the per-thread pending list (what it
// counts, when nodes leave it, which nodes it reports as held).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Trace/Node.h"
#include "Trace/NodeBuilders.h"

#include "gtest/gtest.h"

#include <string>
#include <thread>
#include <vector>

using namespace lazyc;
using namespace lazyc::trace;
using namespace lazyc::trace::build;

namespace {

//===----------------------------------------------------------------------===//
// Content hashes
//===----------------------------------------------------------------------===//

TEST(NodeTest, ContentHashLeavesOutLiteralValues) {
  EXPECT_EQ(literal(0.5, DType::Float32, {4})->contentHash,
            literal(-3.0, DType::Float32, {4})->contentHash);
  // The literal's type is content.
  EXPECT_NE(literal(0.5, DType::Float32, {4})->contentHash,
            literal(0.5, DType::Float64, {4})->contentHash);
  EXPECT_NE(literal(0.5, DType::Float32, {4})->contentHash,
            literal(0.5, DType::Float32, {2, 2})->contentHash);
}

TEST(NodeTest, ContentHashLeavesOutInputs) {
  NodePtr a = computed(DType::Float32, {4});
  NodePtr b = computed(DType::Float32, {4});
  EXPECT_EQ(elementwise(OpKind::Exp, {a})->contentHash,
            elementwise(OpKind::Exp, {b})->contentHash);
  EXPECT_EQ(elementwise(OpKind::Add, {a, b})->contentHash,
            elementwise(OpKind::Add, {b, a})->contentHash);
}

TEST(NodeTest, ContentHashCoversKindTypeAndAttributes) {
  NodePtr a = computed(DType::Float32, {3, 3});
  auto hashOf = [&](OpKind kind, DType dtype, Shape shape,
                    llvm::function_ref<void(Node &)> setAttributes) {
    return pending(kind, dtype, std::move(shape), {a}, setAttributes)
        ->contentHash;
  };
  auto none = [](Node &) {};
  uint64_t exp = hashOf(OpKind::Exp, DType::Float32, {3, 3}, none);
  EXPECT_NE(exp, hashOf(OpKind::Log, DType::Float32, {3, 3}, none));
  EXPECT_NE(exp, hashOf(OpKind::Exp, DType::Float64, {3, 3}, none));
  EXPECT_NE(exp, hashOf(OpKind::Exp, DType::Float32, {9}, none));
  EXPECT_NE(exp, hashOf(OpKind::Exp, DType::Float32, {3, 4}, none));

  // Each attribute field, alone, changes the hash.
  uint64_t sum = hashOf(OpKind::ReduceSum, DType::Float32, {3},
                        [](Node &n) { n.ints = {0}; });
  EXPECT_NE(sum, hashOf(OpKind::ReduceSum, DType::Float32, {3},
                        [](Node &n) { n.ints = {1}; }));
  EXPECT_NE(sum, hashOf(OpKind::ReduceSum, DType::Float32, {3}, [](Node &n) {
              n.ints = {0};
              n.flag = true;
            }));
  auto slice = [](int64_t step) {
    return [step](Node &n) {
      n.ints = {0, 0};
      n.ints2 = {3, 3};
      n.ints3 = {1, step};
    };
  };
  EXPECT_NE(hashOf(OpKind::Slice, DType::Float32, {3, 3}, slice(1)),
            hashOf(OpKind::Slice, DType::Float32, {3, 3}, slice(2)));
  // The same values split differently between the lists.
  EXPECT_NE(hashOf(OpKind::Slice, DType::Float32, {3, 3},
                   [](Node &n) {
                     n.ints = {1, 2};
                     n.ints2 = {3};
                   }),
            hashOf(OpKind::Slice, DType::Float32, {3, 3}, [](Node &n) {
              n.ints = {1};
              n.ints2 = {2, 3};
            }));
  EXPECT_NE(hashOf(OpKind::Compare, DType::Bool, {3, 3},
                   [](Node &n) { n.predicate = Predicate::Lt; }),
            hashOf(OpKind::Compare, DType::Bool, {3, 3},
                   [](Node &n) { n.predicate = Predicate::Gt; }));
  EXPECT_NE(hashOf(OpKind::Softmax, DType::Float32, {3, 3},
                   [](Node &n) { n.integer = 0; }),
            hashOf(OpKind::Softmax, DType::Float32, {3, 3},
                   [](Node &n) { n.integer = 1; }));
  // Random parameters are structure, unlike a literal's value.
  auto uniform = [](double low, double high) {
    return [low, high](Node &n) {
      n.scalar = low;
      n.scalar2 = high;
      n.integer = 7;
    };
  };
  uint64_t random =
      hashOf(OpKind::RandomUniform, DType::Float32, {3}, uniform(0, 1));
  EXPECT_NE(random,
            hashOf(OpKind::RandomUniform, DType::Float32, {3}, uniform(-1, 1)));
  EXPECT_NE(random,
            hashOf(OpKind::RandomUniform, DType::Float32, {3}, uniform(0, 2)));
}

//===----------------------------------------------------------------------===//
// The node pool and the live-node count
//===----------------------------------------------------------------------===//

TEST(NodeTest, NodesFromThePoolStartEmpty) {
  // Fill and free a few nodes, so the next ones reuse their blocks and
  // shape buffers.
  for (int i = 0; i < 4; ++i) {
    NodePtr used = makeNode();
    used->kind = OpKind::Slice;
    used->dtype = DType::Int64;
    used->flag = true;
    used->predicate = Predicate::Ge;
    used->shape = {1, 2, 3};
    used->inputs.push_back(makeNode());
    used->ints = {4};
    used->ints2 = {5};
    used->ints3 = {6};
    used->scalar = 1.5;
    used->scalar2 = 2.5;
    used->integer = 7;
    used->loc = {"model.cpp", 12};
    used->computeContentHash();
    used->handles.store(3);
    used->value = placeholderValue();
  }
  for (int i = 0; i < 4; ++i) {
    NodePtr node = makeNode();
    EXPECT_FALSE(node->flag);
    EXPECT_EQ(node->predicate, Predicate::Eq);
    EXPECT_EQ(node->position, -1);
    EXPECT_TRUE(node->shape.empty());
    EXPECT_TRUE(node->inputs.empty());
    EXPECT_TRUE(node->ints.empty());
    EXPECT_TRUE(node->ints2.empty());
    EXPECT_TRUE(node->ints3.empty());
    EXPECT_EQ(node->scalar, 0.0);
    EXPECT_EQ(node->scalar2, 0.0);
    EXPECT_EQ(node->integer, 0);
    EXPECT_EQ(node->loc.line, 0u);
    EXPECT_EQ(node->contentHash, 0u);
    EXPECT_EQ(node->visitedBy, 0u);
    EXPECT_EQ(node->handles.load(), 0);
    EXPECT_FALSE(node->isMaterialized());
    EXPECT_EQ(node->numel(), 1); // Rank 0: one element.
  }
}

TEST(NodeTest, NumelMultipliesTheDimensions) {
  EXPECT_EQ(computed(DType::Float32, {2, 3, 4})->numel(), 24);
  EXPECT_EQ(computed(DType::Float32, {5, 0})->numel(), 0);
  EXPECT_EQ(computed(DType::Float32, {})->numel(), 1);
}

TEST(NodeTest, LiveNodeCountFollowsNodesAcrossThreads) {
  const int64_t baseline = liveNodeCount();
  NodePtr a = makeNode();
  NodePtr b = makeNode();
  EXPECT_EQ(liveNodeCount() - baseline, 2);
  // Made on a thread that has exited, freed on this one.
  NodePtr kept;
  std::thread([&kept] {
    NodePtr input = makeNode();
    kept = makeNode();
    kept->inputs.push_back(input);
  }).join();
  EXPECT_EQ(liveNodeCount() - baseline, 4);
  kept.reset(); // And its input with it.
  EXPECT_EQ(liveNodeCount() - baseline, 2);
  a.reset();
  b.reset();
  EXPECT_EQ(liveNodeCount() - baseline, 0);
}

//===----------------------------------------------------------------------===//
// The pending list
//===----------------------------------------------------------------------===//

class PendingListTest : public ::testing::Test {
protected:
  void SetUp() override {
    prunePending();
    entries = pendingEntries();
    traceNodes = pendingTraceNodes();
    held = heldPendingNodes().size();
  }

  /// This thread's held pending nodes that this test added.
  std::vector<Node *> heldSinceSetUp() const {
    std::vector<Node *> nodes = heldPendingNodes();
    EXPECT_GE(nodes.size(), held);
    return std::vector<Node *>(nodes.begin() + held, nodes.end());
  }

  size_t entries = 0, traceNodes = 0, held = 0;
};

TEST_F(PendingListTest, CountsEntriesAndTheTraceNodesTheyStandFor) {
  NodePtr a = elementwise(OpKind::Neg, {computed(DType::Float32, {2})});
  NodePtr b = elementwise(OpKind::Exp, {computed(DType::Float32, {2})});
  addPending(a, 2);
  addPending(b, 3);
  EXPECT_EQ(pendingEntries(), entries + 2);
  EXPECT_EQ(pendingTraceNodes(), traceNodes + 5);
  a.reset();
  b.reset();
  prunePending();
  EXPECT_EQ(pendingEntries(), entries);
  EXPECT_EQ(pendingTraceNodes(), traceNodes);
}

TEST_F(PendingListTest, ADeadNodeLeavesTheCountAtOnceAndItsEntryAtPrune) {
  NodePtr a = elementwise(OpKind::Neg, {computed(DType::Float32, {2})});
  NodePtr b = elementwise(OpKind::Exp, {computed(DType::Float32, {2})});
  addPending(a, 2);
  addPending(b, 3);
  b.reset();
  EXPECT_EQ(pendingTraceNodes(), traceNodes + 2);
  EXPECT_EQ(pendingEntries(), entries + 2);
  prunePending();
  EXPECT_EQ(pendingEntries(), entries + 1);
  EXPECT_EQ(pendingTraceNodes(), traceNodes + 2);
}

TEST_F(PendingListTest, AComputedNodeLeavesAtTheNextPrune) {
  NodePtr a = elementwise(OpKind::Neg, {computed(DType::Float32, {2})});
  NodePtr b = elementwise(OpKind::Exp, {computed(DType::Float32, {2})});
  addPending(a, 2);
  addPending(b, 3);
  a->value = placeholderValue();
  EXPECT_EQ(pendingEntries(), entries + 2);
  EXPECT_EQ(pendingTraceNodes(), traceNodes + 5);
  prunePending();
  EXPECT_EQ(pendingEntries(), entries + 1);
  EXPECT_EQ(pendingTraceNodes(), traceNodes + 3);
  // A node that stays pending survives any number of prunes.
  prunePending();
  prunePending();
  EXPECT_EQ(pendingEntries(), entries + 1);
  EXPECT_EQ(pendingTraceNodes(), traceNodes + 3);
}

TEST_F(PendingListTest, ReportsHeldUncomputedNodesInRecordingOrder) {
  NodePtr first = elementwise(OpKind::Neg, {computed(DType::Float32, {2})});
  NodePtr unheld = elementwise(OpKind::Exp, {computed(DType::Float32, {2})});
  NodePtr second = elementwise(OpKind::Abs, {computed(DType::Float32, {2})});
  NodePtr third = elementwise(OpKind::Log, {computed(DType::Float32, {2})});
  hold(first);
  hold(second, 2);
  hold(third);
  addPending(first, 1);
  addPending(unheld, 1);
  addPending(second, 1);
  addPending(third, 1);
  EXPECT_EQ(heldSinceSetUp(),
            (std::vector<Node *>{first.get(), second.get(), third.get()}));
  // Computed: no longer held pending work, before any prune.
  second->value = placeholderValue();
  EXPECT_EQ(heldSinceSetUp(), (std::vector<Node *>{first.get(), third.get()}));
  // Pruning keeps the order of what stays.
  prunePending();
  EXPECT_EQ(heldSinceSetUp(), (std::vector<Node *>{first.get(), third.get()}));
  third.reset();
  EXPECT_EQ(heldSinceSetUp(), (std::vector<Node *>{first.get()}));
  first->handles.store(0);
  EXPECT_TRUE(heldSinceSetUp().empty());
}

TEST_F(PendingListTest, ANodeRecordedOnAnotherThreadIsNotOnThisList) {
  NodePtr made;
  std::thread([&made] {
    made = elementwise(OpKind::Neg, {computed(DType::Float32, {2})});
    hold(made);
    addPending(made, 4);
  }).join();
  EXPECT_EQ(pendingEntries(), entries);
  EXPECT_EQ(pendingTraceNodes(), traceNodes);
  EXPECT_TRUE(heldSinceSetUp().empty());
  made.reset(); // Its list went with its thread.
  EXPECT_EQ(pendingTraceNodes(), traceNodes);
}

//===----------------------------------------------------------------------===//
// Op names
//===----------------------------------------------------------------------===//

TEST(NodeTest, OpNamesAreTheUsersFunctionNames) {
  // The C++ API's spelling, not the dialect's (diagnostics speak the
  // user's language).
  EXPECT_EQ(std::string(opName(OpKind::Add)), "add");
  EXPECT_EQ(std::string(opName(OpKind::Max)), "maximum");
  EXPECT_EQ(std::string(opName(OpKind::Min)), "minimum");
  EXPECT_EQ(std::string(opName(OpKind::Select)), "where");
  EXPECT_EQ(std::string(opName(OpKind::Broadcast)), "broadcastTo");
  EXPECT_EQ(std::string(opName(OpKind::ReduceSum)), "sum");
  EXPECT_EQ(std::string(opName(OpKind::ReduceMax)), "max");
  EXPECT_EQ(std::string(opName(OpKind::LogSoftmax)), "logSoftmax");
  EXPECT_EQ(std::string(opName(OpKind::RandomNormal)), "randomNormal");
}

} // namespace
