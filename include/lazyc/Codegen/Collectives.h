//===- Collectives.h - Collectives as runtime calls -------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares how `lazy.collective` bufferizes, for every target:
// into a new output buffer and a start / wait pair of calls to the runtime
// (lazyc/Runtime/Collectives.h), which lazy-overlap-collectives then pulls
// apart. The GPU's lazy-gpu-collectives turns the pair into the calls for
// device buffers.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_CODEGEN_COLLECTIVES_H
#define LAZYC_CODEGEN_COLLECTIVES_H

namespace mlir {
class DialectRegistry;
class Value;
namespace memref {
class ExtractAlignedPointerAsIndexOp;
} // namespace memref

namespace lazy {
/// Attaches BufferizableOpInterface to lazy.collective.
void registerCollectiveBufferizationModel(DialectRegistry &registry);

/// The `memref.extract_aligned_pointer_as_index` behind an address operand
/// of a collective's runtime call (through its `arith.index_cast`), as the
/// bufferization makes them; null for another form.
memref::ExtractAlignedPointerAsIndexOp collectiveAddressSource(Value address);
} // namespace lazy
} // namespace mlir

#endif // LAZYC_CODEGEN_COLLECTIVES_H
