//===- Collectives.h - Collectives as runtime calls on the CPU --*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares how `lazy.collective` bufferizes on the CPU: into a new
// output buffer and a start / wait pair of calls to the runtime
// (lazyc/Runtime/Collectives.h), which lazy-cpu-overlap-collectives then
// pulls apart.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_CODEGEN_CPU_COLLECTIVES_H
#define LAZYC_CODEGEN_CPU_COLLECTIVES_H

namespace mlir {
class DialectRegistry;

namespace lazy {
/// Attaches BufferizableOpInterface to lazy.collective.
void registerCollectiveBufferizationModel(DialectRegistry &registry);
} // namespace lazy
} // namespace mlir

#endif // LAZYC_CODEGEN_CPU_COLLECTIVES_H
