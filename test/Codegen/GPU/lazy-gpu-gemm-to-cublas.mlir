// RUN: lazyc-opt %s -split-input-file --lazy-gpu-gemm-to-cublas | FileCheck %s

// A matmul after a zero fill: one call that overwrites (flags 4), on
// rank-3 views (a batch of one) with any strides; the fill is gone. The
// declaration says the call only queues on the stream (no host wait before).
// CHECK-LABEL: func.func private @lazyrt_cuda_matmul_f32
//  CHECK-SAME:   (memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i32)
//  CHECK-SAME:   attributes {lazy.queues_on_stream, llvm.emit_c_interface}
// CHECK-LABEL: func.func @overwrite
//  CHECK-SAME:   (%[[A:.*]]: memref<8x16xf32>, %[[B:.*]]: memref<16x4xf32>, %[[C:.*]]: memref<8x4xf32>)
//   CHECK-NOT:   linalg.fill
//       CHECK:   %[[AE:.*]] = memref.expand_shape %[[A]] {{\[}}[0, 1], [2]] output_shape [1, 8, 16]
//       CHECK:   %[[AV:.*]] = memref.cast %[[AE]] : memref<1x8x16xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
//       CHECK:   %[[BV:.*]] = memref.cast %{{.*}} : memref<1x16x4xf32> to
//       CHECK:   %[[FLAGS:.*]] = arith.constant 4 : i32
//       CHECK:   %[[CV:.*]] = memref.cast %{{.*}} : memref<1x8x4xf32> to
//       CHECK:   call @lazyrt_cuda_matmul_f32(%[[AV]], %[[BV]], %[[CV]], %[[FLAGS]])
//   CHECK-NOT:   linalg.matmul
func.func @overwrite(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c: memref<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  return
}

// -----

