// RUN: lazyc-opt %s -split-input-file --lazy-unique-results | FileCheck %s

// A tensor returned more than once is returned as itself the first time and
// as a linalg.copy into a fresh tensor.empty every further time, so that each
// result bufferizes to its own buffer. Results that are already distinct, and
// non-tensor results, are untouched.

// The same static tensor returned twice: the second result is a copy.
// CHECK-LABEL: func.func @twice
//  CHECK-SAME:   (%[[X:.*]]: tensor<4xf32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<4xf32>
//       CHECK:   %[[COPY:.*]] = linalg.copy ins(%[[X]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>) -> tensor<4xf32>
//       CHECK:   return %[[X]], %[[COPY]] : tensor<4xf32>, tensor<4xf32>
func.func @twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %x, %x : tensor<4xf32>, tensor<4xf32>
}

// -----

// A dynamic dimension: the fresh tensor takes its size from the returned
// value.
// CHECK-LABEL: func.func @twice_dynamic
//  CHECK-SAME:   (%[[X:.*]]: tensor<4x?xf32>)
//       CHECK:   %[[C1:.*]] = arith.constant 1 : index
//       CHECK:   %[[D:.*]] = tensor.dim %[[X]], %[[C1]] : tensor<4x?xf32>
//       CHECK:   %[[E:.*]] = tensor.empty(%[[D]]) : tensor<4x?xf32>
//       CHECK:   %[[COPY:.*]] = linalg.copy ins(%[[X]] : tensor<4x?xf32>) outs(%[[E]] : tensor<4x?xf32>)
//       CHECK:   return %[[X]], %[[COPY]]
func.func @twice_dynamic(%x: tensor<4x?xf32>) -> (tensor<4x?xf32>, tensor<4x?xf32>) {
  return %x, %x : tensor<4x?xf32>, tensor<4x?xf32>
}

// -----

// Three occurrences (with a scalar result in between): two separate copies;
// the scalar is not touched.
// CHECK-LABEL: func.func @thrice
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x3xi32>, %[[S:.*]]: f32)
//       CHECK:   %[[E1:.*]] = tensor.empty() : tensor<2x3xi32>
//       CHECK:   %[[C1:.*]] = linalg.copy ins(%[[X]] : tensor<2x3xi32>) outs(%[[E1]] : tensor<2x3xi32>)
//       CHECK:   %[[E2:.*]] = tensor.empty() : tensor<2x3xi32>
//       CHECK:   %[[C2:.*]] = linalg.copy ins(%[[X]] : tensor<2x3xi32>) outs(%[[E2]] : tensor<2x3xi32>)
//       CHECK:   return %[[X]], %[[S]], %[[C1]], %[[C2]], %[[S]]
func.func @thrice(%x: tensor<2x3xi32>, %s: f32) -> (tensor<2x3xi32>, f32, tensor<2x3xi32>, tensor<2x3xi32>, f32) {
  return %x, %s, %x, %x, %s : tensor<2x3xi32>, f32, tensor<2x3xi32>, tensor<2x3xi32>, f32
}

// -----

// Two results computed separately are distinct values: nothing changes.
// CHECK-LABEL: func.func @distinct
//  CHECK-SAME:   (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
//   CHECK-NOT:   linalg.copy
//   CHECK-NOT:   tensor.empty
//       CHECK:   return %[[X]], %[[Y]] : tensor<4xf32>, tensor<4xf32>
func.func @distinct(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %x, %y : tensor<4xf32>, tensor<4xf32>
}

// -----

// The same empty tensor returned twice (what CSE makes of two empty results)
// is copied too.
// CHECK-LABEL: func.func @same_empty
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<0xf32>
//       CHECK:   %[[E2:.*]] = tensor.empty() : tensor<0xf32>
//       CHECK:   %[[COPY:.*]] = linalg.copy ins(%[[E]] : tensor<0xf32>) outs(%[[E2]] : tensor<0xf32>)
//       CHECK:   return %[[E]], %[[COPY]]
func.func @same_empty() -> (tensor<0xf32>, tensor<0xf32>) {
  %0 = tensor.empty() : tensor<0xf32>
  return %0, %0 : tensor<0xf32>, tensor<0xf32>
}
