//===- Passes.h - lazyc GPU code generation passes --------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the passes that turn bufferized loops into kernels of
// an NVIDIA GPU and the trace's function into host code that launches them.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_CODEGEN_GPU_PASSES_H
#define LAZYC_CODEGEN_GPU_PASSES_H

#include "lazyc/Dialect/Lazy/IR/HostBuffer.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir::lazy {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "lazyc/Codegen/GPU/Passes.h.inc"

} // namespace mlir::lazy

#endif // LAZYC_CODEGEN_GPU_PASSES_H
