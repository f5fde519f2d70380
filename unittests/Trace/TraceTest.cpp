//===- TraceTest.cpp - Tests of trace extraction --------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Tests trace::extractTrace (lib/Trace/Trace.cpp) on hand-built graphs: the
// node order, the operands, arguments, literals (once per use unless held)
// and outputs (requested and held values), donated arguments, and the
// signature and key (equal for equal structure, whatever the literal values
// or, with dynamic shapes, the sizes; different for any other change); and
// that a 100,000-node chain extracts and frees without recursion.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Trace/Trace.h"
#include "Trace/NodeBuilders.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <vector>

using namespace lazyc;
using namespace lazyc::trace;
using namespace lazyc::trace::build;

namespace {

using Positions = std::vector<int32_t>;

/// The trace computing `requested`. The list owns its roots while the trace
/// is cut: a requested node gains an owner, which matters only to an
/// argument's donation, and no test here requests an argument that others
/// read.
Trace traceOf(std::initializer_list<NodePtr> requested,
              bool dynamicShapes = false) {
  std::vector<Node *> nodes;
  for (const NodePtr &node : requested)
    nodes.push_back(node.get());
  return extractTrace(nodes, dynamicShapes);
}

/// nodes[i]'s operand positions, as a vector.
Positions operandsOf(const Trace &trace, size_t i) {
  std::span<const int32_t> operands = trace.operands(i);
  return Positions(operands.begin(), operands.end());
}

void expectSameTrace(const Trace &actual, const Trace &expected) {
  EXPECT_EQ(actual.nodes, expected.nodes);
  EXPECT_EQ(actual.operandList, expected.operandList);
  EXPECT_EQ(actual.operandStart, expected.operandStart);
  EXPECT_EQ(actual.arguments, expected.arguments);
  EXPECT_EQ(actual.literals, expected.literals);
  EXPECT_EQ(actual.outputs, expected.outputs);
  EXPECT_EQ(actual.tiedArguments, expected.tiedArguments);
  EXPECT_EQ(actual.signature, expected.signature);
  EXPECT_EQ(actual.key, expected.key);
}

//===----------------------------------------------------------------------===//
// Nodes, operands, arguments and outputs
//===----------------------------------------------------------------------===//

TEST(TraceTest, ListsEachNodeOnceInputsBeforeUsers) {
  NodePtr a = computed(DType::Float32, {2, 3});
  NodePtr b = computed(DType::Float32, {2, 3});
  NodePtr sum = elementwise(OpKind::Add, {a, b});
  NodePtr exp = elementwise(OpKind::Exp, {sum});
  NodePtr product = elementwise(OpKind::Mul, {exp, a});

  // Depth first from the product, inputs in order: exp's graph first (a,
  // b, sum, exp), then `a` again, already listed.
  Trace trace = traceOf({product});
  EXPECT_EQ(trace.nodes, (std::vector<Node *>{a.get(), b.get(), sum.get(),
                                              exp.get(), product.get()}));
  ASSERT_EQ(trace.operandStart.size(), 6u);
  EXPECT_EQ(operandsOf(trace, 0), Positions{});
  EXPECT_EQ(operandsOf(trace, 1), Positions{});
  EXPECT_EQ(operandsOf(trace, 2), (Positions{0, 1}));
  EXPECT_EQ(operandsOf(trace, 3), (Positions{2}));
  EXPECT_EQ(operandsOf(trace, 4), (Positions{3, 0}));
  EXPECT_EQ(trace.arguments, (Positions{0, 1}));
  EXPECT_TRUE(trace.literals.empty());
  EXPECT_EQ(trace.outputs, (Positions{4}));
  EXPECT_EQ(trace.tiedArguments, (Positions{-1}));
}

TEST(TraceTest, ListsRequestedOutputsOnceInTraceOrder) {
  NodePtr a = computed(DType::Float32, {4});
  NodePtr neg = elementwise(OpKind::Neg, {a});
  NodePtr exp = elementwise(OpKind::Exp, {a});
  NodePtr abs = elementwise(OpKind::Abs, {neg});

  // abs's graph first (a, neg, abs), then exp; neg and abs are already in.
  Trace trace = traceOf({abs, exp, neg, abs});
  EXPECT_EQ(trace.nodes,
            (std::vector<Node *>{a.get(), neg.get(), abs.get(), exp.get()}));
  EXPECT_EQ(trace.outputs, (Positions{1, 2, 3}));
  EXPECT_EQ(trace.tiedArguments, (Positions{-1, -1, -1}));
}

TEST(TraceTest, AComputedNodeIsAnArgumentWhoseInputsAreNotVisited) {
  NodePtr a = computed(DType::Float32, {3});
  // Computed but still holding its input (a computed node normally drops
  // its inputs): extraction must stop at its value anyway.
  NodePtr exp = elementwise(OpKind::Exp, {a});
  exp->value = placeholderValue();
  NodePtr neg = elementwise(OpKind::Neg, {exp});

  Trace trace = traceOf({neg});
  EXPECT_EQ(trace.nodes, (std::vector<Node *>{exp.get(), neg.get()}));
  EXPECT_EQ(trace.arguments, (Positions{0}));
  EXPECT_EQ(operandsOf(trace, 0), Positions{});
  EXPECT_EQ(operandsOf(trace, 1), (Positions{0}));
  EXPECT_EQ(trace.outputs, (Positions{1}));

  // A requested value that is already computed has nothing to compute.
  Trace computedOnly = traceOf({exp});
  EXPECT_EQ(computedOnly.nodes, (std::vector<Node *>{exp.get()}));
  EXPECT_EQ(computedOnly.arguments, (Positions{0}));
  EXPECT_TRUE(computedOnly.outputs.empty());
}

TEST(TraceTest, AnUnheldLiteralIsANodeOncePerUse) {
  NodePtr a = computed(DType::Float32, {4});
  NodePtr half = literal(0.5, DType::Float32, {4});
  NodePtr product = elementwise(OpKind::Mul, {a, half});
  NodePtr sum = elementwise(OpKind::Add, {product, half});

  // Each use of the literal is listed just before its reader.
  Trace trace = traceOf({sum});
  EXPECT_EQ(trace.nodes,
            (std::vector<Node *>{a.get(), half.get(), product.get(), half.get(),
                                 sum.get()}));
  EXPECT_EQ(trace.literals, (Positions{1, 3}));
  EXPECT_EQ(trace.arguments, (Positions{0}));
  EXPECT_EQ(operandsOf(trace, 1), Positions{});
  EXPECT_EQ(operandsOf(trace, 2), (Positions{0, 1}));
  EXPECT_EQ(operandsOf(trace, 3), Positions{});
  EXPECT_EQ(operandsOf(trace, 4), (Positions{2, 3}));
  EXPECT_EQ(trace.outputs, (Positions{4}));
}

TEST(TraceTest, SharingALiteralNodeDoesNotChangeTheTrace) {
  NodePtr a = computed(DType::Float32, {4});
  NodePtr shared = literal(0.5, DType::Float32, {4});
  NodePtr withShared =
      elementwise(OpKind::Add, {elementwise(OpKind::Mul, {a, shared}), shared});
  NodePtr withTwo = elementwise(
      OpKind::Add,
      {elementwise(OpKind::Mul, {a, literal(0.5, DType::Float32, {4})}),
       literal(0.5, DType::Float32, {4})});

  Trace sharedTrace = traceOf({withShared});
  Trace twoTrace = traceOf({withTwo});
  EXPECT_EQ(sharedTrace.nodes.size(), twoTrace.nodes.size());
  EXPECT_EQ(sharedTrace.operandList, twoTrace.operandList);
  EXPECT_EQ(sharedTrace.literals, twoTrace.literals);
  EXPECT_EQ(sharedTrace.signature, twoTrace.signature);
  EXPECT_EQ(sharedTrace.key, twoTrace.key);
}

TEST(TraceTest, AHeldLiteralIsANodeOnceAndAnOutput) {
  NodePtr a = computed(DType::Float32, {4});
  NodePtr two = literal(2.0, DType::Float32, {4});
  hold(two); // `Tensor two = full({4}, 2.0f)`: a value of its own.
  NodePtr product = elementwise(OpKind::Mul, {a, two});
  NodePtr sum = elementwise(OpKind::Add, {product, two});

  Trace trace = traceOf({sum});
  EXPECT_EQ(trace.nodes, (std::vector<Node *>{a.get(), two.get(), product.get(),
                                              sum.get()}));
  EXPECT_EQ(trace.literals, (Positions{1}));
  EXPECT_EQ(operandsOf(trace, 2), (Positions{0, 1}));
  EXPECT_EQ(operandsOf(trace, 3), (Positions{2, 1}));
  EXPECT_EQ(trace.outputs, (Positions{1, 3}));
}

TEST(TraceTest, PerUseLiteralsAreTheUnheldUncomputedOnes) {
  NodePtr plain = literal(1.0, DType::Float32);
  EXPECT_TRUE(isPerUseLiteral(*plain));
  NodePtr held = literal(1.0, DType::Float32);
  hold(held);
  EXPECT_FALSE(isPerUseLiteral(*held));
  NodePtr done = literal(1.0, DType::Float32);
  done->value = placeholderValue();
  EXPECT_FALSE(isPerUseLiteral(*done));
  EXPECT_FALSE(isPerUseLiteral(*computed(DType::Float32, {})));
}

TEST(TraceTest, ValuesHeldByHandlesAreOutputs) {
  NodePtr a = computed(DType::Float32, {4});
  NodePtr exp = elementwise(OpKind::Exp, {a});
  NodePtr neg = elementwise(OpKind::Neg, {exp});
  NodePtr other = elementwise(OpKind::Abs, {a});
  hold(exp);
  hold(neg);   // Requested and held: one output.
  hold(a);     // Computed: an argument, held or not.
  hold(other); // Held, but the requested values do not need it.

  Trace trace = traceOf({neg});
  EXPECT_EQ(trace.nodes, (std::vector<Node *>{a.get(), exp.get(), neg.get()}));
  EXPECT_EQ(trace.arguments, (Positions{0}));
  EXPECT_EQ(trace.outputs, (Positions{1, 2}));
  EXPECT_EQ(trace.tiedArguments, (Positions{-1, -1}));
}

TEST(TraceTest, ExtractingAgainGivesTheSameTrace) {
  NodePtr a = computed(DType::Float32, {4});
  NodePtr lit = literal(3.0, DType::Float32, {4});
  NodePtr exp = elementwise(OpKind::Exp, {a});
  hold(exp);
  NodePtr root =
      elementwise(OpKind::Sub, {elementwise(OpKind::Mul, {exp, lit}), lit});
  Trace first = traceOf({root});
  expectSameTrace(traceOf({root}), first);
  // Into a trace that held another one: its storage is reused, its old
  // content is not.
  Trace reused = traceOf(
      {elementwise(OpKind::Relu, {lit}), computed(DType::Int32, {2, 2})});
  extractTrace({root.get()}, /*dynamicShapes=*/false, reused);
  expectSameTrace(reused, first);
}

//===----------------------------------------------------------------------===//
// Donated arguments
//===----------------------------------------------------------------------===//

TEST(TraceTest, DonatesAnArgumentNothingReadsAfterTheTrace) {
  NodePtr g = computed(DType::Float32, {4});
  NodePtr update;
  {
    // `w` has no handle, and only the trace's nodes point at it.
    NodePtr w = computed(DType::Float32, {4});
    update = elementwise(OpKind::Sub, {g, w});
  }
  Trace trace = traceOf({update});
  EXPECT_EQ(trace.arguments, (Positions{0, 1}));
  EXPECT_EQ(trace.outputs, (Positions{2}));
  // w is argument slot 1; g is still the test's.
  EXPECT_EQ(trace.tiedArguments, (Positions{1}));
}

TEST(TraceTest, KeepsAnArgumentAHandleHolds) {
  NodePtr g = computed(DType::Float32, {4});
  NodePtr update;
  {
    NodePtr w = computed(DType::Float32, {4});
    hold(w);
    update = elementwise(OpKind::Sub, {g, w});
  }
  EXPECT_EQ(traceOf({update}).tiedArguments, (Positions{-1}));
}

TEST(TraceTest, KeepsAnArgumentWhoseBufferIsShared) {
  NodePtr g = computed(DType::Float32, {4});
  NodePtr update;
  std::shared_ptr<Buffer> sharer;
  {
    NodePtr w = computed(DType::Float32, {4});
    sharer = w->value; // Another tensor's view of the same buffer.
    update = elementwise(OpKind::Sub, {g, w});
  }
  EXPECT_EQ(traceOf({update}).tiedArguments, (Positions{-1}));
}

TEST(TraceTest, KeepsAnArgumentANodeOutsideTheTraceReads) {
  NodePtr g = computed(DType::Float32, {4});
  NodePtr update, elsewhere;
  {
    NodePtr w = computed(DType::Float32, {4});
    update = elementwise(OpKind::Sub, {g, w});
    elsewhere = elementwise(OpKind::Exp, {w}); // Not requested, not held.
  }
  Trace trace = traceOf({update});
  EXPECT_EQ(trace.nodes.size(), 3u);
  EXPECT_EQ(trace.tiedArguments, (Positions{-1}));
}

TEST(TraceTest, KeepsAnArgumentATraceNodeThatOutlivesTheTraceReads) {
  // w -> exp -> add(exp, w): exp is no output, but when something outside
  // the trace keeps it, it keeps its input w, which must stay intact.
  auto build = [](NodePtr &keepExp) {
    NodePtr w = computed(DType::Float32, {4});
    NodePtr exp = elementwise(OpKind::Exp, {w});
    keepExp = exp;
    return elementwise(OpKind::Add, {exp, w});
  };
  NodePtr kept;
  NodePtr root = build(kept);
  Trace trace = traceOf({root});
  EXPECT_EQ(trace.nodes.size(), 3u);
  EXPECT_EQ(trace.tiedArguments, (Positions{-1}));

  // The same trace with exp dying with it: w is donated.
  NodePtr dropped;
  NodePtr root2 = build(dropped);
  dropped.reset();
  EXPECT_EQ(traceOf({root2}).tiedArguments, (Positions{0}));
}

TEST(TraceTest, DonatesOnlyToAnOutputOfItsTypeThatReadsItElementwise) {
  // A cast to another dtype cannot be computed in the argument's buffer.
  NodePtr cast;
  {
    NodePtr w = computed(DType::Float32, {4});
    cast = pending(OpKind::Cast, DType::Float64, {4}, {w});
  }
  EXPECT_EQ(traceOf({cast}).tiedArguments, (Positions{-1}));

  // Nor a reduction.
  NodePtr sum;
  {
    NodePtr w = computed(DType::Float32, {4});
    sum = pending(OpKind::ReduceSum, DType::Float32, {}, {w},
                  [](Node &n) { n.ints = {0}; });
  }
  EXPECT_EQ(traceOf({sum}).tiedArguments, (Positions{-1}));

  // Nor an elementwise op that reads it through a transpose (element i
  // does not read element i), although the types match.
  NodePtr negT;
  {
    NodePtr w = computed(DType::Float32, {2, 2});
    NodePtr transposed = pending(OpKind::Transpose, DType::Float32, {2, 2}, {w},
                                 [](Node &n) { n.ints = {1, 0}; });
    negT = elementwise(OpKind::Neg, {transposed});
  }
  EXPECT_EQ(traceOf({negT}).tiedArguments, (Positions{-1}));

  // Through elementwise ops only, it is.
  NodePtr chain;
  {
    NodePtr w = computed(DType::Float32, {2, 2});
    chain = elementwise(
        OpKind::Neg,
        {elementwise(OpKind::Exp, {elementwise(OpKind::Abs, {w})})});
  }
  EXPECT_EQ(traceOf({chain}).tiedArguments, (Positions{0}));
}

TEST(TraceTest, DonatesToTheNearestOutputFirst) {
  NodePtr far, near;
  {
    NodePtr w = computed(DType::Float32, {4});
    far = elementwise(OpKind::Exp, {elementwise(OpKind::Neg, {w})});
    near = elementwise(OpKind::Abs, {w});
  }
  // Nodes: w, neg, exp (far), abs (near).
  Trace trace = traceOf({far, near});
  EXPECT_EQ(trace.outputs, (Positions{2, 3}));
  EXPECT_EQ(trace.tiedArguments, (Positions{-1, 0}));
}

TEST(TraceTest, DonatesAnArgumentToOneOutputOnly) {
  NodePtr neg, abs;
  {
    NodePtr w = computed(DType::Float32, {4});
    neg = elementwise(OpKind::Neg, {w});
    abs = elementwise(OpKind::Abs, {w});
  }
  Trace trace = traceOf({neg, abs});
  ASSERT_EQ(trace.tiedArguments.size(), 2u);
  EXPECT_EQ(
      std::count(trace.tiedArguments.begin(), trace.tiedArguments.end(), 0), 1);
  EXPECT_EQ(
      std::count(trace.tiedArguments.begin(), trace.tiedArguments.end(), -1),
      1);
}

TEST(TraceTest, DonatesNothingWithDynamicShapes) {
  NodePtr g = computed(DType::Float32, {4});
  NodePtr update;
  {
    NodePtr w = computed(DType::Float32, {4});
    update = elementwise(OpKind::Sub, {g, w});
  }
  EXPECT_EQ(traceOf({update}, /*dynamicShapes=*/true).tiedArguments,
            (Positions{-1}));
}

TEST(TraceTest, DonationIsPartOfTheSignature) {
  auto update = [](bool holdW) {
    NodePtr w = computed(DType::Float32, {4});
    if (holdW)
      hold(w);
    return elementwise(OpKind::Neg, {w});
  };
  Trace donating = traceOf({update(false)});
  Trace keeping = traceOf({update(true)});
  ASSERT_EQ(donating.tiedArguments, (Positions{0}));
  ASSERT_EQ(keeping.tiedArguments, (Positions{-1}));
  EXPECT_NE(donating.signature, keeping.signature);
  EXPECT_NE(donating.key, keeping.key);
}

//===----------------------------------------------------------------------===//
// Signatures and keys
//===----------------------------------------------------------------------===//

/// Traces built by the tests below read `a` (f32 3x3) and `b` (f32 3x4),
/// which the fixture holds, so no argument is donated.
class TraceKeyTest : public ::testing::Test {
protected:
  /// Expects the traces computing `x` and `y` to differ in structure.
  void expectDifferent(const NodePtr &x, const NodePtr &y,
                       bool dynamicShapes = false) {
    Trace first = traceOf({x}, dynamicShapes);
    Trace second = traceOf({y}, dynamicShapes);
    EXPECT_NE(first.signature, second.signature);
    EXPECT_NE(first.key, second.key);
  }
  /// Expects the traces computing `x` and `y` to have the same structure.
  void expectSame(const NodePtr &x, const NodePtr &y,
                  bool dynamicShapes = false) {
    Trace first = traceOf({x}, dynamicShapes);
    Trace second = traceOf({y}, dynamicShapes);
    EXPECT_EQ(first.signature, second.signature);
    EXPECT_EQ(first.key, second.key);
  }

