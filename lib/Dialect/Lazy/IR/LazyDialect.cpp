//===- LazyDialect.cpp - Lazy dialect registration ------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the `lazy` dialect's registration and constant
// materialization.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Dialect/Lazy/IR/LazyDialect.h"
#include "lazyc/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::lazy;

#include "lazyc/Dialect/Lazy/IR/LazyOpsDialect.cpp.inc"

void LazyDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "lazyc/Dialect/Lazy/IR/LazyOps.cpp.inc"
      >();
}

Operation *LazyDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
