// RUN: lazyc-opt %s -split-input-file --lazy-decompose --convert-lazy-to-linalg --lazy-fuse-elementwise --lazy-block-reductions | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-decompose --convert-lazy-to-linalg --lazy-fuse-elementwise --lazy-block-reductions="lanes=256 lanes-in-rows-only=true" | FileCheck %s --check-prefix=GPU
// RUN: not lazyc-opt %s -split-input-file --lazy-block-reductions="lanes=0" 2>&1 | FileCheck %s --check-prefix=BAD

// A sum of 2^24 squares: rows of 4096 (64 lanes, 64 terms deep), whose
// 4096 partial sums a second reduction folds into the result. The square is
// computed inside the blocks.
// CHECK-LABEL: func.func @sum_everything
//  CHECK-SAME:   (%[[X:.*]]: tensor<16777216xf32>)
//       CHECK:   %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<f32>
//       CHECK:   %[[PARTIALS:.*]] = linalg.fill {{.*}} -> tensor<4096xf32>
//       CHECK:   %[[ROWS:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1]] output_shape [4096, 4096]
//       CHECK:   %[[BLOCKS:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "reduction"]
//  CHECK-SAME:     ins(%[[ROWS]] : tensor<4096x4096xf32>) outs(%[[PARTIALS]] : tensor<4096xf32>)
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
//       CHECK:   %[[SUM:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["reduction"]
//  CHECK-SAME:     ins(%[[BLOCKS]] : tensor<4096xf32>) outs(%[[ZERO]] : tensor<f32>)
//       CHECK:   return %[[SUM]]
// GPU-LABEL: func.func @sum_everything
//       GPU:   tensor.expand_shape {{.*}} output_shape [1024, 16384]
//       GPU:   tensor.expand_shape {{.*}} output_shape [4, 256]
func.func @sum_everything(%x: tensor<16777216xf32>) -> tensor<f32> {
  %sq = lazy.mul %x, %x : tensor<16777216xf32>
  %s = lazy.reduce_sum %sq [0] : tensor<16777216xf32>
  return %s : tensor<f32>
}

// -----

// Column sums over 2^22 rows: blocks of 64 rows, three levels deep, then
// the last 16 partial rows folded into the result.
// CHECK-LABEL: func.func @column_sums
//       CHECK:   tensor.expand_shape {{.*}} output_shape [65536, 64, 4]
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "reduction", "parallel"]
//  CHECK-SAME:     outs(%{{.*}} : tensor<65536x4xf32>)
//       CHECK:   tensor.expand_shape {{.*}} output_shape [1024, 64, 4]
//       CHECK:   tensor.expand_shape {{.*}} output_shape [16, 64, 4]
//       CHECK:   linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
//  CHECK-SAME:     ins({{.*}} : tensor<16x4xf32>)
//   CHECK-NOT:   tensor.expand_shape
func.func @column_sums(%x: tensor<4194304x4xf32>) -> tensor<4xf32> {
  %s = lazy.reduce_sum %x [0] : tensor<4194304x4xf32>
  return %s : tensor<4xf32>
}

// -----

// A sum of everything of [n, 4]: one row of 4n terms, not n columns of 4.
// CHECK-LABEL: func.func @sum_of_rows_of_four
//       CHECK:   tensor.collapse_shape {{.*}} {{\[}}[0, 1]] : tensor<1048576x4xf32> into tensor<4194304xf32>
//       CHECK:   tensor.expand_shape {{.*}} output_shape [1024, 4096]
func.func @sum_of_rows_of_four(%x: tensor<1048576x4xf32>) -> tensor<f32> {
  %s = lazy.reduce_sum %x [0, 1] : tensor<1048576x4xf32>
  return %s : tensor<f32>
}

// -----

// A prime row length: 244 blocks of 4096 over the first 999,424 terms; the
// 579 left are blocks of 64 and 3 terms, summed into the result first.
// CHECK-LABEL: func.func @prime_rows
//       CHECK:   %[[INIT:.*]] = linalg.fill {{.*}} -> tensor<3xf32>
//       CHECK:   %[[WHOLE:.*]] = tensor.extract_slice %{{.*}}[0, 0] [3, 999424] [1, 1]
//       CHECK:   tensor.expand_shape %[[WHOLE]] {{.*}} output_shape [3, 244, 4096]
//       CHECK:   %[[BIG:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3x244xf32>)
//       CHECK:   %[[REST:.*]] = tensor.extract_slice %{{.*}}[0, 999424] [3, 579] [1, 1]
//       CHECK:   tensor.extract_slice %[[REST]][0, 0] [3, 576] [1, 1]
//       CHECK:   %[[SMALL:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3x9xf32>)
//       CHECK:   %[[LAST:.*]] = tensor.extract_slice %[[REST]][0, 576] [3, 3] [1, 1]
//       CHECK:   %[[TAIL:.*]] = linalg.generic {{.*}} ins(%[[LAST]] : tensor<3x3xf32>) outs(%[[INIT]] : tensor<3xf32>)
//       CHECK:   %[[WITH_SMALL:.*]] = linalg.generic {{.*}} ins(%[[SMALL]] : tensor<3x9xf32>) outs(%[[TAIL]] : tensor<3xf32>)
//       CHECK:   %[[ALL:.*]] = linalg.generic {{.*}} ins(%[[BIG]] : tensor<3x244xf32>) outs(%[[WITH_SMALL]] : tensor<3xf32>)
//       CHECK:   return %[[ALL]]
func.func @prime_rows(%x: tensor<3x1000003xf32>) -> tensor<3xf32> {
  %s = lazy.reduce_sum %x [1] : tensor<3x1000003xf32>
  return %s : tensor<3xf32>
}

