// Fusion and vectorization work inside lazy.if and lazy.while regions: each
// branch's elementwise chain becomes one linalg.generic, then one vectorized
// loop nest, and the whole module lowers to LLVM.
//
// RUN: lazyc-opt %s --lazy-lower-to-linalg --lazy-cpu-fuse \
// RUN:   | FileCheck %s --check-prefix=FUSED
// RUN: lazyc-opt %s --lazy-lower-to-linalg --lazy-cpu-fuse \
// RUN:     --lazy-cpu-tile="num-threads=1" | FileCheck %s --check-prefix=TILED
// RUN: lazyc-opt %s --lazy-cpu-pipeline="num-threads=1" \
// RUN:   | FileCheck %s --check-prefix=LLVM

// FUSED-LABEL: func.func @branch
// FUSED: scf.if
// FUSED-COUNT-1: linalg.generic
// FUSED-NOT: linalg.generic
// FUSED: } else {
// FUSED-COUNT-1: linalg.generic
// FUSED-NOT: linalg.generic
// FUSED: scf.yield

// TILED-LABEL: func.func @branch
// TILED: scf.if
// TILED: vector.transfer_read
// TILED: math.exp
// TILED: } else {
// TILED: vector.transfer_read
// TILED: math.tanh

// LLVM-LABEL: llvm.func @branch
// LLVM: llvm.cond_br
func.func @branch(%c: tensor<i1>, %x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = lazy.if %c : tensor<i1> -> (tensor<64x64xf32>) {
    %e = lazy.exp %x : tensor<64x64xf32>
    %two = lazy.constant dense<2.0> : tensor<64x64xf32>
    %m = lazy.mul %e, %two : tensor<64x64xf32>
    %n = lazy.neg %m : tensor<64x64xf32>
    lazy.yield %n : tensor<64x64xf32>
  } else {
    %h = lazy.tanh %x : tensor<64x64xf32>
    %m = lazy.mul %h, %x : tensor<64x64xf32>
    lazy.yield %m : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}
