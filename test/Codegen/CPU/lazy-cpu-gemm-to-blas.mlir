// RUN: lazyc-opt %s -split-input-file --lazy-cpu-gemm-to-blas | FileCheck %s

// f32 and f64 matmuls on buffers become calls of the runtime's GEMM
// (C += A * B), which takes every operand as a rank-2 memref of any sizes,
// strides and offset, plus flags (1: A stored transposed, 2: B stored
// transposed, 4: overwrite C), and is called through its C interface;
// batched matmuls call it once per batch element. bf16 and f16 products
// into f32 call the narrow entry points. Other element types,
// tensors and other indexing maps stay linalg.

// A static f32 matmul: three casts to the fully dynamic strided type, one
// call, and a private declaration with llvm.emit_c_interface.
//       CHECK: func.func private @lazyrt_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32)
//  CHECK-SAME:   attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @matmul_f32
//  CHECK-SAME:   (%[[A:.*]]: memref<8x16xf32>, %[[B:.*]]: memref<16x4xf32>, %[[C:.*]]: memref<8x4xf32>)
//   CHECK-DAG:   %[[CA:.*]] = memref.cast %[[A]] : memref<8x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
//   CHECK-DAG:   %[[CB:.*]] = memref.cast %[[B]] : memref<16x4xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
//   CHECK-DAG:   %[[CC:.*]] = memref.cast %[[C]] : memref<8x4xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
//       CHECK:   call @lazyrt_matmul_f32(%[[CA]], %[[CB]], %[[CC]], %{{.*}})
//   CHECK-NOT:   linalg.matmul
//       CHECK:   return
func.func @matmul_f32(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c: memref<8x4xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  return
}

// -----

// f64 (here with dynamic sizes) calls the f64 entry point.
//       CHECK: func.func private @lazyrt_matmul_f64(memref<?x?xf64, strided<[?, ?], offset: ?>>, memref<?x?xf64, strided<[?, ?], offset: ?>>, memref<?x?xf64, strided<[?, ?], offset: ?>>, i32)
//  CHECK-SAME:   attributes {llvm.emit_c_interface}
//   CHECK-NOT: @lazyrt_matmul_f32
// CHECK-LABEL: func.func @matmul_f64
//  CHECK-SAME:   (%[[A:.*]]: memref<?x?xf64>, %[[B:.*]]: memref<?x?xf64>, %[[C:.*]]: memref<?x?xf64>)
//   CHECK-DAG:   %[[CA:.*]] = memref.cast %[[A]] : memref<?x?xf64> to memref<?x?xf64, strided<[?, ?], offset: ?>>
//   CHECK-DAG:   %[[CB:.*]] = memref.cast %[[B]] : memref<?x?xf64> to memref<?x?xf64, strided<[?, ?], offset: ?>>
//   CHECK-DAG:   %[[CC:.*]] = memref.cast %[[C]] : memref<?x?xf64> to memref<?x?xf64, strided<[?, ?], offset: ?>>
//       CHECK:   call @lazyrt_matmul_f64(%[[CA]], %[[CB]], %[[CC]], %{{.*}})
//   CHECK-NOT:   linalg.matmul
//       CHECK:   return
func.func @matmul_f64(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>) {
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>)
  return
}

// -----

// Operands that are already strided views (a row block of a larger matrix)
// are cast as they are; two matmuls share one declaration.
//       CHECK: func.func private @lazyrt_matmul_f32
//   CHECK-NOT: func.func private @lazyrt_matmul_f32
// CHECK-LABEL: func.func @strided_views
//  CHECK-SAME:   (%[[A:.*]]: memref<8x16xf32, strided<[32, 1], offset: ?>>, %{{.*}}: memref<16x4xf32>, %{{.*}}: memref<8x4xf32>, %{{.*}}: memref<8x4xf32>)
//       CHECK:   %[[CA:.*]] = memref.cast %[[A]] : memref<8x16xf32, strided<[32, 1], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
//       CHECK:   call @lazyrt_matmul_f32(%[[CA]], %{{.*}}, %{{.*}}, %{{.*}})
//       CHECK:   %[[CA2:.*]] = memref.cast %[[A]] : memref<8x16xf32, strided<[32, 1], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
//       CHECK:   call @lazyrt_matmul_f32(%[[CA2]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @strided_views(%a: memref<8x16xf32, strided<[32, 1], offset: ?>>, %b: memref<16x4xf32>, %c: memref<8x4xf32>, %d: memref<8x4xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32, strided<[32, 1], offset: ?>>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xf32, strided<[32, 1], offset: ?>>, memref<16x4xf32>) outs(%d : memref<8x4xf32>)
  return
}

