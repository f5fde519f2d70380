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

// An expensive producer (exp) read by two consumers is not duplicated. The
// first consumer takes it (computing it once and keeping it as an extra
// result, since the other would not recompute it), and then the second
// takes that: one loop, one exp, two results, the exponentials never
// stored. (Two reads by one consumer are one use: that fuses too.)
// CHECK-LABEL: func.func @shared_exp
//       CHECK:   %[[R:.*]]:2 = linalg.generic
//       CHECK:     math.exp
//   CHECK-NOT:     math.exp
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
//       CHECK:     linalg.yield %{{.*}}, %{{.*}} : f32, f32
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[R]]#0, %[[R]]#1
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

// -----

// An SGD-with-momentum update: the new velocity is both a function result
// and the input of the weight update. It is computed once, in one op with
// two results (not recomputed by the update), and the gradient's GEMM then
// has that op as its only consumer.
// CHECK-LABEL: func.func @stored_producer
//       CHECK:   %[[G:.*]] = linalg.matmul
//       CHECK:   %[[R:.*]]:2 = linalg.generic
//  CHECK-SAME:     ins(%{{.*}}, %{{.*}}, %[[G]] :
//       CHECK:     %[[M:.*]] = arith.mulf
//       CHECK:     %[[V:.*]] = arith.addf %[[M]]
//       CHECK:     %[[S:.*]] = arith.mulf %[[V]]
//       CHECK:     %[[W:.*]] = arith.subf %{{.*}}, %[[S]]
//       CHECK:     linalg.yield %[[V]], %[[W]]
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[R]]#0, %[[R]]#1
func.func @stored_producer(%w: tensor<64x32xf32>, %v: tensor<64x32xf32>, %a: tensor<64x16xf32>, %b: tensor<16x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>) {
  %m = lazy.constant dense<0.9> : tensor<64x32xf32>
  %lr = lazy.constant dense<0.01> : tensor<64x32xf32>
  %g = lazy.matmul %a, %b : tensor<64x16xf32>, tensor<16x32xf32>
  %0 = lazy.mul %v, %m : tensor<64x32xf32>
  %1 = lazy.add %0, %g : tensor<64x32xf32>
  %2 = lazy.mul %1, %lr : tensor<64x32xf32>
  %3 = lazy.sub %w, %2 : tensor<64x32xf32>
  return %1, %3 : tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

// A producer whose other user comes before the consumer stays separate:
// the fused op would be defined after that user.
// CHECK-LABEL: func.func @user_before_consumer
//       CHECK:   %[[P:.*]] = linalg.generic
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[P]] :
//       CHECK:   linalg.generic {{.*}} ins(%[[P]] :
func.func @user_before_consumer(%x: tensor<64x32xf32>) -> (tensor<64xf32>, tensor<64x32xf32>) {
  %0 = lazy.exp %x : tensor<64x32xf32>
  %1 = lazy.reduce_sum %0 [1] : tensor<64x32xf32>
  %2 = lazy.log %0 : tensor<64x32xf32>
  return %1, %2 : tensor<64xf32>, tensor<64x32xf32>
}

// -----

// A consumer that reads the producer twice (x + x): canonicalization first
// makes it read one operand twice, and the exponential is then computed
// once and stored as a second result.
// CHECK-LABEL: func.func @consumer_reads_producer_twice
//       CHECK:   %[[R:.*]]:2 = linalg.generic
//       CHECK:     %[[E:.*]] = math.exp
//       CHECK:     %[[S:.*]] = arith.addf %[[E]], %[[E]]
//       CHECK:     linalg.yield %[[E]], %[[S]]
//       CHECK:   return %[[R]]#0, %[[R]]#1
func.func @consumer_reads_producer_twice(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %0 = lazy.exp %x : tensor<64xf32>
  %1 = lazy.add %0, %0 : tensor<64xf32>
  return %0, %1 : tensor<64xf32>, tensor<64xf32>
}

// -----

