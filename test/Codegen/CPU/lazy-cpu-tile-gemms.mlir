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
// (The transpose moves through registers in 16 x 16 squares: shuffles.)
// CHECK-LABEL: func.func @shared_gemm_operand
//       CHECK:   %[[WT:.*]] = scf.forall
//       CHECK:     vector.shuffle
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

// -----

// A product in a loop body reads an operand computed before the loop (a
// recurrent weight's transpose): the operand is not fused into the
// product's thread tile, where it would be computed again in every
// iteration. It is computed once, before the loop.
// CHECK-LABEL: func.func @operand_from_outside_the_loop
//       CHECK:   %[[WT:.*]] = scf.forall
//       CHECK:     vector.shuffle
//       CHECK:   scf.while
//   CHECK-NOT:     vector.shuffle
//       CHECK:     tensor.extract_slice %[[WT]]
//       CHECK:     linalg.matmul
//       CHECK:   return
func.func @operand_from_outside_the_loop(%h: tensor<16x128xf32>, %w: tensor<512x128xf32>, %n: i64) -> tensor<16x512xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %et = tensor.empty() : tensor<128x512xf32>
  %wt = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<512x128xf32>) outs(%et : tensor<128x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<128x512xf32>
  %e = tensor.empty() : tensor<16x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x512xf32>) -> tensor<16x512xf32>
  %r:2 = scf.while (%i = %c0, %acc = %c) : (i64, tensor<16x512xf32>) -> (i64, tensor<16x512xf32>) {
    %more = arith.cmpi slt, %i, %n : i64
    scf.condition(%more) %i, %acc : i64, tensor<16x512xf32>
  } do {
  ^bb0(%i: i64, %acc: tensor<16x512xf32>):
    %p = linalg.matmul ins(%h, %wt : tensor<16x128xf32>, tensor<128x512xf32>) outs(%c : tensor<16x512xf32>) -> tensor<16x512xf32>
    %next = arith.addi %i, %c1 : i64
    scf.yield %next, %p : i64, tensor<16x512xf32>
  }
  return %r#1 : tensor<16x512xf32>
}

// -----

// An LSTM step: the gates ([16, 128], fewer iterations than are worth a
// parallel region on their own) read four column slices of the step's
// product. Counting the product they alone read, they are split over the
// threads, by columns as the product would be, with the product fused in
// once per slice: one parallel region per step, no serial epilogue.
// CHECK-LABEL: func.func @gates_of_a_small_product
//  CHECK-SAME:   (%[[H:.*]]: tensor<16x128xf32>, %[[WT:.*]]: tensor<128x512xf32>
//   CHECK-NOT:   linalg.matmul
//       CHECK:   scf.forall (%[[J:.*]]) = (0) to (128) step (64)
//       CHECK:     tensor.extract_slice %[[WT]][0, %[[J]]] [128, 64]
//       CHECK:     linalg.matmul
//       CHECK:     linalg.matmul
//       CHECK:     linalg.matmul
//       CHECK:     linalg.matmul
//   CHECK-NOT:     linalg.matmul
//       CHECK:     math.tanh
//       CHECK:   return
func.func @gates_of_a_small_product(%h: tensor<16x128xf32>, %wt: tensor<128x512xf32>, %c: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<16x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x512xf32>) -> tensor<16x512xf32>
  %p = linalg.matmul ins(%h, %wt : tensor<16x128xf32>, tensor<128x512xf32>) outs(%f : tensor<16x512xf32>) -> tensor<16x512xf32>
  %i = tensor.extract_slice %p[0, 0] [16, 128] [1, 1] : tensor<16x512xf32> to tensor<16x128xf32>
  %o = tensor.extract_slice %p[0, 128] [16, 128] [1, 1] : tensor<16x512xf32> to tensor<16x128xf32>
  %g = tensor.extract_slice %p[0, 256] [16, 128] [1, 1] : tensor<16x512xf32> to tensor<16x128xf32>
  %k = tensor.extract_slice %p[0, 384] [16, 128] [1, 1] : tensor<16x512xf32> to tensor<16x128xf32>
  %eh = tensor.empty() : tensor<16x128xf32>
  %next = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%i, %o, %g, %k, %c : tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x128xf32>) outs(%eh : tensor<16x128xf32>) {
  ^bb0(%vi: f32, %vo: f32, %vg: f32, %vk: f32, %vc: f32, %out: f32):
    %ti = math.tanh %vi : f32
    %to = math.tanh %vo : f32
    %tg = math.tanh %vg : f32
    %c1 = arith.mulf %tg, %vc : f32
    %c2 = arith.mulf %ti, %vk : f32
    %cn = arith.addf %c1, %c2 : f32
    %tc = math.tanh %cn : f32
    %hn = arith.mulf %to, %tc : f32
    linalg.yield %hn : f32
  } -> tensor<16x128xf32>
  return %next : tensor<16x128xf32>
}

// -----

// A bias added to a GEMM that nothing else reads is computed over the
// GEMM's tile: the tile is the epilogue's init, whose element the body
// reads (bufferized: the GEMM writes into the result's buffer, the bias is
// added in place). A GEMM that a second op reads keeps a buffer of its own:
// its epilogue reads it as an input and writes a new tile.
// CHECK-LABEL: func.func @epilogue_over_product
//       CHECK:   scf.forall
//       CHECK:     %[[P:.*]] = linalg.matmul
//       CHECK:     scf.for {{.*}} iter_args(%{{.*}} = %[[P]])
//       CHECK:       vector.transfer_read
//       CHECK:       arith.addf
//       CHECK:       arith.maximumf
//       CHECK:   %[[Q:.*]] = scf.forall
//       CHECK:     linalg.matmul
//       CHECK:   scf.forall
//       CHECK:     tensor.extract_slice %[[Q]]
//       CHECK:     arith.addf
//       CHECK:   return
func.func @epilogue_over_product(%x: tensor<256x64xf32>, %w: tensor<64x256xf32>, %b: tensor<256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %p = linalg.matmul ins(%x, %w : tensor<256x64xf32>, tensor<64x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %b : tensor<256x256xf32>, tensor<256xf32>) outs(%e : tensor<256x256xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<256x256xf32>
  %e2 = tensor.empty() : tensor<256x256xf32>
  %c2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %q = linalg.matmul ins(%x, %w : tensor<256x64xf32>, tensor<64x256xf32>) outs(%c2 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%q, %b : tensor<256x256xf32>, tensor<256xf32>) outs(%e2 : tensor<256x256xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %t = arith.addf %in, %bias : f32
    linalg.yield %t : f32
  } -> tensor<256x256xf32>
  return %r, %s, %q : tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>
}
