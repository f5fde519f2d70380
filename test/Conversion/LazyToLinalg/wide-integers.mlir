// RUN: lazyc-opt %s -split-input-file --convert-lazy-to-linalg | FileCheck %s

// The unsigned ui16, ui32 and ui64 pick unsigned arith ops as ui8 does, and
// become signless; i16 is signed.

// CHECK-LABEL: func.func @order
//  CHECK-SAME:   (%{{.*}}: tensor<4xi64>, %{{.*}}: tensor<4xi64>, %{{.*}}: tensor<4xi16>, %{{.*}}: tensor<4xi16>)
//       CHECK:   arith.cmpi ult
//       CHECK:   arith.maxui
//       CHECK:   arith.divui
//       CHECK:   arith.cmpi slt
//       CHECK:   arith.divsi
//   CHECK-NOT:   ui64
func.func @order(%a: tensor<4xui64>, %b: tensor<4xui64>, %c: tensor<4xi16>, %d: tensor<4xi16>) -> (tensor<4xi1>, tensor<4xui64>, tensor<4xui64>, tensor<4xi1>, tensor<4xi16>) {
  %0 = lazy.compare lt, %a, %b : tensor<4xui64>
  %1 = lazy.max %a, %b : tensor<4xui64>
  %2 = lazy.div %a, %b : tensor<4xui64>
  %3 = lazy.compare lt, %c, %d : tensor<4xi16>
  %4 = lazy.div %c, %d : tensor<4xi16>
  return %0, %1, %2, %3, %4 : tensor<4xi1>, tensor<4xui64>, tensor<4xui64>, tensor<4xi1>, tensor<4xi16>
}

// -----

// A ui32 exponent from 2^30 becomes (e mod 2^30) + 2^30, which math.ipowi
// takes as positive and which gives the same power modulo 2^32.
// CHECK-LABEL: func.func @power_ui32
//   CHECK-DAG:   %[[QUARTER:.*]] = arith.constant 1073741824 : i32
//   CHECK-DAG:   %[[LOW:.*]] = arith.constant 1073741823 : i32
//       CHECK:   %[[LARGE:.*]] = arith.cmpi uge, %[[E:.*]], %[[QUARTER]] : i32
//       CHECK:   %[[MASKED:.*]] = arith.andi %[[E]], %[[LOW]] : i32
//       CHECK:   %[[REDUCED:.*]] = arith.ori %[[MASKED]], %[[QUARTER]] : i32
//       CHECK:   %[[EXPONENT:.*]] = arith.select %[[LARGE]], %[[REDUCED]], %[[E]] : i32
//       CHECK:   math.ipowi %{{.*}}, %[[EXPONENT]] : i32
func.func @power_ui32(%a: tensor<4xui32>, %b: tensor<4xui32>) -> tensor<4xui32> {
  %0 = lazy.pow %a, %b : tensor<4xui32>
  return %0 : tensor<4xui32>
}

// -----

// Floats to ui64: fptoui from 0 up, negative values wrap through fptosi;
// to ui32 through i64; to i16 and ui16 through i32.
// CHECK-LABEL: func.func @from_floats
//       CHECK:   arith.cmpf olt
//       CHECK:   arith.fptosi %{{.*}} : f32 to i64
//       CHECK:   arith.fptoui %{{.*}} : f32 to i64
//       CHECK:   arith.select
//       CHECK:   arith.fptosi %{{.*}} : f32 to i64
//       CHECK:   arith.trunci %{{.*}} : i64 to i32
//       CHECK:   arith.fptosi %{{.*}} : f32 to i32
//       CHECK:   arith.trunci %{{.*}} : i32 to i16
func.func @from_floats(%x: tensor<4xf32>) -> (tensor<4xui64>, tensor<4xui32>, tensor<4xui16>) {
  %0 = lazy.cast %x : tensor<4xf32> to tensor<4xui64>
  %1 = lazy.cast %x : tensor<4xf32> to tensor<4xui32>
  %2 = lazy.cast %x : tensor<4xf32> to tensor<4xui16>
  return %0, %1, %2 : tensor<4xui64>, tensor<4xui32>, tensor<4xui16>
}

// -----

// Shifts: amounts at or past the width (compared unsigned) give 0, or the
// sign for a signed right shift; bit_not is xor with all ones.
// CHECK-LABEL: func.func @shifts
//       CHECK:   %[[LEFT:.*]] = arith.shli %[[X:.*]], %[[S:.*]] : i16
//       CHECK:   %[[FITS:.*]] = arith.cmpi ult, %[[S]], %{{.*}} : i16
//       CHECK:   arith.select %[[FITS]], %[[LEFT]], %{{.*}} : i16
//       CHECK:   arith.cmpi ult
//       CHECK:   arith.shrsi
//       CHECK:   arith.shrsi
//       CHECK:   arith.select
//       CHECK:   arith.cmpi ult
//       CHECK:   arith.shrui %{{.*}} : i32
//       CHECK:   arith.select
//       CHECK:   %[[ONES:.*]] = arith.constant -1 : i16
//       CHECK:   arith.xori %{{.*}}, %[[ONES]] : i16
func.func @shifts(%x: tensor<4xi16>, %s: tensor<4xi16>, %u: tensor<4xui32>) -> (tensor<4xi16>, tensor<4xi16>, tensor<4xui32>, tensor<4xi16>) {
  %0 = lazy.shift_left %x, %s : tensor<4xi16>
  %1 = lazy.shift_right %x, %s : tensor<4xi16>
  %2 = lazy.shift_right %u, %u : tensor<4xui32>
  %3 = lazy.bit_not %x : tensor<4xi16>
  return %0, %1, %2, %3 : tensor<4xi16>, tensor<4xi16>, tensor<4xui32>, tensor<4xi16>
}
