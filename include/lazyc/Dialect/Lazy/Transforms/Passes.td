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

def LazyScheduleCollectivesPass : Pass<"lazy-schedule-collectives"> {
  let summary = "Issue collectives early and pack all-reduces into buckets";
  let description = [{
    A collective runs while the ops after it compute, so it should start as
    soon as its input exists. This pass moves each `lazy.collective` up to
    just after the op that defines its input (a trace records a training
    step's gradient all-reduces after the whole backward pass, though each
    gradient is ready long before).

    Then it packs the all-reduces of a block that share a reduction, element
    type and world size, in the order they became ready, into buckets of up
    to `bucket-bytes` (PyTorch DDP's 25 MiB by default): the members are
    flattened and concatenated, all-reduced once, and sliced back. One
    exchange of many small gradients costs one latency instead of many. A
    bucket starts once its last member is ready. An all-reduce larger than
    `bucket-bytes` and dynamically shaped inputs stay on their own.
  }];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"25 << 20",
           "Most bytes of all-reduce inputs packed into one bucket "
           "(0: no buckets)">
  ];
  let dependentDialects = ["::mlir::lazy::LazyDialect"];
}

#endif // LAZYC_DIALECT_LAZY_TRANSFORMS_PASSES_TD