  /// A small model: softmax(matmul(a * 0.5, b) + literal), summed over
  /// rows, with a random term; its arguments are the given ones.
  static NodePtr model(const NodePtr &a, const NodePtr &b, double scale,
                       double bias) {
    NodePtr scaled =
        elementwise(OpKind::Mul, {a, literal(scale, DType::Float32, {3, 3})});
    NodePtr product =
        pending(OpKind::Matmul, DType::Float32, {3, 4}, {scaled, b});
    NodePtr shifted = elementwise(
        OpKind::Add, {product, literal(bias, DType::Float32, {3, 4})});
    NodePtr soft = pending(OpKind::Softmax, DType::Float32, {3, 4}, {shifted},
                           [](Node &n) { n.integer = 1; });
    NodePtr noise =
        pending(OpKind::RandomNormal, DType::Float32, {3, 4}, {}, [](Node &n) {
          n.scalar = 0;
          n.scalar2 = 0.1;
          n.integer = 42;
        });
    return pending(OpKind::ReduceSum, DType::Float32, {4},
                   {elementwise(OpKind::Add, {soft, noise})},
                   [](Node &n) { n.ints = {0}; });
  }

  /// `kind` over `a` with `setAttributes`, typed `dtype` and `shape`.
  NodePtr overA(OpKind kind, DType dtype, Shape shape,
                llvm::function_ref<void(Node &)> setAttributes = nullptr) {
    return pending(kind, dtype, std::move(shape), {a}, setAttributes);
  }

