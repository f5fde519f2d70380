// RUN: lazyc-opt %s -split-input-file --convert-lazy-to-linalg | FileCheck %s

// Every lazy op lowered by --convert-lazy-to-linalg, one split case per
// lowering. The expectations follow the semantics documented in LazyOps.td
// and in the pass description (Passes.td).

// A constant becomes arith.constant with the same value.
// CHECK-LABEL: func.func @constant
//       CHECK:   %[[F:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
//       CHECK:   %[[I:.*]] = arith.constant dense<7> : tensor<2x2xi64>
//       CHECK:   %[[B:.*]] = arith.constant dense<[true, false, true]> : tensor<3xi1>
//       CHECK:   return %[[F]], %[[I]], %[[B]]
//   CHECK-NOT:   lazy.
func.func @constant() -> (tensor<2xf32>, tensor<2x2xi64>, tensor<3xi1>) {
  %0 = lazy.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = lazy.constant dense<7> : tensor<2x2xi64>
  %2 = lazy.constant dense<[true, false, true]> : tensor<3xi1>
  return %0, %1, %2 : tensor<2xf32>, tensor<2x2xi64>, tensor<3xi1>
}

// -----

// add: one all-parallel generic over identity maps, into a tensor.empty.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_f32
//  CHECK-SAME:   (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
//       CHECK:   %[[R:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$ID]], #[[$ID]], #[[$ID]]]
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//  CHECK-SAME:     ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>)
//  CHECK-SAME:     outs(%[[E]] : tensor<4x8xf32>)
//       CHECK:   ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @add_f32(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = lazy.add %a, %b : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @add_i32
//       CHECK:   linalg.generic
//       CHECK:   ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
//       CHECK:     %[[S:.*]] = arith.addi %[[X]], %[[Y]] : i32
//       CHECK:     linalg.yield %[[S]] : i32
//   CHECK-NOT:   lazy.
func.func @add_i32(%a: tensor<4x8xi32>, %b: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = lazy.add %a, %b : tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// CHECK-LABEL: func.func @sub_f32
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//       CHECK:   ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = arith.subf %[[X]], %[[Y]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @sub_f32(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = lazy.sub %a, %b : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @sub_i32
//       CHECK:   ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
//       CHECK:     %[[S:.*]] = arith.subi %[[X]], %[[Y]] : i32
//       CHECK:     linalg.yield %[[S]] : i32
//   CHECK-NOT:   lazy.
func.func @sub_i32(%a: tensor<4x8xi32>, %b: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = lazy.sub %a, %b : tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// CHECK-LABEL: func.func @mul_f32
//       CHECK:   ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = arith.mulf %[[X]], %[[Y]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @mul_f32(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = lazy.mul %a, %b : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @mul_i32
//       CHECK:   ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
//       CHECK:     %[[S:.*]] = arith.muli %[[X]], %[[Y]] : i32
//       CHECK:     linalg.yield %[[S]] : i32
//   CHECK-NOT:   lazy.
func.func @mul_i32(%a: tensor<4x8xi32>, %b: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = lazy.mul %a, %b : tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// Float division is IEEE divf. Integer division never traps: a zero divisor,
// and -1 when the dividend is the minimum, are replaced (cmpi + select)
// before the divsi.
// CHECK-LABEL: func.func @div_f32
//       CHECK:   ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = arith.divf %[[X]], %[[Y]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @div_f32(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = lazy.div %a, %b : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @div_i32
//       CHECK:   ^bb0(%[[N:.*]]: i32, %[[D:.*]]: i32, %{{.*}}: i32):
//   CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : i32
//   CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i32
//   CHECK-DAG:     %[[MONE:.*]] = arith.constant -1 : i32
//   CHECK-DAG:     %[[MIN:.*]] = arith.constant -2147483648 : i32
//   CHECK-DAG:     %[[DZERO:.*]] = arith.cmpi eq, %[[D]], %[[ZERO]] : i32
//   CHECK-DAG:     %[[NMIN:.*]] = arith.cmpi eq, %[[N]], %[[MIN]] : i32
//   CHECK-DAG:     %[[DMONE:.*]] = arith.cmpi eq, %[[D]], %[[MONE]] : i32
//       CHECK:     %[[OVF:.*]] = arith.andi %[[NMIN]], %[[DMONE]] : i1
//       CHECK:     %[[BAD:.*]] = arith.ori %[[DZERO]], %[[OVF]] : i1
//       CHECK:     %[[SAFE:.*]] = arith.select %[[BAD]], %[[ONE]], %[[D]] : i32
//       CHECK:     %[[Q:.*]] = arith.divsi %[[N]], %[[SAFE]] : i32
//       CHECK:     linalg.yield %[[Q]] : i32
//   CHECK-NOT:   lazy.
func.func @div_i32(%a: tensor<4x8xi32>, %b: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = lazy.div %a, %b : tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}
// The i64 guard uses the i64 minimum.
// CHECK-LABEL: func.func @div_i64
//       CHECK:   ^bb0(%[[N:.*]]: i64, %[[D:.*]]: i64, %{{.*}}: i64):
//       CHECK:     %[[MIN:.*]] = arith.constant -9223372036854775808 : i64
//       CHECK:     arith.cmpi eq, %[[N]], %[[MIN]] : i64
//       CHECK:     %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[D]] : i64
//       CHECK:     arith.divsi %[[N]], %[[SAFE]] : i64
//   CHECK-NOT:   lazy.
func.func @div_i64(%a: tensor<5xi64>, %b: tensor<5xi64>) -> tensor<5xi64> {
  %0 = lazy.div %a, %b : tensor<5xi64>
  return %0 : tensor<5xi64>
}
// Integer floor_div and mod: truncated division and remainder by a divisor
// that cannot trap, moved toward negative infinity when the remainder's
// sign differs from the divisor's; 0 for a zero divisor.
// CHECK-LABEL: func.func @floor_div_mod_i32
//       CHECK:   ^bb0(%[[N:.*]]: i32, %[[D:.*]]: i32, %{{.*}}: i32):
//       CHECK:     %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[D]] : i32
//       CHECK:     %[[Q:.*]] = arith.divsi %[[N]], %[[SAFE]] : i32
//       CHECK:     %[[R:.*]] = arith.remsi %[[N]], %[[SAFE]] : i32
//       CHECK:     %[[ADJ:.*]] = arith.subi %[[Q]], %{{.*}} : i32
//       CHECK:     %[[FLOOR:.*]] = arith.select %{{.*}}, %[[ADJ]], %[[Q]] : i32
//       CHECK:     %[[ZERO:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : i32
//       CHECK:     arith.select %[[ZERO]], %{{.*}}, %[[FLOOR]] : i32
//       CHECK:   ^bb0(%[[N2:.*]]: i32, %[[D2:.*]]: i32, %{{.*}}: i32):
//       CHECK:     %[[R2:.*]] = arith.remsi %[[N2]], %{{.*}} : i32
//       CHECK:     %[[SUM:.*]] = arith.addi %[[R2]], %[[D2]] : i32
//       CHECK:     arith.select %{{.*}}, %[[SUM]], %[[R2]] : i32
//   CHECK-NOT:   lazy.
func.func @floor_div_mod_i32(%a: tensor<6xi32>, %b: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>) {
  %0 = lazy.floor_div %a, %b : tensor<6xi32>
  %1 = lazy.mod %a, %b : tensor<6xi32>
  return %0, %1 : tensor<6xi32>, tensor<6xi32>
}
// Float floor_div and mod follow numpy's divmod: fmod, then the quotient
// (a - fmod) / b, adjusted and snapped to an integer.
// CHECK-LABEL: func.func @floor_div_f32
//       CHECK:   ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[FMOD:.*]] = arith.remf %[[X]], %[[Y]] : f32
//       CHECK:     arith.subf %[[X]], %[[FMOD]] : f32
//       CHECK:     math.floor
//   CHECK-NOT:   lazy.
func.func @floor_div_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lazy.floor_div %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @pow_f32
//       CHECK:   ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = math.powf %[[X]], %[[Y]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @pow_f32(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = lazy.pow %a, %b : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// Integer pow: math.ipowi on the exponent clamped at 0; negative exponents
// select 0, or 1 / +-1 for bases 1 and -1 (ipowi itself would divide by 0).
// CHECK-LABEL: func.func @pow_i32
//       CHECK:   ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
//       CHECK:     %[[ZERO:.*]] = arith.constant 0 : i32
//       CHECK:     %[[NEG:.*]] = arith.cmpi slt, %[[Y]], %[[ZERO]] : i32
//       CHECK:     %[[CLAMPED:.*]] = arith.maxsi %[[Y]], %[[ZERO]] : i32
//       CHECK:     %[[P:.*]] = math.ipowi %[[X]], %[[CLAMPED]] : i32
//       CHECK:     %[[S:.*]] = arith.select %[[NEG]], %{{.*}}, %[[P]] : i32
//       CHECK:     linalg.yield %[[S]] : i32
//   CHECK-NOT:   lazy.
func.func @pow_i32(%a: tensor<4x8xi32>, %b: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = lazy.pow %a, %b : tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// Float max is NaN-propagating (maximumf, not maxnumf); integers are signed.
// CHECK-LABEL: func.func @max_f32
//       CHECK:   ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = arith.maximumf %[[X]], %[[Y]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @max_f32(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = lazy.max %a, %b : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @max_i32
//       CHECK:   ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
//       CHECK:     %[[S:.*]] = arith.maxsi %[[X]], %[[Y]] : i32
//       CHECK:     linalg.yield %[[S]] : i32
//   CHECK-NOT:   lazy.
func.func @max_i32(%a: tensor<4x8xi32>, %b: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = lazy.max %a, %b : tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// CHECK-LABEL: func.func @min_f32
//       CHECK:   ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = arith.minimumf %[[X]], %[[Y]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @min_f32(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = lazy.min %a, %b : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @min_i32
//       CHECK:   ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
//       CHECK:     %[[S:.*]] = arith.minsi %[[X]], %[[Y]] : i32
//       CHECK:     linalg.yield %[[S]] : i32
//   CHECK-NOT:   lazy.
func.func @min_i32(%a: tensor<4x8xi32>, %b: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = lazy.min %a, %b : tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// Integer negation wraps: 0 - x.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @neg_f32
//  CHECK-SAME:   (%[[A:.*]]: tensor<8xf32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<8xf32>
//       CHECK:   %[[R:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$ID]], #[[$ID]]]
//  CHECK-SAME:     iterator_types = ["parallel"]
//  CHECK-SAME:     ins(%[[A]] : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
//       CHECK:   ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = arith.negf %[[X]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @neg_f32(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = lazy.neg %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}
// CHECK-LABEL: func.func @neg_i64
//       CHECK:   ^bb0(%[[X:.*]]: i64, %{{.*}}: i64):
//       CHECK:     %[[Z:.*]] = arith.constant 0 : i64
//       CHECK:     %[[S:.*]] = arith.subi %[[Z]], %[[X]] : i64
//       CHECK:     linalg.yield %[[S]] : i64
//   CHECK-NOT:   lazy.
func.func @neg_i64(%x: tensor<8xi64>) -> tensor<8xi64> {
  %0 = lazy.neg %x : tensor<8xi64>
  return %0 : tensor<8xi64>
}

// -----

// CHECK-LABEL: func.func @abs_f32
//       CHECK:   ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = math.absf %[[X]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @abs_f32(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = lazy.abs %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}
// Integer abs is max(x, 0 - x) (wrapping: abs(MIN) == MIN), not math.absi,
// which math-to-llvm could not lower on rank >= 2 vectors (found by
// lazyc-fuzz).
// CHECK-LABEL: func.func @abs_i64
//       CHECK:   ^bb0(%[[X:.*]]: i64, %{{.*}}: i64):
//       CHECK:     %[[ZERO:.*]] = arith.constant 0 : i64
//       CHECK:     %[[NEG:.*]] = arith.subi %[[ZERO]], %[[X]] : i64
//       CHECK:     %[[S:.*]] = arith.maxsi %[[X]], %[[NEG]] : i64
//       CHECK:     linalg.yield %[[S]] : i64
//   CHECK-NOT:   lazy.
func.func @abs_i64(%x: tensor<8xi64>) -> tensor<8xi64> {
  %0 = lazy.abs %x : tensor<8xi64>
  return %0 : tensor<8xi64>
}

// -----

// relu is max(x, 0); for floats NaN-propagating (maximumf).
// CHECK-LABEL: func.func @relu_f32
//       CHECK:   ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[Z:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:     %[[S:.*]] = arith.maximumf %[[X]], %[[Z]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @relu_f32(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = lazy.relu %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}
// CHECK-LABEL: func.func @relu_i64
//       CHECK:   ^bb0(%[[X:.*]]: i64, %{{.*}}: i64):
//       CHECK:     %[[Z:.*]] = arith.constant 0 : i64
//       CHECK:     %[[S:.*]] = arith.maxsi %[[X]], %[[Z]] : i64
//       CHECK:     linalg.yield %[[S]] : i64
//   CHECK-NOT:   lazy.
func.func @relu_i64(%x: tensor<8xi64>) -> tensor<8xi64> {
  %0 = lazy.relu %x : tensor<8xi64>
  return %0 : tensor<8xi64>
}

// -----

// CHECK-LABEL: func.func @exp
//       CHECK:   ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = math.exp %[[X]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @exp(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = lazy.exp %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @log
//       CHECK:   ^bb0(%[[X:.*]]: f64, %{{.*}}: f64):
//       CHECK:     %[[S:.*]] = math.log %[[X]] : f64
//       CHECK:     linalg.yield %[[S]] : f64
//   CHECK-NOT:   lazy.
func.func @log(%x: tensor<8xf64>) -> tensor<8xf64> {
  %0 = lazy.log %x : tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

// CHECK-LABEL: func.func @tanh
//       CHECK:   ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = math.tanh %[[X]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = lazy.tanh %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// sigmoid(x) = 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @sigmoid
//       CHECK:   ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
//       CHECK:     %[[NEG:.*]] = arith.negf %[[X]] : f32
//       CHECK:     %[[EXP:.*]] = math.exp %[[NEG]] : f32
//       CHECK:     %[[DEN:.*]] = arith.addf %[[ONE]], %[[EXP]] : f32
//       CHECK:     %[[S:.*]] = arith.divf %[[ONE]], %[[DEN]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @sigmoid(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = lazy.sigmoid %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @sqrt
//       CHECK:   ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = math.sqrt %[[X]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @sqrt(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = lazy.sqrt %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @rsqrt
//       CHECK:   ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = math.rsqrt %[[X]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @rsqrt(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = lazy.rsqrt %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @sin
//       CHECK:   ^bb0(%[[X:.*]]: bf16, %{{.*}}: bf16):
//       CHECK:     %[[S:.*]] = math.sin %[[X]] : bf16
//       CHECK:     linalg.yield %[[S]] : bf16
//   CHECK-NOT:   lazy.
func.func @sin(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = lazy.sin %x : tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

// CHECK-LABEL: func.func @cos
//       CHECK:   ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
//       CHECK:     %[[S:.*]] = math.cos %[[X]] : f16
//       CHECK:     linalg.yield %[[S]] : f16
//   CHECK-NOT:   lazy.
func.func @cos(%x: tensor<8xf16>) -> tensor<8xf16> {
  %0 = lazy.cos %x : tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// CHECK-LABEL: func.func @erf
//       CHECK:   ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = math.erf %[[X]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @erf(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = lazy.erf %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @asin
//       CHECK:   ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = math.asin %[[X]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @asin(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = lazy.asin %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @acos
//       CHECK:   ^bb0(%[[X:.*]]: f64, %{{.*}}: f64):
//       CHECK:     %[[S:.*]] = math.acos %[[X]] : f64
//       CHECK:     linalg.yield %[[S]] : f64
//   CHECK-NOT:   lazy.
func.func @acos(%x: tensor<8xf64>) -> tensor<8xf64> {
  %0 = lazy.acos %x : tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

// CHECK-LABEL: func.func @atan
//       CHECK:   ^bb0(%[[X:.*]]: bf16, %{{.*}}: bf16):
//       CHECK:     %[[S:.*]] = math.atan %[[X]] : bf16
//       CHECK:     linalg.yield %[[S]] : bf16
//   CHECK-NOT:   lazy.
func.func @atan(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = lazy.atan %x : tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

// Elementwise ops on dynamic shapes size their result with tensor.dim.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @dynamic_elementwise
//  CHECK-SAME:   (%[[A:.*]]: tensor<?x4x?xf32>, %[[B:.*]]: tensor<?x4x?xf32>)
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : index
//   CHECK-DAG:   %[[D0:.*]] = tensor.dim %{{.*}}, %[[C0]] : tensor<?x4x?xf32>
//   CHECK-DAG:   %[[D2:.*]] = tensor.dim %{{.*}}, %[[C2]] : tensor<?x4x?xf32>
//       CHECK:   %[[E:.*]] = tensor.empty(%[[D0]], %[[D2]]) : tensor<?x4x?xf32>
//       CHECK:   %[[R:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$ID]], #[[$ID]], #[[$ID]]]
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "parallel"]
//  CHECK-SAME:     ins(%[[A]], %[[B]] : tensor<?x4x?xf32>, tensor<?x4x?xf32>)
//  CHECK-SAME:     outs(%[[E]] : tensor<?x4x?xf32>)
//       CHECK:     arith.mulf
//       CHECK:   } -> tensor<?x4x?xf32>
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @dynamic_elementwise(%a: tensor<?x4x?xf32>, %b: tensor<?x4x?xf32>) -> tensor<?x4x?xf32> {
  %0 = lazy.mul %a, %b : tensor<?x4x?xf32>
  return %0 : tensor<?x4x?xf32>
}

// -----

// Float compares are ordered, except ne (unordered: true on NaN).
// CHECK-LABEL: func.func @compare_f32
//  CHECK-SAME:   (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<4xi1>
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>) outs(%[[E]] : tensor<4xi1>)
//       CHECK:   ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: i1):
//       CHECK:     %[[C:.*]] = arith.cmpf oeq, %[[X]], %[[Y]] : f32
//       CHECK:     linalg.yield %[[C]] : i1
//       CHECK:   } -> tensor<4xi1>
//       CHECK:   arith.cmpf une, %{{.*}}, %{{.*}} : f32
//       CHECK:   arith.cmpf olt, %{{.*}}, %{{.*}} : f32
//       CHECK:   arith.cmpf ole, %{{.*}}, %{{.*}} : f32
//       CHECK:   arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
//       CHECK:   arith.cmpf oge, %{{.*}}, %{{.*}} : f32
//   CHECK-NOT:   lazy.
func.func @compare_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = lazy.compare eq, %a, %b : tensor<4xf32>
  %1 = lazy.compare ne, %a, %b : tensor<4xf32>
  %2 = lazy.compare lt, %a, %b : tensor<4xf32>
  %3 = lazy.compare le, %a, %b : tensor<4xf32>
  %4 = lazy.compare gt, %a, %b : tensor<4xf32>
  %5 = lazy.compare ge, %a, %b : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// Integers compare as signed values.
// CHECK-LABEL: func.func @compare_i32
//       CHECK:   ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i1):
//       CHECK:     %[[C:.*]] = arith.cmpi eq, %[[X]], %[[Y]] : i32
//       CHECK:     linalg.yield %[[C]] : i1
//       CHECK:   arith.cmpi ne, %{{.*}}, %{{.*}} : i32
//       CHECK:   arith.cmpi slt, %{{.*}}, %{{.*}} : i32
//       CHECK:   arith.cmpi sle, %{{.*}}, %{{.*}} : i32
//       CHECK:   arith.cmpi sgt, %{{.*}}, %{{.*}} : i32
//       CHECK:   arith.cmpi sge, %{{.*}}, %{{.*}} : i32
//   CHECK-NOT:   lazy.
func.func @compare_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = lazy.compare eq, %a, %b : tensor<4xi32>
  %1 = lazy.compare ne, %a, %b : tensor<4xi32>
  %2 = lazy.compare lt, %a, %b : tensor<4xi32>
  %3 = lazy.compare le, %a, %b : tensor<4xi32>
  %4 = lazy.compare gt, %a, %b : tensor<4xi32>
  %5 = lazy.compare ge, %a, %b : tensor<4xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// Booleans order false < true: unsigned predicates.
// CHECK-LABEL: func.func @compare_i1
//       CHECK:   ^bb0(%[[X:.*]]: i1, %[[Y:.*]]: i1, %{{.*}}: i1):
//       CHECK:     %[[C:.*]] = arith.cmpi eq, %[[X]], %[[Y]] : i1
//       CHECK:     linalg.yield %[[C]] : i1
//       CHECK:   arith.cmpi ne, %{{.*}}, %{{.*}} : i1
//       CHECK:   arith.cmpi ult, %{{.*}}, %{{.*}} : i1
//       CHECK:   arith.cmpi ule, %{{.*}}, %{{.*}} : i1
//       CHECK:   arith.cmpi ugt, %{{.*}}, %{{.*}} : i1
//       CHECK:   arith.cmpi uge, %{{.*}}, %{{.*}} : i1
//   CHECK-NOT:   lazy.
func.func @compare_i1(%a: tensor<4xi1>, %b: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = lazy.compare eq, %a, %b : tensor<4xi1>
  %1 = lazy.compare ne, %a, %b : tensor<4xi1>
  %2 = lazy.compare lt, %a, %b : tensor<4xi1>
  %3 = lazy.compare le, %a, %b : tensor<4xi1>
  %4 = lazy.compare gt, %a, %b : tensor<4xi1>
  %5 = lazy.compare ge, %a, %b : tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @select
//  CHECK-SAME:   (%[[C:.*]]: tensor<2x3xi1>, %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
//       CHECK:   %[[R:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$ID]], #[[$ID]], #[[$ID]], #[[$ID]]]
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//  CHECK-SAME:     ins(%[[C]], %[[A]], %[[B]] : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>)
//  CHECK-SAME:     outs(%[[E]] : tensor<2x3xf32>)
//       CHECK:   ^bb0(%[[P:.*]]: i1, %[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[S:.*]] = arith.select %[[P]], %[[X]], %[[Y]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @select(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = lazy.select %c, %a, %b : tensor<2x3xi1>, tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// cast: float -> int truncates (fptosi), int -> float is signed (sitofp)
// except from i1 (uitofp: 0 or 1), floats extend / round (extf / truncf),
// ints sign-extend or truncate, i1 zero-extends, and to i1 is x != 0
// (unordered for floats, so NaN -> true).
// CHECK-LABEL: func.func @cast
//  CHECK-SAME:   (%[[F:.*]]: tensor<4xf32>, %[[H:.*]]: tensor<4xf16>, %[[I:.*]]: tensor<4xi32>, %[[L:.*]]: tensor<4xi64>, %[[P:.*]]: tensor<4xi1>)
//       CHECK:   linalg.generic {{.*}} ins(%[[F]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xi32>)
//       CHECK:   ^bb0(%[[X:.*]]: f32, %{{.*}}: i32):
//       CHECK:     %[[V:.*]] = arith.fptosi %[[X]] : f32 to i32
//       CHECK:     linalg.yield %[[V]] : i32
//       CHECK:   linalg.generic {{.*}} ins(%[[P]] : tensor<4xi1>) outs(%{{.*}} : tensor<4xf32>)
//       CHECK:     arith.uitofp %{{.*}} : i1 to f32
//       CHECK:   linalg.generic {{.*}} ins(%[[I]] : tensor<4xi32>) outs(%{{.*}} : tensor<4xf32>)
//       CHECK:     arith.sitofp %{{.*}} : i32 to f32
//       CHECK:   linalg.generic {{.*}} ins(%[[F]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf16>)
//       CHECK:     arith.truncf %{{.*}} : f32 to f16
//       CHECK:   linalg.generic {{.*}} ins(%[[H]] : tensor<4xf16>) outs(%{{.*}} : tensor<4xf32>)
//       CHECK:     arith.extf %{{.*}} : f16 to f32
//       CHECK:   linalg.generic {{.*}} ins(%[[I]] : tensor<4xi32>) outs(%{{.*}} : tensor<4xi64>)
//       CHECK:     arith.extsi %{{.*}} : i32 to i64
//       CHECK:   linalg.generic {{.*}} ins(%[[L]] : tensor<4xi64>) outs(%{{.*}} : tensor<4xi32>)
//       CHECK:     arith.trunci %{{.*}} : i64 to i32
//       CHECK:   linalg.generic {{.*}} ins(%[[P]] : tensor<4xi1>) outs(%{{.*}} : tensor<4xi32>)
//       CHECK:     arith.extui %{{.*}} : i1 to i32
//       CHECK:   linalg.generic {{.*}} ins(%[[F]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xi1>)
//       CHECK:   ^bb0(%[[X:.*]]: f32, %{{.*}}: i1):
//       CHECK:     %[[Z:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:     %[[V:.*]] = arith.cmpf une, %[[X]], %[[Z]] : f32
//       CHECK:     linalg.yield %[[V]] : i1
//       CHECK:   linalg.generic {{.*}} ins(%[[I]] : tensor<4xi32>) outs(%{{.*}} : tensor<4xi1>)
//       CHECK:   ^bb0(%[[X:.*]]: i32, %{{.*}}: i1):
//       CHECK:     %[[Z:.*]] = arith.constant 0 : i32
//       CHECK:     %[[V:.*]] = arith.cmpi ne, %[[X]], %[[Z]] : i32
//       CHECK:     linalg.yield %[[V]] : i1
//   CHECK-NOT:   lazy.
func.func @cast(%f: tensor<4xf32>, %h: tensor<4xf16>, %i: tensor<4xi32>, %l: tensor<4xi64>, %p: tensor<4xi1>)
    -> (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<4xi64>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>) {
  %0 = lazy.cast %f : tensor<4xf32> to tensor<4xi32>
  %1 = lazy.cast %p : tensor<4xi1> to tensor<4xf32>
  %2 = lazy.cast %i : tensor<4xi32> to tensor<4xf32>
  %3 = lazy.cast %f : tensor<4xf32> to tensor<4xf16>
  %4 = lazy.cast %h : tensor<4xf16> to tensor<4xf32>
  %5 = lazy.cast %i : tensor<4xi32> to tensor<4xi64>
  %6 = lazy.cast %l : tensor<4xi64> to tensor<4xi32>
  %7 = lazy.cast %p : tensor<4xi1> to tensor<4xi32>
  %8 = lazy.cast %f : tensor<4xf32> to tensor<4xi1>
  %9 = lazy.cast %i : tensor<4xi32> to tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<4xi64>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>
}

// -----

// bitcast: arith.bitcast between floats and integers of one width; the
// same bits between integers of another signedness; i1 as a byte (0 or 1
// out, the lowest bit in).
// CHECK-LABEL: func.func @bitcast
//  CHECK-SAME:   (%[[F:.*]]: tensor<4xf32>, %[[H:.*]]: tensor<4xf16>, %[[I:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi8>, %[[P:.*]]: tensor<4xi1>)
//       CHECK:   linalg.generic {{.*}} ins(%[[F]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xi32>)
//       CHECK:     arith.bitcast %{{.*}} : f32 to i32
//       CHECK:   linalg.generic {{.*}} ins(%[[H]] : tensor<4xf16>) outs(%{{.*}} : tensor<4xbf16>)
//       CHECK:     arith.bitcast %{{.*}} : f16 to bf16
//       CHECK:   linalg.generic {{.*}} ins(%[[I]] : tensor<4xi32>) outs(%{{.*}} : tensor<4xf32>)
//       CHECK:     arith.bitcast %{{.*}} : i32 to f32
//       CHECK:   linalg.generic {{.*}} ins(%[[P]] : tensor<4xi1>) outs(%{{.*}} : tensor<4xi8>)
//       CHECK:     arith.extui %{{.*}} : i1 to i8
//       CHECK:   linalg.generic {{.*}} ins(%[[B]] : tensor<4xi8>) outs(%{{.*}} : tensor<4xi1>)
//       CHECK:     arith.trunci %{{.*}} : i8 to i1
//   CHECK-NOT:   lazy.
func.func @bitcast(%f: tensor<4xf32>, %h: tensor<4xf16>, %i: tensor<4xi32>, %b: tensor<4xui8>, %p: tensor<4xi1>)
    -> (tensor<4xi32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xui8>, tensor<4xi1>) {
  %0 = lazy.bitcast %f : tensor<4xf32> to tensor<4xi32>
  %1 = lazy.bitcast %h : tensor<4xf16> to tensor<4xbf16>
  %2 = lazy.bitcast %i : tensor<4xi32> to tensor<4xf32>
  %3 = lazy.bitcast %p : tensor<4xi1> to tensor<4xui8>
  %4 = lazy.bitcast %b : tensor<4xui8> to tensor<4xi1>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xui8>, tensor<4xi1>
}

// -----

// broadcast: size-1 input dimensions read index 0, added leading dimensions
// are not read at all; the result is written through the identity.
// CHECK-DAG: #[[$B4:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d3)>
// CHECK-DAG: #[[$ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$B2:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @broadcast
//  CHECK-SAME:   (%[[X:.*]]: tensor<1x3xf32>, %[[Y:.*]]: tensor<3xf32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<2x5x4x3xf32>
//       CHECK:   %[[R0:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$B4]], #[[$ID4]]]
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "parallel", "parallel"]
//  CHECK-SAME:     ins(%[[X]] : tensor<1x3xf32>) outs(%[[E]] : tensor<2x5x4x3xf32>)
//       CHECK:   ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
//       CHECK:     linalg.yield %[[IN]] : f32
//       CHECK:   %[[R1:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$B2]], #[[$ID2]]]
//  CHECK-SAME:     ins(%[[Y]] : tensor<3xf32>) outs(%{{.*}} : tensor<4x3xf32>)
//       CHECK:   return %[[R0]], %[[R1]]
//   CHECK-NOT:   lazy.
func.func @broadcast(%x: tensor<1x3xf32>, %y: tensor<3xf32>) -> (tensor<2x5x4x3xf32>, tensor<4x3xf32>) {
  %0 = lazy.broadcast %x to [2, 5, 4, 3] : tensor<1x3xf32>
  %1 = lazy.broadcast %y to [4, 3] : tensor<3xf32>
  return %0, %1 : tensor<2x5x4x3xf32>, tensor<4x3xf32>
}

// -----

// A rank-0 input is read with an empty map.
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @broadcast_scalar
//       CHECK:   linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$SCALAR]], #{{.*}}]
//  CHECK-SAME:     ins(%{{.*}} : tensor<f32>) outs(%{{.*}} : tensor<2x3xf32>)
//   CHECK-NOT:   lazy.
func.func @broadcast_scalar(%x: tensor<f32>) -> tensor<2x3xf32> {
  %0 = lazy.broadcast %x to [2, 3] : tensor<f32>
  return %0 : tensor<2x3xf32>
}

// -----

// transpose [2, 0, 1]: result dimension i is input dimension perm[i], so the
// input is read at (d1, d2, d0).
// CHECK-DAG: #[[$PERM:.*]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$SWAP:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @transpose
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x3x4xf32>, %[[Y:.*]]: tensor<?x3xf32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<4x2x3xf32>
//       CHECK:   %[[R0:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$PERM]], #[[$ID3]]]
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "parallel"]
//  CHECK-SAME:     ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>)
// A dynamic result dimension takes its size from the permuted input one.
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   %[[D:.*]] = tensor.dim %[[Y]], %[[C0]] : tensor<?x3xf32>
//       CHECK:   %[[E1:.*]] = tensor.empty(%[[D]]) : tensor<3x?xf32>
//       CHECK:   %[[R1:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$SWAP]], #{{.*}}]
//  CHECK-SAME:     ins(%[[Y]] : tensor<?x3xf32>) outs(%[[E1]] : tensor<3x?xf32>)
//       CHECK:   return %[[R0]], %[[R1]]
//   CHECK-NOT:   lazy.
func.func @transpose(%x: tensor<2x3x4xf32>, %y: tensor<?x3xf32>) -> (tensor<4x2x3xf32>, tensor<3x?xf32>) {
  %0 = lazy.transpose %x [2, 0, 1] : tensor<2x3x4xf32>
  %1 = lazy.transpose %y [1, 0] : tensor<?x3xf32>
  return %0, %1 : tensor<4x2x3xf32>, tensor<3x?xf32>
}

// -----

// reshape: expand and collapse when the dimensions group, otherwise through
// one dimension; rank 0 with empty reassociations; a dynamic source is
// flattened and cast to its (static) element count first.
// CHECK-LABEL: func.func @reshape_expand
//  CHECK-SAME:   (%[[X:.*]]: tensor<6xf32>)
//       CHECK:   %[[R:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @reshape_expand(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  %0 = lazy.reshape %x to [2, 3] : tensor<6xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reshape_collapse
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x3x4xi64>)
//       CHECK:   %[[R:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xi64> into tensor<6x4xi64>
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @reshape_collapse(%x: tensor<2x3x4xi64>) -> tensor<6x4xi64> {
  %0 = lazy.reshape %x to [6, 4] : tensor<2x3x4xi64>
  return %0 : tensor<6x4xi64>
}

// 2x3 -> 3x2 has no reassociation: collapse to 6, expand to 3x2 (row-major).
// CHECK-LABEL: func.func @reshape_general
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x3xf32>)
//       CHECK:   %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
//       CHECK:   %[[R:.*]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @reshape_general(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = lazy.reshape %x to [3, 2] : tensor<2x3xf32>
  return %0 : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @reshape_rank0
//  CHECK-SAME:   (%[[S:.*]]: tensor<f32>, %[[O:.*]]: tensor<1x1xf32>)
//       CHECK:   %[[UP:.*]] = tensor.expand_shape %[[S]] [] output_shape [1, 1, 1] : tensor<f32> into tensor<1x1x1xf32>
//       CHECK:   %[[DOWN:.*]] = tensor.collapse_shape %[[O]] [] : tensor<1x1xf32> into tensor<f32>
//       CHECK:   return %[[UP]], %[[DOWN]]
//   CHECK-NOT:   lazy.
func.func @reshape_rank0(%s: tensor<f32>, %o: tensor<1x1xf32>) -> (tensor<1x1x1xf32>, tensor<f32>) {
  %0 = lazy.reshape %s to [1, 1, 1] : tensor<f32>
  %1 = lazy.reshape %o to [] : tensor<1x1xf32>
  return %0, %1 : tensor<1x1x1xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @reshape_dynamic
//  CHECK-SAME:   (%[[X:.*]]: tensor<?x4xf32>)
//       CHECK:   %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
//       CHECK:   %[[C:.*]] = tensor.cast %[[F]] : tensor<?xf32> to tensor<8xf32>
//       CHECK:   %[[R:.*]] = tensor.expand_shape %[[C]] {{\[}}[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @reshape_dynamic(%x: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %0 = lazy.reshape %x to [2, 4] : tensor<?x4xf32>
  return %0 : tensor<2x4xf32>
}

// A dynamic source collapsed into rank 0 is first given its static size 1:
// a collapse into rank 0 only takes static sizes of 1 (eager mode's dynamic
// [?] -> [] reshape: lazyc-fuzz seed 2400429).
// CHECK-LABEL: func.func @reshape_dynamic_to_rank0
//  CHECK-SAME:   (%[[X:.*]]: tensor<?xf32>)
//       CHECK:   %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0]] : tensor<?xf32> into tensor<?xf32>
//       CHECK:   %[[C:.*]] = tensor.cast %[[F]] : tensor<?xf32> to tensor<1xf32>
//       CHECK:   %[[R:.*]] = tensor.collapse_shape %[[C]] [] : tensor<1xf32> into tensor<f32>
//       CHECK:   return %[[R]]
func.func @reshape_dynamic_to_rank0(%x: tensor<?xf32>) -> tensor<f32> {
  %0 = lazy.reshape %x to [] : tensor<?xf32>
  return %0 : tensor<f32>
}

// -----

// slice: offsets = start, sizes = ceil((limit - start) / step), strides = step;
// an empty slice reads nothing: it is a tensor.empty.
// CHECK-LABEL: func.func @slice
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x3x4xf32>, %[[Y:.*]]: tensor<?x8xf32>, %[[Z:.*]]: tensor<6xi64>)
//       CHECK:   %[[S0:.*]] = tensor.extract_slice %[[X]][0, 1, 0] [2, 2, 2] [1, 1, 3] : tensor<2x3x4xf32> to tensor<2x2x2xf32>
//       CHECK:   %[[S1:.*]] = tensor.extract_slice %[[Y]][1, 2] [2, 3] [1, 2] : tensor<?x8xf32> to tensor<2x3xf32>
//       CHECK:   %[[S2:.*]] = tensor.empty() : tensor<0xi64>
//       CHECK:   return %[[S0]], %[[S1]], %[[S2]]
//   CHECK-NOT:   lazy.
func.func @slice(%x: tensor<2x3x4xf32>, %y: tensor<?x8xf32>, %z: tensor<6xi64>) -> (tensor<2x2x2xf32>, tensor<2x3xf32>, tensor<0xi64>) {
  %0 = lazy.slice %x [0, 1, 0] to [2, 3, 4] step [1, 1, 3] : tensor<2x3x4xf32>
  %1 = lazy.slice %y [1, 2] to [3, 8] step [1, 2] : tensor<?x8xf32>
  %2 = lazy.slice %z [1] to [1] step [1] : tensor<6xi64>
  return %0, %1, %2 : tensor<2x2x2xf32>, tensor<2x3xf32>, tensor<0xi64>
}

// -----

// concat: one tensor.empty, then each operand inserted at the running offset
// along the axis.
// CHECK-LABEL: func.func @concat
//  CHECK-SAME:   (%[[A:.*]]: tensor<1x3xf32>, %[[B:.*]]: tensor<4x3xf32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<6x3xf32>
//       CHECK:   %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [1, 3] [1, 1] : tensor<1x3xf32> into tensor<6x3xf32>
//       CHECK:   %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][1, 0] [4, 3] [1, 1] : tensor<4x3xf32> into tensor<6x3xf32>
//       CHECK:   %[[I2:.*]] = tensor.insert_slice %[[A]] into %[[I1]][5, 0] [1, 3] [1, 1] : tensor<1x3xf32> into tensor<6x3xf32>
//       CHECK:   return %[[I2]]
//   CHECK-NOT:   lazy.
func.func @concat(%a: tensor<1x3xf32>, %b: tensor<4x3xf32>) -> tensor<6x3xf32> {
  %0 = lazy.concat %a, %b, %a axis = 0 : tensor<1x3xf32>, tensor<4x3xf32>, tensor<1x3xf32>
  return %0 : tensor<6x3xf32>
}

// CHECK-LABEL: func.func @concat_axis1
//  CHECK-SAME:   (%[[A:.*]]: tensor<2x3xi32>, %[[B:.*]]: tensor<2x5xi32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<2x8xi32>
//       CHECK:   %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1]
//       CHECK:   %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][0, 3] [2, 5] [1, 1]
//       CHECK:   return %[[I1]]
//   CHECK-NOT:   lazy.
func.func @concat_axis1(%a: tensor<2x3xi32>, %b: tensor<2x5xi32>) -> tensor<2x8xi32> {
  %0 = lazy.concat %a, %b axis = 1 : tensor<2x3xi32>, tensor<2x5xi32>
  return %0 : tensor<2x8xi32>
}

// With a dynamic operand the result size is the sum of the operands' sizes
// along the axis, and the offsets after it are computed.
// CHECK-LABEL: func.func @concat_dynamic
//  CHECK-SAME:   (%[[A:.*]]: tensor<1x3xf32>, %[[C:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<4x3xf32>)
//       CHECK:   %[[DA:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<1x3xf32>
//       CHECK:   %[[S1:.*]] = arith.addi %{{.*}}, %[[DA]] : index
//       CHECK:   %[[DC:.*]] = tensor.dim %[[C]], %{{.*}} : tensor<?x3xf32>
//       CHECK:   %[[S2:.*]] = arith.addi %[[S1]], %[[DC]] : index
//       CHECK:   %[[DB:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<4x3xf32>
//       CHECK:   %[[S3:.*]] = arith.addi %[[S2]], %[[DB]] : index
//       CHECK:   %[[E:.*]] = tensor.empty(%[[S3]]) : tensor<?x3xf32>
//       CHECK:   %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [1, 3] [1, 1] : tensor<1x3xf32> into tensor<?x3xf32>
//       CHECK:   %[[N:.*]] = tensor.dim %[[C]], %{{.*}} : tensor<?x3xf32>
//       CHECK:   %[[I1:.*]] = tensor.insert_slice %[[C]] into %[[I0]][1, 0] [%[[N]], 3] [1, 1] : tensor<?x3xf32> into tensor<?x3xf32>
//       CHECK:   %[[C1:.*]] = arith.constant 1 : index
//       CHECK:   %[[OFF:.*]] = arith.addi %[[C1]], %[[N]] : index
//       CHECK:   %[[I2:.*]] = tensor.insert_slice %[[B]] into %[[I1]][%[[OFF]], 0] [4, 3] [1, 1] : tensor<4x3xf32> into tensor<?x3xf32>
//       CHECK:   return %[[I2]]
//   CHECK-NOT:   lazy.
func.func @concat_dynamic(%a: tensor<1x3xf32>, %c: tensor<?x3xf32>, %b: tensor<4x3xf32>) -> tensor<?x3xf32> {
  %0 = lazy.concat %a, %c, %b axis = 0 : tensor<1x3xf32>, tensor<?x3xf32>, tensor<4x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// reduce_sum: a generic with reduction iterators over the reduced axes into
// a zero-filled accumulator.
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @reduce_sum
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x3x4xf32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2x4xf32>)
//       CHECK:   %[[R:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$IN]], #[[$OUT]]]
//  CHECK-SAME:     iterator_types = ["parallel", "reduction", "parallel"]
//  CHECK-SAME:     ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[ACC]] : tensor<2x4xf32>)
//       CHECK:   ^bb0(%[[V:.*]]: f32, %[[A:.*]]: f32):
//       CHECK:     %[[S:.*]] = arith.addf %[[A]], %[[V]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @reduce_sum(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %0 = lazy.reduce_sum %x [1] : tensor<2x3x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// keep_dims: each kept dimension is a size-1 parallel loop in front of its
// reduction loop, so the accumulator has the result's shape (no reshape).
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d4)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @reduce_sum_keep_dims
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x3x4xi64>)
//       CHECK:   %[[ZERO:.*]] = arith.constant 0 : i64
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : i64) outs(%{{.*}} : tensor<1x3x1xi64>)
//       CHECK:   %[[R:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$IN]], #[[$OUT]]]
//  CHECK-SAME:     iterator_types = ["parallel", "reduction", "parallel", "parallel", "reduction"]
//  CHECK-SAME:     outs(%[[ACC]] : tensor<1x3x1xi64>)
//       CHECK:     arith.addi
//   CHECK-NOT:   tensor.expand_shape
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @reduce_sum_keep_dims(%x: tensor<2x3x4xi64>) -> tensor<1x3x1xi64> {
  %0 = lazy.reduce_sum %x [0, 2] keep_dims : tensor<2x3x4xi64>
  return %0 : tensor<1x3x1xi64>
}

// -----

// reduce_max: -inf (0xFF800000 in f32) or the integer minimum as identity;
// NaN-propagating maximumf for floats, maxsi for integers.
// CHECK-LABEL: func.func @reduce_max_f32
//       CHECK:   %[[NINF:.*]] = arith.constant 0xFF800000 : f32
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<2x4xf32>)
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "reduction", "parallel"]
//  CHECK-SAME:     outs(%[[ACC]] : tensor<2x4xf32>)
//       CHECK:   ^bb0(%[[V:.*]]: f32, %[[A:.*]]: f32):
//       CHECK:     %[[S:.*]] = arith.maximumf %[[A]], %[[V]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//   CHECK-NOT:   lazy.
func.func @reduce_max_f32(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %0 = lazy.reduce_max %x [1] : tensor<2x3x4xf32>
  return %0 : tensor<2x4xf32>
}
// CHECK-LABEL: func.func @reduce_max_i32
//       CHECK:   %[[MIN:.*]] = arith.constant -2147483648 : i32
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%[[MIN]] : i32) outs(%{{.*}} : tensor<7xi32>)
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["reduction", "parallel"]
//  CHECK-SAME:     outs(%[[ACC]] : tensor<7xi32>)
//       CHECK:   ^bb0(%[[V:.*]]: i32, %[[A:.*]]: i32):
//       CHECK:     %[[S:.*]] = arith.maxsi %[[A]], %[[V]] : i32
//       CHECK:     linalg.yield %[[S]] : i32
//   CHECK-NOT:   lazy.
func.func @reduce_max_i32(%x: tensor<5x7xi32>) -> tensor<7xi32> {
  %0 = lazy.reduce_max %x [0] : tensor<5x7xi32>
  return %0 : tensor<7xi32>
}

