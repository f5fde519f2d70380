// RUN: lazyc-opt %s -split-input-file --lazy-tree-reductions | FileCheck %s

// Float additions and multiplications of a vector's lanes may combine them
// in any order: they get `reassoc`, and only that flag.
// CHECK-LABEL: func.func @float_sum_and_product
//  CHECK-SAME:   (%[[V:.*]]: vector<8xf32>, %[[W:.*]]: vector<4xf64>, %[[ACC:.*]]: f64)
//       CHECK:   %[[SUM:.*]] = vector.reduction <add>, %[[V]] fastmath<reassoc> : vector<8xf32> into f32
//       CHECK:   %[[PRODUCT:.*]] = vector.reduction <mul>, %[[W]], %[[ACC]] fastmath<reassoc> : vector<4xf64> into f64
//       CHECK:   return %[[SUM]], %[[PRODUCT]]
func.func @float_sum_and_product(%v: vector<8xf32>, %w: vector<4xf64>, %acc: f64) -> (f32, f64) {
  %sum = vector.reduction <add>, %v : vector<8xf32> into f32
  %product = vector.reduction <mul>, %w, %acc : vector<4xf64> into f64
  return %sum, %product : f32, f64
}

// -----

// Flags already there are kept; `reassoc` is added to them. A reduction
// nested in a loop is found too.
// CHECK-LABEL: func.func @kept_flags_nested
//       CHECK:   scf.for
//       CHECK:     vector.reduction <add>, %{{.*}} fastmath<reassoc,nnan> : vector<16xf16> into f16
func.func @kept_flags_nested(%v: vector<16xf16>, %n: index) -> f16 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f16) {
    %s = vector.reduction <add>, %v, %acc fastmath<nnan> : vector<16xf16> into f16
    scf.yield %s : f16
  }
  return %r : f16
}

// -----

// Left alone: integer sums (exact in any order), float maximum and minimum
// (no rounding to reorder), and scalar arith.
// CHECK-LABEL: func.func @left_alone
//  CHECK-SAME:   (%[[I:.*]]: vector<8xi32>, %[[F:.*]]: vector<8xf32>, %[[A:.*]]: f32, %[[B:.*]]: f32)
//       CHECK:   vector.reduction <add>, %[[I]] : vector<8xi32> into i32
//       CHECK:   vector.reduction <mul>, %[[I]] : vector<8xi32> into i32
//       CHECK:   vector.reduction <maximumf>, %[[F]] : vector<8xf32> into f32
//       CHECK:   vector.reduction <minnumf>, %[[F]] : vector<8xf32> into f32
//       CHECK:   arith.addf %[[A]], %[[B]] : f32
//   CHECK-NOT:   fastmath
//       CHECK:   return
func.func @left_alone(%i: vector<8xi32>, %f: vector<8xf32>, %a: f32, %b: f32) -> (i32, i32, f32, f32, f32) {
  %0 = vector.reduction <add>, %i : vector<8xi32> into i32
  %1 = vector.reduction <mul>, %i : vector<8xi32> into i32
  %2 = vector.reduction <maximumf>, %f : vector<8xf32> into f32
  %3 = vector.reduction <minnumf>, %f : vector<8xf32> into f32
  %4 = arith.addf %a, %b : f32
  return %0, %1, %2, %3, %4 : i32, i32, f32, f32, f32
}
