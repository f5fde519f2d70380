// RUN: lazyc-opt %s --pass-pipeline='builtin.module(gpu.module(lazy-gpu-ieee-sqrt))' | FileCheck %s

// libdevice's f32 square root becomes LLVM's (selected as sqrt.rn.f32, not
// the sqrt.approx.f32 that LLVM 22's NVVMReflect makes of __nv_sqrtf); its
// declaration goes with its last call. f64 (correctly rounded in libdevice)
// and other functions stay.
// CHECK-LABEL: gpu.module @kernels
//   CHECK-NOT:   llvm.func @__nv_sqrtf
//       CHECK:   llvm.func @__nv_sqrt(f64) -> f64
//       CHECK:   llvm.func @__nv_rsqrtf(f32) -> f32
//       CHECK:   llvm.func @k(%[[X:.*]]: f32, %[[Y:.*]]: f64)
//       CHECK:     %[[S:.*]] = llvm.intr.sqrt(%[[X]]) : (f32) -> f32
//       CHECK:     llvm.call @__nv_rsqrtf(%[[S]])
//       CHECK:     llvm.call @__nv_sqrt(%[[Y]])
gpu.module @kernels {
  llvm.func @__nv_sqrtf(f32) -> f32
  llvm.func @__nv_sqrt(f64) -> f64
  llvm.func @__nv_rsqrtf(f32) -> f32
  llvm.func @k(%x: f32, %y: f64) -> f32 {
    %0 = llvm.call @__nv_sqrtf(%x) : (f32) -> f32
    %1 = llvm.call @__nv_rsqrtf(%0) : (f32) -> f32
    %2 = llvm.call @__nv_sqrt(%y) : (f64) -> f64
    llvm.return %1 : f32
  }
}
