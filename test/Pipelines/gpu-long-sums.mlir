// Long sums on the GPU (lazy-block-reductions with a row kernel's lanes):
// a sum of everything, which lazy-gpu-parallel-loops-outermost would give
// to one thread walking all 2^24 elements, becomes 1024 rows of 16384 (a
// block of 1024 threads each), their 1024 partial sums 4 rows of 256, and
// those 4 one row; column sums over 2^22 rows, a thread per column walking
// every row, become a thread per column of each block of 64 rows, three
// levels deep. Every thread adds at most 64 terms in sequence.
//
// RUN: lazyc-opt %s --lazy-lower-to-linalg --lazy-gpu-fuse --lazy-gpu-bufferize \
// RUN:     --lazy-gpu-map | FileCheck %s

// CHECK-LABEL: func.func @sum_everything
//       CHECK:   %[[ROWS:.*]] = memref.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1024, 16384]
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c1024, {{.*}}) threads({{.*}}) in (%{{.*}} = %c1024,
//       CHECK:     scf.for %{{.*}} = %{{.*}} to %c16384 step %c1024
//       CHECK:       memref.load %[[ROWS]]
//       CHECK:     gpu.all_reduce add
//       CHECK:   memref.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [4, 256]
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c4, {{.*}}) threads({{.*}}) in (%{{.*}} = %c64,
//       CHECK:     gpu.all_reduce add
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, {{.*}}) threads({{.*}}) in (%{{.*}} = %c32,
//       CHECK:     scf.for %{{.*}} = %{{.*}} to %c4 step %c32
//       CHECK:     gpu.all_reduce add
func.func @sum_everything(%x: tensor<16777216xf32>) -> tensor<f32> {
  %s = lazy.reduce_sum %x [0] : tensor<16777216xf32>
  return %s : tensor<f32>
}

// CHECK-LABEL: func.func @column_sums
//       CHECK:   %[[BLOCKS:.*]] = memref.expand_shape %{{.*}} output_shape [65536, 64, 4]
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c1024, {{.*}}) threads({{.*}}) in (%{{.*}} = %c256,
//       CHECK:     scf.for %{{.*}} = %c0 to %c64 step %c1
//       CHECK:       memref.load %[[BLOCKS]]
//       CHECK:   memref.expand_shape %{{.*}} output_shape [1024, 64, 4]
//       CHECK:   memref.expand_shape %{{.*}} output_shape [16, 64, 4]
//       CHECK:   scf.for %{{.*}} = %c0 to %c16 step %c1
func.func @column_sums(%x: tensor<4194304x4xf32>) -> tensor<4xf32> {
  %s = lazy.reduce_sum %x [0] : tensor<4194304x4xf32>
  return %s : tensor<4xf32>
}
