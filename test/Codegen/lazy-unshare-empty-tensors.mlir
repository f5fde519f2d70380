// RUN: lazyc-opt %s --lazy-unshare-empty-tensors | FileCheck %s

// Three destinations share one empty (as CSE leaves them): each gets an
// empty of its own, where the shared one was.
// CHECK-LABEL: func.func @three_destinations
//  CHECK-SAME:   (%[[X:.*]]: tensor<4xf32>)
//       CHECK:   %[[E0:.*]] = tensor.empty() : tensor<4xf32>
//       CHECK:   %[[E1:.*]] = tensor.empty() : tensor<4xf32>
//       CHECK:   %[[E2:.*]] = tensor.empty() : tensor<4xf32>
//       CHECK:   %[[A:.*]] = linalg.exp ins(%[[X]] : tensor<4xf32>) outs(%[[E1]] : tensor<4xf32>)
//       CHECK:   %[[B:.*]] = linalg.exp ins(%[[A]] : tensor<4xf32>) outs(%[[E0]] : tensor<4xf32>)
//       CHECK:   %[[C:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E2]])
func.func @three_destinations(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %empty = tensor.empty() : tensor<4xf32>
  %a = linalg.exp ins(%x : tensor<4xf32>) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %b = linalg.exp ins(%a : tensor<4xf32>) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %c = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %empty) -> (tensor<4xf32>) {
    %v = tensor.extract %b[%i] : tensor<4xf32>
    %next = tensor.insert %v into %acc[%i] : tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  return %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// A dynamic empty's clones keep its size operands; an empty with one use
// is left alone.
// CHECK-LABEL: func.func @dynamic_size
//       CHECK:   %[[N:.*]] = tensor.dim
//  CHECK-COUNT-2:   tensor.empty(%[[N]]) : tensor<?xf32>
//       CHECK:   tensor.empty() : tensor<2xf32>
//   CHECK-NOT:   tensor.empty
func.func @dynamic_size(%x: tensor<?xf32>, %y: tensor<2xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %empty = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.exp ins(%x : tensor<?xf32>) outs(%empty : tensor<?xf32>) -> tensor<?xf32>
  %b = linalg.abs ins(%x : tensor<?xf32>) outs(%empty : tensor<?xf32>) -> tensor<?xf32>
  %single = tensor.empty() : tensor<2xf32>
  %c = linalg.exp ins(%y : tensor<2xf32>) outs(%single : tensor<2xf32>) -> tensor<2xf32>
  return %a, %b, %c : tensor<?xf32>, tensor<?xf32>, tensor<2xf32>
}
