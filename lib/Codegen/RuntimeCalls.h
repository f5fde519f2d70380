//===- RuntimeCalls.h - Ops that bufferize into runtime calls ---*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycCodegen: what the bufferizations of lazy.collective and
// lazy.attention share to call the runtime's C functions on buffers: the
// interface model of an op that reads its operands and writes a new
// buffer, and the calls' operands.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_CODEGEN_RUNTIMECALLS_H
#define LAZYC_LIB_CODEGEN_RUNTIMECALLS_H

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::lazy {

/// The runtime function `name` of the module around `from`, declared (as
/// private) at its first use. Addresses and counts pass as i64: the C side
/// takes pointers, which the x86-64 ABI passes the same way.
func::FuncOp declareRuntimeFunction(Operation *from, StringRef name,
                                    FunctionType type);

/// The address of `buffer` (offset 0, identity layout) as an i64.
Value runtimeAddress(OpBuilder &b, Location loc, Value buffer);

/// The sizes of `buffer`'s dynamic dimensions.
SmallVector<Value> dynamicSizesOf(OpBuilder &b, Location loc, Value buffer);

/// `buffer`, or a contiguous copy of it when its layout is not the
/// identity (the runtime takes contiguous, row-major buffers).
FailureOr<Value>
contiguousBuffer(RewriterBase &rewriter, Location loc,
                 const bufferization::BufferizationOptions &options,
                 Value buffer);

/// How an op that reads its tensor operands and writes a new buffer
/// through a runtime call bufferizes: `Derived` adds bufferize().
template <typename Derived, typename OpTy>
struct RuntimeCallBufferization
    : public bufferization::BufferizableOpInterface::ExternalModel<Derived,
                                                                    OpTy> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const bufferization::AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const bufferization::AnalysisState &) const {
    return false;
  }
  bufferization::AliasingValueList
  getAliasingValues(Operation *, OpOperand &,
                    const bufferization::AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  FailureOr<bufferization::BufferLikeType>
  getBufferType(Operation *, Value value,
                const bufferization::BufferizationOptions &,
                const bufferization::BufferizationState &,
                SmallVector<Value> &) const {
    auto type = cast<RankedTensorType>(value.getType());
    return cast<bufferization::BufferLikeType>(
        MemRefType::get(type.getShape(), type.getElementType()));
  }
};

} // namespace mlir::lazy

#endif // LAZYC_LIB_CODEGEN_RUNTIMECALLS_H
