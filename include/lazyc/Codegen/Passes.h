//===- Passes.h - lazyc code generation passes ------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the target-neutral code generation passes (fusion on
// linalg, the passes that shape a function's results and out-parameters,
// the overlap of collectives). The CPU's are in CPU/Passes.h.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_CODEGEN_PASSES_H
#define LAZYC_CODEGEN_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::lazy {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "lazyc/Codegen/Passes.h.inc"

} // namespace mlir::lazy

#endif // LAZYC_CODEGEN_PASSES_H