// -----

// batch_matmul: an scf.for over the batch (the output's first dimension),
// each iteration taking rank-reducing subviews of the three operands.
// CHECK-LABEL: func.func @batch_matmul_f32
//  CHECK-SAME:   (%[[A:.*]]: memref<3x8x16xf32>, %[[B:.*]]: memref<3x16x4xf32>, %[[C:.*]]: memref<3x8x4xf32>)
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[N:.*]] = memref.dim %[[C]], %{{.*}} : memref<3x8x4xf32>
//       CHECK:   scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C1]] {
//       CHECK:     %[[SA:.*]] = memref.subview %[[A]][%[[I]], 0, 0] [1, 8, 16] [1, 1, 1] : memref<3x8x16xf32> to memref<8x16xf32, strided<[16, 1], offset: ?>>
//       CHECK:     %[[CA:.*]] = memref.cast %[[SA]] : memref<8x16xf32, strided<[16, 1], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
//       CHECK:     %[[SB:.*]] = memref.subview %[[B]][%[[I]], 0, 0] [1, 16, 4] [1, 1, 1] : memref<3x16x4xf32> to memref<16x4xf32, strided<[4, 1], offset: ?>>
//       CHECK:     %[[CB:.*]] = memref.cast %[[SB]]
//       CHECK:     %[[SC:.*]] = memref.subview %[[C]][%[[I]], 0, 0] [1, 8, 4] [1, 1, 1] : memref<3x8x4xf32> to memref<8x4xf32, strided<[4, 1], offset: ?>>
//       CHECK:     %[[CC:.*]] = memref.cast %[[SC]]
//       CHECK:     func.call @lazyrt_matmul_f32(%[[CA]], %[[CB]], %[[CC]], %{{.*}})
//       CHECK:   }
//   CHECK-NOT:   linalg.batch_matmul
//       CHECK:   return
func.func @batch_matmul_f32(%a: memref<3x8x16xf32>, %b: memref<3x16x4xf32>, %c: memref<3x8x4xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x8x16xf32>, memref<3x16x4xf32>) outs(%c : memref<3x8x4xf32>)
  return
}

// -----

// An i32 matmul stays a linalg.matmul, and nothing is declared.
//   CHECK-NOT: lazyrt_matmul
// CHECK-LABEL: func.func @matmul_i32
//       CHECK:   linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x16xi32>, memref<16x4xi32>) outs(%{{.*}} : memref<8x4xi32>)
//   CHECK-NOT:   call
//       CHECK:   return
func.func @matmul_i32(%a: memref<8x16xi32>, %b: memref<16x4xi32>, %c: memref<8x4xi32>) {
  linalg.matmul ins(%a, %b : memref<8x16xi32>, memref<16x4xi32>) outs(%c : memref<8x4xi32>)
  return
}

// -----

// Mixed element types (f32 operands accumulated into f64) stay.
//   CHECK-NOT: lazyrt_matmul
// CHECK-LABEL: func.func @matmul_mixed
//       CHECK:   linalg.matmul
//   CHECK-NOT:   call
func.func @matmul_mixed(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c: memref<8x4xf64>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf64>)
  return
}

// -----

// A matmul on tensors (not yet bufferized) stays.
//   CHECK-NOT: lazyrt_matmul
// CHECK-LABEL: func.func @matmul_tensor
//       CHECK:   linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x4xf32>)
//   CHECK-NOT:   call
func.func @matmul_tensor(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Transposed operands (user-defined maps: A read as (d2, d0), B as
// (d1, d2)) pass the stored buffers with flags 1 and 2; the flags of a plain
// product are 0.
// CHECK-LABEL: func.func @matmul_transposed
//       CHECK:   %[[F1:.*]] = arith.constant 1 : i32
//       CHECK:   call @lazyrt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[F1]])
//       CHECK:   %[[F3:.*]] = arith.constant 3 : i32
//       CHECK:   call @lazyrt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[F3]])
//       CHECK:   %[[F0:.*]] = arith.constant 0 : i32
//       CHECK:   call @lazyrt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[F0]])
//   CHECK-NOT:   linalg.matmul
func.func @matmul_transposed(%at: memref<16x8xf32>, %b: memref<16x4xf32>, %bt: memref<4x16xf32>, %a: memref<8x16xf32>, %c: memref<8x4xf32>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%at, %b : memref<16x8xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%at, %bt : memref<16x8xf32>, memref<4x16xf32>) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  return
}

// -----

// Other indexing maps (here C written transposed) stay linalg.
//   CHECK-NOT: lazyrt_matmul
// CHECK-LABEL: func.func @matmul_transposed_c
//       CHECK:   linalg.matmul indexing_maps =
//   CHECK-NOT:   call
func.func @matmul_transposed_c(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c: memref<4x8xf32>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d1, d0)>]
      ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// A zero fill of C right before the product (or separated from it only by
