// RUN: lazyc-opt %s --allow-unregistered-dialect --lazy-bound-stack-buffers="max-bytes=40000" | FileCheck %s

// Three 16 KiB buffers at the top level of a function, with a budget of
// 40,000 bytes: the first two stay on the stack, the third (past the
// budget) goes to the heap. A buffer inside a loop is a per-iteration
// temporary and stays.
// CHECK-LABEL: func.func @top_level_buffers
//       CHECK:   memref.alloca() : memref<64x64xf32>
//       CHECK:   memref.alloca() : memref<64x64xf32>
//       CHECK:   memref.alloc() : memref<64x64xf32>
//       CHECK:   scf.for
//       CHECK:     memref.alloca() : memref<64x64xf32>
func.func @top_level_buffers(%n: index) {
  %a = memref.alloca() : memref<64x64xf32>
  %b = memref.alloca() : memref<64x64xf32>
  %c = memref.alloca() : memref<64x64xf32>
  "test.use"(%a, %b, %c) : (memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>) -> ()
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  scf.for %i = %zero to %n step %one {
    %row = memref.alloca() : memref<64x64xf32>
    "test.use"(%row) : (memref<64x64xf32>) -> ()
  }
  return
}
