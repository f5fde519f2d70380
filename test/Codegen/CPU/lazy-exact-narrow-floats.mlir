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

// -----

// Results that are bf16 values already keep no rounding: the negation of a
// widened bf16 value, the max of that and another, a select of those. A
// product is rounded, and so is the negation of the product's unrounded value.
// CHECK-LABEL: func.func @exact_results_skip_the_rounding
//  CHECK-SAME:   (%[[A:.*]]: vector<8xbf16>, %[[B:.*]]: vector<8xbf16>, %[[C:.*]]: vector<8xi1>)
// (The unused truncfs go at the next canonicalization.)
//       CHECK:   %[[EA:.*]] = arith.extf %[[A]]
//       CHECK:   %[[NEG:.*]] = arith.negf %[[EA]]
//       CHECK:   %[[EB:.*]] = arith.extf %[[B]]
//       CHECK:   %[[MAX:.*]] = arith.maximumf %[[NEG]], %[[EB]]
//       CHECK:   %[[SEL:.*]] = arith.select %[[C]], %[[MAX]], %[[EA]]
//       CHECK:   %[[MUL:.*]] = arith.mulf %[[SEL]], %[[EB]]
//       CHECK:   %[[T:.*]] = arith.truncf %[[MUL]]
//       CHECK:   %[[E:.*]] = arith.extf %[[T]]
//       CHECK:   %[[NEG2:.*]] = arith.negf %[[E]]
//       CHECK:   %[[R:.*]] = arith.truncf %[[NEG2]]
//       CHECK:   return %[[R]]
func.func @exact_results_skip_the_rounding(%a: vector<8xbf16>, %b: vector<8xbf16>, %c: vector<8xi1>) -> vector<8xbf16> {
  %ea = arith.extf %a fastmath<contract> : vector<8xbf16> to vector<8xf32>
  %neg = arith.negf %ea : vector<8xf32>
  %tneg = arith.truncf %neg fastmath<contract> : vector<8xf32> to vector<8xbf16>
  %eneg = arith.extf %tneg fastmath<contract> : vector<8xbf16> to vector<8xf32>
  %eb = arith.extf %b fastmath<contract> : vector<8xbf16> to vector<8xf32>
  %max = arith.maximumf %eneg, %eb : vector<8xf32>
  %tmax = arith.truncf %max fastmath<contract> : vector<8xf32> to vector<8xbf16>
  %emax = arith.extf %tmax fastmath<contract> : vector<8xbf16> to vector<8xf32>
  %sel = arith.select %c, %emax, %ea : vector<8xi1>, vector<8xf32>
  %tsel = arith.truncf %sel fastmath<contract> : vector<8xf32> to vector<8xbf16>
  %esel = arith.extf %tsel fastmath<contract> : vector<8xbf16> to vector<8xf32>
  %mul = arith.mulf %esel, %eb : vector<8xf32>
  %tmul = arith.truncf %mul fastmath<contract> : vector<8xf32> to vector<8xbf16>
  %emul = arith.extf %tmul fastmath<contract> : vector<8xbf16> to vector<8xf32>
  %neg2 = arith.negf %emul : vector<8xf32>
  %r = arith.truncf %neg2 fastmath<contract> : vector<8xf32> to vector<8xbf16>
  return %r : vector<8xbf16>
}
