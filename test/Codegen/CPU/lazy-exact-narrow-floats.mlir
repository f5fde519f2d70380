// RUN: lazyc-opt %s -split-input-file --lazy-exact-narrow-floats | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-exact-narrow-floats --canonicalize | FileCheck %s --check-prefix=FOLD

// The conversions arith-emulate-unsupported-floats leaves around an f16 op
// lose their fast-math flags, so canonicalization keeps the rounding of the
// first quotient to f16 before the second division. Regression (found by
// lazyc-fuzz): (a / b) / 1.75 in f16 was rounded once, not twice.
// CHECK-LABEL: func.func @two_f16_divisions
//       CHECK:   %[[Q:.*]] = arith.divf
//       CHECK:   %[[T:.*]] = arith.truncf %[[Q]] : f32 to f16
//       CHECK:   %[[E:.*]] = arith.extf %[[T]] : f16 to f32
//       CHECK:   arith.divf %[[E]]
//   CHECK-NOT:   fastmath
// FOLD-LABEL: func.func @two_f16_divisions
//       FOLD:   arith.truncf
//       FOLD:   arith.extf
//       FOLD:   arith.divf
func.func @two_f16_divisions(%a: f32, %b: f32, %c: f32) -> f16 {
  %q = arith.divf %a, %b : f32
  %t = arith.truncf %q fastmath<contract> : f32 to f16
  %e = arith.extf %t fastmath<contract> : f16 to f32
  %r = arith.divf %e, %c : f32
  %result = arith.truncf %r fastmath<contract> : f32 to f16
  return %result : f16
}

// -----

// Vectors too, and bf16.
// CHECK-LABEL: func.func @vector_bf16
//       CHECK:   arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
//       CHECK:   arith.extf %{{.*}} : vector<8xbf16> to vector<8xf32>
func.func @vector_bf16(%x: vector<8xf32>) -> vector<8xf32> {
  %t = arith.truncf %x fastmath<contract> : vector<8xf32> to vector<8xbf16>
  %e = arith.extf %t fastmath<contract> : vector<8xbf16> to vector<8xf32>
  return %e : vector<8xf32>
}
