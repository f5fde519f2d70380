// RUN: lazyc-opt %s -split-input-file --lazy-gpu-row-kernels --canonicalize --cse | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-gpu-row-kernels="max-threads-per-block=128" | FileCheck %s --check-prefix=T128
// RUN: not lazyc-opt %s -split-input-file --lazy-gpu-row-kernels="max-threads-per-block=16" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: max-threads-per-block must be in [32, 1024] (whole warps), not 16

#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>

// A softmax as bufferization leaves it: a row maximum, the exponentials, a
// row sum (each after a fill of the row statistic), the division. One
// kernel: a block per row (64), 256 threads for rows of 1000 (about four
// elements a thread), the ops in order with a barrier between two. A
// reduction folds each thread's elements into a register, combines them
// across the block (gpu.all_reduce, from -inf for a maximum, from -0.0 for
// a sum), and its first thread folds the total into the row's statistic.
// The temporary is freed after the kernel.
// CHECK-LABEL: func.func @softmax
//  CHECK-SAME:   (%[[X:.*]]: memref<64x1000xf32>, %[[Y:.*]]: memref<64x1000xf32>)
//   CHECK-DAG:   %[[C64:.*]] = arith.constant 64 : index
//   CHECK-DAG:   %[[C256:.*]] = arith.constant 256 : index
//   CHECK-DAG:   %[[C1000:.*]] = arith.constant 1000 : index
//   CHECK-DAG:   %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
//   CHECK-DAG:   %[[NEG_ZERO:.*]] = arith.constant -0.000000e+00 : f32
//       CHECK:   %[[STATS:.*]] = memref.alloc() {{.*}} : memref<64x1xf32>
//       CHECK:   gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C64]], %{{.*}}, %{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]],
//   CHECK-NOT:     scf.if
//       CHECK:     scf.for %{{.*}} = %[[T]] to %{{.*}} step %[[C256]] {
//       CHECK:       memref.store %[[NEG_INF]], %[[STATS]][%[[ROW]], %{{.*}}]
//       CHECK:     gpu.barrier
//       CHECK:     %[[MAX_PART:.*]] = scf.for %[[J:.*]] = %[[T]] to %[[C1000]] step %[[C256]] iter_args(%[[ACC:.*]] = %[[NEG_INF]]) -> (f32) {
//       CHECK:       %[[XV:.*]] = memref.load %[[X]][%[[ROW]], %[[J]]]
//       CHECK:       %[[M:.*]] = arith.maximumf %[[ACC]], %[[XV]]
//       CHECK:       scf.yield %[[M]]
//       CHECK:     %[[MAX:.*]] = gpu.all_reduce maximumf %[[MAX_PART]] uniform
//       CHECK:     %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %{{.*}}
//       CHECK:     scf.if %[[FIRST]] {
//       CHECK:       %[[OLD:.*]] = memref.load %[[STATS]][%[[ROW]], %{{.*}}]
//       CHECK:       %[[NEW:.*]] = arith.maximumf %[[OLD]], %[[MAX]]
//       CHECK:       memref.store %[[NEW]], %[[STATS]][%[[ROW]], %{{.*}}]
//       CHECK:     gpu.barrier
//       CHECK:     scf.for
//       CHECK:       math.exp
//       CHECK:       memref.store %{{.*}}, %[[Y]][%[[ROW]],
//       CHECK:     gpu.barrier
//       CHECK:     scf.for
//       CHECK:     gpu.barrier
//       CHECK:     scf.for {{.*}} iter_args(%{{.*}} = %[[NEG_ZERO]]) -> (f32)
//       CHECK:       arith.addf
//       CHECK:     gpu.all_reduce add
//       CHECK:     gpu.barrier
//       CHECK:     scf.for
//       CHECK:       arith.divf
//       CHECK:     gpu.terminator
//   CHECK-NOT:   linalg.
//       CHECK:   memref.dealloc %[[STATS]]
//  CHECK-NEXT:   return
// T128-LABEL: func.func @softmax
//       T128:   gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c128
func.func @softmax(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  %stats = memref.alloc() {alignment = 64 : i64} : memref<64x1xf32>
  linalg.fill ins(%neg_inf : f32) outs(%stats : memref<64x1xf32>)
  linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : memref<64x1000xf32>) outs(%stats : memref<64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel"]} ins(%x, %stats : memref<64x1000xf32>, memref<64x1xf32>) outs(%y : memref<64x1000xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.subf %in, %in_1 : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  }
  linalg.fill ins(%zero : f32) outs(%stats : memref<64x1xf32>)
  linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%y : memref<64x1000xf32>) outs(%stats : memref<64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel"]} ins(%y, %stats : memref<64x1000xf32>, memref<64x1xf32>) outs(%y : memref<64x1000xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.divf %in, %in_1 : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %stats : memref<64x1xf32>
  return
}

// -----

