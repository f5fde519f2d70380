//===- ReadOnlyArguments.cpp - Arguments the caller still reads -----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-read-only-arguments. One-shot bufferization
// takes a function's arguments as writable unless told otherwise, and an op
// that updates a tensor in place (a scatter's loop inserting into its input)
// would then write into a buffer the caller still reads. Only donated
// arguments, those a result is tied to, may be written.
//
//===----------------------------------------------------------------------===//

#include "TiedResults.h"
#include "lazyc/Codegen/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYREADONLYARGUMENTSPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyReadOnlyArgumentsPass
    : mlir::lazy::impl::LazyReadOnlyArgumentsPassBase<
          LazyReadOnlyArgumentsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    SmallVector<std::pair<unsigned, BlockArgument>> ties;
    (void)mlir::lazy::tiedResults(function, ties);
    llvm::SmallBitVector donated(function.getNumArguments());
    for (auto [result, argument] : ties)
      donated.set(argument.getArgNumber());
    BoolAttr readOnly = BoolAttr::get(&getContext(), false);
    for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
      if (!donated[i] && isa<TensorType>(function.getArgument(i).getType()))
        function.setArgAttr(
            i, bufferization::BufferizationDialect::kWritableAttrName,
            readOnly);
  }
};
} // namespace