// -----

// A length known only at run time: an f64 accumulator, rounded once.
// CHECK-LABEL: func.func @dynamic_length
//       CHECK:   %[[INIT:.*]] = linalg.fill {{.*}} -> tensor<4xf32>
//       CHECK:   %[[WIDE:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["reduction", "parallel"]
//  CHECK-SAME:     outs(%{{.*}} : tensor<4xf64>)
//       CHECK:     arith.extf %{{.*}} : f32 to f64
//       CHECK:     arith.addf %{{.*}} : f64
//       CHECK:   linalg.generic {{.*}} ins(%[[WIDE]] : tensor<4xf64>) outs(%[[INIT]] : tensor<4xf32>)
//       CHECK:     arith.truncf %{{.*}} : f64 to f32
//   CHECK-NOT:   tensor.expand_shape
func.func @dynamic_length(%x: tensor<?x4xf32>) -> tensor<4xf32> {
  %s = lazy.reduce_sum %x [0] : tensor<?x4xf32>
  return %s : tensor<4xf32>
}

// -----

// bf16 terms add up in f32, in blocks, and round once.
// CHECK-LABEL: func.func @bf16
//       CHECK:   tensor.expand_shape {{.*}} output_shape [16, 4096] : tensor<65536xbf16>
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<16xf32>)
//       CHECK:     arith.extf %{{.*}} : bf16 to f32
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<f32>)
//       CHECK:     arith.truncf %{{.*}} : f32 to bf16
func.func @bf16(%x: tensor<65536xbf16>) -> tensor<bf16> {
  %s = lazy.reduce_sum %x [0] : tensor<65536xbf16>
  return %s : tensor<bf16>
}

// -----

// Short rows (a softmax over 1024: 16 terms a lane) and maxima (exact in
// any order) stay as they are.
// CHECK-LABEL: func.func @short_and_exact
//   CHECK-NOT:   tensor.expand_shape
//   CHECK-NOT:   tensor.extract_slice
//       CHECK:   return
func.func @short_and_exact(%x: tensor<64x1024xf32>, %y: tensor<16777216xf32>) -> (tensor<64x1024xf32>, tensor<f32>) {
  %s = lazy.softmax %x, axis = 1 : tensor<64x1024xf32>
  %m = lazy.reduce_max %y [0] : tensor<16777216xf32>
  return %s, %m : tensor<64x1024xf32>, tensor<f32>
}

// -----

// A log-softmax of rows of 2^20: the sum of exponentials reads the row's
// maximum (a map that keeps only the row), and is cut like any row.
// CHECK-LABEL: func.func @long_log_softmax
//       CHECK:   tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [2, 256, 4096]
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "reduction"]
//  CHECK-SAME:     ins(%{{.*}}, %{{.*}} : tensor<2x256x4096xf32>, tensor<2xf32>)
//       CHECK:     math.exp
//       CHECK:   linalg.generic {{.*}} ins(%{{.*}} : tensor<2x256xf32>)
//       CHECK:   math.log
func.func @long_log_softmax(%x: tensor<2x1048576xf32>) -> tensor<2x1048576xf32> {
  %0 = lazy.log_softmax %x, axis = 1 : tensor<2x1048576xf32>
  return %0 : tensor<2x1048576xf32>
}

// -----

// The element index a body reads is the block's start plus the offset in
// it, and past the last whole block, the offset of the rest plus 999424
// (an affine.apply; ReductionAccuracyTest checks the values).
// CHECK-LABEL: func.func @reads_its_index
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "reduction"]
//       CHECK:     %[[BLOCK:.*]] = linalg.index 0
//       CHECK:     %[[OFFSET:.*]] = linalg.index 1
//       CHECK:     %[[START:.*]] = arith.muli %[[BLOCK]], %c4096
//       CHECK:     arith.addi %[[START]], %[[OFFSET]]
//       CHECK:   tensor.extract_slice %{{.*}}[999424] [579] [1]
//       CHECK:   linalg.generic
//       CHECK:     linalg.index 1
//       CHECK:     affine.apply #{{.*}}()[%{{.*}}]
#identity = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @reads_its_index(%x: tensor<1000003xf32>, %init: tensor<f32>) -> tensor<f32> {
  %s = linalg.generic {indexing_maps = [#identity, #scalar], iterator_types = ["reduction"]}
      ins(%x : tensor<1000003xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %int = arith.index_cast %i : index to i64
    %f = arith.sitofp %int : i64 to f32
    %t = arith.mulf %in, %f : f32
    %r = arith.addf %out, %t : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// An accumulator that does not start at zero keeps its start: the wide sum
// is added to it before the rounding.
// CHECK-LABEL: func.func @keeps_its_start
//  CHECK-SAME:   (%{{.*}}: tensor<?xf32>, %[[INIT:.*]]: tensor<f32>)
//       CHECK:   linalg.generic {{.*}} outs(%[[INIT]] : tensor<f32>)
//       CHECK:   ^bb0(%[[SUM:.*]]: f64, %[[START:.*]]: f32):
//       CHECK:     %[[WIDE:.*]] = arith.extf %[[START]] : f32 to f64
//       CHECK:     %[[TOTAL:.*]] = arith.addf %[[SUM]], %[[WIDE]] : f64
//       CHECK:     arith.truncf %[[TOTAL]] : f64 to f32
#identity = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @keeps_its_start(%x: tensor<?xf32>, %init: tensor<f32>) -> tensor<f32> {
  %s = linalg.generic {indexing_maps = [#identity, #scalar], iterator_types = ["reduction"]}
      ins(%x : tensor<?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// BAD: lanes must be at least 1 and max-sequential at least 2, not 0 and 64
func.func @options() {
  return
}
