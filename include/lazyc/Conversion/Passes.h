//===- Passes.h - lazyc conversion passes -----------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the passes that convert `lazy` IR to upstream dialects.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_CONVERSION_PASSES_H
#define LAZYC_CONVERSION_PASSES_H

#include "lazyc/Conversion/LazyToLinalg/LazyToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::lazy {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "lazyc/Conversion/Passes.h.inc"

} // namespace mlir::lazy

#endif // LAZYC_CONVERSION_PASSES_H
