// RUN: lazyc-opt %s -split-input-file --lazy-fold-transpose-into-matmul | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-fold-transpose-into-matmul="copy-shared-right-transposes=true" \
// RUN:   | FileCheck %s --check-prefix=SHARED

// A matmul operand made by a 2-D transpose is read through a transposed
// indexing map instead, and the transpose (a copy) goes away.
//   CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
//   CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
//   CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
//   CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
//   CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @transposed_operands
//  CHECK-SAME:   (%[[X:.*]]: tensor<128x512xf32>, %[[G:.*]]: tensor<128x256xf32>, %[[W:.*]]: tensor<256x512xf32>)
//   CHECK-NOT:   linalg.generic
//       CHECK:   linalg.matmul indexing_maps = [#[[AT]], #[[B]], #[[C]]] ins(%[[X]], %[[G]] : tensor<128x512xf32>, tensor<128x256xf32>)
//       CHECK:   linalg.matmul indexing_maps = [#[[A]], #[[BT]], #[[C]]] ins(%[[X]], %[[W]] : tensor<128x512xf32>, tensor<256x512xf32>)
#swap = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @transposed_operands(%x: tensor<128x512xf32>, %g: tensor<128x256xf32>, %w: tensor<256x512xf32>) -> (tensor<512x256xf32>, tensor<128x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<512x128xf32>
  %xt = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<128x512xf32>) outs(%e0 : tensor<512x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<512x128xf32>
  %e1 = tensor.empty() : tensor<512x256xf32>
  %c1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<512x256xf32>) -> tensor<512x256xf32>
  %dw = linalg.matmul ins(%xt, %g : tensor<512x128xf32>, tensor<128x256xf32>) outs(%c1 : tensor<512x256xf32>) -> tensor<512x256xf32>
  %e2 = tensor.empty() : tensor<512x256xf32>
  %wt = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<256x512xf32>) outs(%e2 : tensor<512x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<512x256xf32>
  %e3 = tensor.empty() : tensor<128x256xf32>
  %c3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %dx = linalg.matmul ins(%x, %wt : tensor<128x512xf32>, tensor<512x256xf32>) outs(%c3 : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %dw, %dx : tensor<512x256xf32>, tensor<128x256xf32>
}

// -----

// A generic that computes something (here a negation) while transposing is
// not a plain transpose: it stays, and so does the plain matmul.
// CHECK-LABEL: func.func @not_a_plain_transpose
//       CHECK:   linalg.generic
//       CHECK:   linalg.matmul ins(
#swap = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_a_plain_transpose(%x: tensor<4x8xf32>, %g: tensor<4x2xf32>, %c: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %xt = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<8x4xf32>
  %r = linalg.matmul ins(%xt, %g : tensor<8x4xf32>, tensor<4x2xf32>) outs(%c : tensor<8x2xf32>) -> tensor<8x2xf32>
  return %r : tensor<8x2xf32>
}

// -----

// A transpose that is also returned stays (the matmul reads the original
// anyway).
// CHECK-LABEL: func.func @transpose_with_other_uses
//       CHECK:   %[[T:.*]] = linalg.generic
//       CHECK:   linalg.matmul indexing_maps =
//       CHECK:   return %[[T]],
#swap = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @transpose_with_other_uses(%x: tensor<4x8xf32>, %g: tensor<4x2xf32>, %c: tensor<8x2xf32>) -> (tensor<8x4xf32>, tensor<8x2xf32>) {
  %e = tensor.empty() : tensor<8x4xf32>
  %xt = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x4xf32>
  %r = linalg.matmul ins(%xt, %g : tensor<8x4xf32>, tensor<4x2xf32>) outs(%c : tensor<8x2xf32>) -> tensor<8x2xf32>
  return %xt, %r : tensor<8x4xf32>, tensor<8x2xf32>
}

// -----

