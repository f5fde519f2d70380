// RUN: lazyc-opt %s --lazy-decompose --convert-lazy-to-linalg --lazy-cpu-fuse | FileCheck %s

// The lowering emits one all-parallel linalg.generic per elementwise op and
// expresses broadcasts and transposes in indexing maps, so upstream
// elementwise fusion collapses whole chains into a single generic.

// CHECK-DAG: #[[$TRANSPOSED:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$BCAST:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>

// relu(tanh(exp(x * 0.5 + 0.1)) * 1.5 - 1) / (1 + x * x) with splat
// constants: the ten elementwise ops become exactly one generic that reads
// only %x; the splats are folded into scalar constants.
// CHECK-LABEL: func.func @elementwise_chain
//  CHECK-SAME:   (%[[X:.*]]: tensor<1024xf32>)
//   CHECK-NOT:   arith.constant dense
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<1024xf32>
//   CHECK-NOT:   linalg.generic
//  CHECK-COUNT-1: linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel"]
//  CHECK-SAME:     ins(%[[X]] : tensor<1024xf32>) outs(%[[E]] : tensor<1024xf32>)
//       CHECK:   ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
//   CHECK-DAG:     arith.mulf %[[V]], %[[V]] : f32
//   CHECK-DAG:     arith.mulf %[[V]], %{{.*}} : f32
//   CHECK-DAG:     math.exp
//   CHECK-DAG:     math.tanh
//   CHECK-DAG:     arith.subf
//   CHECK-DAG:     arith.maximumf
//       CHECK:     %[[Q:.*]] = arith.divf
//       CHECK:     linalg.yield %[[Q]] : f32
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   lazy.
func.func @elementwise_chain(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %half = lazy.constant dense<0.5> : tensor<1024xf32>
  %tenth = lazy.constant dense<0.1> : tensor<1024xf32>
  %scale = lazy.constant dense<1.5> : tensor<1024xf32>
  %one = lazy.constant dense<1.0> : tensor<1024xf32>
  %0 = lazy.mul %x, %half : tensor<1024xf32>
  %1 = lazy.add %0, %tenth : tensor<1024xf32>
  %2 = lazy.exp %1 : tensor<1024xf32>
  %3 = lazy.tanh %2 : tensor<1024xf32>
  %4 = lazy.mul %3, %scale : tensor<1024xf32>
  %5 = lazy.sub %4, %one : tensor<1024xf32>
  %6 = lazy.relu %5 : tensor<1024xf32>
  %7 = lazy.mul %x, %x : tensor<1024xf32>
  %8 = lazy.add %one, %7 : tensor<1024xf32>
  %9 = lazy.div %6, %8 : tensor<1024xf32>
  return %9 : tensor<1024xf32>
}

// Row softmax: 5 generics. The two reductions (max, sum) cannot absorb their
// consumers, and exp(x - max) is used by both the sum and the final product,
// so it stays materialized (the fusion only fuses single-use producers). The
// reductions produce 64 values, which their consumers read through (d0)
// maps. The sum's reciprocal is one division per row, not fused into the
// product (which would divide once per element):
//   1. max reduction     (maxnumf: a NaN makes the row NaN through the sum),
//   2. exp(x - max)      (sub and exp fused, the max broadcast in a map),
//   3. sum reduction,
//   4. 1 / sum,
//   5. exp * (1 / sum)   (broadcast in a map).
// CHECK-LABEL: func.func @row_softmax
//  CHECK-SAME:   (%[[X:.*]]: tensor<64x128xf32>)
//   CHECK-NOT:   tensor.expand_shape
//       CHECK:   %[[MAX:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "reduction"]
//       CHECK:     arith.maxnumf
//       CHECK:   %[[EXP:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//  CHECK-SAME:     ins(%[[X]], %[[MAX]] :
//       CHECK:     arith.subf
//  CHECK-NEXT:     math.exp
//       CHECK:   %[[SUM:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "reduction"]
//       CHECK:     arith.addf
//       CHECK:   %[[INV:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel"]
//  CHECK-SAME:     ins(%[[SUM]] :
//       CHECK:     arith.divf
//       CHECK:   %[[R:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//  CHECK-SAME:     ins(%[[EXP]], %[[INV]] :
//       CHECK:     arith.mulf
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @row_softmax(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = lazy.softmax %x, axis = 1 : tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// transpose + broadcast + add + relu + exp: one generic reading %x through
// the transposed map and %b through the broadcast map.
// CHECK-LABEL: func.func @broadcast_transpose_chain
//  CHECK-SAME:   (%[[X:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<8xf32>)
//   CHECK-NOT:   linalg.generic
//  CHECK-COUNT-1: linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$TRANSPOSED]], #[[$BCAST]], #[[$ID2]]]
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//  CHECK-SAME:     ins(%[[X]], %[[B]] : tensor<8x16xf32>, tensor<8xf32>)
//  CHECK-SAME:     outs(%{{.*}} : tensor<16x8xf32>)
//       CHECK:   ^bb0(%[[XV:.*]]: f32, %[[BV:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = arith.addf %[[XV]], %[[BV]] : f32
//       CHECK:     %[[R:.*]] = arith.maximumf %[[S]], %{{.*}} : f32
//       CHECK:     %[[E:.*]] = math.exp %[[R]] : f32
//       CHECK:     linalg.yield %[[E]] : f32
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   lazy.
func.func @broadcast_transpose_chain(%x: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<16x8xf32> {
  %t = lazy.transpose %x [1, 0] : tensor<8x16xf32>
  %bb = lazy.broadcast %b to [16, 8] : tensor<8xf32>
  %s = lazy.add %t, %bb : tensor<16x8xf32>
  %r = lazy.relu %s : tensor<16x8xf32>
  %e = lazy.exp %r : tensor<16x8xf32>
  return %e : tensor<16x8xf32>
}
