// RUN: lazyc-opt %s -split-input-file --convert-lazy-to-linalg | FileCheck %s

// lazy.if and lazy.while become scf.if and scf.while: the 0-d predicate is
// read with tensor.extract, the regions move over with their ops lowered in
// place, and lazy.yield becomes scf.yield (scf.condition at the end of a
// loop's condition region, passing the carried values on).

// CHECK-LABEL: func.func @branch
// CHECK-SAME: (%[[C:.*]]: tensor<i1>, %[[X:.*]]: tensor<4xf32>)
// CHECK: %[[P:.*]] = tensor.extract %[[C]][] : tensor<i1>
// CHECK: %[[R:.*]] = scf.if %[[P]] -> (tensor<4xf32>) {
// CHECK:   %[[M:.*]] = linalg.generic
// CHECK:     arith.mulf
// CHECK:   scf.yield %[[M]] : tensor<4xf32>
// CHECK: } else {
// CHECK:   scf.yield %[[X]] : tensor<4xf32>
// CHECK: }
// CHECK: return %[[R]]
func.func @branch(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = lazy.if %c : tensor<i1> -> (tensor<4xf32>) {
    %d = lazy.mul %x, %x : tensor<4xf32>
    lazy.yield %d : tensor<4xf32>
  } else {
    lazy.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @loop
// CHECK-SAME: (%[[I0:.*]]: tensor<i32>, %[[X0:.*]]: tensor<4xf32>, %[[N:.*]]: tensor<i32>, %[[ONE:.*]]: tensor<i32>)
// CHECK: %[[R:.*]]:2 = scf.while (%[[I:.*]] = %[[I0]], %[[X:.*]] = %[[X0]]) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
// CHECK:   %[[LT:.*]] = linalg.generic
// CHECK:     arith.cmpi slt
// CHECK:   %[[MORE:.*]] = tensor.extract %[[LT]][] : tensor<i1>
// CHECK:   scf.condition(%[[MORE]]) %[[I]], %[[X]] : tensor<i32>, tensor<4xf32>
// CHECK: } do {
// CHECK: ^bb0(%[[BI:.*]]: tensor<i32>, %[[BX:.*]]: tensor<4xf32>):
// CHECK:   %[[J:.*]] = linalg.generic
// CHECK:     arith.addi
// CHECK:   %[[Y:.*]] = linalg.generic
// CHECK:     arith.mulf
// CHECK:   scf.yield %[[J]], %[[Y]] : tensor<i32>, tensor<4xf32>
// CHECK: }
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @loop(%i0: tensor<i32>, %x0: tensor<4xf32>, %n: tensor<i32>, %one: tensor<i32>) -> (tensor<i32>, tensor<4xf32>) {
  %r:2 = lazy.while %i0, %x0 : tensor<i32>, tensor<4xf32> condition {
  ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
    %p = lazy.compare lt, %i, %n : tensor<i32>
    lazy.yield %p : tensor<i1>
  } body {
  ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
    %j = lazy.add %i, %one : tensor<i32>
    %y = lazy.mul %x, %x : tensor<4xf32>
    lazy.yield %j, %y : tensor<i32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<4xf32>
}

// -----

// Rows at a runtime index: the 0-d i64 index is read, clamped to
// [0, rows - 1], and used as the offset of a rank-reducing slice.
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[S:.*]]: tensor<8x4xf32>, %[[I:.*]]: tensor<i64>, %[[V:.*]]: tensor<4xf32>)
// CHECK: %[[RAW:.*]] = tensor.extract %[[I]][] : tensor<i64>
// CHECK: %[[IDX:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK: %[[LOW:.*]] = arith.minsi %[[IDX]], %{{.*}} : index
// CHECK: %[[AT:.*]] = arith.maxsi %[[LOW]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[S]][%[[AT]], 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>
// CHECK: tensor.insert_slice %[[V]] into %[[S]][%{{.*}}, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x4xf32>
func.func @rows(%stack: tensor<8x4xf32>, %i: tensor<i64>, %v: tensor<4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>) {
  %row = lazy.index_row %stack[%i] : tensor<8x4xf32>
  %next = lazy.update_row %stack[%i] = %v : tensor<8x4xf32>, tensor<4xf32>
  return %row, %next : tensor<4xf32>, tensor<8x4xf32>
}

// -----

// Empty rows (a loop's stack of empty values, lazyc-fuzz seed 200137): no
// slice, whose offset into the size-0 dimension the verifier rejects; the
// row read is an empty tensor of the row's sizes, the write changes nothing.
// CHECK-LABEL: func.func @empty_rows
// CHECK-SAME: (%[[S:.*]]: tensor<2x0x?xf32>, %[[I:.*]]: tensor<i64>, %[[V:.*]]: tensor<0x?xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[S]], %{{.*}} : tensor<2x0x?xf32>
// CHECK: %[[ROW:.*]] = tensor.empty(%[[N]]) : tensor<0x?xf32>
// CHECK-NOT: _slice
// CHECK: return %[[ROW]], %[[S]]
func.func @empty_rows(%stack: tensor<2x0x?xf32>, %i: tensor<i64>, %v: tensor<0x?xf32>) -> (tensor<0x?xf32>, tensor<2x0x?xf32>) {
  %row = lazy.index_row %stack[%i] : tensor<2x0x?xf32>
  %next = lazy.update_row %stack[%i] = %v : tensor<2x0x?xf32>, tensor<0x?xf32>
  return %row, %next : tensor<0x?xf32>, tensor<2x0x?xf32>
}