// -----

// reduce_min: +inf or the integer maximum as identity; minimumf / minsi.
// The dynamic case keeps its reduced dimension as a size-1 loop.
// CHECK-LABEL: func.func @reduce_min_f64
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x?xf64>)
//       CHECK:   %[[INF:.*]] = arith.constant 0x7FF0000000000000 : f64
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%[[INF]] : f64) outs(%{{.*}} : tensor<2x1xf64>)
//       CHECK:   %[[R:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "reduction"]
//  CHECK-SAME:     ins(%[[X]] : tensor<2x?xf64>) outs(%[[ACC]] : tensor<2x1xf64>)
//       CHECK:   ^bb0(%[[V:.*]]: f64, %[[A:.*]]: f64):
//       CHECK:     %[[S:.*]] = arith.minimumf %[[A]], %[[V]] : f64
//       CHECK:     linalg.yield %[[S]] : f64
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @reduce_min_f64(%x: tensor<2x?xf64>) -> tensor<2x1xf64> {
  %0 = lazy.reduce_min %x [1] keep_dims : tensor<2x?xf64>
  return %0 : tensor<2x1xf64>
}
// CHECK-LABEL: func.func @reduce_min_i32
//       CHECK:   %[[MAX:.*]] = arith.constant 2147483647 : i32
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%[[MAX]] : i32) outs(%{{.*}} : tensor<5xi32>)
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "reduction"]
//  CHECK-SAME:     outs(%[[ACC]] : tensor<5xi32>)
//       CHECK:   ^bb0(%[[V:.*]]: i32, %[[A:.*]]: i32):
//       CHECK:     %[[S:.*]] = arith.minsi %[[A]], %[[V]] : i32
//       CHECK:     linalg.yield %[[S]] : i32
//   CHECK-NOT:   lazy.
func.func @reduce_min_i32(%x: tensor<5x7xi32>) -> tensor<5xi32> {
  %0 = lazy.reduce_min %x [1] : tensor<5x7xi32>
  return %0 : tensor<5xi32>
}

