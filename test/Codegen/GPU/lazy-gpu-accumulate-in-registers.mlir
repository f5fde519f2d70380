// RUN: lazyc-opt %s --lazy-gpu-accumulate-in-registers | FileCheck %s

// A thread's column sum into a buffer the function allocated: the element
// is loaded once before the loop, carried through it, stored once after.
// CHECK-LABEL: func.func @column_sum
//       CHECK:   %[[ACC:.*]] = memref.alloc() : memref<1x512xf32>
//       CHECK:   gpu.launch
//       CHECK:     %[[FIRST:.*]] = memref.load %[[ACC]][%{{.*}}, %[[COL:.*]]] : memref<1x512xf32>
//       CHECK:     %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[RUNNING:.*]] = %[[FIRST]]) -> (f32) {
//  CHECK-NEXT:       %[[X:.*]] = memref.load %{{.*}}[%{{.*}}, %[[COL]]] : memref<128x512xf32>
//  CHECK-NEXT:       %[[NEXT:.*]] = arith.addf %[[RUNNING]], %[[X]] : f32
//  CHECK-NEXT:       scf.yield %[[NEXT]] : f32
//  CHECK-NEXT:     }
//  CHECK-NEXT:     memref.store %[[SUM]], %[[ACC]][%{{.*}}, %[[COL]]] : memref<1x512xf32>
func.func @column_sum(%x: memref<128x512xf32>) -> memref<1x512xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %acc = memref.alloc() : memref<1x512xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %row = %c0 to %c128 step %c1 {
      %v = memref.load %x[%row, %tx] : memref<128x512xf32>
      %a = memref.load %acc[%c0, %tx] : memref<1x512xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %acc[%c0, %tx] : memref<1x512xf32>
    }
    gpu.terminator
  }
  return %acc : memref<1x512xf32>
}

// An argument's buffer may alias what the loop reads (a result computed in
// its input's buffer), a buffer the loop also reads elsewhere is not a lone
// accumulator, and past a barrier in the loop another thread may read the
// element: all three stay in memory.
// CHECK-LABEL: func.func @not_alone
//   CHECK-NOT:   iter_args
func.func @not_alone(%x: memref<128x512xf32>, %out: memref<1x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %acc = memref.alloc() : memref<1x512xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %row = %c0 to %c128 step %c1 {
      %v = memref.load %x[%row, %tx] : memref<128x512xf32>
      %a = memref.load %out[%c0, %tx] : memref<1x512xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %out[%c0, %tx] : memref<1x512xf32>
    }
    scf.for %row = %c0 to %c128 step %c1 {
      %a = memref.load %acc[%c0, %tx] : memref<1x512xf32>
      %b = memref.load %acc[%c0, %row] : memref<1x512xf32>
      %s = arith.addf %a, %b : f32
      memref.store %s, %acc[%c0, %tx] : memref<1x512xf32>
    }
    scf.for %row = %c0 to %c128 step %c1 {
      %v = memref.load %x[%row, %tx] : memref<128x512xf32>
      %a = memref.load %acc[%c0, %tx] : memref<1x512xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %acc[%c0, %tx] : memref<1x512xf32>
      gpu.barrier
    }
    gpu.terminator
  }
  memref.dealloc %acc : memref<1x512xf32>
  return
}
