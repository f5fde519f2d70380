// RUN: lazyc-opt %s -split-input-file --lazy-math-approximation | FileCheck %s --check-prefixes=CHECK,SHARE-NONE

// f32 exp, tanh, log and erf (scalars and vectors) become polynomial code
// built from arith ops and math.fma; sin, cos, asin, acos, atan and every
// f64 op stay as they are. Logarithms first scale subnormal inputs by 2^24 (0x4B800000) and
// subtract 24 ln 2 (16.6355324) from the result.

// exp: clamp, n = floor(x log2(e) + 1/2), a polynomial in the remainder,
// times 2^n built from n's bits (an i32 shifted into the exponent field).
// A NaN input is selected as the result: fptosi of NaN is poison, and when
// LLVM could see the NaN the result came out as garbage (regression, found
// by lazyc-fuzz: sigmoid(-inf / -inf) after an empty max gave 0).
// CHECK-LABEL: func.func @exp_f32
//  CHECK-SAME:   (%[[X:.*]]: f32)
//   CHECK-NOT:   math.exp
//       CHECK:   math.floor %{{.*}} : f32
//       CHECK:   math.fma %{{.*}} : f32
//       CHECK:   arith.fptosi %{{.*}} : f32 to i32
//       CHECK:   %[[SHIFTED:.*]] = arith.shli %{{.*}}, %{{.*}} : i32
//       CHECK:   %[[POW2:.*]] = arith.bitcast %[[SHIFTED]] : i32 to f32
//       CHECK:   %[[R:.*]] = arith.mulf %{{.*}}, %[[POW2]] : f32
//       CHECK:   %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
//       CHECK:   %[[S:.*]] = arith.select %[[NAN]], %[[X]], %{{.*}} : f32
//   CHECK-NOT:   math.exp
//       CHECK:   return %[[S]] : f32
func.func @exp_f32(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  return %0 : f32
}

// -----

// The same on vector<16xf32>: every op stays a vector op.
// CHECK-LABEL: func.func @exp_vector
//   CHECK-NOT:   math.exp
//       CHECK:   math.floor %{{.*}} : vector<16xf32>
//       CHECK:   math.fma %{{.*}} : vector<16xf32>
//       CHECK:   arith.fptosi %{{.*}} : vector<16xf32> to vector<16xi32>
//       CHECK:   %[[POW2:.*]] = arith.bitcast %{{.*}} : vector<16xi32> to vector<16xf32>
//       CHECK:   %[[R:.*]] = arith.mulf %{{.*}}, %[[POW2]] : vector<16xf32>
//       CHECK:   %[[NAN:.*]] = arith.cmpf uno, %{{.*}} : vector<16xf32>
//       CHECK:   %[[S:.*]] = arith.select %[[NAN]], %{{.*}} : vector<16xi1>, vector<16xf32>
//   CHECK-NOT:   math.exp
//       CHECK:   return %[[S]] : vector<16xf32>
func.func @exp_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.exp %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// tanh: a rational polynomial (fma chains and one division), and x itself
// where |x| is tiny.
// CHECK-LABEL: func.func @tanh_f32
//  CHECK-SAME:   (%[[X:.*]]: f32)
//   CHECK-NOT:   math.tanh
//       CHECK:   math.fma %{{.*}} : f32
//       CHECK:   %[[Q:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
//       CHECK:   %[[R:.*]] = arith.select %{{.*}}, %{{.*}}, %[[Q]] : f32
//   CHECK-NOT:   math.tanh
//       CHECK:   return %[[R]] : f32
func.func @tanh_f32(%x: f32) -> f32 {
  %0 = math.tanh %x : f32
  return %0 : f32
}

// -----