// -----

// A dynamic reduced dimension: the accumulator is sized by the kept
// dimensions only.
// CHECK-LABEL: func.func @reduce_dynamic
//  CHECK-SAME:   (%[[X:.*]]: tensor<?x?xf32>)
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   %[[D0:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x?xf32>
//       CHECK:   %[[E:.*]] = tensor.empty(%[[D0]]) : tensor<?xf32>
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?xf32>)
//       CHECK:   %[[R:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "reduction"]
//  CHECK-SAME:     ins(%[[X]] : tensor<?x?xf32>) outs(%[[ACC]] : tensor<?xf32>)
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @reduce_dynamic(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = lazy.reduce_sum %x [1] : tensor<?x?xf32>
  return %0 : tensor<?xf32>
}

// -----

// reduce_mean (left by lazy-decompose only for dynamic shapes, lowered
// directly for any shape): the sum, then a division by the number of reduced
// elements (3 * 5 = 15 here); kept dimensions are size-1 loops.
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @reduce_mean
//  CHECK-SAME:   (%[[X:.*]]: tensor<3x4x5xf16>)
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f16) outs(%{{.*}} : tensor<1x4x1xf16>)
//       CHECK:   %[[SUM:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "reduction", "parallel", "parallel", "reduction"]
//  CHECK-SAME:     ins(%[[X]] : tensor<3x4x5xf16>) outs(%[[ACC]] : tensor<1x4x1xf16>)
//       CHECK:     arith.addf
//       CHECK:   %[[N:.*]] = arith.constant 15 : index
//       CHECK:   %[[NI:.*]] = arith.index_cast %[[N]] : index to i64
//       CHECK:   %[[NF:.*]] = arith.sitofp %[[NI]] : i64 to f16
//       CHECK:   %[[MEAN:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$ID3]], #[[$ID3]]]
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "parallel"]
//  CHECK-SAME:     ins(%[[SUM]] : tensor<1x4x1xf16>)
//       CHECK:   ^bb0(%[[V:.*]]: f16, %{{.*}}: f16):
//       CHECK:     %[[Q:.*]] = arith.divf %[[V]], %[[NF]] : f16
//       CHECK:     linalg.yield %[[Q]] : f16
//       CHECK:   return %[[MEAN]]
//   CHECK-NOT:   lazy.
func.func @reduce_mean(%x: tensor<3x4x5xf16>) -> tensor<1x4x1xf16> {
  %0 = lazy.reduce_mean %x [0, 2] keep_dims : tensor<3x4x5xf16>
  return %0 : tensor<1x4x1xf16>
}

