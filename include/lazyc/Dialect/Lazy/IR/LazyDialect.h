//===- LazyDialect.h - Lazy dialect declaration -----------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the `lazy` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_DIALECT_LAZY_IR_LAZYDIALECT_H
#define LAZYC_DIALECT_LAZY_IR_LAZYDIALECT_H

#include "mlir/IR/Dialect.h"

#include "lazyc/Dialect/Lazy/IR/LazyOpsDialect.h.inc"

#endif // LAZYC_DIALECT_LAZY_IR_LAZYDIALECT_H
