// RUN: lazyc-opt %s -cse | FileCheck %s

// Lazy ops are pure: CSE merges identical ops, including seeded random ops
// (the same seed and shape give the same numbers), but keeps ops that differ
// in an operand (another seed) or an attribute.
// CHECK-LABEL: func.func @cse
//  CHECK-SAME:   (%[[X:.*]]: tensor<4xf32>)
//       CHECK:   %[[E:.*]] = lazy.exp %[[X]]
//   CHECK-NOT:   lazy.exp
//       CHECK:   %[[S1:.*]] = lazy.constant dense<1> : tensor<i64>
//       CHECK:   %[[R:.*]] = lazy.random_uniform %[[S1]],
//       CHECK:   %[[S2:.*]] = lazy.constant dense<2> : tensor<i64>
//       CHECK:   %[[R2:.*]] = lazy.random_uniform %[[S2]],
//   CHECK-NOT:   lazy.random_uniform
//       CHECK:   %[[S:.*]] = lazy.reduce_sum %[[X]] [0] :
//       CHECK:   %[[SK:.*]] = lazy.reduce_sum %[[X]] [0] keep_dims :
//       CHECK:   return %[[E]], %[[E]], %[[R]], %[[R]], %[[R2]], %[[S]], %[[S]], %[[SK]]
func.func @cse(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<1xf32>) {
  %0 = lazy.exp %x : tensor<4xf32>
  %1 = lazy.exp %x : tensor<4xf32>
  %seed2 = lazy.constant dense<1> : tensor<i64>
  %2 = lazy.random_uniform %seed2, low = 0.0, high = 1.0 : tensor<i64> -> tensor<4xf32>
  %seed3 = lazy.constant dense<1> : tensor<i64>
  %3 = lazy.random_uniform %seed3, low = 0.0, high = 1.0 : tensor<i64> -> tensor<4xf32>
  %seed4 = lazy.constant dense<2> : tensor<i64>
  %4 = lazy.random_uniform %seed4, low = 0.0, high = 1.0 : tensor<i64> -> tensor<4xf32>
  %5 = lazy.reduce_sum %x [0] : tensor<4xf32>
  %6 = lazy.reduce_sum %x [0] : tensor<4xf32>
  %7 = lazy.reduce_sum %x [0] keep_dims : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<1xf32>
}
