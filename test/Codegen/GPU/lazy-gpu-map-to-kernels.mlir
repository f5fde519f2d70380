// RUN: lazyc-opt %s -split-input-file --lazy-gpu-map-to-kernels -verify-diagnostics --canonicalize | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-gpu-map-to-kernels="threads-per-block=128" -verify-diagnostics | FileCheck %s --check-prefix=T128

// A parallel loop nest: one thread per iteration, the dimensions linearized
// innermost fastest, blocks of 256 threads (1000 x 1022 = 1022000 threads in
// 3993 blocks); threads past the end do nothing. The grid is sized at run
// time from the loop's bounds (a dynamic extent here).
// CHECK-LABEL: func.func @elementwise
//  CHECK-SAME:   (%[[X:.*]]: memref<?x1022xf32>, %[[B:.*]]: memref<1022xf32>, %[[Y:.*]]: memref<?x1022xf32>, %[[ROWS:.*]]: index)
//   CHECK-DAG:   %[[C256:.*]] = arith.constant 256 : index
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[C1022:.*]] = arith.constant 1022 : index
//       CHECK:   %[[TOTAL:.*]] = arith.muli %[[ROWS]], %[[C1022]]
//       CHECK:   %[[BLOCKS:.*]] = arith.ceildivsi %[[TOTAL]], %[[C256]]
//       CHECK:   %[[GRID:.*]] = arith.maxsi %[[BLOCKS]], %[[C1]]
//       CHECK:   gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]])
//       CHECK:     %[[BASE:.*]] = arith.muli %[[BX]], %[[C256]]
//       CHECK:     %[[LINEAR:.*]] = arith.addi %[[BASE]], %[[TX]]
//       CHECK:     %[[IN:.*]] = arith.cmpi ult, %[[LINEAR]], %[[TOTAL]]
//       CHECK:     scf.if %[[IN]]
//       CHECK:       %[[IJ:.*]]:2 = affine.delinearize_index %[[LINEAR]] into (%[[ROWS]], 1022)
//       CHECK:       %[[XV:.*]] = memref.load %[[X]][%[[IJ]]#0, %[[IJ]]#1]
//       CHECK:       %[[BV:.*]] = memref.load %[[B]][%[[IJ]]#1]
//       CHECK:       %[[SUM:.*]] = arith.addf %[[XV]], %[[BV]]
//       CHECK:       memref.store %[[SUM]], %[[Y]][%[[IJ]]#0, %[[IJ]]#1]
//       CHECK:     gpu.terminator
//   CHECK-NOT:   scf.parallel
//       CHECK:   return
// T128-LABEL: func.func @elementwise
//       T128:   arith.constant 128 : index
//   T128-NOT:   arith.constant 256 : index
func.func @elementwise(%x: memref<?x1022xf32>, %b: memref<1022xf32>, %y: memref<?x1022xf32>, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1022 = arith.constant 1022 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %c1022) step (%c1, %c1) {
    %0 = memref.load %x[%i, %j] : memref<?x1022xf32>
    %1 = memref.load %b[%j] : memref<1022xf32>
    %2 = arith.addf %0, %1 : f32
    memref.store %2, %y[%i, %j] : memref<?x1022xf32>
    scf.reduce
  }
  return
}

// -----