// batch_matmul: a transpose of each matrix's two dimensions is read through
// (b, k, m) for A and (b, n, k) for B. An attention operand transposed as
// [batch, heads, d, tokens] and then collapsed to [batch * heads, ...] is
// the untransposed tensor collapsed the same way.
//   CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
//   CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
//   CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
//   CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
//   CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @batch_transposed_operands
//  CHECK-SAME:   (%[[X:.*]]: tensor<3x4x8xf32>, %[[G:.*]]: tensor<3x4x2xf32>, %[[Q:.*]]: tensor<2x3x6x5xf32>, %[[K:.*]]: tensor<2x3x7x5xf32>)
//   CHECK-NOT:   linalg.generic
//       CHECK:   linalg.batch_matmul indexing_maps = [#[[AT]], #[[B]], #[[C]]] ins(%[[X]], %[[G]] : tensor<3x4x8xf32>, tensor<3x4x2xf32>)
//   CHECK-DAG:   %[[QC:.*]] = tensor.collapse_shape %[[Q]] {{\[\[}}0, 1], [2], [3]] : tensor<2x3x6x5xf32> into tensor<6x6x5xf32>
//   CHECK-DAG:   %[[KC:.*]] = tensor.collapse_shape %[[K]] {{\[\[}}0, 1], [2], [3]] : tensor<2x3x7x5xf32> into tensor<6x7x5xf32>
//       CHECK:   linalg.batch_matmul indexing_maps = [#[[A]], #[[BT]], #[[C]]] ins(%[[QC]], %[[KC]] : tensor<6x6x5xf32>, tensor<6x7x5xf32>)
#swap3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#swap4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @batch_transposed_operands(%x: tensor<3x4x8xf32>, %g: tensor<3x4x2xf32>, %q: tensor<2x3x6x5xf32>, %k: tensor<2x3x7x5xf32>) -> (tensor<3x8x2xf32>, tensor<6x6x7xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<3x8x4xf32>
  %xt = linalg.generic {indexing_maps = [#swap3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<3x4x8xf32>) outs(%e0 : tensor<3x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<3x8x4xf32>
  %e1 = tensor.empty() : tensor<3x8x2xf32>
  %c1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3x8x2xf32>) -> tensor<3x8x2xf32>
  %dw = linalg.batch_matmul ins(%xt, %g : tensor<3x8x4xf32>, tensor<3x4x2xf32>) outs(%c1 : tensor<3x8x2xf32>) -> tensor<3x8x2xf32>
  %e2 = tensor.empty() : tensor<2x3x5x7xf32>
  %kt = linalg.generic {indexing_maps = [#swap4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<2x3x7x5xf32>) outs(%e2 : tensor<2x3x5x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x5x7xf32>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x3x6x5xf32> into tensor<6x6x5xf32>
  %ktc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x3x5x7xf32> into tensor<6x5x7xf32>
  %e3 = tensor.empty() : tensor<6x6x7xf32>
  %c3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<6x6x7xf32>) -> tensor<6x6x7xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<6x6x5xf32>, tensor<6x5x7xf32>) outs(%c3 : tensor<6x6x7xf32>) -> tensor<6x6x7xf32>
  return %dw, %s : tensor<3x8x2xf32>, tensor<6x6x7xf32>
}

// -----

