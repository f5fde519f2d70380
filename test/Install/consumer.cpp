//===- consumer.cpp - Uses an installed lazyc -----------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Parses a mean's trace, decomposes it and prints the number of lazy ops
// (3: reduce_sum, constant, div).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Dialect/Lazy/IR/LazyDialect.h"
#include "lazyc/Dialect/Lazy/Transforms/Passes.h"
#include "lazyc/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstdio>

int main() {
  mlir::DialectRegistry registry;
  lazyc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
    func.func @f(%x: tensor<4x8xf32>) -> tensor<4xf32> {
      %0 = lazy.reduce_mean %x [1] : tensor<4x8xf32>
      return %0 : tensor<4xf32>
    })mlir",
                                                        &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  pm.addPass(mlir::lazy::createLazyDecomposePass());
  if (mlir::failed(pm.run(*module)))
    return 1;
  int lazyOps = 0;
  module->walk([&](mlir::Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() ==
                                mlir::lazy::LazyDialect::getDialectNamespace())
      ++lazyOps;
  });
  std::printf("lazy ops after lazy-decompose: %d\n", lazyOps);
  return lazyOps == 3 ? 0 : 1;
}
