// The CPU pipeline as one options-taking builder (--lazy-cpu-pipeline, the
// JIT's stages in order): its options reach the passes they configure, and
// the target-neutral first stage is a pipeline of its own.
//
// RUN: lazyc-opt %s --lazy-cpu-pipeline="num-threads=1" \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// RUN: lazyc-opt %s --lazy-cpu-pipeline="num-threads=1 approximate-math=0" \
// RUN:   | FileCheck %s --check-prefix=LIBM
// RUN: lazyc-opt %s --lazy-lower-to-linalg --lazy-cpu-fuse \
// RUN:     --lazy-cpu-tile="num-threads=1 vector-width=16" \
// RUN:   | FileCheck %s --check-prefix=WIDTH
// RUN: lazyc-opt %s --lazy-lower-to-linalg \
// RUN:   | FileCheck %s --check-prefix=LINALG
// RUN: lazyc-opt %s --lazy-cpu-pipeline="num-threads=1" -o %t.whole.mlir
// RUN: lazyc-opt %s --lazy-lower-to-llvm="num-threads=1" -o %t.alias.mlir
// RUN: diff %t.whole.mlir %t.alias.mlir

// exp(x) * 2 on 4x1024 elements.
func.func @scaled_exp(%x: tensor<4x1024xf32>) -> tensor<4x1024xf32> {
  %two = lazy.constant dense<2.0> : tensor<4x1024xf32>
  %e = lazy.exp %x : tensor<4x1024xf32>
  %y = lazy.mul %e, %two : tensor<4x1024xf32>
  return %y : tensor<4x1024xf32>
}

// By default exp is a polynomial: no libm call, no intrinsic.
// DEFAULT-LABEL: llvm.func @scaled_exp
//   DEFAULT-NOT:   llvm.call @expf
//   DEFAULT-NOT:   llvm.intr.exp
//       DEFAULT:   llvm.fmul

// approximate-math=0 keeps LLVM's exp (which calls libm per element).
// LIBM-LABEL: llvm.func @scaled_exp
//       LIBM:   llvm.intr.exp

// vector-width=16: 16-lane tiles instead of 64.
// WIDTH-LABEL: func.func @scaled_exp
//   WIDTH-NOT:   vector<{{.*}}64xf32>
//       WIDTH:   math.exp %{{.*}} : vector<1x16xf32>

// The first stage: linalg on tensors, nothing fused yet (two generics).
// LINALG-LABEL: func.func @scaled_exp
//   LINALG-NOT:   lazy.
//       LINALG:   linalg.generic
//       LINALG:     math.exp
//       LINALG:   linalg.generic
//       LINALG:     arith.mulf
