// RUN: lazyc-opt %s -split-input-file --lazy-decompose --convert-lazy-to-linalg --lazy-fuse-elementwise | FileCheck %s

// Layer norm: the per-row scalars (mean, rsqrt(var + eps)) are computed once
// per row in their own generics, not fused into the per-element consumers
// (which would recompute a division and a square root for every element);
// the cheap x - mean is recomputed in both of its consumers instead of being
// stored. 5 generics: sum, mean, sum of squares, rstd, output.
// CHECK-LABEL: func.func @layer_norm
//       CHECK:   %[[SUM:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "reduction"]
//       CHECK:   %[[MEAN:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//  CHECK-SAME:     ins(%[[SUM]] : tensor<8x1xf32>)
//       CHECK:     arith.divf
//       CHECK:   %[[SQ:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "reduction"]
//       CHECK:     arith.subf
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
//       CHECK:   %[[RSTD:.*]] = linalg.generic
//  CHECK-SAME:     ins(%[[SQ]] : tensor<8x1xf32>)
//       CHECK:     math.rsqrt
//       CHECK:   %[[OUT:.*]] = linalg.generic
//   CHECK-NOT:     math.rsqrt
//   CHECK-NOT:     arith.divf
//       CHECK:     arith.subf
//       CHECK:   return %[[OUT]]
func.func @layer_norm(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %m = lazy.reduce_mean %x [1] keep_dims : tensor<8x128xf32>
  %mb = lazy.broadcast %m to [8, 128] : tensor<8x1xf32>
  %d = lazy.sub %x, %mb : tensor<8x128xf32>
  %d2 = lazy.mul %d, %d : tensor<8x128xf32>
  %v = lazy.reduce_mean %d2 [1] keep_dims : tensor<8x128xf32>
  %eps = lazy.constant dense<1.0e-5> : tensor<8x1xf32>
  %ve = lazy.add %v, %eps : tensor<8x1xf32>
  %r = lazy.rsqrt %ve : tensor<8x1xf32>
  %rb = lazy.broadcast %r to [8, 128] : tensor<8x1xf32>
  %n = lazy.mul %d, %rb : tensor<8x128xf32>
  return %n : tensor<8x128xf32>
}

// -----

// An expensive producer (exp) read by two consumers is not duplicated: it
// stays one generic that both read. (Two reads by one consumer are one use:
// that fuses.)
// CHECK-LABEL: func.func @shared_exp
//       CHECK:   %[[E:.*]] = linalg.generic
//       CHECK:     math.exp
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%[[E]], %{{.*}} :
//   CHECK-NOT:     math.exp
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%[[E]], %{{.*}} :
//   CHECK-NOT:     math.exp
//       CHECK:   return
func.func @shared_exp(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = lazy.exp %x : tensor<64xf32>
  %s = lazy.mul %e, %x : tensor<64xf32>
  %t = lazy.add %e, %x : tensor<64xf32>
  return %s, %t : tensor<64xf32>, tensor<64xf32>
}

// -----

// A single-use elementwise chain read element for element fuses completely.
// CHECK-LABEL: func.func @chain
//       CHECK:   linalg.generic
//       CHECK:     arith.mulf
//       CHECK:     math.tanh
//       CHECK:     arith.addf
//   CHECK-NOT:   linalg.generic
func.func @chain(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %0 = lazy.mul %x, %y : tensor<64xf32>
  %1 = lazy.tanh %0 : tensor<64xf32>
  %2 = lazy.add %1, %x : tensor<64xf32>
  return %2 : tensor<64xf32>
}
