// RUN: lazyc-opt %s -split-input-file -lazy-decompose | FileCheck %s

// Softmax and log-softmax are left whole: convert-lazy-to-linalg lowers
// them (test/Conversion/LazyToLinalg/lazy-to-linalg.mlir), with a row
// maximum that need not propagate NaN.
// CHECK-LABEL: func.func @softmax_left_whole
//   CHECK-NOT:   lazy.reduce_max
//       CHECK:   lazy.softmax %{{.*}}, axis = 1
//       CHECK:   lazy.log_softmax %{{.*}}, axis = 0
//   CHECK-NOT:   lazy.exp
//       CHECK:   return
func.func @softmax_left_whole(%x: tensor<4x8xf32>, %y: tensor<4x8xf64>) -> (tensor<4x8xf32>, tensor<4x8xf64>) {
  %0 = lazy.softmax %x, axis = 1 : tensor<4x8xf32>
  %1 = lazy.log_softmax %y, axis = 0 : tensor<4x8xf64>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf64>
}

// -----

// A mean is a sum divided by the number of reduced elements (3 * 5 = 15).
// CHECK-LABEL: func.func @mean
//  CHECK-SAME:   (%[[X:.*]]: tensor<3x4x5xf16>)
//       CHECK:   %[[S:.*]] = lazy.reduce_sum %[[X]] [0, 2] keep_dims : tensor<3x4x5xf16>
//       CHECK:   %[[N:.*]] = lazy.constant dense<1.500000e+01> : tensor<1x4x1xf16>
//       CHECK:   %[[Y:.*]] = lazy.div %[[S]], %[[N]] : tensor<1x4x1xf16>
//       CHECK:   return %[[Y]]
func.func @mean(%x: tensor<3x4x5xf16>) -> tensor<1x4x1xf16> {
  %0 = lazy.reduce_mean %x [0, 2] keep_dims : tensor<3x4x5xf16>
  return %0 : tensor<1x4x1xf16>
}

// -----

// Dynamic shapes are left for the lowering, which knows run-time sizes.
// CHECK-LABEL: func.func @dynamic_left_alone
//       CHECK:   lazy.reduce_mean
func.func @dynamic_left_alone(%x: tensor<?x8xf32>) -> tensor<8xf32> {
  %0 = lazy.reduce_mean %x [0] : tensor<?x8xf32>
  return %0 : tensor<8xf32>
}
