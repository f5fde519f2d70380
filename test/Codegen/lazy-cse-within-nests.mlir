// RUN: lazyc-opt %s --lazy-cse-within-nests | FileCheck %s

// Two identical nests stay two (they are never compared); the slices and
// reads each nest repeats are merged within it, and the function's own
// duplicate ops are merged.
// CHECK-LABEL: func.func @nests
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<8xf32>
//   CHECK-NOT:   tensor.empty
//       CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[E]])
//       CHECK:     tensor.extract_slice
//   CHECK-NOT:     tensor.extract_slice
//       CHECK:     arith.addf %[[V:.*]], %[[V]]
//       CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[E]])
//       CHECK:     tensor.extract_slice
//   CHECK-NOT:     tensor.extract_slice
//       CHECK:     arith.addf %[[W:.*]], %[[W]]
//       CHECK:   return
func.func @nests(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %e0 = tensor.empty() : tensor<8xf32>
  %a = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %e0) -> (tensor<8xf32>) {
    %s0 = tensor.extract_slice %x[%i] [1] [1] : tensor<8xf32> to tensor<1xf32>
    %s1 = tensor.extract_slice %x[%i] [1] [1] : tensor<8xf32> to tensor<1xf32>
    %v0 = tensor.extract %s0[%c0] : tensor<1xf32>
    %v1 = tensor.extract %s1[%c0] : tensor<1xf32>
    %sum = arith.addf %v0, %v1 : f32
    %next = tensor.insert %sum into %acc[%i] : tensor<8xf32>
    scf.yield %next : tensor<8xf32>
  }
  %e1 = tensor.empty() : tensor<8xf32>
  %b = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %e1) -> (tensor<8xf32>) {
    %s0 = tensor.extract_slice %x[%i] [1] [1] : tensor<8xf32> to tensor<1xf32>
    %s1 = tensor.extract_slice %x[%i] [1] [1] : tensor<8xf32> to tensor<1xf32>
    %v0 = tensor.extract %s0[%c0] : tensor<1xf32>
    %v1 = tensor.extract %s1[%c0] : tensor<1xf32>
    %sum = arith.addf %v0, %v1 : f32
    %next = tensor.insert %sum into %acc[%i] : tensor<8xf32>
    scf.yield %next : tensor<8xf32>
  }
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