// -----

// A dynamic reduce_mean counts the reduced elements with tensor.dim.
// CHECK-LABEL: func.func @reduce_mean_dynamic
//  CHECK-SAME:   (%[[X:.*]]: tensor<?x8xf32>)
//       CHECK:   %[[SUM:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["reduction", "parallel"]
//  CHECK-SAME:     ins(%[[X]] : tensor<?x8xf32>)
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   %[[D:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x8xf32>
//       CHECK:   %[[N:.*]] = arith.muli %{{.*}}, %[[D]] : index
//       CHECK:   %[[NI:.*]] = arith.index_cast %[[N]] : index to i64
//       CHECK:   %[[NF:.*]] = arith.sitofp %[[NI]] : i64 to f32
//       CHECK:   %[[MEAN:.*]] = linalg.generic
//  CHECK-SAME:     ins(%[[SUM]] : tensor<8xf32>)
//       CHECK:   ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[Q:.*]] = arith.divf %[[V]], %[[NF]] : f32
//       CHECK:   return %[[MEAN]]
//   CHECK-NOT:   lazy.
func.func @reduce_mean_dynamic(%x: tensor<?x8xf32>) -> tensor<8xf32> {
  %0 = lazy.reduce_mean %x [0] : tensor<?x8xf32>
  return %0 : tensor<8xf32>
}

// -----

// conv2d: linalg.conv_2d_nchw_fchw (the same layouts) with the stride and
// dilation, into a zero-filled accumulator.
// CHECK-LABEL: func.func @conv2d
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x3x9x8xf32>, %[[W:.*]]: tensor<4x3x3x2xf32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<2x4x4x5xf32>
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<2x4x4x5xf32>)
//       CHECK:   %[[R:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 3]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%[[X]], %[[W]] : tensor<2x3x9x8xf32>, tensor<4x3x3x2xf32>) outs(%[[ACC]] : tensor<2x4x4x5xf32>)
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @conv2d(%x: tensor<2x3x9x8xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<2x4x4x5xf32> {
  %0 = lazy.conv2d %x, %w stride [2, 1] dilation [1, 3] : tensor<2x3x9x8xf32>, tensor<4x3x3x2xf32>
  return %0 : tensor<2x4x4x5xf32>
}

// Padding: the images are written by a loop (x + 0.0) into the interior of
// a zero-filled tensor, which the convolution sweeps.
// CHECK-LABEL: func.func @padded_conv2d
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x3x9x8xf32>, %[[W:.*]]: tensor<4x3x3x2xf32>)
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<2x3x12x11xf32>
//       CHECK:   %[[FILLED:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2x3x12x11xf32>)
//       CHECK:   %[[SLOT:.*]] = tensor.extract_slice %[[FILLED]][0, 0, 1, 0] [2, 3, 9, 8] [1, 1, 1, 1]
//       CHECK:   %[[COPY:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x3x9x8xf32>) outs(%[[SLOT]] : tensor<2x3x9x8xf32>)
//       CHECK:     arith.addf %{{.*}}, %[[ZERO]] : f32
//       CHECK:   %[[PADDED:.*]] = tensor.insert_slice %[[COPY]] into %[[FILLED]][0, 0, 1, 0] [2, 3, 9, 8] [1, 1, 1, 1]
//       CHECK:   linalg.conv_2d_nchw_fchw {{.*}} ins(%[[PADDED]], %[[W]] : tensor<2x3x12x11xf32>, tensor<4x3x3x2xf32>) {{.*}} -> tensor<2x4x5x10xf32>
func.func @padded_conv2d(%x: tensor<2x3x9x8xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<2x4x5x10xf32> {
  %0 = lazy.conv2d %x, %w stride [2, 1] dilation [1, 1] padding [1, 2, 0, 3] : tensor<2x3x9x8xf32>, tensor<4x3x3x2xf32>
  return %0 : tensor<2x4x5x10xf32>
}

// A padded dynamic height: the padded tensor is H + top + bottom high.
// CHECK-LABEL: func.func @padded_conv2d_dynamic
//  CHECK-SAME:   (%[[X:.*]]: tensor<?x3x?x8xf32>
//   CHECK-DAG:   %[[N:.*]] = tensor.dim %[[X]], %c0
//   CHECK-DAG:   %[[H:.*]] = tensor.dim %[[X]], %c2
//       CHECK:   %[[HP:.*]] = arith.addi %[[H]], %c3
//       CHECK:   tensor.empty(%[[N]], %[[HP]]) : tensor<?x3x?x10xf32>
//       CHECK:   linalg.conv_2d_nchw_fchw {{.*}} -> tensor<?x4x?x9xf32>
func.func @padded_conv2d_dynamic(%x: tensor<?x3x?x8xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<?x4x?x9xf32> {
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] padding [1, 2, 1, 1] : tensor<?x3x?x8xf32>, tensor<4x3x3x2xf32>
  return %0 : tensor<?x4x?x9xf32>
}

// A dynamic batch comes from the images; a dynamic output height is the
// sweep over the image height: (H - dilation (KH - 1) - 1) / stride + 1.
// CHECK-LABEL: func.func @conv2d_dynamic
//  CHECK-SAME:   (%[[X:.*]]: tensor<?x3x?x8xf64>, %[[W:.*]]: tensor<4x3x3x2xf64>)
//   CHECK-DAG:   %[[N:.*]] = tensor.dim %[[X]], %c0
//   CHECK-DAG:   %[[H:.*]] = tensor.dim %[[X]], %c2
//   CHECK-DAG:   %[[KH:.*]] = tensor.dim %[[W]], %c2
//       CHECK:   %[[KH1:.*]] = arith.subi %[[KH]], %{{.*}}
//       CHECK:   %[[REACH:.*]] = arith.muli %[[KH1]], %{{.*}}
//       CHECK:   %[[ROOM:.*]] = arith.subi %[[H]], %[[REACH]]
//       CHECK:   %[[LAST:.*]] = arith.subi %[[ROOM]], %{{.*}}
//       CHECK:   %[[STEPS:.*]] = arith.divui %[[LAST]], %{{.*}}
//       CHECK:   %[[OH:.*]] = arith.addi %[[STEPS]], %{{.*}}
//       CHECK:   tensor.empty(%[[N]], %[[OH]]) : tensor<?x4x?x7xf64>
//       CHECK:   linalg.conv_2d_nchw_fchw {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
//  CHECK-SAME:   -> tensor<?x4x?x7xf64>
func.func @conv2d_dynamic(%x: tensor<?x3x?x8xf64>, %w: tensor<4x3x3x2xf64>) -> tensor<?x4x?x7xf64> {
  %0 = lazy.conv2d %x, %w stride [2, 1] dilation [2, 1] : tensor<?x3x?x8xf64>, tensor<4x3x3x2xf64>
  return %0 : tensor<?x4x?x7xf64>
}

// -----

// matmul rank 2: linalg.matmul into a zero-filled accumulator.
// CHECK-LABEL: func.func @matmul
//  CHECK-SAME:   (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x4xf32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<8x4xf32>
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<8x4xf32>)
//       CHECK:   %[[R:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<8x16xf32>, tensor<16x4xf32>) outs(%[[ACC]] : tensor<8x4xf32>)
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = lazy.matmul %a, %b : tensor<8x16xf32>, tensor<16x4xf32>
  return %0 : tensor<8x4xf32>
}

