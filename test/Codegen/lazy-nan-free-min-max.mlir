// RUN: lazyc-opt %s --lazy-nan-free-min-max | FileCheck %s
// RUN: lazyc-opt %s --lazy-nan-free-min-max="selects=false" | FileCheck %s --check-prefix=FLAG

// A max marked nnan is a compare and a select that keeps the left operand
// only where it is greater: NaN on the left gives the right operand (one
// vmaxps). Its other flags go; a max without nnan stays. For the GPU the op
// only loses nnan.
// CHECK-LABEL: func.func @max
//  CHECK-SAME:   (%[[ACC:.*]]: vector<64xf32>, %[[X:.*]]: vector<64xf32>)
//       CHECK:   %[[WINS:.*]] = arith.cmpf ogt, %[[ACC]], %[[X]] : vector<64xf32>
//       CHECK:   %[[MAX:.*]] = arith.select %[[WINS]], %[[ACC]], %[[X]] : vector<64xi1>, vector<64xf32>
//       CHECK:   %[[KEPT:.*]] = arith.maxnumf %[[MAX]], %[[X]] : vector<64xf32>
//       CHECK:   return %[[KEPT]]
// FLAG-LABEL: func.func @max
//       FLAG:   %[[MAX:.*]] = arith.maxnumf %{{.*}}, %{{.*}} fastmath<contract> : vector<64xf32>
//       FLAG:   arith.maxnumf %[[MAX]], %{{.*}} : vector<64xf32>
//   FLAG-NOT:   nnan
func.func @max(%acc: vector<64xf32>, %x: vector<64xf32>) -> vector<64xf32> {
  %0 = arith.maxnumf %acc, %x fastmath<nnan,contract> : vector<64xf32>
  %1 = arith.maxnumf %0, %x : vector<64xf32>
  return %1 : vector<64xf32>
}

// The min of scalars, by the same rule with `<`.
// CHECK-LABEL: func.func @min
//  CHECK-SAME:   (%[[A:.*]]: f64, %[[B:.*]]: f64)
//       CHECK:   %[[WINS:.*]] = arith.cmpf olt, %[[A]], %[[B]] : f64
//       CHECK:   arith.select %[[WINS]], %[[A]], %[[B]] : f64
// FLAG-LABEL: func.func @min
//       FLAG:   arith.minnumf %{{.*}}, %{{.*}} : f64
func.func @min(%a: f64, %b: f64) -> f64 {
  %0 = arith.minnumf %a, %b fastmath<nnan> : f64
  return %0 : f64
}
