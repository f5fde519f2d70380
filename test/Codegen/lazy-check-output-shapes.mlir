// RUN: lazyc-opt %s -split-input-file --lazy-check-output-shapes | FileCheck %s

// What buffer-results-to-out-params leaves: the function's results are
// copied into out-parameters, which follow the inputs. Each copy into an
// out-parameter of dynamic shape runs only if every dynamic dimension of the
// computed buffer equals the caller's; otherwise the copy is skipped and
// lazyrt_report_output_shape_mismatch gets the out-parameter's position
// among the arguments (the JIT subtracts the number of inputs), declared
// once per module.

// Static out-parameters cannot differ, and copies into a buffer of the
// function's own are not outputs: nothing changes, nothing is declared.
//   CHECK-NOT: lazyrt_report_output_shape_mismatch
// CHECK-LABEL: func.func @left_alone
//  CHECK-SAME:   (%[[X:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<4xf32>)
//   CHECK-NOT:   scf.if
//       CHECK:   memref.copy %[[X]], %[[LOCAL:.*]] : memref<?xf32> to memref<?xf32>
//   CHECK-NOT:   scf.if
//       CHECK:   memref.copy %[[STATIC:.*]], %[[OUT]] : memref<4xf32> to memref<4xf32>
//   CHECK-NOT:   scf.if
//       CHECK:   return
func.func @left_alone(%x: memref<?xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %local = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %local : memref<?xf32> to memref<?xf32>
  %static = memref.alloc() : memref<4xf32>
  memref.copy %static, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// One dynamic dimension (the static one is not compared), computed in a
// local allocation: the out-parameter takes its place where the sizes
// match (checked before the result is computed, where the allocation was);
// otherwise the else branch reports argument 1 (the first output, after one
// input) and the result goes to the allocation. No copy remains.
//       CHECK: func.func private @lazyrt_report_output_shape_mismatch(i64)
// CHECK-LABEL: func.func @one_dynamic
//  CHECK-SAME:   (%[[X:.*]]: memref<?x4xf32>, %[[OUT:.*]]: memref<?x4xf32>)
//       CHECK:   %[[N:.*]] = memref.dim %[[X]]
//       CHECK:   %[[TRUE:.*]] = arith.constant true
//       CHECK:   %[[HAVE:.*]] = memref.dim %[[OUT]], %{{.*}} : memref<?x4xf32>
//       CHECK:   %[[EQ:.*]] = arith.cmpi eq, %[[N]], %[[HAVE]] : index
//       CHECK:   %[[OK:.*]] = arith.andi %[[TRUE]], %[[EQ]] : i1
//       CHECK:   %[[R:.*]] = scf.if %[[OK]] -> (memref<?x4xf32>) {
//  CHECK-NEXT:     scf.yield %[[OUT]] : memref<?x4xf32>
//  CHECK-NEXT:   } else {
//  CHECK-NEXT:     %[[INDEX:.*]] = arith.constant 1 : i64
//  CHECK-NEXT:     func.call @lazyrt_report_output_shape_mismatch(%[[INDEX]]) : (i64) -> ()
//  CHECK-NEXT:     %[[ASIDE:.*]] = memref.alloc(%[[N]]) : memref<?x4xf32>
//  CHECK-NEXT:     scf.yield %[[ASIDE]] : memref<?x4xf32>
//  CHECK-NEXT:   }
//       CHECK:   linalg.fill {{.*}} outs(%[[R]] : memref<?x4xf32>)
//   CHECK-NOT:   memref.copy
//       CHECK:   return
func.func @one_dynamic(%x: memref<?x4xf32>, %out: memref<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %r = memref.alloc(%n) : memref<?x4xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%r : memref<?x4xf32>)
  memref.copy %r, %out : memref<?x4xf32> to memref<?x4xf32>
  return
}

// -----

