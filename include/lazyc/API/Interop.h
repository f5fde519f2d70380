//===- Interop.h - Sharing tensors with other libraries ---------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the exchange of tensors with other array libraries
// through DLPack (https://dmlc.github.io/dlpack), without copies where the
// memory allows it. The DLPack types are only declared here: a program that
// calls these functions includes <dlpack/dlpack.h> (Debian: libdlpack-dev)
// itself, and lazyc's other users need no DLPack header. The ABI is DLPack
// 0.6's DLManagedTensor, which every DLPack producer and consumer supports
// (the installed header, 0.6, has no DLPack 1.0 DLManagedTensorVersioned).
//
// Tensor::fromBuffer and Tensor::copyTo (lazyc/API/Tensor.h) exchange plain
// memory; saveNpz/loadNpz (lazyc/API/Serialization.h) exchange files.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_INTEROP_H
#define LAZYC_API_INTEROP_H

#include "lazyc/API/Tensor.h"

struct DLManagedTensor;

namespace lazyc {

/// Exports `tensor` (materializes it) as a DLPack tensor that shares its
/// buffer: the DLPack data pointer is lazyc's buffer, C-contiguous, with
/// explicit strides. The export keeps the buffer alive and unchanged (lazyc
/// never updates a buffer in place while an export holds it) until the
/// consumer calls its deleter, exactly once. Bool is DLPack's bool (code 6,
/// 8 bits); BFloat16 is kDLBfloat.
DLManagedTensor *toDLPack(const Tensor &tensor,
                          SourceLocation where = SourceLocation::current());

/// Imports a DLPack tensor, taking ownership of `managed`: its deleter runs
/// once, when lazyc no longer needs the memory. A C-contiguous CPU tensor
/// whose data (with byte_offset) is aligned to its element size is used in
/// place, as Tensor::fromBuffer does (lazyc reads it, never writes it);
/// other strides (any, negative ones too) or an unaligned pointer are copied
/// at once and the deleter runs before fromDLPack returns. Pinned host
/// memory (kDLCUDAHost) counts as CPU memory. An unsupported dtype or
/// device (kDLCUDA while the GPU backend is not built) is a lazyc::Error
/// naming it; on an error `managed` stays the caller's (no deleter call).
Tensor fromDLPack(DLManagedTensor *managed,
                  SourceLocation where = SourceLocation::current());

} // namespace lazyc

#endif // LAZYC_API_INTEROP_H
