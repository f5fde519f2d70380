// RUN: lazyc-opt %s -split-input-file --lazy-reshaped-results-in-place | FileCheck %s

// A result returned as a reshape of its allocation (after
// buffer-results-to-out-params: computed there, copied to the out-parameter
// at the end) is computed in the out-parameter, reshaped back.

// CHECK-LABEL: func.func @expanded_result
//  CHECK-SAME:   (%[[X:.*]]: memref<8x4xf32>, %[[OUT:.*]]: memref<8x1x4xf32>)
//       CHECK:   %[[VIEW:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0], [1, 2]] : memref<8x1x4xf32> into memref<8x4xf32>
//       CHECK:   linalg.exp ins(%[[X]] : memref<8x4xf32>) outs(%[[VIEW]] : memref<8x4xf32>)
//   CHECK-NOT:   memref.alloc
//   CHECK-NOT:   memref.copy
//       CHECK:   return
func.func @expanded_result(%x: memref<8x4xf32>, %out: memref<8x1x4xf32>) {
  %alloc = memref.alloc() : memref<8x4xf32>
  linalg.exp ins(%x : memref<8x4xf32>) outs(%alloc : memref<8x4xf32>)
  %expanded = memref.expand_shape %alloc [[0], [1, 2]] output_shape [8, 1, 4] : memref<8x4xf32> into memref<8x1x4xf32>
  memref.copy %expanded, %out : memref<8x1x4xf32> to memref<8x1x4xf32>
  return
}

// -----

// Two reshapes (a collapse, then an expand) are undone in reverse order.
// CHECK-LABEL: func.func @two_reshapes
//  CHECK-SAME:   (%[[X:.*]]: memref<2x3x4xf32>, %[[OUT:.*]]: memref<6x2x2xf32>)
//       CHECK:   %[[FLAT:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0], [1, 2]] : memref<6x2x2xf32> into memref<6x4xf32>
//       CHECK:   %[[VIEW:.*]] = memref.expand_shape %[[FLAT]] {{\[}}[0, 1], [2]] output_shape [2, 3, 4] : memref<6x4xf32> into memref<2x3x4xf32>
//       CHECK:   linalg.exp ins(%[[X]] : memref<2x3x4xf32>) outs(%[[VIEW]] : memref<2x3x4xf32>)
//   CHECK-NOT:   memref.copy
func.func @two_reshapes(%x: memref<2x3x4xf32>, %out: memref<6x2x2xf32>) {
  %alloc = memref.alloc() : memref<2x3x4xf32>
  linalg.exp ins(%x : memref<2x3x4xf32>) outs(%alloc : memref<2x3x4xf32>)
  %flat = memref.collapse_shape %alloc [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
  %expanded = memref.expand_shape %flat [[0], [1, 2]] output_shape [6, 2, 2] : memref<6x4xf32> into memref<6x2x2xf32>
  memref.copy %expanded, %out : memref<6x2x2xf32> to memref<6x2x2xf32>
  return
}

// -----

// Left as they are: an out-parameter tied to an argument (the caller may
// pass the input's buffer), and an allocation read after the copy.
// CHECK-LABEL: func.func @tied_out_parameter
//       CHECK:   memref.alloc
//       CHECK:   memref.copy
func.func @tied_out_parameter(%x: memref<8x4xf32>, %out: memref<8x1x4xf32> {lazy.tied_argument = 0 : i64}) {
  %alloc = memref.alloc() : memref<8x4xf32>
  linalg.exp ins(%x : memref<8x4xf32>) outs(%alloc : memref<8x4xf32>)
  %expanded = memref.expand_shape %alloc [[0], [1, 2]] output_shape [8, 1, 4] : memref<8x4xf32> into memref<8x1x4xf32>
  memref.copy %expanded, %out : memref<8x1x4xf32> to memref<8x1x4xf32>
  return
}

// CHECK-LABEL: func.func @read_after_the_copy
//       CHECK:   memref.alloc
//       CHECK:   memref.copy
//       CHECK:   linalg.exp
func.func @read_after_the_copy(%x: memref<8x4xf32>, %out: memref<8x1x4xf32>, %other: memref<8x4xf32>) {
  %alloc = memref.alloc() : memref<8x4xf32>
  linalg.exp ins(%x : memref<8x4xf32>) outs(%alloc : memref<8x4xf32>)
  %expanded = memref.expand_shape %alloc [[0], [1, 2]] output_shape [8, 1, 4] : memref<8x4xf32> into memref<8x1x4xf32>
  memref.copy %expanded, %out : memref<8x1x4xf32> to memref<8x1x4xf32>
  linalg.exp ins(%alloc : memref<8x4xf32>) outs(%other : memref<8x4xf32>)
  return
}