// Rows known only at run time: the grid has at least one block, and blocks
// past the last row (the only one when there are none) do nothing. Rows of
// a length known only at run time get 256 threads. An i64 sum starts from 0.
// CHECK-LABEL: func.func @dynamic_rows
//  CHECK-SAME:   (%[[X:.*]]: memref<?x?xi64>, %[[S:.*]]: memref<?xi64>)
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[C256:.*]] = arith.constant 256 : index
//   CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0 : i64
//       CHECK:   %[[ROWS:.*]] = memref.dim %[[X]], %[[C0]]
//       CHECK:   %[[COLS:.*]] = memref.dim %[[X]], %[[C1]]
//       CHECK:   %[[GRID:.*]] = arith.maxsi %[[ROWS]], %[[C1]]
//       CHECK:   gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]],
//       CHECK:     %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %[[ROWS]]
//       CHECK:     scf.if %[[IN]] {
//       CHECK:       scf.for %{{.*}} = %[[T]] to %[[COLS]] step %[[C256]] iter_args(%{{.*}} = %[[ZERO]]) -> (i64)
//       CHECK:       gpu.all_reduce add
func.func @dynamic_rows(%x: memref<?x?xi64>, %s: memref<?xi64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x?xi64>) outs(%s : memref<?xi64>) {
  ^bb0(%in: i64, %out: i64):
    %0 = arith.addi %out, %in : i64
    linalg.yield %0 : i64
  }
  return
}

// -----

// A reduction of everything is one row: one block, 1024 threads for 8192
// elements (two dimensions, delinearized per element), an f64 maximum
// (NaN-ignoring maxnumf starts from NaN, its neutral element).
// CHECK-LABEL: func.func @everything
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[C1024:.*]] = arith.constant 1024 : index
//   CHECK-DAG:   %[[C8192:.*]] = arith.constant 8192 : index
//   CHECK-DAG:   %[[NAN:.*]] = arith.constant 0xFFF8000000000000 : f64
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C1]], {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C1024]],
//       CHECK:     scf.for %[[J:.*]] = %[[T]] to %[[C8192]] step %[[C1024]] iter_args(%{{.*}} = %[[NAN]]) -> (f64)
//       CHECK:       %[[IJ:.*]]:2 = affine.delinearize_index %[[J]] into (64, 128)
//       CHECK:       memref.load %{{.*}}[%[[IJ]]#0, %[[IJ]]#1]
//       CHECK:       arith.maxnumf
//       CHECK:     gpu.all_reduce maxnumf
//       CHECK:       memref.load %{{.*}}[] : memref<f64>
//       CHECK:       memref.store %{{.*}}, %{{.*}}[] : memref<f64>
func.func @everything(%x: memref<64x128xf64>, %s: memref<f64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : memref<64x128xf64>) outs(%s : memref<f64>) {
  ^bb0(%in: f64, %out: f64):
    %0 = arith.maxnumf %out, %in : f64
    linalg.yield %0 : f64
  }
  return
}

// -----

// A reduction of everything through a transposed read is one block too
// (its threads' reads are strided, where the alternative is one thread).
// CHECK-LABEL: func.func @everything_transposed
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, {{.*}} threads({{.*}}) in (%{{.*}} = %c512,
//       CHECK:     gpu.all_reduce add
func.func @everything_transposed(%x: memref<64x32xf32>, %s: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : memref<64x32xf32>) outs(%s : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Left alone: a payload that folds with more than one op (an arg-max's
// compare and select), a bool reduction (no warp shuffle of i1), and a
// reduction of columns (lazy-gpu-map-to-kernels gives each thread a column:
// coalesced already).
// CHECK-LABEL: func.func @left_alone
//   CHECK-NOT:   gpu.launch
//       CHECK:   return
func.func @left_alone(%x: memref<64x128xf32>, %m: memref<64xf32>, %b: memref<64x128xi1>, %any: memref<64xi1>, %cols: memref<128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x128xf32>) outs(%m : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.cmpf ogt, %in, %out : f32
    %1 = arith.select %0, %in, %out : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%b : memref<64x128xi1>) outs(%any : memref<64xi1>) {
  ^bb0(%in: i1, %out: i1):
    %0 = arith.ori %out, %in : i1
    linalg.yield %0 : i1
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x128xf32>) outs(%cols : memref<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// The kernel ends where rows would meet: the op after the row sum reads the
// sums of other rows (a transposed read of a buffer the kernel writes), so
// it stays a linalg op, after the kernel. So does an op after a copy.
// CHECK-LABEL: func.func @other_rows
//       CHECK:   gpu.launch
//       CHECK:     gpu.all_reduce add
//   CHECK-NOT:     gpu.barrier
//       CHECK:     gpu.terminator
//       CHECK:   linalg.generic
//       CHECK:   memref.copy
//       CHECK:   linalg.generic
//       CHECK:   return
func.func @other_rows(%x: memref<64x64xf32>, %s: memref<64x1xf32>, %y: memref<64x64xf32>, %z: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : memref<64x64xf32>) outs(%s : memref<64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s : memref<64x64xf32>, memref<64x1xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.mulf %in, %in_1 : f32
    linalg.yield %0 : f32
  }
  memref.copy %y, %z : memref<64x64xf32> to memref<64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%z : memref<64x64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  }
  return
}