// A chain in which each step reads the previous value twice (y' = tanh(0.9y
// + 0.1) - 0.01y) is one cluster: its inner values have no readers outside
// it, so it becomes one generic in one step, each step's body once, reading
// %x once.
// CHECK-LABEL: func.func @diamond_chain
//       CHECK:   %[[Y:.*]] = linalg.generic
//  CHECK-SAME:     ins(%arg0 : tensor<64xf32>)
// CHECK-COUNT-3:     math.tanh
//   CHECK-NOT:     math.tanh
//       CHECK:     linalg.yield
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[Y]]
func.func @diamond_chain(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = lazy.constant dense<0.9> : tensor<64xf32>
  %b = lazy.constant dense<0.1> : tensor<64xf32>
  %c = lazy.constant dense<0.01> : tensor<64xf32>
  %0 = lazy.mul %x, %a : tensor<64xf32>
  %1 = lazy.add %0, %b : tensor<64xf32>
  %2 = lazy.tanh %1 : tensor<64xf32>
  %3 = lazy.mul %x, %c : tensor<64xf32>
  %y1 = lazy.sub %2, %3 : tensor<64xf32>
  %4 = lazy.mul %y1, %a : tensor<64xf32>
  %5 = lazy.add %4, %b : tensor<64xf32>
  %6 = lazy.tanh %5 : tensor<64xf32>
  %7 = lazy.mul %y1, %c : tensor<64xf32>
  %y2 = lazy.sub %6, %7 : tensor<64xf32>
  %8 = lazy.mul %y2, %a : tensor<64xf32>
  %9 = lazy.add %8, %b : tensor<64xf32>
  %10 = lazy.tanh %9 : tensor<64xf32>
  %11 = lazy.mul %y2, %c : tensor<64xf32>
  %y3 = lazy.sub %10, %11 : tensor<64xf32>
  return %y3 : tensor<64xf32>
}

// -----

// A broadcast read twice inside a cluster becomes one input of the fused op,
// read through the broadcast map.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @broadcast_leaf
//       CHECK:   linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
//  CHECK-SAME:     ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>)
//       CHECK:   ^bb0(%[[IN:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = arith.addf %[[IN]], %[[B]]
//       CHECK:     %[[E:.*]] = math.exp %[[S]]
//       CHECK:     arith.mulf %[[E]], %[[B]]
//   CHECK-NOT:   linalg.generic
func.func @broadcast_leaf(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %bb = lazy.broadcast %b to [4, 8] : tensor<8xf32>
  %0 = lazy.add %x, %bb : tensor<4x8xf32>
  %1 = lazy.exp %0 : tensor<4x8xf32>
  %2 = lazy.mul %1, %bb : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A value inside a chain that is also a result is not part of the cluster
// that consumes it; it is then fused as a stored producer: computed once and
// yielded as a second result.
// CHECK-LABEL: func.func @outside_use
//       CHECK:   %[[R:.*]]:2 = linalg.generic
//  CHECK-SAME:     ins(%arg0 : tensor<64xf32>)
//       CHECK:     math.exp
//       CHECK:     %[[T:.*]] = math.tanh
//       CHECK:     math.log
//       CHECK:     %[[Q:.*]] = math.sqrt
//       CHECK:     linalg.yield %[[T]], %[[Q]]
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[R]]#1, %[[R]]#0
func.func @outside_use(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %0 = lazy.exp %x : tensor<64xf32>
  %1 = lazy.tanh %0 : tensor<64xf32>
  %2 = lazy.log %1 : tensor<64xf32>
  %3 = lazy.sqrt %2 : tensor<64xf32>
  return %3, %1 : tensor<64xf32>, tensor<64xf32>
}

// -----

// The sum of a broadcast scalar: the broadcast's result is the only operand
// that gives the reduction's loop its size, so the broadcast stays a
// separate op (fusing it would leave an op whose loop has no size); the
// exp between them fuses into the reduction.
// CHECK-LABEL: func.func @sum_of_broadcast
//       CHECK:   %[[B:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel"]
//  CHECK-SAME:     ins(%arg0 : tensor<f32>)
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["reduction"]
//  CHECK-SAME:     ins(%[[B]] : tensor<8xf32>)
//       CHECK:     math.exp
//       CHECK:     arith.addf
func.func @sum_of_broadcast(%s: tensor<f32>) -> tensor<f32> {
  %b = lazy.broadcast %s to [8] : tensor<f32>
  %e = lazy.exp %b : tensor<8xf32>
  %r = lazy.reduce_sum %e [0] : tensor<8xf32>
  return %r : tensor<f32>
}

// -----