// tanh on vector<16xf32>.
// CHECK-LABEL: func.func @tanh_vector
//   CHECK-NOT:   math.tanh
//       CHECK:   math.fma %{{.*}} : vector<16xf32>
//       CHECK:   arith.divf %{{.*}} : vector<16xf32>
//   CHECK-NOT:   math.tanh
//       CHECK:   return
func.func @tanh_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.tanh %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// log: |x| < FLT_MIN (1.17549435E-38, i.e. zero or subnormal) selects x * 2^24
// as the polynomial's input and 24 ln 2 as the correction subtracted from its
// result; the polynomial splits its input into exponent and mantissa bits.
// CHECK-LABEL: func.func @log_f32
//  CHECK-SAME:   (%[[X:.*]]: f32)
//   CHECK-DAG:   %[[MIN:.*]] = arith.constant 1.17549435E-38 : f32
//   CHECK-DAG:   %[[TWO24:.*]] = arith.constant 0x4B800000 : f32
//   CHECK-DAG:   %[[LN2X24:.*]] = arith.constant 16.6355324 : f32
//   CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//   CHECK-NOT:   math.log
//       CHECK:   %[[ABS:.*]] = math.absf %[[X]] : f32
//       CHECK:   %[[SUBNORMAL:.*]] = arith.cmpf olt, %[[ABS]], %[[MIN]] : f32
//       CHECK:   %[[MUL:.*]] = arith.mulf %[[X]], %[[TWO24]] : f32
//       CHECK:   %[[IN:.*]] = arith.select %[[SUBNORMAL]], %[[MUL]], %[[X]] : f32
//       CHECK:   arith.cmpf ugt, %[[IN]], %[[MIN]] : f32
//       CHECK:   arith.bitcast %{{.*}} : f32 to i32
//       CHECK:   math.fma %{{.*}} : f32
//       CHECK:   %[[OFFSET:.*]] = arith.select %[[SUBNORMAL]], %[[LN2X24]], %[[ZERO]] : f32
//       CHECK:   %[[R:.*]] = arith.subf %{{.*}}, %[[OFFSET]] : f32
//   CHECK-NOT:   math.log
//       CHECK:   return %[[R]] : f32
func.func @log_f32(%x: f32) -> f32 {
  %0 = math.log %x : f32
  return %0 : f32
}

// -----

// log on vector<16xf32>: the same rescaling with splat constants.
// CHECK-LABEL: func.func @log_vector
//  CHECK-SAME:   (%[[X:.*]]: vector<16xf32>)
//   CHECK-DAG:   %[[MIN:.*]] = arith.constant dense<1.17549435E-38> : vector<16xf32>
//   CHECK-DAG:   %[[TWO24:.*]] = arith.constant dense<0x4B800000> : vector<16xf32>
//   CHECK-DAG:   %[[LN2X24:.*]] = arith.constant dense<16.6355324> : vector<16xf32>
//   CHECK-NOT:   math.log
//       CHECK:   %[[ABS:.*]] = math.absf %[[X]] : vector<16xf32>
//       CHECK:   %[[SUBNORMAL:.*]] = arith.cmpf olt, %[[ABS]], %[[MIN]] : vector<16xf32>
//       CHECK:   %[[MUL:.*]] = arith.mulf %[[X]], %[[TWO24]] : vector<16xf32>
//       CHECK:   arith.select %[[SUBNORMAL]], %[[MUL]], %[[X]] : vector<16xi1>, vector<16xf32>
//       CHECK:   math.fma %{{.*}} : vector<16xf32>
//       CHECK:   %[[OFFSET:.*]] = arith.select %[[SUBNORMAL]], %[[LN2X24]], %{{.*}} : vector<16xi1>, vector<16xf32>
//       CHECK:   %[[R:.*]] = arith.subf %{{.*}}, %[[OFFSET]] : vector<16xf32>
//   CHECK-NOT:   math.log
//       CHECK:   return %[[R]] : vector<16xf32>
func.func @log_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.log %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// log2: the same rescaling, with a correction of exactly 24.
// CHECK-LABEL: func.func @log2_f32
//   CHECK-DAG:   %[[MIN:.*]] = arith.constant 1.17549435E-38 : f32
//   CHECK-DAG:   %[[TWENTYFOUR:.*]] = arith.constant 2.400000e+01 : f32
//   CHECK-NOT:   math.log2
//       CHECK:   %[[SUBNORMAL:.*]] = arith.cmpf olt, %{{.*}}, %[[MIN]] : f32
//       CHECK:   math.fma
//       CHECK:   %[[OFFSET:.*]] = arith.select %[[SUBNORMAL]], %[[TWENTYFOUR]], %{{.*}} : f32
//       CHECK:   %[[R:.*]] = arith.subf %{{.*}}, %[[OFFSET]] : f32
//   CHECK-NOT:   math.log2
//       CHECK:   return %[[R]] : f32
func.func @log2_f32(%x: f32) -> f32 {
  %0 = math.log2 %x : f32
  return %0 : f32
}

// -----

// erf: a rational polynomial whose coefficients are selected by interval of |x|.
// CHECK-LABEL: func.func @erf_f32
//   CHECK-NOT:   math.erf
//       CHECK:   arith.select
//       CHECK:   math.fma %{{.*}} : f32
//       CHECK:   arith.divf %{{.*}} : f32
//   CHECK-NOT:   math.erf
//       CHECK:   return
func.func @erf_f32(%x: f32) -> f32 {
  %0 = math.erf %x : f32
  return %0 : f32
}

// -----