  NodePtr a = computed(DType::Float32, {3, 3});
  NodePtr b = computed(DType::Float32, {3, 4});
};

TEST_F(TraceKeyTest, EqualStructureGivesEqualKeys) {
  // Other nodes, other arguments of the same types, other literal values.
  NodePtr otherA = computed(DType::Float32, {3, 3});
  NodePtr otherB = computed(DType::Float32, {3, 4});
  expectSame(model(a, b, 0.5, 1.0), model(otherA, otherB, 2.0, -7.0));
}

TEST_F(TraceKeyTest, LiteralValuesDoNotChangeTheKey) {
  expectSame(
      elementwise(OpKind::Mul, {a, literal(0.5, DType::Float32, {3, 3})}),
      elementwise(OpKind::Mul, {a, literal(-4.0, DType::Float32, {3, 3})}));
  // A held literal is an output of its own: `full({3}, 2.0f)`.
  NodePtr two = literal(2.0, DType::Float32, {3});
  NodePtr three = literal(3.0, DType::Float32, {3});
  NodePtr twoF64 = literal(2.0, DType::Float64, {3});
  hold(two);
  hold(three);
  hold(twoF64);
  expectSame(two, three);
  expectDifferent(two, twoF64);
}

TEST_F(TraceKeyTest, AChangedOpKindGivesADifferentKey) {
  expectDifferent(elementwise(OpKind::Exp, {a}), elementwise(OpKind::Log, {a}));
  expectDifferent(pending(OpKind::ReduceSum, DType::Float32, {3}, {a},
                          [](Node &n) { n.ints = {0}; }),
                  pending(OpKind::ReduceMax, DType::Float32, {3}, {a},
                          [](Node &n) { n.ints = {0}; }));
}

TEST_F(TraceKeyTest, AChangedAttributeGivesADifferentKey) {
  // Each pair differs in one attribute only (the result shape is kept
  // even where the real op's would change).
  auto transpose = [&](std::vector<int64_t> permutation) {
    return overA(OpKind::Transpose, DType::Float32, {3, 3},
                 [&](Node &n) { n.ints = permutation; });
  };
  expectDifferent(transpose({1, 0}), transpose({0, 1}));
  auto sum = [&](std::vector<int64_t> axes, bool keepDims) {
    return overA(OpKind::ReduceSum, DType::Float32, {3}, [&](Node &n) {
      n.ints = axes;
      n.flag = keepDims;
    });
  };
  expectDifferent(sum({0}, false), sum({1}, false));
  expectDifferent(sum({0}, false), sum({0}, true));
  expectDifferent(overA(OpKind::Softmax, DType::Float32, {3, 3},
                        [](Node &n) { n.integer = 0; }),
                  overA(OpKind::Softmax, DType::Float32, {3, 3},
                        [](Node &n) { n.integer = 1; }));
  auto slice = [](int64_t step) {
    return [step](Node &n) {
      n.ints = {0, 0};
      n.ints2 = {3, 3};
      n.ints3 = {1, step};
    };
  };
  expectDifferent(overA(OpKind::Slice, DType::Float32, {3, 3}, slice(1)),
                  overA(OpKind::Slice, DType::Float32, {3, 3}, slice(2)));
  NodePtr c = computed(DType::Float32, {3, 3});
  auto compare = [&](Predicate predicate) {
    return pending(OpKind::Compare, DType::Bool, {3, 3}, {a, c},
                   [predicate](Node &n) { n.predicate = predicate; });
  };
  expectDifferent(compare(Predicate::Lt), compare(Predicate::Gt));
  auto uniform = [](double low, int64_t seed) {
    return pending(OpKind::RandomUniform, DType::Float32, {3},
                   {literal(static_cast<double>(seed), DType::Int64)},
                   [low](Node &n) {
                     n.scalar = low;
                     n.scalar2 = 1;
                   });
  };
  // The seed is data (a literal operand): a new seed is the same structure.
  expectSame(uniform(0, 1), uniform(0, 2));
  expectDifferent(uniform(0, 1), uniform(-1, 1));
}

TEST_F(TraceKeyTest, AChangedDTypeGivesADifferentKey) {
  // Of an op.
  expectDifferent(overA(OpKind::Cast, DType::Float64, {3, 3}),
                  overA(OpKind::Cast, DType::Int32, {3, 3}));
  // Of an argument.
  NodePtr a64 = computed(DType::Float64, {3, 3});
  expectDifferent(elementwise(OpKind::Exp, {a}),
                  elementwise(OpKind::Exp, {a64}));
}

TEST_F(TraceKeyTest, AChangedShapeGivesADifferentKey) {
  NodePtr flat = computed(DType::Float32, {9});
  NodePtr wide = computed(DType::Float32, {3, 4});
  expectDifferent(elementwise(OpKind::Exp, {a}),
                  elementwise(OpKind::Exp, {flat}));
  expectDifferent(elementwise(OpKind::Exp, {a}),
                  elementwise(OpKind::Exp, {wide}));
  // Only the argument's shape differs: both are reshaped to [12].
  NodePtr tall = computed(DType::Float32, {4, 3});
  auto flatten = [](const NodePtr &input) {
    return pending(OpKind::Reshape, DType::Float32, {12}, {input},
                   [](Node &n) { n.ints = {12}; });
  };
  expectDifferent(flatten(wide), flatten(tall));
}

TEST_F(TraceKeyTest, ChangedWiringGivesADifferentKey) {
  // mul(exp(a), a) and mul(a, exp(a)): the same nodes, operands swapped.
  NodePtr exp = elementwise(OpKind::Exp, {a});
  expectDifferent(elementwise(OpKind::Mul, {exp, a}),
                  elementwise(OpKind::Mul, {a, exp}));
  // add(a, a) and add(a, c): one argument or two.
  NodePtr c = computed(DType::Float32, {3, 3});
  expectDifferent(elementwise(OpKind::Add, {a, a}),
                  elementwise(OpKind::Add, {a, c}));
}

TEST_F(TraceKeyTest, AnotherHeldValueGivesADifferentKey) {
  // The same ops; holding the intermediate makes it an output too.
  NodePtr exp1 = elementwise(OpKind::Exp, {a});
  NodePtr exp2 = elementwise(OpKind::Exp, {a});
  hold(exp2);
  expectDifferent(elementwise(OpKind::Neg, {exp1}),
                  elementwise(OpKind::Neg, {exp2}));
}

TEST_F(TraceKeyTest, AComputedValueIsKeyedByItsTypeOnly) {
  // Whatever op once produced it.
  NodePtr fromExp = computed(DType::Float32, {3, 3}, OpKind::Exp);
  NodePtr fromMatmul = computed(DType::Float32, {3, 3}, OpKind::Matmul);
  expectSame(elementwise(OpKind::Neg, {a}),
             elementwise(OpKind::Neg, {fromExp}));
  expectSame(elementwise(OpKind::Neg, {fromExp}),
             elementwise(OpKind::Neg, {fromMatmul}));
}

TEST_F(TraceKeyTest, DynamicShapesIgnoreSizesButNotRanks) {
  NodePtr tall = computed(DType::Float32, {16, 2});
  NodePtr flat = computed(DType::Float32, {9});
  NodePtr expA = elementwise(OpKind::Exp, {a});
  NodePtr expTall = elementwise(OpKind::Exp, {tall});
  expectSame(expA, expTall, /*dynamicShapes=*/true);
  expectDifferent(expA, expTall, /*dynamicShapes=*/false);
  expectDifferent(expA, elementwise(OpKind::Exp, {flat}),
                  /*dynamicShapes=*/true);

  // The ops' own sizes are ignored too, their attributes are not.
  auto sum = [](const NodePtr &input, int64_t axis) {
    Shape shape = input->shape;
    shape.erase(shape.begin() + axis);
    return pending(OpKind::ReduceSum, input->dtype, shape, {input},
                   [axis](Node &n) { n.ints = {axis}; });
  };
  expectSame(sum(a, 1), sum(tall, 1), /*dynamicShapes=*/true);
  expectDifferent(sum(a, 1), sum(tall, 0), /*dynamicShapes=*/true);
  NodePtr tallF64 = computed(DType::Float64, {16, 2});
  expectDifferent(expA, elementwise(OpKind::Exp, {tallF64}),
                  /*dynamicShapes=*/true);
}

TEST_F(TraceKeyTest, DynamicAndStaticTracesHaveDifferentKeys) {
  NodePtr exp = elementwise(OpKind::Exp, {a});
  Trace dynamic = traceOf({exp}, /*dynamicShapes=*/true);
  Trace fixed = traceOf({exp}, /*dynamicShapes=*/false);
  EXPECT_EQ(dynamic.nodes, fixed.nodes);
  EXPECT_NE(dynamic.signature, fixed.signature);
  EXPECT_NE(dynamic.key, fixed.key);
}

//===----------------------------------------------------------------------===//
// Deep graphs
//===----------------------------------------------------------------------===//

TEST(TraceTest, ExtractsAndFreesAHundredThousandNodeChain) {
  constexpr int kDepth = 100000;
  const int64_t baseline = liveNodeCount();
  NodePtr half = literal(0.5, DType::Float32, {8});
  NodePtr start = computed(DType::Float32, {8});
  // x = neg(x * 0.5), kDepth times: recursion this deep would overflow the
  // stack, in extraction and in the destructors.
  NodePtr x = start;
  for (int i = 0; i < kDepth; ++i)
    x = elementwise(OpKind::Neg, {elementwise(OpKind::Mul, {x, half})});
  EXPECT_EQ(liveNodeCount() - baseline, 2 + 2 * kDepth);

  // start, then per step: the literal, mul, neg.
  Trace trace = traceOf({x});
  ASSERT_EQ(trace.nodes.size(), size_t(1 + 3 * kDepth));
  EXPECT_EQ(trace.arguments, (Positions{0}));
  EXPECT_EQ(trace.literals.size(), size_t(kDepth));
  EXPECT_EQ(trace.outputs, (Positions{3 * kDepth}));
  for (int32_t step = 0; step < kDepth; ++step) {
    int32_t literalAt = 1 + 3 * step, mulAt = literalAt + 1, negAt = mulAt + 1;
    ASSERT_EQ(trace.literals[step], literalAt);
    ASSERT_EQ(operandsOf(trace, mulAt), (Positions{literalAt - 1, literalAt}));
    ASSERT_EQ(operandsOf(trace, negAt), (Positions{mulAt}));
  }
  // The same chain again has the same key.
  EXPECT_EQ(traceOf({x}).key, trace.key);

  trace = Trace();
  x.reset();
  EXPECT_EQ(liveNodeCount() - baseline, 2); // start and the literal.
}

} // namespace