// Two outputs, copied in the opposite order, in a function with a result
// tied to an argument (an out-parameter may then share an input's buffer,
// so results are computed aside and copied): each copy is guarded and
// reports its own position among the parameters (not the order of the
// copies);
// both dynamic dimensions of the first are compared. The module already
// declares the report function: it is not declared again.
//   CHECK-NOT: lazyrt_report_output_shape_mismatch
// CHECK-LABEL: func.func @two_outputs
//  CHECK-SAME:   (%[[X:.*]]: memref<?x?xf32>, %[[OUT0:.*]]: memref<?x?xf32>, %[[OUT1:.*]]: memref<?xf32>, %{{.*}}: memref<4xf32> {lazy.tied_argument = 0 : i64})
//       CHECK:   %[[A:.*]] = memref.alloc({{.*}}) : memref<?x?xf32>
//       CHECK:   %[[B:.*]] = memref.alloc({{.*}}) : memref<?xf32>
//       CHECK:   %[[WANT1:.*]] = memref.dim %[[B]], %{{.*}} : memref<?xf32>
//       CHECK:   %[[HAVE1:.*]] = memref.dim %[[OUT1]], %{{.*}} : memref<?xf32>
//       CHECK:   arith.cmpi eq, %[[WANT1]], %[[HAVE1]] : index
//       CHECK:   scf.if
//  CHECK-NEXT:     memref.copy %[[B]], %[[OUT1]]
//  CHECK-NEXT:   } else {
//  CHECK-NEXT:     %[[INDEX1:.*]] = arith.constant 2 : i64
//  CHECK-NEXT:     func.call @lazyrt_report_output_shape_mismatch(%[[INDEX1]])
//       CHECK:   %[[TRUE:.*]] = arith.constant true
//       CHECK:   %[[D0:.*]] = arith.constant 0 : index
//       CHECK:   %[[ROWS:.*]] = memref.dim %[[A]], %[[D0]] : memref<?x?xf32>
//       CHECK:   %[[D0B:.*]] = arith.constant 0 : index
//       CHECK:   %[[ROWS_OUT:.*]] = memref.dim %[[OUT0]], %[[D0B]] : memref<?x?xf32>
//       CHECK:   %[[EQ0:.*]] = arith.cmpi eq, %[[ROWS]], %[[ROWS_OUT]] : index
//       CHECK:   %[[OK0:.*]] = arith.andi %[[TRUE]], %[[EQ0]] : i1
//       CHECK:   %[[D1:.*]] = arith.constant 1 : index
//       CHECK:   %[[COLS:.*]] = memref.dim %[[A]], %[[D1]] : memref<?x?xf32>
//       CHECK:   %[[D1B:.*]] = arith.constant 1 : index
//       CHECK:   %[[COLS_OUT:.*]] = memref.dim %[[OUT0]], %[[D1B]] : memref<?x?xf32>
//       CHECK:   %[[EQ1:.*]] = arith.cmpi eq, %[[COLS]], %[[COLS_OUT]] : index
//       CHECK:   %[[OK:.*]] = arith.andi %[[OK0]], %[[EQ1]] : i1
//       CHECK:   scf.if %[[OK]] {
//  CHECK-NEXT:     memref.copy %[[A]], %[[OUT0]]
//  CHECK-NEXT:   } else {
//  CHECK-NEXT:     %[[INDEX0:.*]] = arith.constant 1 : i64
//  CHECK-NEXT:     func.call @lazyrt_report_output_shape_mismatch(%[[INDEX0]])
//       CHECK: func.func private @lazyrt_report_output_shape_mismatch(i64)
//   CHECK-NOT: lazyrt_report_output_shape_mismatch
func.func @two_outputs(%x: memref<?x?xf32>, %out0: memref<?x?xf32>, %out1: memref<?xf32>, %tied: memref<4xf32> {lazy.tied_argument = 0 : i64}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %a = memref.alloc(%m, %n) : memref<?x?xf32>
  %b = memref.alloc(%n) : memref<?xf32>
  memref.copy %b, %out1 : memref<?xf32> to memref<?xf32>
  memref.copy %a, %out0 : memref<?x?xf32> to memref<?x?xf32>
  return
}
func.func private @lazyrt_report_output_shape_mismatch(i64)

// -----

// A static output before a dynamic one: only the dynamic one is checked,
// and it reports its own position (2), not its rank among checked ones.
//       CHECK: func.func private @lazyrt_report_output_shape_mismatch(i64)
// CHECK-LABEL: func.func @static_then_dynamic
//       CHECK:   memref.copy %{{.*}}, %{{.*}} : memref<4xf32> to memref<4xf32>
//       CHECK:   scf.if %{{.*}} -> (memref<?xf32>) {
//  CHECK-NEXT:     scf.yield %{{.*}} : memref<?xf32>
//  CHECK-NEXT:   } else {
//  CHECK-NEXT:     %[[INDEX:.*]] = arith.constant 2 : i64
//  CHECK-NEXT:     func.call @lazyrt_report_output_shape_mismatch(%[[INDEX]])
func.func @static_then_dynamic(%x: memref<?xf32>, %out0: memref<4xf32>, %out1: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %static = memref.alloc() : memref<4xf32>
  memref.copy %static, %out0 : memref<4xf32> to memref<4xf32>
  %dynamic = memref.alloc(%n) : memref<?xf32>
  memref.copy %dynamic, %out1 : memref<?xf32> to memref<?xf32>
  return
}

// -----

// Two functions in one module: each is guarded, and the report function is
// declared once (a module pass: a function pass could not declare it while
// the functions run in parallel).
//       CHECK: func.func private @lazyrt_report_output_shape_mismatch(i64)
//   CHECK-NOT: func.func private @lazyrt_report_output_shape_mismatch
// CHECK-LABEL: func.func @first
//       CHECK:   func.call @lazyrt_report_output_shape_mismatch
// CHECK-LABEL: func.func @second
//       CHECK:   func.call @lazyrt_report_output_shape_mismatch
//   CHECK-NOT: func.func private @lazyrt_report_output_shape_mismatch
func.func @first(%x: memref<?xf32>, %out: memref<?xf32>) {
  memref.copy %x, %out : memref<?xf32> to memref<?xf32>
  return
}
func.func @second(%x: memref<?xf32>, %out: memref<?xf32>) {
  memref.copy %x, %out : memref<?xf32> to memref<?xf32>
  return
}
