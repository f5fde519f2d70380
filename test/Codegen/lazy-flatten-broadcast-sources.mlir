// RUN: lazyc-opt %s -split-input-file --lazy-flatten-broadcast-sources | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-flatten-broadcast-sources --canonicalize | FileCheck %s --check-prefix=CANON

// A broadcast that prepends dimensions to a 2-D source: the source
// flattened, broadcast, shaped back.
// CHECK-LABEL: func.func @prepends
//  CHECK-SAME:   (%[[X:.*]]: vector<2x1xf32>)
//       CHECK:   %[[FLAT:.*]] = vector.shape_cast %[[X]] : vector<2x1xf32> to vector<2xf32>
//       CHECK:   %[[B:.*]] = vector.broadcast %[[FLAT]] : vector<2xf32> to vector<2x1x1x2xf32>
//       CHECK:   %[[R:.*]] = vector.shape_cast %[[B]] : vector<2x1x1x2xf32> to vector<2x1x1x2x1xf32>
//       CHECK:   vector.shape_cast %[[R]] : vector<2x1x1x2x1xf32> to vector<2x2xf32>
// After canonicalization the value at [i, j] is still x[j]: a broadcast of
// the flat source (not of x, whose unit dimension would stretch).
// CANON-LABEL: func.func @prepends
//       CANON:   %[[FLAT:.*]] = vector.shape_cast %{{.*}} : vector<2x1xf32> to vector<2xf32>
//       CANON:   vector.broadcast %[[FLAT]] : vector<2xf32> to vector<2x2xf32>
//   CANON-NOT:   vector<2x1xf32> to vector<2x2xf32>
func.func @prepends(%x: vector<2x1xf32>) -> vector<2x2xf32> {
  %0 = vector.broadcast %x : vector<2x1xf32> to vector<2x1x1x2x1xf32>
  %1 = vector.shape_cast %0 : vector<2x1x1x2x1xf32> to vector<2x2xf32>
  return %1 : vector<2x2xf32>
}

// -----

// Broadcasts that stretch a dimension, or of 1-D sources, stay.
// CHECK-LABEL: func.func @others
//   CHECK-NOT:   vector.shape_cast
//       CHECK:   vector.broadcast %{{.*}} : vector<2x1xf32> to vector<2x3xf32>
//       CHECK:   vector.broadcast %{{.*}} : vector<3xf32> to vector<2x3xf32>
func.func @others(%x: vector<2x1xf32>, %y: vector<3xf32>) -> (vector<2x3xf32>, vector<2x3xf32>) {
  %0 = vector.broadcast %x : vector<2x1xf32> to vector<2x3xf32>
  %1 = vector.broadcast %y : vector<3xf32> to vector<2x3xf32>
  return %0, %1 : vector<2x3xf32>, vector<2x3xf32>
}
