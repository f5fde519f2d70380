//===- SplitModuleTest.cpp - Parts of a module for parallel codegen -------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyc::jit::splitModule (lib/JIT/Host/SplitModule.h): which part defines
// which function, on modules built here with known op counts.
//
//===----------------------------------------------------------------------===//

#include "JIT/Host/SplitModule.h"
#include "lazyc/InitAll.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <set>
#include <string>

using namespace mlir;

namespace {

/// An llvm.func named `name` of `count` ops `fadd` on values of `type`.
std::string function(const std::string &name, int count,
                     const std::string &type) {
  std::string text = "llvm.func @" + name + "(%x: " + type + ") -> " + type +
                     " {\n  %v0 = llvm.fadd %x, %x : " + type + "\n";
  for (int i = 1; i < count; ++i)
    text += "  %v" + std::to_string(i) + " = llvm.fadd %v" +
            std::to_string(i - 1) + ", %x : " + type + "\n";
  return text + "  llvm.return %v" + std::to_string(count - 1) + " : " + type +
         "\n}\n";
}

/// The names of the functions `part` defines.
std::set<std::string> defined(ModuleOp part) {
  std::set<std::string> names;
  for (auto function : part.getOps<LLVM::LLVMFuncOp>())
    if (!function.isExternal())
      names.insert(function.getName().str());
  return names;
}

class SplitModuleTest : public ::testing::Test {
protected:
  SplitModuleTest() {
    DialectRegistry registry;
    lazyc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(const std::string &source) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>("module {\n" + source + "}\n", &context);
    EXPECT_TRUE(module) << source;
    return module;
  }

  MLIRContext context;
};

TEST_F(SplitModuleTest, BalancesTheInstructionsLLVMWillMake) {
  // 150 ops on <32 x f32> are 300 machine ops (two 512-bit registers
  // each); 160 scalar ops are 160. By op count the vector function would
  // share a part with a scalar one (150 + 160 against 160); by machine ops
  // it is a part alone (300 against 320).
  OwningOpRef<ModuleOp> module = parse(function("wide", 150, "vector<32xf32>") +
                                       function("narrow_a", 160, "f32") +
                                       function("narrow_b", 160, "f32"));
  auto parts = lazyc::jit::splitModule(*module, 2);
  ASSERT_EQ(parts.size(), 2u);
  std::set<std::string> first = defined(*parts[0]), second = defined(*parts[1]);
  std::set<std::string> wide = {"wide"}, narrow = {"narrow_a", "narrow_b"};
  EXPECT_TRUE((first == wide && second == narrow) ||
              (first == narrow && second == wide));
  // Every part declares what it does not define.
  for (auto &part : parts)
    EXPECT_EQ(std::distance(part->getOps<LLVM::LLVMFuncOp>().begin(),
                            part->getOps<LLVM::LLVMFuncOp>().end()),
              3);
}

TEST_F(SplitModuleTest, SmallModulesStayWhole) {
  // 2 x 60 ops: below 200 per part, a thread would cost more than it saves.
  OwningOpRef<ModuleOp> module =
      parse(function("a", 60, "f32") + function("b", 60, "f32"));
  EXPECT_TRUE(lazyc::jit::splitModule(*module, 2).empty());
}

} // namespace