// Rows of 1024 f32s: each thread takes 4 consecutive elements of a row with
// 16-byte vector loads and stores (256 threads per row); the bias, which
// does not vary along the rows, is read as a vector too, the scalar operand
// is broadcast. 1000 x 256 threads.
// CHECK-LABEL: func.func @vectorized
//  CHECK-SAME:   (%[[X:.*]]: memref<1000x1024xf32>, %[[B:.*]]: memref<1024xf32>, %[[Y:.*]]: memref<1000x1024xf32>, %[[S:.*]]: f32)
//   CHECK-DAG:   %[[C4:.*]] = arith.constant 4 : index
//   CHECK-DAG:   %[[C1000:.*]] = arith.constant 1000 : index
//       CHECK:   gpu.launch blocks(%{{.*}}) in (%{{.*}} = %[[C1000]], {{.*}} threads(%{{.*}}) in (%{{.*}} = %c256,
//       CHECK:     %[[IJ:.*]]:2 = affine.delinearize_index %{{.*}} into (1000, 256)
//       CHECK:     %[[J:.*]] = arith.muli %[[IJ]]#1, %[[C4]]
//       CHECK:     %[[XV:.*]] = vector.load %[[X]][%[[IJ]]#0, %[[J]]] {alignment = 16 : i64} : memref<1000x1024xf32>, vector<4xf32>
//       CHECK:     %[[BV:.*]] = vector.load %[[B]][%[[J]]] {alignment = 16 : i64} : memref<1024xf32>, vector<4xf32>
//       CHECK:     %[[SUM:.*]] = arith.addf %[[XV]], %[[BV]] : vector<4xf32>
//       CHECK:     %[[SV:.*]] = vector.broadcast %[[S]] : f32 to vector<4xf32>
//       CHECK:     %[[P:.*]] = arith.mulf %[[SUM]], %[[SV]] : vector<4xf32>
//       CHECK:     vector.store %[[P]], %[[Y]][%[[IJ]]#0, %[[J]]] {alignment = 16 : i64} : memref<1000x1024xf32>, vector<4xf32>
func.func @vectorized(%x: memref<1000x1024xf32>, %b: memref<1024xf32>, %y: memref<1000x1024xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1000, %c1024) step (%c1, %c1) {
    %0 = memref.load %x[%i, %j] : memref<1000x1024xf32>
    %1 = memref.load %b[%j] : memref<1024xf32>
    %2 = arith.addf %0, %1 : f32
    %3 = arith.mulf %2, %s : f32
    memref.store %3, %y[%i, %j] : memref<1000x1024xf32>
    scf.reduce
  }
  return
}

// -----

// f64 elements: 2 a thread. Left a thread per element: a transposed read
// (the innermost dimension indexes rows), a use of the position as a
// number, a row start that is not 16-byte aligned (an offset of 2 f32s).
// CHECK-LABEL: func.func @widths
//       CHECK:   gpu.launch
//       CHECK:     vector.load {{.*}} : memref<8x8xf64>, vector<2xf64>
//       CHECK:     vector.store {{.*}} : memref<8x8xf64>, vector<2xf64>
//       CHECK:   gpu.launch
//   CHECK-NOT:     vector.
//       CHECK:     memref.store
//       CHECK:   gpu.launch
//   CHECK-NOT:     vector.
//       CHECK:     arith.index_cast
//       CHECK:   gpu.launch
//   CHECK-NOT:     vector.
//       CHECK:     memref.store
//       CHECK:   return
func.func @widths(%a: memref<8x8xf64>, %b: memref<8x8xf64>, %x: memref<8x8xf32>, %y: memref<8x8xf32>, %z: memref<8x8xi32>, %w: memref<8x4xf32, strided<[8, 1], offset: 2>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %0 = memref.load %a[%i, %j] : memref<8x8xf64>
    %1 = arith.negf %0 : f64
    memref.store %1, %b[%i, %j] : memref<8x8xf64>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %0 = memref.load %x[%j, %i] : memref<8x8xf32>
    memref.store %0, %y[%i, %j] : memref<8x8xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %0 = arith.index_cast %j : index to i32
    memref.store %0, %z[%i, %j] : memref<8x8xi32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c4) step (%c1, %c1) {
    %0 = memref.load %x[%i, %j] : memref<8x8xf32>
    memref.store %0, %w[%i, %j] : memref<8x4xf32, strided<[8, 1], offset: 2>>
    scf.reduce
  }
  return
}

// -----

