// RUN: lazyc-opt %s --lazy-gpu-queue-library-calls | FileCheck %s

// The host's wait before a call of a function declared lazy.queues_on_stream
// goes: the call queues its work behind the kernels. The wait before a call
// of another function (which may read device memory on the host) stays, and
// so does a wait that is not right before such a call.
// CHECK-LABEL: func.func @queued
//       CHECK:   %[[T0:.*]] = gpu.wait async
//       CHECK:   %[[T1:.*]] = gpu.memset async [%[[T0]]]
//   CHECK-NOT:   gpu.wait [
//       CHECK:   call @queues(%{{.*}})
//       CHECK:   %[[T2:.*]] = gpu.wait async
//       CHECK:   %[[T3:.*]] = gpu.memset async [%[[T2]]]
//  CHECK-NEXT:   gpu.wait [%[[T3]]]
//  CHECK-NEXT:   call @reads(%{{.*}})
//       CHECK:   %[[T4:.*]] = gpu.memset async
//  CHECK-NEXT:   gpu.wait [%[[T4]]]
//  CHECK-NEXT:   memref.load
//  CHECK-NEXT:   call @queues(%{{.*}})
func.func private @queues(memref<4xf32>) attributes {lazy.queues_on_stream}
func.func private @reads(memref<4xf32>)
func.func @queued(%buffer: memref<4xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %t0 = gpu.wait async
  %t1 = gpu.memset async [%t0] %buffer, %zero : memref<4xf32>, f32
  gpu.wait [%t1]
  call @queues(%buffer) : (memref<4xf32>) -> ()
  %t2 = gpu.wait async
  %t3 = gpu.memset async [%t2] %buffer, %zero : memref<4xf32>, f32
  gpu.wait [%t3]
  call @reads(%buffer) : (memref<4xf32>) -> ()
  %t4 = gpu.memset async [%t2] %buffer, %zero : memref<4xf32>, f32
  gpu.wait [%t4]
  %value = memref.load %buffer[%c0] : memref<4xf32>
  call @queues(%buffer) : (memref<4xf32>) -> ()
  return %value : f32
}
