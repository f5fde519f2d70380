//===- LazyOpsTest.cpp - Tests of the lazy dialect's C++ API --------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Builds `lazy` ops through the C++ builders (as the trace importer will),
// checks the inferred result types, the folders reached through createOrFold,
// and that verifier messages reach a diagnostic handler.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"
#include "lazyc/Dialect/Lazy/Transforms/Passes.h"
#include "lazyc/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::lazy;

namespace {

class LazyOpsTest : public ::testing::Test {
protected:
  LazyOpsTest() {
    DialectRegistry registry;
    lazyc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = ModuleOp::create(UnknownLoc::get(&context));
    builder.setInsertionPointToEnd(module->getBody());
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type element = {}) {
    return RankedTensorType::get(shape,
                                 element ? element : builder.getF32Type());
  }

  /// A fresh block argument of the given type, to use as an opaque operand.
  Value argument(Type type) {
    Block *block = new Block();
    module->getBodyRegion().push_back(block);
    return block->addArgument(type, builder.getUnknownLoc());
  }

  Value splat(RankedTensorType type, double value) {
    return ConstantOp::create(
        builder, builder.getUnknownLoc(),
        DenseElementsAttr::get(
            type, builder.getFloatAttr(type.getElementType(), value)));
  }

  /// Parses `source`, verifying it; returns the first error message or "".
  std::string firstParseError(StringRef source) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (message.empty())
        message = diag.str();
      return success();
    });
    OwningOpRef<ModuleOp> parsed =
        parseSourceString<ModuleOp>(source, &context);
    return message;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  OpBuilder builder{&context};
};

TEST_F(LazyOpsTest, BuildersInferResultTypes) {
  Location loc = builder.getUnknownLoc();
  Value a = argument(tensor({2, 3}));
  Value b = argument(tensor({3, 4}));
  EXPECT_EQ(MatmulOp::create(builder, loc, a, b).getType(), tensor({2, 4}));
  EXPECT_EQ(
      TransposeOp::create(builder, loc, a, ArrayRef<int64_t>{1, 0}).getType(),
      tensor({3, 2}));
  EXPECT_EQ(ReduceSumOp::create(builder, loc, a, ArrayRef<int64_t>{1}, true)
                .getType(),
            tensor({2, 1}));
  EXPECT_EQ(ReduceSumOp::create(builder, loc, a, ArrayRef<int64_t>{0, 1}, false)
                .getType(),
            tensor({}));
  EXPECT_EQ(
      CompareOp::create(builder, loc, ComparePredicate::lt, a, a).getType(),
      tensor({2, 3}, builder.getI1Type()));
  EXPECT_EQ(BroadcastOp::create(builder, loc, a, ArrayRef<int64_t>{5, 2, 3})
                .getType(),
            tensor({5, 2, 3}));
  EXPECT_EQ(SliceOp::create(builder, loc, b, ArrayRef<int64_t>{0, 1},
                            ArrayRef<int64_t>{3, 4}, ArrayRef<int64_t>{2, 2})
                .getType(),
            tensor({2, 2})); // ceil(3/2) x ceil(3/2)
  EXPECT_EQ(ConcatOp::create(builder, loc, ValueRange{a, a}, 0).getType(),
            tensor({4, 3}));
}

TEST_F(LazyOpsTest, CreateOrFoldComputesConstants) {
  Location loc = builder.getUnknownLoc();
  RankedTensorType type = tensor({4});
  Value two = splat(type, 2.0), three = splat(type, 3.0);
  Value sum = builder.createOrFold<AddOp>(loc, two, three);
  DenseElementsAttr value;
  ASSERT_TRUE(matchPattern(sum, m_Constant(&value)));
  EXPECT_EQ(value.getSplatValue<float>(), 5.0f);

  // exp(1) folds in double precision and rounds once to f32.
  Value e = builder.createOrFold<ExpOp>(loc, splat(type, 1.0));
  ASSERT_TRUE(matchPattern(e, m_Constant(&value)));
  EXPECT_EQ(value.getSplatValue<float>(), 2.71828182845904523536f);
}

TEST_F(LazyOpsTest, IdentityFoldsReturnTheOperand) {
  Location loc = builder.getUnknownLoc();
  RankedTensorType type = tensor({4});
  Value x = argument(type);
  EXPECT_EQ(builder.createOrFold<MulOp>(loc, x, splat(type, 1.0)), x);
  EXPECT_EQ(builder.createOrFold<AddOp>(loc, x, splat(type, -0.0)), x);
  // x + +0.0 is not an identity for x = -0.0: it must stay an add.
  Value plusZero = builder.createOrFold<AddOp>(loc, x, splat(type, 0.0));
  EXPECT_NE(plusZero, x);
  EXPECT_TRUE(plusZero.getDefiningOp<AddOp>());
  EXPECT_EQ(builder.createOrFold<ReshapeOp>(loc, x, ArrayRef<int64_t>{4}), x);
}

TEST_F(LazyOpsTest, VerifierErrorsReachTheDiagnosticHandler) {
  std::string message = firstParseError(R"mlir(
    func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
      %0 = lazy.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32>
      return %0 : tensor<2x5xf32>
    })mlir");
  EXPECT_NE(message.find("'lazy.matmul' op contracting dimensions differ"),
            std::string::npos)
      << message;
}

TEST_F(LazyOpsTest, ValidModuleVerifies) {
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(R"mlir(
    func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %0 = lazy.softmax %x, axis = 1 : tensor<4x8xf32>
      return %0 : tensor<4x8xf32>
    })mlir",
                                                             &context);
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(succeeded(verify(*parsed)));
}

/// refineArgumentTypes on functions it cannot refine: a declaration (its
/// entry block was read although it has none) and several blocks. Each is a
/// diagnostic, not a crash.
TEST_F(LazyOpsTest, RefineArgumentTypesNeedsOneBlock) {
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(R"mlir(
    func.func private @declaration(%x: tensor<?xf32>) -> tensor<?xf32>
    func.func @blocks(%x: tensor<?xf32>) -> tensor<?xf32> {
      cf.br ^bb1
    ^bb1:
      return %x : tensor<?xf32>
    })mlir",
                                                             &context);
  ASSERT_TRUE(parsed);
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  SmallVector<Type> refined = {tensor({4})};
  for (auto function : parsed->getOps<func::FuncOp>())
    EXPECT_TRUE(failed(refineArgumentTypes(function, refined)));
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0], "'func.func' op has 0 blocks: only a function of "
                         "one block can be refined");
  EXPECT_EQ(messages[1], "'func.func' op has 2 blocks: only a function of "
                         "one block can be refined");
}

} // namespace