// A transpose that swaps a batch dimension (not the matrix's two) stays,
// and so does a collapse that merges a matrix dimension.
// CHECK-LABEL: func.func @batch_not_a_matrix_transpose
//       CHECK:   linalg.generic
//       CHECK:   linalg.batch_matmul ins(
#swapb = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @batch_not_a_matrix_transpose(%x: tensor<4x3x8xf32>, %g: tensor<3x8x2xf32>) -> tensor<3x4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<3x4x8xf32>
  %xt = linalg.generic {indexing_maps = [#swapb, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<4x3x8xf32>) outs(%e0 : tensor<3x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<3x4x8xf32>
  %e1 = tensor.empty() : tensor<3x4x2xf32>
  %c1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
  %r = linalg.batch_matmul ins(%xt, %g : tensor<3x4x8xf32>, tensor<3x8x2xf32>) outs(%c1 : tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
  return %r : tensor<3x4x2xf32>
}

// -----

// A right operand's transpose that two products read: folded into both by
// default; with copy-shared-right-transposes (the CPU's pipeline) copied
// once and read untransposed, while a transposed left operand is still
// folded.
//   CHECK-LABEL: func.func @shared_right_transpose
//     CHECK-NOT:   linalg.generic
//         CHECK:   linalg.matmul indexing_maps
//         CHECK:   linalg.matmul indexing_maps
//  SHARED-LABEL: func.func @shared_right_transpose
//  SHARED-SAME:    (%[[H:.*]]: tensor<16x128xf32>, %[[G:.*]]: tensor<128x16xf32>, %[[W:.*]]: tensor<512x128xf32>)
//        SHARED:   %[[WT:.*]] = linalg.generic {{.*}} ins(%[[W]]
//        SHARED:   linalg.matmul ins(%[[H]], %[[WT]] :
//        SHARED:   linalg.matmul indexing_maps = [{{.*}}] ins(%[[G]], %[[WT]] :
#swap = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @shared_right_transpose(%h: tensor<16x128xf32>, %g: tensor<128x16xf32>, %w: tensor<512x128xf32>) -> (tensor<16x512xf32>, tensor<16x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<128x512xf32>
  %wt = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<512x128xf32>) outs(%et : tensor<128x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<128x512xf32>
  %eg = tensor.empty() : tensor<16x128xf32>
  %gt = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]} ins(%g : tensor<128x16xf32>) outs(%eg : tensor<16x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x128xf32>
  %e = tensor.empty() : tensor<16x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x512xf32>) -> tensor<16x512xf32>
  %p1 = linalg.matmul ins(%h, %wt : tensor<16x128xf32>, tensor<128x512xf32>) outs(%c : tensor<16x512xf32>) -> tensor<16x512xf32>
  %p2 = linalg.matmul ins(%gt, %wt : tensor<16x128xf32>, tensor<128x512xf32>) outs(%c : tensor<16x512xf32>) -> tensor<16x512xf32>
  return %p1, %p2 : tensor<16x512xf32>, tensor<16x512xf32>
}

// -----

// One product in a loop body reads the transpose of a weight computed
// before the loop (a recurrent step's h W^T): without the option it is
// folded; with it the copy stays outside the loop, made once, and every
// iteration reads it in place.
//   CHECK-LABEL: func.func @right_transpose_read_in_loop
//         CHECK:   scf.while
//         CHECK:     linalg.matmul indexing_maps
//  SHARED-LABEL: func.func @right_transpose_read_in_loop
//   SHARED-SAME:   (%[[H:.*]]: tensor<16x128xf32>, %[[W:.*]]: tensor<512x128xf32>
//        SHARED:   %[[WT:.*]] = linalg.generic {{.*}} ins(%[[W]]
//        SHARED:   scf.while
//        SHARED:     linalg.matmul ins(%{{.*}}, %[[WT]] : tensor<16x128xf32>, tensor<128x512xf32>)
#swap = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @right_transpose_read_in_loop(%h: tensor<16x128xf32>, %w: tensor<512x128xf32>, %n: i64) -> tensor<16x512xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %et = tensor.empty() : tensor<128x512xf32>
  %wt = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<512x128xf32>) outs(%et : tensor<128x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<128x512xf32>
  %e = tensor.empty() : tensor<16x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x512xf32>) -> tensor<16x512xf32>
  %r:2 = scf.while (%i = %c0, %acc = %c) : (i64, tensor<16x512xf32>) -> (i64, tensor<16x512xf32>) {
    %more = arith.cmpi slt, %i, %n : i64
    scf.condition(%more) %i, %acc : i64, tensor<16x512xf32>
  } do {
  ^bb0(%i: i64, %acc: tensor<16x512xf32>):
    %p = linalg.matmul ins(%h, %wt : tensor<16x128xf32>, tensor<128x512xf32>) outs(%acc : tensor<16x512xf32>) -> tensor<16x512xf32>
    %next = arith.addi %i, %c1 : i64
    scf.yield %next, %p : i64, tensor<16x512xf32>
  }
  return %r#1 : tensor<16x512xf32>
}

// -----

