//===- TraceImporterTest.cpp - Tests of the trace importer ----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Tests import::importTrace (lib/Import/TraceImporter.cpp) on traces of
// hand-built nodes: the function's signature (buffers, then promoted
// literals as rank-0 arguments; the outputs as results; dynamic shapes),
// the op each node becomes and its attributes, baked literals, locations
// naming the node and the user's line (and holding its position, found
// again by tracePosition), tied results, and that every module verifies.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Import/TraceImporter.h"
#include "Trace/NodeBuilders.h"
#include "lazyc/Dialect/Lazy/IR/LazyOps.h"
#include "lazyc/Dialect/Lazy/IR/TiedArgument.h"
#include "lazyc/InitAll.h"
#include "lazyc/Trace/Trace.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace lazyc;
using namespace lazyc::trace;
using namespace lazyc::trace::build;
using lazyc::import::ImportOptions;
using lazyc::import::importTrace;

namespace {

class TraceImporterTest : public ::testing::Test {
protected:
  TraceImporterTest() {
    DialectRegistry registry;
    lazyc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The trace computing `requested`.
  static Trace traceOf(std::initializer_list<NodePtr> requested,
                       bool dynamicShapes = false) {
    std::vector<Node *> nodes;
    for (const NodePtr &node : requested)
      nodes.push_back(node.get());
    return extractTrace(nodes, dynamicShapes);
  }

  /// Imports `trace` as @trace, expects the module to verify, and returns
  /// the function (the module stays alive in `module`).
  func::FuncOp import(const Trace &trace, const ImportOptions &options = {}) {
    module = importTrace(trace, context, options);
    if (!module) {
      ADD_FAILURE() << "importTrace returned no module";
      return nullptr;
    }
    EXPECT_TRUE(succeeded(verify(*module))) << print(*module);
    EXPECT_EQ(module->getBody()->getOperations().size(), 1u);
    auto function = module->lookupSymbol<func::FuncOp>("trace");
    EXPECT_TRUE(function) << print(*module);
    return function;
  }

  /// The names of the ops in `function`'s body, in order.
  static std::vector<std::string> opNames(func::FuncOp function) {
    std::vector<std::string> names;
    for (Operation &op : function.getBody().front())
      names.push_back(op.getName().getStringRef().str());
    return names;
  }

  /// The first op of type OpTy in `function`'s body (null if none).
  template <typename OpTy> static OpTy first(func::FuncOp function) {
    for (Operation &op : function.getBody().front())
      if (auto typed = dyn_cast<OpTy>(op))
        return typed;
    ADD_FAILURE() << "no " << OpTy::getOperationName().str();
    return nullptr;
  }

  static std::string print(Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    return text;
  }

  /// Expects each of `pieces` in `text`, in order (FileCheck's CHECK).
  static void expectInOrder(const std::string &text,
                            const std::vector<std::string> &pieces) {
    size_t at = 0;
    for (const std::string &piece : pieces) {
      size_t found = text.find(piece, at);
      if (found == std::string::npos) {
        ADD_FAILURE() << "expected \"" << piece << "\" after offset " << at
                      << " in:\n"
                      << text;
        return;
      }
      at = found + piece.size();
    }
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type element = {}) {
    return RankedTensorType::get(
        shape, element ? element : Builder(&context).getF32Type());
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

//===----------------------------------------------------------------------===//
// The function
//===----------------------------------------------------------------------===//

TEST_F(TraceImporterTest, BuffersAreArgumentsAndOutputsAreResults) {
  NodePtr a = computed(DType::Float32, {2, 3});
  NodePtr b = computed(DType::Float32, {2, 3});
  NodePtr sum = elementwise(OpKind::Add, {a, b});
  NodePtr exp = elementwise(OpKind::Exp, {sum});
  func::FuncOp function = import(traceOf({exp}));
  ASSERT_TRUE(function);

  EXPECT_EQ(function.getFunctionType(),
            FunctionType::get(&context, {tensor({2, 3}), tensor({2, 3})},
                              {tensor({2, 3})}));
  EXPECT_EQ(opNames(function),
            (std::vector<std::string>{"lazy.add", "lazy.exp", "func.return"}));
  Block &body = function.getBody().front();
  auto add = first<lazy::AddOp>(function);
  EXPECT_EQ(add.getLhs(), body.getArgument(0));
  EXPECT_EQ(add.getRhs(), body.getArgument(1));
  auto exponential = first<lazy::ExpOp>(function);
  EXPECT_EQ(exponential.getInput(), add.getResult());
  EXPECT_EQ(body.getTerminator()->getOperand(0), exponential.getResult());

  expectInOrder(print(*module),
                {"func.func @trace(%arg0: tensor<2x3xf32>, %arg1: "
                 "tensor<2x3xf32>) -> tensor<2x3xf32>",
                 "lazy.add %arg0, %arg1 : tensor<2x3xf32>",
                 "lazy.exp %0 : tensor<2x3xf32>",
                 "return %1 : tensor<2x3xf32>"});
}

TEST_F(TraceImporterTest, ResultsAreTheOutputsInTraceOrder) {
  NodePtr a = computed(DType::Float32, {2, 3});
  NodePtr b = computed(DType::Float32, {2, 3});
  NodePtr greater = pending(OpKind::Compare, DType::Bool, {2, 3}, {a, b},
                            [](Node &n) { n.predicate = Predicate::Gt; });
  hold(greater); // An output although only `larger` is requested.
  NodePtr larger =
      pending(OpKind::Select, DType::Float32, {2, 3}, {greater, a, b});
  func::FuncOp function = import(traceOf({larger}));
  ASSERT_TRUE(function);

  Builder builder(&context);
  EXPECT_EQ(function.getFunctionType().getResults(),
            (TypeRange{tensor({2, 3}, builder.getI1Type()), tensor({2, 3})}));
  Operation *terminator = function.getBody().front().getTerminator();
  EXPECT_EQ(terminator->getOperand(0),
            first<lazy::CompareOp>(function).getResult());
  EXPECT_EQ(terminator->getOperand(1),
            first<lazy::SelectOp>(function).getResult());
}

TEST_F(TraceImporterTest, TakesTheFunctionNameFromTheCaller) {
  NodePtr a = computed(DType::Float32, {4});
  module = importTrace(traceOf({elementwise(OpKind::Neg, {a})}), context,
                       ImportOptions(), "step");
  ASSERT_TRUE(module);
  EXPECT_TRUE(module->lookupSymbol<func::FuncOp>("step"));
  EXPECT_FALSE(module->lookupSymbol<func::FuncOp>("trace"));
}

TEST_F(TraceImporterTest, AComputedIntermediateIsAnArgument) {
  NodePtr exp = computed(DType::Float32, {3}, OpKind::Exp);
  func::FuncOp function = import(traceOf({elementwise(OpKind::Neg, {exp})}));
  ASSERT_TRUE(function);
  EXPECT_EQ(function.getFunctionType(),
            FunctionType::get(&context, {tensor({3})}, {tensor({3})}));
  EXPECT_EQ(opNames(function),
            (std::vector<std::string>{"lazy.neg", "func.return"}));
}

TEST_F(TraceImporterTest, MapsEachDTypeToItsElementType) {
  Builder b(&context);
  EXPECT_EQ(import::elementType(context, DType::Float32), b.getF32Type());
  EXPECT_EQ(import::elementType(context, DType::Float64), b.getF64Type());
  EXPECT_EQ(import::elementType(context, DType::Float16), b.getF16Type());
  EXPECT_EQ(import::elementType(context, DType::BFloat16), b.getBF16Type());
  EXPECT_EQ(import::elementType(context, DType::Int32), b.getI32Type());
  EXPECT_EQ(import::elementType(context, DType::Int64), b.getI64Type());
  EXPECT_EQ(import::elementType(context, DType::Bool), b.getI1Type());
}

//===----------------------------------------------------------------------===//
// Literals
//===----------------------------------------------------------------------===//

TEST_F(TraceImporterTest, BakesEachUseOfALiteralAsAConstant) {
  NodePtr a = computed(DType::Float32, {4});
  NodePtr half = literal(0.5, DType::Float32, {4});
  NodePtr product = elementwise(OpKind::Mul, {a, half});
  NodePtr sum = elementwise(OpKind::Add, {product, half});
  func::FuncOp function = import(traceOf({sum}));
  ASSERT_TRUE(function);

  EXPECT_EQ(function.getFunctionType(),
            FunctionType::get(&context, {tensor({4})}, {tensor({4})}));
  EXPECT_EQ(opNames(function),
            (std::vector<std::string>{"lazy.constant", "lazy.constant",
                                      "lazy.mul", "lazy.add", "func.return"}));
  Block &body = function.getBody().front();
  auto constant0 = cast<lazy::ConstantOp>(body.front());
  auto constant1 = cast<lazy::ConstantOp>(*std::next(body.begin()));
  for (lazy::ConstantOp constant : {constant0, constant1}) {
    auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
    ASSERT_TRUE(value);
    EXPECT_EQ(value.getType(), tensor({4}));
    ASSERT_TRUE(value.isSplat());
    EXPECT_EQ(value.getSplatValue<float>(), 0.5f);
  }
  auto mul = first<lazy::MulOp>(function);
  EXPECT_EQ(mul.getLhs(), body.getArgument(0));
  EXPECT_EQ(mul.getRhs(), constant0.getResult());
  auto add = first<lazy::AddOp>(function);
  EXPECT_EQ(add.getLhs(), mul.getResult());
  EXPECT_EQ(add.getRhs(), constant1.getResult());
}

TEST_F(TraceImporterTest, BakesLiteralsInTheirElementType) {
  // Held literals: each is an output of its own (`full(shape, value)`).
  NodePtr f64 = literal(1.5, DType::Float64, {2});
  NodePtr f16 = literal(0.25, DType::Float16, {2});
  NodePtr bf16 = literal(-2.0, DType::BFloat16, {2});
  NodePtr i32 = literal(3, DType::Int32, {2});
  NodePtr i64 = literal(-2, DType::Int64, {});
  NodePtr yes = literal(1, DType::Bool, {2});
  NodePtr no = literal(0, DType::Bool, {2});
  for (const NodePtr &node : {f64, f16, bf16, i32, i64, yes, no})
    hold(node);
  func::FuncOp function = import(traceOf({f64, f16, bf16, i32, i64, yes, no}));
  ASSERT_TRUE(function);

  Builder b(&context);
  EXPECT_EQ(function.getFunctionType(),
            FunctionType::get(
                &context, {},
                {tensor({2}, b.getF64Type()), tensor({2}, b.getF16Type()),
                 tensor({2}, b.getBF16Type()), tensor({2}, b.getI32Type()),
                 tensor({}, b.getI64Type()), tensor({2}, b.getI1Type()),
                 tensor({2}, b.getI1Type())}));
  std::vector<Attribute> splats;
  for (Operation &op : function.getBody().front())
    if (auto constant = dyn_cast<lazy::ConstantOp>(op))
      splats.push_back(cast<DenseElementsAttr>(constant.getValue())
                           .getSplatValue<Attribute>());
  ASSERT_EQ(splats.size(), 7u);
  EXPECT_EQ(cast<FloatAttr>(splats[0]).getValueAsDouble(), 1.5);
  EXPECT_EQ(cast<FloatAttr>(splats[1]).getValueAsDouble(), 0.25);
  EXPECT_EQ(cast<FloatAttr>(splats[2]).getValueAsDouble(), -2.0);
  EXPECT_EQ(cast<IntegerAttr>(splats[3]).getInt(), 3);
  EXPECT_EQ(cast<IntegerAttr>(splats[4]).getInt(), -2);
  EXPECT_TRUE(cast<IntegerAttr>(splats[5]).getValue().isOne());
  EXPECT_TRUE(cast<IntegerAttr>(splats[6]).getValue().isZero());
}

/// The trace of `sum` = add(mul(a, 0.5), 1.5) and `broadcast` = broadcast(2)
/// to [4] (2 is an i32 literal of rank 0): literals 0.5, 1.5 and 2, in that
/// order. The caller keeps the roots, and so the graph, alive.
Trace promotionTrace(NodePtr &sum, NodePtr &broadcast) {
  NodePtr a = computed(DType::Float32, {4});
  sum = elementwise(
      OpKind::Add,
      {elementwise(OpKind::Mul, {a, literal(0.5, DType::Float32, {4})}),
       literal(1.5, DType::Float32, {4})});
  broadcast =
      pending(OpKind::Broadcast, DType::Int32, {4},
              {literal(2, DType::Int32, {})}, [](Node &n) { n.ints = {4}; });
  std::vector<Node *> requested = {sum.get(), broadcast.get()};
  return extractTrace(requested);
}

TEST_F(TraceImporterTest, PassesPromotedLiteralsAsRankZeroArguments) {
  NodePtr sum, broadcast;
  Trace trace = promotionTrace(sum, broadcast);
  // Nodes: a, 0.5, mul, 1.5, add, 2, broadcast.
  ASSERT_EQ(trace.literals, (std::vector<int32_t>{1, 3, 5}));
  ImportOptions options;
  options.promotedLiterals = {true, false, true};
  func::FuncOp function = import(trace, options);
  ASSERT_TRUE(function);

  // After the buffers, in literal order, rank 0 whatever the literal's
  // shape.
  Builder b(&context);
  EXPECT_EQ(function.getFunctionType(),
            FunctionType::get(
                &context, {tensor({4}), tensor({}), tensor({}, b.getI32Type())},
                {tensor({4}), tensor({4}, b.getI32Type())}));
  // 0.5 is broadcast from its argument to its shape; 1.5 is baked; 2,
  // already rank 0, is the argument itself.
  EXPECT_EQ(
      opNames(function),
      (std::vector<std::string>{"lazy.broadcast", "lazy.constant", "lazy.mul",
                                "lazy.add", "lazy.broadcast", "func.return"}));
  Block &body = function.getBody().front();
  auto splat = cast<lazy::BroadcastOp>(body.front());
  EXPECT_EQ(splat.getInput(), body.getArgument(1));
  EXPECT_EQ(splat.getShape(), ArrayRef<int64_t>({4}));
  auto mul = first<lazy::MulOp>(function);
  EXPECT_EQ(mul.getLhs(), body.getArgument(0));
  EXPECT_EQ(mul.getRhs(), splat.getResult());
  auto baked = first<lazy::ConstantOp>(function);
  EXPECT_EQ(cast<DenseElementsAttr>(baked.getValue()).getSplatValue<float>(),
            1.5f);
  EXPECT_EQ(first<lazy::AddOp>(function).getRhs(), baked.getResult());
  auto lastBroadcast = cast<lazy::BroadcastOp>(*std::prev(body.end(), 2));
  EXPECT_EQ(lastBroadcast.getInput(), body.getArgument(2));
}

TEST_F(TraceImporterTest, LiteralsPastThePromotedListAreBaked) {
  NodePtr sum, broadcast;
  Trace trace = promotionTrace(sum, broadcast);
  ImportOptions options;
  options.promotedLiterals = {true};
  func::FuncOp function = import(trace, options);
  ASSERT_TRUE(function);
  EXPECT_EQ(function.getFunctionType().getInputs(),
            (TypeRange{tensor({4}), tensor({})}));
  int constants = 0;
  for (Operation &op : function.getBody().front())
    constants += isa<lazy::ConstantOp>(op);
  EXPECT_EQ(constants, 2);
}

//===----------------------------------------------------------------------===//
// Ops and attributes
//===----------------------------------------------------------------------===//

TEST_F(TraceImporterTest, ImportsEachElementwiseKindAsItsOp) {
  struct Case {
    OpKind kind;
    const char *op;
    bool binary;
  };
  const Case cases[] = {
      {OpKind::Add, "lazy.add", true},
      {OpKind::Sub, "lazy.sub", true},
      {OpKind::Mul, "lazy.mul", true},
      {OpKind::Div, "lazy.div", true},
      {OpKind::FloorDiv, "lazy.floor_div", true},
      {OpKind::Mod, "lazy.mod", true},
      {OpKind::Pow, "lazy.pow", true},
      {OpKind::Max, "lazy.max", true},
      {OpKind::Min, "lazy.min", true},
      {OpKind::Neg, "lazy.neg", false},
      {OpKind::Abs, "lazy.abs", false},
      {OpKind::Relu, "lazy.relu", false},
      {OpKind::Exp, "lazy.exp", false},
      {OpKind::Log, "lazy.log", false},
      {OpKind::Tanh, "lazy.tanh", false},
      {OpKind::Sigmoid, "lazy.sigmoid", false},
      {OpKind::Sqrt, "lazy.sqrt", false},
      {OpKind::Rsqrt, "lazy.rsqrt", false},
      {OpKind::Sin, "lazy.sin", false},
      {OpKind::Cos, "lazy.cos", false},
      {OpKind::Erf, "lazy.erf", false},
      {OpKind::Asin, "lazy.asin", false},
      {OpKind::Acos, "lazy.acos", false},
      {OpKind::Atan, "lazy.atan", false},
  };
  NodePtr a = computed(DType::Float32, {4});
  NodePtr b = computed(DType::Float32, {4});
  for (const Case &c : cases) {
    SCOPED_TRACE(c.op);
    NodePtr node =
        c.binary ? elementwise(c.kind, {a, b}) : elementwise(c.kind, {a});
    func::FuncOp function = import(traceOf({node}));
    ASSERT_TRUE(function);
    EXPECT_EQ(opNames(function),
              (std::vector<std::string>{c.op, "func.return"}));
    Operation &op = function.getBody().front().front();
    EXPECT_EQ(op.getNumOperands(), c.binary ? 2u : 1u);
    EXPECT_EQ(op.getResult(0).getType(), tensor({4}));
  }
}

TEST_F(TraceImporterTest, CompareCarriesItsPredicate) {
  const std::pair<Predicate, lazy::ComparePredicate> cases[] = {
      {Predicate::Eq, lazy::ComparePredicate::eq},
      {Predicate::Ne, lazy::ComparePredicate::ne},
      {Predicate::Lt, lazy::ComparePredicate::lt},
      {Predicate::Le, lazy::ComparePredicate::le},
      {Predicate::Gt, lazy::ComparePredicate::gt},
      {Predicate::Ge, lazy::ComparePredicate::ge},
  };
  NodePtr a = computed(DType::Int32, {4});
  NodePtr b = computed(DType::Int32, {4});
  for (auto [predicate, expected] : cases) {
    SCOPED_TRACE(lazy::stringifyComparePredicate(expected).str());
    NodePtr node = pending(OpKind::Compare, DType::Bool, {4}, {a, b},
                           [p = predicate](Node &n) { n.predicate = p; });
    func::FuncOp function = import(traceOf({node}));
    ASSERT_TRUE(function);
    auto compare = first<lazy::CompareOp>(function);
    ASSERT_TRUE(compare);
    EXPECT_EQ(compare.getPredicate(), expected);
    EXPECT_EQ(compare.getResult().getType(),
              tensor({4}, Builder(&context).getI1Type()));
  }
}

TEST_F(TraceImporterTest, ShapeOpsCarryTheirAttributes) {
  NodePtr a = computed(DType::Float32, {2, 3});
  NodePtr b = computed(DType::Float32, {2, 3});
  NodePtr row = computed(DType::Float32, {3});
  NodePtr broadcast = pending(OpKind::Broadcast, DType::Float32, {2, 3}, {row},
                              [](Node &n) { n.ints = {2, 3}; });
  NodePtr reshape = pending(OpKind::Reshape, DType::Float32, {3, 2}, {a},
                            [](Node &n) { n.ints = {3, 2}; });
  NodePtr transpose = pending(OpKind::Transpose, DType::Float32, {3, 2}, {a},
                              [](Node &n) { n.ints = {1, 0}; });
  // Rows 0 and 1; every second column from 1 below 3: column 1 only.
  NodePtr slice =
      pending(OpKind::Slice, DType::Float32, {2, 1}, {a}, [](Node &n) {
        n.ints = {0, 1};
        n.ints2 = {2, 3};
        n.ints3 = {1, 2};
      });
  NodePtr concat = pending(OpKind::Concat, DType::Float32, {2, 6}, {a, b},
                           [](Node &n) { n.integer = 1; });
  NodePtr cast = pending(OpKind::Cast, DType::Int32, {2, 3}, {a});
  func::FuncOp function =
      import(traceOf({broadcast, reshape, transpose, slice, concat, cast}));
  ASSERT_TRUE(function);

  Builder builder(&context);
  EXPECT_EQ(
      function.getFunctionType().getResults(),
      (TypeRange{tensor({2, 3}), tensor({3, 2}), tensor({3, 2}), tensor({2, 1}),
                 tensor({2, 6}), tensor({2, 3}, builder.getI32Type())}));
  EXPECT_EQ(first<lazy::BroadcastOp>(function).getShape(),
            ArrayRef<int64_t>({2, 3}));
  EXPECT_EQ(first<lazy::ReshapeOp>(function).getShape(),
            ArrayRef<int64_t>({3, 2}));
  EXPECT_EQ(first<lazy::TransposeOp>(function).getPermutation(),
            ArrayRef<int64_t>({1, 0}));
  auto sliceOp = first<lazy::SliceOp>(function);
  EXPECT_EQ(sliceOp.getStart(), ArrayRef<int64_t>({0, 1}));
  EXPECT_EQ(sliceOp.getLimit(), ArrayRef<int64_t>({2, 3}));
  EXPECT_EQ(sliceOp.getStep(), ArrayRef<int64_t>({1, 2}));
  auto concatOp = first<lazy::ConcatOp>(function);
  EXPECT_EQ(concatOp.getAxis(), 1u);
  EXPECT_EQ(concatOp.getInputs().size(), 2u);
  EXPECT_TRUE(first<lazy::CastOp>(function));
}

TEST_F(TraceImporterTest, ReductionsCarryTheirAxesAndKeepDims) {
  NodePtr a = computed(DType::Float32, {2, 3});
  auto reduce = [&](OpKind kind, Shape shape, std::vector<int64_t> axes,
                    bool keepDims) {
    return pending(kind, DType::Float32, std::move(shape), {a}, [&](Node &n) {
      n.ints = axes;
      n.flag = keepDims;
    });
  };
  NodePtr sum = reduce(OpKind::ReduceSum, {2, 1}, {1}, true);
  NodePtr mean = reduce(OpKind::ReduceMean, {3}, {0}, false);
  NodePtr max = reduce(OpKind::ReduceMax, {}, {0, 1}, false);
  NodePtr min = reduce(OpKind::ReduceMin, {1, 1}, {0, 1}, true);
  func::FuncOp function = import(traceOf({sum, mean, max, min}));
  ASSERT_TRUE(function);

  EXPECT_EQ(
      function.getFunctionType().getResults(),
      (TypeRange{tensor({2, 1}), tensor({3}), tensor({}), tensor({1, 1})}));
  auto sumOp = first<lazy::ReduceSumOp>(function);
  EXPECT_EQ(sumOp.getAxes(), ArrayRef<int64_t>({1}));
  EXPECT_TRUE(sumOp.getKeepDims());
  auto meanOp = first<lazy::ReduceMeanOp>(function);
  EXPECT_EQ(meanOp.getAxes(), ArrayRef<int64_t>({0}));
  EXPECT_FALSE(meanOp.getKeepDims());
  auto maxOp = first<lazy::ReduceMaxOp>(function);
  EXPECT_EQ(maxOp.getAxes(), ArrayRef<int64_t>({0, 1}));
  EXPECT_FALSE(maxOp.getKeepDims());
  auto minOp = first<lazy::ReduceMinOp>(function);
  EXPECT_EQ(minOp.getAxes(), ArrayRef<int64_t>({0, 1}));
  EXPECT_TRUE(minOp.getKeepDims());
}

TEST_F(TraceImporterTest, MatmulSoftmaxAndRandomOpsCarryTheirAttributes) {
  NodePtr a = computed(DType::Float32, {2, 3});
  NodePtr m = computed(DType::Float32, {3, 4});
  NodePtr product = pending(OpKind::Matmul, DType::Float32, {2, 4}, {a, m});
  NodePtr soft = pending(OpKind::Softmax, DType::Float32, {2, 3}, {a},
                         [](Node &n) { n.integer = 1; });
  NodePtr logSoft = pending(OpKind::LogSoftmax, DType::Float32, {2, 3}, {a},
                            [](Node &n) { n.integer = 0; });
  NodePtr uniform = pending(OpKind::RandomUniform, DType::Float32, {5},
                            {literal(7, DType::Int64)}, [](Node &n) {
                              n.scalar = -1;
                              n.scalar2 = 2;
                            });
  NodePtr normal = pending(OpKind::RandomNormal, DType::Float64, {2, 2},
                           {literal(9, DType::Int64)}, [](Node &n) {
                             n.scalar = 0.5;
                             n.scalar2 = 3;
                           });
  func::FuncOp function =
      import(traceOf({product, soft, logSoft, uniform, normal}));
  ASSERT_TRUE(function);

  Builder builder(&context);
  EXPECT_EQ(function.getFunctionType().getResults(),
            (TypeRange{tensor({2, 4}), tensor({2, 3}), tensor({2, 3}),
                       tensor({5}), tensor({2, 2}, builder.getF64Type())}));
  EXPECT_TRUE(first<lazy::MatmulOp>(function));
  EXPECT_EQ(first<lazy::SoftmaxOp>(function).getAxis(), 1u);
  EXPECT_EQ(first<lazy::LogSoftmaxOp>(function).getAxis(), 0u);
  auto uniformOp = first<lazy::RandomUniformOp>(function);
  EXPECT_EQ(uniformOp.getLowAttr().getValueAsDouble(), -1.0);
  EXPECT_EQ(uniformOp.getHighAttr().getValueAsDouble(), 2.0);
  // The seed is an operand: a rank-0 i64 constant (promoted, an argument).
  auto seedOf = [](Value seed) -> int64_t {
    auto constant = seed.getDefiningOp<lazy::ConstantOp>();
    if (!constant)
      return -1;
    return cast<DenseElementsAttr>(constant.getValue())
        .getSplatValue<APInt>()
        .getSExtValue();
  };
  EXPECT_EQ(seedOf(uniformOp.getSeed()), 7);
  auto normalOp = first<lazy::RandomNormalOp>(function);
  EXPECT_EQ(normalOp.getMeanAttr().getValueAsDouble(), 0.5);
  EXPECT_EQ(normalOp.getStddevAttr().getValueAsDouble(), 3.0);
  EXPECT_EQ(seedOf(normalOp.getSeed()), 9);
}

//===----------------------------------------------------------------------===//
// Locations
//===----------------------------------------------------------------------===//

TEST_F(TraceImporterTest, LocatesEachOpAtItsNodeAndTheUsersLine) {
  NodePtr a = computed(DType::Float32, {4});
  NodePtr exp = elementwise(OpKind::Exp, {a});
  exp->loc = {"model.cpp", 42};
  NodePtr larger = elementwise(OpKind::Max, {exp, a});
  larger->loc = {"model.cpp", 43};
  NodePtr neg = elementwise(OpKind::Neg, {larger}); // No line known.
  NodePtr scaled =
      elementwise(OpKind::Mul, {neg, literal(2.0, DType::Float32, {4})});
  scaled->loc = {"train.cpp", 7};
  // Nodes: a, exp, max, neg, the literal, mul.
  func::FuncOp function = import(traceOf({scaled}));
  ASSERT_TRUE(function);
  ASSERT_EQ(opNames(function),
            (std::vector<std::string>{"lazy.constant", "lazy.exp", "lazy.max",
                                      "lazy.neg", "lazy.mul", "func.return"}));

  /// Expects `op`'s location to name "<name>" at file:line:0 (an unknown
  /// location when `file` is null), whatever wraps that, and to hold the
  /// node's position `position`.
  auto expectAt = [](Operation &op, const char *name, const char *file,
                     unsigned line, size_t position) {
    SCOPED_TRACE(op.getName().getStringRef().str());
    NameLoc named;
    op.getLoc()->walk([&](Location inner) {
      named = dyn_cast<NameLoc>(inner);
      return named ? WalkResult::interrupt() : WalkResult::advance();
    });
    ASSERT_TRUE(named);
    EXPECT_EQ(named.getName().str(), name);
    EXPECT_EQ(import::tracePosition(op.getLoc()), position);
    if (!file) {
      EXPECT_TRUE(isa<UnknownLoc>(named.getChildLoc()));
      return;
    }
    auto fileLine = dyn_cast<FileLineColLoc>(named.getChildLoc());
    ASSERT_TRUE(fileLine);
    EXPECT_EQ(fileLine.getFilename().str(), file);
    EXPECT_EQ(fileLine.getLine(), line);
    EXPECT_EQ(fileLine.getColumn(), 0u);
  };
  Block &body = function.getBody().front();
  auto op = body.begin();
  EXPECT_TRUE(isa<UnknownLoc>(op->getLoc())); // The literal.
  EXPECT_EQ(import::tracePosition(op->getLoc()), std::nullopt);
  expectAt(*++op, "exp#1", "model.cpp", 42, 1);
  expectAt(*++op, "maximum#2", "model.cpp", 43, 2); // The user's name.
  expectAt(*++op, "neg#3", nullptr, 0, 3);
  expectAt(*++op, "mul#5", "train.cpp", 7, 5);
  EXPECT_TRUE(isa<UnknownLoc>(body.getTerminator()->getLoc()));
  EXPECT_TRUE(isa<UnknownLoc>(function.getLoc()));
}

TEST_F(TraceImporterTest, FindsTheNodeInLocationsDerivedFromAnOps) {
  NodePtr a = computed(DType::Float32, {4});
  NodePtr exp = elementwise(OpKind::Exp, {a});
  exp->loc = {"model.cpp", 42};
  func::FuncOp function = import(traceOf({elementwise(OpKind::Neg, {exp})}));
  ASSERT_TRUE(function);
  Location negLoc = first<lazy::NegOp>(function).getLoc();
  ASSERT_EQ(import::tracePosition(negLoc), std::optional<size_t>(2));

  // As a pass that fuses ops, or a diagnostic that names a value, would.
  Location elsewhere = FileLineColLoc::get(&context, "other.cpp", 3, 1);
  EXPECT_EQ(import::tracePosition(FusedLoc::get(&context, {elsewhere, negLoc})),
            std::optional<size_t>(2));
  EXPECT_EQ(import::tracePosition(
                NameLoc::get(StringAttr::get(&context, "fused"), negLoc)),
            std::optional<size_t>(2));
  EXPECT_EQ(import::tracePosition(elsewhere), std::nullopt);
  // A NameLoc alone, as a printed location parsed back would be, holds no
  // position.
  EXPECT_EQ(import::tracePosition(
                NameLoc::get(StringAttr::get(&context, "neg#2"), elsewhere)),
            std::nullopt);
}

//===----------------------------------------------------------------------===//
// Tied results and dynamic shapes
//===----------------------------------------------------------------------===//

TEST_F(TraceImporterTest, MarksAResultComputedOverADonatedArgument) {
  NodePtr g = computed(DType::Float32, {4});
  NodePtr update;
  {
    // Only the trace reads w: its buffer is donated to the update.
    NodePtr w = computed(DType::Float32, {4});
    update = elementwise(OpKind::Sub, {g, w});
  }
  NodePtr other = elementwise(OpKind::Exp, {g});
  Trace trace = traceOf({update, other});
  ASSERT_EQ(trace.tiedArguments, (std::vector<int32_t>{1, -1}));
  func::FuncOp function = import(trace);
  ASSERT_TRUE(function);

  auto tied =
      function.getResultAttrOfType<IntegerAttr>(0, lazy::kTiedArgumentAttrName);
  ASSERT_TRUE(tied);
  EXPECT_EQ(tied.getType(), Builder(&context).getI64Type());
  EXPECT_EQ(tied.getInt(), 1);
  EXPECT_FALSE(function.getResultAttr(1, lazy::kTiedArgumentAttrName));
  expectInOrder(print(function),
                {"-> (tensor<4xf32> {lazy.tied_argument = 1 : i64}, "
                 "tensor<4xf32>)"});
}

TEST_F(TraceImporterTest, MarksNoResultWithoutDonation) {
  NodePtr g = computed(DType::Float32, {4});
  func::FuncOp function = import(traceOf({elementwise(OpKind::Neg, {g})}));
  ASSERT_TRUE(function);
  EXPECT_FALSE(function.getResultAttr(0, lazy::kTiedArgumentAttrName));
}

TEST_F(TraceImporterTest, DynamicShapesTypeResultsAsTheOpsInferThem) {
  NodePtr a = computed(DType::Float32, {4, 8});
  NodePtr exp = elementwise(OpKind::Exp, {a});
  NodePtr rowSums =
      pending(OpKind::ReduceSum, DType::Float32, {4, 1}, {exp}, [](Node &n) {
        n.ints = {1};
        n.flag = true;
      });
  NodePtr noise = pending(OpKind::RandomUniform, DType::Float32, {5},
                          {literal(3, DType::Int64)}, [](Node &n) {
                            n.scalar = 0;
                            n.scalar2 = 1;
                          });
  Trace trace = traceOf({rowSums, noise}, /*dynamicShapes=*/true);
  ImportOptions options;
  options.dynamicShapes = true;
  func::FuncOp function = import(trace, options);
  ASSERT_TRUE(function);

  // Every argument dimension is dynamic; a kept dimension is 1 whatever the
  // size; the random op's size is data, in the last argument (one i64).
  constexpr int64_t kDyn = ShapedType::kDynamic;
  EXPECT_EQ(function.getFunctionType(),
            FunctionType::get(&context,
                              {tensor({kDyn, kDyn}),
                               tensor({1}, IntegerType::get(&context, 64))},
                              {tensor({kDyn, 1}), tensor({kDyn})}));
  EXPECT_EQ(first<lazy::ExpOp>(function).getResult().getType(),
            tensor({kDyn, kDyn}));
}

TEST_F(TraceImporterTest, DynamicShapesKeepPromotedLiteralsRankZero) {
  // Eager `full({3}, 2.0f)`: a rank-0 literal broadcast to [3].
  NodePtr full = pending(OpKind::Broadcast, DType::Float32, {3},
                         {literal(2.0, DType::Float32, {})},
                         [](Node &n) { n.ints = {3}; });
  Trace trace = traceOf({full}, /*dynamicShapes=*/true);
  ImportOptions options;
  options.dynamicShapes = true;
  options.promotedLiterals = {true};
  func::FuncOp function = import(trace, options);
  ASSERT_TRUE(function);
  // The target size is data (the last argument): one function serves
  // every size.
  constexpr int64_t kDyn = ShapedType::kDynamic;
  EXPECT_EQ(function.getFunctionType(),
            FunctionType::get(
                &context,
                {tensor({}), tensor({1}, IntegerType::get(&context, 64))},
                {tensor({kDyn})}));
  auto broadcast = first<lazy::BroadcastOp>(function);
  EXPECT_EQ(broadcast.getInput(), function.getArgument(0));
  EXPECT_EQ(broadcast.getShape(), ArrayRef<int64_t>({kDyn}));
  EXPECT_EQ(broadcast.getSizes().size(), 1u);
}

} // namespace
