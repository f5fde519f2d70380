//===- SplitModule.h - Parts of a module for parallel codegen ---*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// LLVM compiles one module on one thread. A lowered trace of many kernels is
// many functions (the trace and one per loop nest, from
// lazy-outline-loop-nests), so the CPU JIT splits it into modules that
// LLVM optimizes and compiles on several threads, and links their objects
// together.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_JIT_HOST_SPLITMODULE_H
#define LAZYC_LIB_JIT_HOST_SPLITMODULE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/ADT/SmallVector.h"

namespace lazyc::jit {

/// Splits `module` (in the LLVM dialect) into at most `parts` modules that
/// are compiled separately and linked together: each defines some of the
/// functions, balanced by the machine instructions LLVM will make of them
/// (about: vector ops count once per 512-bit register), and declares the
/// others; each has a copy of the module's private constants. Returns no module
/// when `module` is too small to gain from it, has fewer than two functions,
/// or holds something that cannot be split safely (a mutable or exported
/// global, constructors, comdats).
llvm::SmallVector<mlir::OwningOpRef<mlir::ModuleOp>>
splitModule(mlir::ModuleOp module, unsigned parts);

} // namespace lazyc::jit

#endif // LAZYC_LIB_JIT_HOST_SPLITMODULE_H
