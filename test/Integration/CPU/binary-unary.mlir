// RUN: %numpy-check %s

// Elementwise binary and unary ops against numpy, computed in float64 and
// rounded to the output type by numpy_check.
//
// Tolerances (numpy_check's default is rtol=1e-6, atol=1e-6):
// - add/sub/mul/div/sqrt, neg/abs/relu, max/min: rtol=0, atol=0. IEEE-754
//   basic operations are correctly rounded, and the float64 reference rounded
//   once to the output type is the same number (float64 has more than
//   2p + 2 bits for p = 24, 11, 8, so the double rounding is innocuous).
//   This also covers f16/bf16 computed in f32 and rounded once.
// - f32 transcendentals (exp, log, tanh, sigmoid, erf, sin, cos, asin, acos,
//   atan, pow, rsqrt):
//   rtol=1e-6 (8 ulp of f32 = 8 * 2^-23 relative ~ 9.5e-7): libm-style or
//   polynomial approximations are a few ulp off, not correctly rounded.
//   atol=1e-6 stays for results near zero (sin, tanh, erf around 0, log
//   near 1), where a relative bound is meaningless; atol=0 where results stay
//   away from 0 (exp, pow, rsqrt, the sigmoid tail). Edge values:
//   atol=1e-38 for exp, whose exp(-104) = 6.8e-46 is below half the smallest
//   f32 subnormal (rounds to 0; 1e-38 also tolerates flushing subnormals).
// - f64 transcendentals: rtol=1e-14 (~45 ulp of 2^-52), atol=1e-15.
// - f16: results near 1 ulp of f16 = 2^-10 relative (2^-11 rounding unit)
//   when the function is computed in f32 and rounded: rtol=1e-3; atol=1e-4
//   for results near zero (1 f16 ulp at 0.1 is 2^-14 ~ 6e-5).
// - bf16: numpy_check compares bf16 outputs as f32 against an unrounded
//   reference, so rounding alone is half an ulp, 2^-8 relative (rtol=4e-3);
//   transcendentals may be one ulp, 2^-7 (rtol=8e-3; atol=1e-3 near zero,
//   where 1 bf16 ulp at 0.1 is 2^-11 ~ 5e-4). atol=1e-6 on add/sub only
//   guards exact zeros from cancellation.
// - Integers: exact (numpy_check compares integers exactly).

// -----

// f32 add, sub, mul, div: exact (correctly rounded); odd shape for vector tails.
// ARG: a f32 [5, 37] uniform(-100, 100)
// ARG: b f32 [5, 37] uniform(0.5, 8)
// OUT: a.astype(np.float64) + b ; rtol=0, atol=0
// OUT: a.astype(np.float64) - b ; rtol=0, atol=0
// OUT: a.astype(np.float64) * b ; rtol=0, atol=0
// OUT: a.astype(np.float64) / b ; rtol=0, atol=0
// OUT: b.astype(np.float64) / a ; rtol=0, atol=0
func.func @f32_arith(%a: tensor<5x37xf32>, %b: tensor<5x37xf32>) -> (tensor<5x37xf32>, tensor<5x37xf32>, tensor<5x37xf32>, tensor<5x37xf32>, tensor<5x37xf32>) {
  %0 = lazy.add %a, %b : tensor<5x37xf32>
  %1 = lazy.sub %a, %b : tensor<5x37xf32>
  %2 = lazy.mul %a, %b : tensor<5x37xf32>
  %3 = lazy.div %a, %b : tensor<5x37xf32>
  %4 = lazy.div %b, %a : tensor<5x37xf32>
  return %0, %1, %2, %3, %4 : tensor<5x37xf32>, tensor<5x37xf32>, tensor<5x37xf32>, tensor<5x37xf32>, tensor<5x37xf32>
}

// -----

// f32 max and min pick one operand exactly.
// ARG: a f32 [67] uniform(-5, 5)
// ARG: b f32 [67] uniform(-5, 5)
// OUT: np.maximum(a, b) ; rtol=0, atol=0
// OUT: np.minimum(a, b) ; rtol=0, atol=0
func.func @f32_max_min(%a: tensor<67xf32>, %b: tensor<67xf32>) -> (tensor<67xf32>, tensor<67xf32>) {
  %0 = lazy.max %a, %b : tensor<67xf32>
  %1 = lazy.min %a, %b : tensor<67xf32>
  return %0, %1 : tensor<67xf32>, tensor<67xf32>
}

// -----

// f32 pow with positive bases and real exponents (transcendental tolerance).
// ARG: a f32 [6, 11] uniform(0.05, 6)
// ARG: b f32 [6, 11] uniform(-4, 4)
// OUT: np.power(a.astype(np.float64), b) ; rtol=1e-6, atol=0
func.func @f32_pow(%a: tensor<6x11xf32>, %b: tensor<6x11xf32>) -> tensor<6x11xf32> {
  %0 = lazy.pow %a, %b : tensor<6x11xf32>
  return %0 : tensor<6x11xf32>
}

// -----

