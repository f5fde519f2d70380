//===- RefineTypes.cpp - Specialize a lazy function to argument types -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements refineArgumentTypes: new argument types flow through
// every op's type inference to new result types.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"
#include "lazyc/Dialect/Lazy/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;
using namespace mlir::lazy;

LogicalResult mlir::lazy::refineArgumentTypes(func::FuncOp function,
                                              TypeRange argumentTypes) {
  // A declaration has no entry block; a branch would need its successors'
  // arguments refined too.
  if (!llvm::hasSingleElement(function.getBody()))
    return function.emitOpError("has ")
           << function.getBody().getBlocks().size()
           << " blocks: only a function of one block can be refined";
  Block &entry = function.front();
  if (entry.getNumArguments() != argumentTypes.size())
    return function.emitOpError("expects ")
           << entry.getNumArguments() << " arguments, but "
           << argumentTypes.size() << " argument types were given";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip_equal(entry.getArguments(), argumentTypes))) {
    auto [argument, type] = pair;
    auto declared = dyn_cast<RankedTensorType>(argument.getType());
    auto given = dyn_cast<RankedTensorType>(type);
    bool fits = declared && given &&
                declared.getElementType() == given.getElementType() &&
                declared.getRank() == given.getRank();
    for (int64_t d = 0; fits && d < declared.getRank(); ++d)
      fits = declared.isDynamicDim(d) ||
             declared.getDimSize(d) == given.getDimSize(d);
    if (!fits)
      return function.emitOpError("argument #")
             << index << " is declared " << argument.getType()
             << ", which the given type " << type << " does not fit";
  }
  for (auto [argument, type] :
       llvm::zip_equal(entry.getArguments(), argumentTypes))
    argument.setType(type);

  WalkResult walk = function.walk([](Operation *op) {
    SmallVector<Type> types;
    if (auto cast = dyn_cast<CastOp>(op)) {
      // A cast keeps its element type and takes its input's shape.
      types.push_back(
          cast.getInput().getType().clone(cast.getType().getElementType()));
    } else if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
      if (failed(infer.inferReturnTypes(
              op->getContext(), op->getLoc(), op->getOperands(),
              op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
              op->getRegions(), types)))
        return WalkResult::interrupt();
    } else {
      return WalkResult::advance();
    }
    for (auto [result, type] : llvm::zip_equal(op->getResults(), types))
      result.setType(type);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  auto terminator = dyn_cast<func::ReturnOp>(entry.getTerminator());
  if (!terminator)
    return function.emitOpError("does not end in func.return");
  function.setType(FunctionType::get(function.getContext(), argumentTypes,
                                     terminator.getOperandTypes()));
  return success();
}
