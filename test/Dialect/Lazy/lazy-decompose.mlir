// RUN: lazyc-opt %s -split-input-file -lazy-decompose | FileCheck %s

// Softmax becomes the numerically stable max / sub / exp / sum / div chain.
// CHECK-LABEL: func.func @softmax
//  CHECK-SAME:   (%[[X:.*]]: tensor<4x8xf32>)
//       CHECK:   %[[M:.*]] = lazy.reduce_max %[[X]] [1] keep_dims : tensor<4x8xf32>
//       CHECK:   %[[MB:.*]] = lazy.broadcast %[[M]] to [4, 8] : tensor<4x1xf32>
//       CHECK:   %[[D:.*]] = lazy.sub %[[X]], %[[MB]] : tensor<4x8xf32>
//       CHECK:   %[[E:.*]] = lazy.exp %[[D]] : tensor<4x8xf32>
//       CHECK:   %[[S:.*]] = lazy.reduce_sum %[[E]] [1] keep_dims : tensor<4x8xf32>
//       CHECK:   %[[SB:.*]] = lazy.broadcast %[[S]] to [4, 8] : tensor<4x1xf32>
//       CHECK:   %[[Y:.*]] = lazy.div %[[E]], %[[SB]] : tensor<4x8xf32>
//       CHECK:   return %[[Y]]
//   CHECK-NOT:   lazy.softmax
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = lazy.softmax %x, axis = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Log-softmax: (x - max) - log(sum(exp(x - max))).
// CHECK-LABEL: func.func @log_softmax
//  CHECK-SAME:   (%[[X:.*]]: tensor<4x8xf64>)
//       CHECK:   %[[M:.*]] = lazy.reduce_max %[[X]] [0] keep_dims : tensor<4x8xf64>
//       CHECK:   %[[MB:.*]] = lazy.broadcast %[[M]] to [4, 8] : tensor<1x8xf64>
//       CHECK:   %[[D:.*]] = lazy.sub %[[X]], %[[MB]] : tensor<4x8xf64>
//       CHECK:   %[[E:.*]] = lazy.exp %[[D]] : tensor<4x8xf64>
//       CHECK:   %[[S:.*]] = lazy.reduce_sum %[[E]] [0] keep_dims : tensor<4x8xf64>
//       CHECK:   %[[SB:.*]] = lazy.broadcast %[[S]] to [4, 8] : tensor<1x8xf64>
//       CHECK:   %[[L:.*]] = lazy.log %[[SB]] : tensor<4x8xf64>
//       CHECK:   %[[Y:.*]] = lazy.sub %[[D]], %[[L]] : tensor<4x8xf64>
//       CHECK:   return %[[Y]]
func.func @log_softmax(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %0 = lazy.log_softmax %x, axis = 0 : tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
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
//       CHECK:   lazy.softmax
//       CHECK:   lazy.reduce_mean
func.func @dynamic_left_alone(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<8xf32>) {
  %0 = lazy.softmax %x, axis = 1 : tensor<?x8xf32>
  %1 = lazy.reduce_mean %x [0] : tensor<?x8xf32>
  return %0, %1 : tensor<?x8xf32>, tensor<8xf32>
}