// f32 pow follows C's pow: negative bases with integral exponents, zeros, infinities, NaN.
// ARG: a f32 [16] values([-2, -2, -3, -0.5, 0, 0, -0.0, 2, 1, 1, 5, nan, -1, -1, inf, -inf])
// ARG: b f32 [16] values([3, 2, -1, 2, -1, 2, 3, 0.5, nan, inf, 0, 0, inf, 1.5, -1, 3])
// OUT: np.errstate(all='ignore')(lambda: np.power(a.astype(np.float64), b))() ; rtol=1e-6, atol=0
func.func @f32_pow_special(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %0 = lazy.pow %a, %b : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// f32 neg, abs and relu are exact.
// ARG: x f32 [3, 45] uniform(-10, 10)
// OUT: -x ; rtol=0, atol=0
// OUT: np.abs(x) ; rtol=0, atol=0
// OUT: np.maximum(x, 0) ; rtol=0, atol=0
func.func @f32_neg_abs_relu(%x: tensor<3x45xf32>) -> (tensor<3x45xf32>, tensor<3x45xf32>, tensor<3x45xf32>) {
  %0 = lazy.neg %x : tensor<3x45xf32>
  %1 = lazy.abs %x : tensor<3x45xf32>
  %2 = lazy.relu %x : tensor<3x45xf32>
  return %0, %1, %2 : tensor<3x45xf32>, tensor<3x45xf32>, tensor<3x45xf32>
}

// -----

// f32 exp over most of its finite range and log over several decades.
// ARG: x f32 [131] uniform(-80, 80)
// ARG: y f32 [131] uniform(1e-6, 1e6)
// ARG: z f32 [131] uniform(0.5, 2)
// OUT: np.exp(x.astype(np.float64)) ; rtol=1e-6, atol=0
// OUT: np.log(y.astype(np.float64)) ; rtol=1e-6, atol=1e-6
// OUT: np.log(z.astype(np.float64)) ; rtol=1e-6, atol=1e-7
func.func @f32_exp_log(%x: tensor<131xf32>, %y: tensor<131xf32>, %z: tensor<131xf32>) -> (tensor<131xf32>, tensor<131xf32>, tensor<131xf32>) {
  %0 = lazy.exp %x : tensor<131xf32>
  %1 = lazy.log %y : tensor<131xf32>
  %2 = lazy.log %z : tensor<131xf32>
  return %0, %1, %2 : tensor<131xf32>, tensor<131xf32>, tensor<131xf32>
}

// -----

// f32 sqrt is exact (correctly rounded); rsqrt within transcendental tolerance.
// ARG: x f32 [4, 29] uniform(1e-4, 1e4)
// OUT: np.sqrt(x.astype(np.float64)) ; rtol=0, atol=0
// OUT: 1 / np.sqrt(x.astype(np.float64)) ; rtol=1e-6, atol=0
func.func @f32_sqrt_rsqrt(%x: tensor<4x29xf32>) -> (tensor<4x29xf32>, tensor<4x29xf32>) {
  %0 = lazy.sqrt %x : tensor<4x29xf32>
  %1 = lazy.rsqrt %x : tensor<4x29xf32>
  return %0, %1 : tensor<4x29xf32>, tensor<4x29xf32>
}

// -----

// f32 tanh and sigmoid, including the saturated tails.
// ARG: x f32 [2, 73] uniform(-12, 12)
// OUT: np.tanh(x.astype(np.float64)) ; rtol=1e-6, atol=1e-6
// OUT: 1 / (1 + np.exp(-x.astype(np.float64))) ; rtol=1e-6, atol=1e-6
func.func @f32_tanh_sigmoid(%x: tensor<2x73xf32>) -> (tensor<2x73xf32>, tensor<2x73xf32>) {
  %0 = lazy.tanh %x : tensor<2x73xf32>
  %1 = lazy.sigmoid %x : tensor<2x73xf32>
  return %0, %1 : tensor<2x73xf32>, tensor<2x73xf32>
}

// -----

// f32 sigmoid far in the tails: tiny positive values for very negative inputs.
// ARG: x f32 [40] uniform(-85, -20)
// OUT: 1 / (1 + np.exp(-x.astype(np.float64))) ; rtol=1e-6, atol=0
func.func @f32_sigmoid_tail(%x: tensor<40xf32>) -> tensor<40xf32> {
  %0 = lazy.sigmoid %x : tensor<40xf32>
  return %0 : tensor<40xf32>
}

// -----

// f32 erf over [-4, 4] (math.erf: no numpy ufunc, so Python's math.erf).
// ARG: x f32 [97] uniform(-4, 4)
// OUT: np.vectorize(math.erf)(x.astype(np.float64)) ; rtol=1e-6, atol=1e-6
func.func @f32_erf(%x: tensor<97xf32>) -> tensor<97xf32> {
  %0 = lazy.erf %x : tensor<97xf32>
  return %0 : tensor<97xf32>
}

// -----

// f32 sin and cos over a bit more than one period (wider ranges: KNOWN_BUGS.txt).
// ARG: x f32 [3, 41] uniform(-4, 4)
// OUT: np.sin(x.astype(np.float64)) ; rtol=1e-6, atol=1e-6
// OUT: np.cos(x.astype(np.float64)) ; rtol=1e-6, atol=1e-6
func.func @f32_sin_cos(%x: tensor<3x41xf32>) -> (tensor<3x41xf32>, tensor<3x41xf32>) {
  %0 = lazy.sin %x : tensor<3x41xf32>
  %1 = lazy.cos %x : tensor<3x41xf32>
  return %0, %1 : tensor<3x41xf32>, tensor<3x41xf32>
}

// -----

// f32 asin, acos over [-1, 1] and atan over [-10, 10], in vectors and their
// tails (libm's asinf, acosf, atanf: within 1 ulp); the edges: +-1, signed
// zeros, outside [-1, 1] (NaN), infinities, NaN and a tiny value.
// ARG: x f32 [3, 41] uniform(-1, 1)
// ARG: y f32 [3, 41] uniform(-10, 10)
// ARG: e f32 [11] values([-1, -0.0, 0, 1, 1.0000001, -2, inf, -inf, nan, 1e-30, 0.99999994])
// OUT: np.arcsin(x.astype(np.float64)) ; rtol=1e-6, atol=1e-6
// OUT: np.arccos(x.astype(np.float64)) ; rtol=1e-6, atol=1e-6
// OUT: np.arctan(y.astype(np.float64)) ; rtol=1e-6, atol=1e-6
// OUT: np.arcsin(e.astype(np.float64)) ; rtol=1e-6, atol=0
// OUT: np.arccos(e.astype(np.float64)) ; rtol=1e-6, atol=0
// OUT: np.arctan(e.astype(np.float64)) ; rtol=1e-6, atol=0
func.func @f32_inverse_trig(%x: tensor<3x41xf32>, %y: tensor<3x41xf32>, %e: tensor<11xf32>) -> (tensor<3x41xf32>, tensor<3x41xf32>, tensor<3x41xf32>, tensor<11xf32>, tensor<11xf32>, tensor<11xf32>) {
  %0 = lazy.asin %x : tensor<3x41xf32>
  %1 = lazy.acos %x : tensor<3x41xf32>
  %2 = lazy.atan %y : tensor<3x41xf32>
  %3 = lazy.asin %e : tensor<11xf32>
  %4 = lazy.acos %e : tensor<11xf32>
  %5 = lazy.atan %e : tensor<11xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<3x41xf32>, tensor<3x41xf32>, tensor<3x41xf32>, tensor<11xf32>, tensor<11xf32>, tensor<11xf32>
}

// -----

// f64 asin, acos, atan at f64 accuracy (would fail if computed in f32).
// ARG: x f64 [53] uniform(-1, 1)
// ARG: y f64 [53] uniform(-50, 50)
// OUT: np.arcsin(x) ; rtol=1e-14, atol=1e-15
// OUT: np.arccos(x) ; rtol=1e-14, atol=1e-15
// OUT: np.arctan(y) ; rtol=1e-14, atol=1e-15
func.func @f64_inverse_trig(%x: tensor<53xf64>, %y: tensor<53xf64>) -> (tensor<53xf64>, tensor<53xf64>, tensor<53xf64>) {
  %0 = lazy.asin %x : tensor<53xf64>
  %1 = lazy.acos %x : tensor<53xf64>
  %2 = lazy.atan %y : tensor<53xf64>
  return %0, %1, %2 : tensor<53xf64>, tensor<53xf64>, tensor<53xf64>
}

// -----

// f16 and bf16 asin, acos, atan, computed in f32 and rounded once: within
// one ulp of their type.
// ARG: h f16 [45] uniform(-1, 1)
// ARG: b bf16 [39] uniform(-1, 1)
// ARG: t bf16 [39] uniform(-8, 8)
// OUT: np.arcsin(h.astype(np.float64)) ; rtol=1e-3, atol=1e-4
// OUT: np.arccos(h.astype(np.float64)) ; rtol=1e-3, atol=1e-4
// OUT: np.arctan(h.astype(np.float64)) ; rtol=1e-3, atol=1e-4
// OUT: np.arcsin(b.astype(np.float64)) ; rtol=8e-3, atol=1e-3
// OUT: np.arccos(b.astype(np.float64)) ; rtol=8e-3, atol=1e-3
// OUT: np.arctan(t.astype(np.float64)) ; rtol=8e-3, atol=1e-3
func.func @narrow_inverse_trig(%h: tensor<45xf16>, %b: tensor<39xbf16>, %t: tensor<39xbf16>) -> (tensor<45xf16>, tensor<45xf16>, tensor<45xf16>, tensor<39xbf16>, tensor<39xbf16>, tensor<39xbf16>) {
  %0 = lazy.asin %h : tensor<45xf16>
  %1 = lazy.acos %h : tensor<45xf16>
  %2 = lazy.atan %h : tensor<45xf16>
  %3 = lazy.asin %b : tensor<39xbf16>
  %4 = lazy.acos %b : tensor<39xbf16>
  %5 = lazy.atan %t : tensor<39xbf16>
  return %0, %1, %2, %3, %4, %5 : tensor<45xf16>, tensor<45xf16>, tensor<45xf16>, tensor<39xbf16>, tensor<39xbf16>, tensor<39xbf16>
}

// -----

// f64 add, sub, mul, div are exact.
// ARG: a f64 [3, 19] uniform(-1000, 1000)
// ARG: b f64 [3, 19] uniform(0.001, 10)
// OUT: a + b ; rtol=0, atol=0
// OUT: a - b ; rtol=0, atol=0
// OUT: a * b ; rtol=0, atol=0
// OUT: a / b ; rtol=0, atol=0
func.func @f64_arith(%a: tensor<3x19xf64>, %b: tensor<3x19xf64>) -> (tensor<3x19xf64>, tensor<3x19xf64>, tensor<3x19xf64>, tensor<3x19xf64>) {
  %0 = lazy.add %a, %b : tensor<3x19xf64>
  %1 = lazy.sub %a, %b : tensor<3x19xf64>
  %2 = lazy.mul %a, %b : tensor<3x19xf64>
  %3 = lazy.div %a, %b : tensor<3x19xf64>
  return %0, %1, %2, %3 : tensor<3x19xf64>, tensor<3x19xf64>, tensor<3x19xf64>, tensor<3x19xf64>
}

// -----

// f64 transcendentals and sqrt at f64 accuracy (would fail if computed in f32).
// ARG: x f64 [53] uniform(-5, 5)
// ARG: p f64 [53] uniform(0.01, 100)
// OUT: np.exp(x) ; rtol=1e-14, atol=1e-15
// OUT: np.log(p) ; rtol=1e-14, atol=1e-15
// OUT: np.tanh(x) ; rtol=1e-14, atol=1e-15
// OUT: np.sin(x) ; rtol=1e-14, atol=1e-15
// OUT: np.cos(x) ; rtol=1e-14, atol=1e-15
// OUT: np.vectorize(math.erf)(x) ; rtol=1e-14, atol=1e-15
// OUT: np.sqrt(p) ; rtol=0, atol=0
// OUT: 1 / np.sqrt(p) ; rtol=1e-14, atol=0
// OUT: 1 / (1 + np.exp(-x)) ; rtol=1e-14, atol=1e-15
// OUT: np.power(p, x) ; rtol=1e-14, atol=0
func.func @f64_math(%x: tensor<53xf64>, %p: tensor<53xf64>) -> (tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>) {
  %0 = lazy.exp %x : tensor<53xf64>
  %1 = lazy.log %p : tensor<53xf64>
  %2 = lazy.tanh %x : tensor<53xf64>
  %3 = lazy.sin %x : tensor<53xf64>
  %4 = lazy.cos %x : tensor<53xf64>
  %5 = lazy.erf %x : tensor<53xf64>
  %6 = lazy.sqrt %p : tensor<53xf64>
  %7 = lazy.rsqrt %p : tensor<53xf64>
  %8 = lazy.sigmoid %x : tensor<53xf64>
  %9 = lazy.pow %p, %x : tensor<53xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>, tensor<53xf64>
}

// -----

// f64 max, min, neg, abs, relu are exact.
// ARG: a f64 [29]
// ARG: b f64 [29]
// OUT: np.maximum(a, b) ; rtol=0, atol=0
// OUT: np.minimum(a, b) ; rtol=0, atol=0
// OUT: -a ; rtol=0, atol=0
// OUT: np.abs(a) ; rtol=0, atol=0
// OUT: np.maximum(a, 0) ; rtol=0, atol=0
func.func @f64_max_min_unary(%a: tensor<29xf64>, %b: tensor<29xf64>) -> (tensor<29xf64>, tensor<29xf64>, tensor<29xf64>, tensor<29xf64>, tensor<29xf64>) {
  %0 = lazy.max %a, %b : tensor<29xf64>
  %1 = lazy.min %a, %b : tensor<29xf64>
  %2 = lazy.neg %a : tensor<29xf64>
  %3 = lazy.abs %a : tensor<29xf64>
  %4 = lazy.relu %a : tensor<29xf64>
  return %0, %1, %2, %3, %4 : tensor<29xf64>, tensor<29xf64>, tensor<29xf64>, tensor<29xf64>, tensor<29xf64>
}

// -----

// f16 add, mul, div, sqrt, max, neg are correctly rounded: exact.
// ARG: a f16 [4, 17] uniform(-8, 8)
// ARG: b f16 [4, 17] uniform(0.25, 4)
// OUT: a.astype(np.float64) + b ; rtol=0, atol=0
// OUT: a.astype(np.float64) * b ; rtol=0, atol=0
// OUT: a.astype(np.float64) / b ; rtol=0, atol=0
// OUT: np.sqrt(b.astype(np.float64)) ; rtol=0, atol=0
// OUT: np.maximum(a, b) ; rtol=0, atol=0
// OUT: -a ; rtol=0, atol=0
func.func @f16_arith(%a: tensor<4x17xf16>, %b: tensor<4x17xf16>) -> (tensor<4x17xf16>, tensor<4x17xf16>, tensor<4x17xf16>, tensor<4x17xf16>, tensor<4x17xf16>, tensor<4x17xf16>) {
  %0 = lazy.add %a, %b : tensor<4x17xf16>
  %1 = lazy.mul %a, %b : tensor<4x17xf16>
  %2 = lazy.div %a, %b : tensor<4x17xf16>
  %3 = lazy.sqrt %b : tensor<4x17xf16>
  %4 = lazy.max %a, %b : tensor<4x17xf16>
  %5 = lazy.neg %a : tensor<4x17xf16>
  return %0, %1, %2, %3, %4, %5 : tensor<4x17xf16>, tensor<4x17xf16>, tensor<4x17xf16>, tensor<4x17xf16>, tensor<4x17xf16>, tensor<4x17xf16>
}

// -----

// f16 transcendentals within one f16 ulp (rtol=1e-3 ~ 2^-10).
// ARG: x f16 [45] uniform(-3, 3)
// ARG: p f16 [45] uniform(0.1, 10)
// OUT: np.exp(x.astype(np.float64)) ; rtol=1e-3, atol=1e-4
// OUT: np.log(p.astype(np.float64)) ; rtol=1e-3, atol=1e-4
// OUT: np.tanh(x.astype(np.float64)) ; rtol=1e-3, atol=1e-4
// OUT: np.sin(x.astype(np.float64)) ; rtol=1e-3, atol=1e-4
// OUT: 1 / (1 + np.exp(-x.astype(np.float64))) ; rtol=1e-3, atol=1e-4
// OUT: np.vectorize(math.erf)(x.astype(np.float64)) ; rtol=1e-3, atol=1e-4
// OUT: np.power(p.astype(np.float64), x) ; rtol=1e-3, atol=1e-4
func.func @f16_math(%x: tensor<45xf16>, %p: tensor<45xf16>) -> (tensor<45xf16>, tensor<45xf16>, tensor<45xf16>, tensor<45xf16>, tensor<45xf16>, tensor<45xf16>, tensor<45xf16>) {
  %0 = lazy.exp %x : tensor<45xf16>
  %1 = lazy.log %p : tensor<45xf16>
  %2 = lazy.tanh %x : tensor<45xf16>
  %3 = lazy.sin %x : tensor<45xf16>
  %4 = lazy.sigmoid %x : tensor<45xf16>
  %5 = lazy.erf %x : tensor<45xf16>
  %6 = lazy.pow %p, %x : tensor<45xf16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<45xf16>, tensor<45xf16>, tensor<45xf16>, tensor<45xf16>, tensor<45xf16>, tensor<45xf16>, tensor<45xf16>
}

// -----

// bf16 add, sub, mul, div within half a bf16 ulp of the exact value (2^-8 relative).
// ARG: a bf16 [3, 23] uniform(-8, 8)
// ARG: b bf16 [3, 23] uniform(0.25, 4)
// OUT: a.astype(np.float64) + b ; rtol=4e-3, atol=1e-6
// OUT: a.astype(np.float64) - b ; rtol=4e-3, atol=1e-6
// OUT: a.astype(np.float64) * b ; rtol=4e-3, atol=0
// OUT: a.astype(np.float64) / b ; rtol=4e-3, atol=0
// OUT: np.minimum(a, b) ; rtol=0, atol=0
// OUT: np.abs(a) ; rtol=0, atol=0
func.func @bf16_arith(%a: tensor<3x23xbf16>, %b: tensor<3x23xbf16>) -> (tensor<3x23xbf16>, tensor<3x23xbf16>, tensor<3x23xbf16>, tensor<3x23xbf16>, tensor<3x23xbf16>, tensor<3x23xbf16>) {
  %0 = lazy.add %a, %b : tensor<3x23xbf16>
  %1 = lazy.sub %a, %b : tensor<3x23xbf16>
  %2 = lazy.mul %a, %b : tensor<3x23xbf16>
  %3 = lazy.div %a, %b : tensor<3x23xbf16>
  %4 = lazy.min %a, %b : tensor<3x23xbf16>
  %5 = lazy.abs %a : tensor<3x23xbf16>
  return %0, %1, %2, %3, %4, %5 : tensor<3x23xbf16>, tensor<3x23xbf16>, tensor<3x23xbf16>, tensor<3x23xbf16>, tensor<3x23xbf16>, tensor<3x23xbf16>
}

// -----

// bf16 transcendentals within one bf16 ulp (2^-7 relative).
// ARG: x bf16 [39] uniform(-3, 3)
// ARG: p bf16 [39] uniform(0.1, 10)
// OUT: np.exp(x.astype(np.float64)) ; rtol=8e-3, atol=1e-3
// OUT: np.log(p.astype(np.float64)) ; rtol=8e-3, atol=1e-3
// OUT: np.tanh(x.astype(np.float64)) ; rtol=8e-3, atol=1e-3
// OUT: np.cos(x.astype(np.float64)) ; rtol=8e-3, atol=1e-3
// OUT: 1 / np.sqrt(p.astype(np.float64)) ; rtol=8e-3, atol=0
// OUT: np.sqrt(p.astype(np.float64)) ; rtol=4e-3, atol=0
func.func @bf16_math(%x: tensor<39xbf16>, %p: tensor<39xbf16>) -> (tensor<39xbf16>, tensor<39xbf16>, tensor<39xbf16>, tensor<39xbf16>, tensor<39xbf16>, tensor<39xbf16>) {
  %0 = lazy.exp %x : tensor<39xbf16>
  %1 = lazy.log %p : tensor<39xbf16>
  %2 = lazy.tanh %x : tensor<39xbf16>
  %3 = lazy.cos %x : tensor<39xbf16>
  %4 = lazy.rsqrt %p : tensor<39xbf16>
  %5 = lazy.sqrt %p : tensor<39xbf16>
  return %0, %1, %2, %3, %4, %5 : tensor<39xbf16>, tensor<39xbf16>, tensor<39xbf16>, tensor<39xbf16>, tensor<39xbf16>, tensor<39xbf16>
}

// -----

// i32 add, sub, mul, max, min: exact.
// ARG: a i32 [7, 9] int(-30000, 30000)
// ARG: b i32 [7, 9] int(-30000, 30000)
// OUT: a.astype(np.int64) + b
// OUT: a.astype(np.int64) - b
// OUT: a.astype(np.int64) * b
// OUT: np.maximum(a, b)
// OUT: np.minimum(a, b)
func.func @i32_arith(%a: tensor<7x9xi32>, %b: tensor<7x9xi32>) -> (tensor<7x9xi32>, tensor<7x9xi32>, tensor<7x9xi32>, tensor<7x9xi32>, tensor<7x9xi32>) {
  %0 = lazy.add %a, %b : tensor<7x9xi32>
  %1 = lazy.sub %a, %b : tensor<7x9xi32>
  %2 = lazy.mul %a, %b : tensor<7x9xi32>
  %3 = lazy.max %a, %b : tensor<7x9xi32>
  %4 = lazy.min %a, %b : tensor<7x9xi32>
  return %0, %1, %2, %3, %4 : tensor<7x9xi32>, tensor<7x9xi32>, tensor<7x9xi32>, tensor<7x9xi32>, tensor<7x9xi32>
}

// -----

// i32 add, sub, mul wrap around (two's complement), reference in int64 reduced mod 2^32.
// ARG: a i32 [33] int(-2147483648, 2147483647)
// ARG: b i32 [33] int(-2147483648, 2147483647)
// OUT: (a.astype(np.int64) + b + 2**31) % 2**32 - 2**31
// OUT: (a.astype(np.int64) - b + 2**31) % 2**32 - 2**31
// OUT: np.array([(int(p) * int(q) + 2**31) % 2**32 - 2**31 for p, q in zip(a, b)])
func.func @i32_wrap(%a: tensor<33xi32>, %b: tensor<33xi32>) -> (tensor<33xi32>, tensor<33xi32>, tensor<33xi32>) {
  %0 = lazy.add %a, %b : tensor<33xi32>
  %1 = lazy.sub %a, %b : tensor<33xi32>
  %2 = lazy.mul %a, %b : tensor<33xi32>
  return %0, %1, %2 : tensor<33xi32>, tensor<33xi32>, tensor<33xi32>
}

// -----

// i32 division rounds toward zero, for every sign combination (divisors never 0).
// ARG: a i32 [5, 13] int(-1000, 1000)
// ARG: b i32 [5, 13] int(1, 9)
// OUT: np.sign(a) * (np.abs(a) // b)
// OUT: -np.sign(a) * (np.abs(a) // b)
func.func @i32_div(%a: tensor<5x13xi32>, %b: tensor<5x13xi32>) -> (tensor<5x13xi32>, tensor<5x13xi32>) {
  %0 = lazy.div %a, %b : tensor<5x13xi32>
  %nb = lazy.neg %b : tensor<5x13xi32>
  %1 = lazy.div %a, %nb : tensor<5x13xi32>
  return %0, %1 : tensor<5x13xi32>, tensor<5x13xi32>
}

// -----

// i32/i64 x / 0 and MIN / -1 are unspecified but must not trap: well-defined elements checked (others masked to 0), raw quotients returned unchecked.
// ARG: a i32 [6] values([7, -7, 0, -2147483648, -2147483648, 9])
// ARG: b i32 [6] values([0, 0, 0, -1, 3, -2])
// ARG: k i64 [3] values([7, -9223372036854775808, 10])
// ARG: l i64 [3] values([0, -1, 3])
// OUT: np.array([0, 0, 0, 0, -715827882, -4])
// OUT: np.array([0, 0, 3])
func.func @int_div_by_zero_no_trap(%a: tensor<6xi32>, %b: tensor<6xi32>, %k: tensor<3xi64>, %l: tensor<3xi64>) -> (tensor<6xi32>, tensor<3xi64>, tensor<6xi32>, tensor<3xi64>) {
  %q = lazy.div %a, %b : tensor<6xi32>
  %zero = lazy.constant dense<0> : tensor<6xi32>
  %minus1 = lazy.constant dense<-1> : tensor<6xi32>
  %bz = lazy.compare eq, %b, %zero : tensor<6xi32>
  %bm = lazy.compare eq, %b, %minus1 : tensor<6xi32>
  %bad = lazy.select %bz, %bz, %bm : tensor<6xi1>, tensor<6xi1>
  %0 = lazy.select %bad, %zero, %q : tensor<6xi1>, tensor<6xi32>
  %r = lazy.div %k, %l : tensor<3xi64>
  %zero64 = lazy.constant dense<0> : tensor<3xi64>
  %minus164 = lazy.constant dense<-1> : tensor<3xi64>
  %lz = lazy.compare eq, %l, %zero64 : tensor<3xi64>
  %lm = lazy.compare eq, %l, %minus164 : tensor<3xi64>
  %bad64 = lazy.select %lz, %lz, %lm : tensor<3xi1>, tensor<3xi1>
  %1 = lazy.select %bad64, %zero64, %r : tensor<3xi1>, tensor<3xi64>
  return %0, %1, %q, %r : tensor<6xi32>, tensor<3xi64>, tensor<6xi32>, tensor<3xi64>
}

// -----

// i32 pow with non-negative exponents, small enough not to wrap.
// ARG: a i32 [6, 7] int(-6, 6)
// ARG: e i32 [6, 7] int(0, 7)
// OUT: np.power(a.astype(np.int64), e)
func.func @i32_pow(%a: tensor<6x7xi32>, %e: tensor<6x7xi32>) -> tensor<6x7xi32> {
  %0 = lazy.pow %a, %e : tensor<6x7xi32>
  return %0 : tensor<6x7xi32>
}

// -----

// i32 pow wraps around like repeated multiplication (reference: Python ints mod 2^32).
// ARG: a i32 [40] int(-9, 9)
// ARG: e i32 [40] int(0, 40)
// OUT: np.array([(int(p) ** int(q) + 2**31) % 2**32 - 2**31 for p, q in zip(a, e)])
func.func @i32_pow_wrap(%a: tensor<40xi32>, %e: tensor<40xi32>) -> tensor<40xi32> {
  %0 = lazy.pow %a, %e : tensor<40xi32>
  return %0 : tensor<40xi32>
}

// -----

// i32 pow with negative exponents: 0 unless the base is 1 or -1 (bases other than 0).
// ARG: a i32 [12] values([1, 1, -1, -1, -1, 2, -2, 3, 7, -5, 2, 100])
// ARG: e i32 [12] values([-1, -5, -1, -2, -7, -1, -1, -2, -1, -3, -30, -1])
// OUT: np.where(a == 1, 1, np.where(a == -1, np.where(e % 2 == 0, 1, -1), 0))
func.func @i32_pow_negative_exponent(%a: tensor<12xi32>, %e: tensor<12xi32>) -> tensor<12xi32> {
  %0 = lazy.pow %a, %e : tensor<12xi32>
  return %0 : tensor<12xi32>
}

// -----

// i32 neg, abs, relu, including INT32_MIN (neg and abs wrap to INT32_MIN).
// ARG: x i32 [40] int(-50, 50)
// ARG: m i32 [5] values([-2147483648, 2147483647, 0, -1, 1])
// OUT: -x
// OUT: np.abs(x)
// OUT: np.maximum(x, 0)
// OUT: np.array([-2147483648, -2147483647, 0, 1, -1])
// OUT: np.array([-2147483648, 2147483647, 0, 1, 1])
// OUT: np.array([0, 2147483647, 0, 0, 1])
func.func @i32_unary(%x: tensor<40xi32>, %m: tensor<5xi32>) -> (tensor<40xi32>, tensor<40xi32>, tensor<40xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>) {
  %0 = lazy.neg %x : tensor<40xi32>
  %1 = lazy.abs %x : tensor<40xi32>
  %2 = lazy.relu %x : tensor<40xi32>
  %3 = lazy.neg %m : tensor<5xi32>
  %4 = lazy.abs %m : tensor<5xi32>
  %5 = lazy.relu %m : tensor<5xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<40xi32>, tensor<40xi32>, tensor<40xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>
}

// -----

// i64 add, sub, mul, div, max, min beyond the i32 range: exact.
// ARG: a i64 [4, 9] int(-5000000000, 5000000000)
// ARG: b i64 [4, 9] int(-5000000000, 5000000000)
// ARG: d i64 [4, 9] int(1, 9)
// OUT: a + b
// OUT: a - b
// OUT: (np.sign(a) * (np.abs(a) // 4)) * (np.sign(b) * (np.abs(b) // 3))
// OUT: np.sign(a) * (np.abs(a) // d)
// OUT: -np.sign(a) * (np.abs(a) // d)
// OUT: np.maximum(a, b)
// OUT: np.minimum(a, b)
func.func @i64_arith(%a: tensor<4x9xi64>, %b: tensor<4x9xi64>, %d: tensor<4x9xi64>) -> (tensor<4x9xi64>, tensor<4x9xi64>, tensor<4x9xi64>, tensor<4x9xi64>, tensor<4x9xi64>, tensor<4x9xi64>, tensor<4x9xi64>) {
  %0 = lazy.add %a, %b : tensor<4x9xi64>
  %1 = lazy.sub %a, %b : tensor<4x9xi64>
  %c4 = lazy.constant dense<4> : tensor<4x9xi64>
  %c3 = lazy.constant dense<3> : tensor<4x9xi64>
  %a4 = lazy.div %a, %c4 : tensor<4x9xi64>
  %b3 = lazy.div %b, %c3 : tensor<4x9xi64>
  %2 = lazy.mul %a4, %b3 : tensor<4x9xi64>
  %3 = lazy.div %a, %d : tensor<4x9xi64>
  %nd = lazy.neg %d : tensor<4x9xi64>
  %4 = lazy.div %a, %nd : tensor<4x9xi64>
  %5 = lazy.max %a, %b : tensor<4x9xi64>
  %6 = lazy.min %a, %b : tensor<4x9xi64>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4x9xi64>, tensor<4x9xi64>, tensor<4x9xi64>, tensor<4x9xi64>, tensor<4x9xi64>, tensor<4x9xi64>, tensor<4x9xi64>
}

// -----

// i64 pow (results beyond i32, and wrapping mod 2^64), neg, abs, relu.
// ARG: a i64 [30] int(-7, 7)
// ARG: e i64 [30] int(0, 60)
// ARG: x i64 [30] int(-5000000000, 5000000000)
// OUT: np.array([(int(p) ** int(q) + 2**63) % 2**64 - 2**63 for p, q in zip(a, e)])
// OUT: -x
// OUT: np.abs(x)
// OUT: np.maximum(x, 0)
func.func @i64_pow_unary(%a: tensor<30xi64>, %e: tensor<30xi64>, %x: tensor<30xi64>) -> (tensor<30xi64>, tensor<30xi64>, tensor<30xi64>, tensor<30xi64>) {
  %0 = lazy.pow %a, %e : tensor<30xi64>
  %1 = lazy.neg %x : tensor<30xi64>
  %2 = lazy.abs %x : tensor<30xi64>
  %3 = lazy.relu %x : tensor<30xi64>
  return %0, %1, %2, %3 : tensor<30xi64>, tensor<30xi64>, tensor<30xi64>, tensor<30xi64>
}

// -----

// max and min propagate NaN (np.maximum/np.minimum) on every pair of special values (infinities, zeros, a subnormal).
// ARG: a f32 [8, 1] values([[nan], [inf], [-inf], [-0.0], [0.0], [1.5], [-2], [1e-40]])
// ARG: b f32 [1, 8] values([[nan, inf, -inf, -0.0, 0.0, 1.5, -2, 1e-40]])
// OUT: np.maximum(a, b) ; rtol=0, atol=0
// OUT: np.minimum(a, b) ; rtol=0, atol=0
func.func @max_min_special(%a: tensor<8x1xf32>, %b: tensor<1x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %ab = lazy.broadcast %a to [8, 8] : tensor<8x1xf32>
  %bb = lazy.broadcast %b to [8, 8] : tensor<1x8xf32>
  %max = lazy.max %ab, %bb : tensor<8x8xf32>
  %min = lazy.min %ab, %bb : tensor<8x8xf32>
  return %max, %min : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// relu keeps NaN, maps -0.0 and negatives to +0.0 (1 / relu shows +inf), keeps +inf; neg/abs flip signs of zeros.
// ARG: x f32 [8] values([nan, -inf, inf, -0.0, 0.0, -1, 2, -1e-40])
// OUT: np.array([np.nan, 0, np.inf, 0, 0, 0, 2, 0]) ; rtol=0, atol=0
// OUT: np.array([np.nan, np.inf, 0, np.inf, np.inf, np.inf, 0.5, np.inf]) ; rtol=0, atol=0
// OUT: np.errstate(all='ignore')(lambda: np.float32(1) / -x)() ; rtol=0, atol=0
// OUT: np.errstate(all='ignore')(lambda: np.float32(1) / np.abs(x))() ; rtol=0, atol=0
func.func @relu_neg_abs_special(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %r = lazy.relu %x : tensor<8xf32>
  %one = lazy.constant dense<1.0> : tensor<8xf32>
  %rr = lazy.div %one, %r : tensor<8xf32>
  %n = lazy.neg %x : tensor<8xf32>
  %rn = lazy.div %one, %n : tensor<8xf32>
  %a = lazy.abs %x : tensor<8xf32>
  %ra = lazy.div %one, %a : tensor<8xf32>
  return %r, %rr, %rn, %ra : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// exp, log, sqrt, rsqrt at edge values: infinities, NaN, signed zeros, negatives, overflow, subnormals.
// ARG: x f32 [10] values([-inf, inf, nan, 0.0, -0.0, 89, -104, 88.5, -1, 1e-40])
// OUT: np.errstate(all='ignore')(lambda: np.exp(x.astype(np.float64)).astype(np.float32))() ; rtol=1e-6, atol=1e-38
// OUT: np.errstate(all='ignore')(lambda: np.log(x.astype(np.float64)))() ; rtol=1e-6, atol=0
// OUT: np.errstate(all='ignore')(lambda: np.sqrt(x.astype(np.float64)))() ; rtol=0, atol=0
// OUT: np.errstate(all='ignore')(lambda: 1 / np.sqrt(x.astype(np.float64)))() ; rtol=1e-6, atol=0
// OUT: np.errstate(all='ignore')(lambda: np.float32(1) / np.sqrt(x))() ; rtol=0, atol=0
func.func @exp_log_sqrt_special(%x: tensor<10xf32>) -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>) {
  %0 = lazy.exp %x : tensor<10xf32>
  %1 = lazy.log %x : tensor<10xf32>
  %2 = lazy.sqrt %x : tensor<10xf32>
  %3 = lazy.rsqrt %x : tensor<10xf32>
  %one = lazy.constant dense<1.0> : tensor<10xf32>
  %4 = lazy.div %one, %2 : tensor<10xf32>
  return %0, %1, %2, %3, %4 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>
}

// -----

// tanh, sigmoid, erf, sin, cos at infinities and NaN.
// ARG: x f32 [5] values([-inf, inf, nan, 0.0, -0.0])
// OUT: np.tanh(x) ; rtol=0, atol=0
// OUT: np.array([0, 1, np.nan, 0.5, 0.5]) ; rtol=0, atol=0
// OUT: np.array([-1, 1, np.nan, 0, 0]) ; rtol=0, atol=0
// OUT: np.array([np.nan, np.nan, np.nan, 0, 0]) ; rtol=0, atol=0
// OUT: np.array([np.nan, np.nan, np.nan, 1, 1]) ; rtol=0, atol=0
func.func @transcendental_special(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %0 = lazy.tanh %x : tensor<5xf32>
  %1 = lazy.sigmoid %x : tensor<5xf32>
  %2 = lazy.erf %x : tensor<5xf32>
  %3 = lazy.sin %x : tensor<5xf32>
  %4 = lazy.cos %x : tensor<5xf32>
  return %0, %1, %2, %3, %4 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}

// -----

// f32 sub/div at special values: inf - inf, 0/0 and inf/inf are NaN, x/0 is +-inf by the sign of zero.
// ARG: a f32 [6] values([inf, 0.0, 1, -1, nan, inf])
// ARG: b f32 [6] values([inf, 0.0, 0.0, 0.0, 1, -0.0])
// OUT: np.array([np.nan, 0, 1, -1, np.nan, np.inf]) ; rtol=0, atol=0
// OUT: np.array([np.nan, np.nan, np.inf, -np.inf, np.nan, -np.inf]) ; rtol=0, atol=0
func.func @arith_special(%a: tensor<6xf32>, %b: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %0 = lazy.sub %a, %b : tensor<6xf32>
  %1 = lazy.div %a, %b : tensor<6xf32>
  return %0, %1 : tensor<6xf32>, tensor<6xf32>
}
