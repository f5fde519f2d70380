// RUN: lazyc-opt %s -split-input-file --lazy-cpu-tile-and-vectorize="num-threads=2" \
// RUN:   | FileCheck %s

// A GEMM with two consumers is computed once: it is not fused into either
// consumer's thread tile (each would compute its own copy) but split over
// the threads as a root of its own; the consumers read its result.
// CHECK-LABEL: func.func @multi_use_gemm
//       CHECK:   %[[H:.*]] = scf.forall
//       CHECK:     linalg.matmul
//       CHECK:   scf.forall {{.*}} shared_outs
//   CHECK-NOT:     linalg.matmul
//       CHECK:     tensor.extract_slice %[[H]]
//       CHECK:   scf.forall {{.*}} shared_outs
//   CHECK-NOT:     linalg.matmul
//       CHECK:     tensor.extract_slice %[[H]]
//       CHECK:   return
func.func @multi_use_gemm(%x: tensor<512x256xf32>, %w: tensor<256x512xf32>, %b: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %h = linalg.matmul ins(%x, %w : tensor<512x256xf32>, tensor<256x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<512x512xf32>) outs(%e : tensor<512x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<512x512xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%e : tensor<512x512xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %m = arith.mulf %in, %in2 : f32
    linalg.yield %m : f32
  } -> tensor<512x512xf32>
  return %r, %s : tensor<512x512xf32>, tensor<512x512xf32>
}

// -----

// With one consumer, the GEMM is fused into its tile (an epilogue). The
// zero fill of its accumulator stays a linalg.fill (not vectorized), for
// lazy-cpu-gemm-to-blas to fold into the GEMM.
// CHECK-LABEL: func.func @single_use_gemm
//       CHECK:   scf.forall
//       CHECK:     linalg.fill
//  CHECK-NEXT:     linalg.matmul
//       CHECK:     vector.transfer_write
//   CHECK-NOT:   linalg.matmul
//       CHECK:   return
func.func @single_use_gemm(%x: tensor<512x256xf32>, %w: tensor<256x512xf32>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %h = linalg.matmul ins(%x, %w : tensor<512x256xf32>, tensor<256x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<512x512xf32>) outs(%e : tensor<512x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}

// -----

// A GEMM whose consumer is too small to split (128x10 outputs) is still
// split over the threads: its work is the product's, not the consumer's.
// CHECK-LABEL: func.func @gemm_feeding_small_consumer
//       CHECK:   scf.forall
//       CHECK:     linalg.matmul
//       CHECK:   scf.forall.in_parallel
//       CHECK:   return
func.func @gemm_feeding_small_consumer(%x: tensor<128x512xf32>, %w: tensor<512x10xf32>) -> tensor<128x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x10xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x10xf32>) -> tensor<128x10xf32>
  %h = linalg.matmul ins(%x, %w : tensor<128x512xf32>, tensor<512x10xf32>) outs(%c : tensor<128x10xf32>) -> tensor<128x10xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<128x10xf32>) outs(%e : tensor<128x10xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<128x10xf32>
  return %r : tensor<128x10xf32>
}

// -----

// So is a reduction whose consumers are separate roots (a max-pool feeding a
// convolution and its gradients): computed once, split over the threads,
// and read by both.
// CHECK-LABEL: func.func @multi_root_reduction
//       CHECK:   %[[SUMS:.*]] = scf.forall
//       CHECK:     arith.addf
//       CHECK:   scf.forall {{.*}} shared_outs
//   CHECK-NOT:     vector.multi_reduction
//       CHECK:     tensor.extract_slice %[[SUMS]]
//       CHECK:     arith.mulf
//       CHECK:   scf.forall {{.*}} shared_outs
//   CHECK-NOT:     vector.multi_reduction
//       CHECK:     tensor.extract_slice %[[SUMS]]
//       CHECK:     arith.subf
//       CHECK:   return
func.func @multi_root_reduction(%x: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<512x512xf32>) outs(%z : tensor<512xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<512xf32>
  %e2 = tensor.empty() : tensor<512x512xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %r : tensor<512x512xf32>, tensor<512xf32>) outs(%e2 : tensor<512x512xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %m = arith.mulf %in, %in2 : f32
    linalg.yield %m : f32
  } -> tensor<512x512xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %r : tensor<512x512xf32>, tensor<512xf32>) outs(%e2 : tensor<512x512xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %m = arith.subf %in, %in2 : f32
    linalg.yield %m : f32
  } -> tensor<512x512xf32>
  return %a, %b : tensor<512x512xf32>, tensor<512x512xf32>
}

// -----

// A GEMM operand that other ops read too (a recurrent weight's transpose,
// read by every step's product) is computed once, as a root of its own,
// not copied again inside each product's thread tile.
// CHECK-LABEL: func.func @shared_gemm_operand
//       CHECK:   %[[WT:.*]] = scf.forall
//       CHECK:     vector.transfer_read {{.*}}permutation_map
//       CHECK:   scf.forall
//   CHECK-NOT:     vector.transfer_read
//       CHECK:     tensor.extract_slice %[[WT]]
//   CHECK-NOT:     vector.transfer_read
//       CHECK:     linalg.matmul
//       CHECK:   scf.forall
//   CHECK-NOT:     vector.transfer_read
//       CHECK:     tensor.extract_slice %[[WT]]
//   CHECK-NOT:     vector.transfer_read
//       CHECK:     linalg.matmul
//       CHECK:   return
func.func @shared_gemm_operand(%h: tensor<16x128xf32>, %g: tensor<16x128xf32>, %w: tensor<512x128xf32>) -> (tensor<16x512xf32>, tensor<16x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<128x512xf32>
  %wt = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<512x128xf32>) outs(%et : tensor<128x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<128x512xf32>
  %e = tensor.empty() : tensor<16x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x512xf32>) -> tensor<16x512xf32>
  %p1 = linalg.matmul ins(%h, %wt : tensor<16x128xf32>, tensor<128x512xf32>) outs(%c : tensor<16x512xf32>) -> tensor<16x512xf32>
  %p2 = linalg.matmul ins(%g, %wt : tensor<16x128xf32>, tensor<128x512xf32>) outs(%c : tensor<16x512xf32>) -> tensor<16x512xf32>
  return %p1, %p2 : tensor<16x512xf32>, tensor<16x512xf32>
}
