//===- LazyDialect.cpp - Lazy dialect registration ------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the `lazy` dialect's registration, constant
// materialization and the verification of `lazy.tied_argument`.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Dialect/Lazy/IR/LazyDialect.h"
#include "lazyc/Dialect/Lazy/IR/LazyOps.h"
#include "lazyc/Dialect/Lazy/IR/TiedArgument.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::lazy;

#include "lazyc/Dialect/Lazy/IR/LazyOpsDialect.cpp.inc"

void LazyDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "lazyc/Dialect/Lazy/IR/LazyOps.cpp.inc"
      >();
}

Operation *LazyDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

LogicalResult LazyDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned region,
                                                       unsigned result,
                                                       NamedAttribute attr) {
  if (attr.getName() != kTiedArgumentAttrName)
    return op->emitError() << "unknown lazy result attribute '"
                           << attr.getName().getValue() << "'";
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function || region != 0)
    return op->emitError("'lazy.tied_argument' applies to function results");
  auto index = dyn_cast<IntegerAttr>(attr.getValue());
  if (!index)
    return op->emitError("'lazy.tied_argument' of result ")
           << result << " must be an integer";
  int64_t argument = index.getInt();
  if (argument < 0 || argument >= function.getNumArguments())
    return op->emitError("result ")
           << result << " is tied to argument " << argument
           << ", but the function has " << function.getNumArguments()
           << " arguments";
  Type argumentType = function.getArgumentTypes()[argument];
  Type resultType = function.getResultTypes()[result];
  if (argumentType != resultType)
    return op->emitError("result ")
           << result << " of type " << resultType << " is tied to argument "
           << argument << " of type " << argumentType
           << ": the types must be equal";
  for (unsigned other = 0; other < result; ++other)
    if (auto earlier =
            function.getResultAttrOfType<IntegerAttr>(other, attr.getName());
        earlier && earlier.getInt() == argument)
      return op->emitError("results ")
             << other << " and " << result << " are both tied to argument "
             << argument;
  return success();
}
