//===- Attention.h - Attention as runtime calls -----------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares how `lazy.attention` and `lazy.attention_grad`
// bufferize: into a new output buffer and a call to the runtime's tiled
// kernels (lazyc/Runtime/Attention.h). The kernels read host memory: the
// GPU pipeline rejects the calls (lazy-gpu-gemm-to-cublas).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_CODEGEN_ATTENTION_H
#define LAZYC_CODEGEN_ATTENTION_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;

namespace lazy {
/// Attaches BufferizableOpInterface to lazy.attention and
/// lazy.attention_grad.
void registerAttentionBufferizationModel(DialectRegistry &registry);

/// Whether `callee` is one of the runtime's attention kernels.
bool isAttentionKernel(llvm::StringRef callee);
} // namespace lazy
} // namespace mlir

#endif // LAZYC_CODEGEN_ATTENTION_H
