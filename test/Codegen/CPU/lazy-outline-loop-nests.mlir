// RUN: lazyc-opt %s -split-input-file --lazy-outline-loop-nests | FileCheck %s

// Each top-level thread loop moves into a private, noinline function of its
// own, called in its place with the buffers and sizes it reads, and placed
// after the function, in order; constants are cloned into it instead of
// being passed.
// CHECK-LABEL: func.func @trace
//  CHECK-SAME:   (%[[X:.*]]: memref<1024xf32>, %[[N:.*]]: index, %[[Y:.*]]: memref<1024xf32>)
//       CHECK:   %[[TMP:.*]] = memref.alloc() : memref<1024xf32>
//       CHECK:   call @trace_loop0(%[[X]], %[[TMP]]) : (memref<1024xf32>, memref<1024xf32>) -> ()
//       CHECK:   call @trace_loop1(%[[TMP]], %[[Y]], %[[N]]) : (memref<1024xf32>, memref<1024xf32>, index) -> ()
//       CHECK:   memref.dealloc %[[TMP]]
//   CHECK-NOT:   scf.parallel
//       CHECK:   return
// CHECK-LABEL: func.func private @trace_loop0
//  CHECK-SAME:   (%[[A:.*]]: memref<1024xf32>, %[[B:.*]]: memref<1024xf32>)
//  CHECK-SAME:   attributes {passthrough = ["noinline"]}
//       CHECK:   arith.constant 2.000000e+00 : f32
//       CHECK:   scf.parallel
//       CHECK:     memref.load %[[A]]
//       CHECK:     memref.store %{{.*}}, %[[B]]
//       CHECK:   return
// CHECK-LABEL: func.func private @trace_loop1
//  CHECK-SAME:   (%[[C:.*]]: memref<1024xf32>, %[[D:.*]]: memref<1024xf32>, %[[M:.*]]: index)
//       CHECK:   scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[M]])
//       CHECK:   return
func.func @trace(%x: memref<1024xf32>, %n: index, %y: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %two = arith.constant 2.0 : f32
  %tmp = memref.alloc() : memref<1024xf32>
  scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
    %v = memref.load %x[%i] : memref<1024xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %tmp[%i] : memref<1024xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %tmp[%i] : memref<1024xf32>
    memref.store %v, %y[%i] : memref<1024xf32>
    scf.reduce
  }
  memref.dealloc %tmp : memref<1024xf32>
  return
}

// -----

// A thread loop nested in other control flow (a whileLoop's body) stays
// where it is; functions without thread loops are left alone.
// CHECK-LABEL: func.func @nested
//       CHECK:   scf.if
//       CHECK:     scf.parallel
//   CHECK-NOT:   call
//   CHECK-NOT: func.func private
func.func @nested(%p: i1, %x: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.if %p {
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %v = memref.load %x[%i] : memref<8xf32>
      memref.store %v, %x[%i] : memref<8xf32>
      scf.reduce
    }
  }
  return
}

// -----

// Serial loop nests (a small kernel's loop over rows) move too where the
// body holds at least two loop nests, numbered in order with the thread
// loops; a serial loop whose results are used stays.
// CHECK-LABEL: func.func @serial
//       CHECK:   call @serial_loop0(
//       CHECK:   call @serial_loop1(
//       CHECK:   %[[SUM:.*]] = scf.for {{.*}} iter_args
//       CHECK:   call @serial_loop2(
//       CHECK:   return %[[SUM]]
// CHECK-LABEL: func.func private @serial_loop0
//       CHECK:   scf.for
// CHECK-LABEL: func.func private @serial_loop1
//       CHECK:   scf.parallel
// CHECK-LABEL: func.func private @serial_loop2
//       CHECK:   scf.for
func.func @serial(%x: memref<64xf32>, %y: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    memref.store %v, %y[%i] : memref<64xf32>
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %y[%i] : memref<64xf32>
    memref.store %v, %x[%i] : memref<64xf32>
    scf.reduce
  }
  %sum = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %x[%i] : memref<64xf32>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %sum, %y[%i] : memref<64xf32>
  }
  return %sum : f32
}

// -----

// A serial loop nest alone stays: there is nothing to compile beside it.
// CHECK-LABEL: func.func @one_serial_loop
//       CHECK:   scf.for
//   CHECK-NOT:   call
//   CHECK-NOT: func.func private
func.func @one_serial_loop(%x: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    memref.store %v, %x[%i] : memref<64xf32>
  }
  return
}

// -----

// Identical nests (one type, the same ops on the same arguments: here
// doubling one buffer into another, twice) share one function; a nest that
// differs only in a constant keeps its own.
// CHECK-LABEL: func.func @repeated
//  CHECK-SAME:   (%[[X:.*]]: memref<64xf32>, %[[Y:.*]]: memref<64xf32>, %[[Z:.*]]: memref<64xf32>)
//       CHECK:   call @repeated_loop0(%[[X]], %[[Y]])
//       CHECK:   call @repeated_loop0(%[[Y]], %[[Z]])
//       CHECK:   call @repeated_loop2(%[[Z]], %[[X]])
//       CHECK:   return
// CHECK-LABEL: func.func private @repeated_loop0
//       CHECK:   arith.constant 2.000000e+00 : f32
//   CHECK-NOT: func.func private @repeated_loop1
// CHECK-LABEL: func.func private @repeated_loop2
//       CHECK:   arith.constant 3.000000e+00 : f32
func.func @repeated(%x: memref<64xf32>, %y: memref<64xf32>, %z: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %y[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %y[%i] : memref<64xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %z[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %z[%i] : memref<64xf32>
    %w = arith.mulf %v, %three : f32
    memref.store %w, %x[%i] : memref<64xf32>
    scf.reduce
  }
  return
}
