//===- Launch.h - Building GPU launches -------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares what the passes that map loops to kernels, place
// their buffers and call the runtime share.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_CODEGEN_GPU_LAUNCH_H
#define LAZYC_LIB_CODEGEN_GPU_LAUNCH_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::lazy {

/// A `gpu.launch` at the builder's insertion point with a grid of `blocks`
/// blocks of `threads` threads (both one-dimensional; one where null) and
/// a body that holds only its terminator.
gpu::LaunchOp createLaunch(OpBuilder &builder, Location loc, Value blocks = {},
                           Value threads = {});

/// Whether `buffer` is an argument of the host function marked
/// `lazy.host_buffer` (the trace's promoted literals and sizes): host
/// memory, which the host code reads and no kernel may.
bool isHostArgument(Value buffer);

/// Whether `buffer` is host memory: a host argument (isHostArgument) or a
/// `memref.alloca` marked `lazy.host_buffer` (a shape buffer; a cell a
/// kernel's result is copied into).
bool isHostBuffer(Value buffer);

/// "argument #2", "a host buffer": what an error says `buffer` is.
std::string describeHostBuffer(Value buffer);

/// On the declaration of a runtime function: a call queues its work on the
/// device's stream, behind the kernels queued before it, and returns
/// without waiting (cuBLASLt's GEMMs, NCCL's collectives). The host need
/// not wait for the device before calling it
/// (lazy-gpu-wait-only-for-device-data).
constexpr llvm::StringLiteral kQueuesOnStreamAttr = "lazy.queues_on_stream";

} // namespace mlir::lazy

#endif // LAZYC_LIB_CODEGEN_GPU_LAUNCH_H
