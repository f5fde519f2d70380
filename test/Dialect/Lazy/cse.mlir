// RUN: lazyc-opt %s -cse | FileCheck %s

// Lazy ops are pure: CSE merges identical ops, including seeded random ops
// (the same seed and shape give the same numbers), but keeps ops that differ
// in an attribute.
// CHECK-LABEL: func.func @cse
//  CHECK-SAME:   (%[[X:.*]]: tensor<4xf32>)
//       CHECK:   %[[E:.*]] = lazy.exp %[[X]]
//   CHECK-NOT:   lazy.exp
//       CHECK:   %[[R:.*]] = lazy.random_uniform {{.*}} seed = 1 :
//       CHECK:   %[[R2:.*]] = lazy.random_uniform {{.*}} seed = 2 :
//   CHECK-NOT:   lazy.random_uniform
//       CHECK:   %[[S:.*]] = lazy.reduce_sum %[[X]] [0] :
//       CHECK:   %[[SK:.*]] = lazy.reduce_sum %[[X]] [0] keep_dims :
//       CHECK:   return %[[E]], %[[E]], %[[R]], %[[R]], %[[R2]], %[[S]], %[[S]], %[[SK]]
func.func @cse(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<1xf32>) {
  %0 = lazy.exp %x : tensor<4xf32>
  %1 = lazy.exp %x : tensor<4xf32>
  %2 = lazy.random_uniform low = 0.0, high = 1.0, seed = 1 : tensor<4xf32>
  %3 = lazy.random_uniform low = 0.0, high = 1.0, seed = 1 : tensor<4xf32>
  %4 = lazy.random_uniform low = 0.0, high = 1.0, seed = 2 : tensor<4xf32>
  %5 = lazy.reduce_sum %x [0] : tensor<4xf32>
  %6 = lazy.reduce_sum %x [0] : tensor<4xf32>
  %7 = lazy.reduce_sum %x [0] keep_dims : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<1xf32>
}