// Dynamic m and n come from the lhs rows and the rhs columns.
// CHECK-LABEL: func.func @matmul_dynamic
//  CHECK-SAME:   (%[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?x?xf32>)
//   CHECK-DAG:   %[[M:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
//   CHECK-DAG:   %[[N:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x?xf32>
//       CHECK:   %[[E:.*]] = tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x?xf32>)
//       CHECK:   linalg.matmul ins(%[[A]], %[[B]] : tensor<?x?xf32>, tensor<?x?xf32>) outs(%[[ACC]] : tensor<?x?xf32>)
//   CHECK-NOT:   lazy.
func.func @matmul_dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = lazy.matmul %a, %b : tensor<?x?xf32>, tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// matmul rank 3: linalg.batch_matmul (integer accumulator filled with 0).
// CHECK-LABEL: func.func @batch_matmul
//  CHECK-SAME:   (%[[A:.*]]: tensor<2x8x16xi32>, %[[B:.*]]: tensor<2x16x4xi32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<2x8x4xi32>
//       CHECK:   %[[ZERO:.*]] = arith.constant 0 : i32
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : i32) outs(%[[E]] : tensor<2x8x4xi32>)
//       CHECK:   %[[R:.*]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x8x16xi32>, tensor<2x16x4xi32>) outs(%[[ACC]] : tensor<2x8x4xi32>)
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @batch_matmul(%a: tensor<2x8x16xi32>, %b: tensor<2x16x4xi32>) -> tensor<2x8x4xi32> {
  %0 = lazy.matmul %a, %b : tensor<2x8x16xi32>, tensor<2x16x4xi32>
  return %0 : tensor<2x8x4xi32>
}