// ops without memory effects, here a view) is dropped: flag 4, C = A * B.
// A fill of another value stays (flags 0).
// CHECK-LABEL: func.func @fill_then_matmul
//   CHECK-NOT:   linalg.fill
//       CHECK:   %[[F4:.*]] = arith.constant 4 : i32
//       CHECK:   call @lazyrt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[F4]])
//       CHECK:   linalg.fill
//       CHECK:   %[[F0:.*]] = arith.constant 0 : i32
//       CHECK:   call @lazyrt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[F0]])
func.func @fill_then_matmul(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c: memref<8x4xf32>, %d: memref<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  %view = memref.subview %a[0, 0] [8, 16] [1, 1] : memref<8x16xf32> to memref<8x16xf32, strided<[16, 1]>>
  linalg.matmul ins(%view, %b : memref<8x16xf32, strided<[16, 1]>>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  linalg.fill ins(%one : f32) outs(%d : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%d : memref<8x4xf32>)
  return
}

// -----

// A batch_matmul reading A as (b, k, m) and B as (b, n, k): each batch
// element's call passes the stored matrices with flags 3.
// CHECK-LABEL: func.func @batch_matmul_transposed
//       CHECK:   %[[F3:.*]] = arith.constant 3 : i32
//       CHECK:   scf.for
//       CHECK:     memref.subview %{{.*}}[%{{.*}}, 0, 0] [1, 16, 8] [1, 1, 1] : memref<3x16x8xf32>
//       CHECK:     memref.subview %{{.*}}[%{{.*}}, 0, 0] [1, 4, 16] [1, 1, 1] : memref<3x4x16xf32>
//       CHECK:     call @lazyrt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[F3]])
//   CHECK-NOT:   linalg.batch_matmul
func.func @batch_matmul_transposed(%at: memref<3x16x8xf32>, %bt: memref<3x4x16xf32>, %c: memref<3x8x4xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%at, %bt : memref<3x16x8xf32>, memref<3x4x16xf32>) outs(%c : memref<3x8x4xf32>)
  return
}

// -----

// bf16 and f16 operands accumulated into f32 (what
// lazy-cpu-widen-narrow-products makes of a narrow product) call the
// narrow entry points, which take A and B narrow and C in f32.
//       CHECK: func.func private @lazyrt_matmul_f16_f32(memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32)
//  CHECK-SAME:   attributes {llvm.emit_c_interface}
//       CHECK: func.func private @lazyrt_matmul_bf16_f32(memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32)
//  CHECK-SAME:   attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @narrow_into_f32
//       CHECK:   call @lazyrt_matmul_bf16_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32) -> ()
//       CHECK:   call @lazyrt_matmul_f16_f32(
//   CHECK-NOT:   linalg.matmul
func.func @narrow_into_f32(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>, %c: memref<8x4xf32>,
                           %ha: memref<8x16xf16>, %hb: memref<16x4xf16>, %hc: memref<8x4xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%ha, %hb : memref<8x16xf16>, memref<16x4xf16>) outs(%hc : memref<8x4xf32>)
  return
}

// -----

// A bf16 product into bf16 (not widened) and mixed f16/bf16 operands have
// no entry point: they stay loops.
// CHECK-LABEL: func.func @narrow_not_widened
//   CHECK-NOT:   call
//       CHECK:   linalg.matmul
//       CHECK:   linalg.matmul
func.func @narrow_not_widened(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>, %c: memref<8x4xbf16>,
                              %h: memref<16x4xf16>, %d: memref<8x4xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>) outs(%c : memref<8x4xbf16>)
  linalg.matmul ins(%a, %h : memref<8x16xbf16>, memref<16x4xf16>) outs(%d : memref<8x4xf32>)
  return
}
