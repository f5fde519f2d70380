// RUN: lazyc-opt %s -split-input-file --lazy-lower-multi-reductions | FileCheck %s

// A row's reduction (the innermost dimension, behind unit dimensions) is one
// horizontal vector.reduction, not one scalar op per lane.
// CHECK-LABEL: func.func @row_sum
//  CHECK-SAME:   (%[[V:.*]]: vector<1x1x64xf32>, %[[ACC:.*]]: vector<1x1xf32>)
//       CHECK:   %[[LANES:.*]] = vector.extract %[[V]][0, 0] : vector<64xf32> from vector<1x1x64xf32>
//       CHECK:   %[[START:.*]] = vector.extract %[[ACC]][0, 0] : f32 from vector<1x1xf32>
//       CHECK:   vector.reduction <add>, %[[LANES]], %[[START]] : vector<64xf32> into f32
//   CHECK-NOT:   arith.addf
//       CHECK:   return
func.func @row_sum(%v: vector<1x1x64xf32>, %acc: vector<1x1xf32>) -> vector<1x1xf32> {
  %r = vector.multi_reduction <add>, %v, %acc [2] : vector<1x1x64xf32> to vector<1x1xf32>
  return %r : vector<1x1xf32>
}

// -----

// Several rows: one horizontal reduction per row.
// CHECK-LABEL: func.func @row_maxima
//   CHECK-COUNT-4:   vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<16xf32> into f32
//   CHECK-NOT:   arith.maximumf
func.func @row_maxima(%v: vector<4x16xf32>, %acc: vector<4xf32>) -> vector<4xf32> {
  %r = vector.multi_reduction <maximumf>, %v, %acc [1] : vector<4x16xf32> to vector<4xf32>
  return %r : vector<4xf32>
}

// -----

// A column's reduction (the reduced dimension outside the lanes) is lane-wise
// arithmetic over the rows, not a horizontal reduction per lane.
// CHECK-LABEL: func.func @column_sum
//  CHECK-SAME:   (%[[V:.*]]: vector<4x64xf32>, %[[ACC:.*]]: vector<64xf32>)
//   CHECK-COUNT-4:   arith.addf %{{.*}}, %{{.*}} : vector<64xf32>
//   CHECK-NOT:   vector.reduction
func.func @column_sum(%v: vector<4x64xf32>, %acc: vector<64xf32>) -> vector<64xf32> {
  %r = vector.multi_reduction <add>, %v, %acc [0] : vector<4x64xf32> to vector<64xf32>
  return %r : vector<64xf32>
}

// -----

// Both kinds in one function, each lowered its own way.
// CHECK-LABEL: func.func @both
//       CHECK:   vector.reduction <add>, %{{.*}}, %{{.*}} : vector<8xf32> into f32
//       CHECK:   arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
//   CHECK-NOT:   vector.multi_reduction
func.func @both(%rows: vector<1x8xf32>, %acc: vector<1xf32>,
                %cols: vector<2x8xf32>, %colAcc: vector<8xf32>) -> (vector<1xf32>, vector<8xf32>) {
  %r = vector.multi_reduction <add>, %rows, %acc [1] : vector<1x8xf32> to vector<1xf32>
  %c = vector.multi_reduction <add>, %cols, %colAcc [0] : vector<2x8xf32> to vector<8xf32>
  return %r, %c : vector<1xf32>, vector<8xf32>
}