// Steps and lower bounds other than 0 and 1: the position of a thread is
// lower + index * step.
// CHECK-LABEL: func.func @strided
//   CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : index
//   CHECK-DAG:   %[[C3:.*]] = arith.constant 3 : index
//   CHECK-DAG:   %[[C5:.*]] = arith.constant 5 : index
//       CHECK:   gpu.launch blocks({{.*}}) threads(%[[TX:[^,]*]],
//       CHECK:     %[[IN:.*]] = arith.cmpi ult, %[[TX]], %[[C5]]
//       CHECK:     scf.if %[[IN]]
//       CHECK:       %[[OFFSET:.*]] = arith.muli %[[TX]], %[[C2]]
//       CHECK:       %[[POS:.*]] = arith.addi %[[OFFSET]], %[[C3]]
//       CHECK:       memref.store %{{.*}}, %{{.*}}[%[[POS]]]
func.func @strided(%y: memref<16xf32>) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c13 = arith.constant 13 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c3) to (%c13) step (%c2) {
    memref.store %zero, %y[%i] : memref<16xf32>
    scf.reduce
  }
  return
}

// -----

// A row reduction: a thread per row, the reduction loop inside the thread.
// CHECK-LABEL: func.func @row_sum
//       CHECK:   gpu.launch
//       CHECK:     scf.if
//       CHECK:       scf.for
//       CHECK:         memref.load
//       CHECK:         arith.addf
//       CHECK:         memref.store
func.func @row_sum(%x: memref<64x1000xf32>, %y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1000 = arith.constant 1000 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %j = %c0 to %c1000 step %c1 {
      %0 = memref.load %x[%i, %j] : memref<64x1000xf32>
      %1 = memref.load %y[%i] : memref<64xf32>
      %2 = arith.addf %1, %0 : f32
      memref.store %2, %y[%i] : memref<64xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Code with no parallel loop that reads or writes buffers (a reduction to a
// scalar, a 0-d op: load, arithmetic, store) runs in a kernel of one
// thread; consecutive such ops share it, the constants between them stay.
// CHECK-LABEL: func.func @serial
//       CHECK:   %[[ONE:.*]] = arith.constant 1 : index
//       CHECK:   gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]])
//       CHECK:     memref.store
//       CHECK:     scf.for
//       CHECK:     memref.load
//       CHECK:     arith.mulf
//       CHECK:     memref.store
//       CHECK:     gpu.terminator
//   CHECK-NOT:   gpu.launch
//       CHECK:   return
func.func @serial(%x: memref<1000xf32>, %sum: memref<f32>, %twice: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %sum[] : memref<f32>
  scf.for %i = %c0 to %c1000 step %c1 {
    %0 = memref.load %x[%i] : memref<1000xf32>
    %1 = memref.load %sum[] : memref<f32>
    %2 = arith.addf %1, %0 : f32
    memref.store %2, %sum[] : memref<f32>
  }
  %two = arith.constant 2.0 : f32
  %3 = memref.load %sum[] : memref<f32>
  %4 = arith.mulf %3, %two : f32
  memref.store %4, %twice[] : memref<f32>
  return
}

// -----

// Copies of whole buffers stay on the host (lazy-gpu-device-buffers makes
// them device copies); a copy into a slice becomes a kernel of its own
// (here a thread per row of 4 f32s: one vector load and store each).
// CHECK-LABEL: func.func @copies
//       CHECK:   memref.copy %{{.*}}, %{{.*}} : memref<8x4xf32> to memref<8x4xf32>
//       CHECK:   gpu.launch
//       CHECK:     vector.load %{{.*}} : memref<8x4xf32>, vector<4xf32>
//       CHECK:     vector.store %{{.*}} : memref<8x4xf32, strided<[8, 1]>>, vector<4xf32>
//   CHECK-NOT:   memref.copy
func.func @copies(%x: memref<8x4xf32>, %y: memref<8x4xf32>, %z: memref<8x8xf32>) {
  memref.copy %x, %y : memref<8x4xf32> to memref<8x4xf32>
  %half = memref.subview %z[0, 0] [8, 4] [1, 1] : memref<8x8xf32> to memref<8x4xf32, strided<[8, 1]>>
  memref.copy %x, %half : memref<8x4xf32> to memref<8x4xf32, strided<[8, 1]>>
  return
}

// -----

// A copy of one element out of a slice (an offset: not contiguous as a
// whole buffer) is a kernel of one thread. Its loop has no dimensions, so
// no innermost one to vectorize (a crash found by compiling a lazyc-fuzz
// corpus with scripts/gpu-compile-traces).
// CHECK-LABEL: func.func @element_of_slice
//       CHECK:   gpu.launch
//       CHECK:     %[[V:.*]] = memref.load %{{.*}}[] : memref<i8, strided<[], offset: 4>>
//       CHECK:     memref.store %[[V]], %{{.*}}[] : memref<i8>
func.func @element_of_slice(%x: memref<7xi8>, %y: memref<i8>) {
  %subview = memref.subview %x[4] [1] [1] : memref<7xi8> to memref<1xi8, strided<[1], offset: 4>>
  %element = memref.collapse_shape %subview [] : memref<1xi8, strided<[1], offset: 4>> into memref<i8, strided<[], offset: 4>>
  memref.copy %element, %y : memref<i8, strided<[], offset: 4>> to memref<i8>
  return
}

// -----

// Host control flow around kernels stays on the host.
// CHECK-LABEL: func.func @host_loop
//       CHECK:   scf.for
//       CHECK:     gpu.launch
//       CHECK:       vector.store
func.func @host_loop(%y: memref<1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %one = arith.constant 1.0 : f32
  scf.for %step = %c0 to %n step %c1 {
    scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
      %0 = memref.load %y[%i] : memref<1024xf32>
      %1 = arith.addf %0, %one : f32
      memref.store %1, %y[%i] : memref<1024xf32>
      scf.reduce
    }
  }
  return
}

// -----

// A call (the runtime's output-shape check) stays on the host, and so does
// the branch around it.
// CHECK-LABEL: func.func @host_call
//       CHECK:   scf.if
//   CHECK-NOT:     gpu.launch
//       CHECK:     call @report
//       CHECK:   gpu.launch
//       CHECK:     memref.store
func.func private @report(index)
func.func @host_call(%y: memref<f32>, %n: index) {
  %c4 = arith.constant 4 : index
  %wrong = arith.cmpi ne, %n, %c4 : index
  scf.if %wrong {
    func.call @report(%n) : (index) -> ()
  }
  %one = arith.constant 1.0 : f32
  memref.store %one, %y[] : memref<f32>
  return
}

// -----

// A value the host needs (here a buffer's size) is stored to a device cell
// by the kernel and copied back into a host buffer on the function's stack
// frame, where the host reads it.
// CHECK-LABEL: func.func @size_from_device_value
//  CHECK-SAME:   (%[[SIZE:.*]]: memref<index>)
//       CHECK:   %[[HOST:.*]] = memref.alloca() {lazy.host_buffer} : memref<index>
//       CHECK:   %[[CELL:.*]] = memref.alloc() : memref<index>
//       CHECK:   gpu.launch
//       CHECK:     %[[N:.*]] = memref.load %[[SIZE]][]
//       CHECK:     memref.store %[[N]], %[[CELL]][]
//       CHECK:   memref.copy %[[CELL]], %[[HOST]]
//       CHECK:   %[[COPIED:.*]] = memref.load %[[HOST]][]
//       CHECK:   memref.dealloc %[[CELL]]
//       CHECK:   memref.alloc(%[[COPIED]]) : memref<?xf32>
func.func @size_from_device_value(%size: memref<index>) -> memref<?xf32> {
  %0 = memref.load %size[] : memref<index>
  %1 = memref.alloc(%0) : memref<?xf32>
  return %1 : memref<?xf32>
}

// -----

// A branch that only writes buffers runs on the device, in one thread.
// CHECK-LABEL: func.func @branch_on_device_value
//       CHECK:   gpu.launch
//       CHECK:     memref.load
//       CHECK:     scf.if
//       CHECK:       memref.store
func.func @branch_on_device_value(%flag: memref<i1>, %y: memref<f32>) {
  %0 = memref.load %flag[] : memref<i1>
  scf.if %0 {
    %one = arith.constant 1.0 : f32
    memref.store %one, %y[] : memref<f32>
  }
  return
}

// -----

// The trace's runtime sizes are host memory (`lazy.host_buffer`): the host
// reads them, no one-thread kernel copies them back, and a kernel gets the
// size as a parameter.
// CHECK-LABEL: func.func @host_sizes
//  CHECK-SAME:   (%[[X:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?xf32>, %[[SIZES:.*]]: memref<2xi64> {lazy.host_buffer})
//       CHECK:   %[[RAW:.*]] = memref.load %[[SIZES]][%{{.*}}] : memref<2xi64>
//   CHECK-NOT:   gpu.launch
//       CHECK:   %[[N:.*]] = arith.index_cast %[[RAW]]
//       CHECK:   gpu.launch
//       CHECK:     arith.cmpi ult, %{{.*}}, %[[N]]
//   CHECK-NOT:   memref.alloca
func.func @host_sizes(%x: memref<?xf32>, %y: memref<?xf32>, %sizes: memref<2xi64> {lazy.host_buffer}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %raw = memref.load %sizes[%c1] : memref<2xi64>
  %n = arith.index_cast %raw : i64 to index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %y[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A tied result copied only where its buffers differ: a kernel of the
// copy's width whose threads copy their element under the host's
// condition (not one thread copying the whole buffer).
// CHECK-LABEL: func.func @tied_copy
//  CHECK-SAME:   (%[[X:.*]]: memref<1000xf32>, %[[Y:.*]]: memref<1000xf32>, %[[DIFFER:.*]]: i1)
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c256,
//       CHECK:     %[[INSIDE:.*]] = arith.cmpi ult
//       CHECK:     %[[BOTH:.*]] = arith.andi %[[INSIDE]], %[[DIFFER]] : i1
//       CHECK:     scf.if %[[BOTH]] {
//       CHECK:       %[[V:.*]] = memref.load %[[X]]
//       CHECK:       memref.store %[[V]], %[[Y]]
//   CHECK-NOT:   memref.copy
func.func @tied_copy(%x: memref<1000xf32>, %y: memref<1000xf32>, %differ: i1) {
  scf.if %differ {
    memref.copy %x, %y : memref<1000xf32> to memref<1000xf32>
  }
  return
}

// -----

// A reshape's shape buffer (sizes stored, then a reshape: the bufferized
// reshape of a dynamic shape) becomes host memory on the stack frame: the
// host stores the sizes, makes the view and reads the size back, with no
// one-thread kernel and no copy; only the loop over the view is a kernel.
// CHECK-LABEL: func.func @reshape_shape_on_the_host
//  CHECK-SAME:   (%[[X:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?x1xf32>, %[[SIZES:.*]]: memref<1xi64> {lazy.host_buffer})
//       CHECK:   %[[SHAPE:.*]] = memref.alloca() {lazy.host_buffer} : memref<2xindex>
//   CHECK-NOT:   gpu.launch
//       CHECK:   memref.store %{{.*}}, %[[SHAPE]]
//       CHECK:   memref.store %{{.*}}, %[[SHAPE]]
//       CHECK:   %[[VIEW:.*]] = memref.reshape %[[X]](%[[SHAPE]])
//       CHECK:   %[[ROWS:.*]] = memref.load %[[SHAPE]]
//       CHECK:   gpu.launch
//       CHECK:     memref.load %[[VIEW]]
//   CHECK-NOT:   gpu.launch
//   CHECK-NOT:   memref.alloc(
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return
func.func @reshape_shape_on_the_host(%x: memref<?xf32>, %y: memref<?x1xf32>, %sizes: memref<1xi64> {lazy.host_buffer}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %raw = memref.load %sizes[%c0] : memref<1xi64>
  %n = arith.index_cast %raw : i64 to index
  %shape = memref.alloc() : memref<2xindex>
  memref.store %n, %shape[%c0] : memref<2xindex>
  memref.store %c1, %shape[%c1] : memref<2xindex>
  %view = memref.reshape %x(%shape) : (memref<?xf32>, memref<2xindex>) -> memref<?x1xf32>
  %rows = memref.load %shape[%c0] : memref<2xindex>
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %c1) step (%c1, %c1) {
    %v = memref.load %view[%i, %j] : memref<?x1xf32>
    memref.store %v, %y[%i, %j] : memref<?x1xf32>
    scf.reduce
  }
  memref.dealloc %shape : memref<2xindex>
  return
}