// With copy-shared-right-transposes, a right operand's transpose that the
// CPU moves through registers in 16 x 16 squares (32-bit values, both
// dimensions multiples of 16) is kept when the product has at least 16
// rows (an LSTM's input projection): the runtime's few-row kernel reads
// the copy in place. A product of 8 rows, f64 values and a dimension of 100
// still read the transpose in place.
//  SHARED-LABEL: func.func @right_transposes_in_squares
//   SHARED-SAME:   (%[[X:.*]]: tensor<512x64xf32>, %[[W:.*]]: tensor<512x64xf32>, %[[Y:.*]]: tensor<8x64xf32>, %[[D:.*]]: tensor<512x64xf64>, %[[V:.*]]: tensor<100x64xf32>)
//        SHARED:   %[[WT:.*]] = linalg.generic {{.*}} ins(%[[W]]
//        SHARED:   linalg.matmul ins(%[[X]], %[[WT]] : tensor<512x64xf32>, tensor<64x512xf32>)
//        SHARED:   linalg.matmul indexing_maps = [{{.*}}] ins(%[[Y]], %[[W]] : tensor<8x64xf32>, tensor<512x64xf32>)
//        SHARED:   linalg.matmul indexing_maps = [{{.*}}] ins(%{{.*}}, %[[D]] : tensor<512x64xf64>, tensor<512x64xf64>)
//        SHARED:   linalg.matmul indexing_maps = [{{.*}}] ins(%[[X]], %[[V]] : tensor<512x64xf32>, tensor<100x64xf32>)
#swap = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @right_transposes_in_squares(%x: tensor<512x64xf32>, %w: tensor<512x64xf32>, %y: tensor<8x64xf32>, %d: tensor<512x64xf64>, %v: tensor<100x64xf32>) -> (tensor<512x512xf32>, tensor<8x512xf32>, tensor<512x512xf64>, tensor<512x100xf32>) {
  %zero = arith.constant 0.0 : f32
  %zero64 = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<64x512xf32>
  %wt = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<512x64xf32>) outs(%e0 : tensor<64x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x512xf32>
  %e1 = tensor.empty() : tensor<512x512xf32>
  %c1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %p1 = linalg.matmul ins(%x, %wt : tensor<512x64xf32>, tensor<64x512xf32>) outs(%c1 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %wt2 = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<512x64xf32>) outs(%e0 : tensor<64x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x512xf32>
  %e2 = tensor.empty() : tensor<8x512xf32>
  %c2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x512xf32>) -> tensor<8x512xf32>
  %p2 = linalg.matmul ins(%y, %wt2 : tensor<8x64xf32>, tensor<64x512xf32>) outs(%c2 : tensor<8x512xf32>) -> tensor<8x512xf32>
  %e3 = tensor.empty() : tensor<64x512xf64>
  %dt = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<512x64xf64>) outs(%e3 : tensor<64x512xf64>) {
  ^bb0(%in: f64, %out: f64):
    linalg.yield %in : f64
  } -> tensor<64x512xf64>
  %e4 = tensor.empty() : tensor<512x512xf64>
  %c4 = linalg.fill ins(%zero64 : f64) outs(%e4 : tensor<512x512xf64>) -> tensor<512x512xf64>
  %p3 = linalg.matmul ins(%d, %dt : tensor<512x64xf64>, tensor<64x512xf64>) outs(%c4 : tensor<512x512xf64>) -> tensor<512x512xf64>
  %e5 = tensor.empty() : tensor<64x100xf32>
  %vt = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]} ins(%v : tensor<100x64xf32>) outs(%e5 : tensor<64x100xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x100xf32>
  %e6 = tensor.empty() : tensor<512x100xf32>
  %c6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<512x100xf32>) -> tensor<512x100xf32>
  %p4 = linalg.matmul ins(%x, %vt : tensor<512x64xf32>, tensor<64x100xf32>) outs(%c6 : tensor<512x100xf32>) -> tensor<512x100xf32>
  return %p1, %p2, %p3, %p4 : tensor<512x512xf32>, tensor<8x512xf32>, tensor<512x512xf64>, tensor<512x100xf32>
}
