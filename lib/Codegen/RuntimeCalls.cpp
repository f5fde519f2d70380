//===- RuntimeCalls.cpp - Ops that bufferize into runtime calls -----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

func::FuncOp lazy::declareRuntimeFunction(Operation *from, StringRef name,
                                          FunctionType type) {
  auto module = from->getParentOfType<ModuleOp>();
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto function = func::FuncOp::create(b, module.getLoc(), name, type);
  function.setPrivate();
  return function;
}

func::FuncOp lazy::declareDescriptorFunction(Operation *from, StringRef name,
                                             TypeRange arguments) {
  func::FuncOp function = declareRuntimeFunction(
      from, name, FunctionType::get(from->getContext(), arguments, {}));
  function->setAttr("llvm.emit_c_interface", UnitAttr::get(from->getContext()));
  return function;
}

MemRefType lazy::anyLayoutMemRefType(Type element, int64_t rank) {
  int64_t dynamic = ShapedType::kDynamic;
  SmallVector<int64_t> unknown(rank, dynamic);
  return MemRefType::get(
      unknown, element,
      StridedLayoutAttr::get(element.getContext(), dynamic, unknown));
}

Value lazy::runtimeAddress(OpBuilder &b, Location loc, Value buffer) {
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
}

SmallVector<Value> lazy::dynamicSizesOf(OpBuilder &b, Location loc,
                                        Value buffer) {
  SmallVector<Value> sizes;
  auto type = cast<MemRefType>(buffer.getType());
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(memref::DimOp::create(b, loc, buffer, d));
  return sizes;
}

FailureOr<Value>
lazy::contiguousBuffer(RewriterBase &rewriter, Location loc,
                       const bufferization::BufferizationOptions &options,
                       Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getLayout().isIdentity())
    return buffer;
  auto contiguousType = MemRefType::get(type.getShape(), type.getElementType());
  FailureOr<Value> contiguous = options.createAlloc(
      rewriter, loc, contiguousType, dynamicSizesOf(rewriter, loc, buffer));
  if (failed(contiguous) ||
      failed(options.createMemCpy(rewriter, loc, buffer, *contiguous)))
    return failure();
  return *contiguous;
}
