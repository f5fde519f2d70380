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

// -----

// A gather from a strided view (a vectorized lazy.gather reading a slice
// with a step): one conditional load per lane, at the lane's index added to
// the innermost offset. A gather from a unit-stride view stays.
// CHECK-LABEL: func.func @strided_gather
//  CHECK-SAME:   (%[[BASE:.*]]: memref<5xi1, strided<[3], offset: 2>>, %[[I:.*]]: vector<2xindex>, %[[M:.*]]: vector<2xi1>, %[[P:.*]]: vector<2xi1>, %[[O:.*]]: index)
//       CHECK:   %[[M0:.*]] = vector.extract %[[M]][0]
//       CHECK:   %[[I0:.*]] = vector.extract %[[I]][0]
//       CHECK:   %[[A0:.*]] = arith.addi %[[O]], %[[I0]] : index
//       CHECK:   %[[R0:.*]] = scf.if %[[M0]] -> (vector<2xi1>) {
//       CHECK:     %[[L0:.*]] = memref.load %[[BASE]][%[[A0]]]
//       CHECK:     %[[V0:.*]] = vector.insert %[[L0]], %[[P]] [0]
//       CHECK:     scf.yield %[[V0]]
//       CHECK:   } else {
//       CHECK:     scf.yield %[[P]]
//       CHECK:   %[[M1:.*]] = vector.extract %[[M]][1]
//       CHECK:   %[[R1:.*]] = scf.if %[[M1]]
//       CHECK:     vector.insert %{{.*}}, %[[R0]] [1]
//       CHECK:   return %[[R1]]
func.func @strided_gather(%base: memref<5xi1, strided<[3], offset: 2>>, %i: vector<2xindex>, %m: vector<2xi1>, %p: vector<2xi1>, %o: index) -> vector<2xi1> {
  %0 = vector.gather %base[%o][%i], %m, %p : memref<5xi1, strided<[3], offset: 2>>, vector<2xindex>, vector<2xi1>, vector<2xi1> into vector<2xi1>
  return %0 : vector<2xi1>
}

// CHECK-LABEL: func.func @contiguous_gather
//       CHECK:   vector.gather
func.func @contiguous_gather(%base: memref<16xf32>, %i: vector<4xindex>, %m: vector<4xi1>, %p: vector<4xf32>) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %0 = vector.gather %base[%c0][%i], %m, %p : memref<16xf32>, vector<4xindex>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  return %0 : vector<4xf32>
}
