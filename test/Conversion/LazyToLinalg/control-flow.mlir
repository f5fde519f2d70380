// RUN: lazyc-opt %s -split-input-file --convert-lazy-to-linalg | FileCheck %s

// lazy.if and lazy.while become scf.if and scf.while (a counted loop an
// scf.for: the last cases): the 0-d predicate is read with tensor.extract,
// the regions move over with their ops lowered in place, and lazy.yield
// becomes scf.yield (scf.condition at the end of a loop's condition region,
// passing the carried values on).

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

// -----

// A counted loop (its condition `counter < bound` with the bound defined
// above the loop, its body stepping the counter by a constant) becomes an
// scf.for over index: its other carried values are the iteration
// arguments, the counter is the induction variable as a 0-d tensor, and
// after the loop it is max(start, bound) for a step of 1.
// CHECK-LABEL: func.func @counted
// CHECK-SAME: (%[[I0:.*]]: tensor<i64>, %[[X0:.*]]: tensor<4xf32>, %[[N:.*]]: tensor<i64>)
// CHECK: %[[LOW:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[HIGH:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[R:.*]] = scf.for %[[IV:.*]] = %[[LOW]] to %[[HIGH]] step %{{.*}} iter_args(%[[X:.*]] = %[[X0]]) -> (tensor<4xf32>) {
// CHECK:   %[[T:.*]] = arith.index_cast %[[IV]] : index to i64
// CHECK:   %[[I:.*]] = tensor.from_elements %[[T]] : tensor<i64>
// CHECK:   linalg.generic
// CHECK:     arith.mulf
// CHECK:   scf.yield %{{.*}} : tensor<4xf32>
// CHECK: }
// CHECK: %[[LAST:.*]] = arith.maxsi %[[LOW]], %[[HIGH]] : index
// CHECK: %[[L:.*]] = arith.index_cast %[[LAST]] : index to i64
// CHECK: %[[FINAL:.*]] = tensor.from_elements %[[L]] : tensor<i64>
// CHECK: return %[[FINAL]], %[[R]]
func.func @counted(%i0: tensor<i64>, %x0: tensor<4xf32>, %n: tensor<i64>) -> (tensor<i64>, tensor<4xf32>) {
  %r:2 = lazy.while %i0, %x0 : tensor<i64>, tensor<4xf32> condition {
  ^bb0(%i: tensor<i64>, %x: tensor<4xf32>):
    %p = lazy.compare lt, %i, %n : tensor<i64>
    lazy.yield %p : tensor<i1>
  } body {
  ^bb0(%i: tensor<i64>, %x: tensor<4xf32>):
    %one = lazy.constant dense<1> : tensor<i64>
    %j = lazy.add %i, %one : tensor<i64>
    %y = lazy.mul %x, %x : tensor<4xf32>
    lazy.yield %j, %y : tensor<i64>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<i64>, tensor<4xf32>
}

// -----

// A step of 3 needs a constant bound (counter + step must not wrap): the
// counter ends at start + ceil(max(bound - start, 0) / 3) * 3.
// CHECK-LABEL: func.func @counted_by_three
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: scf.for %{{.*}} = %[[LOW:.*]] to %[[HIGH:.*]] step %[[C3]]
// CHECK: %[[D:.*]] = arith.subi %[[HIGH]], %[[LOW]] : index
// CHECK: %[[M:.*]] = arith.maxsi %[[D]], %{{.*}} : index
// CHECK: %[[TRIPS:.*]] = arith.ceildivsi %[[M]], %[[C3]] : index
// CHECK: %[[W:.*]] = arith.muli %[[TRIPS]], %[[C3]] : index
// CHECK: arith.addi %[[LOW]], %[[W]] : index
func.func @counted_by_three(%i0: tensor<i32>, %x0: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  %n = lazy.constant dense<10> : tensor<i32>
  %r:2 = lazy.while %i0, %x0 : tensor<i32>, tensor<4xf32> condition {
  ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
    %p = lazy.compare lt, %i, %n : tensor<i32>
    lazy.yield %p : tensor<i1>
  } body {
  ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
    %three = lazy.constant dense<3> : tensor<i32>
    %j = lazy.add %three, %i : tensor<i32>
    %y = lazy.mul %x, %x : tensor<4xf32>
    lazy.yield %j, %y : tensor<i32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<4xf32>
}

// -----

// Loops that stay scf.while: a step of 3 up to a bound only known at run
// time (the counter could wrap past it), an unsigned counter, a bound
// computed in the condition, a condition other than `<`, and a step that
// is not a constant.
// CHECK-LABEL: func.func @not_counted
// CHECK-NOT: scf.for
// CHECK-COUNT-5: scf.while
// CHECK-NOT: scf.for
func.func @not_counted(%i0: tensor<i32>, %u0: tensor<ui32>, %n: tensor<i32>, %m: tensor<ui32>, %s: tensor<i32>) -> (tensor<i32>, tensor<ui32>, tensor<i32>, tensor<i32>, tensor<i32>) {
  %three = lazy.constant dense<3> : tensor<i32>
  %one = lazy.constant dense<1> : tensor<i32>
  %uone = lazy.constant dense<1> : tensor<ui32>
  %a = lazy.while %i0 : tensor<i32> condition {
  ^bb0(%i: tensor<i32>):
    %p = lazy.compare lt, %i, %n : tensor<i32>
    lazy.yield %p : tensor<i1>
  } body {
  ^bb0(%i: tensor<i32>):
    %j = lazy.add %i, %three : tensor<i32>
    lazy.yield %j : tensor<i32>
  }
  %b = lazy.while %u0 : tensor<ui32> condition {
  ^bb0(%i: tensor<ui32>):
    %p = lazy.compare lt, %i, %m : tensor<ui32>
    lazy.yield %p : tensor<i1>
  } body {
  ^bb0(%i: tensor<ui32>):
    %j = lazy.add %i, %uone : tensor<ui32>
    lazy.yield %j : tensor<ui32>
  }
  %c = lazy.while %i0 : tensor<i32> condition {
  ^bb0(%i: tensor<i32>):
    %twice = lazy.add %n, %n : tensor<i32>
    %p = lazy.compare lt, %i, %twice : tensor<i32>
    lazy.yield %p : tensor<i1>
  } body {
  ^bb0(%i: tensor<i32>):
    %j = lazy.add %i, %one : tensor<i32>
    lazy.yield %j : tensor<i32>
  }
  %d = lazy.while %i0 : tensor<i32> condition {
  ^bb0(%i: tensor<i32>):
    %p = lazy.compare le, %i, %n : tensor<i32>
    lazy.yield %p : tensor<i1>
  } body {
  ^bb0(%i: tensor<i32>):
    %j = lazy.add %i, %one : tensor<i32>
    lazy.yield %j : tensor<i32>
  }
  %e = lazy.while %i0 : tensor<i32> condition {
  ^bb0(%i: tensor<i32>):
    %p = lazy.compare lt, %i, %n : tensor<i32>
    lazy.yield %p : tensor<i1>
  } body {
  ^bb0(%i: tensor<i32>):
    %j = lazy.add %i, %s : tensor<i32>
    lazy.yield %j : tensor<i32>
  }
  return %a, %b, %c, %d, %e : tensor<i32>, tensor<ui32>, tensor<i32>, tensor<i32>, tensor<i32>
}
