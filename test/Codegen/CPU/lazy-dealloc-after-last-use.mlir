// RUN: lazyc-opt %s -split-input-file --lazy-dealloc-after-last-use | FileCheck %s

// Each temporary of the function-end dealloc is freed after the last op
// that uses it: %a after the copy out of it, %b after the loop that reads
// a view of it (the loop, not its body: the op of the block), %c at once
// (nothing reads it). The dealloc goes.
// CHECK-LABEL: func.func @temporaries
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<64xf32>
//       CHECK:   %[[B:.*]] = memref.alloc() : memref<8x8xf32>
//       CHECK:   %[[C:.*]] = memref.alloc() : memref<4xf32>
//  CHECK-NEXT:   memref.dealloc %[[C]]
//       CHECK:   linalg.fill
//       CHECK:   memref.copy %[[A]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[A]]
//       CHECK:   memref.expand_shape %[[B]]
//       CHECK:   scf.for
//       CHECK:   }
//  CHECK-NEXT:   memref.dealloc %[[B]]
//   CHECK-NOT:   bufferization.dealloc
//       CHECK:   return
func.func @temporaries(%out: memref<64xf32>, %n: index) {
  %true = arith.constant true
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<8x8xf32>
  %c = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<64xf32>)
  memref.copy %a, %out : memref<64xf32> to memref<64xf32>
  %view = memref.expand_shape %b [[0], [1, 2]] output_shape [8, 2, 4] : memref<8x8xf32> into memref<8x2x4xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %zero, %view[%i, %c0, %c0] : memref<8x2x4xf32>
  }
  bufferization.dealloc (%a, %b, %c : memref<64xf32>, memref<8x8xf32>, memref<4xf32>) if (%true, %true, %true)
  return
}

// -----

// What stays at the end: a buffer owned only on some paths (its condition
// is not `true`), and one whose address is taken as an integer (a
// collective's input, read until its wait).
// CHECK-LABEL: func.func @kept
//       CHECK:   memref.extract_aligned_pointer_as_index
//   CHECK-NOT:   memref.dealloc
//       CHECK:   bufferization.dealloc (%{{.*}}, %{{.*}} : memref<64xf32>, memref<64xf32>) if (%{{.*}}, %{{.*}})
//  CHECK-NEXT:   return
func.func @kept(%owned: i1) -> index {
  %true = arith.constant true
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  %address = memref.extract_aligned_pointer_as_index %b : memref<64xf32> -> index
  bufferization.dealloc (%a, %b : memref<64xf32>, memref<64xf32>) if (%owned, %true)
  return %address : index
}

// -----

// A dealloc that retains values, or whose buffers are not each an
// allocation of their own, is left to the simplification.
// CHECK-LABEL: func.func @untouched
//   CHECK-NOT:   memref.dealloc
//       CHECK:   bufferization.dealloc (%{{.*}} : memref<64xf32>) if (%{{.*}}) retain (%{{.*}} : memref<64xf32>)
func.func @untouched(%keep: memref<64xf32>) -> i1 {
  %true = arith.constant true
  %a = memref.alloc() : memref<64xf32>
  %r = bufferization.dealloc (%a : memref<64xf32>) if (%true) retain (%keep : memref<64xf32>)
  return %r : i1
}
