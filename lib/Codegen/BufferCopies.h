//===- BufferCopies.h - Copying buffers in generated code -------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the helpers that copy buffers in generated code.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_CODEGEN_BUFFERCOPIES_H
#define LAZYC_LIB_CODEGEN_BUFFERCOPIES_H

#include "mlir/IR/Builders.h"

namespace mlir::lazy {

/// Emits a copy of memref `value` into a new buffer of the same shape
/// (identity layout, dynamic sizes read from `value`) and returns it.
Value copyToNewBuffer(OpBuilder &b, Location loc, Value value);

} // namespace mlir::lazy

#endif // LAZYC_LIB_CODEGEN_BUFFERCOPIES_H