// -----

// matmul rank 4: the batch dimensions collapse into one, batch_matmul, and
// the result expands back.
// CHECK-LABEL: func.func @matmul_rank4
//  CHECK-SAME:   (%[[A:.*]]: tensor<2x3x8x16xf32>, %[[B:.*]]: tensor<2x3x16x4xf32>)
//       CHECK:   %[[A3:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x8x16xf32> into tensor<6x8x16xf32>
//       CHECK:   %[[B3:.*]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x16x4xf32> into tensor<6x16x4xf32>
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<6x8x4xf32>
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<6x8x4xf32>)
//       CHECK:   %[[P:.*]] = linalg.batch_matmul ins(%[[A3]], %[[B3]] : tensor<6x8x16xf32>, tensor<6x16x4xf32>) outs(%[[ACC]] : tensor<6x8x4xf32>)
//       CHECK:   %[[R:.*]] = tensor.expand_shape %[[P]] {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 8, 4] : tensor<6x8x4xf32> into tensor<2x3x8x4xf32>
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @matmul_rank4(%a: tensor<2x3x8x16xf32>, %b: tensor<2x3x16x4xf32>) -> tensor<2x3x8x4xf32> {
  %0 = lazy.matmul %a, %b : tensor<2x3x8x16xf32>, tensor<2x3x16x4xf32>
  return %0 : tensor<2x3x8x4xf32>
}

// -----

// A product with no elements is only its shape: no collapse of a batch
// group holding a dynamic size and a 0 (memref.collapse_shape would type
// that group 0 where its verifier wants ?; lazyc-fuzz seed 150741).
// CHECK-LABEL: func.func @matmul_empty_batch
//  CHECK-SAME:   (%[[A:.*]]: tensor<?x0x2x1xi32>, %[[B:.*]]: tensor<?x0x1x1xi32>)
//       CHECK:   %[[N:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x0x2x1xi32>
//       CHECK:   %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x0x2x1xi32>
//       CHECK:   return %[[E]]
//   CHECK-NOT:   collapse_shape
func.func @matmul_empty_batch(%a: tensor<?x0x2x1xi32>, %b: tensor<?x0x1x1xi32>) -> tensor<?x0x2x1xi32> {
  %0 = lazy.matmul %a, %b : tensor<?x0x2x1xi32>, tensor<?x0x1x1xi32>
  return %0 : tensor<?x0x2x1xi32>
}

// -----

// softmax (stable form): max reduction (maxnumf marked nnan: a NaN in the
// row makes the sum NaN anyway), exp(x - max), sum reduction, its reciprocal per row,
// then exp * (1 / sum); the row values are read through the map that drops
// the axis.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$VEC:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @softmax
//  CHECK-SAME:   (%[[X:.*]]: tensor<4x8xf32>)
//       CHECK:   %[[NINF:.*]] = arith.constant 0xFF800000 : f32
//       CHECK:   %[[MACC:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<4xf32>)
//       CHECK:   %[[MAX:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$ID]], #[[$ROW]]]
//  CHECK-SAME:     iterator_types = ["parallel", "reduction"]
//  CHECK-SAME:     ins(%[[X]] : tensor<4x8xf32>) outs(%[[MACC]] : tensor<4xf32>)
//       CHECK:     arith.maxnumf %{{.*}} fastmath<nnan> : f32
//       CHECK:   %[[EXP:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]]
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//  CHECK-SAME:     ins(%[[X]], %[[MAX]] : tensor<4x8xf32>, tensor<4xf32>)
//       CHECK:   ^bb0(%[[XV:.*]]: f32, %[[MV:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[D:.*]] = arith.subf %[[XV]], %[[MV]] : f32
//       CHECK:     %[[EV:.*]] = math.exp %[[D]] : f32
//       CHECK:     linalg.yield %[[EV]] : f32
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[SACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4xf32>)
//       CHECK:   %[[SUM:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "reduction"]
//  CHECK-SAME:     ins(%[[EXP]] : tensor<4x8xf32>) outs(%[[SACC]] : tensor<4xf32>)
//       CHECK:     arith.addf
//       CHECK:   %[[INV:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$VEC]], #[[$VEC]]]
//  CHECK-SAME:     ins(%[[SUM]] : tensor<4xf32>)
//       CHECK:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
//       CHECK:     arith.divf %[[ONE]], %{{.*}} : f32
//       CHECK:   %[[R:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//  CHECK-SAME:     ins(%[[EXP]], %[[INV]] : tensor<4x8xf32>, tensor<4xf32>)
//       CHECK:   ^bb0(%[[EV:.*]]: f32, %[[IV:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[Q:.*]] = arith.mulf %[[EV]], %[[IV]] : f32
//       CHECK:     linalg.yield %[[Q]] : f32
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = lazy.softmax %x, axis = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// log_softmax: (x - max) - log(sum(exp(x - max))), here along axis 0 of a
// dynamic shape.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @log_softmax
//  CHECK-SAME:   (%[[X:.*]]: tensor<?x8xf64>)
//       CHECK:   %[[NINF:.*]] = arith.constant 0xFFF0000000000000 : f64
//       CHECK:   %[[MAX:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$ID]], #[[$COL]]]
//  CHECK-SAME:     iterator_types = ["reduction", "parallel"]
//  CHECK-SAME:     ins(%[[X]] : tensor<?x8xf64>)
//       CHECK:     arith.maxnumf %{{.*}} fastmath<nnan> : f64
//       CHECK:   %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf64>
//       CHECK:   %[[E:.*]] = tensor.empty(%[[D0]]) : tensor<?x8xf64>
//       CHECK:   %[[EXP:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$ID]], #[[$COL]], #[[$ID]]]
//  CHECK-SAME:     ins(%[[X]], %[[MAX]] : tensor<?x8xf64>, tensor<8xf64>) outs(%[[E]] : tensor<?x8xf64>)
//       CHECK:     arith.subf
//       CHECK:     math.exp
//       CHECK:   %[[SUM:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["reduction", "parallel"]
//  CHECK-SAME:     ins(%[[EXP]] : tensor<?x8xf64>)
//       CHECK:     arith.addf
//       CHECK:   %[[R:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$ID]], #[[$COL]], #[[$COL]], #[[$ID]]]
//  CHECK-SAME:     ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<?x8xf64>, tensor<8xf64>, tensor<8xf64>)
//       CHECK:   ^bb0(%[[XV:.*]]: f64, %[[MV:.*]]: f64, %[[SV:.*]]: f64, %{{.*}}: f64):
//       CHECK:     %[[SH:.*]] = arith.subf %[[XV]], %[[MV]] : f64
//       CHECK:     %[[L:.*]] = math.log %[[SV]] : f64
//       CHECK:     %[[Y:.*]] = arith.subf %[[SH]], %[[L]] : f64
//       CHECK:     linalg.yield %[[Y]] : f64
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @log_softmax(%x: tensor<?x8xf64>) -> tensor<?x8xf64> {
  %0 = lazy.log_softmax %x, axis = 0 : tensor<?x8xf64>
  return %0 : tensor<?x8xf64>
}

