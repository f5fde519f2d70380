//===- TiedResults.h - Results tied to a function's arguments ---*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the lookup of the results a function computes in an
// argument's buffer (`lazy.tied_argument`), which lazy-update-in-place and
// lazy-materialize-tied-results share.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_CODEGEN_TIEDRESULTS_H
#define LAZYC_LIB_CODEGEN_TIEDRESULTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::lazy {

/// Returns the return of `function` and appends to `ties` each result tied
/// to an argument, with that argument; returns null if `function` has no
/// body or its body is not a single block.
func::ReturnOp
tiedResults(func::FuncOp function,
            SmallVectorImpl<std::pair<unsigned, BlockArgument>> &ties);

} // namespace mlir::lazy

#endif // LAZYC_LIB_CODEGEN_TIEDRESULTS_H