// Fused bodies stay below a size (about 1024 ops, a transcendental counting
// 16): a chain of 70 exps becomes two ops, of 10 and 60 exps.
// CHECK-LABEL: func.func @long_chain
//       CHECK:   %[[FIRST:.*]] = linalg.generic
//  CHECK-SAME:     ins(%arg0 : tensor<64xf32>)
// CHECK-COUNT-10:     math.exp
//   CHECK-NOT:     math.exp
//       CHECK:     linalg.yield
//       CHECK:   %[[SECOND:.*]] = linalg.generic
//  CHECK-SAME:     ins(%[[FIRST]] : tensor<64xf32>)
// CHECK-COUNT-60:     math.exp
//   CHECK-NOT:     math.exp
//       CHECK:   return %[[SECOND]]
func.func @long_chain(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e0 = lazy.exp %x : tensor<64xf32>
  %e1 = lazy.exp %e0 : tensor<64xf32>
  %e2 = lazy.exp %e1 : tensor<64xf32>
  %e3 = lazy.exp %e2 : tensor<64xf32>
  %e4 = lazy.exp %e3 : tensor<64xf32>
  %e5 = lazy.exp %e4 : tensor<64xf32>
  %e6 = lazy.exp %e5 : tensor<64xf32>
  %e7 = lazy.exp %e6 : tensor<64xf32>
  %e8 = lazy.exp %e7 : tensor<64xf32>
  %e9 = lazy.exp %e8 : tensor<64xf32>
  %e10 = lazy.exp %e9 : tensor<64xf32>
  %e11 = lazy.exp %e10 : tensor<64xf32>
  %e12 = lazy.exp %e11 : tensor<64xf32>
  %e13 = lazy.exp %e12 : tensor<64xf32>
  %e14 = lazy.exp %e13 : tensor<64xf32>
  %e15 = lazy.exp %e14 : tensor<64xf32>
  %e16 = lazy.exp %e15 : tensor<64xf32>
  %e17 = lazy.exp %e16 : tensor<64xf32>
  %e18 = lazy.exp %e17 : tensor<64xf32>
  %e19 = lazy.exp %e18 : tensor<64xf32>
  %e20 = lazy.exp %e19 : tensor<64xf32>
  %e21 = lazy.exp %e20 : tensor<64xf32>
  %e22 = lazy.exp %e21 : tensor<64xf32>
  %e23 = lazy.exp %e22 : tensor<64xf32>
  %e24 = lazy.exp %e23 : tensor<64xf32>
  %e25 = lazy.exp %e24 : tensor<64xf32>
  %e26 = lazy.exp %e25 : tensor<64xf32>
  %e27 = lazy.exp %e26 : tensor<64xf32>
  %e28 = lazy.exp %e27 : tensor<64xf32>
  %e29 = lazy.exp %e28 : tensor<64xf32>
  %e30 = lazy.exp %e29 : tensor<64xf32>
  %e31 = lazy.exp %e30 : tensor<64xf32>
  %e32 = lazy.exp %e31 : tensor<64xf32>
  %e33 = lazy.exp %e32 : tensor<64xf32>
  %e34 = lazy.exp %e33 : tensor<64xf32>
  %e35 = lazy.exp %e34 : tensor<64xf32>
  %e36 = lazy.exp %e35 : tensor<64xf32>
  %e37 = lazy.exp %e36 : tensor<64xf32>
  %e38 = lazy.exp %e37 : tensor<64xf32>
  %e39 = lazy.exp %e38 : tensor<64xf32>
  %e40 = lazy.exp %e39 : tensor<64xf32>
  %e41 = lazy.exp %e40 : tensor<64xf32>
  %e42 = lazy.exp %e41 : tensor<64xf32>
  %e43 = lazy.exp %e42 : tensor<64xf32>
  %e44 = lazy.exp %e43 : tensor<64xf32>
  %e45 = lazy.exp %e44 : tensor<64xf32>
  %e46 = lazy.exp %e45 : tensor<64xf32>
  %e47 = lazy.exp %e46 : tensor<64xf32>
  %e48 = lazy.exp %e47 : tensor<64xf32>
  %e49 = lazy.exp %e48 : tensor<64xf32>
  %e50 = lazy.exp %e49 : tensor<64xf32>
  %e51 = lazy.exp %e50 : tensor<64xf32>
  %e52 = lazy.exp %e51 : tensor<64xf32>
  %e53 = lazy.exp %e52 : tensor<64xf32>
  %e54 = lazy.exp %e53 : tensor<64xf32>
  %e55 = lazy.exp %e54 : tensor<64xf32>
  %e56 = lazy.exp %e55 : tensor<64xf32>
  %e57 = lazy.exp %e56 : tensor<64xf32>
  %e58 = lazy.exp %e57 : tensor<64xf32>
  %e59 = lazy.exp %e58 : tensor<64xf32>
  %e60 = lazy.exp %e59 : tensor<64xf32>
  %e61 = lazy.exp %e60 : tensor<64xf32>
  %e62 = lazy.exp %e61 : tensor<64xf32>
  %e63 = lazy.exp %e62 : tensor<64xf32>
  %e64 = lazy.exp %e63 : tensor<64xf32>
  %e65 = lazy.exp %e64 : tensor<64xf32>
  %e66 = lazy.exp %e65 : tensor<64xf32>
  %e67 = lazy.exp %e66 : tensor<64xf32>
  %e68 = lazy.exp %e67 : tensor<64xf32>
  %e69 = lazy.exp %e68 : tensor<64xf32>
  return %e69 : tensor<64xf32>
}

