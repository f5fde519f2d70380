// RUN: lazyc-opt %s --lazy-gpu-parallel-loops-outermost | FileCheck %s

// A column sum that keeps its dimensions iterates (parallel of extent 1,
// reduction over rows, parallel over columns): its loops are reordered so
// that the parallel ones come first (a thread per column) and the reduction
// last; the maps follow the new loop order.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @column_sum
//       CHECK:   linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
//  CHECK-NEXT:   ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
//  CHECK-NEXT:     %[[SUM:.*]] = arith.addf %[[ACC]], %[[X]] : f32
//  CHECK-NEXT:     linalg.yield %[[SUM]] : f32
func.func @column_sum(%x: memref<128x512xf32>, %out: memref<1x512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d2)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : memref<128x512xf32>) outs(%out : memref<1x512xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// Parallel loops first already: unchanged.
// CHECK-LABEL: func.func @row_sum
//       CHECK:   iterator_types = ["parallel", "reduction"]
func.func @row_sum(%x: memref<128x512xf32>, %out: memref<128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<128x512xf32>) outs(%out : memref<128xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}