// erf on vector<16xf32>.
// CHECK-LABEL: func.func @erf_vector
//   CHECK-NOT:   math.erf
//       CHECK:   math.fma %{{.*}} : vector<16xf32>
//       CHECK:   arith.divf %{{.*}} : vector<16xf32>
//   CHECK-NOT:   math.erf
//       CHECK:   return
func.func @erf_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.erf %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// sin and cos stay (libm is more accurate than the polynomial's range
// reduction), on scalars and vectors alike.
// CHECK-LABEL: func.func @sin_cos_kept
//  CHECK-SAME:   (%[[X:.*]]: f32, %[[V:.*]]: vector<16xf32>)
//       CHECK:   %[[S:.*]] = math.sin %[[X]] : f32
//       CHECK:   %[[C:.*]] = math.cos %[[X]] : f32
//       CHECK:   %[[VS:.*]] = math.sin %[[V]] : vector<16xf32>
//       CHECK:   %[[VC:.*]] = math.cos %[[V]] : vector<16xf32>
//   CHECK-NOT:   math.fma
//       CHECK:   return %[[S]], %[[C]], %[[VS]], %[[VC]]
func.func @sin_cos_kept(%x: f32, %v: vector<16xf32>) -> (f32, f32, vector<16xf32>, vector<16xf32>) {
  %0 = math.sin %x : f32
  %1 = math.cos %x : f32
  %2 = math.sin %v : vector<16xf32>
  %3 = math.cos %v : vector<16xf32>
  return %0, %1, %2, %3 : f32, f32, vector<16xf32>, vector<16xf32>
}

// -----

// asin, acos and atan stay too (upstream's f32 atan polynomial is off by up
// to 41 ulps, asin's by 7.5; libm's by less than 1).
// CHECK-LABEL: func.func @inverse_trig_kept
//  CHECK-SAME:   (%[[X:.*]]: f32, %[[V:.*]]: vector<16xf32>)
//       CHECK:   %[[AS:.*]] = math.asin %[[X]] : f32
//       CHECK:   %[[AC:.*]] = math.acos %[[V]] : vector<16xf32>
//       CHECK:   %[[AT:.*]] = math.atan %[[V]] : vector<16xf32>
//   CHECK-NOT:   math.fma
//       CHECK:   return %[[AS]], %[[AC]], %[[AT]]
func.func @inverse_trig_kept(%x: f32, %v: vector<16xf32>) -> (f32, vector<16xf32>, vector<16xf32>) {
  %0 = math.asin %x : f32
  %1 = math.acos %v : vector<16xf32>
  %2 = math.atan %v : vector<16xf32>
  return %0, %1, %2 : f32, vector<16xf32>, vector<16xf32>
}

// -----

// f64 math stays: the polynomials are f32 ones (and an f64 log is not
// rescaled).
// CHECK-LABEL: func.func @f64_kept
//  CHECK-SAME:   (%[[X:.*]]: f64, %[[V:.*]]: vector<4xf64>)
//       CHECK:   %[[E:.*]] = math.exp %[[X]] : f64
//       CHECK:   %[[T:.*]] = math.tanh %[[X]] : f64
//       CHECK:   %[[L:.*]] = math.log %[[X]] : f64
//       CHECK:   %[[ERF:.*]] = math.erf %[[X]] : f64
//       CHECK:   %[[VE:.*]] = math.exp %[[V]] : vector<4xf64>
//   CHECK-NOT:   arith.select
//   CHECK-NOT:   math.fma
//       CHECK:   return %[[E]], %[[T]], %[[L]], %[[ERF]], %[[VE]]
func.func @f64_kept(%x: f64, %v: vector<4xf64>) -> (f64, f64, f64, f64, vector<4xf64>) {
  %0 = math.exp %x : f64
  %1 = math.tanh %x : f64
  %2 = math.log %x : f64
  %3 = math.erf %x : f64
  %4 = math.exp %v : vector<4xf64>
  return %0, %1, %2, %3, %4 : f64, f64, f64, f64, vector<4xf64>
}

// -----

// Sharing (outline-from=3): three tanh on vector<8xf32> with the same
// attributes become calls of one private, noinline function that holds the
// only polynomial; the two exps (below the threshold) and the tanh on
// another type stay inline. Run with the default options, the same input
// keeps every op inline (SHARE-NONE).
// RUN: lazyc-opt %s -split-input-file --lazy-math-approximation="outline-from=3" | FileCheck %s --check-prefix=SHARE
// SHARE-LABEL: func.func @tanh_chain
//  SHARE-SAME:   (%[[X:.*]]: vector<8xf32>, %[[S:.*]]: vector<4xf32>)
//       SHARE:   %[[T0:.*]] = call @tanh_v8f32(%[[X]]) : (vector<8xf32>) -> vector<8xf32>
//       SHARE:   %[[T1:.*]] = call @tanh_v8f32(%[[T0]])
//       SHARE:   %[[E0:.*]] = arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
//       SHARE:   %[[T2:.*]] = call @tanh_v8f32(%{{.*}})
//   SHARE-NOT:   call
//       SHARE:   math.fma %{{.*}} : vector<4xf32>
//       SHARE:   return
//       SHARE: func.func private @tanh_v8f32(%[[A:.*]]: vector<8xf32>) -> vector<8xf32>
//  SHARE-SAME:   attributes {passthrough = ["noinline"]}
//   SHARE-NOT:   math.tanh
//       SHARE:   math.fma %{{.*}} : vector<8xf32>
//       SHARE:   return %{{.*}} : vector<8xf32>
// SHARE-NONE-LABEL: func.func @tanh_chain
//   SHARE-NONE-NOT:   call
//   SHARE-NONE-NOT:   func.func private
func.func @tanh_chain(%x: vector<8xf32>, %s: vector<4xf32>) -> (vector<8xf32>, vector<4xf32>) {
  %0 = math.tanh %x : vector<8xf32>
  %1 = math.tanh %0 : vector<8xf32>
  %2 = math.exp %1 : vector<8xf32>
  %3 = math.exp %2 : vector<8xf32>
  %4 = math.tanh %3 : vector<8xf32>
  %5 = math.tanh %s : vector<4xf32>
  return %4, %5 : vector<8xf32>, vector<4xf32>
}

