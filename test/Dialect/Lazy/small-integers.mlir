// RUN: lazyc-opt %s -split-input-file -canonicalize | FileCheck %s

// i8 (signless, signed values) and ui8 (unsigned): folders follow the
// type's signedness.

// 200 > 100 as ui8; as i8 the same bits are -56 < 100.
// CHECK-LABEL: func.func @compare_folds
//       CHECK:   %[[U:.*]] = lazy.constant dense<[true, false]> : tensor<2xi1>
//       CHECK:   %[[S:.*]] = lazy.constant dense<false> : tensor<2xi1>
//       CHECK:   return %[[U]], %[[S]]
func.func @compare_folds() -> (tensor<2xi1>, tensor<2xi1>) {
  %a = lazy.constant dense<[200, 50]> : tensor<2xui8>
  %b = lazy.constant dense<[100, 60]> : tensor<2xui8>
  %0 = lazy.compare gt, %a, %b : tensor<2xui8>
  %c = lazy.constant dense<[-56, 50]> : tensor<2xi8>
  %d = lazy.constant dense<[100, 60]> : tensor<2xi8>
  %1 = lazy.compare gt, %c, %d : tensor<2xi8>
  return %0, %1 : tensor<2xi1>, tensor<2xi1>
}

// -----

// Unsigned division, max and min; wrap-around; pow with an exponent above
// 127 (not negative).
// CHECK-LABEL: func.func @arithmetic_folds
//       CHECK:   lazy.constant dense<[66, 15]> : tensor<2xui8>
//       CHECK:   lazy.constant dense<[200, 255]> : tensor<2xui8>
//       CHECK:   lazy.constant dense<[3, 16]> : tensor<2xui8>
//       CHECK:   lazy.constant dense<[203, 15]> : tensor<2xui8>
//       CHECK:   lazy.constant dense<[0, 255]> : tensor<2xui8>
func.func @arithmetic_folds() -> (tensor<2xui8>, tensor<2xui8>, tensor<2xui8>, tensor<2xui8>, tensor<2xui8>) {
  %a = lazy.constant dense<[200, 255]> : tensor<2xui8>
  %b = lazy.constant dense<[3, 16]> : tensor<2xui8>
  %0 = lazy.div %a, %b : tensor<2xui8>
  %1 = lazy.max %a, %b : tensor<2xui8>
  %2 = lazy.min %a, %b : tensor<2xui8>
  %3 = lazy.add %a, %b : tensor<2xui8>
  %e = lazy.constant dense<[200, 129]> : tensor<2xui8>
  %4 = lazy.pow %a, %e : tensor<2xui8>
  return %0, %1, %2, %3, %4 : tensor<2xui8>, tensor<2xui8>, tensor<2xui8>, tensor<2xui8>, tensor<2xui8>
}

// -----

// abs and relu of ui8 are the identity.
// CHECK-LABEL: func.func @identities
//  CHECK-SAME:   (%[[X:[^:]*]]: tensor<4xui8>)
//   CHECK-NOT:   lazy.abs
//   CHECK-NOT:   lazy.relu
//       CHECK:   return %[[X]], %[[X]]
func.func @identities(%x: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>) {
  %0 = lazy.abs %x : tensor<4xui8>
  %1 = lazy.relu %x : tensor<4xui8>
  return %0, %1 : tensor<4xui8>, tensor<4xui8>
}

// -----

// Casts: ui8 converts as its unsigned value, i8 with its sign; floats out
// of the 8-bit range are kept for the lowering (which wraps through i32).
// CHECK-LABEL: func.func @cast_folds
//       CHECK:   %[[G:.*]] = lazy.constant dense<[-1.000000e+00, 3.000000e+00]> : tensor<2xf32>
//       CHECK:   lazy.constant dense<[2.000000e+02, 2.550000e+02]> : tensor<2xf32>
//       CHECK:   lazy.constant dense<[200, 255]> : tensor<2xi32>
//       CHECK:   lazy.constant dense<[-56, -1]> : tensor<2xi8>
//       CHECK:   lazy.constant dense<[-56, -1]> : tensor<2xi32>
//       CHECK:   lazy.constant dense<[200, 3]> : tensor<2xui8>
//       CHECK:   lazy.cast %[[G]] : tensor<2xf32> to tensor<2xui8>
func.func @cast_folds() -> (tensor<2xf32>, tensor<2xi32>, tensor<2xi8>, tensor<2xi32>, tensor<2xui8>, tensor<2xui8>) {
  %a = lazy.constant dense<[200, 255]> : tensor<2xui8>
  %0 = lazy.cast %a : tensor<2xui8> to tensor<2xf32>
  %1 = lazy.cast %a : tensor<2xui8> to tensor<2xi32>
  %2 = lazy.cast %a : tensor<2xui8> to tensor<2xi8>
  %3 = lazy.cast %2 : tensor<2xi8> to tensor<2xi32>
  %f = lazy.constant dense<[200.5, 3.9]> : tensor<2xf32>
  %4 = lazy.cast %f : tensor<2xf32> to tensor<2xui8>
  %g = lazy.constant dense<[-1.0, 3.0]> : tensor<2xf32>
  %5 = lazy.cast %g : tensor<2xf32> to tensor<2xui8>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<2xi32>, tensor<2xi8>, tensor<2xi32>, tensor<2xui8>, tensor<2xui8>
}
