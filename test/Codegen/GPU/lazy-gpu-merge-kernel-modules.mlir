// RUN: lazyc-opt %s -split-input-file --lazy-gpu-merge-kernel-modules | FileCheck %s

// Two outlined kernels, each in its own module with the same name and a
// copy of the same helper: one module remains, @kernels, the kernels renamed
// after their modules, one helper, the launches pointing at the new places.
// CHECK-LABEL: module attributes {gpu.container_module}
//       CHECK:   gpu.launch_func @kernels::@trace_kernel blocks
//       CHECK:   gpu.launch_func @kernels::@trace_kernel_0 blocks
//       CHECK:   gpu.module @kernels {
//   CHECK-DAG:     gpu.func @trace_kernel(%{{.*}}: memref<4xf32>) kernel
//   CHECK-DAG:     gpu.func @trace_kernel_0(%{{.*}}: memref<4xf32>) kernel
//   CHECK-DAG:     func.func private @helper
//   CHECK-NOT:     func.func private @helper
//       CHECK:   }
//   CHECK-NOT:   gpu.module
module attributes {gpu.container_module} {
  func.func @trace(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @trace_kernel::@trace_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    gpu.launch_func @trace_kernel_0::@trace_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  gpu.module @trace_kernel {
    func.func private @helper(%a: f32) -> f32 {
      return %a : f32
    }
    gpu.func @trace_kernel(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @trace_kernel_0 {
    func.func private @helper(%a: f32) -> f32 {
      return %a : f32
    }
    gpu.func @trace_kernel(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// One module: nothing to do.
// CHECK-LABEL: module attributes {gpu.container_module}
//       CHECK:   gpu.launch_func @only::@only
//       CHECK:   gpu.module @only
module attributes {gpu.container_module} {
  func.func @trace(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @only::@only blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  gpu.module @only {
    gpu.func @only(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
