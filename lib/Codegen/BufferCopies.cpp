//===- BufferCopies.cpp - Copying buffers in generated code ---------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements copyToNewBuffer, the copy of a buffer into an
// allocation of its own that lazy-unique-results and
// lazy-materialize-tied-results emit.
//
//===----------------------------------------------------------------------===//

#include "BufferCopies.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

Value lazy::copyToNewBuffer(OpBuilder &b, Location loc, Value value) {
  auto type = cast<MemRefType>(value.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d)
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(memref::DimOp::create(b, loc, value, d));
  Value copy = memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()),
      dynamicSizes);
  memref::CopyOp::create(b, loc, value, copy);
  return copy;
}
