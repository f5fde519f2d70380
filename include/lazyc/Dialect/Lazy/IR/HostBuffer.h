//===- HostBuffer.h - The lazy.host_buffer attribute ------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The name of the unit attribute that says a buffer is host memory on every
// target: on a function argument (the trace's runtime sizes, which the host
// code reads to size buffers and launches) and on a GPU host function's
// stack buffers (values copied back from the device). A plain header: the
// importer, lazyc-run and the GPU code generator all spell it.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_DIALECT_LAZY_IR_HOSTBUFFER_H
#define LAZYC_DIALECT_LAZY_IR_HOSTBUFFER_H

#include "llvm/ADT/StringRef.h"

namespace mlir::lazy {

inline constexpr llvm::StringLiteral kHostBufferAttr = "lazy.host_buffer";

} // namespace mlir::lazy

#endif // LAZYC_DIALECT_LAZY_IR_HOSTBUFFER_H