// -----

// RUN: lazyc-opt %s -split-input-file --lazy-math-approximation="scale-in-hardware=true" | FileCheck %s --check-prefix=HW

// With scale-in-hardware (the JIT's choice on AVX-512 CPUs), exp is lazyc's
// own: x clamped to [-104, 89] (cmp-and-select, which keeps a NaN), n =
// roundeven(x log2 e), r = x - n ln 2 in two fmas, a degree-6 Horner
// polynomial, and vscalefps(p, n) on each 16 lanes. No integer conversion
// and so no NaN select.
// HW-LABEL: func.func @hw_exp_v64
//  HW-SAME:   (%[[X:.*]]: vector<64xf32>)
//       HW:   %[[HI:.*]] = arith.cmpf olt, %{{.*}}, %[[X]] : vector<64xf32>
//       HW:   %[[CX:.*]] = arith.select %[[HI]], %{{.*}}, %[[X]]
//       HW:   %[[LO:.*]] = arith.cmpf ogt, %{{.*}}, %[[CX]] : vector<64xf32>
//       HW:   %[[C:.*]] = arith.select %[[LO]], %{{.*}}, %[[CX]]
//       HW:   %[[T:.*]] = arith.mulf %[[C]], %{{.*}} : vector<64xf32>
//       HW:   %[[N:.*]] = math.roundeven %[[T]] : vector<64xf32>
//       HW:   %[[R1:.*]] = math.fma %[[N]], %{{.*}}, %[[C]] : vector<64xf32>
//       HW:   %[[R:.*]] = math.fma %[[N]], %{{.*}}, %[[R1]] : vector<64xf32>
// HW-COUNT-6:   math.fma %{{.*}}, %[[R]], %{{.*}} : vector<64xf32>
//   HW-NOT:   arith.fptosi
// HW-COUNT-4:   llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>, i16, i32) -> vector<16xf32>
//   HW-NOT:   arith.cmpf uno
//   HW-NOT:   math.exp
//       HW:   return
func.func @hw_exp_v64(%x: vector<64xf32>) -> vector<64xf32> {
  %0 = math.exp %x : vector<64xf32>
  return %0 : vector<64xf32>
}

// -----

// A scalar fills one register, so it rounds as the vectors do.
// HW-LABEL: func.func @hw_exp_scalar
//       HW:   vector.broadcast %{{.*}} : f32 to vector<16xf32>
//       HW:   llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"
//       HW:   %[[E:.*]] = vector.extract %{{.*}}[0] : f32 from vector<16xf32>
//       HW:   return %[[E]] : f32
func.func @hw_exp_scalar(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  return %0 : f32
}

// -----

// 21 lanes are padded to 32 (two registers) and cut back.
// HW-LABEL: func.func @hw_exp_v21
//       HW:   vector.insert_strided_slice %{{.*}}, %{{.*}} {offsets = [0], strides = [1]} : vector<21xf32> into vector<32xf32>
// HW-COUNT-2:   llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"
//       HW:   %[[Y:.*]] = vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [21], strides = [1]} : vector<32xf32> to vector<21xf32>
//       HW:   return %[[Y]] : vector<21xf32>
func.func @hw_exp_v21(%x: vector<21xf32>) -> vector<21xf32> {
  %0 = math.exp %x : vector<21xf32>
  return %0 : vector<21xf32>
}

// -----

// f64 keeps LLVM's intrinsic.
// HW-LABEL: func.func @hw_exp_untouched
//       HW:   math.exp %{{.*}} : f64
//   HW-NOT:   llvm.call_intrinsic
//       HW:   return
func.func @hw_exp_untouched(%x: f64) -> f64 {
  %0 = math.exp %x : f64
  return %0 : f64
}
