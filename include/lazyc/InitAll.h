//===- InitAll.h - Register every lazyc dialect and pass --------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the one registration point that lazyc-opt, the JIT and
// the tests share, so they all see the same dialects and passes.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_INITALL_H
#define LAZYC_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace lazyc {

/// Adds the `lazy` dialect and the upstream dialects lazyc lowers to.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers lazyc's passes and pipelines and the upstream passes they use.
void registerAllPasses();

} // namespace lazyc

#endif // LAZYC_INITALL_H
