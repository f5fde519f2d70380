// RUN: lazyc-opt %s --lazy-gpu-return-without-waiting | FileCheck %s

// The wait before the return goes: the copy is queued on the device's one
// stream, after the work before it. The wait before the host reads the
// copied value stays.
// CHECK-LABEL: func.func @queued
//       CHECK:   %[[T0:.*]] = gpu.wait async
//       CHECK:   %[[T1:.*]] = gpu.memcpy async [%[[T0]]] %{{.*}}, %{{.*}}
//       CHECK:   gpu.wait [%[[T1]]]
//       CHECK:   memref.load
//       CHECK:   %[[T2:.*]] = gpu.memcpy async
//   CHECK-NOT:   gpu.wait
//       CHECK:   return
func.func @queued(%device: memref<f32>, %host: memref<f32>, %out: memref<f32>) -> f32 {
  %t0 = gpu.wait async
  %t1 = gpu.memcpy async [%t0] %host, %device : memref<f32>, memref<f32>
  gpu.wait [%t1]
  %value = memref.load %host[] : memref<f32>
  %t2 = gpu.memcpy async [%t1] %out, %device : memref<f32>, memref<f32>
  gpu.wait [%t2]
  return %value : f32
}
