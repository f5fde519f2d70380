//===- Passes.h - Lazy dialect passes ---------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the passes and pattern sets of the `lazy` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_DIALECT_LAZY_TRANSFORMS_PASSES_H
#define LAZYC_DIALECT_LAZY_TRANSFORMS_PASSES_H

#include "lazyc/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class TypeRange;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace mlir::lazy {

#define GEN_PASS_DECL
#include "lazyc/Dialect/Lazy/Transforms/Passes.h.inc"

/// Adds the patterns that rewrite composite ops (softmax, log-softmax, mean)
/// into primitive `lazy` ops.
void populateLazyDecomposePatterns(RewritePatternSet &patterns);

/// Gives the arguments of `function` the (more static) `argumentTypes` and
/// re-infers every op's result type and the function's result types from
/// them, e.g. to compile a function with dynamic dimensions for concrete
/// shapes. A given type must fit the declared one (same element type and
/// rank, same size in every static dimension). Reports mismatches and
/// invalid op combinations as diagnostics and fails.
LogicalResult refineArgumentTypes(func::FuncOp function,
                                  TypeRange argumentTypes);

#define GEN_PASS_REGISTRATION
#include "lazyc/Dialect/Lazy/Transforms/Passes.h.inc"

} // namespace mlir::lazy

#endif // LAZYC_DIALECT_LAZY_TRANSFORMS_PASSES_H
