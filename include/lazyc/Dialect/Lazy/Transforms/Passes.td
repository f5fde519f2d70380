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
    Rewrites `lazy.reduce_mean` into primitive `lazy` ops: a sum divided by
    the number of reduced elements.

    ```mlir
    %y = lazy.reduce_mean %x [0, 2] keep_dims : tensor<3x4x5xf16>
    ```

    becomes

    ```mlir
    %s = lazy.reduce_sum %x [0, 2] keep_dims : tensor<3x4x5xf16>
    %n = lazy.constant dense<1.500000e+01> : tensor<1x4x1xf16>
    %y = lazy.div %s, %n : tensor<1x4x1xf16>
    ```

    Means over dynamic dimensions are left alone (their sizes are only known
    at run time). Softmax and log-softmax are not decomposed here:
    `convert-lazy-to-linalg` lowers them whole, with a row maximum that need
    not propagate NaN (a NaN makes the row's sum NaN anyway), half the code
    of a NaN-propagating maximum on x86.
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
