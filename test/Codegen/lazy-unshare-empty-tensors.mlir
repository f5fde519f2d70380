// RUN: lazyc-opt %s --lazy-unshare-empty-tensors | FileCheck %s

// Three destinations share one empty (as CSE leaves them): each gets an
// empty of its own, just before the op that writes it.
// CHECK-LABEL: func.func @three_destinations
//  CHECK-SAME:   (%[[X:.*]]: tensor<4xf32>)
//       CHECK:   %[[E0:.*]] = tensor.empty() : tensor<4xf32>
//  CHECK-NEXT:   %[[A:.*]] = linalg.exp ins(%[[X]] : tensor<4xf32>) outs(%[[E0]] : tensor<4xf32>)
//  CHECK-NEXT:   %[[E1:.*]] = tensor.empty() : tensor<4xf32>
//  CHECK-NEXT:   %[[B:.*]] = linalg.exp ins(%[[A]] : tensor<4xf32>) outs(%[[E1]] : tensor<4xf32>)
//  CHECK-NEXT:   %[[E2:.*]] = tensor.empty() : tensor<4xf32>
//  CHECK-NEXT:   %[[C:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E2]])
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
// moves to that use.
// CHECK-LABEL: func.func @dynamic_size
//       CHECK:   %[[N:.*]] = tensor.dim
//       CHECK:   tensor.empty(%[[N]]) : tensor<?xf32>
//  CHECK-NEXT:   linalg.exp
//  CHECK-NEXT:   tensor.empty(%[[N]]) : tensor<?xf32>
//  CHECK-NEXT:   linalg.abs
//  CHECK-NEXT:   tensor.empty() : tensor<2xf32>
//  CHECK-NEXT:   linalg.exp
//   CHECK-NOT:   tensor.empty
func.func @dynamic_size(%x: tensor<?xf32>, %y: tensor<2xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %empty = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.exp ins(%x : tensor<?xf32>) outs(%empty : tensor<?xf32>) -> tensor<?xf32>
  %single = tensor.empty() : tensor<2xf32>
  %b = linalg.abs ins(%x : tensor<?xf32>) outs(%empty : tensor<?xf32>) -> tensor<?xf32>
  %c = linalg.exp ins(%y : tensor<2xf32>) outs(%single : tensor<2xf32>) -> tensor<2xf32>
  return %a, %b, %c : tensor<?xf32>, tensor<?xf32>, tensor<2xf32>
}

// Two pads share one zero fill (as CSE leaves them): each insert_slice
// gets a fill of its own, so each writes in place instead of into a copy.
// CHECK-LABEL: func.func @shared_pad_fill
//       CHECK:   %[[F0:.*]] = linalg.fill
//       CHECK:   %[[F1:.*]] = linalg.fill
//   CHECK-NOT:   linalg.fill
//       CHECK:   tensor.insert_slice %{{.*}} into %[[F0]]
//       CHECK:   tensor.insert_slice %{{.*}} into %[[F1]]
func.func @shared_pad_fill(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x4xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x4xf32>) -> tensor<4x4xf32>
  %a = tensor.insert_slice %x into %fill[1, 1] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
  %b = tensor.insert_slice %y into %fill[1, 1] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
  return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}

// A tiled fill (a loop writing constants) is cloned the same way. A reader
// keeps the original; the one destination gets a clone.
// CHECK-LABEL: func.func @tiled_fill_read_and_written
//       CHECK:   %[[F0:.*]] = scf.for
//       CHECK:   %[[F1:.*]] = scf.for
//       CHECK:   tensor.insert_slice %{{.*}} into %[[F0]]
//       CHECK:   linalg.exp ins(%[[F1]]
func.func @tiled_fill_read_and_written(%x: tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %fill = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %empty) -> (tensor<4xf32>) {
    %next = tensor.insert %zero into %acc[%i] : tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  %a = tensor.insert_slice %x into %fill[1] [2] [1] : tensor<2xf32> into tensor<4xf32>
  %out = tensor.empty() : tensor<4xf32>
  %b = linalg.exp ins(%fill : tensor<4xf32>) outs(%out : tensor<4xf32>) -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// A fill of a value that is not a constant is not cloned: two
// destinations then share it, and bufferization copies it.
// CHECK-LABEL: func.func @fill_of_an_argument
//   CHECK-COUNT-1:   linalg.fill
//   CHECK-NOT:   linalg.fill
func.func @fill_of_an_argument(%v: f32, %x: tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %empty = tensor.empty() : tensor<4xf32>
  %fill = linalg.fill ins(%v : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %a = tensor.insert_slice %x into %fill[0] [2] [1] : tensor<2xf32> into tensor<4xf32>
  %b = tensor.insert_slice %x into %fill[2] [2] [1] : tensor<2xf32> into tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// A splat constant that a loop carries and one that a product accumulates
// into become fills of empties of their own (bufferized, a fill writes; the
// constant's global would be copied). A reader keeps the constant.
// CHECK-LABEL: func.func @splat_destinations
//  CHECK-SAME:   (%[[X:.*]]: tensor<4xf32>, %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x4xf32>)
//   CHECK-DAG:   %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//  CHECK-NEXT:   %[[E0:.*]] = tensor.empty() : tensor<4xf32>
//  CHECK-NEXT:   %[[F0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E0]] : tensor<4xf32>)
//  CHECK-NEXT:   %[[LOOP:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[F0]])
//       CHECK:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
//  CHECK-NEXT:   %[[E1:.*]] = tensor.empty() : tensor<4x4xf32>
//  CHECK-NEXT:   %[[F1:.*]] = linalg.fill ins(%[[ONE]] : f32) outs(%[[E1]] : tensor<4x4xf32>)
//  CHECK-NEXT:   linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x4xf32>) outs(%[[F1]] : tensor<4x4xf32>)
//       CHECK:   arith.addf %[[X]], %[[ZEROS]] : tensor<4xf32>
func.func @splat_destinations(%x: tensor<4xf32>, %a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> (tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zeros = arith.constant dense<0.0> : tensor<4xf32>
  %ones = arith.constant dense<1.0> : tensor<4x4xf32>
  %loop = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zeros) -> (tensor<4xf32>) {
    %v = tensor.extract %x[%i] : tensor<4xf32>
    %next = tensor.insert %v into %acc[%i] : tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  %product = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%ones : tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = arith.addf %x, %zeros : tensor<4xf32>
  return %loop, %product, %sum : tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>
}

// A slice of an empty (a tile's destination, cut by tiling from the whole
// op's) becomes an empty of the slice's shape, which empty-tensor
// elimination can replace with the place the tile is inserted into.
// CHECK-LABEL: func.func @slice_of_an_empty
//  CHECK-SAME:   (%[[N:.*]]: index)
//   CHECK-NOT:   tensor.extract_slice
//       CHECK:   %[[E:.*]] = tensor.empty(%[[N]]) : tensor<16x?xf32>
//       CHECK:   linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<16x?xf32>)
func.func @slice_of_an_empty(%n: index) -> tensor<16x?xf32> {
  %zero = arith.constant 0.0 : f32
  %whole = tensor.empty() : tensor<64x512xf32>
  %tile = tensor.extract_slice %whole[16, 0] [16, %n] [1, 1] : tensor<64x512xf32> to tensor<16x?xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%tile : tensor<16x?xf32>) -> tensor<16x?xf32>
  return %fill : tensor<16x?xf32>
}
