// RUN: lazyc-opt %s -split-input-file --lazy-gpu-device-buffers -verify-diagnostics | FileCheck %s

// The host function's temporaries are device buffers, its copies device
// copies; what kernels read and write is left alone.
// CHECK-LABEL: func.func @host
//  CHECK-SAME:   (%[[X:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?xf32>, %[[N:.*]]: index)
//       CHECK:   %[[TMP:.*]] = gpu.alloc (%[[N]]) : memref<?xf32>
//       CHECK:   gpu.launch
//       CHECK:     memref.load %[[X]]
//       CHECK:     memref.store %{{.*}}, %[[TMP]]
//       CHECK:   gpu.memcpy %[[Y]], %[[TMP]] : memref<?xf32>, memref<?xf32>
//       CHECK:   gpu.dealloc %[[TMP]] : memref<?xf32>
//   CHECK-NOT:   memref.alloc
//   CHECK-NOT:   memref.copy
//   CHECK-NOT:   memref.dealloc
func.func @host(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %tmp = memref.alloc(%n) : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %0 = memref.load %x[%bx] : memref<?xf32>
    memref.store %0, %tmp[%bx] : memref<?xf32>
    gpu.terminator
  }
  memref.copy %tmp, %y : memref<?xf32> to memref<?xf32>
  memref.dealloc %tmp : memref<?xf32>
  return
}

// -----

func.func @alloc_in_kernel(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{allocates a buffer inside a GPU kernel}}
    %tmp = memref.alloc() : memref<4xf32>
    memref.copy %x, %tmp : memref<4xf32> to memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @stack_buffer() {
  // expected-error @+1 {{a stack buffer on the host cannot hold device data}}
  %tmp = memref.alloca() : memref<4xf32>
  return
}

// -----

// A host buffer (a value copied back for the host to read) stays on the
// host; the copy into it reads the device.
// CHECK-LABEL: func.func @host_buffer
//       CHECK:   %[[HOST:.*]] = memref.alloca() {lazy.host_buffer} : memref<i1>
//       CHECK:   gpu.memcpy %[[HOST]], %{{.*}} : memref<i1>, memref<i1>
//       CHECK:   memref.load %[[HOST]][]
func.func @host_buffer(%flag: memref<i1>) -> i1 {
  %host = memref.alloca() {lazy.host_buffer} : memref<i1>
  memref.copy %flag, %host : memref<i1> to memref<i1>
  %0 = memref.load %host[] : memref<i1>
  return %0 : i1
}

// -----

// A constant is host memory: a kernel that reads it gets a get_global of its
// own (outlining moves the global into the kernel module, device memory), a
// copy out of it stays a host-to-device copy, and other host readers (here a
// library call) share a device copy made on entry and freed on return.
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func private @library(memref<4xf32>)
// CHECK-LABEL: func.func @constants
//  CHECK-SAME:   (%[[Y:.*]]: memref<4xf32>, %[[Z:.*]]: memref<4xf32>)
//       CHECK:   %[[ENTRY:.*]] = memref.get_global @table
//       CHECK:   %[[COPY:.*]] = gpu.alloc () : memref<4xf32>
//       CHECK:   gpu.memcpy %[[COPY]], %[[ENTRY]]
//       CHECK:   %[[HOST:.*]] = memref.get_global @table
//       CHECK:   gpu.launch
//       CHECK:     %[[INSIDE:.*]] = memref.get_global @table
//       CHECK:     memref.load %[[INSIDE]]
//       CHECK:   gpu.memcpy %[[Z]], %[[HOST]]
//       CHECK:   call @library(%[[COPY]])
//       CHECK:   gpu.dealloc %[[COPY]]
//  CHECK-NEXT:   return
func.func @constants(%y: memref<4xf32>, %z: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %table = memref.get_global @table : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %0 = memref.load %table[%bx] : memref<4xf32>
    memref.store %0, %y[%bx] : memref<4xf32>
    gpu.terminator
  }
  memref.copy %table, %z : memref<4xf32> to memref<4xf32>
  call @library(%table) : (memref<4xf32>) -> ()
  return
}

// -----

// A kernel's read of host memory (a promoted literal, a size) at an index
// known before the kernel moves in front of it: the host reads the value
// and the kernel gets it as a parameter.
// CHECK-LABEL: func.func @host_scalar
//  CHECK-SAME:   (%[[Y:.*]]: memref<8xf32>, %[[LR:.*]]: memref<f32> {lazy.host_buffer})
//       CHECK:   %[[VALUE:.*]] = memref.load %[[LR]][] : memref<f32>
//       CHECK:   gpu.launch
//   CHECK-NOT:     memref.load %[[LR]]
//       CHECK:     memref.store %[[VALUE]], %[[Y]]
func.func @host_scalar(%y: memref<8xf32>, %lr: memref<f32> {lazy.host_buffer}) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %0 = memref.load %lr[] : memref<f32>
    memref.store %0, %y[%bx] : memref<8xf32>
    gpu.terminator
  }
  return
}

// -----

// Host memory read at an index that varies in the kernel is an error, not a
// fault on the device.
func.func @host_sizes_in_kernel(%y: memref<2xi64>, %sizes: memref<2xi64> {lazy.host_buffer}) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{reads host memory (argument #1) at an index that varies inside a GPU kernel}}
    %0 = memref.load %sizes[%bx] : memref<2xi64>
    memref.store %0, %y[%bx] : memref<2xi64>
    gpu.terminator
  }
  return
}

// -----

// A kernel's read of a host buffer on the stack frame (a shape) moves in
// front of the launch, like a read of a host argument.
// CHECK-LABEL: func.func @host_alloca_read
//       CHECK:   %[[SHAPE:.*]] = memref.alloca() {lazy.host_buffer} : memref<2xindex>
//       CHECK:   %[[ROWS:.*]] = memref.load %[[SHAPE]]
//  CHECK-NEXT:   gpu.launch
//   CHECK-NOT:     memref.load %[[SHAPE]]
//       CHECK:     memref.store %{{.*}}, %{{.*}}[%[[ROWS]]]
func.func @host_alloca_read(%y: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %shape = memref.alloca() {lazy.host_buffer} : memref<2xindex>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %rows = memref.load %shape[%c0] : memref<2xindex>
    memref.store %rows, %y[%rows] : memref<?xindex>
    gpu.terminator
  }
  return
}
