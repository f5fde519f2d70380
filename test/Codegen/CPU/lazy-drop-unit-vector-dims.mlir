// RUN: lazyc-opt %s -split-input-file --lazy-drop-unit-vector-dims | FileCheck %s

// A tile of a rank-3 buffer read, computed and written as vector<1x1x64xf32>
// becomes one vector<64xf32> read, its ops on vector<64xf32> and one write:
// no n-D vector is left for the LLVM lowering to spell as nested arrays.
// CHECK-LABEL: func.func @elementwise
//  CHECK-SAME:   (%[[A:.*]]: memref<4x1x64xf32>, %{{.*}}: memref<64xf32>, %[[I:.*]]: index)
//       CHECK:   %[[X:.*]] = vector.transfer_read %[[A]][%[[I]], %{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : memref<4x1x64xf32>, vector<64xf32>
//       CHECK:   %[[E:.*]] = math.exp %[[X]] : vector<64xf32>
//       CHECK:   %[[S:.*]] = arith.addf %[[E]], %[[X]] : vector<64xf32>
//       CHECK:   vector.transfer_write %[[S]], %[[A]][%[[I]], %{{.*}}, %{{.*}}] {in_bounds = [true]} : vector<64xf32>, memref<4x1x64xf32>
//   CHECK-NOT:   vector<1x1x64xf32>
func.func @elementwise(%a: memref<4x1x64xf32>, %b: memref<64xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %x = vector.transfer_read %a[%i, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<4x1x64xf32>, vector<1x1x64xf32>
  %e = math.exp %x : vector<1x1x64xf32>
  %s = arith.addf %e, %x : vector<1x1x64xf32>
  vector.transfer_write %s, %a[%i, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x1x64xf32>, memref<4x1x64xf32>
  return
}

// -----

// A row's reduction keeps its shape (lazy-lower-multi-reductions lowers it
// to one horizontal reduction); its operand is read as one vector.
// CHECK-LABEL: func.func @row_sum
//       CHECK:   %[[X:.*]] = vector.transfer_read %{{.*}} : memref<1x1x64xf32>, vector<64xf32>
//       CHECK:   %[[B:.*]] = vector.broadcast %[[X]] : vector<64xf32> to vector<1x1x64xf32>
//       CHECK:   vector.multi_reduction <add>, %[[B]], %{{.*}} [2] : vector<1x1x64xf32> to vector<1x1xf32>
func.func @row_sum(%a: memref<1x1x64xf32>, %acc: vector<1x1xf32>) -> vector<1x1xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %x = vector.transfer_read %a[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<1x1x64xf32>, vector<1x1x64xf32>
  %r = vector.multi_reduction <add>, %x, %acc [2] : vector<1x1x64xf32> to vector<1x1xf32>
  return %r : vector<1x1xf32>
}