// No fill: C += A B (flags 0). B read transposed (stored [n, k]): flag 2.
// CHECK-LABEL: func.func @accumulate_transposed_b
//       CHECK:   %[[FLAGS:.*]] = arith.constant 2 : i32
//       CHECK:   call @lazyrt_cuda_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]])
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @accumulate_transposed_b(%a: memref<8x16xf32>, %bt: memref<4x16xf32>, %c: memref<8x4xf32>) {
  linalg.matmul indexing_maps = [#a, #bt, #c]
      ins(%a, %bt : memref<8x16xf32>, memref<4x16xf32>) outs(%c : memref<8x4xf32>)
  return
}

// -----

// A batch: the operands are already rank 3; bf16 has its own entry point.
// CHECK-LABEL: func.func @batch_bf16
//   CHECK-NOT:   memref.expand_shape
//       CHECK:   call @lazyrt_cuda_matmul_bf16(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>,
func.func @batch_bf16(%a: memref<3x8x16xbf16>, %b: memref<3x16x4xbf16>, %c: memref<3x8x4xbf16>) {
  %zero = arith.constant 0.0 : bf16
  linalg.fill ins(%zero : bf16) outs(%c : memref<3x8x4xbf16>)
  linalg.batch_matmul ins(%a, %b : memref<3x8x16xbf16>, memref<3x16x4xbf16>) outs(%c : memref<3x8x4xbf16>)
  return
}

// -----

// A broadcast input (row stride 0) has no layout cuBLASLt reads: it is
// copied into a new buffer first, freed after the call.
// CHECK-LABEL: func.func @broadcast_input
//       CHECK:   %[[COPY:.*]] = memref.alloc() : memref<8x16xf32>
//       CHECK:   memref.copy %{{.*}}, %[[COPY]] : memref<8x16xf32, strided<[0, 1]>> to memref<8x16xf32>
//       CHECK:   memref.expand_shape %[[COPY]]
//       CHECK:   call @lazyrt_cuda_matmul_f32
//       CHECK:   memref.dealloc %[[COPY]]
func.func @broadcast_input(%row: memref<16xf32>, %b: memref<16x4xf32>, %c: memref<8x4xf32>) {
  %a = memref.reinterpret_cast %row to offset: [0], sizes: [8, 16], strides: [0, 1] : memref<16xf32> to memref<8x16xf32, strided<[0, 1]>>
  linalg.matmul ins(%a, %b : memref<8x16xf32, strided<[0, 1]>>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  return
}

// -----

// The bias epilogue: a zero-filled product, then a generic that adds a
// vector to each row and does nothing else, is one call writing the
// generic's output. The product's own buffer, now unused, is gone.
// CHECK-LABEL: func.func @bias
//  CHECK-SAME:   (%[[A:.*]]: memref<8x16xf32>, %[[B:.*]]: memref<16x4xf32>, %[[BIAS:.*]]: memref<4xf32>, %[[D:.*]]: memref<8x4xf32>)
//   CHECK-NOT:   memref.alloc
//       CHECK:   %[[BV:.*]] = memref.cast %[[BIAS]] : memref<4xf32> to memref<?xf32, strided<[?], offset: ?>>
//       CHECK:   memref.expand_shape %[[D]]
//       CHECK:   call @lazyrt_cuda_matmul_bias_f32(%{{.*}}, %{{.*}}, %[[BV]], %{{.*}}, %{{.*}})
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @bias(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %bias: memref<4xf32>, %d: memref<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<8x4xf32>, memref<4xf32>) outs(%d : memref<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %y, %x : f32
    linalg.yield %s : f32
  }
  memref.dealloc %c : memref<8x4xf32>
  return
}

// -----

// A relu after the bias stays in the generic (cuBLASLt's relu epilogue
// makes 0 of NaN): a plain product, then the generic.
// CHECK-LABEL: func.func @bias_relu
//       CHECK:   call @lazyrt_cuda_matmul_f32(
//       CHECK:   linalg.generic
//       CHECK:     arith.maximumf
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @bias_relu(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %bias: memref<4xf32>, %c: memref<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<8x4xf32>, memref<4xf32>) outs(%c : memref<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The bias generic writing over A: the product may not write there while
// it reads A, so no epilogue.
// CHECK-LABEL: func.func @bias_into_an_input
//       CHECK:   call @lazyrt_cuda_matmul_f32(
//       CHECK:   linalg.generic
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @bias_into_an_input(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %bias: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<8x8xf32>, memref<8xf32>) outs(%a : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  memref.dealloc %c : memref<8x8xf32>
  return
}

// -----

// Left as loops: integers, mixed element types, an output with no unit
// stride.
// CHECK-LABEL: func.func @not_for_cublas
//   CHECK-NOT:   call
//       CHECK:   linalg.matmul ins(%{{.*}} : memref<8x16xi32>, memref<16x4xi32>)
//       CHECK:   linalg.matmul ins(%{{.*}} : memref<8x16xbf16>, memref<16x4xbf16>) outs(%{{.*}} : memref<8x4xf32>)
//       CHECK:   linalg.matmul ins(%{{.*}} : memref<8x16xf32>, memref<16x4xf32>) outs(%{{.*}} : memref<8x4xf32, strided<[8, 2]>>)
func.func @not_for_cublas(%ai: memref<8x16xi32>, %bi: memref<16x4xi32>, %ci: memref<8x4xi32>,
                          %ab: memref<8x16xbf16>, %bb: memref<16x4xbf16>, %cf: memref<8x4xf32>,
                          %a: memref<8x16xf32>, %b: memref<16x4xf32>, %wide: memref<8x8xf32>) {
  linalg.matmul ins(%ai, %bi : memref<8x16xi32>, memref<16x4xi32>) outs(%ci : memref<8x4xi32>)
  linalg.matmul ins(%ab, %bb : memref<8x16xbf16>, memref<16x4xbf16>) outs(%cf : memref<8x4xf32>)
  %every_other = memref.subview %wide[0, 0] [8, 4] [1, 2] : memref<8x8xf32> to memref<8x4xf32, strided<[8, 2]>>
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%every_other : memref<8x4xf32, strided<[8, 2]>>)
  return
}
