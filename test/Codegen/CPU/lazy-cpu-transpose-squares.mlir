// RUN: lazyc-opt %s -split-input-file --lazy-cpu-tile-and-vectorize="num-threads=1" \
// RUN:   | FileCheck %s

// A transpose whose swapped dimensions are static multiples of 16, of
// 32-bit values, is tiled in 16 x 16 squares: each square is read as 16
// rows and transposed in registers (four rounds of 16 shuffles), then
// written as 16 rows. No read gathers its vector through a permutation.
// CHECK-LABEL: func.func @square_tiles
//       CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[S1:.*]] iter_args
//       CHECK:     scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[S2:.*]] iter_args
//       CHECK:       vector.transfer_read {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
//   CHECK-NOT:       permutation_map
//  CHECK-COUNT-64:   vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
//   CHECK-NOT:       vector.shuffle
//       CHECK:       vector.transfer_write {{.*}} : vector<16x16xf32>, tensor<16x16xf32>
func.func @square_tiles(%w: tensor<512x128xf32>) -> tensor<128x512xf32> {
  %e = tensor.empty() : tensor<128x512xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<512x128xf32>) outs(%e : tensor<128x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<128x512xf32>
  return %t : tensor<128x512xf32>
}

// -----

// Fused with other inputs (a bias row, a value read in order), in rank 3
// with the squares in the two inner dimensions: the same squares, the other
// inputs read as 16 x 16 tiles as they are.
// CHECK-LABEL: func.func @square_tiles_fused
//       CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[ONE:.*]] iter_args
//       CHECK:     scf.for
//       CHECK:       scf.for
//       CHECK:         vector.transfer_read {{.*}} : tensor<1x16x16xf32>, vector<1x16x16xf32>
//  CHECK-COUNT-64:     vector.shuffle
//       CHECK:         arith.addf {{.*}} : vector<1x16x16xf32>
//       CHECK:         arith.mulf {{.*}} : vector<1x16x16xf32>
func.func @square_tiles_fused(%x: tensor<3x32x48xf32>, %y: tensor<3x48x32xf32>, %b: tensor<32xf32>) -> tensor<3x48x32xf32> {
  %e = tensor.empty() : tensor<3x48x32xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %y, %b : tensor<3x32x48xf32>, tensor<3x48x32xf32>, tensor<32xf32>) outs(%e : tensor<3x48x32xf32>) {
  ^bb0(%in: f32, %iny: f32, %inb: f32, %out: f32):
    %s = arith.addf %in, %inb : f32
    %m = arith.mulf %s, %iny : f32
    linalg.yield %m : f32
  } -> tensor<3x48x32xf32>
  return %t : tensor<3x48x32xf32>
}

// -----

// Transposes that keep row tiles: a dimension that is not a multiple of 16,
// 64-bit values, and a dynamic dimension.
// CHECK-LABEL: func.func @row_tiles
//   CHECK-NOT:   vector.shuffle
//       CHECK:   permutation_map
//   CHECK-NOT:   vector.shuffle
//       CHECK:   permutation_map
//   CHECK-NOT:   vector.shuffle
//       CHECK:   return
func.func @row_tiles(%a: tensor<100x64xf32>, %d: tensor<64x64xf64>, %n: tensor<?x64xf32>) -> (tensor<64x100xf32>, tensor<64x64xf64>, tensor<64x?xf32>) {
  %c0 = arith.constant 0 : index
  %e0 = tensor.empty() : tensor<64x100xf32>
  %t0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<100x64xf32>) outs(%e0 : tensor<64x100xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x100xf32>
  %e1 = tensor.empty() : tensor<64x64xf64>
  %t1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<64x64xf64>) outs(%e1 : tensor<64x64xf64>) {
  ^bb0(%in: f64, %out: f64):
    linalg.yield %in : f64
  } -> tensor<64x64xf64>
  %rows = tensor.dim %n, %c0 : tensor<?x64xf32>
  %e2 = tensor.empty(%rows) : tensor<64x?xf32>
  %t2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%n : tensor<?x64xf32>) outs(%e2 : tensor<64x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x?xf32>
  return %t0, %t1, %t2 : tensor<64x100xf32>, tensor<64x64xf64>, tensor<64x?xf32>
}

// -----

// A transpose of exactly one square is not tiled: its parent is the
// function, whose other ops keep their reads (a [13, 7] transpose's row
// tiles still gather through a permutation).
// CHECK-LABEL: func.func @one_square_beside_row_tiles
//       CHECK:   scf.for
//       CHECK:     vector.transfer_read {{.*}}permutation_map
//       CHECK:   vector.transfer_read {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
//  CHECK-COUNT-64:   vector.shuffle
//   CHECK-NOT:   vector.shuffle
//       CHECK:   return
func.func @one_square_beside_row_tiles(%a: tensor<7x13xf32>, %s: tensor<16x16xf32>) -> (tensor<13x7xf32>, tensor<16x16xf32>) {
  %e0 = tensor.empty() : tensor<13x7xf32>
  %t0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<7x13xf32>) outs(%e0 : tensor<13x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<13x7xf32>
  %e1 = tensor.empty() : tensor<16x16xf32>
  %t1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<16x16xf32>) outs(%e1 : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x16xf32>
  return %t0, %t1 : tensor<13x7xf32>, tensor<16x16xf32>
}
