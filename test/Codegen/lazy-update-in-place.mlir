// RUN: lazyc-opt %s -split-input-file --lazy-update-in-place | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-materialize-tied-results | FileCheck %s --check-prefix=MATERIALIZE
// RUN: lazyc-opt %s -split-input-file --lazy-skip-self-copies | FileCheck %s --check-prefix=SKIP

// The update w - lr * g writes into w, reads the old w through its output,
// and moves after the other reader of w.
// CHECK-LABEL: func.func @update_written_over_argument
//  CHECK-SAME:     (%[[W:.*]]: tensor<64xf32>, %[[G:.*]]: tensor<64xf32>)
//       CHECK:   %[[LATER:.*]] = linalg.generic
//  CHECK-SAME:     ins(%[[W]] : tensor<64xf32>)
//       CHECK:   %[[NEW:.*]] = linalg.generic
//  CHECK-SAME:     ins(%[[G]] : tensor<64xf32>) outs(%[[W]] : tensor<64xf32>)
//       CHECK:   ^bb0(%[[GI:.*]]: f32, %[[OLD:.*]]: f32):
//       CHECK:     %[[STEP:.*]] = arith.mulf %[[GI]]
//       CHECK:     arith.subf %[[OLD]], %[[STEP]]
//       CHECK:   return %[[NEW]], %[[LATER]]
#id = affine_map<(d0) -> (d0)>
func.func @update_written_over_argument(%w: tensor<64xf32>, %g: tensor<64xf32>) -> (tensor<64xf32> {lazy.tied_argument = 0 : i64}, tensor<64xf32>) {
  %lr = arith.constant 0.01 : f32
  %e = tensor.empty() : tensor<64xf32>
  %new = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%w, %g : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%wi: f32, %gi: f32, %o: f32):
    %s = arith.mulf %gi, %lr : f32
    %r = arith.subf %wi, %s : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %later = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%w : tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%wi: f32, %o: f32):
    %r = arith.mulf %wi, %wi : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %new, %later : tensor<64xf32>, tensor<64xf32>
}

// -----

// The new value is read before the last read of the old one: the update
// stays where it is and writes into a tensor of its own (bufferization then
// computes it aside; lazy-materialize-tied-results copies it over w).
// CHECK-LABEL: func.func @update_used_before_a_later_reader
//  CHECK-SAME:     (%[[W:.*]]: tensor<64xf32>)
//       CHECK:   %[[EMPTY:.*]] = tensor.empty()
//       CHECK:   %[[NEW:.*]] = linalg.generic
//  CHECK-SAME:     ins(%[[W]] : tensor<64xf32>) outs(%[[EMPTY]] : tensor<64xf32>)
//       CHECK:   %[[LATER:.*]] = linalg.generic
//  CHECK-SAME:     ins(%[[W]], %[[NEW]] : tensor<64xf32>, tensor<64xf32>)
//       CHECK:   return %[[NEW]], %[[LATER]]
#id = affine_map<(d0) -> (d0)>
func.func @update_used_before_a_later_reader(%w: tensor<64xf32>) -> (tensor<64xf32> {lazy.tied_argument = 0 : i64}, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %new = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%w : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%wi: f32, %o: f32):
    %r = arith.addf %wi, %wi : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %later = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%w, %new : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%wi: f32, %ni: f32, %o: f32):
    %r = arith.mulf %wi, %ni : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %new, %later : tensor<64xf32>, tensor<64xf32>
}

// -----

// Element (i, j) of the result reads element (j, i) of the argument: writing
// over it would clobber values still to be read.
// CHECK-LABEL: func.func @update_reading_a_transpose
//  CHECK-SAME:     (%[[W:.*]]: tensor<8x8xf32>)
//       CHECK:   %[[EMPTY:.*]] = tensor.empty()
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%[[W]] : tensor<8x8xf32>) outs(%[[EMPTY]] : tensor<8x8xf32>)
#tr = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @update_reading_a_transpose(%w: tensor<8x8xf32>) -> (tensor<8x8xf32> {lazy.tied_argument = 0 : i64}) {
  %e = tensor.empty() : tensor<8x8xf32>
  %new = linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%wi: f32, %o: f32):
    linalg.yield %wi : f32
  } -> tensor<8x8xf32>
  return %new : tensor<8x8xf32>
}

// -----

