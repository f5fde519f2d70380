// RUN: lazyc-opt %s -split-input-file --lazy-gpu-wait-only-for-device-data | FileCheck %s

// The host's wait before a call of a function declared lazy.queues_on_stream
// goes: the call queues its work behind the kernels. The wait before a call
// of another function (which may read device memory on the host) stays.
// CHECK-LABEL: func.func @calls
//       CHECK:   %[[T0:.*]] = gpu.wait async
//       CHECK:   %[[T1:.*]] = gpu.memset async [%[[T0]]]
//   CHECK-NOT:   gpu.wait [
//       CHECK:   call @queues(%{{.*}})
//       CHECK:   %[[T2:.*]] = gpu.wait async
//       CHECK:   %[[T3:.*]] = gpu.memset async [%[[T2]]]
//  CHECK-NEXT:   gpu.wait [%[[T3]]]
//  CHECK-NEXT:   call @reads(%{{.*}})
func.func private @queues(memref<4xf32>) attributes {lazy.queues_on_stream}
func.func private @reads(memref<4xf32>)
func.func @calls(%buffer: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %t0 = gpu.wait async
  %t1 = gpu.memset async [%t0] %buffer, %zero : memref<4xf32>, f32
  gpu.wait [%t1]
  call @queues(%buffer) : (memref<4xf32>) -> ()
  %t2 = gpu.wait async
  %t3 = gpu.memset async [%t2] %buffer, %zero : memref<4xf32>, f32
  gpu.wait [%t3]
  call @reads(%buffer) : (memref<4xf32>) -> ()
  return
}

// -----

// Host memory the device never writes needs no wait: the trace's sizes (an
// argument marked lazy.host_buffer) and a shape buffer on the stack frame.
// A cell that a copy fills with device data keeps its wait: that is how the
// host reads what the device computed.
// CHECK-LABEL: func.func @host_memory
//  CHECK-SAME:   (%[[DEVICE:.*]]: memref<4xf32>, %[[SIZES:.*]]: memref<2xi64> {lazy.host_buffer})
//       CHECK:   %[[SHAPE:.*]] = memref.alloca() {lazy.host_buffer} : memref<1xindex>
//       CHECK:   %[[CELL:.*]] = memref.alloca() {lazy.host_buffer} : memref<f32>
//       CHECK:   gpu.memset async
//   CHECK-NOT:   gpu.wait [
//       CHECK:   memref.load %[[SIZES]]
//       CHECK:   gpu.memset async
//   CHECK-NOT:   gpu.wait [
//       CHECK:   memref.store %{{.*}}, %[[SHAPE]]
//       CHECK:   %[[COPY:.*]] = gpu.memcpy async [%{{.*}}] %[[CELL]]
//  CHECK-NEXT:   gpu.wait [%[[COPY]]]
//  CHECK-NEXT:   memref.load %[[CELL]]
func.func @host_memory(%device: memref<4xf32>, %sizes: memref<2xi64> {lazy.host_buffer}) -> f32 {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %shape = memref.alloca() {lazy.host_buffer} : memref<1xindex>
  %cell = memref.alloca() {lazy.host_buffer} : memref<f32>
  %t0 = gpu.wait async
  %t1 = gpu.memset async [%t0] %device, %zero : memref<4xf32>, f32
  gpu.wait [%t1]
  %raw = memref.load %sizes[%c0] : memref<2xi64>
  %n = arith.index_cast %raw : i64 to index
  %t2 = gpu.wait async
  %t3 = gpu.memset async [%t2] %device, %zero : memref<4xf32>, f32
  gpu.wait [%t3]
  memref.store %n, %shape[%c0] : memref<1xindex>
  %t4 = gpu.wait async
  %view = memref.subview %device[0] [1] [1] : memref<4xf32> to memref<f32, strided<[]>>
  %t5 = gpu.memcpy async [%t4] %cell, %view : memref<f32>, memref<f32, strided<[]>>
  gpu.wait [%t5]
  %value = memref.load %cell[] : memref<f32>
  return %value : f32
}
