//===- Passes.td - lazyc conversion passes -------------------*- tablegen -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the passes that convert `lazy` IR to upstream dialects.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_CONVERSION_PASSES_TD
#define LAZYC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLazyToLinalgPass : Pass<"convert-lazy-to-linalg"> {
  let summary = "Lower lazy ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Lowers every `lazy` op to upstream ops on tensors:

    - elementwise ops, `compare`, `select`, `cast`, `broadcast`, `transpose`
      and `random_*` become one `linalg.generic` each, with all-parallel
      iterators; broadcasts and transposes are expressed in the indexing
      maps, so `linalg-fuse-elementwise-ops` fuses whole chains;
    - reductions become a `linalg.generic` with reduction iterators over a
      `linalg.fill`ed accumulator (kept dimensions through
      `tensor.expand_shape`);
    - `matmul` becomes `linalg.matmul` / `linalg.batch_matmul`;
    - `reshape`, `slice` and `concat` become `tensor` reshapes,
      `tensor.extract_slice` and `tensor.insert_slice`;
    - `constant` becomes `arith.constant`.

    Composites with static shapes are expected to have been decomposed
    (`lazy-decompose`); the ones left (dynamic shapes) are lowered directly.
    Integer division guards against division by zero and `MIN / -1`, so the
    generated code never traps. Integer ops follow the lazy type's
    signedness: `ui8` gets the unsigned arith ops (`divui`, `remui`,
    `cmpi ult`..., `maxui`/`minui`, `extui`, `uitofp`) and the signless
    `i8`, `i32`, `i64` the signed ones; the pass then makes every integer
    type signless (`ui8` becomes `i8`, constants keep their bits), as arith
    and the later passes require.

    ```mlir
    %0 = lazy.add %a, %b : tensor<4xf32>
    ```

    becomes

    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %0 = linalg.generic {indexing_maps = [#id, #id, #id],
                         iterator_types = ["parallel"]}
        ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // LAZYC_CONVERSION_PASSES_TD