// After tiling: the loop writing b comes before a loop that reads b (a
// producer tile-and-fuse pulled into it); the pass runs again and moves the
// update after it.
// CHECK-LABEL: func.func @tiled_update_moves_after_a_fused_reader
//  CHECK-SAME:     (%[[B:.*]]: tensor<64xf32>, %[[G:.*]]: tensor<64xf32>)
//       CHECK:   %[[READER:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %{{.*}}) -> (tensor<64xf32>)
//       CHECK:     tensor.extract_slice %[[B]]
//       CHECK:   %[[UPDATE:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[B]]) -> (tensor<64xf32>)
//       CHECK:   return %[[UPDATE]], %[[READER]]
func.func @tiled_update_moves_after_a_fused_reader(%b: tensor<64xf32>, %g: tensor<64xf32>) -> (tensor<64xf32> {lazy.tied_argument = 0 : i64}, tensor<64xf32>) {
  %update = scf.forall (%i) = (0) to (64) step (32) shared_outs(%out = %b) -> (tensor<64xf32>) {
    %gs = tensor.extract_slice %g[%i] [32] [1] : tensor<64xf32> to tensor<32xf32>
    %os = tensor.extract_slice %out[%i] [32] [1] : tensor<64xf32> to tensor<32xf32>
    %r = linalg.sub ins(%os, %gs : tensor<32xf32>, tensor<32xf32>) outs(%os : tensor<32xf32>) -> tensor<32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %out[%i] [32] [1] : tensor<32xf32> into tensor<64xf32>
    }
  }
  %e = tensor.empty() : tensor<64xf32>
  %reader = scf.forall (%i) = (0) to (64) step (32) shared_outs(%out = %e) -> (tensor<64xf32>) {
    %bs = tensor.extract_slice %b[%i] [32] [1] : tensor<64xf32> to tensor<32xf32>
    %os = tensor.extract_slice %out[%i] [32] [1] : tensor<64xf32> to tensor<32xf32>
    %r = linalg.mul ins(%bs, %bs : tensor<32xf32>, tensor<32xf32>) outs(%os : tensor<32xf32>) -> tensor<32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %out[%i] [32] [1] : tensor<32xf32> into tensor<64xf32>
    }
  }
  return %update, %reader : tensor<64xf32>, tensor<64xf32>
}

// -----

// On buffers: a tied result computed aside is copied over its argument just
// before the return, and the argument is returned; one computed in place is
// left alone.
// MATERIALIZE-LABEL: func.func @tied_results_on_buffers
//  MATERIALIZE-SAME:     (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>)
//       MATERIALIZE:   %[[ASIDE:.*]] = memref.alloc()
//       MATERIALIZE:   memref.copy %[[ASIDE]], %[[A]]
//  MATERIALIZE-NEXT:   return %[[A]], %[[B]]
func.func @tied_results_on_buffers(%a: memref<4xf32>, %b: memref<4xf32>) -> (memref<4xf32> {lazy.tied_argument = 0 : i64}, memref<4xf32> {lazy.tied_argument = 1 : i64}) {
  %aside = memref.alloc() : memref<4xf32>
  linalg.add ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%aside : memref<4xf32>)
  linalg.add ins(%b, %b : memref<4xf32>, memref<4xf32>) outs(%b : memref<4xf32>)
  return %aside, %b : memref<4xf32>, memref<4xf32>
}

// -----

// The old value is also returned (itself and through a view): it is copied
// out before the tied result is copied over it.
// MATERIALIZE-LABEL: func.func @old_value_also_returned
//  MATERIALIZE-SAME:     (%[[W:.*]]: memref<4xf32>)
//       MATERIALIZE:   %[[NEW:.*]] = memref.alloc() : memref<4xf32>
//       MATERIALIZE:   %[[VIEW:.*]] = memref.expand_shape %[[W]]
//       MATERIALIZE:   %[[OLD:.*]] = memref.alloc() : memref<4xf32>
//  MATERIALIZE-NEXT:   memref.copy %[[W]], %[[OLD]]
//  MATERIALIZE-NEXT:   %[[OLDVIEW:.*]] = memref.alloc() : memref<2x2xf32>
//  MATERIALIZE-NEXT:   memref.copy %[[VIEW]], %[[OLDVIEW]]
//  MATERIALIZE-NEXT:   memref.copy %[[NEW]], %[[W]]
//  MATERIALIZE-NEXT:   return %[[W]], %[[OLD]], %[[OLDVIEW]]
func.func @old_value_also_returned(%w: memref<4xf32>) -> (memref<4xf32> {lazy.tied_argument = 0 : i64}, memref<4xf32>, memref<2x2xf32>) {
  %new = memref.alloc() : memref<4xf32>
  linalg.add ins(%w, %w : memref<4xf32>, memref<4xf32>) outs(%new : memref<4xf32>)
  %view = memref.expand_shape %w [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  return %new, %w, %view : memref<4xf32>, memref<4xf32>, memref<2x2xf32>
}

// -----

// A copy from a parameter to a parameter (a tied result to its
// out-parameter, which the engine makes the same buffer) runs only if their
// pointers differ; other copies stay as they are.
// SKIP-LABEL: func.func @copies_between_parameters
//  SKIP-SAME:     (%[[A:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>, %[[OUT2:.*]]: memref<4xf32>)
//       SKIP:   %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
//       SKIP:   %[[PO:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
//       SKIP:   %[[DIFFER:.*]] = arith.cmpi ne, %[[PA]], %[[PO]]
//       SKIP:   scf.if %[[DIFFER]] {
//  SKIP-NEXT:     memref.copy %[[A]], %[[OUT]]
//  SKIP-NEXT:   }
//       SKIP:   memref.copy %{{.*}}, %[[OUT2]]
//  SKIP-NEXT:   return
func.func @copies_between_parameters(%a: memref<4xf32>, %out: memref<4xf32>, %out2: memref<4xf32>) {
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  %local = memref.alloca() : memref<4xf32>
  memref.copy %local, %out2 : memref<4xf32> to memref<4xf32>
  return
}