// -----

// A residual stream (x1 = x0 + a1, x2 = x1 + a2, ...), each value read by a
// sum and by the next step: a cheap producer with several uses is
// recomputed only where that reads no more memory than loading it (here
// each would read two stored values in place of one), so every sum reads
// its stored value instead of summing the whole stream again (quadratic in
// a transformer's depth).
// CHECK-LABEL: func.func @residual_stream
//       CHECK:   %[[X1:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 :
//       CHECK:   linalg.generic {{.*}} ins(%[[X1]] : tensor<8x64xf32>) outs(%{{.*}} : tensor<8x1xf32>)
//       CHECK:   %[[X2:.*]] = linalg.generic {{.*}} ins(%[[X1]], %arg2 :
//       CHECK:   linalg.generic {{.*}} ins(%[[X2]] : tensor<8x64xf32>) outs(%{{.*}} : tensor<8x1xf32>)
//       CHECK:   %[[X3:.*]] = linalg.generic {{.*}} ins(%[[X2]], %arg3 :
//       CHECK:   linalg.generic {{.*}} ins(%[[X3]] : tensor<8x64xf32>) outs(%{{.*}} : tensor<8x1xf32>)
func.func @residual_stream(%x0: tensor<8x64xf32>, %a1: tensor<8x64xf32>, %a2: tensor<8x64xf32>, %a3: tensor<8x64xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x64xf32>) {
  %x1 = lazy.add %x0, %a1 : tensor<8x64xf32>
  %s1 = lazy.reduce_sum %x1 [1] keep_dims : tensor<8x64xf32>
  %x2 = lazy.add %x1, %a2 : tensor<8x64xf32>
  %s2 = lazy.reduce_sum %x2 [1] keep_dims : tensor<8x64xf32>
  %x3 = lazy.add %x2, %a3 : tensor<8x64xf32>
  %s3 = lazy.reduce_sum %x3 [1] keep_dims : tensor<8x64xf32>
  return %s1, %s2, %s3, %x3 : tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x64xf32>
}

// -----

// A reduction whose payload, once fused, does not read its accumulator (the
// minimum of `x ^ x`, folded to min(acc, 0) = 0 for unsigned values) keeps
// its init: over an empty domain the init is the result. linalg's
// RemoveOutsDependency would have made it tensor.empty, and the minimum of
// an empty UInt8 tensor read uninitialized memory (lazyc-fuzz seed 58788).
// An elementwise op whose payload ignores its init still drops it.
// CHECK-LABEL: func.func @empty_minimum_keeps_its_init
//       CHECK:   %[[MAX:.*]] = arith.constant -1 : i8
//       CHECK:   %[[INIT:.*]] = linalg.fill ins(%[[MAX]] : i8)
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "reduction", "parallel", "reduction", "parallel", "reduction"]
//  CHECK-SAME:     outs(%[[INIT]] : tensor<1x1x1xi8>)
func.func @empty_minimum_keeps_its_init(%x: tensor<1x0x3xui8>) -> tensor<1x1x1xui8> {
  %0 = lazy.bit_xor %x, %x : tensor<1x0x3xui8>
  %1 = lazy.reduce_min %0 [0, 1, 2] keep_dims : tensor<1x0x3xui8>
  return %1 : tensor<1x1x1xui8>
}
