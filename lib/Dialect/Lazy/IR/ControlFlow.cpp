//===- ControlFlow.cpp - lazy.if, lazy.while and lazy.yield ---------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::lazy;

/// Checks that `region` ends in a lazy.yield of values typed `expected`;
/// `what` names the region and `valueName` what each value is, for messages.
static LogicalResult verifyYield(Operation *op, Region &region, StringRef what,
                                 StringRef valueName, TypeRange expected) {
  auto yield = dyn_cast<YieldOp>(region.front().getTerminator());
  if (!yield)
    return op->emitOpError()
           << "requires its " << what << " region to end in lazy.yield";
  if (yield.getValues().size() != expected.size())
    return op->emitOpError()
           << "requires its " << what << " region to yield " << expected.size()
           << " value(s), but it yields " << yield.getValues().size();
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(yield.getValues().getTypes(), expected)))
    if (std::get<0>(pair) != std::get<1>(pair))
      return op->emitOpError()
             << "requires its " << what << " region to yield "
             << std::get<1>(pair) << " for " << valueName << " " << i
             << ", but it yields " << std::get<0>(pair);
  return success();
}

/// Checks that `region` takes one argument per carried value, of its type.
static LogicalResult verifyCarriedArguments(Operation *op, Region &region,
                                            StringRef what, TypeRange carried) {
  Block &block = region.front();
  if (block.getNumArguments() != carried.size())
    return op->emitOpError()
           << "requires its " << what << " region to take " << carried.size()
           << " argument(s), one per carried value, but it "
           << "takes " << block.getNumArguments();
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(block.getArgumentTypes(), carried)))
    if (std::get<0>(pair) != std::get<1>(pair))
      return op->emitOpError()
             << "requires argument " << i << " of its " << what
             << " region to have the carried type " << std::get<1>(pair)
             << ", but it has " << std::get<0>(pair);
  return success();
}

LogicalResult IfOp::verify() {
  if (failed(verifyYield(*this, getThenRegion(), "then", "result",
                         getResultTypes())))
    return failure();
  return verifyYield(*this, getElseRegion(), "else", "result",
                     getResultTypes());
}

LogicalResult WhileOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                        ValueRange operands, DictionaryAttr,
                                        OpaqueProperties, RegionRange,
                                        SmallVectorImpl<Type> &inferred) {
  llvm::append_range(inferred, operands.getTypes());
  return success();
}

LogicalResult WhileOp::verify() {
  TypeRange carried = getInits().getTypes();
  auto predicate = RankedTensorType::get({}, IntegerType::get(getContext(), 1));
  if (failed(verifyCarriedArguments(*this, getCondition(), "condition",
                                    carried)) ||
      failed(verifyYield(*this, getCondition(), "condition", "value",
                         predicate)) ||
      failed(verifyCarriedArguments(*this, getBody(), "body", carried)))
    return failure();
  return verifyYield(*this, getBody(), "body", "carried value", carried);
}

//===----------------------------------------------------------------------===//
// Rows at runtime indices
//===----------------------------------------------------------------------===//

/// The type of one row of `type` along its leading axis, or failure.
static FailureOr<RankedTensorType> rowType(std::optional<Location> loc,
                                           StringRef opName, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() == 0)
    return emitOptionalError(loc, "'", opName,
                             "' op requires an input of rank >= 1, but got ",
                             type),
           failure();
  return RankedTensorType::get(tensor.getShape().drop_front(),
                               tensor.getElementType());
}

LogicalResult IndexRowOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  FailureOr<RankedTensorType> row =
      rowType(loc, getOperationName(), adaptor.getInput().getType());
  if (failed(row))
    return failure();
  inferred.push_back(*row);
  return success();
}

LogicalResult UpdateRowOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  FailureOr<RankedTensorType> row =
      rowType(loc, getOperationName(), adaptor.getInput().getType());
  if (failed(row))
    return failure();
  if (adaptor.getValue().getType() != *row)
    return emitOptionalError(loc, "'", getOperationName(),
                             "' op requires a value of the row type ", *row,
                             ", but got ", adaptor.getValue().getType());
  inferred.push_back(adaptor.getInput().getType());
  return success();
}
