//===- lazyc-opt.cpp - lazyc's mlir-opt -----------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyc-opt reads, verifies, transforms and prints `lazy` dialect IR (for
// example a trace dumped by LAZYC_DUMP_TRACES) with every lazyc pass and
// pipeline, following mlir-opt's conventions.
//
//===----------------------------------------------------------------------===//

#include "lazyc/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  lazyc::registerAllPasses();
  mlir::DialectRegistry registry;
  lazyc::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "lazyc optimizer driver: lazy dialect passes and pipelines\n",
      registry));
}
