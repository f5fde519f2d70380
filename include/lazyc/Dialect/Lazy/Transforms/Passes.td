//===- Passes.td - Lazy dialect passes -----------------------*- tablegen -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the passes that transform `lazy` dialect IR.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_DIALECT_LAZY_TRANSFORMS_PASSES_TD
#define LAZYC_DIALECT_LAZY_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def LazyDecomposePass : Pass<"lazy-decompose"> {
  let summary = "Rewrite composite lazy ops into primitive lazy ops";
  let description = [{
    Rewrites `lazy.softmax`, `lazy.log_softmax` and `lazy.reduce_mean` into
    primitive `lazy` ops, so lowering only deals with primitives. Softmax uses
    the numerically stable form (the row maximum is subtracted first):

    ```mlir
    %y = lazy.softmax %x, axis = 1 : tensor<4x8xf32>
    ```

    becomes

    ```mlir
    %m = lazy.reduce_max %x [1] keep_dims : tensor<4x8xf32>
    %mb = lazy.broadcast %m to [4, 8] : tensor<4x1xf32>
    %d = lazy.sub %x, %mb : tensor<4x8xf32>
    %e = lazy.exp %d : tensor<4x8xf32>
    %s = lazy.reduce_sum %e [1] keep_dims : tensor<4x8xf32>
    %sb = lazy.broadcast %s to [4, 8] : tensor<4x1xf32>
    %y = lazy.div %e, %sb : tensor<4x8xf32>
    ```

    Log-softmax computes `(x - max) - log(sum(exp(x - max)))`, and a mean is a
    sum divided by the number of reduced elements. Ops whose reduced
    dimensions are dynamic are left alone (their sizes are only known at run
    time).
  }];
  let dependentDialects = ["::mlir::lazy::LazyDialect"];
}

#endif // LAZYC_DIALECT_LAZY_TRANSFORMS_PASSES_TD
