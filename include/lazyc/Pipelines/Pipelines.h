//===- Pipelines.h - Named lazyc compilation pipelines ----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the pipeline builders the JIT runs. Each is also
// registered as a lazyc-opt pipeline, so a dumped trace can be taken through
// exactly what the JIT does, stage by stage:
//
//   lazy-decompose          composites -> primitives (a pass)
//   convert-lazy-to-linalg  lazy -> linalg on tensors (a pass)
//   lazy-cpu-fuse           elementwise fusion, cleanup
//   lazy-cpu-tile           thread loops (scf.forall), vectorized tiles
//   lazy-cpu-bufferize      tensors -> memrefs, results -> out-parameters
//   lazy-cpu-to-llvm        loops, math, memrefs -> LLVM dialect
//   lazy-lower-to-llvm      all of the above
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_PIPELINES_PIPELINES_H
#define LAZYC_PIPELINES_PIPELINES_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace lazyc {

/// Cleans up and fuses linalg on tensors: after it, every elementwise chain
/// (broadcasts and transposes included) is one linalg.generic.
void buildCpuFusePipeline(mlir::OpPassManager &pm);

/// Tiles fused linalg into one scf.forall chunk per thread and vectorizes
/// the tiles (see lazy-cpu-tile-and-vectorize).
void buildCpuTilePipeline(mlir::OpPassManager &pm);

/// Bufferizes: tensors become memrefs, function results become caller-owned
/// out-parameters (appended after the inputs), temporaries are freed.
void buildCpuBufferizePipeline(mlir::OpPassManager &pm);

/// Lowers bufferized linalg to loops and everything to the LLVM dialect.
void buildCpuToLLVMPipeline(mlir::OpPassManager &pm);

/// The whole CPU path: `lazy` dialect to LLVM dialect.
void buildLazyToLLVMPipeline(mlir::OpPassManager &pm);

/// Registers the pipelines above with the pass registry (for lazyc-opt).
void registerPipelines();

} // namespace lazyc

#endif // LAZYC_PIPELINES_PIPELINES_H
