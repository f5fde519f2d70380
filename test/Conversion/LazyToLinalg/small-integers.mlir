// RUN: lazyc-opt %s -split-input-file --convert-lazy-to-linalg | FileCheck %s

// The unsigned ui8 picks unsigned arith ops, the signless i8 signed ones;
// after the pass every integer is signless: ui8 becomes i8 in values,
// block arguments, function types and constants.

// CHECK-LABEL: func.func @divide_ui8
//  CHECK-SAME:   (%{{.*}}: tensor<8xi8>, %{{.*}}: tensor<8xi8>) -> (tensor<8xi8>, tensor<8xi8>, tensor<8xi8>)
//       CHECK:   arith.divui
//   CHECK-NOT:   arith.divsi
//       CHECK:   arith.remui
//   CHECK-NOT:   arith.remsi
//       CHECK:   arith.divui
//   CHECK-NOT:   ui8
func.func @divide_ui8(%a: tensor<8xui8>, %b: tensor<8xui8>) -> (tensor<8xui8>, tensor<8xui8>, tensor<8xui8>) {
  %0 = lazy.floor_div %a, %b : tensor<8xui8>
  %1 = lazy.mod %a, %b : tensor<8xui8>
  %2 = lazy.div %a, %b : tensor<8xui8>
  return %0, %1, %2 : tensor<8xui8>, tensor<8xui8>, tensor<8xui8>
}

// -----

// CHECK-LABEL: func.func @divide_i8
//       CHECK:   arith.divsi
//       CHECK:   arith.remsi
//   CHECK-NOT:   arith.divui
func.func @divide_i8(%a: tensor<8xi8>, %b: tensor<8xi8>) -> tensor<8xi8> {
  %0 = lazy.floor_div %a, %b : tensor<8xi8>
  return %0 : tensor<8xi8>
}

// -----

// Compares, max and min: unsigned predicates and ops for ui8, signed for i8.
// CHECK-LABEL: func.func @order_ui8
//       CHECK:   arith.cmpi ugt, %{{.*}}, %{{.*}} : i8
//       CHECK:   arith.cmpi ule, %{{.*}}, %{{.*}} : i8
//       CHECK:   arith.maxui %{{.*}}, %{{.*}} : i8
//       CHECK:   arith.minui %{{.*}}, %{{.*}} : i8
//       CHECK:   arith.cmpi sgt, %{{.*}}, %{{.*}} : i8
//       CHECK:   arith.maxsi %{{.*}}, %{{.*}} : i8
func.func @order_ui8(%a: tensor<4xui8>, %b: tensor<4xui8>, %c: tensor<4xi8>, %d: tensor<4xi8>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xi8>) {
  %0 = lazy.compare gt, %a, %b : tensor<4xui8>
  %1 = lazy.compare le, %a, %b : tensor<4xui8>
  %2 = lazy.max %a, %b : tensor<4xui8>
  %3 = lazy.min %a, %b : tensor<4xui8>
  %4 = lazy.compare gt, %c, %d : tensor<4xi8>
  %5 = lazy.max %c, %d : tensor<4xi8>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xi8>
}

// -----

// Casts: uitofp and extui from ui8, sitofp and extsi from i8; floats reach
// both through i32 (fptosi, then trunci); i8 <-> ui8 keeps the bits.
// CHECK-LABEL: func.func @casts
//       CHECK:   arith.uitofp %{{.*}} : i8 to f32
//       CHECK:   arith.extui %{{.*}} : i8 to i32
//       CHECK:   arith.sitofp %{{.*}} : i8 to f16
//       CHECK:   arith.extsi %{{.*}} : i8 to i64
//       CHECK:   %[[W:.*]] = arith.fptosi %{{.*}} : f32 to i32
//       CHECK:   arith.trunci %[[W]] : i32 to i8
//       CHECK:   ^bb0(%[[IN:[^:]*]]: i8, %{{[^:]*}}: i8):
//  CHECK-NEXT:     linalg.yield %[[IN]] : i8
func.func @casts(%u: tensor<4xui8>, %s: tensor<4xi8>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf16>, tensor<4xi64>, tensor<4xui8>, tensor<4xui8>) {
  %0 = lazy.cast %u : tensor<4xui8> to tensor<4xf32>
  %1 = lazy.cast %u : tensor<4xui8> to tensor<4xi32>
  %2 = lazy.cast %s : tensor<4xi8> to tensor<4xf16>
  %3 = lazy.cast %s : tensor<4xi8> to tensor<4xi64>
  %4 = lazy.cast %x : tensor<4xf32> to tensor<4xui8>
  %5 = lazy.cast %s : tensor<4xi8> to tensor<4xui8>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xi32>, tensor<4xf16>, tensor<4xi64>, tensor<4xui8>, tensor<4xui8>
}

// -----

// abs and relu of ui8 are the identity (they fold away); pow computes in
// i32, where the exponent's sign bit is 0.
// CHECK-LABEL: func.func @unary_ui8
//  CHECK-SAME:   (%[[A:[^:]*]]: tensor<4xi8>
//       CHECK:   arith.extui %{{.*}} : i8 to i32
//       CHECK:   math.ipowi %{{.*}}, %{{.*}} : i32
//       CHECK:   arith.trunci %{{.*}} : i32 to i8
//       CHECK:   return %[[A]], %[[A]], %{{.*}} :
func.func @unary_ui8(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>, tensor<4xui8>) {
  %0 = lazy.abs %a : tensor<4xui8>
  %1 = lazy.relu %a : tensor<4xui8>
  %2 = lazy.pow %a, %b : tensor<4xui8>
  return %0, %1, %2 : tensor<4xui8>, tensor<4xui8>, tensor<4xui8>
}

// -----

// Reductions start from ui8's limits (0 and 255 = -1 as i8 bits) and
// combine unsigned; argmax compares unsigned.
// CHECK-LABEL: func.func @reductions_ui8
//       CHECK:   %[[LOW:.*]] = arith.constant 0 : i8
//       CHECK:   linalg.fill ins(%[[LOW]] : i8)
//       CHECK:   arith.maxui
//       CHECK:   %[[HIGH:.*]] = arith.constant -1 : i8
//       CHECK:   linalg.fill ins(%[[HIGH]] : i8)
//       CHECK:   arith.minui
//       CHECK:   arith.cmpi ugt
func.func @reductions_ui8(%a: tensor<3x5xui8>) -> (tensor<3xui8>, tensor<3xui8>, tensor<3xi64>) {
  %0 = lazy.reduce_max %a [1] : tensor<3x5xui8>
  %1 = lazy.reduce_min %a [1] : tensor<3x5xui8>
  %2 = lazy.argmax %a, axis = 1 : tensor<3x5xui8>
  return %0, %1, %2 : tensor<3xui8>, tensor<3xui8>, tensor<3xi64>
}

// -----

// Constants keep their bits: 200 as ui8 is -56 as i8.
// CHECK-LABEL: func.func @constant_ui8
//       CHECK:   arith.constant dense<[-56, -1, 0]> : tensor<3xi8>
func.func @constant_ui8() -> tensor<3xui8> {
  %0 = lazy.constant dense<[200, 255, 0]> : tensor<3xui8>
  return %0 : tensor<3xui8>
}
