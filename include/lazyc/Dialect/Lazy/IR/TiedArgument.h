//===- TiedArgument.h - The lazy.tied_argument result attribute -*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The name of the function result attribute that ties a result to the
// argument whose buffer it is computed in (the `lazy` dialect's
// description has the contract). A plain header: the engine, the importer,
// lazyc-run and the code generator all spell it.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_DIALECT_LAZY_IR_TIEDARGUMENT_H
#define LAZYC_DIALECT_LAZY_IR_TIEDARGUMENT_H

#include "llvm/ADT/StringRef.h"

namespace mlir::lazy {

inline constexpr llvm::StringLiteral kTiedArgumentAttrName =
    "lazy.tied_argument";

} // namespace mlir::lazy

#endif // LAZYC_DIALECT_LAZY_IR_TIEDARGUMENT_H
