//===- LazyOps.h - Lazy dialect operations ----------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the operations of the `lazy` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_DIALECT_LAZY_IR_LAZYOPS_H
#define LAZYC_DIALECT_LAZY_IR_LAZYOPS_H

#include "lazyc/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "lazyc/Dialect/Lazy/IR/LazyEnums.h.inc"

#define GET_OP_CLASSES
#include "lazyc/Dialect/Lazy/IR/LazyOps.h.inc"

namespace mlir::lazy {
/// Set by the lowering to linalg on a `lazy.collective` of `ui8` elements,
/// whose type it makes signless `i8`: max and min compare them unsigned.
inline constexpr llvm::StringLiteral kUnsignedElementsAttr =
    "lazy.unsigned_elements";
} // namespace mlir::lazy

#endif // LAZYC_DIALECT_LAZY_IR_LAZYOPS_H
