//===- RuntimeCalls.h - Ops that bufferize into runtime calls ---*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to the codegen libraries: what the bufferizations of
// lazy.collective and lazy.attention share to call the runtime's C
// functions on buffers, and their bufferization analysis; and the
// declarations the passes calling the runtime on memref descriptors (BLAS,
// cuBLAS, convolution kernels) share.
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

/// declareRuntimeFunction for a function that takes its memrefs as
/// descriptors passed by pointer (`_mlir_ciface_<name>`, as the runtime
/// defines them): declared with `llvm.emit_c_interface`.
func::FuncOp declareDescriptorFunction(Operation *from, StringRef name,
                                       TypeRange arguments);

/// A memref type of `rank` dimensions of `element` with any sizes, strides
/// and offset: one runtime function for every view.
MemRefType anyLayoutMemRefType(Type element, int64_t rank);

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

/// The bufferization analysis of an op that becomes a runtime call: it
/// reads its operands, writes none of them, and its results are new
/// buffers of their tensor types' shapes. `ConcreteModel` adds `bufferize`.
template <typename ConcreteModel, typename OpTy>
struct RuntimeCallBufferization
    : bufferization::BufferizableOpInterface::ExternalModel<ConcreteModel,
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

  FailureOr<bufferization::BufferLikeType> getBufferType(
      Operation *, Value value, const bufferization::BufferizationOptions &,
      const bufferization::BufferizationState &, SmallVector<Value> &) const {
    auto type = cast<RankedTensorType>(value.getType());
    return cast<bufferization::BufferLikeType>(
        MemRefType::get(type.getShape(), type.getElementType()));
  }
};

} // namespace mlir::lazy

#endif // LAZYC_LIB_CODEGEN_RUNTIMECALLS_H
