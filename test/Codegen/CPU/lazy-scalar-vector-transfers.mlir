// RUN: lazyc-opt %s -split-input-file --lazy-scalar-vector-transfers | FileCheck %s

// A read whose every vector dimension broadcasts one element of a strided
// view becomes a load and a broadcast.
// CHECK-LABEL: func.func @broadcast_read
//  CHECK-SAME:   (%[[M:.*]]: memref<1xf32, strided<[3]>>)
//       CHECK:   %[[E:.*]] = memref.load %[[M]][%{{.*}}] : memref<1xf32, strided<[3]>>
//       CHECK:   %[[B:.*]] = vector.broadcast %[[E]] : f32 to vector<1x4xf32>
//   CHECK-NOT:   vector.transfer_read
//       CHECK:   return %[[B]]
func.func @broadcast_read(%m: memref<1xf32, strided<[3]>>) -> vector<1x4xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0) -> (0, 0)>} : memref<1xf32, strided<[3]>>, vector<1x4xf32>
  return %v : vector<1x4xf32>
}

// -----

// A read of consecutive elements is left to the vector lowering.
// CHECK-LABEL: func.func @plain_read
//       CHECK:   vector.transfer_read
func.func @plain_read(%m: memref<8xf32>) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%c0], %pad {in_bounds = [true]} : memref<8xf32>, vector<4xf32>
  return %v : vector<4xf32>
}