// -----

// random_uniform: a generic with no inputs computing each element from the
// seed (an operand, read once before the loop) and the row-major index
// (linalg.index): SplitMix64 of seed + (index + 1) * 0x9E3779B97F4A7C15, the
// top 24 bits (f32 precision) times 2^-24, scaled to [low, high) and kept
// below high.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @random_uniform
//       CHECK:   %[[ST:.*]] = arith.constant dense<42> : tensor<i64>
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<4x3xf32>
//       CHECK:   %[[SEED:.*]] = tensor.extract %[[ST]][] : tensor<i64>
//       CHECK:   %[[R:.*]] = linalg.generic
//  CHECK-SAME:     indexing_maps = [#[[$ID]]]
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//  CHECK-SAME:     outs(%[[E]] : tensor<4x3xf32>)
//       CHECK:     %[[I0:.*]] = linalg.index 0 : index
//       CHECK:     %[[C3:.*]] = arith.constant 3 : index
//       CHECK:     %[[I1:.*]] = linalg.index 1 : index
//       CHECK:     %[[IDX:.*]] = arith.index_cast %{{.*}} : index to i64
//       CHECK:     %[[CTR:.*]] = arith.addi %[[IDX]], %{{.*}} : i64
//       CHECK:     %[[GOLD:.*]] = arith.constant -7046029254386353131 : i64
//       CHECK:     %[[STEP:.*]] = arith.muli %[[CTR]], %[[GOLD]] : i64
//       CHECK:     %[[STATE:.*]] = arith.addi %[[SEED]], %[[STEP]] : i64
//       CHECK:     arith.shrui %[[STATE]], %{{.*}} : i64
//       CHECK:     arith.constant -4658895280553007687 : i64
//       CHECK:     arith.constant -7723592293110705685 : i64
//       CHECK:     %[[SH:.*]] = arith.constant 40 : i64
//       CHECK:     %[[TOP:.*]] = arith.shrui %{{.*}}, %[[SH]] : i64
//       CHECK:     %[[U:.*]] = arith.uitofp %[[TOP]] : i64 to f32
//       CHECK:     %[[SCALE:.*]] = arith.constant 5.96046448E-8 : f32
//       CHECK:     arith.mulf %[[U]], %[[SCALE]] : f32
//       CHECK:     %[[BOUND:.*]] = arith.constant 1.000000e+00 : f32
//       CHECK:     %[[BELOW:.*]] = arith.constant 0.99999994 : f32
//       CHECK:     %[[OVER:.*]] = arith.cmpf oge, %{{.*}}, %[[BOUND]] : f32
//       CHECK:     %[[V:.*]] = arith.select %[[OVER]], %[[BELOW]], %{{.*}} : f32
//       CHECK:     linalg.yield %[[V]] : f32
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @random_uniform() -> tensor<4x3xf32> {
  %seed0 = lazy.constant dense<42> : tensor<i64>
  %0 = lazy.random_uniform %seed0, low = -1.0, high = 1.0 : tensor<i64> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// random_normal: Box-Muller on counters 2i and 2i + 1 (53-bit uniforms for
// f64): sqrt(-2 log u1) * cos(2 pi u2) * stddev + mean.
// CHECK-LABEL: func.func @random_normal
//       CHECK:   %[[R:.*]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel"]
//  CHECK-SAME:     outs(%{{.*}} : tensor<16xf64>)
//       CHECK:     linalg.index 0 : index
//       CHECK:     arith.constant -7046029254386353131 : i64
//       CHECK:     %[[SH:.*]] = arith.constant 11 : i64
//       CHECK:     %[[TOP:.*]] = arith.shrui %{{.*}}, %[[SH]] : i64
//       CHECK:     arith.uitofp %[[TOP]] : i64 to f64
//       CHECK:     arith.constant -7046029254386353131 : i64
//       CHECK:     arith.uitofp %{{.*}} : i64 to f64
//       CHECK:     %[[LOG:.*]] = math.log %{{.*}} : f64
//       CHECK:     %[[M2L:.*]] = arith.mulf %{{.*}}, %[[LOG]] : f64
//       CHECK:     %[[RAD:.*]] = math.sqrt %[[M2L]] : f64
//       CHECK:     %[[TWOPI:.*]] = arith.constant 6.2831853071795862 : f64
//       CHECK:     %[[ANG:.*]] = arith.mulf %[[TWOPI]], %{{.*}} : f64
//       CHECK:     %[[COS:.*]] = math.cos %[[ANG]] : f64
//       CHECK:     %[[Z:.*]] = arith.mulf %[[RAD]], %[[COS]] : f64
//       CHECK:     %[[SD:.*]] = arith.constant 2.000000e+00 : f64
//       CHECK:     arith.mulf %[[Z]], %[[SD]] : f64
//       CHECK:     linalg.yield
//       CHECK:   return %[[R]]
//   CHECK-NOT:   lazy.
func.func @random_normal() -> tensor<16xf64> {
  %seed0 = lazy.constant dense<7> : tensor<i64>
  %0 = lazy.random_normal %seed0, mean = 0.0, stddev = 2.0 : tensor<i64> -> tensor<16xf64>
  return %0 : tensor<16xf64>
}

// -----

// A seed passed in and a size known at run time: the seed is read once, the
// dynamic size makes the output and the row-major index.
// CHECK-LABEL: func.func @random_uniform_dynamic
//  CHECK-SAME:   (%[[SEEDT:.*]]: tensor<i64>, %[[N:.*]]: index)
//       CHECK:   %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
//       CHECK:   %[[SEED:.*]] = tensor.extract %[[SEEDT]][] : tensor<i64>
//       CHECK:   linalg.generic
//  CHECK-SAME:     outs(%[[E]] : tensor<?x3xf32>)
//       CHECK:     arith.muli %{{.*}}, %[[N]] : index
//       CHECK:     linalg.index 0 : index
//       CHECK:     arith.addi %[[SEED]], %{{.*}} : i64
func.func @random_uniform_dynamic(%seed: tensor<i64>, %n: index) -> tensor<?x3xf32> {
  %0 = lazy.random_uniform %seed [%n], low = 0.0, high = 1.0 : tensor<i64> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Target sizes known at run time: a broadcast's output takes them; a
// reshape goes through a shape tensor.
// CHECK-LABEL: func.func @dynamic_target_sizes
//  CHECK-SAME:   (%[[S:.*]]: tensor<f32>, %[[Y:.*]]: tensor<?xf32>, %[[N:.*]]: index)
//       CHECK:   %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
//       CHECK:   %[[B:.*]] = linalg.generic
//  CHECK-SAME:     ins(%[[S]] : tensor<f32>) outs(%[[E]] : tensor<?x3xf32>)
//       CHECK:   %[[SHAPE:.*]] = tensor.from_elements %[[N]], %{{.*}} : tensor<2xindex>
//       CHECK:   %[[R:.*]] = tensor.reshape %[[Y]](%[[SHAPE]]) : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x3xf32>
//       CHECK:   return %[[B]], %[[R]]
func.func @dynamic_target_sizes(%s: tensor<f32>, %y: tensor<?xf32>, %n: index) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %0 = lazy.broadcast %s to [%n, 3] : tensor<f32>
  %1 = lazy.reshape %y to [%n, 3] : tensor<?xf32>
  return %0, %1 : tensor<?x3xf32>, tensor<?x3xf32>
}

// -----

// f16 <-> bf16 casts go through f32 (exact), then round once (regression:
// they produced an invalid 16-to-16-bit arith.truncf).
// CHECK-LABEL: func.func @cast_f16_to_bf16
//       CHECK:   linalg.generic
//       CHECK:     %[[WIDE:.*]] = arith.extf %{{.*}} : f16 to f32
//       CHECK:     arith.truncf %[[WIDE]] : f32 to bf16
func.func @cast_f16_to_bf16(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = lazy.cast %x : tensor<4xf16> to tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// Rank-4 matmul with one dynamic batch dimension: collapsed and expanded
// back, the expand getting its size from tensor.dim (regression: no
// output_shape was built).
// CHECK-LABEL: func.func @matmul_rank4_one_dynamic_batch
//       CHECK:   tensor.collapse_shape
//       CHECK:   linalg.batch_matmul
//       CHECK:   %[[D0:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x3x8x16xf32>
//       CHECK:   tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [%[[D0]], 3, 8, 4]
func.func @matmul_rank4_one_dynamic_batch(%a: tensor<?x3x8x16xf32>, %b: tensor<?x3x16x4xf32>) -> tensor<?x3x8x4xf32> {
  %0 = lazy.matmul %a, %b : tensor<?x3x8x16xf32>, tensor<?x3x16x4xf32>
  return %0 : tensor<?x3x8x4xf32>
}

// -----

// Rank-4 matmul with two dynamic batch dimensions (eager mode): one generic
// contraction, loops (b0, b1, m, n, k), no reshape. Regression (found by
// lazyc-fuzz): the collapse/expand form left a memref.expand_shape with two
// dynamic sizes in one group, on which expand-strided-metadata crashed.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_rank4_dynamic_batch
//   CHECK-NOT:   tensor.collapse_shape
//       CHECK:   %[[ACC:.*]] = linalg.fill
//       CHECK:   linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
//  CHECK-SAME:       outs(%[[ACC]] : tensor<?x?x8x4xf32>)
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
//   CHECK-NOT:   tensor.expand_shape
func.func @matmul_rank4_dynamic_batch(%a: tensor<?x?x8x16xf32>, %b: tensor<?x?x16x4xf32>) -> tensor<?x?x8x4xf32> {
  %0 = lazy.matmul %a, %b : tensor<?x?x8x16xf32>, tensor<?x?x16x4xf32>
  return %0 : tensor<?x?x8x4xf32>
}

// -----

// When the result type knows batch sizes one operand leaves dynamic, the
// collapsed product is cast to the static batch (regression: invalid expand).
// CHECK-LABEL: func.func @matmul_rank4_mixed_batch
//       CHECK:   linalg.batch_matmul
//       CHECK:   tensor.cast %{{.*}} : tensor<?x8x4xf32> to tensor<6x8x4xf32>
//       CHECK:   tensor.expand_shape %{{.*}} output_shape [2, 3, 8, 4] : tensor<6x8x4xf32> into tensor<2x3x8x4xf32>
func.func @matmul_rank4_mixed_batch(%a: tensor<2x?x8x16xf32>, %b: tensor<?x3x16x4xf32>) -> tensor<2x3x8x4xf32> {
  %0 = lazy.matmul %a, %b : tensor<2x?x8x16xf32>, tensor<?x3x16x4xf32>
  return %0 : tensor<2x3x8x4xf32>
}

// -----

// Integer to f16/bf16 (up to 32 bits) converts exactly to f64, rounds to odd
// in f32 and then to nearest in the narrow type: one correct rounding. Regression (found by
// lazyc-fuzz): sitofp straight to bf16 was emulated as sitofp to f32 then
// truncf, so 2^24 + 2^16 + 1 gave 2^24 instead of 2^24 + 2^17.
// CHECK-LABEL: func.func @cast_i32_to_bf16
//       CHECK:   ^bb0(%[[X:.*]]: i32, %{{.*}}: bf16):
//       CHECK:     %[[WIDE:.*]] = arith.sitofp %[[X]] : i32 to f64
//       CHECK:     arith.truncf %[[WIDE]] : f64 to f32
//       CHECK:     arith.ori
//       CHECK:     %[[ODD:.*]] = arith.bitcast %{{.*}} : i32 to f32
//  CHECK-NEXT:     %[[R:.*]] = arith.truncf %[[ODD]] : f32 to bf16
//  CHECK-NEXT:     linalg.yield %[[R]] : bf16
func.func @cast_i32_to_bf16(%x: tensor<4xi32>) -> tensor<4xbf16> {
  %0 = lazy.cast %x : tensor<4xi32> to tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// A 64-bit integer to bf16 rounds to odd in f32 from the integer itself (f64
// would round first beyond 2^53: lazyc-fuzz seed 55762): the magnitude's
// nearest f32, stepped back if it went up, the sticky bit if it is not
// exact, then the sign, and one rounding to nearest in bf16.
// CHECK-LABEL: func.func @cast_i64_to_bf16
//       CHECK:   ^bb0(%[[X:.*]]: i64, %{{.*}}: bf16):
//       CHECK:     %[[NEG:.*]] = arith.cmpi slt, %[[X]]
//       CHECK:     %[[MAG:.*]] = arith.select %[[NEG]]
//       CHECK:     %[[NEAR:.*]] = arith.uitofp %[[MAG]] : i64 to f32
//       CHECK:     %[[BACK:.*]] = arith.fptoui %{{.*}} : f32 to i64
//       CHECK:     arith.cmpi ugt, %[[BACK]], %[[MAG]] : i64
//       CHECK:     arith.cmpi ne, %[[BACK]], %[[MAG]] : i64
//       CHECK:     arith.bitcast %[[NEAR]] : f32 to i32
//       CHECK:     arith.subi
//       CHECK:     arith.ori
//       CHECK:     arith.shli
//       CHECK:     %[[ODD:.*]] = arith.bitcast %{{.*}} : i32 to f32
//  CHECK-NEXT:     %[[R:.*]] = arith.truncf %[[ODD]] : f32 to bf16
//  CHECK-NEXT:     linalg.yield %[[R]] : bf16
//   CHECK-NOT:   f64
func.func @cast_i64_to_bf16(%x: tensor<4xi64>) -> tensor<4xbf16> {
  %0 = lazy.cast %x : tensor<4xi64> to tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// gather: a parallel generic over the indices that extracts each element at
// the index, counted from the end when negative and clamped to the axis.
// CHECK-LABEL: func.func @gather
//  CHECK-SAME:   (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4x3xi64>)
//       CHECK:   %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<4x8xf32>
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//  CHECK-SAME:     ins(%[[I]] : tensor<4x3xi64>)
//       CHECK:   ^bb0(%[[IN:.*]]: i64, %{{.*}}: f32):
//       CHECK:     %[[ROW:.*]] = linalg.index 0 : index
//       CHECK:     %[[P:.*]] = arith.index_cast %[[IN]] : i64 to index
//       CHECK:     %[[NEG:.*]] = arith.cmpi slt, %[[P]]
//       CHECK:     %[[WRAP:.*]] = arith.addi %[[P]], %[[N]] : index
//       CHECK:     %[[SEL:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[P]] : index
//       CHECK:     %[[LAST:.*]] = arith.subi %[[N]]
//       CHECK:     %[[HI:.*]] = arith.minsi %[[SEL]], %[[LAST]] : index
//       CHECK:     %[[POS:.*]] = arith.maxsi %[[HI]]
//       CHECK:     %[[E:.*]] = tensor.extract %[[X]][%[[ROW]], %[[POS]]] : tensor<4x8xf32>
//       CHECK:     linalg.yield %[[E]] : f32
//   CHECK-NOT:   lazy.
func.func @gather(%x: tensor<4x8xf32>, %i: tensor<4x3xi64>) -> tensor<4x3xf32> {
  %0 = lazy.gather %x[%i], axis = 1 : tensor<4x8xf32>, tensor<4x3xi64>
  return %0 : tensor<4x3xf32>
}

// -----

// scatter_add: a loop nest over the updates, carrying the result (starting
// as a copy of the input, never the input's buffer) and adding each update
// in order at its clamped index.
// CHECK-LABEL: func.func @scatter_add
//  CHECK-SAME:   (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4x3xi64>, %[[U:.*]]: tensor<4x3xf32>)
//       CHECK:   %[[COPY:.*]] = linalg.copy ins(%[[X]] : tensor<4x8xf32>)
//       CHECK:   scf.for %[[A:.*]] = {{.*}} iter_args(%[[OUTER:.*]] = %[[COPY]]) -> (tensor<4x8xf32>)
//       CHECK:     scf.for %[[B:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[OUTER]]) -> (tensor<4x8xf32>)
//       CHECK:       %[[V:.*]] = tensor.extract %[[U]][%[[A]], %[[B]]] : tensor<4x3xf32>
//       CHECK:       tensor.extract %[[I]][%[[A]], %[[B]]] : tensor<4x3xi64>
//       CHECK:       %[[POS:.*]] = arith.maxsi
//       CHECK:       %[[OLD:.*]] = tensor.extract %[[ACC]][%[[A]], %[[POS]]] : tensor<4x8xf32>
//       CHECK:       %[[SUM:.*]] = arith.addf %[[OLD]], %[[V]] : f32
//       CHECK:       tensor.insert %[[SUM]] into %[[ACC]][%[[A]], %[[POS]]] : tensor<4x8xf32>
//   CHECK-NOT:   lazy.
func.func @scatter_add(%x: tensor<4x8xf32>, %i: tensor<4x3xi64>, %u: tensor<4x3xf32>) -> tensor<4x8xf32> {
  %0 = lazy.scatter_add %x[%i], %u, axis = 1 : tensor<4x8xf32>, tensor<4x3xi64>, tensor<4x3xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// argmax: one reduction into the maximum so far (from -inf) and its
// position (from 0); a strictly greater element or the first NaN replaces
// them. keep_dims expands the positions afterwards.
// CHECK-LABEL: func.func @argmax_keep_dims
//       CHECK:   %[[NINF:.*]] = arith.constant 0xFF800000 : f32
//       CHECK:   %[[BEST:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<4xf32>)
//       CHECK:   %[[ZERO:.*]] = arith.constant 0 : i64
//       CHECK:   %[[POS:.*]] = linalg.fill ins(%[[ZERO]] : i64) outs(%{{.*}} : tensor<4xi64>)
//       CHECK:   %[[R:.*]]:2 = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "reduction"]
//  CHECK-SAME:     outs(%[[BEST]], %[[POS]] : tensor<4xf32>, tensor<4xi64>)
//       CHECK:   ^bb0(%[[IN:.*]]: f32, %[[B:.*]]: f32, %[[P:.*]]: i64):
//       CHECK:     %[[HERE:.*]] = arith.index_cast %{{.*}} : index to i64
//       CHECK:     %[[GT:.*]] = arith.cmpf ogt, %[[IN]], %[[B]] : f32
//       CHECK:     %[[NAN:.*]] = arith.cmpf uno, %[[IN]], %[[IN]] : f32
//       CHECK:     %[[ORD:.*]] = arith.cmpf ord, %[[B]], %[[B]] : f32
//       CHECK:     %[[FIRSTNAN:.*]] = arith.andi %[[NAN]], %[[ORD]] : i1
//       CHECK:     %[[TAKE:.*]] = arith.ori %[[GT]], %[[FIRSTNAN]] : i1
//       CHECK:     %[[NB:.*]] = arith.select %[[TAKE]], %[[IN]], %[[B]] : f32
//       CHECK:     %[[NP:.*]] = arith.select %[[TAKE]], %[[HERE]], %[[P]] : i64
//       CHECK:     linalg.yield %[[NB]], %[[NP]] : f32, i64
//       CHECK:   tensor.expand_shape %[[R]]#1 {{\[\[}}0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
//   CHECK-NOT:   lazy.
func.func @argmax_keep_dims(%x: tensor<4x8xf32>) -> tensor<4x1xi64> {
  %0 = lazy.argmax %x, axis = 1 keep_dims : tensor<4x8xf32>
  return %0 : tensor<4x1xi64>
}

// -----

// argmin of integers: from the integer maximum, a strictly smaller element.
// CHECK-LABEL: func.func @argmin_i32
//       CHECK:   arith.constant 2147483647 : i32
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["reduction", "parallel"]
//       CHECK:     arith.cmpi slt
//   CHECK-NOT:   lazy.
func.func @argmin_i32(%x: tensor<5x7xi32>) -> tensor<7xi64> {
  %0 = lazy.argmin %x, axis = 0 : tensor<5x7xi32>
  return %0 : tensor<7xi64>
}

// -----

// cumsum (reverse): a loop nest with the summed axis outside the later
// ones; element j is x[j] plus the result at j + 1, or x[j] at the start.
// CHECK-LABEL: func.func @cumsum_reverse
//  CHECK-SAME:   (%[[X:.*]]: tensor<4x8xi32>)
//       CHECK:   %[[EMPTY:.*]] = tensor.empty() : tensor<4x8xi32>
//       CHECK:   scf.for %[[A:.*]] = {{.*}} iter_args(%[[OUTER:.*]] = %[[EMPTY]])
//       CHECK:     scf.for %[[B:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[OUTER]])
//       CHECK:       %[[J:.*]] = arith.subi %{{.*}}, %[[A]] : index
//       CHECK:       %[[V:.*]] = tensor.extract %[[X]][%[[J]], %[[B]]]
//       CHECK:       %[[FIRST:.*]] = arith.cmpi eq, %[[A]]
//       CHECK:       %[[NEXT:.*]] = arith.addi %[[J]]
//       CHECK:       %[[PREV:.*]] = arith.select %[[FIRST]], %[[J]], %[[NEXT]] : index
//       CHECK:       %[[OLD:.*]] = tensor.extract %[[ACC]][%[[PREV]], %[[B]]]
//       CHECK:       %[[SUM:.*]] = arith.addi %[[OLD]], %[[V]] : i32
//       CHECK:       %[[R:.*]] = arith.select %[[FIRST]], %[[V]], %[[SUM]] : i32
//       CHECK:       tensor.insert %[[R]] into %[[ACC]][%[[J]], %[[B]]]
//   CHECK-NOT:   lazy.
func.func @cumsum_reverse(%x: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = lazy.cumsum %x, axis = 0 reverse : tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}
